/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The planner's part for composites: the CPU's candidate for each name only
 * engines serve, and the created instances' steps, after every priority set.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "composite.h"
#include "macro.h"
#include "planner-internal.h"

/* Whether one of the group is of class cpu, as the planner sees it (after Class=). */
static bool cpu_serves(const struct builder *b, const struct cp_alg *const *algs, size_t n)
{
	struct cp_driver_rule rule;

	for (size_t i = 0; i < n; i++) {
		cp_policy_driver(b->policy, algs[i]->driver, &rule);
		if (class_of(algs[i], &rule) == CP_CLASS_CPU)
			return true;
	}
	return false;
}

/* The CPU's candidate for @engine's name, appended to b->candidates (room made by the caller). */
static int find_candidate(struct builder *b, const struct cp_alg *engine)
{
	struct cp_alg *cand = &b->candidates[b->n_candidates];
	int r;

	*cand = (struct cp_alg){.flags = CP_ALG_TESTED, .class = CP_CLASS_CPU};
	r = cp_composite_candidate(b->inv, engine->name, cand->driver);
	if (r == -ENAMETOOLONG)
		return cp_plan_add_note(
		    b->plan,
		    "%s: the CPU's candidate cannot be addressed by the kernel (its "
		    "driver name would be %d bytes or more): not created",
		    engine->name, CP_NAME_MAX);
	if (r == -EINVAL)
		return cp_plan_add_note(
		    b->plan, "%s: not understood as TEMPLATE(PART,...): no CPU candidate",
		    engine->name);
	if (r == -ENOENT)
		return cp_plan_add_note(
		    b->plan,
		    "%s: served by engines only, and no CPU implementation of %s "
		    "is registered (its module not loaded?): no CPU candidate",
		    engine->name, cand->driver);
	/* -EEXIST: the CPU's own competes, or is being self-tested: nothing to create. */
	if (r < 0)
		return 0;
	memcpy(cand->name, engine->name, sizeof(cand->name));
	memcpy(cand->type, engine->type, sizeof(cand->type));
	b->n_candidates++;
	return 0;
}

/* Into *algs (sorted by name): each name only engines serve followed by the CPU's candidate. */
int cp_plan_add_candidates(struct builder *b, const struct cp_alg ***algs, size_t *n)
{
	_cleanup_free_ const struct cp_alg **merged = calloc(2 * *n + 1, sizeof(*merged));
	size_t n_merged = 0;
	int r = 0;

	b->candidates = calloc(*n + 1, sizeof(*b->candidates));
	if (!merged || !b->candidates)
		return -ENOMEM;
	for (size_t i = 0, j; r >= 0 && i < *n; i = j) {
		size_t before = b->n_candidates;

		j = group_end(*algs, *n, i);
		memcpy(merged + n_merged, *algs + i, (j - i) * sizeof(*merged));
		n_merged += j - i;
		if (!cpu_serves(b, *algs + i, j - i))
			r = find_candidate(b, (*algs)[i]);
		if (b->n_candidates > before)
			merged[n_merged++] = &b->candidates[before];
	}
	if (r < 0)
		return r;
	free(*algs);
	*algs = steal_pointer(&merged);
	*n = n_merged;
	return 0;
}

/* Whether @part's driver name is one of @instance's, at any depth: "(part," "(part)" ",part)"... */
static bool built_on(const char *instance, const char *part)
{
	size_t len = strlen(part);

	for (const char *p = strstr(instance, part); p; p = strstr(p + 1, part))
		if (p > instance && (p[-1] == '(' || p[-1] == ',') &&
		    (p[len] == ')' || p[len] == ','))
			return true;
	return false;
}

/* The set or touch of a part @driver is built on: its index in the steps, or -1. */
static ssize_t part_set(const struct cp_plan *plan, const char *driver)
{
	for (size_t i = 0; i < plan->n_steps; i++) {
		const struct cp_plan_step *s = &plan->steps[i];

		if ((s->action == CP_STEP_SET || s->action == CP_STEP_TOUCH) &&
		    built_on(driver, s->driver))
			return (ssize_t) i;
	}
	return -1;
}

/* The step of @alg's own, added if the plan has none: it keeps its priority. */
static int own_step(struct builder *b, const struct cp_alg *alg, struct cp_plan_step **ret)
{
	struct cp_plan_step *own = (struct cp_plan_step *) cp_plan_find_step(b->plan, alg->driver);

	if (!own) {
		if (cp_plan_add_step(b->plan, &own) < 0)
			return -ENOMEM;
		*own = (struct cp_plan_step){
		    .class = CP_CLASS_CPU,
		    .old_priority = alg->priority,
		    .new_priority = alg->priority,
		};
		cp_strscpy(own->driver, sizeof(own->driver), alg->driver);
		cp_strscpy(own->name, sizeof(own->name), alg->name);
	}
	*ret = own;
	return 0;
}

/*
 * A created instance the plan keeps, one of whose parts the plan sets: the
 * kernel retires it with that UPDATEALG (crypto_remove_spawns()), so it is
 * created again after the sets, at the priority planned for it (its own
 * set, if any, becomes that create) or the one it has.
 */
int cp_plan_recreate_retired(struct builder *b)
{
	for (size_t i = 0; i < b->n_created; i++) {
		const struct cp_alg *alg = cp_inventory_find_driver(b->inv, b->created[i]);
		const struct cp_plan_step *planned = cp_plan_find_step(b->plan, b->created[i]);
		char part[CP_NAME_MAX], why[CP_STEP_WHY_MAX];
		struct cp_plan_step *own;
		ssize_t k;

		if (!alg || (planned && planned->action == CP_STEP_REMOVE))
			continue;
		k = part_set(b->plan, alg->driver);
		if (k < 0)
			continue;
		cp_strscpy(part, sizeof(part), b->plan->steps[k].driver);
		cp_strscpy(why, sizeof(why), planned ? planned->why : "");
		if (own_step(b, alg, &own) < 0)
			return -ENOMEM;
		own->action = CP_STEP_CREATE;
		cp_plan_set_why(
		    own->why, sizeof(own->why),
		    "created again: %s, one of its parts, is set before, and the kernel "
		    "retires the instances built on it%s%.200s",
		    part, why[0] ? "; " : "", why);
	}
	return 0;
}

/*
 * A step's place among the steps. A priority set (CRYPTO_MSG_UPDATEALG)
 * makes the kernel remove every instance built on that implementation
 * (crypto_remove_spawns()), so the instances come after every set: first
 * the steps that order the names (0), then the removals, outermost first,
 * then the creates, innermost first. An instance's driver name contains
 * those of its parts, so the longer name is the outer one.
 */
static size_t step_key(const struct cp_plan_step *s)
{
	size_t len = strlen(s->driver);

	if (s->action == CP_STEP_REMOVE)
		return 1 + CP_NAME_MAX - len;
	if (s->action == CP_STEP_CREATE)
		return 1 + CP_NAME_MAX + len;
	return 0;
}

/* Sort the steps by step_key(), stable: the names' own order is kept. */
void cp_plan_instances_last(struct cp_plan *plan)
{
	for (size_t i = 1; i < plan->n_steps; i++)
		for (size_t j = i;
		     j > 0 && step_key(&plan->steps[j - 1]) > step_key(&plan->steps[j]); j--) {
			struct cp_plan_step t = plan->steps[j];

			plan->steps[j] = plan->steps[j - 1];
			plan->steps[j - 1] = t;
		}
}
