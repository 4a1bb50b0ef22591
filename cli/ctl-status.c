/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cryptoprioctl status: what was applied last, what cryptoprio created,
 * the originals it keeps, and the daemon's record, from the state file.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cpmod.h"
#include "cryptoprioctl.h"
#include "ctl-daemon.h"
#include "ctl-table.h"
#include "daemon-state.h"
#include "inventory-load.h"
#include "macro.h"
#include "paths.h"
#include "state.h"

static const struct ctl_column step_columns[] = {
    {"ALGORITHM"}, {"DRIVER"}, {"OLD", CTL_COL_RIGHT}, {""}, {"NEW"}, {"ACTION"},
    {"RESULT"},	   {"WHY"},
};

/* The steps of the last plan applied, a row each. */
static void print_steps(const struct ctl *ctl, const struct cp_state_apply *a)
{
	struct ctl_table *t = ctl_table_new(ctl, step_columns, ARRAY_SIZE(step_columns), "");
	int r = t ? 0 : -ENOMEM;

	for (size_t i = 0; r >= 0 && i < a->n_steps; i++) {
		const struct cp_state_step *s = &a->steps[i];
		char old[16], new[16];
		const char *cells[] = {s->name,
				       s->driver,
				       old,
				       "->",
				       new,
				       cp_step_action_to_string(s->action),
				       cp_step_result_to_string(s->result),
				       s->why};

		snprintf(old, sizeof(old), "%" PRIu32, s->old_priority);
		snprintf(new, sizeof(new), "%" PRIu32, s->new_priority);
		r = ctl_table_row(t, cells);
	}
	if (r >= 0)
		(void) ctl_table_print(t);
	else
		ctl_table_free(t);
}

/* Whether the kernel is as the last plan applied left it (the exit code of status). */
enum verdict {
	AS_PLANNED,
	FAILED, /* a step failed, the apply was interrupted, or the daemon's last run failed */
	/*
	 * A lookup gives another implementation than the last plan applied
	 * left; by a state file without the winners, a priority the plan set
	 * is not the kernel's now.
	 */
	DRIFTED,
};

static const char *const verdict_names[] = {"as-planned", "failed", "drifted"};

/* A step's driver whose priority changed since: planned, and now. */
struct drift {
	const struct cp_state_step *step;
	uint32_t priority;
};

/* What status found: the priorities changed, the winners moved (by_winners). */
struct findings {
	struct drift *changed;
	size_t n_changed;
	struct cp_winner_drift *moved;
	size_t n_moved;
	bool by_winners;
};

static void findings_free(struct findings *f)
{
	free(f->changed);
	free(f->moved);
}

/*
 * The drivers the last plan set that are registered at another priority
 * now: how many. Those reset gave back (no original, not created any
 * more) are cryptoprio's no longer.
 */
static size_t find_drift(const struct cp_state *state, const struct cp_inventory *inv,
			 struct drift *drift)
{
	const struct cp_state_apply *a = state->last_apply;
	size_t n = 0;

	for (size_t i = 0; a && i < a->n_steps; i++) {
		uint32_t now;

		if (cp_state_step_drifted(state, i, inv, &now))
			drift[n++] = (struct drift){&a->steps[i], now};
	}
	return n;
}

/* The priorities changed, and the winners moved where the last apply recorded them. */
static int find(const struct cp_state *state, const struct cp_inventory *inv, struct findings *f)
{
	const struct cp_state_apply *a = state->last_apply;

	f->by_winners = cp_state_drift_by_winners(state);
	f->changed = calloc(a ? a->n_steps + 1 : 1, sizeof(*f->changed));
	f->moved = calloc(f->by_winners ? a->n_winners * _CP_CALLER_MAX + 1 : 1, sizeof(*f->moved));
	if (!f->changed || !f->moved)
		return -ENOMEM;
	f->n_changed = find_drift(state, inv, f->changed);
	if (f->by_winners)
		f->n_moved = cp_winners_drift(a->winners, a->n_winners, inv, f->moved);
	return 0;
}

static enum verdict verdict_of(const struct cp_state *state, const struct findings *f)
{
	if (cp_state_last_run_failed(state))
		return FAILED;
	return (f->by_winners ? f->n_moved : f->n_changed) ? DRIFTED : AS_PLANNED;
}

