/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the planner's files share while one plan is built: the builder, one
 * competing implementation, the functions each gives the others.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"
#include "planner.h"

enum tier {
	TIER_PINNED_FIRST,
	TIER_GEARS,
	TIER_PINNED_LAST,
	TIER_FAULTY,
	TIER_EXCLUDED,
};

/* One competing implementation while its name is planned. */
struct cand {
	const struct cp_alg *alg;
	size_t kernel_rank; /* 0 = the current winner */
	struct cp_driver_rule rule;
	enum cp_class class;
	unsigned gear;
	enum tier tier;
	bool fixed; /* Priority= or shared: placed by fixed_value */
	uint32_t fixed_value;
	bool measured; /* a usable metric at the workload point */
	double score;  /* the metric, larger is better */
	double noise;
	bool too_noisy;	     /* its figure decides nothing (cp_metric.too_noisy) */
	double spread_share; /* half its runs' range over its figure, for people */
	/*
	 * The noisiest figure of its run (measured, same bucket) where one is
	 * too noisy to decide: that run keeps the kernel's order. NULL: none.
	 */
	const char *noisy_driver;
	double noisy_share;   /* that figure's spread_share */
	double metric;	      /* as measured, for messages */
	enum cp_rank rank_by; /* Rank= as it applies to its type */
	enum cp_place_reason reason;
	char why[CP_PLACE_WHY_MAX];
	uint32_t new_priority;
	size_t new_rank;
	const char *shared_with; /* name it was planned under first */
	bool create;		 /* the CPU's candidate: not registered yet */
	bool owned;		 /* registered: an instance cryptoprio created */
	bool held; /* an engine not verified: in the CPU's gear, after it (planner.c) */
};

/* What has been planned so far, so that a driver is planned once. */
struct planned {
	const char *driver;
	const char *name;
	uint32_t priority;
};

struct builder {
	const struct cp_inventory *inv;
	const struct cp_measurement *ms;
	size_t n_ms;
	const struct cp_policy *policy;
	struct cp_plan *plan;
	struct planned *planned;
	size_t n_planned;
	struct cp_alg *candidates; /* the CPU's composites for names only engines serve */
	size_t n_candidates;
	char *const *created; /* the instances cryptoprio created, by driver name */
	size_t n_created;
};

/* The class the planner uses: detected, or Class= of the policy. */
static inline enum cp_class class_of(const struct cp_alg *alg, const struct cp_driver_rule *rule)
{
	return rule->has_class ? rule->class : alg->class;
}

static inline const char *gear_str(const struct cp_settings *s, const struct cand *c)
{
	if (s->gears == CP_GEARS_ANY)
		return "one gear";
	return c->gear == 0 ? "first gear" : "second gear";
}

/* The end of the group of @algs[i]'s name (@algs sorted by name). */
static inline size_t group_end(const struct cp_alg *const *algs, size_t n, size_t i)
{
	size_t j = i + 1;

	while (j < n && streq(algs[j]->name, algs[i]->name))
		j++;
	return j;
}

/* plan.c: the plan's texts, notes and steps. */

/*
 * A "why" text, cut at its buffer's end where long names make it longer
 * (the reason shown in plans and the journal: its start tells).
 */
void cp_plan_set_why(char *why, size_t size, const char *fmt, ...) _printf_(3, 4);
int cp_plan_add_note(struct cp_plan *plan, const char *fmt, ...) _printf_(2, 3);
int cp_plan_add_step(struct cp_plan *plan, struct cp_plan_step **ret);

/* planner-order.c: the order and the new priorities of one name's @c, sorted in the new order. */
int cp_plan_place_cands(struct builder *b, const char *name, struct cand *c, size_t n,
			const struct cp_settings *s);

/* planner-composite.c: the CPU's candidates and the created instances. */

/* Into *algs (sorted by name): each name only engines serve followed by the CPU's candidate. */
int cp_plan_add_candidates(struct builder *b, const struct cp_alg ***algs, size_t *n);
/* The created instances the sets of their parts retire, created again. */
int cp_plan_recreate_retired(struct builder *b);
/* The steps that remove and create instances after all the others. */
void cp_plan_instances_last(struct cp_plan *plan);
