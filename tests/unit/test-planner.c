/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The planner on table-driven scenarios built from the published
 * measurements (LX2160A CAAM, STM32MP157 CRYP, Allwinner A20 SS), and
 * on pins, excludes, fixed priorities, noise, faults, shared drivers,
 * bounds and idempotence.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "planner.h"
#include "policy.h"
#include "policy-fixture.h"
#include "tap.h"

#define TESTED CP_ALG_TESTED
#define CPU    CP_CLASS_CPU
#define OFF    CP_CLASS_OFFLOAD

struct row {
	const char *name, *driver, *type;
	uint32_t priority;
	enum cp_class class;
	uint32_t flags;
};

static void inventory_from(struct cp_inventory *inv, const struct row *rows, size_t n)
{
	*inv = (struct cp_inventory){};
	for (size_t i = 0; i < n; i++) {
		struct cp_alg a = {
		    .priority = rows[i].priority,
		    .class = rows[i].class,
		    .flags = rows[i].flags,
		};

		snprintf(a.name, sizeof(a.name), "%s", rows[i].name);
		snprintf(a.driver, sizeof(a.driver), "%s", rows[i].driver);
		snprintf(a.type, sizeof(a.type), "%s", rows[i].type);
		snprintf(a.module, sizeof(a.module), "kernel");
		if (cp_inventory_add(inv, &a) < 0)
			abort();
	}
}

/* A measurement of an implementation that passed the module's verification, if an engine. */
static struct cp_measurement tput(const char *driver, uint32_t size, uint32_t depth, double mbps,
				  double noise)
{
	struct cp_measurement m = {
	    .request_size = size,
	    .in_flight = depth,
	    .state = CP_MEASUREMENT_MEASURED,
	    .verified = true,
	    .throughput = {mbps, noise},
	    /* Derived so latency and CPU cost rank the same way unless a test says otherwise. */
	    .latency = {size * 1000.0 / mbps, 0},
	    .cpu_cost = {1000.0 / mbps, 0},
	};

	snprintf(m.driver, sizeof(m.driver), "%s", driver);
	return m;
}

static struct cp_measurement with_state(struct cp_measurement m, enum cp_measurement_state s)
{
	m.state = s;
	return m;
}

/* @m of an engine the module did not verify, and why ("": nothing says). */
static struct cp_measurement unverified(struct cp_measurement m, const char *why)
{
	m.verified = false;
	snprintf(m.verification, sizeof(m.verification), "%s", why);
	return m;
}

static struct cp_plan *plan_of(const struct cp_inventory *inv, const struct cp_measurement *ms,
			       size_t n, const struct cp_policy *p)
{
	struct cp_plan *plan = NULL;

	if (cp_plan_build(inv, ms, n, p, &plan) < 0)
		abort();
	for (size_t i = 0; i < plan->n_steps; i++)
		diag("  %s %s %s: %u -> %u (%s)", plan->steps[i].name, plan->steps[i].driver,
		     cp_step_action_to_string(plan->steps[i].action), plan->steps[i].old_priority,
		     plan->steps[i].new_priority, plan->steps[i].why);
	return plan;
}

static const char *place(const struct cp_plan *plan, const char *name, size_t i)
{
	const struct cp_plan_algorithm *a = cp_plan_find_algorithm(plan, name);

	return a && i < a->n_places ? a->places[i].driver : "(none)";
}

static int reason(const struct cp_plan *plan, const char *name, size_t i)
{
	const struct cp_plan_algorithm *a = cp_plan_find_algorithm(plan, name);

	return a && i < a->n_places ? (int) a->places[i].reason : -1;
}

static long long new_prio(const struct cp_plan *plan, const char *driver)
{
	const struct cp_plan_step *s = cp_plan_find_step(plan, driver);

	return s ? (long long) s->new_priority : -1;
}

static void apply(struct cp_inventory *inv, const struct cp_plan *plan)
{
	for (size_t i = 0; i < plan->n_steps; i++)
		for (size_t j = 0; j < inv->n_algs; j++)
			if (strcmp(inv->algs[j].driver, plan->steps[i].driver) == 0)
				inv->algs[j].priority = plan->steps[i].new_priority;
}

/* The kernel's winner of @name: highest priority, first registered on ties. */
static const char *winner(const struct cp_inventory *inv, const char *name)
{
	const struct cp_alg *w = cp_inventory_winner(inv, name);

	return w ? w->driver : "(none)";
}

/* Apply, check the winner, and plan again: nothing left to do. Two tests. */
static void apply_and_replan(struct cp_inventory *inv, const struct cp_plan *plan,
			     const struct cp_measurement *ms, size_t n, const struct cp_policy *p,
			     const char *name, const char *want, const char *what)
{
	_cleanup_(cp_plan_freep) struct cp_plan *again = NULL;

	apply(inv, plan);
	is_str(winner(inv, name), want, "%s: after apply the kernel hands out %s", what,
	       want ? want : "nothing");
	if (cp_plan_build(inv, ms, n, p, &again) < 0)
		abort();
	is_int(again->n_steps, 0, "%s: planning again changes nothing", what);
}

/* Every planned name's new priorities strictly decrease and stay in 0..INT_MAX. */
static bool strictly_ordered(const struct cp_plan *plan)
{
	for (size_t a = 0; a < plan->n_algorithms; a++) {
		const struct cp_plan_algorithm *alg = &plan->algorithms[a];

		for (size_t i = 0; i < alg->n_places; i++) {
			if (alg->places[i].new_priority > INT_MAX)
				return false;
			if (i > 0 && alg->places[i].new_priority >= alg->places[i - 1].new_priority)
				return false;
		}
	}
	return true;
}

/* LX2160A, AES-128-GCM at 4 KiB (caam-qi2-priority-lx2160a.txt). */
static const struct row lx2160a[] = {
    {"gcm(aes)", "gcm-aes-caam-qi2", "aead", 2000, OFF, TESTED | CP_ALG_ASYNC},
    {"gcm(aes)", "gcm-aes-ce", "aead", 300, CPU, TESTED},
    {"gcm(aes)", "gcm_base(ctr-aes-ce,ghash-ce)", "aead", 300, CPU, TESTED},
    {"aes", "aes-ce", "cipher", 250, CPU, TESTED},
    {"aes", "aes-arm64", "cipher", 200, CPU, TESTED},
    {"aes", "aes-generic", "cipher", 100, CPU, TESTED},
};

