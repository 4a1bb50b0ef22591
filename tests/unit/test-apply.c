/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pure parts of the apply pipeline: which points are calibrated
 * (lib/apply-workloads.c), calibrations merged and calibration -> planner
 * measurements (lib/apply-measurements.c), and the plan's record in the
 * state file (lib/apply-record.c).
 */
#include <math.h>
#include <string.h>

#include "apply-measurements.h"
#include "apply-record.h"
#include "apply-workloads.h"
#include "macro.h"
#include "policy-fixture.h"
#include "tap.h"

static void add_alg(struct cp_inventory *inv, const char *name, const char *driver,
		    const char *type, uint32_t priority)
{
	struct cp_alg alg = {.priority = priority, .flags = CP_ALG_TESTED};

	snprintf(alg.name, sizeof(alg.name), "%s", name);
	snprintf(alg.driver, sizeof(alg.driver), "%s", driver);
	snprintf(alg.type, sizeof(alg.type), "%s", type);
	snprintf(alg.module, sizeof(alg.module), "kernel");
	(void) cp_inventory_add(inv, &alg);
}

/* An engine's @driver of @name, the only one registered (at 3000). */
static void add_engine(struct cp_inventory *inv, const char *name, const char *driver,
		       const char *type)
{
	add_alg(inv, name, driver, type, 3000);
	inv->algs[inv->n_algs - 1].class = CP_CLASS_OFFLOAD;
}

/* cbc(aes): aesni + virtio; sha256: generic + avx2; ecb(aes): one only; a template instance. */
static void make_inventory(struct cp_inventory *inv)
{
	memset(inv, 0, sizeof(*inv));
	add_alg(inv, "cbc(aes)", "cbc-aes-aesni", "skcipher", 400);
	add_alg(inv, "cbc(aes)", "virtio_crypto_aes_cbc", "skcipher", 150);
	add_alg(inv, "cbc(aes)", "cbc(aes-generic)", "skcipher", 100);
	add_alg(inv, "sha256", "sha256-generic", "shash", 100);
	add_alg(inv, "sha256", "sha256-avx2", "shash", 170);
	add_alg(inv, "ecb(aes)", "ecb-aes-aesni", "skcipher", 400);
	add_alg(inv, "ab[c]*", "odd-1", "skcipher", 1);
	add_alg(inv, "ab[c]*", "odd-2", "skcipher", 2);
	add_alg(inv, "rsa", "virtio-crypto-rsa", "akcipher", 150);
	add_alg(inv, "rsa", "rsa-generic", "akcipher", 100);
}

static const struct cp_workload *find_workload(const struct cp_workload *w, size_t n, uint32_t size,
					       uint32_t depth)
{
	for (size_t i = 0; i < n; i++)
		if (w[i].size == size && w[i].depth == depth)
			return &w[i];
	return NULL;
}

/*
 * A name only an engine serves: its one implementation and the CPU's
 * candidate. Measured where the name's Gears = any (the figures place the
 * candidate), not under the default gears (the CPU's gear does).
 */
static void test_candidate_workloads(struct cp_inventory *inv)
{
	_cleanup_(cp_policy_freep) struct cp_policy *dflt = policy_from("[Policy]\n");
	_cleanup_(cp_policy_freep) struct cp_policy *any =
	    policy_from("[Algorithm hmac(sha256)]\nGears = any\n");
	struct cp_workload *w = NULL;
	int n;

	add_engine(inv, "hmac(sha256)", "hmac-sha256-engine", "ahash");
	n = cp_apply_workloads(inv, dflt, NULL, 0, &w);
	ok(n > 0 && !cp_workloads_have(w, (size_t) n, "hmac(sha256)"),
	   "default gears: a name only an engine serves is not calibrated");
	for (int i = 0; i < n; i++)
		ok(!w[i].candidates, "default gears: no workload measures candidates (%d)", i);
	cp_workloads_free(w, (size_t) n);

	n = cp_apply_workloads(inv, any, NULL, 0, &w);
	ok(n == 2 && w[1].candidates && w[1].n_names == 1 &&
	       strcmp(w[1].names[0], "hmac(sha256)") == 0,
	   "Gears = any: the name is calibrated, with its candidate, apart from the others");
	ok(n == 2 && !w[0].candidates && !cp_workloads_have(w, 1, "hmac(sha256)"),
	   "the other names at the same point, without candidates");
	cp_workloads_free(w, (size_t) n);
}

/*
 * Whether apply calibrates @name under @policy_text, and at a point with
 * candidates in *@candidates; every workload point in *@n_points.
 */
