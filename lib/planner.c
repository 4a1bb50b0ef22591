/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The planner (planner.h): candidates ranked by the policy and their
 * figures, then priorities chosen that order them with the fewest changes;
 * here each name's candidates and steps, the order in planner-order.c.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "planner-internal.h"
#include "planner.h"
#include "types.h"
#include "units.h"

/* Whether @alg is registered and cryptoprio created it. */
static bool is_owned(const struct builder *b, const struct cp_alg *alg)
{
	for (size_t i = 0; i < b->n_created; i++)
		if (streq(b->created[i], alg->driver))
			return true;
	return false;
}

bool cp_driver_is_template_instance(const char *driver)
{
	size_t len = strlen(driver), depth = 0;
	const char *open = strchr(driver, '(');

	if (!open || open == driver || len < 3 || driver[len - 1] != ')')
		return false;
	for (const char *p = driver; p < open; p++)
		if (!(*p == '_' || *p == '-' || (*p >= 'a' && *p <= 'z') ||
		      (*p >= '0' && *p <= '9')))
			return false;
	/* The first '(' must close at the very end: "cbc(aes)-foo" is a driver of its own. */
	for (const char *p = open; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && --depth == 0 && p[1] != '\0')
			return false;
	}
	return depth == 0;
}

static const char *origin_str(char *buf, size_t len, struct cp_origin o)
{
	if (!o.file)
		return "built-in default";
	snprintf(buf, len, "%s:%u", o.file, o.line);
	return buf;
}

/* ---- candidates: class, gear, tier, metric ---- */

static const struct planned *find_planned(const struct builder *b, const char *driver)
{
	for (size_t i = 0; i < b->n_planned; i++)
		if (streq(b->planned[i].driver, driver))
			return &b->planned[i];
	return NULL;
}

static unsigned gear_of(enum cp_gears gears, enum cp_class class)
{
	switch (gears) {
	case CP_GEARS_CPU_OFFLOAD:
		return class == CP_CLASS_CPU ? 0 : 1;
	case CP_GEARS_OFFLOAD_CPU:
		return class == CP_CLASS_OFFLOAD ? 0 : 1;
	case CP_GEARS_ANY:
		return 0;
	}
	return 0;
}

unsigned cp_plan_gear(const struct cp_policy *policy, const struct cp_settings *s,
		      const char *driver, enum cp_class class)
{
	struct cp_driver_rule rule;

	cp_policy_driver(policy, driver, &rule);
	if (rule.pin != CP_PIN_NONE || rule.exclude || rule.has_priority)
		return CP_GEAR_NONE;
	return gear_of(s->gears, rule.has_class ? rule.class : class);
}

static const struct cp_measurement *find_measurement(const struct builder *b, const char *driver,
						     const struct cp_settings *s)
{
	for (size_t i = 0; i < b->n_ms; i++)
		if (streq(b->ms[i].driver, driver) && b->ms[i].request_size == s->request_size &&
		    b->ms[i].in_flight == s->in_flight)
			return &b->ms[i];
	return NULL;
}

/* A mismatch (with Verify = yes) or a timeout at any workload point makes a driver faulty. */
static const struct cp_measurement *find_fault(const struct builder *b, const char *driver,
					       const struct cp_settings *s)
{
	for (size_t i = 0; i < b->n_ms; i++) {
		if (!streq(b->ms[i].driver, driver))
			continue;
		if (b->ms[i].state == CP_MEASUREMENT_TIMEOUT ||
		    (b->ms[i].state == CP_MEASUREMENT_FAULTY && s->verify))
			return &b->ms[i];
	}
	return NULL;
}

/*
 * What @c is ranked by under @rank: Rank = ratio orders compressors by
 * their compression ratio; a name that is no compressor has none and is
 * ranked by throughput (cryptoprio.conf(5)).
 */
static enum cp_rank rank_of(const struct cand *c, enum cp_rank rank)
{
	if (rank == CP_RANK_RATIO && !cp_alg_compresses(c->alg))
		return CP_RANK_THROUGHPUT;
	return rank;
}

static const struct cp_metric *metric_of(const struct cp_measurement *m, enum cp_rank rank)
{
	switch (rank) {
	case CP_RANK_THROUGHPUT:
		return &m->throughput;
	case CP_RANK_LATENCY:
		return &m->latency;
	case CP_RANK_CPU_COST:
		return &m->cpu_cost;
	case CP_RANK_RATIO:
		return &m->ratio;
	}
	return &m->throughput;
}