static void test_lx2160a(void)
{
	const struct cp_measurement ms[] = {
	    tput("gcm-aes-ce", 4096, 1, 1107, 15),
	    tput("gcm-aes-caam-qi2", 4096, 1, 128, 4),
	    tput("gcm-aes-ce", 4096, 32, 1107, 15),
	    tput("gcm-aes-caam-qi2", 4096, 32, 418, 8),
	};
	struct {
		const char *policy, *first, *second;
		long long caam_new, ce_new; /* -1: no step */
		const char *what;
	} cases[] = {
	    {NULL, "gcm-aes-ce", "gcm-aes-caam-qi2", 299, -1, "default: CAAM lowered under CE"},
	    {"[Policy]\nGears = offload cpu\n", "gcm-aes-caam-qi2", "gcm-aes-ce", -1, -1,
	     "offload first: already so, nothing to do"},
	    {"[Algorithm gcm(aes)]\nGears = any\nInFlight = 32\n", "gcm-aes-ce", "gcm-aes-caam-qi2",
	     299, -1, "any gear, 32 in flight: CE 1107 beats CAAM 418"},
	    {"[Policy]\nGears = any\nRank = cpu-cost\n", "gcm-aes-ce", "gcm-aes-caam-qi2", 299, -1,
	     "any gear by CPU cost: CE"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_(cp_policy_freep) struct cp_policy *p = policy_from(cases[i].policy);
		_cleanup_(cp_plan_freep) struct cp_plan *plan = NULL;
		struct cp_inventory inv;

		inventory_from(&inv, lx2160a, ARRAY_SIZE(lx2160a));
		plan = plan_of(&inv, ms, ARRAY_SIZE(ms), p);
		is_str(place(plan, "gcm(aes)", 0), cases[i].first, "LX2160A %s: first",
		       cases[i].what);
		is_str(place(plan, "gcm(aes)", 1), cases[i].second, "LX2160A %s: second",
		       cases[i].what);
		is_int(new_prio(plan, "gcm-aes-caam-qi2"), cases[i].caam_new, "LX2160A %s: CAAM",
		       cases[i].what);
		is_int(new_prio(plan, "gcm-aes-ce"), cases[i].ce_new,
		       "LX2160A %s: CE keeps its value", cases[i].what);
		is_int(cp_plan_find_algorithm(plan, "gcm(aes)")->n_places, 2,
		       "LX2160A %s: the gcm_base() instance is not planned", cases[i].what);
		apply_and_replan(&inv, plan, ms, ARRAY_SIZE(ms), p, "gcm(aes)", cases[i].first,
				 cases[i].what);
		cp_inventory_free(&inv);
	}
}

/*
 * A compressor engine (Intel IAA's deflate shape): faster than the CPU at
 * 4 KiB, with a worse ratio (fixed Huffman codes). Rank = throughput puts
 * it first under Gears = any, Rank = ratio the CPU's; on a cipher
 * Rank = ratio ranks by throughput.
 */
static void test_compressor(void)
{
	static const struct row rows[] = {
	    {"deflate", "deflate-iaa", "acomp", 300, OFF, TESTED | CP_ALG_ASYNC},
	    {"deflate", "deflate-scomp", "scomp", 0, CPU, TESTED},
	    {"deflate", "deflate-generic", "compression", 0, CPU, TESTED}, /* Linux 6.1 */
	    {"cbc(aes)", "cbc-aes-engine", "skcipher", 300, OFF, TESTED | CP_ALG_ASYNC},
	    {"cbc(aes)", "cbc-aes-aesni", "skcipher", 400, CPU, TESTED},
	};
	struct cp_measurement ms[] = {
	    tput("deflate-iaa", 4096, 1, 1800, 20),
	    tput("deflate-scomp", 4096, 1, 60, 2),
	    tput("cbc-aes-engine", 4096, 1, 900, 10),
	    tput("cbc-aes-aesni", 4096, 1, 300, 5),
	};
	struct {
		const char *policy, *deflate_first, *cbc_first;
	} cases[] = {
	    {"[Policy]\nGears = any\n", "deflate-iaa", "cbc-aes-engine"},
	    {"[Policy]\nGears = any\nRank = ratio\n", "deflate-scomp", "cbc-aes-engine"},
	    {"[Policy]\nRank = ratio\n", "deflate-scomp", "cbc-aes-aesni"},
	};

	ms[0].ratio = (struct cp_metric){1.9, 0};
	ms[1].ratio = (struct cp_metric){2.6, 0};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_(cp_policy_freep) struct cp_policy *p = policy_from(cases[i].policy);
		_cleanup_(cp_plan_freep) struct cp_plan *plan = NULL;
		struct cp_inventory inv;

		inventory_from(&inv, rows, ARRAY_SIZE(rows));
		plan = plan_of(&inv, ms, ARRAY_SIZE(ms), p);
		is_str(place(plan, "deflate", 0), cases[i].deflate_first,
		       "compressor case %zu: deflate's first", i);
		is_str(place(plan, "cbc(aes)", 0), cases[i].cbc_first,
		       "compressor case %zu: cbc(aes)'s first", i);
		is_int(cp_plan_find_algorithm(plan, "deflate")->n_places, 2,
		       "compressor case %zu: the older compression type is not planned", i);
		apply_and_replan(&inv, plan, ms, ARRAY_SIZE(ms), p, "deflate",
				 cases[i].deflate_first, "compressor");
		cp_inventory_free(&inv);
	}
	/* Without its ratio (an older cache), a compressor is not ranked by it. */
	{
		_cleanup_(cp_policy_freep) struct cp_policy *p =
		    policy_from("[Policy]\nGears = any\nRank = ratio\n");
		_cleanup_(cp_plan_freep) struct cp_plan *plan = NULL;
		struct cp_inventory inv;

		ms[0].ratio = ms[1].ratio = (struct cp_metric){0, 0};
		inventory_from(&inv, rows, ARRAY_SIZE(rows));
		plan = plan_of(&inv, ms, ARRAY_SIZE(ms), p);
		is_int(reason(plan, "deflate", 0), CP_PLACE_NOT_MEASURED,
		       "compressors without a ratio: not measured by Rank = ratio");
		cp_inventory_free(&inv);
	}
}

/* STM32MP157, AES-256-CBC through AF_ALG (fscrypt-offload-stm32-table.txt). */
static void test_stm32(void)
{
	static const struct row rows[] = {
	    {"cbc(aes)", "stm32-cbc-aes", "skcipher", 3000, OFF, TESTED | CP_ALG_ASYNC},
	    {"cbc(aes)", "cbc-aes-neonbs", "skcipher", 250, CPU, TESTED},
	};
	static const struct {
		uint32_t size;
		double engine, cpu;
	} table[] = {
	    {16, 0.09, 9.44},	 {64, 0.34, 11.43},    {256, 1.31, 12.08},
	    {1024, 4.96, 12.27}, {8192, 18.18, 12.33}, {16384, 22.48, 12.33},
	};
	struct cp_measurement ms[2 * ARRAY_SIZE(table)];
	struct {
		const char *policy, *first;
		int first_reason;
	} cases[] = {
	    {"[Policy]\nGears = any\nRequestSize = 16\n", "cbc-aes-neonbs", CP_PLACE_RANKED},
	    {"[Policy]\nGears = any\nRequestSize = 1K\n", "cbc-aes-neonbs", CP_PLACE_RANKED},
	    {"[Policy]\nGears = any\nRequestSize = 8K\n", "stm32-cbc-aes", CP_PLACE_RANKED},
	    {"[Algorithm cbc(aes)]\nGears = any\nRequestSize = 16KiB\n", "stm32-cbc-aes",
	     CP_PLACE_RANKED},
	    {"[Policy]\nRequestSize = 16K\n", "cbc-aes-neonbs", CP_PLACE_RANKED},
	    {"[Driver stm32-cbc-aes]\nPin = first\n[Policy]\nGears = any\nRequestSize = 16\n",
	     "stm32-cbc-aes", CP_PLACE_PINNED_FIRST},
	};

	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		ms[2 * i] = tput("stm32-cbc-aes", table[i].size, 1, table[i].engine,
				 table[i].engine * 0.02);
		ms[2 * i + 1] =
		    tput("cbc-aes-neonbs", table[i].size, 1, table[i].cpu, table[i].cpu * 0.02);
	}
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_(cp_policy_freep) struct cp_policy *p = policy_from(cases[i].policy);
		_cleanup_(cp_plan_freep) struct cp_plan *plan = NULL;
		struct cp_inventory inv;

		inventory_from(&inv, rows, ARRAY_SIZE(rows));
		plan = plan_of(&inv, ms, ARRAY_SIZE(ms), p);
		is_str(place(plan, "cbc(aes)", 0), cases[i].first, "STM32 case %zu: %s first", i,
		       cases[i].first);
		is_int(reason(plan, "cbc(aes)", 0), cases[i].first_reason,
		       "STM32 case %zu: reason of the first place", i);
		apply_and_replan(&inv, plan, ms, ARRAY_SIZE(ms), p, "cbc(aes)", cases[i].first,
				 "STM32");
		cp_inventory_free(&inv);
	}
}

