/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's record (daemon-state.h): to and from JSON, in the state file. */
#include <errno.h>
#include <string.h>

#include "daemon-state.h"
#include "fileio.h"
#include "json-util.h"
#include "macro.h"
#include "state.h"

void cp_daemon_record_free(struct cp_daemon_record *rec)
{
	cp_strv_free(rec->policy_files, rec->n_policy_files);
	cp_strv_free(rec->waiting, rec->n_waiting);
	cp_strv_free(rec->pending, rec->n_pending);
	memset(rec, 0, sizeof(*rec));
}

static int strv_copy(char *const *from, size_t n, char ***ret, size_t *ret_n)
{
	char **v = calloc(n + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		v[i] = strdup(from[i]);
		if (!v[i]) {
			cp_strv_free(v, i);
			return -ENOMEM;
		}
	}
	cp_strv_free(*ret, *ret_n);
	*ret = v;
	*ret_n = n;
	return 0;
}

int cp_daemon_record_set_files(struct cp_daemon_record *rec, char *const *files, size_t n)
{
	return strv_copy(files, n, &rec->policy_files, &rec->n_policy_files);
}

int cp_daemon_record_set_waiting(struct cp_daemon_record *rec, char *const *drivers, size_t n)
{
	return strv_copy(drivers, n, &rec->waiting, &rec->n_waiting);
}

int cp_daemon_record_set_pending(struct cp_daemon_record *rec, char *const *names, size_t n)
{
	return strv_copy(names, n, &rec->pending, &rec->n_pending);
}

json_object *cp_daemon_record_to_json(const struct cp_daemon_record *rec)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "pid", json_object_new_int(rec->pid));
	json_object_object_add(o, "started_at", json_object_new_int64(rec->started_at));
	json_object_object_add(o, "ready_at", json_object_new_int64(rec->ready_at));
	json_object_object_add(o, "stopped_at", json_object_new_int64(rec->stopped_at));
	json_object_object_add(o, "ready_usec", json_object_new_uint64(rec->ready_usec));
	json_object_object_add(o, "policy_files",
			       cp_json_strv(rec->policy_files, rec->n_policy_files));
	json_object_object_add(o, "runs", json_object_new_uint64(rec->runs));
	json_object_object_add(o, "module_events", json_object_new_uint64(rec->module_events));
	json_object_object_add(o, "reloads", json_object_new_uint64(rec->reloads));
	json_object_object_add(o, "reload_failures", json_object_new_uint64(rec->reload_failures));
	json_object_object_add(o, "last_run_at", json_object_new_int64(rec->last_run_at));
	json_object_object_add(o, "last_trigger", json_object_new_string(rec->last_trigger));
	json_object_object_add(o, "last_changed", json_object_new_uint64(rec->last_changed));
	json_object_object_add(o, "last_failed", json_object_new_uint64(rec->last_failed));
	json_object_object_add(o, "last_from_cache", json_object_new_uint64(rec->last_from_cache));
	json_object_object_add(o, "last_measured", json_object_new_uint64(rec->last_measured));
	json_object_object_add(o, "backend", json_object_new_string(rec->backend));
	json_object_object_add(o, "last_error", json_object_new_string(rec->last_error));
	json_object_object_add(o, "waiting", cp_json_strv(rec->waiting, rec->n_waiting));
	json_object_object_add(o, "cache_unsaved", json_object_new_boolean(rec->cache_unsaved));
	json_object_object_add(o, "pending", cp_json_strv(rec->pending, rec->n_pending));
	json_object_object_add(o, "last_run_failed", json_object_new_boolean(rec->last_run_failed));
	return o;
}

static int get_u64(json_object *o, const char *key, uint64_t *ret)
{
	int64_t v;
	int r = cp_json_get_int(o, key, 0, INT64_MAX, &v);

	if (r >= 0)
		*ret = (uint64_t) v;
	return r;
}

