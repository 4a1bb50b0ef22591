/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cryptoprioctl status: what was applied last, what cryptoprio created,
 * the originals it keeps, and the daemon's record, from the state file.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cryptoprioctl.h"
#include "ctl-daemon.h"
#include "ctl-table.h"
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

static json_object *status_json(const struct cp_state *state)
{
	json_object *doc = json_object_new_object(), *originals = json_object_new_array();
	_cleanup_free_ char *text = NULL;
	json_object *last = NULL;

	/* The state file's own serialisation of the plan: one shape in both places. */
	if (state->last_apply && cp_state_format(state, &text) >= 0) {
		json_object *full = json_tokener_parse(text);

		if (full && json_object_object_get_ex(full, "last_apply", &last))
			last = json_object_get(last);
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
	if (ctl->json)
		ctl_json_print(status_json(&state));
	else
		print_status(ctl, &state);
	return EXIT_SUCCESS;
}