/*
 * Allwinner A20 SS, one request at a time (allwinner-ss-driver-benchmarks.txt):
 * requests per second turned into MB/s, 1 % noise per value, Gears = any.
 * The SS registers at 300 above the generic code, so ties keep the SS.
 */
static void test_allwinner(void)
{
	static const struct row rows[] = {
	    {"md5", "sun4i-ss-md5", "shash", 300, OFF, TESTED},
	    {"md5", "md5-generic", "shash", 0, CPU, TESTED},
	    {"sha1", "sun4i-ss-sha1", "shash", 300, OFF, TESTED},
	    {"sha1", "sha1-generic", "shash", 100, CPU, TESTED},
	    {"cbc(aes)", "cbc-aes-sun4i-ss", "skcipher", 300, OFF, TESTED},
	    {"cbc(aes)", "cbc-aes-arm", "skcipher", 200, CPU, TESTED},
	};
	static const struct {
		const char *name, *cpu, *engine;
		uint32_t size;
		double cpu_rps, engine_rps;
		const char *want;
		int reason;
	} table[] = {
	    {"md5", "md5-generic", "sun4i-ss-md5", 16, 12293.938, 11992.881, "md5-generic",
	     CP_PLACE_RANKED},
	    {"md5", "md5-generic", "sun4i-ss-md5", 256, 11543.198, 11531.246, "sun4i-ss-md5",
	     CP_PLACE_WITHIN_NOISE},
	    {"md5", "md5-generic", "sun4i-ss-md5", 1024, 10453.221, 10704.541, "sun4i-ss-md5",
	     CP_PLACE_RANKED},
	    {"md5", "md5-generic", "sun4i-ss-md5", 1048576, 76.762, 114.666, "sun4i-ss-md5",
	     CP_PLACE_RANKED},
	    {"sha1", "sha1-generic", "sun4i-ss-sha1", 16, 11428.022, 11245.963, "sun4i-ss-sha1",
	     CP_PLACE_WITHIN_NOISE},
	    {"sha1", "sha1-generic", "sun4i-ss-sha1", 32, 12140.770, 11866.112, "sha1-generic",
	     CP_PLACE_RANKED},
	    {"sha1", "sha1-generic", "sun4i-ss-sha1", 1024, 9521.489, 10674.192, "sun4i-ss-sha1",
	     CP_PLACE_RANKED},
	    {"cbc(aes)", "cbc-aes-arm", "cbc-aes-sun4i-ss", 16, 78147.773, 72520.0, "cbc-aes-arm",
	     CP_PLACE_RANKED},
	    {"cbc(aes)", "cbc-aes-arm", "cbc-aes-sun4i-ss", 64, 66093.805, 68477.297,
	     "cbc-aes-sun4i-ss", CP_PLACE_RANKED},
	    {"cbc(aes)", "cbc-aes-arm", "cbc-aes-sun4i-ss", 1024, 16061.986, 22217.877,
	     "cbc-aes-sun4i-ss", CP_PLACE_RANKED},
	};

	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		_cleanup_(cp_plan_freep) struct cp_plan *plan = NULL;
		_cleanup_(cp_policy_freep) struct cp_policy *p = NULL;
		double cpu = table[i].cpu_rps * table[i].size / 1e6;
		double engine = table[i].engine_rps * table[i].size / 1e6;
		struct cp_measurement ms[2] = {
		    tput(table[i].cpu, table[i].size, 1, cpu, cpu * 0.01),
		    tput(table[i].engine, table[i].size, 1, engine, engine * 0.01),
		};
		struct cp_inventory inv;
		char text[128];

		snprintf(text, sizeof(text), "[Algorithm %s]\nGears = any\nRequestSize = %u\n",
			 table[i].name, table[i].size);
		p = policy_from(text);
		inventory_from(&inv, rows, ARRAY_SIZE(rows));
		plan = plan_of(&inv, ms, 2, p);
		is_str(place(plan, table[i].name, 0), table[i].want, "A20 %s at %u B: %s first",
		       table[i].name, table[i].size, table[i].want);
		is_int(reason(plan, table[i].name, 0), table[i].reason, "A20 %s at %u B: reason %s",
		       table[i].name, table[i].size, cp_place_reason_to_string(table[i].reason));
		apply_and_replan(&inv, plan, ms, 2, p, table[i].name, table[i].want, "A20");
		cp_inventory_free(&inv);
	}
}

