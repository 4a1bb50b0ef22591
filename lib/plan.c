/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plan as a value (planner.h): its notes and steps appended while the
 * planner builds it, its words for the JSON and the tables, looked up, freed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* vasprintf */
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "macro.h"
#include "planner-internal.h"
#include "planner.h"

const char *cp_measurement_state_to_string(enum cp_measurement_state state)
{
	switch (state) {
	case CP_MEASUREMENT_NOT_MEASURED:
		return "not-measured";
	case CP_MEASUREMENT_MEASURED:
		return "measured";
	case CP_MEASUREMENT_FAULTY:
		return "faulty";
	case CP_MEASUREMENT_TIMEOUT:
		return "timeout";
	case CP_MEASUREMENT_UNREACHABLE:
		return "unreachable";
	}
	return "unknown";
}

const char *cp_place_reason_to_string(enum cp_place_reason reason)
{
	switch (reason) {
	case CP_PLACE_PINNED_FIRST:
		return "pinned-first";
	case CP_PLACE_RANKED:
		return "ranked";
	case CP_PLACE_WITHIN_NOISE:
		return "within-noise";
	case CP_PLACE_TOO_NOISY:
		return "too-noisy";
	case CP_PLACE_NOT_MEASURED:
		return "not-measured";
	case CP_PLACE_CLASS_ONLY:
		return "class-only";
	case CP_PLACE_FIXED:
		return "fixed-priority";
	case CP_PLACE_SHARED:
		return "shared";
	case CP_PLACE_UNVERIFIED:
		return "unverified";
	case CP_PLACE_PINNED_LAST:
		return "pinned-last";
	case CP_PLACE_FAULTY:
		return "faulty";
	case CP_PLACE_EXCLUDED:
		return "excluded";
	}
	return "unknown";
}

const char *cp_step_action_to_string(enum cp_step_action action)
{
	switch (action) {
	case CP_STEP_SET:
		return "set";
	case CP_STEP_TOUCH:
		return "touch";
	case CP_STEP_CREATE:
		return "create";
	case CP_STEP_REMOVE:
		return "remove";
	}
	return "unknown";
}

void cp_plan_set_why(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void) vsnprintf(why, size, fmt, ap);
	va_end(ap);
}

int cp_plan_add_note(struct cp_plan *plan, const char *fmt, ...)
{
	char **notes, *note;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&note, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	notes = reallocarray(plan->notes, plan->n_notes + 1, sizeof(*notes));
	if (!notes) {
		free(note);
		return -ENOMEM;
	}
	plan->notes = notes;
	notes[plan->n_notes++] = note;
	return 0;
}

int cp_plan_add_step(struct cp_plan *plan, struct cp_plan_step **ret)
{
	struct cp_plan_step *steps = reallocarray(plan->steps, plan->n_steps + 1, sizeof(*steps));

	if (!steps)
		return -ENOMEM;
	plan->steps = steps;
	*ret = &steps[plan->n_steps++];
	return 0;
}

void cp_plan_free(struct cp_plan *plan)
{
	if (!plan)
		return;
	for (size_t i = 0; i < plan->n_algorithms; i++)
		free(plan->algorithms[i].places);
	free(plan->algorithms);
	free(plan->steps);
	for (size_t i = 0; i < plan->n_notes; i++)
		free(plan->notes[i]);
	free(plan->notes);
	free(plan);
}

const struct cp_plan_step *cp_plan_find_step(const struct cp_plan *plan, const char *driver)
{
	for (size_t i = 0; i < plan->n_steps; i++)
		if (streq(plan->steps[i].driver, driver))
			return &plan->steps[i];
	return NULL;
}

const struct cp_plan_algorithm *cp_plan_find_algorithm(const struct cp_plan *plan, const char *name)
{
	for (size_t i = 0; i < plan->n_algorithms; i++)
		if (streq(plan->algorithms[i].name, name))
			return &plan->algorithms[i];
	return NULL;
}
