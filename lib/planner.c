/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The planner (planner.h): candidates ranked by the policy and their
 * figures, then priorities chosen that order them with the fewest changes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* asprintf */
#endif
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "composite.h"
#include "macro.h"
#include "planner.h"
#include "units.h"

enum tier {
	TIER_PINNED_FIRST,
	TIER_GEARS,
	TIER_PINNED_LAST,
	TIER_FAULTY,
	TIER_EXCLUDED,
};

/* One competing implementation while its name is planned. */
/*
 * A "why" text, cut at its buffer's end where long names make it longer
 * (the reason shown in plans and the journal: its start tells).
 */
_printf_(3, 4) static void set_why(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void) vsnprintf(why, size, fmt, ap);
	va_end(ap);
}

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
	double metric;	      /* as measured, for messages */
	enum cp_rank rank_by; /* Rank= as it applies to its type */
	enum cp_place_reason reason;
	char why[192];
	uint32_t new_priority;
	size_t new_rank;
	const char *shared_with; /* name it was planned under first */
	bool create;		 /* the CPU's candidate: not registered yet */
	bool owned;		 /* registered: an instance cryptoprio created */
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
	case CP_PLACE_NOT_MEASURED:
		return "not-measured";
	case CP_PLACE_CLASS_ONLY:
		return "class-only";
	case CP_PLACE_FIXED:
		return "fixed-priority";
	case CP_PLACE_SHARED:
		return "shared";
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

static const char *origin_str(char *buf, size_t len, struct cp_origin o)
{
	if (!o.file)
		return "built-in default";
	snprintf(buf, len, "%s:%u", o.file, o.line);
	return buf;
}

static int add_note(struct cp_plan *plan, const char *fmt, ...) _printf_(2, 3);

static int add_note(struct cp_plan *plan, const char *fmt, ...)
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

static const char *gear_str(const struct cp_settings *s, const struct cand *c)
{
	if (s->gears == CP_GEARS_ANY)
		return "one gear";
	return c->gear == 0 ? "first gear" : "second gear";
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

static void format_metric(char *buf, size_t len, enum cp_rank rank, double v)
{
	switch (rank) {
	case CP_RANK_THROUGHPUT:
		snprintf(buf, len, "%.2f MB/s", v);
		return;
	case CP_RANK_LATENCY:
		snprintf(buf, len, "%.0f ns/request", v);
		return;
	case CP_RANK_CPU_COST:
		snprintf(buf, len, "%.3f CPU ns/byte", v);
		return;
	case CP_RANK_RATIO:
		snprintf(buf, len, "%.2f:1 compression", v);
		return;
	}
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
			return;
		}
	}
	c->reason = CP_PLACE_NOT_MEASURED;
	cp_format_size(size, sizeof(size), s->request_size);
	set_why(c->why, sizeof(c->why), "%s (%s), %s at %s, depth %u: after the measured ones",
		gear_str(s, c), cp_class_to_string(c->class),
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
		set_why(c->why, sizeof(c->why), "planned under %s already: its value kept",
			shared->name);
		return true;
	}
	if (c->rule.has_priority) {
		c->fixed = true;
		c->fixed_value = c->rule.priority;
		c->reason = CP_PLACE_FIXED;
		set_why(c->why, sizeof(c->why), "Priority=%u (%s)", c->rule.priority,
			origin_str(o, sizeof(o), c->rule.placement));
		return true;
	}
	fault = find_fault(b, c->alg->driver, s);
	if (c->rule.exclude) {
		c->tier = TIER_EXCLUDED;
		c->reason = CP_PLACE_EXCLUDED;
		set_why(c->why, sizeof(c->why), "Exclude=yes (%s)",
			origin_str(o, sizeof(o), c->rule.placement));
	} else if (fault) {
		c->tier = TIER_FAULTY;
		c->reason = CP_PLACE_FAULTY;
		set_why(c->why, sizeof(c->why), "%s: never preferred",
			fault->state == CP_MEASUREMENT_TIMEOUT ? "a request timed out"
							       : "known-answer mismatch");
	} else if (c->rule.pin == CP_PIN_LAST) {
		c->tier = TIER_PINNED_LAST;
		c->reason = CP_PLACE_PINNED_LAST;
		set_why(c->why, sizeof(c->why), "Pin=last (%s)",
			origin_str(o, sizeof(o), c->rule.placement));
	} else if (c->rule.pin == CP_PIN_FIRST) {
		c->tier = TIER_PINNED_FIRST;
		c->reason = CP_PLACE_PINNED_FIRST;
		set_why(c->why, sizeof(c->why), "Pin=first (%s)",
			origin_str(o, sizeof(o), c->rule.placement));
	} else {
		return false;
	}
	return true;
}