/* Pins, excludes by glob, Pin=last, fixed priorities (and two asking for the same value). */
static void test_policy_rules(void)
{
	static const struct row rows[] = {
	    {"xts(aes)", "xts-aes-caam", "skcipher", 3000, OFF, TESTED},
	    {"xts(aes)", "xts-aes-caam-qi2", "skcipher", 2000, OFF, TESTED},
	    {"xts(aes)", "xts-aes-ce", "skcipher", 300, CPU, TESTED},
	    {"xts(aes)", "xts-aes-neonbs", "skcipher", 250, CPU, TESTED},
	    {"xts(aes)", "xts(ecb(aes-generic))", "skcipher", 100, CPU, TESTED},
	};
	_cleanup_(cp_policy_freep) struct cp_policy *p = NULL;
	_cleanup_(cp_plan_freep) struct cp_plan *plan = NULL;
	struct cp_inventory inv;

	inventory_from(&inv, rows, ARRAY_SIZE(rows));
	p = policy_from("[Driver *-caam*]\nExclude = yes\n[Driver xts-aes-neonbs]\nPin = first\n");
	plan = plan_of(&inv, NULL, 0, p);
	is_str(place(plan, "xts(aes)", 0), "xts-aes-neonbs", "Pin=first: neonbs first");
	is_str(place(plan, "xts(aes)", 1), "xts-aes-ce", "then the CPU gear");
	is_int(reason(plan, "xts(aes)", 3), CP_PLACE_EXCLUDED, "glob exclude: CAAM last");
	is_int(reason(plan, "xts(aes)", 2), CP_PLACE_EXCLUDED, "glob exclude: CAAM QI2 last");
	is_int(new_prio(plan, "xts-aes-neonbs"), -1,
	       "Pin=first: the winner keeps 250, losers move");
	is_int(new_prio(plan, "xts-aes-ce"), 249, "CE lowered just under the pinned one");
	ok(strictly_ordered(plan), "strictly ordered");
	apply_and_replan(&inv, plan, NULL, 0, p, "xts(aes)", "xts-aes-neonbs", "pin+exclude");
	cp_plan_free(plan);
	cp_policy_free(p);
	cp_inventory_free(&inv);

	inventory_from(&inv, rows, ARRAY_SIZE(rows));
	p = policy_from("[Driver xts-aes-caam]\nPriority = 5000\n[Driver xts-aes-caam-qi2]\n"
			"Priority = 5000\n[Driver xts-aes-ce]\nPin = last\n");
	plan = plan_of(&inv, NULL, 0, p);
	is_int(new_prio(plan, "xts-aes-caam"), 5000, "Priority=5000 honoured");
	is_int(new_prio(plan, "xts-aes-caam-qi2"), 4999, "the same value asked twice: no tie");
	is_int(reason(plan, "xts(aes)", 0), CP_PLACE_FIXED, "fixed priority reason");
	ok(plan->n_notes >= 1 && strstr(plan->notes[0], "already taken"), "the tie is noted");
	is_str(place(plan, "xts(aes)", 3), "xts-aes-ce", "Pin=last: CE last");
	is_int(reason(plan, "xts(aes)", 3), CP_PLACE_PINNED_LAST, "Pin=last reason");
	ok(strictly_ordered(plan), "strictly ordered with fixed values");
	apply_and_replan(&inv, plan, NULL, 0, p, "xts(aes)", "xts-aes-caam", "fixed");
	cp_plan_free(plan);
	plan = NULL;
	cp_inventory_free(&inv);
}

/* Within noise the kernel's order stays; beyond it the better one wins. */
static void test_noise(void)
{
	static const struct row rows[] = {
	    {"ctr(aes)", "ctr-aes-aesni", "skcipher", 400, CPU, TESTED},
	    {"ctr(aes)", "ctr-aes-avx", "skcipher", 300, CPU, TESTED},
	};
	const struct cp_measurement tie[] = {
	    tput("ctr-aes-aesni", 4096, 1, 1000, 30),
	    tput("ctr-aes-avx", 4096, 1, 1050, 30),
	};
	const struct cp_measurement beyond[] = {
	    tput("ctr-aes-aesni", 4096, 1, 1000, 10),
	    tput("ctr-aes-avx", 4096, 1, 1050, 10),
	};
	_cleanup_(cp_policy_freep) struct cp_policy *p = policy_from(NULL);
	struct cp_inventory inv;
	struct cp_plan *plan;

	inventory_from(&inv, rows, ARRAY_SIZE(rows));
	plan = plan_of(&inv, tie, ARRAY_SIZE(tie), p);
	is_str(place(plan, "ctr(aes)", 0), "ctr-aes-aesni",
	       "50 MB/s apart, 60 of noise: kernel's order");
	is_int(reason(plan, "ctr(aes)", 0), CP_PLACE_WITHIN_NOISE, "reason: within noise");
	is_int(plan->n_steps, 0, "within noise: nothing to do");
	cp_plan_free(plan);

	plan = plan_of(&inv, beyond, ARRAY_SIZE(beyond), p);
	is_str(place(plan, "ctr(aes)", 0), "ctr-aes-avx", "50 MB/s apart, 20 of noise: the faster");
	is_int(new_prio(plan, "ctr-aes-aesni"), 299, "the old winner lowered under 300");
	is_int(cp_plan_find_step(plan, "ctr-aes-aesni")->action, CP_STEP_SET, "a set step");
	apply_and_replan(&inv, plan, beyond, ARRAY_SIZE(beyond), p, "ctr(aes)", "ctr-aes-avx",
			 "noise");
	cp_plan_free(plan);
	cp_inventory_free(&inv);
}

/* @m's throughput too noisy to decide, its runs spread by +-@spread. */
static struct cp_measurement too_noisy(struct cp_measurement m, double spread)
{
	m.throughput.spread = spread;
	m.throughput.too_noisy = true;
	return m;
}

static const char *why_at(const struct cp_plan *plan, const char *name, size_t i)
{
	const struct cp_plan_algorithm *a = cp_plan_find_algorithm(plan, name);

	return a && i < a->n_places ? a->places[i].why : "(none)";
}

/*
 * A figure too noisy to decide (the host's load, not the implementation)
 * reorders nothing in its gear, whichever side it favours; in a gear of
 * its own it decides nothing anyway.
 */
