/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the calibration measures (calibrate.h): the implementations that
 * compete for a name, the CPU's candidate among them, in the order of tiers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate-internal.h"
#include "calibrate.h"
#include "composite.h"
#include "macro.h"
#include "pattern.h"
#include "planner.h"
#include "types.h"

/* "type not calibrated (only skcipher, ... and dh are)", of lib/types.c's rows */
static const char *not_calibrated(void)
{
	static char why[256];
	char names[192];

	if (!why[0])
		snprintf(why, sizeof(why), "type not calibrated (only %s are)",
			 cp_type_calibrated_names(names, sizeof(names)));
	return why;
}

const char *cp_calibration_skip_reason(const struct cp_alg *alg)
{
	if (!(alg->flags & CP_ALG_TESTED))
		return "not tested, or failed the kernel's self-test";
	if (alg->flags & CP_ALG_INTERNAL)
		return "internal: not served by name";
	if (!cp_alg_competes(alg))
		return "still being registered (larval)";
	if (strchr(alg->driver, '('))
		return "template instance: follows its parts";
	if (cp_mod_type_from_alg_type(alg->type) == CRYPTOPRIO_TYPE_UNSPEC)
		return not_calibrated();
	return cp_mod_unmeasured(cp_mod_type_from_alg_type(alg->type), alg->name);
}

/* The lowest-priority tested, synchronous, non-internal CPU implementation of @leaf. */
static const struct cp_alg *leaf_reference(const struct cp_inventory *inv, const char *leaf)
{
	const uint32_t exclude = CP_ALG_ASYNC | CP_ALG_KERN_DRIVER_ONLY | CP_ALG_INTERNAL;
	const struct cp_alg *best = NULL;

	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *alg = &inv->algs[i];

		if (!streq(alg->name, leaf) || (alg->flags & exclude) ||
		    !(alg->flags & CP_ALG_TESTED) || alg->class != CP_CLASS_CPU)
			continue;
		if (!best || alg->priority < best->priority)
			best = alg;
	}
	return best;
}

static int append(char *out, size_t size, size_t *pos, const char *s, size_t n)
{
	if (*pos + n >= size)
		return -ENAMETOOLONG;
	memcpy(out + *pos, s, n);
	*pos += n;
	out[*pos] = '\0';
	return 0;
}

/* Rewrite name[0..n) with every leaf replaced by its reference driver (as driver/kat.c). */
static int rewrite(const struct cp_inventory *inv, const char *name, size_t n, char *out,
		   size_t size, size_t *pos, int depth)
{
	const char *open = memchr(name, '(', n);
	size_t start, level = 0;
	int r;

	if (depth > 8 || n == 0)
		return -EINVAL;
	if (!open) {
		char leaf[CP_NAME_MAX];
		const struct cp_alg *ref;

		if (n >= sizeof(leaf))
			return -EINVAL;
		memcpy(leaf, name, n);
		leaf[n] = '\0';
		ref = leaf_reference(inv, leaf);
		if (!ref)
			return -ENOENT;
		return append(out, size, pos, ref->driver, strlen(ref->driver));
	}
	if (name[n - 1] != ')')
		return -EINVAL;
	start = (size_t) (open - name) + 1;
	r = append(out, size, pos, name, start);
	for (size_t i = start; r == 0 && i < n - 1; i++) {
		if (name[i] == '(')
			level++;
		else if (name[i] == ')' && level-- == 0)
			return -EINVAL;
		else if (name[i] == ',' && level == 0) {
			r = rewrite(inv, name + start, i - start, out, size, pos, depth + 1);
			if (r == 0)
				r = append(out, size, pos, ",", 1);
			start = i + 1;
		}
	}
	if (r == 0)
		r = rewrite(inv, name + start, n - 1 - start, out, size, pos, depth + 1);
	return r == 0 ? append(out, size, pos, ")", 1) : r;
}

int cp_reference_name(const struct cp_inventory *inv, const char *name, char *out, size_t size)
{
	size_t pos = 0;

	out[0] = '\0';
	return rewrite(inv, name, strlen(name), out, size, &pos, 0);
}

static bool pattern_matches(const struct cp_calibrate_options *opts, const struct cp_alg *alg)
{
	for (size_t i = 0; i < opts->n_patterns; i++)
		if (cp_pattern_match(opts->patterns[i], alg->name) ||
		    cp_pattern_match(opts->patterns[i], alg->driver))
			return true;
	return false;
}