static bool calibrated_under(const struct cp_inventory *inv, const char *policy_text,
			     const char *name, bool *candidates, int *n_points)
{
	_cleanup_(cp_policy_freep) struct cp_policy *p = policy_from(policy_text);
	struct cp_workload *w = NULL;
	bool found = false;
	int n = cp_apply_workloads(inv, p, NULL, 0, &w);

	*n_points = n;
	for (int i = 0; i < n; i++)
		if (cp_workloads_have(&w[i], 1, name)) {
			found = true;
			*candidates = w[i].candidates;
		}
	cp_workloads_free(w, n > 0 ? (size_t) n : 0);
	return found;
}

/*
 * A name only an AEAD engine serves: under Gears = offload cpu its engine
 * goes above the CPU only once the calibration has verified it, so the
 * name is calibrated (without measuring the candidate: the gears place
 * it); not under the default gears, nor with Verify = no. A hash engine's
 * and a compressor's too; an akcipher's (a type the calibration does not
 * verify) is placed by its gear.
 */
static void test_verification_workloads(struct cp_inventory *inv)
{
	static const char authenc[] = "authenc(hmac(sha256),cbc(aes))";
	static const struct {
		const char *policy, *what;
	} unverified[] = {
	    {"[Policy]\n", "the default gears"},
	    {"[Policy]\nGears = offload cpu\nVerify = no\n", "Verify = no"},
	    {"[Policy]\nGears = offload cpu\n[Driver authenc-engine]\nPin = last\n", "Pin = last"},
	};
	const char *offload = "[Policy]\nGears = offload cpu\n";
	bool candidates = true;
	int n;

	add_engine(inv, authenc, "authenc-engine", "aead");
	ok(calibrated_under(inv, offload, authenc, &candidates, &n) && n == 1 && !candidates,
	   "Gears = offload cpu: the AEAD engine's name is calibrated (verified), no candidate");
	ok(calibrated_under(inv, offload, "hmac(sha256)", &candidates, &n) && !candidates,
	   "Gears = offload cpu: the hash engine's name is calibrated (verified), no candidate");
	add_engine(inv, "deflate", "deflate-engine", "acomp");
	add_alg(inv, "deflate", "deflate-scomp", "scomp", 100);
	inv->algs[inv->n_algs - 1].class = CP_CLASS_CPU;
	ok(calibrated_under(inv, offload, "deflate", &candidates, &n) && !candidates,
	   "Gears = offload cpu: the compressor engine's name is calibrated (verified), no "
	   "candidate");
	add_engine(inv, "rsa", "rsa-engine", "akcipher");
	ok(!calibrated_under(inv, offload, "rsa", &candidates, &n),
	   "Gears = offload cpu: the akcipher engine's name is not");
	/* the CPU's instance, created by an apply before: still verified */
	add_alg(inv, authenc, "authenc(hmac(sha256-avx2),cbc-aes-aesni)", "aead", 3001);
	ok(calibrated_under(inv, offload, authenc, &candidates, &n),
	   "Gears = offload cpu, the CPU's instance created: the name still calibrated");
	for (size_t i = 0; i < ARRAY_SIZE(unverified); i++)
		ok(!calibrated_under(inv, unverified[i].policy, authenc, &candidates, &n) && n >= 0,
		   "not calibrated under %s", unverified[i].what);
}

static void test_workloads(void)
{
	struct cp_inventory inv;
	_cleanup_(cp_policy_freep) struct cp_policy *p =
	    policy_from("[Algorithm cbc(aes)]\nRequestSize = 64K\nInFlight = 8\n");
	struct cp_workload *w = NULL;
	const struct cp_workload *big, *dflt;
	char *only[] = {"virtio_*"};
	int n;

	make_inventory(&inv);
	is_int(p->n_errors, 0, "test policy valid");
	n = cp_apply_workloads(&inv, p, NULL, 0, &w);
	is_int(n, 2, "two workload points: 64 KiB x 8 and the default 4 KiB x 1");
	big = find_workload(w, (size_t) n, 65536, 8);
	dflt = find_workload(w, (size_t) n, 4096, 1);
	ok(big && big->n_names == 1 && strcmp(big->names[0], "cbc(aes)") == 0,
	   "cbc(aes) alone at its own point");
	ok(dflt && dflt->n_names == 2, "sha256 and the odd name at the default (ecb(aes) has one "
				       "implementation: not calibrated; rsa is not ordered)");
	if (dflt && dflt->n_names == 2)
		is_str(dflt->names[1], "ab\\[c\\]\\*", "names are escaped into exact patterns");
	cp_workloads_free(w, (size_t) n);

	n = cp_apply_workloads(&inv, p, only, 1, &w);
	is_int(n, 1, "only_drivers: only the names of matching drivers");
	ok(n == 1 && w[0].size == 65536 && w[0].n_names == 1, "that is cbc(aes) at 64 KiB");
	cp_workloads_free(w, (size_t) n);
	ok(cp_apply_name_selected(&inv, "cbc(aes)", only, 1), "cbc(aes) selected by virtio_*");
	ok(!cp_apply_name_selected(&inv, "sha256", only, 1), "sha256 not selected by virtio_*");
	ok(cp_apply_name_selected(&inv, "sha256", NULL, 0), "no only_drivers: every name");

	test_candidate_workloads(&inv);
	test_verification_workloads(&inv);
	cp_inventory_free(&inv);
}