static void test_too_noisy(void)
{
	static const struct row rows[] = {
	    {"cbc(aes)", "cbc-aes-aesni", "skcipher", 400, CPU, TESTED},
	    {"cbc(aes)", "virtio_crypto_aes_cbc", "skcipher", 150, OFF, TESTED},
	};
	const struct cp_measurement noisy_engine[] = {
	    tput("cbc-aes-aesni", 65536, 8, 400, 20),
	    too_noisy(tput("virtio_crypto_aes_cbc", 65536, 8, 6.52, 3), 78.55),
	};
	const struct cp_measurement noisy_cpu[] = {
	    too_noisy(tput("cbc-aes-aesni", 65536, 8, 10, 6), 6),
	    tput("virtio_crypto_aes_cbc", 65536, 8, 357, 10),
	};
	const struct cp_measurement quiet[] = {
	    tput("cbc-aes-aesni", 65536, 8, 70, 2),
	    tput("virtio_crypto_aes_cbc", 65536, 8, 357, 10),
	};
	_cleanup_(cp_policy_freep) struct cp_policy *any =
	    policy_from("[Algorithm cbc(aes)]\nGears = any\nRequestSize = 64K\nInFlight = 8\n");
	_cleanup_(cp_policy_freep) struct cp_policy *offload_first =
	    policy_from("[Algorithm cbc(aes)]\nGears = offload cpu\nVerify = no\n"
			"RequestSize = 64K\nInFlight = 8\n");
	struct cp_inventory inv;
	struct cp_plan *plan;

	inventory_from(&inv, rows, ARRAY_SIZE(rows));
	plan = plan_of(&inv, noisy_engine, ARRAY_SIZE(noisy_engine), any);
	is_int(plan->n_steps, 0, "an engine's figure 6.52+-78.55, too noisy: nothing moves");
	is_str(place(plan, "cbc(aes)", 1), "virtio_crypto_aes_cbc", "the kernel's order kept");
	is_int(reason(plan, "cbc(aes)", 1), CP_PLACE_TOO_NOISY, "reason: too noisy");
	ok(strstr(why_at(plan, "cbc(aes)", 1), ": too noisy to decide: +-1205 %, kernel's order"),
	   "its why: %s", why_at(plan, "cbc(aes)", 1));
	is_int(reason(plan, "cbc(aes)", 0), CP_PLACE_TOO_NOISY, "its neighbours too");
	ok(strstr(why_at(plan, "cbc(aes)", 0), "virtio_crypto_aes_cbc's figure too noisy"),
	   "their why names it: %s", why_at(plan, "cbc(aes)", 0));
	cp_plan_free(plan);

	plan = plan_of(&inv, noisy_cpu, ARRAY_SIZE(noisy_cpu), any);
	is_int(plan->n_steps, 0, "the CPU's figure noisy, the engine's clear: nothing moves");
	is_str(place(plan, "cbc(aes)", 0), "cbc-aes-aesni", "the CPU kept first");
	ok(strstr(why_at(plan, "cbc(aes)", 0), "+-60 %"), "the CPU's own share: %s",
	   why_at(plan, "cbc(aes)", 0));
	cp_plan_free(plan);

	plan = plan_of(&inv, quiet, ARRAY_SIZE(quiet), any);
	is_str(place(plan, "cbc(aes)", 0), "virtio_crypto_aes_cbc", "quiet figures rank");
	is_int(reason(plan, "cbc(aes)", 0), CP_PLACE_RANKED, "reason: ranked");
	cp_plan_free(plan);

	plan = plan_of(&inv, noisy_engine, ARRAY_SIZE(noisy_engine), offload_first);
	is_str(place(plan, "cbc(aes)", 0), "virtio_crypto_aes_cbc",
	       "the engine alone in its gear: the gear places it, noisy or not");
	is_int(reason(plan, "cbc(aes)", 0), CP_PLACE_RANKED, "not a noise reason there");
	is_str(place(plan, "cbc(aes)", 1), "cbc-aes-aesni", "the CPU's gear ranked as before");
	is_int(reason(plan, "cbc(aes)", 1), CP_PLACE_RANKED, "its figures are quiet");
	cp_plan_free(plan);
	cp_inventory_free(&inv);
}

/* A failed verification: faulty as a mismatch is, its first failing case in the why. */
static void test_faulty_by_verification(const struct cp_inventory *inv)
{
	struct cp_measurement ms[] = {
	    tput("virtio_crypto_aes_cbc", 4096, 1, 18.7, 1),
	    tput("cbc-aes-aesni", 4096, 1, 44.5, 1),
	    with_state(tput("cpfault-cbc-aes", 4096, 1, 900, 1), CP_MEASUREMENT_FAULTY),
	};
	const struct cp_plan_step *step;
	struct cp_policy *p = policy_from("[Policy]\nGears = offload cpu\n");
	struct cp_plan *plan;

	snprintf(ms[2].verification, sizeof(ms[2].verification),
		 "case 7 of seed 42: encrypt 100 bytes, 16-byte key, in place, src one entry at "
		 "offset 0: output differs from the reference's from byte 96");
	plan = plan_of(inv, ms, ARRAY_SIZE(ms), p);
	is_str(place(plan, "cbc(aes)", 2), "cpfault-cbc-aes",
	       "failed verification: last although the policy prefers engines");
	step = cp_plan_find_step(plan, "cpfault-cbc-aes");
	ok(step && strstr(step->why, "verification failed: never preferred (case 7 of seed 42: "),
	   "its step names the failing case: %s", step ? step->why : "(none)");
	cp_plan_free(plan);
	cp_policy_free(p);
}

/*
 * An engine of a type the module verifies is above the CPU only once it
 * passed: held after the CPU under Gears = offload cpu and Gears = any,
 * with the reason in its why; not with Verify = no, not for a type the
 * module does not verify, and the default gears do not change.
 */
static void test_unverified(void)
{
	static const struct row rows[] = {
	    {"cbc(aes)", "virtio_crypto_aes_cbc", "skcipher", 150, OFF, TESTED | CP_ALG_ASYNC},
	    {"cbc(aes)", "cbc-aes-aesni", "skcipher", 400, CPU, TESTED},
	    {"aes", "aes-engine", "cipher", 300, OFF, TESTED},
	    {"aes", "aes-generic", "cipher", 100, CPU, TESTED},
	};
	const char *why = "the cryptoprio module is not loaded (No such file or directory)";
	const struct cp_measurement not_run[] = {
	    unverified(tput("virtio_crypto_aes_cbc", 4096, 1, 900, 10), why),
	    tput("cbc-aes-aesni", 4096, 1, 300, 5),
	};
	const struct cp_measurement passed[] = {
	    tput("virtio_crypto_aes_cbc", 4096, 1, 900, 10),
	    tput("cbc-aes-aesni", 4096, 1, 300, 5),
	};
	static const struct {
		const char *policy;
		bool passed; /* else not run, or no measurement at all with Calibrate = never */
		const char *first;
		int engine_reason;
		const char *engine_why;
	} cases[] = {
	    {"[Policy]\nGears = offload cpu\n", false, "cbc-aes-aesni", CP_PLACE_UNVERIFIED,
	     "first gear (offload), not verified: after the CPU (the cryptoprio module is not "
	     "loaded"},
	    {"[Policy]\nGears = any\n", false, "cbc-aes-aesni", CP_PLACE_UNVERIFIED,
	     "one gear (offload), not verified: after the CPU (the cryptoprio module"},
	    {"[Policy]\nGears = offload cpu\nCalibrate = never\n", false, "cbc-aes-aesni",
	     CP_PLACE_UNVERIFIED, "not verified: after the CPU (no verification on record)"},
	    {"[Policy]\nGears = offload cpu\nVerify = no\n", false, "virtio_crypto_aes_cbc",
	     CP_PLACE_RANKED, "first gear (offload), throughput 900.00 MB/s"},
	    {"[Policy]\n", false, "cbc-aes-aesni", CP_PLACE_RANKED, "second gear (offload)"},
	    {"[Policy]\nGears = offload cpu\n", true, "virtio_crypto_aes_cbc", CP_PLACE_RANKED,
	     "first gear (offload), throughput 900.00 MB/s"},
	    {"[Policy]\nGears = any\n", true, "virtio_crypto_aes_cbc", CP_PLACE_RANKED,
	     "one gear (offload), throughput 900.00 MB/s"},
	};
	struct cp_inventory inv;

	inventory_from(&inv, rows, ARRAY_SIZE(rows));
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_(cp_policy_freep) struct cp_policy *p = policy_from(cases[i].policy);
		bool none = strstr(cases[i].policy, "never");
		_cleanup_(cp_plan_freep) struct cp_plan *plan =
		    cases[i].passed ? plan_of(&inv, passed, ARRAY_SIZE(passed), p)
				    : plan_of(&inv, not_run, none ? 0 : ARRAY_SIZE(not_run), p);
		const struct cp_plan_algorithm *a = cp_plan_find_algorithm(plan, "cbc(aes)");
		const struct cp_plan_place *engine = NULL;

		for (size_t k = 0; a && k < a->n_places; k++)
			if (streq(a->places[k].driver, "virtio_crypto_aes_cbc"))
				engine = &a->places[k];
		is_str(place(plan, "cbc(aes)", 0), cases[i].first, "unverified, case %zu: %s first",
		       i, cases[i].first);
		is_int(engine ? (int) engine->reason : -1, cases[i].engine_reason,
		       "unverified, case %zu: the engine's reason", i);
		ok(engine && strstr(engine->why, cases[i].engine_why),
		   "unverified, case %zu: its why says '%s': %s", i, cases[i].engine_why,
		   engine ? engine->why : "(none)");
		if (!cases[i].passed && strstr(cases[i].policy, "offload cpu"))
			is_str(place(plan, "aes", 0), "aes-engine",
			       "unverified, case %zu: a single-block cipher's engine (a type not "
			       "verified) first as the gears say",
			       i);
	}
	cp_inventory_free(&inv);
}