bool cp_geniv_inner(const char *name, char inner[static CP_NAME_MAX])
{
	static const char *const wrappers[] = {"echainiv(", "seqiv("};
	size_t len = strlen(name);

	for (size_t i = 0; i < ARRAY_SIZE(wrappers); i++) {
		size_t w = strlen(wrappers[i]);

		if (len > w + 1 && strncmp(name, wrappers[i], w) == 0 && name[len - 1] == ')') {
			snprintf(inner, CP_NAME_MAX, "%.*s", (int) (len - w - 1), name + w);
			return true;
		}
	}
	return false;
}

/* The one implementation of @name that @module registers, or NULL. */
static const struct cp_alg *module_impl(const struct cp_inventory *inv, const char *name,
					const char *module)
{
	const struct cp_alg *found = NULL;

	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *alg = &inv->algs[i];

		if (!streq(alg->name, name) || !streq(alg->module, module) ||
		    cp_calibration_skip_reason(alg))
			continue;
		if (found)
			return NULL;
		found = alg;
	}
	return found;
}

/*
 * What the IV generator @alg, wrapping @inner_name, is measured as, into
 * @as: a candidate's or an instance's own X, or the X of the engine's
 * module; false if there is no such X.
 */
static bool measured_as(const struct cp_inventory *inv, const struct cp_alg *alg,
			const char *inner_name, bool candidate, char as[static CP_NAME_MAX])
{
	const struct cp_alg *inner;

	if (candidate || strchr(alg->driver, '('))
		return cp_geniv_inner(alg->driver, as);
	inner = module_impl(inv, inner_name, alg->module);
	if (inner)
		cp_strscpy(as, CP_NAME_MAX, inner->driver);
	return inner != NULL;
}

static int add_skipped(struct cp_calibration *cal, const struct cp_alg *alg, const char *reason)
{
	struct cp_skipped *skipped =
	    reallocarray(cal->skipped, cal->n_skipped + 1, sizeof(*skipped));

	if (!skipped)
		return -ENOMEM;
	cal->skipped = skipped;
	skipped[cal->n_skipped] = (struct cp_skipped){.reason = reason};
	cp_strscpy(skipped[cal->n_skipped].name, CP_NAME_MAX, alg->name);
	cp_strscpy(skipped[cal->n_skipped].driver, CP_NAME_MAX, alg->driver);
	cal->n_skipped++;
	return 0;
}

static int add_measured(struct cp_calibration *cal, const struct cp_inventory *inv,
			const struct cp_alg *alg, bool candidate,
			const struct cp_calibrate_options *opts)
{
	struct cp_measured *all = reallocarray(cal->measured, cal->n_measured + 1, sizeof(*all));
	char inner[CP_NAME_MAX];
	struct cp_measured *m;
	bool geniv;

	if (!all)
		return -ENOMEM;
	cal->measured = all;
	m = &all[cal->n_measured];
	*m = (struct cp_measured){.type = cp_mod_type_from_alg_type(alg->type),
				  .class = alg->class,
				  .kat = CRYPTOPRIO_KAT_UNSUPPORTED,
				  .candidate = candidate};
	cp_strscpy(m->name, sizeof(m->name), alg->name);
	cp_strscpy(m->driver, sizeof(m->driver), alg->driver);
	cp_strscpy(m->module, sizeof(m->module), alg->module);
	if (opts->policy) {
		struct cp_settings set;

		cp_policy_algorithm(opts->policy, alg->name, &set);
		m->gear = cp_plan_gear(opts->policy, &set, alg->driver, alg->class);
		m->verify_first = cp_plan_verifies_first(opts->policy, &set, alg);
	}
	geniv = cp_geniv_inner(alg->name, inner);
	if (geniv && !measured_as(inv, alg, inner, candidate, m->measured_as))
		return add_skipped(cal, alg,
				   "IV generator: measured as the X it wraps, which its module "
				   "does not register once");
	(void) cp_reference_name(inv, geniv ? inner : alg->name, m->reference,
				 sizeof(m->reference));
	m->points = calloc(opts->n_sizes, sizeof(*m->points));
	if (!m->points)
		return -ENOMEM;
	for (size_t i = 0; i < opts->n_sizes; i++)
		m->points[i] = (struct cp_point){
		    .size = opts->sizes[i], .depth = opts->depth, .verdict = CP_VERDICT_UNMEASURED};
	m->n_points = opts->n_sizes;
	cal->n_measured++;
	return 0;
}