static int get_strv(json_object *o, const char *key, char ***ret, size_t *ret_n)
{
	json_object *a;
	size_t n;
	char **v;

	if (!json_object_object_get_ex(o, key, &a) || !json_object_is_type(a, json_type_array))
		return -EBADMSG;
	n = json_object_array_length(a);
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(a, i);

		if (!json_object_is_type(s, json_type_string) ||
		    !(v[i] = strdup(json_object_get_string(s)))) {
			cp_strv_free(v, i);
			return json_object_is_type(s, json_type_string) ? -ENOMEM : -EBADMSG;
		}
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

int cp_daemon_record_from_json(json_object *o, struct cp_daemon_record *rec)
{
	json_object *v;
	int64_t pid;
	int r = 0;

	memset(rec, 0, sizeof(*rec));
	if (!json_object_is_type(o, json_type_object))
		return -EBADMSG;
	if (cp_json_get_int(o, "pid", 0, INT64_MAX, &pid) < 0 || pid > INT32_MAX)
		return -EBADMSG;
	rec->pid = (int32_t) pid;
	if (cp_json_get_int(o, "started_at", 0, INT64_MAX, &rec->started_at) < 0 ||
	    cp_json_get_int(o, "ready_at", 0, INT64_MAX, &rec->ready_at) < 0 ||
	    cp_json_get_int(o, "stopped_at", 0, INT64_MAX, &rec->stopped_at) < 0 ||
	    get_u64(o, "ready_usec", &rec->ready_usec) < 0 || get_u64(o, "runs", &rec->runs) < 0 ||
	    get_u64(o, "module_events", &rec->module_events) < 0 ||
	    get_u64(o, "reloads", &rec->reloads) < 0 ||
	    get_u64(o, "reload_failures", &rec->reload_failures) < 0 ||
	    cp_json_get_int(o, "last_run_at", 0, INT64_MAX, &rec->last_run_at) < 0 ||
	    cp_json_get_string(o, "last_trigger", rec->last_trigger, sizeof(rec->last_trigger),
			       true) < 0 ||
	    get_u64(o, "last_changed", &rec->last_changed) < 0 ||
	    get_u64(o, "last_failed", &rec->last_failed) < 0 ||
	    get_u64(o, "last_from_cache", &rec->last_from_cache) < 0 ||
	    get_u64(o, "last_measured", &rec->last_measured) < 0 ||
	    cp_json_get_string(o, "backend", rec->backend, sizeof(rec->backend), true) < 0 ||
	    cp_json_get_string(o, "last_error", rec->last_error, sizeof(rec->last_error), true) <
		0 ||
	    !json_object_object_get_ex(o, "cache_unsaved", &v) ||
	    !json_object_is_type(v, json_type_boolean))
		return -EBADMSG;
	rec->cache_unsaved = json_object_get_boolean(v);
	if (json_object_object_get_ex(o, "last_run_failed", &v)) {
		if (!json_object_is_type(v, json_type_boolean))
			return -EBADMSG;
		rec->last_run_failed = json_object_get_boolean(v);
	}
	r = get_strv(o, "policy_files", &rec->policy_files, &rec->n_policy_files);
	if (r >= 0)
		r = get_strv(o, "waiting", &rec->waiting, &rec->n_waiting);
	if (r >= 0 && json_object_object_get_ex(o, "pending", NULL))
		r = get_strv(o, "pending", &rec->pending, &rec->n_pending);
	if (r < 0)
		cp_daemon_record_free(rec);
	return r;
}

int cp_daemon_record_load(const char *path, struct cp_daemon_record *rec)
{
	_cleanup_(cp_state_free) struct cp_state state = {};
	int r;

	memset(rec, 0, sizeof(*rec));
	r = cp_state_load(path, &state);
	if (r < 0)
		return r;
	return cp_daemon_record_from_state(&state, rec);
}

int cp_daemon_record_save(const char *path, const char *lock_path,
			  const struct cp_daemon_record *rec)
{
	_cleanup_(cp_state_free) struct cp_state state = {};
	_cleanup_close_ int lock_fd = -1;
	int r;

	lock_fd = cp_lock_acquire(lock_path);
	if (lock_fd < 0)
		return lock_fd;
	r = cp_state_load_salvage(path, &state);
	if (r >= 0)
		r = cp_daemon_record_put(&state, rec);
	return r < 0 ? r : cp_state_save(path, &state);
}

int cp_daemon_record_put_json(struct cp_state *state, json_object *record)
{
	if (!record)
		return -ENOMEM;
	if (!state->doc) {
		state->doc = cp_json_new_versioned(CP_STATE_VERSION);
		if (!state->doc) {
			json_object_put(record);
			return -ENOMEM;
		}
	}
	if (json_object_object_add(state->doc, "daemon", record) == 0)
		return 0;
	json_object_put(record); /* json-c keeps it only on success */
	return -ENOMEM;
}

int cp_daemon_record_put(struct cp_state *state, const struct cp_daemon_record *rec)
{
	return cp_daemon_record_put_json(state, cp_daemon_record_to_json(rec));
}

int cp_daemon_record_from_state(const struct cp_state *state, struct cp_daemon_record *rec)
{
	json_object *o;

	memset(rec, 0, sizeof(*rec));
	if (!state->doc || !json_object_object_get_ex(state->doc, "daemon", &o))
		return -ENOENT;
	return cp_daemon_record_from_json(o, rec);
}

bool cp_state_last_run_failed(const struct cp_state *state)
{
	const struct cp_state_apply *a = state->last_apply;
	struct cp_daemon_record rec;
	bool failed = a && !a->finished_at;

	for (size_t i = 0; a && i < a->n_steps; i++)
		failed |= a->steps[i].result == CP_STEP_FAILED;
	if (cp_daemon_record_from_state(state, &rec) >= 0) {
		failed |= rec.last_failed > 0 || rec.last_run_failed;
		cp_daemon_record_free(&rec);
	}
	return failed;
}