/* Faulty and hanging drivers go last whatever they measure; Verify = no ignores mismatches. */
static void test_faulty(void)
{
	static const struct row rows[] = {
	    {"cbc(aes)", "virtio_crypto_aes_cbc", "skcipher", 3000, OFF, TESTED | CP_ALG_ASYNC},
	    {"cbc(aes)", "cbc-aes-aesni", "skcipher", 400, CPU, TESTED},
	    {"cbc(aes)", "cpfault-cbc-aes", "skcipher", 5000, OFF, TESTED | CP_ALG_ASYNC},
	};
	const struct cp_measurement ms[] = {
	    tput("virtio_crypto_aes_cbc", 4096, 1, 18.7, 1),
	    tput("cbc-aes-aesni", 4096, 1, 44.5, 1),
	    with_state(tput("cpfault-cbc-aes", 4096, 1, 900, 1), CP_MEASUREMENT_FAULTY),
	    with_state(tput("virtio_crypto_aes_cbc", 65536, 1, 0, 0), CP_MEASUREMENT_TIMEOUT),
	};
	const struct cp_plan_step *step;
	struct cp_inventory inv;
	struct cp_plan *plan;
	struct cp_policy *p;

	inventory_from(&inv, rows, ARRAY_SIZE(rows));
	p = policy_from("[Policy]\nGears = any\n[Driver cpfault-*]\nPin = first\n");
	plan = plan_of(&inv, ms, ARRAY_SIZE(ms), p);
	is_str(place(plan, "cbc(aes)", 0), "cbc-aes-aesni", "faulty and timed out: aesni first");
	is_str(place(plan, "cbc(aes)", 1), "cpfault-cbc-aes",
	       "mismatch behind aesni even when pinned");
	is_int(reason(plan, "cbc(aes)", 1), CP_PLACE_FAULTY, "reason: faulty");
	is_str(place(plan, "cbc(aes)", 2), "virtio_crypto_aes_cbc", "faulty ones in kernel order");
	is_int(reason(plan, "cbc(aes)", 2), CP_PLACE_FAULTY,
	       "a timeout at 64 KiB counts as faulty");
	is_int(new_prio(plan, "cbc-aes-aesni"), -1, "aesni keeps 400");
	ok(strictly_ordered(plan), "strictly ordered");
	/* The step says why the place, not only the move (the daemon logs this). */
	step = cp_plan_find_step(plan, "cpfault-cbc-aes");
	ok(step && strstr(step->why, "lowered below cbc-aes-aesni") &&
	       strstr(step->why, "known-answer mismatch: never preferred"),
	   "the faulty driver's step names the mismatch: %s", step ? step->why : "(none)");
	step = cp_plan_find_step(plan, "virtio_crypto_aes_cbc");
	ok(step && strstr(step->why, "a request timed out: never preferred"),
	   "the timed-out driver's step names the timeout: %s", step ? step->why : "(none)");
	cp_plan_free(plan);
	cp_policy_free(p);

	p = policy_from("[Policy]\nGears = any\nVerify = no\n");
	plan = plan_of(&inv, ms, ARRAY_SIZE(ms) - 1, p);
	is_str(place(plan, "cbc(aes)", 0), "cpfault-cbc-aes",
	       "Verify=no: the mismatch is not held");
	cp_plan_free(plan);
	cp_policy_free(p);
	test_faulty_by_verification(&inv);
	cp_inventory_free(&inv);
}

/*
 * The default policy on the VM's kernel with virtio-crypto raised to 3000:
 * aesni wins by gear, and the old winner is lowered. Touch: when the winner
 * cannot keep its value (0, nothing fits under it) it is raised, and the
 * losers that keep their values are still updated, so the kernel retires the
 * template instances built on them.
 */
static void test_touch(void)
{
	static const struct row rows[] = {
	    {"cbc(aes)", "virtio_crypto_aes_cbc", "skcipher", 3000, OFF, TESTED | CP_ALG_ASYNC},
	    {"cbc(aes)", "cbc-aes-aesni", "skcipher", 400, CPU, TESTED},
	    {"cbc(aes)", "cbc(aes-generic)", "skcipher", 100, CPU, TESTED},
	    {"cbc(des)", "cbc-des-engine", "skcipher", 300, OFF, TESTED},
	    {"cbc(des)", "cbc-des-engine2", "skcipher", 200, OFF, TESTED},
	    {"cbc(des)", "cbc-des-cpu", "skcipher", 0, CPU, TESTED},
	};
	_cleanup_(cp_policy_freep) struct cp_policy *p = policy_from(NULL);
	struct cp_inventory inv;
	struct cp_plan *plan;
	const struct cp_plan_step *s;

	inventory_from(&inv, rows, ARRAY_SIZE(rows));
	plan = plan_of(&inv, NULL, 0, p);
	is_str(place(plan, "cbc(aes)", 0), "cbc-aes-aesni", "default policy: aesni first");
	is_int(new_prio(plan, "virtio_crypto_aes_cbc"), 399, "virtio-crypto lowered to 399");
	is_int(new_prio(plan, "cbc-aes-aesni"), -1, "aesni keeps 400");
	is_str(place(plan, "cbc(des)", 0), "cbc-des-cpu", "cbc(des): CPU first");
	is_int(new_prio(plan, "cbc-des-cpu"), 301, "the winner at 0 raised just above 300");
	s = cp_plan_find_step(plan, "cbc-des-engine");
	ok(s && s->action == CP_STEP_TOUCH && s->new_priority == 300,
	   "cbc-des-engine lost its place but keeps 300: touched");
	ok(s && strstr(s->why, "retires template instances"), "the touch says why");
	s = cp_plan_find_step(plan, "cbc-des-engine2");
	ok(s && s->action == CP_STEP_TOUCH && s->new_priority == 200, "cbc-des-engine2 touched");
	apply_and_replan(&inv, plan, NULL, 0, p, "cbc(des)", "cbc-des-cpu", "touch");
	cp_plan_free(plan);
	cp_inventory_free(&inv);
}

