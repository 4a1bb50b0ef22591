/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /run/cryptoprio/state.json (state.h): parsed and formatted, and the
 * originals, created instances and last run it records kept in memory.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "fileio.h"
#include "json-util.h"
#include "macro.h"
#include "state.h"

void cp_state_init(struct cp_state *state)
{
	memset(state, 0, sizeof(*state));
}

void cp_state_free(struct cp_state *state)
{
	free(state->originals);
	free(state->created);
	if (state->last_apply)
		cp_state_apply_free(state->last_apply);
	if (state->doc)
		json_object_put(state->doc);
	cp_state_init(state);
}

/* An integer member in min..max. */
static int parse_original(json_object *obj, struct cp_original *original)
{
	json_object *value;
	int64_t priority;

	if (!json_object_is_type(obj, json_type_object))
		return -EBADMSG;
	if (cp_json_get_string(obj, "driver", original->driver, CP_NAME_MAX, true) < 0 ||
	    !original->driver[0] ||
	    cp_json_get_string(obj, "module", original->module, CP_NAME_MAX, true) < 0)
		return -EBADMSG;
	if (!json_object_object_get_ex(obj, "priority", &value) ||
	    !json_object_is_type(value, json_type_int))
		return -EBADMSG;
	priority = json_object_get_int64(value);
	if (priority < 0 || priority > INT_MAX)
		return -EBADMSG;
	original->priority = (uint32_t) priority;
	return 0;
}

static int parse_originals(json_object *array, struct cp_state *state)
{
	size_t n = json_object_array_length(array);

	state->originals = calloc(n ? n : 1, sizeof(*state->originals));
	if (!state->originals)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct cp_original *original = &state->originals[i];

		if (parse_original(json_object_array_get_idx(array, i), original) < 0)
			return -EBADMSG;
		if (cp_state_find(state, original->driver))
			return -EBADMSG; /* a driver twice: which original is right? */
		state->n_originals++;
	}
	return 0;
}

static int parse_action(json_object *obj, enum cp_step_action *ret)
{
	char s[16];

	if (cp_json_get_string(obj, "action", s, sizeof(s), true) < 0)
		return -EBADMSG;
	if (strcmp(s, cp_step_action_to_string(CP_STEP_SET)) == 0)
		*ret = CP_STEP_SET;
	else if (strcmp(s, cp_step_action_to_string(CP_STEP_TOUCH)) == 0)
		*ret = CP_STEP_TOUCH;
	else if (strcmp(s, cp_step_action_to_string(CP_STEP_CREATE)) == 0)
		*ret = CP_STEP_CREATE;
	else if (strcmp(s, cp_step_action_to_string(CP_STEP_REMOVE)) == 0)
		*ret = CP_STEP_REMOVE;
	else
		return -EBADMSG;
	return 0;
}

static int parse_step(json_object *obj, struct cp_state_step *step)
{
	char result[16];
	int64_t old, new, error;

	if (!json_object_is_type(obj, json_type_object))
		return -EBADMSG;
	if (cp_json_get_string(obj, "driver", step->driver, CP_NAME_MAX, true) < 0 ||
	    !step->driver[0] ||
	    cp_json_get_string(obj, "algorithm", step->name, CP_NAME_MAX, true) < 0 ||
	    parse_action(obj, &step->action) < 0 ||
	    cp_json_get_int(obj, "old_priority", 0, INT_MAX, &old) < 0 ||
	    cp_json_get_int(obj, "new_priority", 0, INT_MAX, &new) < 0 ||
	    cp_json_get_string(obj, "why", step->why, sizeof(step->why), true) < 0 ||
	    cp_json_get_string(obj, "result", result, sizeof(result), true) < 0 ||
	    cp_step_result_from_string(result, &step->result) < 0 ||
	    cp_json_get_int(obj, "errno", 0, 4095, &error) < 0 ||
	    cp_json_get_string(obj, "message", step->message, sizeof(step->message), true) < 0)
		return -EBADMSG;
	step->old_priority = (uint32_t) old;
	step->new_priority = (uint32_t) new;
	step->error = (int) -error;
	return 0;
}