/* The measurement at the workload point, if any, into c->score (larger is better). */
static void set_metric(const struct builder *b, struct cand *c, const struct cp_settings *s)
{
	const struct cp_measurement *m = find_measurement(b, c->alg->driver, s);
	const struct cp_metric *metric;
	char size[32];

	c->rank_by = rank_of(c, s->rank);
	if (m && (m->state == CP_MEASUREMENT_MEASURED ||
		  (m->state == CP_MEASUREMENT_FAULTY && !s->verify))) {
		metric = metric_of(m, c->rank_by);
		/* A compressor measured without its ratio (cached by an older version) is not
		 * ranked by it. */
		if (isfinite(metric->value) && isfinite(metric->noise) &&
		    (c->rank_by != CP_RANK_RATIO || metric->value > 0)) {
			c->measured = true;
			c->metric = metric->value;
			c->score = c->rank_by == CP_RANK_THROUGHPUT || c->rank_by == CP_RANK_RATIO
				       ? metric->value
				       : -metric->value;
			c->noise = fabs(metric->noise);
			c->too_noisy = metric->too_noisy;
			c->spread_share =
			    metric->value ? fabs(metric->spread / metric->value) : INFINITY;
			return;
		}
	}
	c->reason = CP_PLACE_NOT_MEASURED;
	cp_format_size(size, sizeof(size), s->request_size);
	cp_plan_set_why(c->why, sizeof(c->why),
			"%s (%s), %s at %s, depth %u: after the measured ones", gear_str(s, c),
			cp_class_to_string(c->class),
			m && m->state == CP_MEASUREMENT_UNREACHABLE ? "unreachable by calibration"
								    : "not measured",
			size, s->in_flight);
}

/* Pinned, faulty, excluded, fixed: the tiers that do not depend on the metric. */
static bool set_special_tier(const struct builder *b, struct cand *c, const struct cp_settings *s)
{
	const struct planned *shared = find_planned(b, c->alg->driver);
	const struct cp_measurement *fault;
	char o[PATH_MAX + 16];

	if (shared) {
		c->fixed = true;
		c->fixed_value = shared->priority;
		c->shared_with = shared->name;
		c->reason = CP_PLACE_SHARED;
		cp_plan_set_why(c->why, sizeof(c->why), "planned under %s already: its value kept",
				shared->name);
		return true;
	}
	if (c->rule.has_priority) {
		c->fixed = true;
		c->fixed_value = c->rule.priority;
		c->reason = CP_PLACE_FIXED;
		cp_plan_set_why(c->why, sizeof(c->why), "Priority=%u (%s)", c->rule.priority,
				origin_str(o, sizeof(o), c->rule.placement));
		return true;
	}
	fault = find_fault(b, c->alg->driver, s);
	if (c->rule.exclude) {
		c->tier = TIER_EXCLUDED;
		c->reason = CP_PLACE_EXCLUDED;
		cp_plan_set_why(c->why, sizeof(c->why), "Exclude=yes (%s)",
				origin_str(o, sizeof(o), c->rule.placement));
	} else if (fault) {
		c->tier = TIER_FAULTY;
		c->reason = CP_PLACE_FAULTY;
		if (fault->state == CP_MEASUREMENT_TIMEOUT || !fault->verification[0])
			cp_plan_set_why(c->why, sizeof(c->why), "%s: never preferred",
					fault->state == CP_MEASUREMENT_TIMEOUT
					    ? "a request timed out"
					    : "known-answer mismatch");
		else
			cp_plan_set_why(c->why, sizeof(c->why),
					"verification failed: never preferred (%s)",
					fault->verification);
	} else if (c->rule.pin == CP_PIN_LAST) {
		c->tier = TIER_PINNED_LAST;
		c->reason = CP_PLACE_PINNED_LAST;
		cp_plan_set_why(c->why, sizeof(c->why), "Pin=last (%s)",
				origin_str(o, sizeof(o), c->rule.placement));
	} else if (c->rule.pin == CP_PIN_FIRST) {
		c->tier = TIER_PINNED_FIRST;
		c->reason = CP_PLACE_PINNED_FIRST;
		cp_plan_set_why(c->why, sizeof(c->why), "Pin=first (%s)",
				origin_str(o, sizeof(o), c->rule.placement));
	} else {
		return false;
	}
	return true;
}