static void set_point(struct cp_point *pt, uint32_t size, uint32_t depth, enum cp_verdict v,
		      double median, double min, double max)
{
	*pt = (struct cp_point){.size = size, .depth = depth, .verdict = v};
	/* Three runs min, median, max: their MAD is the smaller gap to the median. */
	pt->mbps = (struct cp_stat){.n = 3,
				    .median = median,
				    .min = min,
				    .max = max,
				    .mad = fmin(median - min, max - median)};
	pt->ns_per_request =
	    (struct cp_stat){.n = 3, .median = 1000, .min = 900, .max = 1300, .mad = 100};
	pt->cpu_ns_per_byte = (struct cp_stat){.n = 3, .median = 2, .min = 2, .max = 2};
}

/* A calibration of one driver with one point. */
static void one_point(struct cp_calibration *cal, const char *driver, uint32_t size,
		      enum cp_verdict v, double median, double min, double max)
{
	memset(cal, 0, sizeof(*cal));
	cal->measured = calloc(1, sizeof(*cal->measured));
	cal->n_measured = 1;
	snprintf(cal->measured[0].driver, CP_NAME_MAX, "%s", driver);
	snprintf(cal->measured[0].name, CP_NAME_MAX, "cbc(aes)");
	cal->measured[0].points = calloc(1, sizeof(struct cp_point));
	cal->measured[0].n_points = 1;
	set_point(&cal->measured[0].points[0], size, 1, v, median, min, max);
	cal->n_run = 1;
	cal->elapsed_ns = 100;
}

static void test_merge(void)
{
	struct cp_calibration all = {}, a, b, c;

	one_point(&a, "cbc-aes-aesni", 4096, CP_VERDICT_MEASURED, 44.5, 44, 46);
	one_point(&b, "cbc-aes-aesni", 65536, CP_VERDICT_MEASURED, 66.8, 60, 70);
	one_point(&c, "virtio_crypto_aes_cbc", 65536, CP_VERDICT_UNREACHABLE, 0, 0, 0);
	c.backend = CP_BACKEND_AFALG;
	is_int(cp_calibration_merge(&all, &a), 0, "merge a");
	is_int(cp_calibration_merge(&all, &b), 0, "merge b");
	is_int(cp_calibration_merge(&all, &c), 0, "merge c");
	is_int(all.n_measured, 2, "one entry per driver");
	is_int(cp_calibration_find(&all, "cbc-aes-aesni")->n_points, 2,
	       "a driver measured at two points has both");
	ok(cp_measured_point(cp_calibration_find(&all, "cbc-aes-aesni"), 65536, 1) != NULL,
	   "its 64 KiB point is found");
	is_int(all.n_run, 3, "counters add up");
	is_int(all.elapsed_ns, 300, "elapsed adds up");
	is_int(all.backend, CP_BACKEND_AFALG, "the backend used is kept");
	is_int(a.n_measured, 0, "the merged calibration is left empty");
	cp_calibration_free(&all);
}