/* The class the planner uses: detected, or Class= of the policy. */
static enum cp_class class_of(const struct cp_alg *alg, const struct cp_driver_rule *rule)
{
	return rule->has_class ? rule->class : alg->class;
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
		set_why(c->why, sizeof(c->why), "%s (%s), %s: by class only", gear_str(s, c),
			cp_class_to_string(c->class),
			s->calibrate == CP_CALIBRATE_NEVER ? "Calibrate=never"
							   : "single-block cipher");
		return;
	}
	set_metric(b, c, s);
}

/* ---- the desired order ---- */

/* Kernel order: highest priority first; ties as the inventory lists them. */
static int kernel_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->alg->priority != b->alg->priority)
		return a->alg->priority > b->alg->priority ? -1 : 1;
	/* Registered ones first: the kernel does not know a candidate. */
	if (a->create != b->create)
		return a->create ? 1 : -1;
	return a->alg < b->alg ? -1 : a->alg > b->alg;
}

/* Sort key before the metric: tier, gear, measured before not measured. */
static int bucket_cmp(const struct cand *a, const struct cand *b)
{
	if (a->tier != b->tier)
		return a->tier < b->tier ? -1 : 1;
	if (a->tier != TIER_GEARS)
		return 0;
	if (a->gear != b->gear)
		return a->gear < b->gear ? -1 : 1;
	return (int) b->measured - (int) a->measured;
}

static void swap_cand(struct cand *a, struct cand *b)
{
	struct cand t = *a;

	*a = *b;
	*b = t;
}

/* Stable insertion sort by bucket: the kernel's order is kept inside each bucket. */
static void sort_buckets(struct cand *c, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && bucket_cmp(&c[j], &c[j - 1]) < 0; j--)
			swap_cand(&c[j], &c[j - 1]);
}

static bool beyond_noise(const struct cand *better, const struct cand *worse)
{
	return better->score - worse->score > better->noise + worse->noise;
}

/*
 * Within a bucket of measured candidates, swap neighbours only when the
 * later one is better beyond noise, until no such pair is left. Each swap
 * puts a strictly better score first, so this ends; and an order that is
 * already the result has no such pair, so planning again changes nothing.
 */
static void rank_measured(struct cand *c, size_t n)
{
	bool swapped = true;

	while (swapped) {
		swapped = false;
		for (size_t i = 1; i < n; i++) {
			if (!c[i].measured || !c[i - 1].measured ||
			    bucket_cmp(&c[i], &c[i - 1]) != 0)
				continue;
			if (beyond_noise(&c[i], &c[i - 1])) {
				swap_cand(&c[i], &c[i - 1]);
				swapped = true;
			}
		}
	}
}

static bool same_run(const struct cand *a, const struct cand *b)
{
	return a->measured && b->measured && bucket_cmp(a, b) == 0;
}

static void explain_measured(struct cand *c, size_t n, const struct cp_settings *s)
{
	char size[32], metric[64];

	cp_format_size(size, sizeof(size), s->request_size);
	for (size_t i = 0; i < n; i++) {
		const struct cand *tie = NULL;

		if (!c[i].measured || c[i].tier != TIER_GEARS)
			continue;
		if (i > 0 && same_run(&c[i], &c[i - 1]) && !beyond_noise(&c[i - 1], &c[i]))
			tie = &c[i - 1];
		else if (i + 1 < n && same_run(&c[i], &c[i + 1]) && !beyond_noise(&c[i], &c[i + 1]))
			tie = &c[i + 1];
		format_metric(metric, sizeof(metric), c[i].rank_by, c[i].metric);
		c[i].reason = tie ? CP_PLACE_WITHIN_NOISE : CP_PLACE_RANKED;
		set_why(c[i].why, sizeof(c[i].why), "%s (%s), %s %s at %s, depth %u%s%s%s",
			gear_str(s, &c[i]), cp_class_to_string(c[i].class),
			cp_rank_to_string(c[i].rank_by), metric, size, s->in_flight,
			tie ? ", within noise of " : "", tie ? tie->alg->driver : "",
			tie ? ": kernel's order kept" : "");
	}
}