/*
 * Whether the module passed @driver (a measurement says so); else, in
 * *@why, why it did not run, if a measurement says.
 */
static bool verified(const struct builder *b, const char *driver, const char **why)
{
	*why = NULL;
	for (size_t i = 0; i < b->n_ms; i++) {
		if (!streq(b->ms[i].driver, driver))
			continue;
		if (b->ms[i].verified)
			return true;
		if (b->ms[i].verification[0])
			*why = b->ms[i].verification;
	}
	return false;
}

/*
 * Whether an implementation of @class at @gear, of @type, goes above the
 * CPU only once verified: an engine of a type the calibration verifies
 * whose gear is not after the CPU's, unless Verify = no.
 */
static bool held_until_verified(const struct cp_settings *s, enum cp_class class, unsigned gear,
				const char *type)
{
	const struct cp_type_info *info = cp_type_info(cp_mod_type_from_alg_type(type));

	return s->verify && class != CP_CLASS_CPU && gear <= gear_of(s->gears, CP_CLASS_CPU) &&
	       info && info->verified;
}

bool cp_plan_wants_verification(const struct cp_policy *policy, const struct cp_settings *s,
				const struct cp_alg *alg)
{
	struct cp_driver_rule rule;
	enum cp_class class;

	cp_policy_driver(policy, alg->driver, &rule);
	if (rule.pin != CP_PIN_NONE || rule.exclude || rule.has_priority)
		return false;
	class = class_of(alg, &rule);
	return held_until_verified(s, class, gear_of(s->gears, class), alg->type);
}

bool cp_plan_verifies_first(const struct cp_policy *policy, const struct cp_settings *s,
			    const struct cp_alg *alg)
{
	struct cp_driver_rule rule;

	cp_policy_driver(policy, alg->driver, &rule);
	if (s->verify && !rule.exclude && (rule.pin == CP_PIN_FIRST || rule.has_priority))
		return true;
	return cp_plan_wants_verification(policy, s, alg);
}

/*
 * An engine of a type the module verifies is placed above the CPU only
 * once it has passed (cryptoprio.conf(5), Verify=): before, it is held in
 * the CPU's gear, after it. Not with Verify = no.
 */
static void hold_unverified(const struct builder *b, struct cand *c, const struct cp_settings *s)
{
	unsigned cpu_gear = gear_of(s->gears, CP_CLASS_CPU);
	const char *why;

	if (c->create || !held_until_verified(s, c->class, c->gear, c->alg->type) ||
	    verified(b, c->alg->driver, &why))
		return;
	c->held = true;
	c->reason = CP_PLACE_UNVERIFIED;
	cp_plan_set_why(c->why, sizeof(c->why), "%s (%s), not verified: after the CPU (%s)",
			gear_str(s, c), cp_class_to_string(c->class),
			why ? why : "no verification on record");
	c->gear = cpu_gear;
}

static void init_cand(const struct builder *b, struct cand *c, const struct cp_settings *s)
{
	cp_policy_driver(b->policy, c->alg->driver, &c->rule);
	c->class = class_of(c->alg, &c->rule);
	c->gear = gear_of(s->gears, c->class);
	c->tier = TIER_GEARS;
	if (set_special_tier(b, c, s))
		return;
	if (strcmp(c->alg->type, "cipher") == 0 || s->calibrate == CP_CALIBRATE_NEVER) {
		c->reason = CP_PLACE_CLASS_ONLY;
		cp_plan_set_why(c->why, sizeof(c->why), "%s (%s), %s: by class only",
				gear_str(s, c), cp_class_to_string(c->class),
				s->calibrate == CP_CALIBRATE_NEVER ? "Calibrate=never"
								   : "single-block cipher");
	} else {
		set_metric(b, c, s);
	}
	hold_unverified(b, c, s);
}

/* ---- one name ---- */

/* Someone the kernel put behind @d and the plan puts ahead of it, or NULL. */
static const struct cand *overtaken_by(const struct cand *c, size_t n, const struct cand *d)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].kernel_rank > d->kernel_rank && c[i].new_rank < d->new_rank)
			return &c[i];
	return NULL;
}

