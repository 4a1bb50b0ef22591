/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The calibration engine: which implementations to measure, at which
 * points, through which backend, within a time budget, and from the cache
 * when the machine has not changed.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "calib-point.h"
#include "cpmod.h"
#include "inventory.h"
#include "policy.h"
#include "stats.h"

struct cp_cache;
struct cp_cache_key;

struct cp_measured {
	char name[CP_NAME_MAX], driver[CP_NAME_MAX], module[CP_NAME_MAX];
	char reference[CP_NAME_MAX];
	enum cryptoprio_type type;
	enum cp_class class; /* detected (a candidate: cpu) */
	/* Its gear under the options' policy (cp_plan_gear()); 0 without one. */
	unsigned gear;
	enum cp_backend backend;
	enum cryptoprio_kat kat;
	struct cp_verified verified; /* an engine's differential verification */
	struct cp_point *points;     /* n_points of them, in the options' order */
	size_t n_points;
	/*
	 * Not registered: the CPU's candidate for a name only engines serve
	 * (cp_composite_candidate()). The module creates the instance for each
	 * run and removes it, and whatever came with it, before it answers
	 * (cryptoprio(4)); AF_ALG could not remove it, so through AF_ALG a
	 * candidate is unreachable.
	 */
	bool candidate;
	/*
	 * An IV generator (echainiv(X), seqiv(X)) is measured as its X: its
	 * candidate's X, or the X of the same module. Creating the wrapper,
	 * or its known-answer reference, would set up the kernel's default
	 * RNG (and load drbg and its hashes), which cannot be undone. "": as
	 * itself.
	 */
	char measured_as[CP_NAME_MAX];
	/*
	 * A registered CPU instance standing for the CPU (one cryptoprio
	 * created): its figures come from the cache, where its candidate's
	 * are, and it is never run. On 7.2 a run of a registered authenc
	 * instance by its driver name unregistered it.
	 */
	bool cache_only;
	/*
	 * The budget ran out before its name's measurement at the workload
	 * point was done: what it has is used for this plan but not cached,
	 * and the name is measured again (after READY, by the daemon).
	 */
	bool pending;
	/*
	 * An engine the plan may place above the CPU unless its verification
	 * fails (cp_plan_verifies_first()): verified in this run even where
	 * the budget left its name pending. Other engines are verified after
	 * their name's measurement; at boot, after READY (verify_first_only).
	 */
	bool verify_first;
};

/*
 * Whether a point of @m measured in this run stayed too noisy to decide
 * (its too_noisy): used for this plan, which keeps the kernel's order for
 * it; measured again after READY, and at the next start.
 */
bool cp_measured_too_noisy(const struct cp_measured *m);

/* An implementation that competes for a name but is not calibrated, and why. */
struct cp_skipped {
	char name[CP_NAME_MAX], driver[CP_NAME_MAX];
	const char *reason;
};

struct cp_calibration {
	struct cp_measured *measured;
	size_t n_measured;
	struct cp_skipped *skipped;
	size_t n_skipped;
	enum cp_backend backend;
	int module_error;	 /* why the module was not used (negative errno), or 0 */
	uint64_t elapsed_ns;	 /* wall time of this calibration */
	size_t n_from_cache;	 /* points taken from the cache */
	size_t n_run;		 /* points measured now */
	size_t n_unmeasured;	 /* points the budget left out */
	size_t n_pending_names;	 /* names whose measurement the budget cut short */
	size_t n_cut_short;	 /* of n_run, points of those names: shown, not cached */
	size_t n_noisy_names;	 /* names measured now whose figures stayed too noisy to decide */
	size_t n_unverified;	 /* engines that want verification still (verify_first_only) */
	char cache_warning[256]; /* why the cache file was ignored, or "" */
	time_t cache_oldest;	 /* measurement time of the oldest cached point used */
	bool cache_updated;	 /* points measured now went into the cache */
	/*
	 * Template instances AF_ALG registered that could not be removed
	 * (held, or crypto_user refused): SIZE_MAX when none could be looked for.
	 */
	size_t n_instances_left;
};

struct cp_progress {
	size_t done, total;
	const char *driver;
	uint32_t size;
};

struct cp_calibrate_options {
	char *const *patterns; /* fnmatch over names and drivers; none: all */
	size_t n_patterns;
	const uint32_t *sizes; /* the ladder; the workload size is measured first */
	size_t n_sizes;
	uint32_t workload_size;
	uint32_t depth;
	uint64_t budget_ns;
	/*
	 * Whose gears and Rank= say when the order of a name is known (NULL:
	 * one gear, by throughput). At the workload point each name is
	 * measured until the implementations of each gear are apart beyond
	 * noise (cp_stat_noise()), or until they have CP_STAT_MAX_RUNS runs or
	 * the name's share of what is left of the budget is spent.
	 */
	const struct cp_policy *policy;
	/*
	 * Give every selected point its first runs whatever the budget, which
	 * then bounds only the further runs: the daemon's measurements after
	 * READY, which nothing waits for.
	 */
	bool finish;
	/*
	 * Verify only the engines the plan may place above the CPU
	 * (verify_first), whose verdict it needs: the others stay unverified,
	 * their figures used and cached, counted in n_unverified (the
	 * daemon's start, which READY=1 waits for: it verifies them after).
	 * Without it every engine measured or cached is verified.
	 */
	bool verify_first_only;
	bool force;	 /* measure again even if cached */
	bool cache_only; /* measure nothing: the cache or UNMEASURED (Calibrate=cached) */
	/*
	 * No CPU candidate: a name has the competitors it has registered. For
	 * names whose gears, not figures, place the candidate.
	 */
	bool without_candidates;
	const char *cache_path; /* NULL: no cache */
	/*
	 * The cache as the caller loaded it from cache_path, when it reads the
	 * file once for several calls: read and updated here, saved by the
	 * caller (cp_calibration_cache_unsaved() if that fails). cache_error:
	 * why the load failed (the cache is then empty), for the warning.
	 * NULL: loaded from cache_path here, and saved here when updated.
	 */
	struct cp_cache *cache;
	int cache_error;
	enum cp_backend backend; /* NONE: the module if loaded, else AF_ALG */
	void (*progress)(const struct cp_progress *progress, void *userdata);
	void *userdata;
};

