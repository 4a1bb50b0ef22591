/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The planner (cryptoprio.conf(5)): a pure function from the inventory,
 * the measurements and the effective policy to a plan. No I/O, no clock.
 */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inventory.h"
#include "policy.h"

enum cp_measurement_state {
	CP_MEASUREMENT_NOT_MEASURED, /* no run yet (or Calibrate = never) */
	CP_MEASUREMENT_MEASURED,
	CP_MEASUREMENT_FAULTY,	    /* known-answer mismatch or failed verification: never preferred
				       (unless Verify = no) */
	CP_MEASUREMENT_TIMEOUT,	    /* a request never completed: never preferred */
	CP_MEASUREMENT_UNREACHABLE, /* no backend can reach it (AF_ALG on >= 7.2): as not measured
				     */
};

/* A value and its noise: two values are within noise when |a - b| <= a.noise + b.noise. */
struct cp_metric {
	double value;
	double noise;	/* absolute, same unit as value (e.g. the spread of the runs) */
	double spread;	/* half the range of the runs, for people */
	bool too_noisy; /* cp_stat_too_noisy(): it decides no order (CP_PLACE_TOO_NOISY) */
};

/* One driver measured at one workload point (request size, depth). */
struct cp_measurement {
	char driver[CP_NAME_MAX];
	uint32_t request_size; /* bytes */
	uint32_t in_flight;
	enum cp_measurement_state state;
	struct cp_metric throughput; /* MB/s, higher is better */
	struct cp_metric latency;    /* ns per request, lower is better */
	struct cp_metric cpu_cost;   /* CPU ns per byte, lower is better */
	struct cp_metric ratio; /* a compressor's compression ratio, higher is better; 0: none */
	/*
	 * The module's verification of an engine (calibrate-verify.c): @verified
	 * once it passed. @verification: FAULTY by a failed verification, its
	 * first failing case ("": a known-answer mismatch); not verified, why.
	 */
	bool verified;
	char verification[384];
};

/* A place's reason: "verification failed: never preferred (" and the failure, at most. */
#define CP_PLACE_WHY_MAX 448
/* A step's reason: "lowered below X, lost its place to Y: " and the place's. */
#define CP_STEP_WHY_MAX 640

/* Why an implementation got its place in the order of its name. */
enum cp_place_reason {
	CP_PLACE_PINNED_FIRST,
	CP_PLACE_RANKED,       /* by the rank metric, beyond noise */
	CP_PLACE_WITHIN_NOISE, /* measured, within noise of a neighbour: the kernel's order kept */
	CP_PLACE_TOO_NOISY,    /* measured, but a figure of its gear too noisy to decide
				  (cp_metric.too_noisy): the kernel's order kept in the gear */
	CP_PLACE_NOT_MEASURED, /* in its gear, after the measured ones, kernel's order */
	CP_PLACE_CLASS_ONLY, /* single-block cipher, or no measurements: by gear, kernel's order */
	CP_PLACE_FIXED,	     /* Priority= in the policy: placed by that value */
	CP_PLACE_SHARED,     /* planned under another name first: that value kept */
	CP_PLACE_UNVERIFIED, /* an engine not verified (yet): never above the CPU */
	CP_PLACE_PINNED_LAST,
	CP_PLACE_FAULTY,   /* known-answer mismatch, failed verification or timeout */
	CP_PLACE_EXCLUDED, /* Exclude = yes */
};

struct cp_plan_place {
	char driver[CP_NAME_MAX];
	enum cp_class class; /* after Class= */
	unsigned gear;	     /* 0 = first gear; with Gears = any always 0 */
	uint32_t old_priority;
	uint32_t new_priority;
	enum cp_place_reason reason;
	char why[CP_PLACE_WHY_MAX]; /* for people: "gear 1 (cpu), 1107 MB/s at 4 KiB, depth 1" */
	/*
	 * Not registered: the CPU's composite for a name only engines serve
	 * (cp_composite_candidate()), to be created by a CP_STEP_CREATE step.
	 * Its old_priority is 0. Only planned where it comes first.
	 */
	bool create;
};

/* The desired order of one algorithm name, best first (a place to create included). */
struct cp_plan_algorithm {
	char name[CP_NAME_MAX];
	char type[CP_NAME_MAX];
	struct cp_settings settings; /* what the policy says for this name */
	struct cp_plan_place *places;
	size_t n_places;
};

/*
 * What a created instance that cannot be removed (in use) is lowered to:
 * the lowest value the kernel stores, so that it wins no lookup while any
 * other implementation of its name has a higher one.
 */
#define CP_IN_USE_PRIORITY 0u