static void test_measurements(void)
{
	struct cp_calibration all = {}, a, b, c;
	_cleanup_free_ struct cp_measurement *ms = NULL;
	int n;

	one_point(&a, "cbc-aes-aesni", 4096, CP_VERDICT_MEASURED, 44.5, 40, 46);
	one_point(&b, "virtio_crypto_aes_cbc", 4096, CP_VERDICT_FAULTY, 0, 0, 0);
	one_point(&c, "cbc-foo", 4096, CP_VERDICT_ERROR, 0, 0, 0);
	(void) cp_calibration_merge(&all, &a);
	(void) cp_calibration_merge(&all, &b);
	(void) cp_calibration_merge(&all, &c);
	n = cp_apply_measurements(&all, &ms);
	is_int(n, 3, "one measurement per point");
	is_str(ms[0].driver, "cbc-aes-aesni", "driver");
	is_int(ms[0].request_size, 4096, "size");
	is_int(ms[0].in_flight, 1, "depth");
	is_int(ms[0].state, CP_MEASUREMENT_MEASURED, "measured");
	ok(ms[0].throughput.value == 44.5, "throughput is the median");
	ok(fabs(ms[0].throughput.noise - 4.5) < 1e-9, "noise is three median absolute deviations");
	ok(fabs(ms[0].latency.noise - 300) < 1e-9, "latency noise likewise");
	ok(fabs(ms[0].cpu_cost.noise - 2 * CP_STAT_NOISE_FLOOR / 2) < 1e-9,
	   "no spread: the noise floor");
	is_int(ms[1].state, CP_MEASUREMENT_FAULTY, "faulty -> FAULTY");
	is_int(ms[2].state, CP_MEASUREMENT_NOT_MEASURED, "error -> NOT_MEASURED");
	cp_calibration_free(&all);
}

/*
 * One run far off (seen: an engine's first run at depth 8 under TCG) does
 * not make a clear lead noise for the planner, although the ranges overlap
 * (the engine then spends more runs on it); runs that scatter do.
 */
static void test_noise_robust(void)
{
	struct cp_calibration all = {}, a, b, c, d;
	_cleanup_free_ struct cp_measurement *ms = NULL;

	one_point(&a, "aesni", 4096, CP_VERDICT_MEASURED, 50, 49, 51);
	one_point(&b, "engine", 4096, CP_VERDICT_MEASURED, 342, 20, 350);
	(void) cp_calibration_merge(&all, &a);
	(void) cp_calibration_merge(&all, &b);
	is_int(cp_apply_measurements(&all, &ms), 2, "two measurements");
	ok(cp_stat_within_noise(&all.measured[0].points[0].mbps, &all.measured[1].points[0].mbps),
	   "the ranges overlap (the engine refines)");
	ok(fabs(ms[0].throughput.value - ms[1].throughput.value) >
	       ms[0].throughput.noise + ms[1].throughput.noise,
	   "but for the planner a 7x lead with one slow run is not noise");
	cp_calibration_free(&all);
	free(steal_pointer(&ms));

	all = (struct cp_calibration){};
	one_point(&c, "x", 4096, CP_VERDICT_MEASURED, 100, 80, 121);
	one_point(&d, "y", 4096, CP_VERDICT_MEASURED, 92, 70, 112);
	(void) cp_calibration_merge(&all, &c);
	(void) cp_calibration_merge(&all, &d);
	is_int(cp_apply_measurements(&all, &ms), 2, "two measurements");
	ok(fabs(ms[0].throughput.value - ms[1].throughput.value) <=
	       ms[0].throughput.noise + ms[1].throughput.noise,
	   "runs that scatter both ways are noise");
	cp_calibration_free(&all);
}