int cp_calibrate(const struct cp_inventory *inv, const struct cp_calibrate_options *opts,
		 struct cp_calibration *cal);
/* Say in @cal->cache_warning that the cache at @path could not be saved (@error). */
void cp_calibration_cache_unsaved(struct cp_calibration *cal, const char *path, int error);
void cp_calibration_free(struct cp_calibration *cal);

/*
 * The cache's key for @m's points: its driver, its module (none for a
 * template instance, whose parts are in its name, so that a candidate and
 * the instance created from it share it), the machine's identity.
 */
int cp_measured_cache_key(const struct cp_measured *m, struct cp_cache_key *key);
/*
 * What @cal measured or verified now and trusts, put into @cache as its
 * entries (measured at @now; a figure from the cache newly verified keeps
 * its time): not a known-answer mismatch, not a name the budget cut short,
 * not a point with fewer runs than its gear needs. The number of entries
 * put, or a negative errno.
 */
int cp_calibration_cache_put(const struct cp_calibration *cal, time_t now, struct cp_cache *cache);
/* @m's passed verification as its cache entries keep it; zeroed if it has none. */
struct cp_cache_verified;
void cp_measured_cache_verified(const struct cp_measured *m, struct cp_cache_verified *v);

/* One implementation's figure at a point, as its name's order is decided. */
struct cp_rank_figure {
	unsigned gear; /* CP_GEAR_NONE: not ranked (Pin=, Priority=, Exclude=) */
	bool measured; /* false: placed by its verdict, not by figures */
	double value;  /* the rank metric (larger or smaller better: it does not matter here) */
	double noise;
	bool too_noisy; /* cp_stat_too_noisy() */
};

/*
 * Whether the order of @n implementations of one name is known: each pair
 * of @f in the same gear apart beyond their noise, and neither too noisy
 * to decide (those of a gear with such a figure are marked in @noisy).
 * Those still within noise of another, or noisy, are marked in @again.
 * Pure (unit-tested).
 */
bool cp_calibration_order_known(size_t n, const struct cp_rank_figure *f, bool *again, bool *noisy);

/* Whether the module verifies implementations of @type (VERIFY): its row says (types.c). */
bool cp_verification_covers(enum cryptoprio_type type);
/*
 * An engine (not of the CPU's class) of a type the module verifies, not
 * verified yet in this calibration and not found faulty by its figures;
 * its name measured in this run (not pending), unless verify_first.
 */
bool cp_measured_wants_verification(const struct cp_measured *m);
/* The loaded cryptoprio module's srcversion into @by; "" when not loaded. */
void cp_verifier_srcversion(char by[static 33]);

/* The end of the run of entries of measured[@first]'s name (each name's entries are together). */
size_t cp_calibration_name_end(const struct cp_calibration *cal, size_t first);

const struct cp_measured *cp_calibration_find(const struct cp_calibration *cal, const char *driver);
const struct cp_point *cp_measured_point(const struct cp_measured *m, uint32_t size,
					 uint32_t depth);

/*
 * Budget accounting, pure (unit-tested): the slice of the next run when
 * @left_ns of the budget remain for @runs_left planned runs that each cost
 * @overhead_ns beyond their slice (scaled by @scale for longer refining
 * runs), clamped to CP_SLICE_MIN_NS..CP_SLICE_MAX_NS; 0 when not even the
 * shortest run fits. And the module's grace for a run of @slice_ns: four
 * slices, at least CP_GRACE_MIN_NS, at most what is left and the module's
 * maximum.
 */
#define CP_SLICE_MIN_NS 2000000ull
#define CP_SLICE_MAX_NS 100000000ull
#define CP_GRACE_MIN_NS 250000000ull /* >= CRYPTOPRIO_MIN_GRACE_NS */
#define CP_RUNS_FIRST	3	     /* runs of each point before any is compared */
uint64_t cp_calibration_slice(uint64_t left_ns, size_t runs_left, unsigned scale,
			      uint64_t overhead_ns);
uint64_t cp_calibration_grace(uint64_t left_ns, uint64_t slice_ns);

/*
 * How many implementations of @name a calibration without patterns runs
 * (it measures none of fewer than two): the calibrable ones and the CPU's
 * candidate. A registered CPU instance standing for the CPU is listed with
 * them, from the cache only: it does not count. On 7.2 the known-answer
 * reference of an engine's authenc retires the CPU's registered one.
 */
size_t cp_calibration_competitors(const struct cp_inventory *inv, const char *name);

/* Whether @alg is calibrated at all, or the reason it is not (NULL: it is). */
const char *cp_calibration_skip_reason(const struct cp_alg *alg);

/* The known-answer reference for @name (cryptoprio(4)): leaves replaced by their generic driver. */
int cp_reference_name(const struct cp_inventory *inv, const char *name, char *out, size_t size);
