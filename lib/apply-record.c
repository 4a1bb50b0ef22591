/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A run's record in the state file, built in memory: the instances it
 * creates, those gone since, the plan pending (apply-record.h). The run's
 * files (apply-files.c) write it.
 */
#include <stdio.h>

#include "apply-record.h"
#include "macro.h"

int cp_apply_note_creates(struct cp_state *state, const struct cp_apply_result *result)
{
	for (size_t i = 0; i < result->n_steps; i++) {
		const struct cp_apply_step_result *s = &result->steps[i];
		struct cp_created c = {.priority = s->new_priority};

		if (s->action != CP_STEP_CREATE)
			continue;
		cp_strscpy(c.driver, sizeof(c.driver), s->driver);
		cp_strscpy(c.name, sizeof(c.name), s->name);
		if (cp_state_add_created(state, &c) < 0)
			return -ENOMEM;
	}
	return 0;
}

size_t cp_apply_forget_unregistered(struct cp_state *state, const struct cp_inventory *inv)
{
	size_t n = 0;

	for (size_t i = 0; i < state->n_created;) {
		if (cp_inventory_find_driver(inv, state->created[i].driver)) {
			i++;
			continue;
		}
		(void) cp_state_forget_created(state, state->created[i].driver);
		n++;
	}
	return n;
}

int cp_apply_record_winners(struct cp_state_apply *rec, const struct cp_inventory *inv,
			    char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct cp_winners w;

		if (!cp_winners_of(inv, names[i], &w))
			(void) cp_state_apply_forget_winners(rec, names[i]);
		else if (cp_state_apply_set_winners(rec, &w) < 0)
			return -ENOMEM;
	}
	rec->winners_recorded = true;
	return 0;
}

static bool among(char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (streq(names[i], name))
			return true;
	return false;
}

int cp_apply_carry_winners(struct cp_state_apply *rec, const struct cp_state_apply *previous,
			   char *const *names, size_t n)
{
	for (size_t i = 0; previous && i < previous->n_winners; i++)
		if (!among(names, n, previous->winners[i].name) &&
		    cp_state_apply_set_winners(rec, &previous->winners[i]) < 0)
			return -ENOMEM;
	rec->winners_recorded = true;
	return 0;
}

struct cp_state_apply *cp_apply_state_record(const struct cp_apply_result *result,
					     const struct cp_policy *policy, const char *agent,
					     int64_t now, int32_t pid)
{
	_cleanup_(cp_state_apply_freep) struct cp_state_apply *rec = cp_state_apply_new();

	if (!rec)
		return NULL;
	rec->started_at = now;
	rec->pid = pid;
	cp_strscpy(rec->agent, sizeof(rec->agent), agent ? agent : "cryptoprioctl");
	/* Nothing measured now but figures taken from the cache: say so, not "none". */
	snprintf(rec->backend, sizeof(rec->backend), "%s",
		 result->calibration.backend == CP_BACKEND_NONE && result->calibration.n_from_cache
		     ? "cache"
		     : cp_backend_to_string(result->calibration.backend));
	for (size_t i = 0; policy && i < policy->n_files; i++)
		if (cp_state_apply_add_policy_file(rec, policy->files[i]) < 0)
			return NULL;
	for (size_t i = 0; i < result->n_steps; i++) {
		const struct cp_apply_step_result *s = &result->steps[i];
		struct cp_state_step step = {
		    .action = s->action,
		    .old_priority = s->old_priority,
		    .new_priority = s->new_priority,
		    .result = CP_STEP_PENDING,
		};

		cp_strscpy(step.driver, sizeof(step.driver), s->driver);
		cp_strscpy(step.name, sizeof(step.name), s->name);
		cp_strscpy(step.why, sizeof(step.why), s->why);
		if (cp_state_apply_add_step(rec, &step) < 0)
			return NULL;
	}
	for (size_t i = 0; i < result->n_left_out; i++)
		if (cp_state_apply_add_left_out(rec, result->left_out[i]) < 0)
			return NULL;
	return steal_pointer(&rec);
}