static void explain_step(struct cp_plan_step *step, const struct cand *c, size_t n, size_t i,
			 const struct cand *winner_over)
{
	const char *lost = winner_over ? winner_over->alg->driver : NULL;

	if (step->action == CP_STEP_CREATE)
		cp_plan_set_why(
		    step->why, sizeof(step->why),
		    "the CPU's composite, built from its parts: no CPU implementation of %s "
		    "is registered; %s",
		    step->name, c[i].why);
	else if (step->action == CP_STEP_TOUCH)
		cp_plan_set_why(
		    step->why, sizeof(step->why),
		    "lost its place to %s: touched so the kernel retires template instances "
		    "built on it",
		    lost);
	else if (c[i].fixed)
		cp_strscpy(step->why, sizeof(step->why), c[i].why);
	else if (step->new_priority < step->old_priority && i > 0)
		cp_plan_set_why(step->why, sizeof(step->why), "lowered below %s%s%s: %s",
				c[i - 1].alg->driver, lost ? ", lost its place to " : "",
				lost ? lost : "", c[i].why);
	else if (i + 1 < n)
		cp_plan_set_why(step->why, sizeof(step->why), "raised above %s: %s",
				c[i + 1].alg->driver, c[i].why);
	else
		cp_plan_set_why(step->why, sizeof(step->why), "moved to keep the order strict: %s",
				c[i].why);
}

static enum cp_step_action action_of(const struct cand *c)
{
	if (c->create)
		return CP_STEP_CREATE;
	return c->new_priority == c->alg->priority ? CP_STEP_TOUCH : CP_STEP_SET;
}

/* In the new order: a candidate, always first, is created before those it displaces. */
static int add_steps(struct builder *b, const char *name, const struct cand *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct cand *by = overtaken_by(c, n, &c[i]);
		struct cp_plan_step *step;

		if (c[i].reason == CP_PLACE_SHARED)
			continue;
		if (!c[i].create && c[i].new_priority == c[i].alg->priority && !by)
			continue;
		if (cp_plan_add_step(b->plan, &step) < 0)
			return -ENOMEM;
		*step = (struct cp_plan_step){
		    .class = c[i].class,
		    .action = action_of(&c[i]),
		    .old_priority = c[i].alg->priority,
		    .new_priority = c[i].new_priority,
		};
		cp_strscpy(step->driver, sizeof(step->driver), c[i].alg->driver);
		cp_strscpy(step->name, sizeof(step->name), name);
		explain_step(step, c, n, i, by);
	}
	return 0;
}

static int add_algorithm(struct builder *b, const struct cp_alg *first, const struct cand *c,
			 size_t n, const struct cp_settings *s)
{
	struct cp_plan_algorithm *algs, *a;

	algs = reallocarray(b->plan->algorithms, b->plan->n_algorithms + 1, sizeof(*algs));
	if (!algs)
		return -ENOMEM;
	b->plan->algorithms = algs;
	a = &algs[b->plan->n_algorithms];
	*a = (struct cp_plan_algorithm){.settings = *s, .n_places = n};
	cp_strscpy(a->name, sizeof(a->name), first->name);
	cp_strscpy(a->type, sizeof(a->type), first->type);
	a->places = calloc(n, sizeof(*a->places));
	if (!a->places)
		return -ENOMEM;
	b->plan->n_algorithms++;
	for (size_t i = 0; i < n; i++) {
		struct cp_plan_place *p = &a->places[i];

		cp_strscpy(p->driver, sizeof(p->driver), c[i].alg->driver);
		cp_strscpy(p->why, sizeof(p->why), c[i].why);
		p->class = c[i].class;
		p->gear = c[i].gear;
		p->old_priority = c[i].alg->priority;
		p->new_priority = c[i].new_priority;
		p->reason = c[i].reason;
		p->create = c[i].create;
	}
	return 0;
}

static int remember_planned(struct builder *b, const struct cand *c, size_t n)
{
	struct planned *planned;

	for (size_t i = 0; i < n; i++) {
		if (c[i].reason == CP_PLACE_SHARED)
			continue;
		planned = reallocarray(b->planned, b->n_planned + 1, sizeof(*planned));
		if (!planned)
			return -ENOMEM;
		b->planned = planned;
		planned[b->n_planned++] =
		    (struct planned){c[i].alg->driver, c[i].alg->name, c[i].new_priority};
	}
	return 0;
}