static void print_verdict(enum verdict v, const struct findings *f)
{
	if (v == FAILED)
		printf("Verdict: failed (a step failed, the run was interrupted, or the daemon's "
		       "last run stopped on an error)\n");
	else if (v == AS_PLANNED && f->by_winners)
		printf("Verdict: as planned (new users get what the last plan applied chose)\n");
	else if (v == AS_PLANNED)
		printf("Verdict: as planned (the kernel is as the last plan applied left it)\n");
	if (f->n_moved && v == DRIFTED)
		printf("Verdict: drifted, new users get another implementation than the last plan "
		       "applied chose:\n");
	else if (f->n_moved)
		printf("New users get another implementation than the last plan applied chose:\n");
	for (size_t i = 0; i < f->n_moved; i++)
		printf("  %s, caller %s: %s planned, %s now\n", f->moved[i].name,
		       cp_caller_to_string(f->moved[i].caller), f->moved[i].planned,
		       f->moved[i].now);
	if (f->n_changed)
		printf("%s changed since the last plan applied%s:\n",
		       v == DRIFTED && !f->by_winners ? "Verdict: drifted, priorities"
						      : "Priorities",
		       f->by_winners && !f->n_moved ? " (no winner with them: not drift)" : "");
	for (size_t i = 0; i < f->n_changed; i++)
		printf("  %s (%s): %" PRIu32 " planned, %" PRIu32 " now\n",
		       f->changed[i].step->driver, f->changed[i].step->name,
		       f->changed[i].step->new_priority, f->changed[i].priority);
}

static json_object *changed_json(const struct findings *f)
{
	json_object *array = json_object_new_array();

	for (size_t i = 0; i < f->n_changed; i++) {
		const struct drift *d = &f->changed[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "driver", json_object_new_string(d->step->driver));
		json_object_object_add(o, "algorithm", json_object_new_string(d->step->name));
		json_object_object_add(o, "planned_priority",
				       json_object_new_int64(d->step->new_priority));
		json_object_object_add(o, "priority", json_object_new_int64(d->priority));
		json_object_array_add(array, o);
	}
	return array;
}

static json_object *moved_json(const struct findings *f)
{
	json_object *array = json_object_new_array();

	for (size_t i = 0; i < f->n_moved; i++) {
		const struct cp_winner_drift *d = &f->moved[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "algorithm", json_object_new_string(d->name));
		json_object_object_add(o, "caller",
				       json_object_new_string(cp_caller_to_string(d->caller)));
		json_object_object_add(o, "planned_driver", json_object_new_string(d->planned));
		json_object_object_add(o, "driver", json_object_new_string(d->now));
		json_object_array_add(array, o);
	}
	return array;
}

static void print_last_apply(const struct ctl *ctl, const struct cp_state_apply *a)
{
	char t[64];
	size_t failed = 0, pending = 0;

	printf("Last plan applied: %s by %s (pid %" PRId32 "), calibration backend %s\n",
	       ctl_format_time(t, sizeof(t), a->started_at), a->agent, a->pid, a->backend);
	printf("Policy:");
	for (size_t i = 0; i < a->n_policy_files; i++)
		printf(" %s", a->policy_files[i]);
	printf("%s\n", a->n_policy_files ? "" : " built-in default");
	if (a->n_left_out) {
		printf("Left in the kernel's order, the calibration cache lacking their figures:");
		for (size_t i = 0; i < a->n_left_out; i++)
			printf("%s %s", i ? "," : "", a->left_out[i]);
		printf("\n");
	}
	print_steps(ctl, a);
	for (size_t i = 0; i < a->n_steps; i++) {
		failed += a->steps[i].result == CP_STEP_FAILED;
		pending += a->steps[i].result == CP_STEP_PENDING;
	}
	if (!a->finished_at)
		printf("Interrupted: %zu step%s not recorded as done (the first ones may be in "
		       "the kernel).\n",
		       pending, ctl_plural(pending));
	else
		printf("Finished %s: %zu step%s, %zu failed.\n",
		       ctl_format_time(t, sizeof(t), a->finished_at), a->n_steps,
		       ctl_plural(a->n_steps), failed);
}