/* An array of strings, each handed to @add; a missing @key is one only where @optional. */
static int parse_strings(json_object *obj, const char *key, bool optional,
			 struct cp_state_apply *apply,
			 int (*add)(struct cp_state_apply *, const char *))
{
	json_object *array;

	if (!json_object_object_get_ex(obj, key, &array))
		return optional ? 0 : -EBADMSG;
	if (!json_object_is_type(array, json_type_array))
		return -EBADMSG;
	for (size_t i = 0; i < json_object_array_length(array); i++) {
		json_object *v = json_object_array_get_idx(array, i);

		if (!json_object_is_type(v, json_type_string))
			return -EBADMSG;
		if (add(apply, json_object_get_string(v)) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* One name's winners: {"name": N, CALLER: DRIVER...}, a caller without one left out. */
static int parse_winners_one(json_object *obj, struct cp_winners *w)
{
	enum cp_caller caller;

	if (!json_object_is_type(obj, json_type_object) ||
	    cp_json_get_string(obj, "name", w->name, sizeof(w->name), true) < 0 || !w->name[0])
		return -EBADMSG;
	json_object_object_foreach(obj, key, value)
	{
		if (streq(key, "name"))
			continue;
		if (cp_caller_from_string(key, &caller) < 0 || !cp_caller_recorded(caller) ||
		    cp_json_get_string(obj, key, w->driver[caller], CP_NAME_MAX, true) < 0 ||
		    !w->driver[caller][0])
			return -EBADMSG;
	}
	return 0;
}

/* "winners" is optional: a state written before cryptoprio recorded them has none. */
static int parse_winners(json_object *obj, struct cp_state_apply *apply)
{
	json_object *array;

	if (!json_object_object_get_ex(obj, "winners", &array))
		return 0;
	if (!json_object_is_type(array, json_type_array))
		return -EBADMSG;
	apply->winners_recorded = true;
	for (size_t i = 0; i < json_object_array_length(array); i++) {
		struct cp_winners w = {};

		if (parse_winners_one(json_object_array_get_idx(array, i), &w) < 0 ||
		    cp_state_apply_find_winners(apply, w.name))
			return -EBADMSG;
		if (cp_state_apply_set_winners(apply, &w) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* "left_out" is optional: a state written before apply --cached-only left names out has none. */
static int parse_apply_arrays(json_object *obj, struct cp_state_apply *apply)
{
	json_object *steps;
	int r;

	if (!json_object_object_get_ex(obj, "steps", &steps) ||
	    !json_object_is_type(steps, json_type_array))
		return -EBADMSG;
	r = parse_strings(obj, "policy_files", false, apply, cp_state_apply_add_policy_file);
	if (r >= 0)
		r = parse_strings(obj, "left_out", true, apply, cp_state_apply_add_left_out);
	if (r >= 0)
		r = parse_winners(obj, apply);
	if (r < 0)
		return r;
	for (size_t i = 0; i < json_object_array_length(steps); i++) {
		struct cp_state_step step = {};

		if (parse_step(json_object_array_get_idx(steps, i), &step) < 0)
			return -EBADMSG;
		if (cp_state_apply_add_step(apply, &step) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int parse_apply(json_object *obj, struct cp_state_apply **ret)
{
	_cleanup_(cp_state_apply_freep) struct cp_state_apply *apply = cp_state_apply_new();
	int64_t pid;
	int r;

	if (!apply)
		return -ENOMEM;
	if (!json_object_is_type(obj, json_type_object) ||
	    cp_json_get_int(obj, "started_at", 0, INT64_MAX, &apply->started_at) < 0 ||
	    cp_json_get_int(obj, "finished_at", 0, INT64_MAX, &apply->finished_at) < 0 ||
	    cp_json_get_int(obj, "pid", 0, INT32_MAX, &pid) < 0 ||
	    cp_json_get_string(obj, "agent", apply->agent, sizeof(apply->agent), true) < 0 ||
	    cp_json_get_string(obj, "backend", apply->backend, sizeof(apply->backend), true) < 0)
		return -EBADMSG;
	apply->pid = (int32_t) pid;
	r = parse_apply_arrays(obj, apply);
	if (r < 0)
		return r;
	*ret = steal_pointer(&apply);
	return 0;
}

static int parse_created_one(json_object *obj, struct cp_created *created)
{
	json_object *value;
	int64_t priority;

	if (!json_object_is_type(obj, json_type_object) ||
	    cp_json_get_string(obj, "driver", created->driver, CP_NAME_MAX, true) < 0 ||
	    !created->driver[0] ||
	    cp_json_get_string(obj, "algorithm", created->name, CP_NAME_MAX, true) < 0 ||
	    cp_json_get_int(obj, "priority", 0, INT_MAX, &priority) < 0 ||
	    !json_object_object_get_ex(obj, "in_use", &value) ||
	    !json_object_is_type(value, json_type_boolean))
		return -EBADMSG;
	created->priority = (uint32_t) priority;
	created->in_use = json_object_get_boolean(value);
	return 0;
}

/* "created": absent in files written before cryptoprio created anything. */
static int parse_created(struct cp_state *state)
{
	json_object *array;

	if (!json_object_object_get_ex(state->doc, "created", &array))
		return 0;
	if (!json_object_is_type(array, json_type_array))
		return -EBADMSG;
	for (size_t i = 0; i < json_object_array_length(array); i++) {
		struct cp_created created = {};

		if (parse_created_one(json_object_array_get_idx(array, i), &created) < 0 ||
		    cp_state_find_created(state, created.driver))
			return -EBADMSG;
		if (cp_state_add_created(state, &created) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The optional members: "last_apply" and "checked_at". */
static int parse_apply_members(struct cp_state *state)
{
	json_object *value;

	if (json_object_object_get_ex(state->doc, "checked_at", &value) &&
	    cp_json_get_int(state->doc, "checked_at", 0, INT64_MAX, &state->checked_at) < 0)
		return -EBADMSG;
	if (json_object_object_get_ex(state->doc, "last_apply", &value))
		return parse_apply(value, &state->last_apply);
	return 0;
}

int cp_state_parse(const char *text, struct cp_state *state)
{
	json_object *originals;
	int r;

	cp_state_init(state);
	r = cp_json_parse_versioned(text, CP_STATE_VERSION, &state->doc);
	if (r < 0)
		return r;
	if (!json_object_object_get_ex(state->doc, "originals", &originals) ||
	    !json_object_is_type(originals, json_type_array))
		goto bad;
	r = parse_originals(originals, state);
	if (r >= 0)
		r = parse_apply_members(state);
	if (r >= 0)
		r = parse_created(state);
	if (r < 0) {
		cp_state_free(state);
		return r;
	}
	return 0;
bad:
	cp_state_free(state);
	return -EBADMSG;
}

static json_object *format_originals(const struct cp_state *state)
{
	json_object *array = json_object_new_array();

	for (size_t i = 0; array && i < state->n_originals; i++) {
		const struct cp_original *original = &state->originals[i];
		json_object *obj = json_object_new_object();

		json_object_object_add(obj, "driver", json_object_new_string(original->driver));
		json_object_object_add(obj, "module", json_object_new_string(original->module));
		json_object_object_add(obj, "priority", json_object_new_int64(original->priority));
		json_object_array_add(array, obj);
	}
	return array;
}

json_object *cp_state_created_json(const struct cp_state *state)
{
	json_object *array = json_object_new_array();

	for (size_t i = 0; array && i < state->n_created; i++) {
		const struct cp_created *c = &state->created[i];
		json_object *obj = json_object_new_object();

		json_object_object_add(obj, "driver", json_object_new_string(c->driver));
		json_object_object_add(obj, "algorithm", json_object_new_string(c->name));
		json_object_object_add(obj, "priority", json_object_new_int64(c->priority));
		json_object_object_add(obj, "in_use", json_object_new_boolean(c->in_use));
		json_object_array_add(array, obj);
	}
	return array;
}

static json_object *format_step(const struct cp_state_step *step)
{
	json_object *obj = json_object_new_object();

	json_object_object_add(obj, "driver", json_object_new_string(step->driver));
	json_object_object_add(obj, "algorithm", json_object_new_string(step->name));
	json_object_object_add(obj, "action",
			       json_object_new_string(cp_step_action_to_string(step->action)));
	json_object_object_add(obj, "old_priority", json_object_new_int64(step->old_priority));
	json_object_object_add(obj, "new_priority", json_object_new_int64(step->new_priority));
	json_object_object_add(obj, "why", json_object_new_string(step->why));
	json_object_object_add(obj, "result",
			       json_object_new_string(cp_step_result_to_string(step->result)));
	json_object_object_add(obj, "errno", json_object_new_int(-step->error));
	json_object_object_add(obj, "message", json_object_new_string(step->message));
	return obj;
}

static json_object *format_winners(const struct cp_state_apply *apply)
{
	json_object *array = json_object_new_array();

	for (size_t i = 0; i < apply->n_winners; i++) {
		const struct cp_winners *w = &apply->winners[i];
		json_object *obj = json_object_new_object();

		json_object_object_add(obj, "name", json_object_new_string(w->name));
		for (size_t c = 0; c < _CP_CALLER_MAX; c++)
			if (w->driver[c][0])
				json_object_object_add(obj, cp_caller_to_string((enum cp_caller) c),
						       json_object_new_string(w->driver[c]));
		json_object_array_add(array, obj);
	}
	return array;
}

static json_object *format_apply(const struct cp_state_apply *apply)
{
	json_object *obj = json_object_new_object(), *steps = json_object_new_array();

	json_object_object_add(obj, "started_at", json_object_new_int64(apply->started_at));
	json_object_object_add(obj, "finished_at", json_object_new_int64(apply->finished_at));
	json_object_object_add(obj, "pid", json_object_new_int64(apply->pid));
	json_object_object_add(obj, "agent", json_object_new_string(apply->agent));
	json_object_object_add(obj, "backend", json_object_new_string(apply->backend));
	json_object_object_add(obj, "policy_files",
			       cp_json_strv(apply->policy_files, apply->n_policy_files));
	for (size_t i = 0; i < apply->n_steps; i++)
		json_object_array_add(steps, format_step(&apply->steps[i]));
	json_object_object_add(obj, "steps", steps);
	json_object_object_add(obj, "left_out", cp_json_strv(apply->left_out, apply->n_left_out));
	if (apply->winners_recorded)
		json_object_object_add(obj, "winners", format_winners(apply));
	return obj;
}

int cp_state_format(const struct cp_state *state, char **ret_text)
{
	json_object *doc =
	    state->doc ? json_object_get(state->doc) : cp_json_new_versioned(CP_STATE_VERSION);

	if (!doc)
		return -ENOMEM;
	/* a document another writer started (the daemon's record) has none yet */
	json_object_object_add(doc, "version", json_object_new_int(CP_STATE_VERSION));
	json_object_object_add(doc, "originals", format_originals(state));
	if (state->last_apply)
		json_object_object_add(doc, "last_apply", format_apply(state->last_apply));
	else
		json_object_object_del(doc, "last_apply");
	if (state->checked_at)
		json_object_object_add(doc, "checked_at", json_object_new_int64(state->checked_at));
	else
		json_object_object_del(doc, "checked_at");
	if (state->n_created)
		json_object_object_add(doc, "created", cp_state_created_json(state));
	else
		json_object_object_del(doc, "created");
	return cp_json_format(doc, ret_text);
}

int cp_state_load(const char *path, struct cp_state *state)
{
	_cleanup_free_ char *text = NULL;
	int r;

	cp_state_init(state);
	r = cp_read_file(path, CP_STATE_MAX_SIZE, &text, NULL);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	return cp_state_parse(text, state);
}

int cp_state_load_salvage(const char *path, struct cp_state *state)
{
	_cleanup_free_ char *aside = NULL;
	int r;

	r = cp_state_load(path, state);
	if (r != -EBADMSG)
		return r;
	cp_state_free(state);
	cp_state_init(state);
	if (asprintf(&aside, "%s.corrupt", path) < 0)
		return -ENOMEM;
	return rename(path, aside) < 0 ? negative_errno() : 1;
}

int cp_state_save(const char *path, const struct cp_state *state)
{
	_cleanup_free_ char *text = NULL;
	int r = cp_state_format(state, &text);

	return r < 0 ? r : cp_write_file_atomic(path, text, strlen(text), 0644);
}

const struct cp_original *cp_state_find(const struct cp_state *state, const char *driver)
{
	for (size_t i = 0; i < state->n_originals; i++)
		if (strcmp(state->originals[i].driver, driver) == 0)
			return &state->originals[i];
	return NULL;
}

int cp_state_record(struct cp_state *state, const struct cp_alg *alg)
{
	return cp_state_record_priority(state, alg, alg->priority);
}

int cp_state_record_priority(struct cp_state *state, const struct cp_alg *alg, uint32_t priority)
{
	struct cp_original *originals;

	if (cp_state_find(state, alg->driver))
		return 0;
	originals = reallocarray(state->originals, state->n_originals + 1, sizeof(*originals));
	if (!originals)
		return -ENOMEM;
	state->originals = originals;
	originals[state->n_originals] = (struct cp_original){.priority = priority};
	cp_strscpy(originals[state->n_originals].driver, CP_NAME_MAX, alg->driver);
	cp_strscpy(originals[state->n_originals].module, CP_NAME_MAX, alg->module);
	state->n_originals++;
	return 1;
}

int cp_state_forget(struct cp_state *state, const char *driver)
{
	for (size_t i = 0; i < state->n_originals; i++) {
		if (strcmp(state->originals[i].driver, driver) != 0)
			continue;
		memmove(&state->originals[i], &state->originals[i + 1],
			(state->n_originals - i - 1) * sizeof(*state->originals));
		state->n_originals--;
		return 1;
	}
	return 0;
}

const struct cp_created *cp_state_find_created(const struct cp_state *state, const char *driver)
{
	for (size_t i = 0; i < state->n_created; i++)
		if (strcmp(state->created[i].driver, driver) == 0)
			return &state->created[i];
	return NULL;
}

int cp_state_add_created(struct cp_state *state, const struct cp_created *created)
{
	struct cp_created *all =
	    (struct cp_created *) cp_state_find_created(state, created->driver);

	if (all) {
		*all = *created;
		return 0;
	}
	all = reallocarray(state->created, state->n_created + 1, sizeof(*all));
	if (!all)
		return -ENOMEM;
	state->created = all;
	all[state->n_created++] = *created;
	return 1;
}

int cp_state_forget_created(struct cp_state *state, const char *driver)
{
	for (size_t i = 0; i < state->n_created; i++) {
		if (strcmp(state->created[i].driver, driver) != 0)
			continue;
		memmove(&state->created[i], &state->created[i + 1],
			(state->n_created - i - 1) * sizeof(*state->created));
		state->n_created--;
		return 1;
	}
	return 0;
}

struct cp_state_apply *cp_state_apply_new(void)
{
	return calloc(1, sizeof(struct cp_state_apply));
}

void cp_state_apply_free(struct cp_state_apply *apply)
{
	cp_strv_free(apply->policy_files, apply->n_policy_files);
	cp_strv_free(apply->left_out, apply->n_left_out);
	free(apply->steps);
	free(apply->winners);
	free(apply);
}

int cp_state_apply_add_step(struct cp_state_apply *apply, const struct cp_state_step *step)
{
	struct cp_state_step *steps =
	    reallocarray(apply->steps, apply->n_steps + 1, sizeof(*steps));

	if (!steps)
		return -ENOMEM;
	apply->steps = steps;
	steps[apply->n_steps++] = *step;
	return 0;
}

int cp_state_apply_add_policy_file(struct cp_state_apply *apply, const char *file)
{
	return cp_strv_push(&apply->policy_files, &apply->n_policy_files, file);
}

int cp_state_apply_add_left_out(struct cp_state_apply *apply, const char *name)
{
	return cp_strv_push(&apply->left_out, &apply->n_left_out, name);
}

const struct cp_winners *cp_state_apply_find_winners(const struct cp_state_apply *apply,
						     const char *name)
{
	for (size_t i = 0; i < apply->n_winners; i++)
		if (streq(apply->winners[i].name, name))
			return &apply->winners[i];
	return NULL;
}

int cp_state_apply_set_winners(struct cp_state_apply *apply, const struct cp_winners *winners)
{
	struct cp_winners *all =
	    (struct cp_winners *) cp_state_apply_find_winners(apply, winners->name);

	if (!all) {
		all = reallocarray(apply->winners, apply->n_winners + 1, sizeof(*all));
		if (!all)
			return -ENOMEM;
		apply->winners = all;
		all += apply->n_winners++;
	}
	*all = *winners;
	return 0;
}

int cp_state_apply_forget_winners(struct cp_state_apply *apply, const char *name)
{
	const struct cp_winners *w = cp_state_apply_find_winners(apply, name);
	size_t i;

	if (!w)
		return 0;
	i = (size_t) (w - apply->winners);
	memmove(&apply->winners[i], &apply->winners[i + 1],
		(apply->n_winners - i - 1) * sizeof(*w));
	apply->n_winners--;
	return 1;
}

void cp_state_set_last_apply(struct cp_state *state, struct cp_state_apply *apply)
{
	if (state->last_apply && state->last_apply != apply)
		cp_state_apply_free(state->last_apply);
	state->last_apply = apply;
}

static const char *const step_results[] = {
    [CP_STEP_PENDING] = "pending",
    [CP_STEP_DONE] = "done",
    [CP_STEP_FAILED] = "failed",
    [CP_STEP_GONE] = "gone",
};

const char *cp_step_result_to_string(enum cp_step_result result)
{
	return (size_t) result < ARRAY_SIZE(step_results) ? step_results[result] : "unknown";
}

int cp_step_result_from_string(const char *s, enum cp_step_result *ret)
{
	for (size_t i = 0; i < ARRAY_SIZE(step_results); i++)
		if (strcmp(s, step_results[i]) == 0) {
			*ret = (enum cp_step_result) i;
			return 0;
		}
	return -EINVAL;
}

/* Whether steps[i] is done and its driver's last step (a remove leaves nothing to compare). */
static bool last_done_step(const struct cp_state_apply *a, size_t i)
{
	if (a->steps[i].result != CP_STEP_DONE || a->steps[i].action == CP_STEP_REMOVE)
		return false;
	for (size_t k = i + 1; k < a->n_steps; k++)
		if (strcmp(a->steps[k].driver, a->steps[i].driver) == 0)
			return false;
	return true;
}

size_t cp_state_drift_count(const struct cp_state *state, const struct cp_inventory *inv)
{
	const struct cp_state_apply *a = state->last_apply;
	size_t n = 0;
	uint32_t now;

	if (cp_state_drift_by_winners(state))
		return cp_winners_drift(a->winners, a->n_winners, inv, NULL);
	for (size_t i = 0; a && i < a->n_steps; i++)
		n += cp_state_step_drifted(state, i, inv, &now);
	return n;
}

bool cp_state_step_drifted(const struct cp_state *state, size_t i, const struct cp_inventory *inv,
			   uint32_t *ret_priority)
{
	const struct cp_state_apply *a = state->last_apply;
	const char *driver = a->steps[i].driver;
	const struct cp_alg *alg = cp_inventory_find_driver(inv, driver);

	if (!last_done_step(a, i) || !alg || alg->priority == a->steps[i].new_priority ||
	    (!cp_state_find(state, driver) && !cp_state_find_created(state, driver)))
		return false;
	*ret_priority = alg->priority;
	return true;
}