/* The order of the planned (not fixed) candidates; fixed ones are moved to the end. */
static size_t order_candidates(struct cand *c, size_t n, const struct cp_settings *s)
{
	size_t n_planned = 0;

	qsort(c, n, sizeof(*c), kernel_cmp);
	for (size_t i = 0; i < n; i++)
		c[i].kernel_rank = i;
	/* Fixed candidates last (stable): they are placed by their value. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && !c[j].fixed && c[j - 1].fixed; j--)
			swap_cand(&c[j], &c[j - 1]);
	while (n_planned < n && !c[n_planned].fixed)
		n_planned++;
	/*
	 * A created instance where its candidate would be, after the registered
	 * ones (stable; kernel_rank kept for the touches): where the policy
	 * leaves the kernel's order, it stays only if a plan would create it.
	 */
	for (size_t i = 1; i < n_planned; i++)
		for (size_t j = i; j > 0 && !c[j].owned && c[j - 1].owned; j--)
			swap_cand(&c[j], &c[j - 1]);
	sort_buckets(c, n_planned);
	rank_measured(c, n_planned);
	explain_measured(c, n_planned, s);
	return n_planned;
}

/* ---- priorities: keep as many as possible, prefer moving the losers ---- */

/* Values no planned candidate may take: the fixed ones (sorted, unique). */
struct taken {
	int64_t *v;
	size_t n;
};

static bool is_taken(const struct taken *t, int64_t v)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i] == v)
			return true;
	return false;
}

/* Free integers in [lo, hi] within 0..INT_MAX. */
static int64_t free_count(const struct taken *t, int64_t lo, int64_t hi)
{
	int64_t n;

	if (lo < 0)
		lo = 0;
	if (hi > INT_MAX)
		hi = INT_MAX;
	if (lo > hi)
		return 0;
	n = hi - lo + 1;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i] >= lo && t->v[i] <= hi)
			n--;
	return n;
}

static int64_t free_below(const struct taken *t, int64_t v)
{
	do
		v--;
	while (is_taken(t, v));
	return v;
}

static int64_t free_above(const struct taken *t, int64_t v)
{
	do
		v++;
	while (is_taken(t, v));
	return v;
}

static bool room_above(const struct taken *t, const struct cand *c, size_t i)
{
	return free_count(t, (int64_t) c[i].alg->priority + 1, INT_MAX) >= (int64_t) i;
}

static bool room_below(const struct taken *t, const struct cand *c, size_t i, size_t n)
{
	return free_count(t, 0, (int64_t) c[i].alg->priority - 1) >= (int64_t) (n - 1 - i);
}

static bool compatible(const struct taken *t, const struct cand *c, size_t i, size_t j)
{
	int64_t hi = c[i].alg->priority, lo = c[j].alg->priority;

	return hi > lo && free_count(t, lo + 1, hi - 1) >= (int64_t) (j - i - 1);
}

/*
 * The candidates that keep their value: a chain strictly decreasing with
 * room for the others around it. The winner keeps its value if it can at
 * all (losers are lowered rather than the winner raised); then the longest
 * chain, and among those the one keeping the earliest places. Marks
 * keep[i]; returns the chain's length.
 */
static size_t choose_kept(const struct taken *t, const struct cand *c, size_t n, bool *keep)
{
	_cleanup_free_ size_t *len = calloc(n + 1, sizeof(size_t));
	_cleanup_free_ size_t *next = calloc(n + 1, sizeof(size_t));
	size_t best = n, best_len = 0;

	if (!len || !next)
		return 0; /* keep nothing: still a valid plan */
	for (size_t i = n; i-- > 0;) {
		bool ok = c[i].alg->priority <= INT_MAX && !is_taken(t, c[i].alg->priority);

		next[i] = n;
		len[i] = ok && room_below(t, c, i, n) ? 1 : 0;
		for (size_t j = i + 1; ok && j < n; j++) {
			if (len[j] + 1 > len[i] && compatible(t, c, i, j)) {
				len[i] = len[j] + 1;
				next[i] = j;
			}
		}
	}
	/* The winner keeps its value whenever it can: new users see no raised priority. */
	for (size_t i = 0; i < n && !(best_len > 0 && best == 0); i++) {
		if (len[i] > best_len && room_above(t, c, i)) {
			best = i;
			best_len = len[i];
		}
	}
	for (size_t i = best; i < n; i = next[i])
		keep[i] = true;
	return best_len;
}