static const struct ctl_column created_columns[] = {
    {"DRIVER"}, {"ALGORITHM"}, {"PRIORITY", CTL_COL_RIGHT}, {"STATE"}};

static void print_created(const struct ctl *ctl, const struct cp_state *state)
{
	struct ctl_table *t;
	int r = 0;

	printf("Instances created by cryptoprio: %zu%s\n", state->n_created,
	       state->n_created ? " (cryptoprioctl reset removes them)" : "");
	if (state->n_created == 0)
		return;
	t = ctl_table_new(ctl, created_columns, ARRAY_SIZE(created_columns), "  ");
	for (size_t i = 0; t && r >= 0 && i < state->n_created; i++) {
		const struct cp_created *c = &state->created[i];
		char priority[16];
		const char *cells[] = {c->driver, c->name, priority,
				       c->in_use ? "in use: lowered, removed once free"
						 : "created"};

		snprintf(priority, sizeof(priority), "%" PRIu32, c->priority);
		r = ctl_table_row(t, cells);
	}
	if (t && r >= 0)
		(void) ctl_table_print(t);
	else
		ctl_table_free(t);
}

/*
 * The runs the module keeps for requests an engine never completed: each
 * pins its memory, the engine's module and cryptoprio's until the engine
 * completes them, which may be never (cryptoprio(4)).
 */
static void print_kept_runs(const struct cp_mod_kept_run *runs, int n)
{
	if (n < 0) {
		printf("Runs kept by the module: unknown (%s)\n", strerror(-n));
		return;
	}
	printf("Runs kept by the module for requests an engine never completed: %d\n", n);
	for (int i = 0; i < n; i++)
		printf("  %s: %" PRIu32 " request%s out, %" PRIu64
		       " KiB pinned with the engine's module until it completes them\n",
		       runs[i].driver, runs[i].outstanding, ctl_plural(runs[i].outstanding),
		       runs[i].bytes / 1024);
}

static json_object *kept_runs_json(const struct cp_mod_kept_run *runs, int n)
{
	json_object *arr;

	if (n < 0)
		return NULL; /* unknown */
	arr = json_object_new_array();
	for (int i = 0; i < n; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "driver", json_object_new_string(runs[i].driver));
		json_object_object_add(o, "outstanding",
				       json_object_new_int64(runs[i].outstanding));
		json_object_object_add(o, "bytes", json_object_new_uint64(runs[i].bytes));
		json_object_array_add(arr, o);
	}
	return arr;
}

static void print_status(const struct ctl *ctl, const struct cp_state *state)
{
	char t[64];

	printf("State file: %s\n", CP_STATE_PATH);
	if (state->last_apply)
		print_last_apply(ctl, state->last_apply);
	else
		printf("Last plan applied: none\n");
	printf("Last checked: %s\n", ctl_format_time(t, sizeof(t), state->checked_at));
	printf("Original priorities recorded: %zu (cryptoprioctl reset restores them)\n",
	       state->n_originals);
	print_created(ctl, state);
	ctl_daemon_print(state); /* cli/ctl-daemon.c */
}

/*
 * The state file's record of a plan in the vocabulary of apply --json:
 * "error" the errno's text or null (not "errno": 0), "message" null when
 * empty, "finished_at" null while interrupted.
 */
static void last_apply_vocabulary(json_object *last)
{
	json_object *steps = json_object_object_get(last, "steps"), *v;

	if (json_object_get_int64(json_object_object_get(last, "finished_at")) == 0)
		json_object_object_add(last, "finished_at", NULL);
	for (size_t i = 0; i < json_object_array_length(steps); i++) {
		json_object *step = json_object_array_get_idx(steps, i);
		int e = json_object_get_int(json_object_object_get(step, "errno"));

		json_object_object_del(step, "errno");
		json_object_object_add(step, "error",
				       e ? json_object_new_string(strerror(e)) : NULL);
		v = json_object_object_get(step, "message");
		if (!json_object_get_string_len(v))
			json_object_object_add(step, "message", NULL);
	}
}

