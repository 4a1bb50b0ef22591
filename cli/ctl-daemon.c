/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The daemon's part of `cryptoprioctl status`: what cryptoprio-daemon
 * recorded of itself in the state file, and its unit as systemd sees it.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>

#include "ctl-daemon.h"
#include "cryptoprioctl.h"
#include "daemon-state.h"
#include "macro.h"
#include "paths.h"
#include "policy.h"
#include "state.h"

#define UNIT	  "cryptoprio.service"
#define UNIT_PATH "/org/freedesktop/systemd1/unit/cryptoprio_2eservice"

struct unit_info {
	bool known; /* systemd answered */
	char active_state[32], sub_state[32];
	uint32_t main_pid;
	char status_text[512];
};

static void get_string(sd_bus *bus, const char *iface, const char *prop, char *buf, size_t len)
{
	_cleanup_free_ char *s = NULL;

	if (sd_bus_get_property_string(bus, "org.freedesktop.systemd1", UNIT_PATH, iface, prop,
				       NULL, &s) >= 0)
		snprintf(buf, len, "%s", s);
}

static void query_unit(struct unit_info *u)
{
	sd_bus *bus = NULL;

	memset(u, 0, sizeof(*u));
	if (sd_booted() <= 0 || sd_bus_open_system(&bus) < 0)
		return;
	get_string(bus, "org.freedesktop.systemd1.Unit", "ActiveState", u->active_state,
		   sizeof(u->active_state));
	get_string(bus, "org.freedesktop.systemd1.Unit", "SubState", u->sub_state,
		   sizeof(u->sub_state));
	get_string(bus, "org.freedesktop.systemd1.Service", "StatusText", u->status_text,
		   sizeof(u->status_text));
	(void) sd_bus_get_property_trivial(bus, "org.freedesktop.systemd1", UNIT_PATH,
					   "org.freedesktop.systemd1.Service", "MainPID", NULL, 'u',
					   &u->main_pid);
	u->known = u->active_state[0] != '\0';
	sd_bus_flush_close_unref(bus);
}

static bool pid_alive(int32_t pid)
{
	return pid > 0 && (kill((pid_t) pid, 0) == 0 || errno == EPERM);
}

/* Running: the unit says so, or (without systemd) the recorded pid still lives. */
static bool daemon_running(const struct cp_daemon_record *rec, bool have_rec,
			   const struct unit_info *u)
{
	if (u->known)
		return u->main_pid > 0 && (strcmp(u->active_state, "active") == 0 ||
					   strcmp(u->active_state, "reloading") == 0);
	return have_rec && rec->stopped_at == 0 && pid_alive(rec->pid);
}

static json_object *unit_json(const struct unit_info *u)
{
	json_object *o;

	if (!u->known)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "name", json_object_new_string(UNIT));
	json_object_object_add(o, "active_state", json_object_new_string(u->active_state));
	json_object_object_add(o, "sub_state", json_object_new_string(u->sub_state));
	json_object_object_add(o, "main_pid", json_object_new_int64(u->main_pid));
	json_object_object_add(o, "status_text", json_object_new_string(u->status_text));
	return o;
}

/* A time or text the record keeps as 0 or "" when there is none: null, as elsewhere. */
static void nulls_for_none(json_object *o)
{
	static const char *const keys[] = {"started_at",   "ready_at", "stopped_at", "last_run_at",
					   "last_trigger", "backend",  "last_error"};

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		json_object *v = json_object_object_get(o, keys[i]);

		if (v && (json_object_is_type(v, json_type_string) ? !json_object_get_string_len(v)
								   : !json_object_get_int64(v)))
			json_object_object_add(o, keys[i], NULL);
	}
}

json_object *ctl_daemon_json(const struct cp_state *state)
{
	const struct cp_state_apply *a = state->last_apply;
	struct cp_daemon_record rec;
	struct unit_info u;
	bool have_rec = cp_daemon_record_from_state(state, &rec) >= 0;
	json_object *o = have_rec ? cp_daemon_record_to_json(&rec) : json_object_new_object();

	query_unit(&u);
	json_object_object_add(o, "running",
			       json_object_new_boolean(daemon_running(&rec, have_rec, &u)));
	json_object_object_add(
	    o, "applied_last",
	    json_object_new_boolean(a && strcmp(a->agent, "cryptoprio-daemon") == 0));
	json_object_object_add(o, "unit", unit_json(&u));
	if (!have_rec)
		json_object_object_add(o, "pid", NULL);
	nulls_for_none(o);
	cp_daemon_record_free(&rec);
	return o;
}

static void print_list(const char *label, char *const *v, size_t n, const char *none)
{
	printf("  %s:", label);
	for (size_t i = 0; i < n; i++)
		printf(" %s", v[i]);
	printf("%s\n", n ? "" : none);
}

