/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One name's candidates put in the desired order (tier, gear, figures
 * beyond noise), then given priorities that keep as many values as they can.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "macro.h"
#include "planner-internal.h"
#include "units.h"

/* ---- the desired order ---- */

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

/*
 * Sort key before the metric: tier, gear, engines held for want of a
 * verification after the rest of their gear, measured before not measured.
 */
static int bucket_cmp(const struct cand *a, const struct cand *b)
{
	if (a->tier != b->tier)
		return a->tier < b->tier ? -1 : 1;
	if (a->tier != TIER_GEARS)
		return 0;
	if (a->gear != b->gear)
		return a->gear < b->gear ? -1 : 1;
	if (a->held != b->held)
		return a->held ? 1 : -1;
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

static bool same_run(const struct cand *a, const struct cand *b)
{
	return a->measured && b->measured && bucket_cmp(a, b) == 0;
}

/*
 * Each run of measured candidates of one bucket (contiguous once sorted)
 * with a figure too noisy to decide is marked with its noisiest: such a
 * figure says more about the host's load than about the implementation,
 * so the run keeps the kernel's order. A run of one decides nothing.
 */
static void mark_noisy_runs(struct cand *c, size_t n)
{
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		const struct cand *noisiest = NULL;

		for (hi = lo + 1; hi < n && same_run(&c[hi], &c[lo]); hi++)
			;
		for (size_t k = lo; k < hi && hi - lo > 1; k++)
			if (c[k].too_noisy &&
			    (!noisiest || c[k].spread_share > noisiest->spread_share))
				noisiest = &c[k];
		for (size_t k = lo; noisiest && k < hi; k++) {
			c[k].noisy_driver = noisiest->alg->driver;
			c[k].noisy_share = noisiest->spread_share;
		}
	}
}

/*
 * Within a bucket of measured candidates, swap neighbours only when the
 * later one is better beyond noise, until no such pair is left. Each swap
 * puts a strictly better score first, so this ends; and an order that is
 * already the result has no such pair, so planning again changes nothing.
 * A run marked noisy is left as it is.
 */
static void rank_measured(struct cand *c, size_t n)
{
	bool swapped = true;

	mark_noisy_runs(c, n);
	while (swapped) {
		swapped = false;
		for (size_t i = 1; i < n; i++) {
			if (!same_run(&c[i], &c[i - 1]) || c[i].noisy_driver)
				continue;
			if (beyond_noise(&c[i], &c[i - 1])) {
				swap_cand(&c[i], &c[i - 1]);
				swapped = true;
			}
		}
	}
}

/* "(cpu), throughput 12.00 MB/s at 4 KiB, depth 1" after the gear, into @buf. */
static void format_figure(char *buf, size_t len, const struct cand *c, const struct cp_settings *s)
{
	char size[32], metric[64];

	cp_format_size(size, sizeof(size), s->request_size);
	format_metric(metric, sizeof(metric), c->rank_by, c->metric);
	snprintf(buf, len, "%s (%s), %s %s at %s, depth %u", gear_str(s, c),
		 cp_class_to_string(c->class), cp_rank_to_string(c->rank_by), metric, size,
		 s->in_flight);
}

/*
 * Each measured candidate's reason and why. A why is read in the plan's
 * table, its JSON, the state file and the daemon's journal, whatever the
 * locale of the process that wrote it: ASCII ("+-", not cp_glyph()'s
 * "\u00b1"), so that they all hold the same sentence.
 */
static void explain_measured(struct cand *c, size_t n, const struct cp_settings *s)
{
	char figure[160];

	for (size_t i = 0; i < n; i++) {
		const struct cand *tie = NULL;

		if (!c[i].measured || c[i].tier != TIER_GEARS || c[i].held)
			continue;
		format_figure(figure, sizeof(figure), &c[i], s);
		if (c[i].noisy_driver) {
			bool self = streq(c[i].noisy_driver, c[i].alg->driver);

			c[i].reason = CP_PLACE_TOO_NOISY;
			cp_plan_set_why(
			    c[i].why, sizeof(c[i].why),
			    "%s: %s%stoo noisy to decide: +-%.0f %%, kernel's order kept", figure,
			    self ? "" : c[i].noisy_driver, self ? "" : "'s figure ",
			    100 * c[i].noisy_share);
			continue;
		}
		if (i > 0 && same_run(&c[i], &c[i - 1]) && !beyond_noise(&c[i - 1], &c[i]))
			tie = &c[i - 1];
		else if (i + 1 < n && same_run(&c[i], &c[i + 1]) && !beyond_noise(&c[i], &c[i + 1]))
			tie = &c[i + 1];
		c[i].reason = tie ? CP_PLACE_WITHIN_NOISE : CP_PLACE_RANKED;
		cp_plan_set_why(c[i].why, sizeof(c[i].why), "%s%s%s%s", figure,
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
				if (cp_plan_add_note(
					b->plan,
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

/* The order and the new priorities: @c sorted in the new order. */
int cp_plan_place_cands(struct builder *b, const char *name, struct cand *c, size_t n,
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