enum cp_step_action {
	CP_STEP_SET,	/* new priority differs from the old one */
	CP_STEP_TOUCH,	/* same value, but it lost its place: UPDATEALG so the kernel retires
			   the template instances built on it */
	CP_STEP_CREATE, /* the CPU's composite, not registered: NEWALG at new_priority;
			   creates come last, the parts of an instance before it (an
			   UPDATEALG retires the instances built on its driver) */
	CP_STEP_REMOVE, /* an instance cryptoprio created that no longer comes first: DELALG;
			   in use, lowered to new_priority (CP_IN_USE_PRIORITY); these
			   come after the sets, an instance before those it is built on */
};

struct cp_plan_step {
	char driver[CP_NAME_MAX];
	char name[CP_NAME_MAX];
	enum cp_class class;
	enum cp_step_action action;
	uint32_t old_priority;
	uint32_t new_priority;	   /* <= INT_MAX */
	char why[CP_STEP_WHY_MAX]; /* the move, then the place's own why */
};

struct cp_plan {
	struct cp_plan_algorithm *algorithms; /* names with two or more competing implementations
						 (a candidate to create counts), or with a fixed
						 Priority=; sorted by name */
	size_t n_algorithms;
	struct cp_plan_step *steps; /* per driver, at most once; sorted by name, then new order */
	size_t n_steps;
	char **notes; /* conflicts resolved, drivers not ready (not self-tested yet), ... */
	size_t n_notes;
};

/*
 * Build the plan. @measurements may be NULL with n == 0; the one matching a
 * driver at its name's RequestSize and InFlight is used, others are
 * ignored. A name only engines serve (after Class=) gets the CPU's
 * candidate as one more place, ranked and matched by [Driver] rules like
 * the others by its driver name; it is created only where it comes first.
 * Returns 0 or -ENOMEM; *ret is released with cp_plan_free().
 */
int cp_plan_build(const struct cp_inventory *inventory, const struct cp_measurement *measurements,
		  size_t n_measurements, const struct cp_policy *policy, struct cp_plan **ret);

/*
 * The same, knowing the @n_created template instances cryptoprio created
 * (the state file's, by driver name). A registered one is planned as its
 * name's CPU candidate would be (ordered after the registered ones where
 * the policy leaves the kernel's order): kept where it comes first, given a
 * CP_STEP_REMOVE step where it does not, and its name planned without it.
 */
int cp_plan_build_created(const struct cp_inventory *inventory,
			  const struct cp_measurement *measurements, size_t n_measurements,
			  const struct cp_policy *policy, char *const *created, size_t n_created,
			  struct cp_plan **ret);
void cp_plan_free(struct cp_plan *plan);

/*
 * The gear @driver (of detected class @class) is ranked in under @s and
 * the [Driver] rules of @policy, or CP_GEAR_NONE where its place does not
 * follow its figures (Pin=, Priority=, Exclude=). Only implementations of
 * one gear are ordered by their figures: calibration measures a name until
 * those are apart beyond noise.
 */
#define CP_GEAR_NONE UINT_MAX
unsigned cp_plan_gear(const struct cp_policy *policy, const struct cp_settings *s,
		      const char *driver, enum cp_class class);

/*
 * Whether @alg, under @s of its name, is placed above the CPU only once
 * the calibration has verified it (cryptoprio.conf(5), Verify=): an engine
 * of a type the calibration verifies, whose gear is not after the CPU's,
 * placed by its gear (no Pin=, Priority= or Exclude=).
 */
bool cp_plan_wants_verification(const struct cp_policy *policy, const struct cp_settings *s,
				const struct cp_alg *alg);
/*
 * Whether the plan may place @alg above the CPU unless its verification
 * fails: cp_plan_wants_verification(), or Pin=first or Priority= with
 * Verify= on (a failure makes any engine faulty, placed last). Such an
 * engine is verified before it serves (cp_measured.verify_first).
 */
bool cp_plan_verifies_first(const struct cp_policy *policy, const struct cp_settings *s,
			    const struct cp_alg *alg);

static inline void cp_plan_freep(struct cp_plan **p)
{
	if (*p)
		cp_plan_free(*p);
}

/* The step for @driver, or NULL if the plan leaves it alone. */
const struct cp_plan_step *cp_plan_find_step(const struct cp_plan *plan, const char *driver);
const struct cp_plan_algorithm *cp_plan_find_algorithm(const struct cp_plan *plan,
						       const char *name);

/*
 * Whether a driver name is a template instance ("cbc(aes-generic)",
 * "authenc(hmac(sha256-generic),cbc-aes-aesni)"): TEMPLATE(...) with the
 * parentheses balanced and closing at the end. Those follow their parts.
 */
bool cp_driver_is_template_instance(const char *driver);

/*
 * Whether the planner orders implementations of inventory type @type
 * ("skcipher", "acomp"...); those of other types keep the kernel's order.
 */
bool cp_plan_orders_type(const char *type);

const char *cp_measurement_state_to_string(enum cp_measurement_state state);
const char *cp_place_reason_to_string(enum cp_place_reason reason);
const char *cp_step_action_to_string(enum cp_step_action action);