void ctl_daemon_print(const struct cp_state *state)
{
	struct cp_daemon_record rec;
	struct unit_info u;
	bool have_rec = cp_daemon_record_from_state(state, &rec) >= 0;
	bool running;
	char t[64];

	query_unit(&u);
	running = daemon_running(&rec, have_rec, &u);
	printf("Daemon: %s", running ? "running" : "not running");
	if (running && u.known)
		printf(" (pid %" PRIu32 ", " UNIT " %s)\n", u.main_pid, u.active_state);
	else if (running)
		printf(" (pid %" PRId32 ", not under systemd)\n", rec.pid);
	else if (u.known)
		printf(" (" UNIT " %s)\n", u.active_state);
	else
		printf("\n");
	if (u.known && u.status_text[0])
		printf("  Status: %s\n", u.status_text);
	if (!have_rec) {
		printf("  No record of cryptoprio-daemon in the state file.\n");
		return;
	}
	printf("  Started: %s", ctl_format_time(t, sizeof(t), rec.started_at));
	if (rec.ready_at)
		printf(", ready after %" PRIu64 " ms", rec.ready_usec / 1000);
	if (rec.stopped_at)
		printf(", stopped %s", ctl_format_time(t, sizeof(t), rec.stopped_at));
	printf("\n");
	print_list("Policy in force", rec.policy_files, rec.n_policy_files, " built-in default");
	printf("  Last run: %s (%s): %" PRIu64 " changed, %" PRIu64 " failed; calibration %s, "
	       "%" PRIu64 " point%s from the cache, %" PRIu64 " measured\n",
	       ctl_format_time(t, sizeof(t), rec.last_run_at),
	       rec.last_trigger[0] ? rec.last_trigger : "-", rec.last_changed, rec.last_failed,
	       rec.backend[0] ? rec.backend : "-", rec.last_from_cache,
	       ctl_plural(rec.last_from_cache), rec.last_measured);
	printf("  Runs: %" PRIu64 ", module events: %" PRIu64 ", reloads: %" PRIu64 " (%" PRIu64
	       " refused)\n",
	       rec.runs, rec.module_events, rec.reloads, rec.reload_failures);
	if (rec.n_waiting)
		print_list("Waiting for their self-test", rec.waiting, rec.n_waiting, "");
	if (rec.n_pending)
		print_list("Still to measure or verify (after READY)", rec.pending, rec.n_pending,
			   "");
	if (rec.cache_unsaved)
		printf(
		    "  Cache: measurements kept in memory until /var/lib/cryptoprio is writable\n");
	if (rec.last_error[0])
		printf("  Last error: %s\n", rec.last_error);
	cp_daemon_record_free(&rec);
}

/* @pid is cryptoprio-daemon (its comm, cut to 15 characters), not a recycled pid. */
static bool is_daemon(int32_t pid)
{
	char path[64], comm[32] = "";
	_cleanup_fclose_ FILE *f = NULL;

	if (pid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%" PRId32 "/comm", pid);
	f = fopen(path, "re");
	if (!f || !fgets(comm, sizeof(comm), f))
		return false;
	return strcmp(comm, "cryptoprio-daem\n") == 0;
}

static bool same_files(const struct cp_daemon_record *rec, const struct cp_policy *policy)
{
	if (rec->n_policy_files != policy->n_files)
		return false;
	for (size_t i = 0; i < policy->n_files; i++)
		if (strcmp(rec->policy_files[i], policy->files[i]) != 0)
			return false;
	return true;
}

void ctl_daemon_keep_record(const struct cp_apply_result *result, struct cp_state *state,
			    void *userdata)
{
	json_object **record = userdata, *o;

	if (state->doc && json_object_object_get_ex(state->doc, "daemon", &o))
		*record = json_object_get(o);
}

void ctl_daemon_after_apply(const struct cp_policy *applied, json_object *record)
{
	_cleanup_(cp_daemon_record_free) struct cp_daemon_record rec = {};

	if (!applied || !record || cp_daemon_record_from_json(record, &rec) < 0)
		return;
	if (rec.stopped_at != 0 || !is_daemon(rec.pid))
		; /* no daemon: nothing to tell */
	else if (!same_files(&rec, applied))
		fprintf(stderr,
			"cryptoprioctl: apply: warning: cryptoprio-daemon (pid %" PRId32
			") keeps its own policy (%s%s) and applies it again at the next module "
			"event\n",
			rec.pid, rec.n_policy_files ? rec.policy_files[0] : "built-in default",
			rec.n_policy_files > 1 ? " and its drop-ins" : "");
	else if (kill((pid_t) rec.pid, SIGHUP) < 0)
		(void) ctl_errno(-errno, NULL,
				 "apply: warning: cannot tell cryptoprio-daemon (pid %" PRId32
				 ") to read the policy again",
				 rec.pid);
	else
		fprintf(stderr,
			"cryptoprioctl: apply: told cryptoprio-daemon (pid %" PRId32
			") to read the policy again\n",
			rec.pid);
	cp_daemon_record_free(&rec);
}