/* No value can be kept: descend from the winner's value, or from just high enough. */
static void assign_all(const struct taken *t, struct cand *c, size_t n)
{
	int64_t v = c[0].alg->priority > INT_MAX ? INT_MAX : c[0].alg->priority;

	while (free_count(t, 0, v) < (int64_t) n)
		v++;
	v++;
	for (size_t i = 0; i < n; i++) {
		v = free_below(t, v);
		c[i].new_priority = (uint32_t) v;
	}
}

/* The moved ones between kept c[i - 1] and the next kept one (or the end); returns that one's index
 * + 1. */
static size_t assign_run(const struct taken *t, struct cand *c, size_t n, const bool *keep,
			 size_t i)
{
	size_t j = i;
	bool raised = true;
	int64_t v;

	while (j < n && !keep[j])
		j++;
	for (size_t k = i; k < j; k++)
		raised = raised && j < n && c[k].alg->priority <= c[j].alg->priority;
	if (raised) {
		/* Losers that must pass the one below them: just above it, from the bottom up. */
		v = j < n ? c[j].alg->priority : 0;
		for (size_t k = j; k-- > i;) {
			v = free_above(t, v);
			c[k].new_priority = (uint32_t) v;
		}
	} else {
		/* Lowered just under the one before them. */
		v = c[i - 1].new_priority;
		for (size_t k = i; k < j; k++) {
			v = free_below(t, v);
			c[k].new_priority = (uint32_t) v;
		}
	}
	if (j < n)
		c[j].new_priority = c[j].alg->priority;
	return j + 1;
}

static void assign_priorities(const struct taken *t, struct cand *c, size_t n)
{
	_cleanup_free_ bool *keep = NULL;
	size_t first = n;
	int64_t v;

	if (n == 0)
		return;
	keep = calloc(n, sizeof(bool));
	if (!keep || choose_kept(t, c, n, keep) == 0)
		return assign_all(t, c, n);
	for (size_t i = 0; i < n && first == n; i++)
		if (keep[i])
			first = i;
	/* Above the first kept one: raised just enough, from the bottom up. */
	v = c[first].alg->priority;
	for (size_t i = first; i-- > 0;) {
		v = free_above(t, v);
		c[i].new_priority = (uint32_t) v;
	}
	c[first].new_priority = c[first].alg->priority;
	for (size_t i = first + 1; i < n;)
		i = assign_run(t, c, n, keep, i);
}

/* ---- one name ---- */

/* Fixed values, made unique: a second driver asking for a taken value gets the next free one below.
 */
static int reserve_fixed(struct builder *b, const char *name, struct cand *c, size_t n,
			 struct taken *t)
{
	t->v = calloc(n + 1, sizeof(*t->v));
	if (!t->v)
		return -ENOMEM;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			int64_t v = c[i].fixed_value;

			/* Shared values are applied elsewhere: they go first and never move. */
			if (!c[i].fixed || (pass == 0) != (c[i].reason == CP_PLACE_SHARED))
				continue;
			if (is_taken(t, v)) {
				v = free_below(t, v);
				if (v < 0)
					v = free_above(t, c[i].fixed_value);
				if (add_note(b->plan,
					     "%s: %s asks for priority %u, already taken: "
					     "set to %lld so the order is not left to chance",
					     name, c[i].alg->driver, c[i].fixed_value,
					     (long long) v) < 0)
					return -ENOMEM;
			}
			c[i].new_priority = (uint32_t) v;
			t->v[t->n++] = v;
		}
	}
	return 0;
}

static int new_order_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->new_priority != b->new_priority)
		return a->new_priority > b->new_priority ? -1 : 1;
	return a->kernel_rank < b->kernel_rank ? -1 : a->kernel_rank > b->kernel_rank;
}

/* Someone the kernel put behind @d and the plan puts ahead of it, or NULL. */
static const struct cand *overtaken_by(const struct cand *c, size_t n, const struct cand *d)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].kernel_rank > d->kernel_rank && c[i].new_rank < d->new_rank)
			return &c[i];
	return NULL;
}

static int add_step(struct builder *b, struct cp_plan_step **ret)
{
	struct cp_plan_step *steps =
	    reallocarray(b->plan->steps, b->plan->n_steps + 1, sizeof(*steps));

	if (!steps)
		return -ENOMEM;
	b->plan->steps = steps;
	*ret = &steps[b->plan->n_steps++];
	return 0;
}