/*
 * The base cipher "aes" under many templates: planned once under its own
 * name, by class only (measurements ignored); template instances built on it
 * are not planned. A driver listed under two names is planned under the
 * first and kept at that value under the second.
 */
static void test_shared(void)
{
	static const struct row rows[] = {
	    {"aes", "aes-caam", "cipher", 3000, OFF, TESTED},
	    {"aes", "aes-ce", "cipher", 300, CPU, TESTED},
	    {"aes", "aes-generic", "cipher", 100, CPU, TESTED},
	    {"cbc(aes)", "cbc(aes-caam)", "skcipher", 3000, OFF, TESTED},
	    {"xts(aes)", "xts(ecb(aes-caam))", "skcipher", 3000, OFF, TESTED},
	    {"x(y)", "shared-drv", "skcipher", 500, OFF, TESTED},
	    {"x(y)", "x-cpu", "skcipher", 100, CPU, TESTED},
	    {"z(y)", "shared-drv", "skcipher", 500, OFF, TESTED},
	    {"z(y)", "z-cpu", "skcipher", 600, CPU, TESTED},
	};
	const struct cp_measurement ms[] = {
	    tput("aes-caam", 4096, 1, 5000, 1),
	    tput("aes-ce", 4096, 1, 10, 1),
	};
	_cleanup_(cp_policy_freep) struct cp_policy *p = NULL;
	struct cp_inventory inv;
	struct cp_plan *plan;
	size_t caam_steps = 0;

	inventory_from(&inv, rows, ARRAY_SIZE(rows));
	p = policy_from("[Policy]\nGears = any\n[Algorithm x(y)]\nGears = cpu offload\n"
			"[Algorithm z(y)]\nGears = offload cpu\n");
	plan = plan_of(&inv, ms, ARRAY_SIZE(ms), p);
	is_str(place(plan, "aes", 0), "aes-caam",
	       "cipher, Gears=any: kernel's order, not the metric");
	is_int(reason(plan, "aes", 0), CP_PLACE_CLASS_ONLY, "cipher: by class only");
	ok(!cp_plan_find_algorithm(plan, "cbc(aes)") && !cp_plan_find_algorithm(plan, "xts(aes)"),
	   "template instances on the base cipher are not planned");
	for (size_t i = 0; i < plan->n_steps; i++)
		caam_steps += strstr(plan->steps[i].driver, "caam") != NULL;
	is_int(caam_steps, 0, "nothing touches the CAAM template instances directly");
	is_int(new_prio(plan, "shared-drv"), 99, "shared-drv planned under x(y): under x-cpu");
	is_int(reason(plan, "z(y)", 1), CP_PLACE_SHARED, "under z(y) it keeps that value");
	is_int(plan->n_notes, 1, "the shared driver is noted");
	ok(plan->n_notes == 1 && strstr(plan->notes[0], "shared-drv serves both x(y) and z(y)"),
	   "the note names both");
	cp_plan_free(plan);
	cp_policy_free(p);

	p = policy_from(NULL);
	plan = plan_of(&inv, ms, ARRAY_SIZE(ms), p);
	is_str(place(plan, "aes", 0), "aes-ce", "cipher, default gears: CPU first");
	is_str(place(plan, "aes", 2), "aes-caam", "cipher, default gears: offload second");
	is_int(new_prio(plan, "aes-caam"), 99, "aes-caam lowered under aes-generic");
	cp_plan_free(plan);
	cp_inventory_free(&inv);
}

/* Bounds: a winner at INT_MAX, losers at 0, and values the kernel cannot hold. */
static void test_bounds(void)
{
	static const struct row rows[] = {
	    {"a", "a-engine", "skcipher", INT_MAX, OFF, TESTED},
	    {"a", "a-cpu", "skcipher", 0, CPU, TESTED},
	    {"b", "b-cpu", "skcipher", INT_MAX, CPU, TESTED},
	    {"b", "b-engine1", "skcipher", 0, OFF, TESTED},
	    {"b", "b-engine2", "skcipher", 0, OFF, TESTED},
	    {"c", "c-cpu", "skcipher", 0, CPU, TESTED},
	    {"c", "c-engine", "skcipher", 0, OFF, TESTED},
	    {"d", "d-engine", "skcipher", 4294967295u, OFF, TESTED},
	    {"d", "d-cpu", "skcipher", 4294967294u, CPU, TESTED},
	};
	_cleanup_(cp_policy_freep) struct cp_policy *p = policy_from(NULL);
	struct cp_inventory inv;
	struct cp_plan *plan;

	inventory_from(&inv, rows, ARRAY_SIZE(rows));
	plan = plan_of(&inv, NULL, 0, p);
	is_str(place(plan, "a", 0), "a-cpu", "a: CPU first");
	ok(strictly_ordered(plan), "every name strictly ordered within 0..INT_MAX");
	is_int(new_prio(plan, "a-cpu"), 1, "a: the winner at 0 goes to 1");
	is_int(new_prio(plan, "a-engine"), 0, "a: the engine from INT_MAX to 0");
	is_int(new_prio(plan, "b-cpu"), -1, "b: the winner at INT_MAX keeps it");
	is_int(new_prio(plan, "b-engine1"), 1, "b: tie at 0 broken just above the last one");
	is_int(new_prio(plan, "b-engine2"), -1, "b: the last one keeps 0");
	is_int(new_prio(plan, "c-cpu"), 1, "c: tie at 0 broken, CPU raised to 1");
	is_int(new_prio(plan, "c-engine"), -1, "c: engine keeps 0 and its place: no step");
	ok(new_prio(plan, "d-cpu") >= 0 && new_prio(plan, "d-cpu") <= INT_MAX &&
	       new_prio(plan, "d-engine") < new_prio(plan, "d-cpu"),
	   "d: values beyond INT_MAX brought back into range");
	apply_and_replan(&inv, plan, NULL, 0, p, "d", "d-cpu", "bounds");
	cp_plan_free(plan);
	cp_inventory_free(&inv);
}