/*
 * A registered template instance of class cpu where no other CPU
 * implementation of its name competes: the CPU's composite, created by
 * cryptoprio or by a user. Listed with the engines of its name when these
 * are measured, its figures from the cache only (cp_measured.cache_only),
 * where its candidate's are.
 */
static bool cpu_instance_measured(const struct cp_inventory *inv, const struct cp_alg *alg)
{
	const struct cp_type_info *type = cp_type_info(cp_mod_type_from_alg_type(alg->type));

	/* of a type whose algorithms the module names (rsa...), no instance is measured */
	if (!strchr(alg->driver, '(') || alg->class != CP_CLASS_CPU || !cp_alg_competes(alg) ||
	    !type || type->fixed)
		return false;
	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *other = &inv->algs[i];

		if (streq(other->name, alg->name) && other->class == CP_CLASS_CPU &&
		    !strchr(other->driver, '(') && cp_alg_competes(other))
			return false;
	}
	return true;
}

/* Whether @name was met before inv->algs[@i]: its group is then done. */
static bool seen_before(const struct cp_inventory *inv, size_t i)
{
	/* Adjacent in a loaded (sorted) inventory: most answers without the walk. */
	if (i > 0 && streq(inv->algs[i - 1].name, inv->algs[i].name))
		return true;
	for (size_t k = 0; k < i; k++)
		if (streq(inv->algs[k].name, inv->algs[i].name))
			return true;
	return false;
}

/*
 * The CPU's candidate for the name of inv->algs[@first], into @cand: where
 * an implementation competes for the name but none of class cpu is
 * registered, the composite of the CPU's parts (cp_composite_candidate()),
 * as the planner would place it.
 */
static bool group_candidate(const struct cp_inventory *inv, size_t first, struct cp_alg *cand)
{
	const struct cp_alg *alg = &inv->algs[first];

	if (!cp_inventory_winner(inv, alg->name))
		return false;
	*cand = (struct cp_alg){.flags = CP_ALG_TESTED, .class = CP_CLASS_CPU};
	if (cp_composite_candidate(inv, alg->name, cand->driver) < 0)
		return false;
	memcpy(cand->name, alg->name, sizeof(cand->name));
	memcpy(cand->type, alg->type, sizeof(cand->type));
	return true;
}

/* The registered implementations of @name that are run (a CPU instance, never run, is not). */
static size_t calibrable(const struct cp_inventory *inv, const char *name, size_t *first)
{
	size_t n = 0;

	*first = SIZE_MAX;
	for (size_t i = 0; i < inv->n_algs; i++) {
		if (!streq(inv->algs[i].name, name))
			continue;
		if (*first == SIZE_MAX)
			*first = i;
		n += !cp_calibration_skip_reason(&inv->algs[i]);
	}
	return n;
}

size_t cp_calibration_competitors(const struct cp_inventory *inv, const char *name)
{
	struct cp_alg cand;
	size_t first, n = calibrable(inv, name, &first);

	return first == SIZE_MAX ? 0 : n + group_candidate(inv, first, &cand);
}

/* Add the group of inv->algs[@first]'s name, its candidate (if @cand) last. */
static int select_group(const struct cp_inventory *inv, size_t first, const struct cp_alg *cand,
			const struct cp_calibrate_options *opts, struct cp_calibration *cal)
{
	const char *name = inv->algs[first].name;
	size_t first_of_name;
	int r = 0;

	if (!opts->n_patterns && calibrable(inv, name, &first_of_name) + (cand != NULL) < 2)
		return 0;
	for (size_t i = first; r >= 0 && i < inv->n_algs; i++) {
		const struct cp_alg *alg = &inv->algs[i];
		const char *reason;

		if (!streq(alg->name, name) || (opts->n_patterns && !pattern_matches(opts, alg)))
			continue;
		reason = cp_calibration_skip_reason(alg);
		/* Listed: calibrable, or the CPU's instance (cpu_instance_measured()). */
		if (!reason || cpu_instance_measured(inv, alg)) {
			r = add_measured(cal, inv, alg, false, opts);
			if (r >= 0 && reason)
				cal->measured[cal->n_measured - 1].cache_only = true;
		} else if (!(alg->flags & CP_ALG_INTERNAL) && !streq(alg->type, "larval") &&
			   !strchr(alg->driver, '('))
			r = add_skipped(cal, alg, reason); /* a failed self-test said too */
	}
	if (r >= 0 && cand && (!opts->n_patterns || pattern_matches(opts, cand)))
		r = add_measured(cal, inv, cand, true, opts);
	return r;
}