static bool is_candidate(const struct builder *b, const struct cp_alg *alg)
{
	for (size_t i = 0; i < b->n_candidates; i++)
		if (alg == &b->candidates[i])
			return true;
	return false;
}

/* Class, gear, tier and metric of each; notes for drivers planned under another name. */
static int init_cands(struct builder *b, const struct cp_alg *const *algs, size_t n, struct cand *c,
		      const struct cp_settings *s, bool *any_fixed)
{
	for (size_t i = 0; i < n; i++) {
		c[i].alg = algs[i];
		c[i].create = is_candidate(b, algs[i]);
		c[i].owned = !c[i].create && is_owned(b, algs[i]);
		init_cand(b, &c[i], s);
		*any_fixed |= c[i].fixed;
		if (c[i].reason == CP_PLACE_SHARED &&
		    cp_plan_add_note(b->plan,
				     "%s serves both %s and %s: planned under %s (first by name); "
				     "%s follows that value",
				     c[i].alg->driver, c[i].shared_with, algs[0]->name,
				     c[i].shared_with, algs[0]->name) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* A candidate or a created instance behind someone: creating it, or keeping it, changes no lookup.
 */
static bool is_behind(const struct cand *c, size_t i)
{
	return i > 0 && (c[i].create || c[i].owned);
}

static bool any_behind(const struct cand *c, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (is_behind(c, i))
			return true;
	return false;
}

static void drop_notes_from(struct cp_plan *plan, size_t n_notes)
{
	while (plan->n_notes > n_notes)
		free(plan->notes[--plan->n_notes]);
}

/* The created instance @c[i], behind @c[0]: removed, or lowered while in use. */
static int add_remove_step(struct builder *b, const struct cand *c, size_t i)
{
	struct cp_plan_step *step;
	int r = cp_plan_add_step(b->plan, &step);

	if (r < 0)
		return r;
	*step = (struct cp_plan_step){
	    .class = c[i].class,
	    .action = CP_STEP_REMOVE,
	    .old_priority = c[i].alg->priority,
	    .new_priority = CP_IN_USE_PRIORITY,
	};
	cp_strscpy(step->driver, sizeof(step->driver), c[i].alg->driver);
	cp_strscpy(step->name, sizeof(step->name), c[i].alg->name);
	cp_plan_set_why(
	    step->why, sizeof(step->why),
	    "created by cryptoprio, now behind %s: removed (lowered to %u while in use); %s",
	    c[0].alg->driver, CP_IN_USE_PRIORITY, c[i].why);
	return 0;
}

static int plan_name(struct builder *b, const struct cp_alg *const *algs, size_t n);

/* The name planned without those behind: candidates not created, created instances removed. */
static int plan_without_behind(struct builder *b, const struct cand *c, size_t n)
{
	_cleanup_free_ const struct cp_alg **kept = calloc(n, sizeof(*kept));
	size_t n_kept = 0;
	int r = 0;

	if (!kept)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!is_behind(c, i))
			kept[n_kept++] = c[i].alg;
	if (n_kept)
		r = plan_name(b, kept, n_kept);
	for (size_t i = 1; r >= 0 && i < n; i++)
		if (c[i].owned)
			r = add_remove_step(b, c, i);
	return r;
}

/* Plan the @n competing implementations of one name (its candidate to create included). */
static int plan_name(struct builder *b, const struct cp_alg *const *algs, size_t n)
{
	_cleanup_free_ struct cand *c = calloc(n, sizeof(*c));
	size_t notes_before = b->plan->n_notes;
	struct cp_settings s;
	bool any_fixed = false;
	int r;

	if (!c)
		return -ENOMEM;
	cp_policy_algorithm(b->policy, algs[0]->name, &s);
	r = init_cands(b, algs, n, c, &s, &any_fixed);
	if (r < 0 || (n < 2 && !any_fixed))
		return r;
	r = cp_plan_place_cands(b, algs[0]->name, c, n, &s);
	if (r < 0)
		return r;
	if (any_behind(c, n)) {
		/* Their notes come again from the plan without them. */
		drop_notes_from(b->plan, notes_before);
		return plan_without_behind(b, c, n);
	}
	r = add_algorithm(b, algs[0], c, n, &s);
	if (r < 0)
		return r;
	r = add_steps(b, algs[0]->name, c, n);
	if (r < 0)
		return r;
	return remember_planned(b, c, n);
}

/* ---- the whole inventory ---- */

static int alg_name_cmp(const void *x, const void *y)
{
	const struct cp_alg *const *a = x, *const *b = y;
	int c = strcmp((*a)->name, (*b)->name);

	if (c != 0)
		return c;
	return *a < *b ? -1 : *a > *b;
}

/*
 * The types cryptoprio orders: what it calibrates (compressors as acomp,
 * which serves scomp too), and single-block ciphers (by class). Others
 * (rng, the older "compression" type of crypto_alloc_comp(), akcipher,
 * kpp...) keep the kernel's order: nothing is measured to justify a
 * change, and implementations that share a priority would otherwise be
 * pulled apart for no reason. rsa is measured, but ordering akciphers
 * would also mean creating the CPU's pkcs1pad(rsa) where an engine
 * registers its own (virtio-crypto does on 7.2), which nothing measures:
 * calibrate reports rsa, the kernel's order stays.
 */
bool cp_plan_orders_type(const char *type)
{
	static const char *const types[] = {"skcipher", "aead",	 "shash", "ahash",
					    "cipher",	"acomp", "scomp"};

	for (size_t i = 0; i < ARRAY_SIZE(types); i++)
		if (strcmp(type, types[i]) == 0)
			return true;
	return false;
}

/* Competing, not template instances; notes for those whose self-test has not finished. */
static int collect(struct builder *b, const struct cp_alg ***ret, size_t *ret_n)
{
	const struct cp_inventory *inv = b->inv;
	const struct cp_alg **algs;
	size_t n = 0;

	algs = calloc(inv->n_algs + 1, sizeof(*algs));
	if (!algs)
		return -ENOMEM;
	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *a = &inv->algs[i];

		if ((cp_driver_is_template_instance(a->driver) && !is_owned(b, a)) ||
		    !cp_plan_orders_type(a->type))
			continue;
		if (cp_alg_competes(a)) {
			algs[n++] = a;
			continue;
		}
		if (!(a->flags & (CP_ALG_TESTED | CP_ALG_INTERNAL)) &&
		    cp_plan_add_note(b->plan,
				     "%s (%s): self-test not finished, not planned; look again "
				     "shortly",
				     a->driver, a->name) < 0) {
			free(algs);
			return -ENOMEM;
		}
	}
	qsort(algs, n, sizeof(*algs), alg_name_cmp);
	*ret = algs;
	*ret_n = n;
	return 0;
}

int cp_plan_build(const struct cp_inventory *inventory, const struct cp_measurement *measurements,
		  size_t n_measurements, const struct cp_policy *policy, struct cp_plan **ret)
{
	return cp_plan_build_created(inventory, measurements, n_measurements, policy, NULL, 0, ret);
}

int cp_plan_build_created(const struct cp_inventory *inventory,
			  const struct cp_measurement *measurements, size_t n_measurements,
			  const struct cp_policy *policy, char *const *created, size_t n_created,
			  struct cp_plan **ret)
{
	_cleanup_(cp_plan_freep) struct cp_plan *plan = calloc(1, sizeof(*plan));
	_cleanup_free_ const struct cp_alg **algs = NULL;
	struct builder b = {
	    .inv = inventory,
	    .ms = measurements,
	    .n_ms = n_measurements,
	    .policy = policy,
	    .created = created,
	    .n_created = n_created,
	};
	size_t n = 0;
	int r;

	if (!plan)
		return -ENOMEM;
	b.plan = plan;
	r = collect(&b, &algs, &n);
	if (r >= 0)
		r = cp_plan_add_candidates(&b, &algs, &n);
	for (size_t i = 0, j; r >= 0 && i < n; i = j) {
		j = group_end(algs, n, i);
		r = plan_name(&b, algs + i, j - i);
	}
	free(b.planned);
	free(b.candidates);
	if (r >= 0)
		r = cp_plan_recreate_retired(&b);
	if (r < 0)
		return r;
	cp_plan_instances_last(plan);
	*ret = steal_pointer(&plan);
	return 0;
}