/* Calibrate=never orders by class alone; unmeasured after measured; readiness notes. */
static void test_misc(void)
{
	static const struct row rows[] = {
	    {"sha256", "sha256-engine", "ahash", 400, OFF, TESTED},
	    {"sha256", "sha256-ni", "shash", 250, CPU, TESTED},
	    {"sha256", "sha256-avx2", "shash", 170, CPU, TESTED},
	    {"sha256", "sha256-late", "ahash", 9000, OFF, 0},
	    {"sha256", "__sha256-internal", "shash", 9000, CPU, TESTED | CP_ALG_INTERNAL},
	};
	const struct cp_measurement ms[] = {
	    tput("sha256-avx2", 4096, 1, 900, 5),
	    tput("sha256-engine", 4096, 1, 5000, 5),
	};
	struct cp_inventory inv;
	struct cp_policy *p;
	struct cp_plan *plan;

	inventory_from(&inv, rows, ARRAY_SIZE(rows));
	p = policy_from("[Policy]\nCalibrate = never\n");
	plan = plan_of(&inv, ms, ARRAY_SIZE(ms), p);
	is_str(place(plan, "sha256", 0), "sha256-ni", "Calibrate=never: CPU gear, kernel order");
	is_int(reason(plan, "sha256", 0), CP_PLACE_CLASS_ONLY, "Calibrate=never: class only");
	is_int(cp_plan_find_algorithm(plan, "sha256")->n_places, 3,
	       "untested and internal implementations are not planned");
	ok(plan->n_notes == 1 && strstr(plan->notes[0], "sha256-late"),
	   "the untested one is noted to look at again");
	cp_plan_free(plan);
	cp_policy_free(p);

	p = policy_from("[Policy]\nGears = any\n");
	plan = plan_of(&inv, ms, ARRAY_SIZE(ms), p);
	is_str(place(plan, "sha256", 0), "sha256-engine", "any gear: measured engine first");
	is_str(place(plan, "sha256", 1), "sha256-avx2", "measured before unmeasured");
	is_int(reason(plan, "sha256", 2), CP_PLACE_NOT_MEASURED, "sha256-ni not measured: last");
	apply_and_replan(&inv, plan, ms, ARRAY_SIZE(ms), p, "sha256", "sha256-engine", "misc");
	cp_plan_free(plan);
	cp_policy_free(p);
	cp_inventory_free(&inv);

	ok(cp_driver_is_template_instance("authenc(hmac(sha256-generic),cbc-aes-aesni)"),
	   "authenc(...) is a template instance");
	ok(cp_driver_is_template_instance("gcm_base(ctr(aes-generic),ghash-generic)"),
	   "gcm_base(...) is a template instance");
	ok(!cp_driver_is_template_instance("cbc(aes)-foo") &&
	       !cp_driver_is_template_instance("cbc-aes-aesni") &&
	       !cp_driver_is_template_instance("(x)"),
	   "drivers of their own are not");
}

/* rng, compression and public-key types keep the kernel's order: nothing measured them. */
static void test_unplanned_types(void)
{
	static const struct row rows[] = {
	    {"deflate", "deflate-generic", "compression", 0, CPU, TESTED},
	    {"deflate", "deflate-scomp", "scomp", 0, CPU, TESTED},
	    {"stdrng", "drbg_nopr_hmac_sha256", "rng", 221, CPU, TESTED},
	    {"stdrng", "drbg_pr_hmac_sha256", "rng", 200, CPU, TESTED},
	    {"rsa", "virtio-crypto-rsa", "akcipher", 150, OFF, TESTED},
	    {"rsa", "rsa-generic", "akcipher", 100, CPU, TESTED},
	};
	struct cp_inventory inv;
	struct cp_policy *p = policy_from("");
	struct cp_plan *plan;

	inventory_from(&inv, rows, ARRAY_SIZE(rows));
	plan = plan_of(&inv, NULL, 0, p);
	is_int(plan->n_steps, 0, "no step for rng, compression or akcipher implementations");
	ok(!cp_plan_find_algorithm(plan, "stdrng") && !cp_plan_find_algorithm(plan, "rsa"),
	   "those names are not planned at all");

	cp_plan_free(plan);
	cp_policy_free(p);
	cp_inventory_free(&inv);
}

/* The gear calibration compares within: the planner's, after the [Driver] rules. */
static void test_gear_for_calibration(void)
{
	_cleanup_(cp_policy_freep) struct cp_policy *p =
	    policy_from("[Driver xts-aes-neonbs]\nPin = first\n[Driver xts-aes-caam]\n"
			"Class = cpu\n[Driver xts-aes-caam-qi2]\nPriority = 10\n");
	struct cp_settings s;

	cp_policy_algorithm(p, "xts(aes)", &s);
	is_int(cp_plan_gear(p, &s, "xts-aes-ce", CP_CLASS_CPU), 0, "the CPU: first gear");
	is_int(cp_plan_gear(p, &s, "xts-aes-engine", CP_CLASS_OFFLOAD), 1, "an engine: second");
	is_int(cp_plan_gear(p, &s, "xts-aes-caam", CP_CLASS_OFFLOAD), 0, "Class=cpu moves it");
	ok(cp_plan_gear(p, &s, "xts-aes-neonbs", CP_CLASS_CPU) == CP_GEAR_NONE,
	   "Pin=: placed whatever it measures");
	ok(cp_plan_gear(p, &s, "xts-aes-caam-qi2", CP_CLASS_OFFLOAD) == CP_GEAR_NONE,
	   "Priority=: placed by its value");
	s.gears = CP_GEARS_ANY;
	is_int(cp_plan_gear(p, &s, "xts-aes-engine", CP_CLASS_OFFLOAD), 0, "Gears=any: one gear");
}

/*
 * Which engines the daemon's start verifies before it serves: those the
 * gears would place above the CPU once verified, and those Pin=first or
 * Priority= place there unless faulty; not Pin=last, Exclude= or Verify=no.
 */
static void test_verifies_first(void)
{
	_cleanup_(cp_policy_freep) struct cp_policy *p =
	    policy_from("[Driver e-pinned]\nPin = first\n[Driver e-priority]\nPriority = 900\n"
			"[Driver e-last]\nPin = last\n[Driver e-excluded]\nExclude = yes\n"
			"[Algorithm ctr(aes)]\nGears = any\n[Algorithm xts(aes)]\nVerify = no\n");
	const char *const verified[] = {"e-pinned", "e-priority"};
	const char *const not_verified[] = {"e-plain", "e-last", "e-excluded"};
	struct cp_alg a = {.name = "cbc(aes)", .type = "skcipher", .class = CP_CLASS_OFFLOAD};
	struct cp_settings s;

	cp_policy_algorithm(p, "cbc(aes)", &s);
	for (size_t i = 0; i < ARRAY_SIZE(verified); i++) {
		snprintf(a.driver, sizeof(a.driver), "%s", verified[i]);
		ok(cp_plan_verifies_first(p, &s, &a), "%s: verified first", a.driver);
	}
	for (size_t i = 0; i < ARRAY_SIZE(not_verified); i++) {
		snprintf(a.driver, sizeof(a.driver), "%s", not_verified[i]);
		ok(!cp_plan_verifies_first(p, &s, &a), "%s: after the CPU, verified later",
		   a.driver);
	}
	snprintf(a.driver, sizeof(a.driver), "e-plain");
	cp_policy_algorithm(p, "ctr(aes)", &s);
	ok(cp_plan_verifies_first(p, &s, &a),
	   "Gears=any: an engine beside the CPU, verified first");
	snprintf(a.driver, sizeof(a.driver), "e-pinned");
	cp_policy_algorithm(p, "xts(aes)", &s);
	ok(!cp_plan_verifies_first(p, &s, &a), "Verify=no: no verdict matters, pinned or not");
}

int main(void)
{
	test_gear_for_calibration();
	test_verifies_first();
	test_unplanned_types();
	test_lx2160a();
	test_stm32();
	test_compressor();
	test_allwinner();
	test_policy_rules();
	test_noise();
	test_too_noisy();
	test_faulty();
	test_unverified();
	test_touch();
	test_shared();
	test_bounds();
	test_misc();
	return done_testing();
}