/* apply --cached-only leaves out each name with a point the cache lacked, once. */
static void test_names_unmeasured(void)
{
	struct cp_calibration all = {}, a, b, c, d;
	char **names = NULL;
	int n;

	one_point(&a, "sha256-avx2", 4096, CP_VERDICT_UNMEASURED, 0, 0, 0);
	one_point(&b, "sha256-generic", 4096, CP_VERDICT_UNMEASURED, 0, 0, 0);
	one_point(&c, "xts-aes-aesni", 4096, CP_VERDICT_MEASURED, 900, 880, 910);
	one_point(&d, "md5-generic", 4096, CP_VERDICT_UNMEASURED, 0, 0, 0);
	snprintf(a.measured[0].name, CP_NAME_MAX, "sha256");
	snprintf(b.measured[0].name, CP_NAME_MAX, "sha256");
	snprintf(c.measured[0].name, CP_NAME_MAX, "xts(aes)");
	snprintf(d.measured[0].name, CP_NAME_MAX, "md5");
	(void) cp_calibration_merge(&all, &a);
	(void) cp_calibration_merge(&all, &b);
	(void) cp_calibration_merge(&all, &c);
	(void) cp_calibration_merge(&all, &d);
	n = cp_apply_names_unmeasured(&all, &names);
	is_int(n, 2, "two names lack figures");
	if (n == 2) {
		is_str(names[0], "md5", "sorted: md5 first");
		is_str(names[1], "sha256", "sha256 once, for its two drivers");
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	cp_calibration_free(&all);

	all = (struct cp_calibration){};
	one_point(&c, "xts-aes-aesni", 4096, CP_VERDICT_MEASURED, 900, 880, 910);
	(void) cp_calibration_merge(&all, &c);
	names = (char **) &all; /* overwritten */
	is_int(cp_apply_names_unmeasured(&all, &names), 0, "every figure: none left out");
	ok(names == NULL, "and no array");
	cp_calibration_free(&all);
}

static void test_state_record(void)
{
	struct cp_apply_result res = {};
	struct cp_apply_step_result steps[2] = {
	    {.driver = "virtio_crypto_aes_cbc",
	     .old_priority = 3000,
	     .new_priority = 399,
	     .action = CP_STEP_SET,
	     .name = "cbc(aes)",
	     .why = "second gear"},
	    {.driver = "cbc-aes-aesni",
	     .old_priority = 400,
	     .new_priority = 400,
	     .action = CP_STEP_TOUCH,
	     .name = "cbc(aes)"},
	};
	char *files[] = {"/etc/cryptoprio.conf"};
	struct cp_policy policy = {.files = files, .n_files = 1};
	struct cp_state_apply *rec;

	res.steps = steps;
	res.n_steps = 2;
	/* As the daemon calls it: its own policy, none loaded by the pipeline. */
	res.policy = NULL;
	res.calibration.backend = CP_BACKEND_MODULE;
	rec = cp_apply_state_record(&res, &policy, NULL, 1700000000, 42);
	ok(rec != NULL, "record built");
	if (!rec)
		return;
	is_int(rec->started_at, 1700000000, "time");
	is_int(rec->finished_at, 0, "not finished yet");
	is_int(rec->pid, 42, "pid");
	is_str(rec->agent, "cryptoprioctl", "default agent");
	is_str(rec->backend, "module", "backend");
	is_int(rec->n_policy_files, 1, "the files of the policy in force are recorded");
	is_int(rec->n_steps, 2, "both steps");
	ok(rec->steps[0].result == CP_STEP_PENDING && rec->steps[1].result == CP_STEP_PENDING,
	   "every step pending before the first change");
	is_int(rec->steps[1].action, CP_STEP_TOUCH, "touch kept");
	is_str(rec->steps[0].why, "second gear", "why kept");
	cp_state_apply_free(rec);

	res.calibration.backend = CP_BACKEND_NONE;
	res.calibration.n_from_cache = 18;
	rec = cp_apply_state_record(&res, &policy, NULL, 1700000000, 42);
	ok(rec && strcmp(rec->backend, "cache") == 0,
	   "all figures from the cache: backend 'cache'");
	cp_state_apply_free(rec);
}

/* Creates recorded before the change; those the kernel does not list forgotten. */
static void test_created_bookkeeping(void)
{
	struct cp_apply_step_result steps[] = {
	    {.driver = "authenc(hmac(sha256-ce),cbc-aes-ce)",
	     .name = "authenc(hmac(sha256),cbc(aes))",
	     .action = CP_STEP_CREATE,
	     .new_priority = 4001},
	    {.driver = "authenc-hmac-sha256-cbc-aes-caam",
	     .name = "authenc(hmac(sha256),cbc(aes))",
	     .action = CP_STEP_TOUCH,
	     .old_priority = 3000,
	     .new_priority = 3000},
	};
	struct cp_apply_result res = {.steps = steps, .n_steps = ARRAY_SIZE(steps)};
	struct cp_created in_use = {.driver = "echainiv(authenc(hmac(sha256-ce),cbc-aes-ce))",
				    .name = "echainiv(authenc(hmac(sha256),cbc(aes)))",
				    .in_use = true};
	struct cp_state state;
	struct cp_inventory inv;

	cp_state_init(&state);
	(void) cp_state_add_created(&state, &in_use);
	is_int(cp_apply_note_creates(&state, &res), 0, "creates noted");
	is_int(state.n_created, 2, "the create recorded beside the one left in use");
	ok(cp_state_find_created(&state, steps[0].driver) &&
	       cp_state_find_created(&state, steps[0].driver)->priority == 4001 &&
	       !cp_state_find_created(&state, steps[1].driver),
	   "at its planned priority; a touch is no create");

	make_inventory(&inv);
	add_alg(&inv, "echainiv(authenc(hmac(sha256),cbc(aes)))", in_use.driver, "aead", 0);
	is_int(cp_apply_forget_unregistered(&state, &inv), 1,
	       "the create the kernel does not list is forgotten");
	ok(state.n_created == 1 && cp_state_find_created(&state, in_use.driver),
	   "the registered one is kept");
	cp_inventory_free(&inv);
	cp_state_free(&state);
}

int main(void)
{
	test_workloads();
	test_merge();
	test_measurements();
	test_noise_robust();
	test_names_unmeasured();
	test_state_record();
	test_created_bookkeeping();
	return done_testing();
}