static void explain_step(struct cp_plan_step *step, const struct cand *c, size_t n, size_t i,
			 const struct cand *winner_over)
{
	const char *lost = winner_over ? winner_over->alg->driver : NULL;

	if (step->action == CP_STEP_CREATE)
		set_why(step->why, sizeof(step->why),
			"the CPU's composite, built from its parts: no CPU implementation of %s "
			"is registered; %s",
			step->name, c[i].why);
	else if (step->action == CP_STEP_TOUCH)
		set_why(step->why, sizeof(step->why),
			"lost its place to %s: touched so the kernel retires template instances "
			"built on it",
			lost);
	else if (c[i].fixed)
		cp_strscpy(step->why, sizeof(step->why), c[i].why);
	else if (step->new_priority < step->old_priority && i > 0)
		set_why(step->why, sizeof(step->why), "lowered below %s%s%s: %s",
			c[i - 1].alg->driver, lost ? ", lost its place to " : "", lost ? lost : "",
			c[i].why);
	else if (i + 1 < n)
		set_why(step->why, sizeof(step->why), "raised above %s: %s", c[i + 1].alg->driver,
			c[i].why);
	else
		set_why(step->why, sizeof(step->why), "moved to keep the order strict: %s",
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
		if (add_step(b, &step) < 0)
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
		    add_note(b->plan,
			     "%s serves both %s and %s: planned under %s (first by name); "
			     "%s follows that value",
			     c[i].alg->driver, c[i].shared_with, algs[0]->name, c[i].shared_with,
			     algs[0]->name) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The order and the new priorities: @c sorted in the new order. */
static int place_cands(struct builder *b, const char *name, struct cand *c, size_t n,
		       const struct cp_settings *s)
{
	_cleanup_free_ int64_t *taken_values = NULL;
	struct taken taken = {};
	size_t n_planned = order_candidates(c, n, s);
	int r = reserve_fixed(b, name, c, n, &taken);

	taken_values = taken.v;
	if (r < 0)
		return r;
	assign_priorities(&taken, c, n_planned);
	qsort(c, n, sizeof(*c), new_order_cmp);
	for (size_t i = 0; i < n; i++)
		c[i].new_rank = i;
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
	int r = add_step(b, &step);

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
	set_why(step->why, sizeof(step->why),
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
	r = place_cands(b, algs[0]->name, c, n, &s);
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
		    add_note(b->plan,
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

/* ---- the CPU's candidates for the names only engines serve ---- */

/* The end of the group of @algs[i]'s name (@algs sorted by name). */
static size_t group_end(const struct cp_alg *const *algs, size_t n, size_t i)
{
	size_t j = i + 1;

	while (j < n && streq(algs[j]->name, algs[i]->name))
		j++;
	return j;
}

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
		return add_note(b->plan,
				"%s: the CPU's candidate cannot be addressed by the kernel (its "
				"driver name would be %d bytes or more): not created",
				engine->name, CP_NAME_MAX);
	if (r == -EINVAL)
		return add_note(b->plan,
				"%s: not understood as TEMPLATE(PART,...): no CPU candidate",
				engine->name);
	/* -EEXIST, -ENOENT: nothing to create. */
	if (r < 0)
		return 0;
	memcpy(cand->name, engine->name, sizeof(cand->name));
	memcpy(cand->type, engine->type, sizeof(cand->type));
	b->n_candidates++;
	return 0;
}

/* Into *algs (sorted by name): each name only engines serve followed by the CPU's candidate. */
static int add_candidates(struct builder *b, const struct cp_alg ***algs, size_t *n)
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
		if (add_step(b, &own) < 0)
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
static int recreate_retired(struct builder *b)
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
		set_why(own->why, sizeof(own->why),
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
static void instances_last(struct cp_plan *plan)
{
	for (size_t i = 1; i < plan->n_steps; i++)
		for (size_t j = i;
		     j > 0 && step_key(&plan->steps[j - 1]) > step_key(&plan->steps[j]); j--) {
			struct cp_plan_step t = plan->steps[j];

			plan->steps[j] = plan->steps[j - 1];
			plan->steps[j - 1] = t;
		}
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
		r = add_candidates(&b, &algs, &n);
	for (size_t i = 0, j; r >= 0 && i < n; i = j) {
		j = group_end(algs, n, i);
		r = plan_name(&b, algs + i, j - i);
	}
	free(b.planned);
	free(b.candidates);
	if (r >= 0)
		r = recreate_retired(&b);
	if (r < 0)
		return r;
	instances_last(plan);
	*ret = steal_pointer(&plan);
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