/*
 * The order names are measured in, so that a budget that runs out leaves
 * the least telling ones for later: where an engine competes with the
 * CPU and is the kernel's choice today (what cryptoprio exists to move),
 * where one competes with the CPU at all, the CPU against the CPU, then
 * the rest (engines against engines). Classes as detected.
 */
enum name_tier {
	TIER_ENGINE_WINS,
	TIER_ENGINE_AND_CPU,
	TIER_CPU_ONLY,
	TIER_OTHER,
	_TIER_MAX,
};

static enum name_tier name_tier(const struct cp_inventory *inv, const char *name,
				bool has_candidate)
{
	const struct cp_alg *winner = cp_inventory_winner(inv, name);
	size_t n_cpu = has_candidate;
	bool offload = false;

	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *alg = &inv->algs[i];

		if (!streq(alg->name, name) || cp_calibration_skip_reason(alg))
			continue;
		n_cpu += alg->class == CP_CLASS_CPU;
		offload |= alg->class == CP_CLASS_OFFLOAD;
	}
	if (n_cpu && offload)
		return winner && winner->class == CP_CLASS_OFFLOAD ? TIER_ENGINE_WINS
								   : TIER_ENGINE_AND_CPU;
	return n_cpu >= 2 ? TIER_CPU_ONLY : TIER_OTHER;
}

/*
 * Without patterns: every calibrable implementation of a name that has two
 * or more, the CPU's candidate for a name only engines serve counted. With
 * patterns: every calibrable implementation they match. Those that are
 * served by name (not internal) but cannot be calibrated, a failed
 * self-test among them, are listed with the reason. An implementation's
 * name group stays together, in the inventory's order; the groups in the
 * order of name_tier().
 */
int cp_calibration_select(const struct cp_inventory *inv, const struct cp_calibrate_options *opts,
			  struct cp_calibration *cal)
{
	/* Each name's tier, at its first entry (_TIER_MAX elsewhere): worked out once. */
	_cleanup_free_ enum name_tier *tiers = calloc(inv->n_algs + 1, sizeof(*tiers));
	_cleanup_free_ bool *candidate = calloc(inv->n_algs + 1, sizeof(*candidate));
	/* Written by group_candidate() where used: not cleared first. */
	_cleanup_free_ struct cp_alg *cands = malloc((inv->n_algs + 1) * sizeof(*cands));

	if (!tiers || !candidate || !cands)
		return -ENOMEM;
	for (size_t i = 0; i < inv->n_algs; i++) {
		tiers[i] = _TIER_MAX;
		if (seen_before(inv, i))
			continue;
		candidate[i] = !opts->without_candidates && group_candidate(inv, i, &cands[i]);
		tiers[i] = name_tier(inv, inv->algs[i].name, candidate[i]);
	}
	for (enum name_tier tier = 0; tier < _TIER_MAX; tier++)
		for (size_t i = 0; i < inv->n_algs; i++) {
			int r;

			if (tiers[i] != tier)
				continue;
			r = select_group(inv, i, candidate[i] ? &cands[i] : NULL, opts, cal);
			if (r < 0)
				return r;
		}
	return 0;
}

/*
 * The runs @m needs before its figure is compared: CP_RUNS_FIRST where
 * another implementation of its name is ranked in its gear; one where
 * its gear alone places it (the known answer checked, a figure shown),
 * since more runs would decide nothing.
 */
unsigned cp_calibration_runs_needed(const struct cp_calibration *cal, const struct cp_measured *m)
{
	if (m->gear == CP_GEAR_NONE)
		return 1;
	for (size_t i = 0; i < cal->n_measured; i++) {
		const struct cp_measured *o = &cal->measured[i];

		if (o != m && o->gear == m->gear && streq(o->name, m->name))
			return CP_RUNS_FIRST;
	}
	return 1;
}