static json_object *status_json(const struct cp_state *state)
{
	json_object *doc = json_object_new_object(), *originals = json_object_new_array();
	_cleanup_free_ char *text = NULL;
	json_object *last = NULL;

	/* The state file's own serialisation of the plan: one shape in both places. */
	if (state->last_apply && cp_state_format(state, &text) >= 0) {
		json_object *full = json_tokener_parse(text);

		if (full && json_object_object_get_ex(full, "last_apply", &last)) {
			last = json_object_get(last);
			last_apply_vocabulary(last);
		}
		json_object_put(full);
	}
	for (size_t i = 0; i < state->n_originals; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "driver",
				       json_object_new_string(state->originals[i].driver));
		json_object_object_add(o, "module",
				       json_object_new_string(state->originals[i].module));
		json_object_object_add(o, "priority",
				       json_object_new_int64(state->originals[i].priority));
		json_object_array_add(originals, o);
	}
	json_object_object_add(doc, "state_file", json_object_new_string(CP_STATE_PATH));
	json_object_object_add(doc, "last_apply", last);
	json_object_object_add(doc, "checked_at",
			       state->checked_at ? json_object_new_int64(state->checked_at) : NULL);
	json_object_object_add(doc, "originals", originals);
	json_object_object_add(doc, "created", cp_state_created_json(state));
	json_object_object_add(doc, "daemon", ctl_daemon_json(state));
	return doc;
}

/* The document of status --json, the verdict and the drift first. */
static void print_json(const struct cp_state *state, enum verdict v, const struct findings *f,
		       json_object *kept_runs)
{
	json_object *doc = json_object_new_object(), *rest = status_json(state);

	json_object_object_add(doc, "verdict", json_object_new_string(verdict_names[v]));
	json_object_object_add(doc, "drift", moved_json(f));
	json_object_object_add(doc, "priorities_changed", changed_json(f));
	json_object_object_foreach(rest, key, value)
	    json_object_object_add(doc, key, json_object_get(value));
	json_object_put(rest);
	json_object_object_add(doc, "kept_runs", kept_runs);
	ctl_json_print(doc);
}

static int report(const struct ctl *ctl, const struct cp_state *state)
{
	_cleanup_(cp_inventory_free) struct cp_inventory inv = {0};
	_cleanup_(findings_free) struct findings f = {};
	struct cp_mod_kept_run kept[CP_MOD_KEPT_RUNS_MAX];
	enum verdict v;
	int r, n_kept;

	r = cp_inventory_load(&inv);
	if (r < 0)
		return ctl_errno(r, NULL,
				 "status: cannot read the kernel's crypto implementations");
	if (find(state, &inv, &f) < 0)
		return ctl_errno(-ENOMEM, NULL, "status");
	v = verdict_of(state, &f);
	n_kept = cp_mod_kept_runs(kept, ARRAY_SIZE(kept));
	if (ctl->json) {
		print_json(state, v, &f, kept_runs_json(kept, n_kept));
	} else {
		print_status(ctl, state);
		print_kept_runs(kept, n_kept);
		print_verdict(v, &f);
	}
	return v == FAILED ? EXIT_FAILURE : v == DRIFTED ? EXIT_CHANGES : EXIT_SUCCESS;
}

int verb_status(struct ctl *ctl, int argc, char **argv)
{
	static const struct option options[] = {
	    {"json", no_argument, NULL, 'j'},
	    {},
	};
	_cleanup_(cp_state_free) struct cp_state state = {};
	int c, r;

	while ((c = getopt_long(argc, argv, ":j", options, NULL)) >= 0) {
		if (c != 'j')
			return ctl_option_error("status", c);
		ctl->json = true;
	}
	if (optind < argc)
		return ctl_usage_error("status: unexpected argument '%s'", argv[optind]);
	r = cp_state_load(CP_STATE_PATH, &state);
	if (r == -EBADMSG)
		return ctl_error("status: %s is not a valid state file; the next apply, set or "
				 "reset moves it aside to %s.corrupt",
				 CP_STATE_PATH, CP_STATE_PATH);
	if (r < 0)
		return ctl_errno(r, NULL, "status: cannot read %s", CP_STATE_PATH);
	return report(ctl, &state);
}
