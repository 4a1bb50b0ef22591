/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The calibration engine's pure parts: statistics, cache keying and files, references. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calib-cache.h"
#include "calibrate-internal.h"
#include "calibrate.h"
#include "class.h"
#include "composite.h"
#include "cpustat.h"
#include "macro.h"
#include "planner.h"
#include "proc-fixture.h"
#include "tap.h"

static void test_stats(void)
{
	double odd[] = {5, 1, 4, 2, 3}, even[] = {10, 40, 20, 30}, one[] = {7};
	struct cp_stat s, a, b;

	cp_stat_compute(odd, 5, &s);
	ok(s.n == 5 && s.median == 3 && s.min == 1 && s.max == 5, "median/min/max of 5 runs");
	ok(s.mad == 1, "MAD of 1..5 is 1");
	cp_stat_compute(even, 4, &s);
	ok(s.median == 25 && s.mad == 10, "even count: mean of the middle two; MAD 10");
	cp_stat_compute(one, 1, &s);
	ok(s.n == 1 && s.median == 7 && s.mad == 0, "a single run");
	cp_stat_compute(one, 0, &s);
	ok(s.n == 0 && s.median == 0, "no runs: all zero");

	a = (struct cp_stat){.n = 3, .median = 100, .min = 95, .max = 105};
	b = (struct cp_stat){.n = 3, .median = 110, .min = 104, .max = 112};
	ok(cp_stat_within_noise(&a, &b), "overlapping ranges are noise");
	b = (struct cp_stat){.n = 3, .median = 120, .min = 110, .max = 125};
	ok(!cp_stat_within_noise(&a, &b), "separate ranges are a difference");
	a = (struct cp_stat){.n = 1, .median = 100, .min = 100, .max = 100};
	b = (struct cp_stat){.n = 1, .median = 102, .min = 102, .max = 102};
	ok(cp_stat_within_noise(&a, &b), "single runs 2%% apart are within the noise floor");
	b.median = b.min = b.max = 110;
	ok(!cp_stat_within_noise(&a, &b), "single runs 10%% apart are not");
	b.n = 0;
	ok(!cp_stat_within_noise(&a, &b), "an unmeasured side is never noise");
}

static void test_cpustat(void)
{
	uint64_t ns = 0;

	is_int(cp_cpustat_parse("cpu  100 5 50 1000 20 3 2 0 0 0\ncpu0 1 2 3\n", 100, &ns), 0,
	       "/proc/stat parses");
	is_int(ns, 160ull * 10000000ull, "busy = user+nice+system+irq+softirq+steal, in ns");
	is_int(cp_cpustat_parse("intr 1 2 3", 100, &ns), -EBADMSG, "not a cpu line");
}

static struct cp_cache_entry entry(const char *driver, const char *srcversion, uint32_t size)
{
	struct cp_cache_entry e = {
	    .backend = CP_BACKEND_MODULE, .kat = CRYPTOPRIO_KAT_OK, .measured_at = 1764460800};

	snprintf(e.key.kernel, sizeof(e.key.kernel), "6.1.0-57-amd64");
	snprintf(e.key.build, sizeof(e.key.build), "0123456789abcdef");
	snprintf(e.key.cpu_model, sizeof(e.key.cpu_model), "QEMU TCG CPU version 2.5+");
	snprintf(e.key.driver, sizeof(e.key.driver), "%s", driver);
	snprintf(e.key.module, sizeof(e.key.module), "virtio_crypto");
	snprintf(e.key.srcversion, sizeof(e.key.srcversion), "%s", srcversion);
	e.point = (struct cp_point){
	    .size = size, .depth = 1, .verdict = CP_VERDICT_MEASURED, .max_in_flight = 1};
	e.point.mbps =
	    (struct cp_stat){.n = 3, .median = 18.7, .min = 18.1, .max = 19.0, .mad = 0.3};
	e.point.ns_per_request =
	    (struct cp_stat){.n = 3, .median = 219000, .min = 215000, .max = 226000, .mad = 4000};
	e.point.cpu_ns_per_byte = (struct cp_stat){.n = 3, .median = 60, .min = 58, .max = 61};
	return e;
}

static size_t count(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void test_cache_round_trip(void)
{
	struct cp_cache cache = {}, loaded = {};
	struct cp_cache_entry a = entry("virtio_crypto_aes_cbc", "ABC123", 4096), key_only;
	const struct cp_cache_entry *found;
	_cleanup_free_ char *text = NULL;

	is_int(cp_cache_put(&cache, &a), 0, "entry stored");
	a.point.mbps.median = 18.8;
	is_int(cp_cache_put(&cache, &a), 0, "same key and point replaced");
	is_int(cache.n_entries, 1, "still one entry");
	a = entry("virtio_crypto_aes_cbc", "ABC123", 65536);
	a.point.compressed_size = 29257; /* as a compressor's would be */
	a.point.too_noisy = true;
	a.verified =
	    (struct cp_cache_verified){.seed = CP_VERIFY_SEED_MAX, .cases = 48, .by = "V1"};
	is_int(cp_cache_put(&cache, &a), 0, "another point of the same driver");
	a = entry("virtio_crypto_aes_cbc", "ABC123", 4096);
	snprintf(a.key.kernel, sizeof(a.key.kernel), "6.12.57-amd64");
	is_int(cp_cache_put(&cache, &a), 0, "the same point under another kernel");
	is_int(cp_cache_format(&cache, &text), 0, "formatted");
	ok(count(text, "\"kernel\"") == 2 && count(text, "\"driver\"") == 3,
	   "three entries under two machines, each machine said once");
	is_int(cp_cache_parse(text, &loaded), 0, "parsed back");
	is_int(loaded.n_entries, 3, "three entries");
	found = cp_cache_find(&loaded, &a.key, 4096, 1);
	ok(found && strcmp(found->key.kernel, "6.12.57-amd64") == 0 &&
	       fabs(found->point.ns_per_request.median - 219000) < 1e-9 &&
	       found->point.ns_per_request.n == 3 && fabs(found->point.mbps.mad - 0.3) < 1e-9,
	   "the other machine's entry comes back with its machine and figures");
	key_only = entry("virtio_crypto_aes_cbc", "ABC123", 4096);
	found = cp_cache_find(&loaded, &key_only.key, 4096, 1);
	ok(found && fabs(found->point.mbps.median - 18.8) < 1e-9 && found->point.cached,
	   "the replaced figure comes back, marked cached");
	ok(cp_cache_find(&loaded, &key_only.key, 4096, 8) == NULL, "another depth is not cached");
	is_int(found ? found->point.compressed_size : 1, 0, "no compressed size where none was");
	found = cp_cache_find(&loaded, &key_only.key, 65536, 1);
	is_int(found ? found->point.compressed_size : 0, 29257,
	       "a compressor's compressed size comes back");
	ok(found && found->point.too_noisy, "a figure too noisy to decide comes back so");
	found = cp_cache_find(&loaded, &key_only.key, 4096, 1);
	ok(found && !found->point.too_noisy && count(text, "\"too_noisy\"") == 1,
	   "the others do not, and say nothing of it");
	found = cp_cache_find(&loaded, &key_only.key, 65536, 1);
	ok(found && found->verified.seed == CP_VERIFY_SEED_MAX && found->verified.cases == 48 &&
	       strcmp(found->verified.by, "V1") == 0,
	   "a passed verification comes back: seed, cases, the module's build");
	found = cp_cache_find(&loaded, &key_only.key, 4096, 1);
	ok(found && !found->verified.by[0] && !strstr(text, "\"verified_seed\":0"),
	   "none where none was");
	key_only = entry("virtio_crypto_aes_cbc", "DEF456", 4096);
	ok(cp_cache_find(&loaded, &key_only.key, 4096, 1) == NULL,
	   "a rebuilt module (other srcversion) invalidates the entry");
	key_only = entry("virtio_crypto_aes_cbc", "ABC123", 4096);
	snprintf(key_only.key.kernel, sizeof(key_only.key.kernel), "7.2.13+deb14-amd64");
	ok(cp_cache_find(&loaded, &key_only.key, 4096, 1) == NULL,
	   "another kernel release invalidates the entry");
	key_only = entry("virtio_crypto_aes_cbc", "ABC123", 4096);
	snprintf(key_only.key.cpu_model, sizeof(key_only.key.cpu_model), "AMD EPYC");
	ok(cp_cache_find(&loaded, &key_only.key, 4096, 1) == NULL, "another CPU model too");
	cp_cache_free(&loaded);
	cp_cache_free(&cache);
}

static void test_cache_corrupt(void)
{
	static const char *const bad[] = {
	    "",
	    "{\"version\":2}",
	    "{\"version\":3,\"machines\":[]}",
	    "{\"version\":\"2\",\"machines\":[]}",
	    "{\"version\":2,\"machines\":[{}]}",
	    "{\"version\":2,\"machines\":[]} {}",
	    "{\"version\":2,\"machines\":{}}",
	    "{\"version\":2,\"machines\":[{\"kernel\":\"k\",\"build\":\"b\",\"cpu_model\":\"c\","
	    "\"entries\":[{}]}]}",
	};
	struct cp_cache cache;
	struct cp_cache_entry e = entry("x", "", 4096);
	_cleanup_free_ char *text = NULL;
	char *p;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		is_int(cp_cache_parse(bad[i], &cache), -EBADMSG, "corrupt cache %zu refused", i);

	/* A valid file with one bad value is refused whole. */
	cache = (struct cp_cache){};
	(void) cp_cache_put(&cache, &e);
	(void) cp_cache_format(&cache, &text);
	cp_cache_free(&cache);
	p = strstr(text, "\"size\":4096");
	ok(p != NULL, "fixture has the size");
	if (p)
		memcpy(p, "\"size\":-409", 11);
	is_int(cp_cache_parse(text, &cache), -EBADMSG, "a negative size refuses the whole file");
	is_int(cache.n_entries, 0, "nothing half-trusted");
	is_int(cp_cache_parse("{\"version\":1,\"entries\":[{\"kernel\":\"k\"}]}", &cache), 0,
	       "a cache of version 1 is no error");
	is_int(cache.n_entries, 0, "and holds nothing: its figures are measured again");
}

/* Keys in any order, each once; keys this version does not know are skipped. */
static void test_cache_key_order(void)
{
	static const char entry_text[] =
	    "{\"decided\":true,\"cpu_ns_per_byte\":[3,60,58,61,0],\"ns_per_request\":[3,2,1,3,1],"
	    "\"mbps\":[3,18.7,18.1,19,0.3],\"max_in_flight\":1,\"depth\":1,\"size\":4096,"
	    "\"measured_at\":1,\"kat\":\"ok\",\"backend\":\"module\",\"srcversion\":\"\","
	    "\"module\":\"m\",\"driver\":\"d\",\"future\":{\"x\":[1,\"y\"]}}";
	struct cp_cache cache;
	char text[1024];

	snprintf(text, sizeof(text),
		 "{\"machines\":[{\"entries\":[%s],\"cpu_model\":\"c\",\"build\":\"b\","
		 "\"kernel\":\"k\"}],\"version\":2}",
		 entry_text);
	is_int(cp_cache_parse(text, &cache), 0, "every key after what it qualifies: read");
	ok(cache.n_entries == 1 && strcmp(cache.entries[0].key.kernel, "k") == 0 &&
	       strcmp(cache.entries[0].key.cpu_model, "c") == 0 &&
	       strcmp(cache.entries[0].key.driver, "d") == 0 && cache.entries[0].point.decided &&
	       cache.entries[0].point.mbps.n == 3 && cache.entries[0].point.size == 4096,
	   "the entry has its machine's key and its figures");
	cp_cache_free(&cache);

	snprintf(text, sizeof(text),
		 "{\"version\":2,\"machines\":[{\"kernel\":\"k\",\"build\":\"b\","
		 "\"cpu_model\":\"c\",\"kernel\":\"k2\",\"entries\":[]}]}");
	is_int(cp_cache_parse(text, &cache), -EBADMSG, "a key twice: refused");
	snprintf(text, sizeof(text),
		 "{\"version\":2,\"machines\":[{\"kernel\":\"k\",\"build\":\"b\","
		 "\"cpu_model\":\"c\",\"entries\":[{%s]}]}",
		 entry_text + strlen("{\"decided\":true,"));
	is_int(cp_cache_parse(text, &cache), -EBADMSG, "an entry without \"decided\": refused");
}

/* The bytes after the NUL are not read (tests/fuzz: see test-state.c, test_comment_at_end). */
static void test_cache_comment_at_end(void)
{
	static const char doc[] = "{\"version\":2,\"machines\":[]}//c\0xx";
	struct cp_cache cache;

	is_int(cp_cache_parse(doc, &cache), -EBADMSG, "a comment at the end: refused");
	cp_cache_free(&cache);
}

/* The memo of the module index: optional, written back as read, refused when malformed. */
static void test_cache_module_memo(void)
{
	static const char *const bad[] = {
	    "{\"version\":2,\"machines\":[],\"modules\":{\"kernel\":\"k\",\"index\":[1],"
	    "\"looked_up\":[],\"offload\":[]}}",
	    "{\"version\":2,\"machines\":[],\"modules\":{\"kernel\":\"k\",\"index\":[1,2],"
	    "\"looked_up\":[\"a\",\"a\"],\"offload\":[]}}",
	    "{\"version\":2,\"machines\":[],\"modules\":{\"kernel\":\"k\",\"index\":[1,2],"
	    "\"looked_up\":[]}}",
	};
	static const char doc[] =
	    "{\"modules\":{\"offload\":[\"virtio_crypto\"],\"looked_up\":[\"aesni_intel\","
	    "\"virtio_crypto\"],\"index\":[841215,1764668400123456789],\"kernel\":\"7.2.13\"},"
	    "\"version\":2,\"machines\":[]}";
	_cleanup_free_ char *text = NULL;
	struct cp_cache cache, again;

	is_int(cp_cache_parse("{\"version\":2,\"machines\":[]}", &cache), 0, "no memo: read");
	ok(!cache.modules.index.kernel[0], "no memo: none known");
	cp_cache_free(&cache);
	is_int(cp_cache_parse(doc, &cache), 0, "a memo: read");
	ok(streq(cache.modules.index.kernel, "7.2.13") && cache.modules.index.size == 841215 &&
	       cache.modules.index.mtime_ns == 1764668400123456789 &&
	       cache.modules.looked_up.n_names == 2 &&
	       cp_module_set_contains(&cache.modules.offload, "virtio-crypto") &&
	       !cp_module_set_contains(&cache.modules.offload, "aesni_intel"),
	   "the memo's index and modules");
	is_int(cp_cache_format(&cache, &text), 0, "formatted");
	is_int(cp_cache_parse(text, &again), 0, "parsed back");
	ok(again.modules.index.mtime_ns == cache.modules.index.mtime_ns &&
	       cp_module_set_contains(&again.modules.looked_up, "aesni_intel") &&
	       again.modules.offload.n_names == 1,
	   "the memo written as read");
	cp_cache_free(&again);
	cp_cache_free(&cache);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		is_int(cp_cache_parse(bad[i], &cache), -EBADMSG, "malformed memo %zu refused", i);
		cp_cache_free(&cache);
	}
}

static void add(struct cp_inventory *inv, const char *name, const char *driver, const char *type,
		uint32_t priority, uint32_t flags)
{
	struct cp_alg alg = {.priority = priority, .flags = flags | CP_ALG_TESTED};

	snprintf(alg.name, sizeof(alg.name), "%s", name);
	snprintf(alg.driver, sizeof(alg.driver), "%s", driver);
	snprintf(alg.type, sizeof(alg.type), "%s", type);
	snprintf(alg.module, sizeof(alg.module), "kernel");
	(void) cp_inventory_add(inv, &alg);
}

static void test_reference_and_skips(void)
{
	struct cp_inventory inv = {};
	char ref[CP_NAME_MAX];

	add(&inv, "aes", "aes-generic", "cipher", 100, 0);
	add(&inv, "aes", "aes-aesni", "cipher", 300, 0);
	add(&inv, "aes", "aes-engine", "cipher", 50, CP_ALG_KERN_DRIVER_ONLY);
	add(&inv, "sha256", "sha256-generic", "shash", 100, 0);
	add(&inv, "sha256", "sha256-avx2", "shash", 170, 0);
	add(&inv, "sha256", "sha256-engine", "ahash", 10, CP_ALG_ASYNC);
	add(&inv, "cbc(aes)", "cbc-aes-aesni", "skcipher", 400, 0);
	add(&inv, "cbc(aes)", "cbc(aes-generic)", "skcipher", 100, 0);
	add(&inv, "rsa", "rsa-generic", "akcipher", 100, 0);
	add(&inv, "ecdsa-nist-p256", "ecdsa-nist-p256-generic", "akcipher", 100, 0);
	add(&inv, "ecdh-nist-p256", "ecdh-nist-p256-generic", "kpp", 100, 0);
	add(&inv, "ecdh-nist-p384", "ecdh-nist-p384-generic", "kpp", 100, 0);

	is_int(cp_reference_name(&inv, "cbc(aes)", ref, sizeof(ref)), 0, "reference for cbc(aes)");
	is_str(ref, "cbc(aes-generic)", "the template over the lowest synchronous CPU cipher");
	is_int(cp_reference_name(&inv, "authenc(hmac(sha256),cbc(aes))", ref, sizeof(ref)), 0,
	       "nested templates");
	is_str(ref, "authenc(hmac(sha256-generic),cbc(aes-generic))", "every leaf replaced");
	is_int(cp_reference_name(&inv, "cbc(des)", ref, sizeof(ref)), -ENOENT,
	       "no reference without a leaf implementation");
	is_int(cp_reference_name(&inv, "cbc(aes", ref, sizeof(ref)), -EINVAL, "unbalanced name");

	is_str(cp_calibration_skip_reason(&inv.algs[0]),
	       "type not calibrated (only skcipher, aead, hash, acomp, rsa, ecdh-nist-p256 and dh "
	       "are)",
	       "a single-block cipher is not calibrated, every calibrated type named");
	ok(cp_calibration_skip_reason(&inv.algs[6]) == NULL, "a skcipher is");
	ok(cp_calibration_skip_reason(&inv.algs[5]) == NULL, "an ahash is");
	ok(strstr(cp_calibration_skip_reason(&inv.algs[7]), "template") != NULL,
	   "a template instance follows its parts");
	ok(cp_calibration_skip_reason(&inv.algs[8]) == NULL, "rsa is");
	ok(strstr(cp_calibration_skip_reason(&inv.algs[9]) ?: "", "only rsa") != NULL,
	   "another akcipher is not, and why");
	ok(cp_calibration_skip_reason(&inv.algs[10]) == NULL, "ecdh-nist-p256 is");
	ok(strstr(cp_calibration_skip_reason(&inv.algs[11]) ?: "", "only ecdh-nist-p256") != NULL,
	   "another key agreement is not, and why");
	cp_inventory_free(&inv);
}

static void test_budget_accounting(void)
{
	const uint64_t ms = 1000000;

	is_int(cp_calibration_slice(2000 * ms, 30, 1, 5 * ms), 2000 * ms / 30 - 5 * ms,
	       "the budget left shared among the runs planned, less each run's overhead");
	is_int(cp_calibration_slice(2000 * ms, 4, 1, 0), CP_SLICE_MAX_NS,
	       "a slice never exceeds the maximum");
	is_int(cp_calibration_slice(100 * ms, 1000, 1, 0), CP_SLICE_MIN_NS,
	       "a slice never falls below the minimum while it still fits");
	is_int(cp_calibration_slice(3 * ms, 10, 1, 2 * ms), 0,
	       "no run starts when even the shortest would overrun the budget");
	is_int(cp_calibration_slice(0, 0, 1, 0), 0, "nothing left: no run");
	is_int(cp_calibration_slice(600 * ms, 0, 2, 0), CP_SLICE_MAX_NS,
	       "refining runs (no first-pass run left) get the longest slice that fits");
	is_int(cp_calibration_slice(40 * ms, 4, 2, 0), 20 * ms, "refining runs are scaled");

	is_int(cp_calibration_grace(2000 * ms, 80 * ms), 320 * ms, "grace: four slices");
	is_int(cp_calibration_grace(2000 * ms, 2 * ms), CP_GRACE_MIN_NS,
	       "grace: at least the minimum, so a slow engine is not taken for a hung one");
	is_int(cp_calibration_grace(300 * ms, 100 * ms), 300 * ms,
	       "grace: no more than what is left of the budget");
	is_int(cp_calibration_grace(10 * ms, 100 * ms), CP_GRACE_MIN_NS,
	       "grace: the minimum even when the budget is spent");
	is_int(cp_calibration_grace(UINT64_MAX / 8, 1000 * ms), CRYPTOPRIO_GRACE_NS,
	       "grace: never more than the module accepts");
	ok(CP_GRACE_MIN_NS >= CRYPTOPRIO_MIN_GRACE_NS,
	   "the minimum grace is one the module accepts");
}

static void add_tested(struct cp_inventory *inv, const char *driver, uint32_t priority)
{
	struct cp_alg alg = {.priority = priority, .flags = CP_ALG_TESTED};

	snprintf(alg.name, sizeof(alg.name), "cbc(aes)");
	snprintf(alg.driver, sizeof(alg.driver), "%s", driver);
	snprintf(alg.type, sizeof(alg.type), "skcipher");
	snprintf(alg.module, sizeof(alg.module), "kernel");
	if (cp_inventory_add(inv, &alg) < 0)
		abort();
}

/* One point of @size at depth 1, from the caller's @cache only. */
static struct cp_calibrate_options cache_only_options(const uint32_t *size, struct cp_cache *cache)
{
	return (struct cp_calibrate_options){
	    .sizes = size,
	    .n_sizes = 1,
	    .workload_size = *size,
	    .depth = 1,
	    .cache_only = true,
	    .cache_path = "/nonexistent/calibration.json",
	    .cache = cache,
	};
}

/*
 * A cache the caller loaded (the apply pipeline reads it once per run): the
 * figures come from it, not from the file, and its load error is warned
 * about as if the file had been read here.
 */
static void test_preloaded_cache(void)
{
	uint32_t size = 4096;
	struct cp_inventory inv = {};
	struct cp_cache cache = {};
	struct cp_cache_entry cached = {.backend = CP_BACKEND_AFALG, .measured_at = 1000};
	struct cp_calibrate_options opts = cache_only_options(&size, &cache);
	struct cp_calibration cal;

	add_tested(&inv, "cbc-aes-aesni", 400);
	add_tested(&inv, "cbc-aes-avx", 300);
	is_int(cp_cache_key_for(&inv.algs[0], &cached.key), 0, "key of the cached driver");
	/* As cp_cache_parse() leaves it. */
	cached.point = (struct cp_point){.size = size,
					 .depth = 1,
					 .verdict = CP_VERDICT_MEASURED,
					 .cached = true,
					 .mbps = {.n = 1, .median = 50}};
	is_int(cp_cache_put(&cache, &cached), 0, "one figure in the caller's cache");
	is_int(cp_calibrate(&inv, &opts, &cal), 0, "calibrated from the cache only");
	is_int(cal.n_from_cache, 0,
	       "a figure of one run, where another of its gear competes: measured again");
	cp_calibration_free(&cal);
	cache.entries[0].point.mbps.n = CP_RUNS_FIRST;
	is_int(cp_calibrate(&inv, &opts, &cal), 0, "calibrated from the cache only");
	is_int(cal.n_from_cache, 1, "the figure taken from the caller's cache, not the file");
	ok(!cal.cache_updated && !cal.cache_warning[0], "nothing to save, nothing to say");
	cp_calibration_free(&cal);

	cp_cache_free(&cache);
	opts.cache_error = -EBADMSG;
	is_int(cp_calibrate(&inv, &opts, &cal), 0, "an empty cache whose load failed");
	is_str(cal.cache_warning,
	       "ignoring /nonexistent/calibration.json: corrupt or from another version",
	       "warned about as before");
	cp_calibration_free(&cal);
	cp_calibration_cache_unsaved(&cal, "/x.json", -EROFS);
	is_str(cal.cache_warning, "cannot save /x.json: Read-only file system",
	       "an unsaved cache worded as cp_calibrate() words it");
	cp_inventory_free(&inv);
}

/* An engine not verified says why. */
static void test_verification_not_run(void)
{
	struct cp_point point = {.size = 4096, .depth = 1, .verdict = CP_VERDICT_MEASURED};
	struct cp_measured m = {.type = CRYPTOPRIO_TYPE_SKCIPHER,
				.class = CP_CLASS_OFFLOAD,
				.points = &point,
				.n_points = 1};
	struct cp_calibration cal = {.measured = &m, .n_measured = 1};

	cp_calibration_verify(&cal, NULL, -ENOENT, "", false);
	ok(m.verified.state == CP_VERIFICATION_NOT_RUN &&
	       strcmp(m.verified.text, "the cryptoprio module is not loaded (No such file or "
				       "directory)") == 0 &&
	       point.verdict == CP_VERDICT_MEASURED,
	   "no module: not verified, and why, its figures kept: %s", m.verified.text);
}

/*
 * An engine whose name the budget left pending is verified with its
 * measurement, after READY; one the gears would place above the CPU
 * (verify_first) at once.
 */
static void test_verification_pending(void)
{
	struct cp_point point = {.size = 4096, .depth = 1, .verdict = CP_VERDICT_UNMEASURED};
	struct cp_measured m = {.type = CRYPTOPRIO_TYPE_AEAD,
				.class = CP_CLASS_OFFLOAD,
				.points = &point,
				.n_points = 1};

	ok(cp_measured_wants_verification(&m), "an AEAD engine measured: verified");
	m.pending = true;
	ok(!cp_measured_wants_verification(&m), "its name pending: not yet");
	m.verify_first = true;
	ok(cp_measured_wants_verification(&m), "pending, but above the CPU once verified: now");
	m.class = CP_CLASS_CPU;
	ok(!cp_measured_wants_verification(&m), "the CPU's: never");
}

/*
 * At the daemon's start only the engines verified first are: any other
 * stays unverified, its figures kept, and still wants verifying (which
 * the daemon does after READY).
 */
static void test_verification_first_only(void)
{
	struct cp_point points[3] = {};
	struct cp_measured m[3] = {
	    {.name = "cbc(aes)", .class = CP_CLASS_CPU},
	    {.name = "cbc(aes)", .class = CP_CLASS_OFFLOAD},
	    {.name = "cbc(aes)", .class = CP_CLASS_OFFLOAD},
	};
	struct cp_calibration cal = {.measured = m, .n_measured = ARRAY_SIZE(m)};
	struct cp_nl never_used = {}; /* no socket: a verification would fail the test */

	for (size_t i = 0; i < ARRAY_SIZE(m); i++) {
		points[i] =
		    (struct cp_point){.size = 4096, .depth = 1, .verdict = CP_VERDICT_MEASURED};
		m[i].type = CRYPTOPRIO_TYPE_SKCIPHER;
		m[i].points = &points[i];
		m[i].n_points = 1;
	}
	cp_calibration_verify(&cal, &never_used, 0, "V1", true);
	ok(m[1].verified.state == CP_VERIFICATION_NONE &&
	       m[2].verified.state == CP_VERIFICATION_NONE &&
	       points[1].verdict == CP_VERDICT_MEASURED && !m[1].pending,
	   "first only: the engines not verified, their figures kept, their name not pending");
	ok(cp_measured_wants_verification(&m[1]) && cp_measured_wants_verification(&m[2]),
	   "and wanting it still, for after READY");
}

/*
 * A pass in the cache stands while the module that verified is the one
 * loaded (srcversion); an engine of a type the module verifies wants
 * verifying until then, the CPU's and one already faulty do not.
 */
static void test_verification_cached(void)
{
	uint32_t size = 4096;
	struct cp_inventory inv = {};
	struct cp_cache cache = {};
	struct cp_cache_entry cached = {.backend = CP_BACKEND_MODULE, .measured_at = 1000};
	struct cp_calibrate_options opts = cache_only_options(&size, &cache);
	struct cp_cache_key machine = {.kernel = "6.1.0-57-amd64", .build = "0123456789abcdef"};
	struct cp_module_version modules[] = {{"kernel", ""}, {"cryptoprio", "V1"}};
	const struct cp_measured *m;
	struct cp_measured copy;
	struct cp_calibration cal;

	cp_cache_keys_assume(&machine, modules, ARRAY_SIZE(modules));
	add_tested(&inv, "cbc-aes-aesni", 400);
	add_tested(&inv, "cbc-aes-engine", 300);
	inv.algs[1].class = CP_CLASS_OFFLOAD;
	is_int(cp_cache_key_for(&inv.algs[1], &cached.key), 0, "key of the engine");
	cached.point = (struct cp_point){.size = size,
					 .depth = 1,
					 .verdict = CP_VERDICT_MEASURED,
					 .cached = true,
					 .mbps = {.n = CP_RUNS_FIRST, .median = 50}};
	cached.verified = (struct cp_cache_verified){.seed = 42, .cases = 48, .by = "V1"};
	is_int(cp_cache_put(&cache, &cached), 0, "the engine's figure, verified by V1");
	is_int(cp_calibrate(&inv, &opts, &cal), 0, "calibrated from the cache");
	m = cp_calibration_find(&cal, "cbc-aes-engine");
	ok(m && m->verified.state == CP_VERIFICATION_PASSED && m->verified.cached &&
	       m->verified.seed == 42 && m->verified.cases == 48 && !strcmp(m->verified.by, "V1"),
	   "the pass comes from the cache while V1 is loaded");
	ok(m && !cp_measured_wants_verification(m), "and is not verified again");
	m = cp_calibration_find(&cal, "cbc-aes-aesni");
	ok(m && m->verified.state == CP_VERIFICATION_NONE && !cp_measured_wants_verification(m),
	   "the CPU's is not verified");
	cp_calibration_free(&cal);

	/* A figure too noisy to decide when cached: measured again, its pass kept. */
	cache.entries[0].point.too_noisy = true;
	is_int(cp_calibrate(&inv, &opts, &cal), 0, "calibrated from the cache only");
	is_int(cal.n_from_cache, 1, "a too-noisy figure taken as it is where nothing is measured");
	cp_calibration_free(&cal);
	opts.cache_only = false;
	is_int(cp_calibrate(&inv, &opts, &cal), 0, "calibrated, no budget to measure");
	is_int(cal.n_from_cache, 0, "a too-noisy figure is not taken where it can be measured");
	m = cp_calibration_find(&cal, "cbc-aes-engine");
	ok(m && m->verified.state == CP_VERIFICATION_PASSED && m->verified.cached,
	   "its engine's pass is");
	cp_calibration_free(&cal);
	opts.cache_only = true;
	cache.entries[0].point.too_noisy = false;

	snprintf(modules[1].srcversion, sizeof(modules[1].srcversion), "V2");
	cp_cache_keys_forget();
	is_int(cp_calibrate(&inv, &opts, &cal), 0, "calibrated again, another build loaded");
	m = cp_calibration_find(&cal, "cbc-aes-engine");
	ok(m && m->verified.state == CP_VERIFICATION_NONE && cp_measured_wants_verification(m),
	   "a pass of another build of the module does not count: verified again");
	if (m) {
		copy = *m;
		copy.points = &cached.point;
		copy.n_points = 1;
		cached.point.verdict = CP_VERDICT_FAULTY;
		ok(!cp_measured_wants_verification(&copy),
		   "one its known answer found faulty is not");
		copy.type = CRYPTOPRIO_TYPE_UNSPEC;
		cached.point.verdict = CP_VERDICT_MEASURED;
		ok(!cp_measured_wants_verification(&copy), "nor a type the module does not verify");
	}
	cp_calibration_free(&cal);
	test_verification_not_run();
	test_verification_pending();
	test_verification_first_only();
	cp_cache_keys_assume(NULL, NULL, 0);
	cp_cache_keys_forget();
	cp_cache_free(&cache);
	cp_inventory_free(&inv);
}

static const char *measured_as(const struct cp_calibration *cal, const char *driver)
{
	const struct cp_measured *m = cp_calibration_find(cal, driver);

	return m ? m->measured_as : "(not measured)";
}

/* Each name measured is one run of entries in cal (the refinement relies on it). */
static bool names_contiguous(const struct cp_calibration *cal)
{
	for (size_t i = 1; i < cal->n_measured; i++)
		for (size_t k = 0; k + 1 < i; k++)
			if (strcmp(cal->measured[k].name, cal->measured[i].name) == 0 &&
			    strcmp(cal->measured[i - 1].name, cal->measured[i].name) != 0)
				return false;
	return true;
}

/*
 * The LX2160A: for every name the engines serve and the CPU does not
 * register, the CPU's candidate is measured beside them (last of its name),
 * and the engines' implementations of such a name with it, although the
 * kernel lists only one or two; none for gcm(aes), which gcm-aes-ce serves.
 */
static void test_candidates_selected(void)
{
	uint32_t size = 4096;
	struct cp_calibrate_options opts = {
	    .sizes = &size, .n_sizes = 1, .workload_size = size, .depth = 1, .cache_only = true};
	struct cp_calibration cal;
	struct cp_inventory inv;
	size_t n_candidates = 0, n_expected = 0, n_wrong = 0;

	load_fixture("proc-crypto-lx2160a.txt", &inv);
	is_int(cp_calibrate(&inv, &opts, &cal), 0, "selected (nothing measured)");
	for (size_t i = 0; i < cal.n_measured; i++) {
		const struct cp_measured *m = &cal.measured[i];
		char driver[CP_NAME_MAX];

		if (!m->candidate)
			continue;
		n_candidates++;
		n_wrong += cp_composite_candidate(&inv, m->name, driver) != 0 ||
			   strcmp(driver, m->driver) != 0 || fixture_cpu_registers(&inv, m->name) ||
			   i == 0 || strcmp(cal.measured[i - 1].name, m->name) != 0 ||
			   cp_inventory_find_driver(&inv, m->driver) != NULL;
	}
	for (size_t i = 0; i < inv.n_algs; i++) {
		const struct cp_alg *alg = &inv.algs[i];
		char driver[CP_NAME_MAX];

		bool first = true;

		for (size_t k = 0; k < i; k++)
			first = first && strcmp(inv.algs[k].name, alg->name) != 0;
		if (first && cp_composite_candidate(&inv, alg->name, driver) == 0 &&
		    cp_inventory_winner(&inv, alg->name) && !cp_inventory_find_driver(&inv, driver))
			n_expected++;
	}
	ok(n_candidates > 10, "candidates measured (%zu)", n_candidates);
	is_int(n_candidates, n_expected, "one per name only engines serve");
	is_int(n_wrong, 0, "each the composite of the CPU's parts, after the engines of its name");
	ok(cp_calibration_find(&cal, "authenc(hmac(sha256-ce),cbc-aes-ce)") &&
	       cp_calibration_find(&cal, "authenc-hmac-sha256-cbc-aes-caam-qi2") &&
	       cp_calibration_find(&cal, "authenc-hmac-sha256-cbc-aes-caam"),
	   "authenc(hmac(sha256),cbc(aes)): the two engines and the CPU's candidate");
	ok(cp_calibration_find(&cal, "gcm-aes-ce") &&
	       !cp_calibration_find(&cal, "gcm_base(ctr-aes-ce,ghash-ce)"),
	   "gcm(aes): gcm-aes-ce measured, no candidate");
	ok(names_contiguous(&cal), "each name's entries together");
	is_str(measured_as(&cal, "echainiv(authenc(hmac(sha256-ce),cbc-aes-ce))"),
	       "authenc(hmac(sha256-ce),cbc-aes-ce)", "an IV generator's candidate: as its X");
	is_str(measured_as(&cal, "echainiv-authenc-hmac-sha256-cbc-aes-caam"),
	       "authenc-hmac-sha256-cbc-aes-caam", "an engine's IV generator: as its module's X");
	is_str(measured_as(&cal, "echainiv-authenc-hmac-sha256-cbc-aes-caam-qi2"),
	       "authenc-hmac-sha256-cbc-aes-caam-qi2", "the other engine's: as its own module's");
	is_str(measured_as(&cal, "authenc-hmac-sha256-cbc-aes-caam"), "",
	       "anything else as itself");
	is_str(cp_calibration_find(&cal, "echainiv-authenc-hmac-sha256-cbc-aes-caam")->reference,
	       "authenc(hmac(sha256-generic),cbc(aes-generic))", "with its X's reference");
	cp_calibration_free(&cal);

	char *patterns[] = {"authenc(hmac(sha256),cbc(aes))"};
	opts.patterns = patterns;
	opts.n_patterns = 1;
	is_int(cp_calibrate(&inv, &opts, &cal), 0, "selected by a pattern");
	is_int(cal.n_measured, 3, "a pattern on the name: its engines and its candidate");
	ok(cal.n_measured == 3 && cal.measured[2].candidate, "the candidate last");
	cp_calibration_free(&cal);

	/* Once created, the CPU's instance is measured as the candidate was. */
	struct cp_alg created = {.name = "authenc(hmac(sha256),cbc(aes))",
				 .driver = "authenc(hmac(sha256-ce),cbc-aes-ce)",
				 .module = "authenc",
				 .type = "aead",
				 .priority = 3001,
				 .flags = CP_ALG_TESTED};
	struct cp_cache_key as_candidate, as_created;

	if (cp_inventory_add(&inv, &created) < 0)
		abort();
	cp_classify(&inv, NULL);
	is_int(cp_calibrate(&inv, &opts, &cal), 0, "selected with the instance created");
	is_int(cal.n_measured, 3, "its engines and the instance");
	ok(cal.n_measured == 3 && !cal.measured[2].candidate &&
	       strcmp(cal.measured[2].driver, created.driver) == 0,
	   "the created instance measured, not a candidate any more");
	ok(cal.n_measured == 3 && cal.measured[2].cache_only && !cal.measured[0].cache_only,
	   "from the cache only: a registered instance is never run");
	is_int(cp_measured_cache_key(&cal.measured[2], &as_created), 0, "the instance's cache key");
	cal.measured[2].candidate = true;
	snprintf(cal.measured[2].module, sizeof(cal.measured[2].module), "%s", "");
	is_int(cp_measured_cache_key(&cal.measured[2], &as_candidate), 0, "the candidate's");
	ok(memcmp(&as_candidate, &as_created, sizeof(as_created)) == 0,
	   "the same: figures measured before the create still count after it");
	{
		struct cp_cache cache = {}, loaded = {};
		struct cp_cache_entry e = entry(created.driver, "", size);
		_cleanup_free_ char *text = NULL;

		e.key = as_created;
		is_int(cp_cache_put(&cache, &e), 0, "an instance's figure cached");
		is_int(cp_cache_format(&cache, &text), 0, "formatted");
		is_int(cp_cache_parse(text, &loaded), 0, "parsed back: a key without a module");
		ok(cp_cache_find(&loaded, &as_candidate, size, 1) != NULL,
		   "found by the candidate");
		cp_cache_free(&loaded);
		cp_cache_free(&cache);
	}
	cp_calibration_free(&cal);
	cp_inventory_free(&inv);
}

/* The pure test that ends a name's runs: gears, noise, what is not ranked by figures. */
static bool order_known(const unsigned *gear, const bool *measured, const double *value,
			const double *noise, const bool *too_noisy, size_t n, bool *again,
			bool *noisy)
{
	struct cp_rank_figure f[3];

	for (size_t i = 0; i < n; i++)
		f[i] = (struct cp_rank_figure){gear[i], measured[i], value[i], noise[i],
					       too_noisy ? too_noisy[i] : false};
	return cp_calibration_order_known(n, f, again, noisy);
}

static void test_order_known(void)
{
	const unsigned one[] = {0, 0}, two[] = {0, 1}, none[] = {0, CP_GEAR_NONE};
	const bool both[] = {true, true}, first_only[] = {true, false};
	const double apart[] = {100, 80}, close[] = {100, 97}, noise[] = {2, 2};
	bool again[3], noisy[3];

	ok(order_known(one, both, apart, noise, NULL, 2, again, noisy) && !again[0] && !again[1],
	   "one gear, apart beyond the sum of the noises: known");
	ok(!order_known(one, both, close, noise, NULL, 2, again, noisy) && again[0] && again[1] &&
	       !noisy[0],
	   "one gear, within noise: both run again");
	ok(order_known(two, both, close, noise, NULL, 2, again, noisy) && !again[0],
	   "two gears: the gears decide, whatever the figures");
	ok(order_known(none, both, close, noise, NULL, 2, again, noisy),
	   "a place fixed by the policy (Pin=, Priority=, Exclude=) does not wait for figures");
	ok(order_known(one, first_only, close, noise, NULL, 2, again, noisy),
	   "a faulty, hung or unreachable one is placed by its verdict");

	const unsigned three[] = {0, 1, 0};
	const bool all3[] = {true, true, true};
	const double v3[] = {100, 99, 98}, n3[] = {1, 1, 1};

	ok(!order_known(three, all3, v3, n3, NULL, 3, again, noisy) && again[0] && !again[1] &&
	       again[2],
	   "only the pair within noise in one gear runs again");

	/* 357 against 6.52 (a run at 163): apart beyond noise, but the second says nothing. */
	const double host[] = {357, 6.52}, host_noise[] = {10, 3};
	const bool second_noisy[] = {false, true};

	ok(!order_known(one, both, host, host_noise, second_noisy, 2, again, noisy) && again[0] &&
	       again[1] && noisy[0] && noisy[1],
	   "a figure too noisy to decide: not known, both run again, both marked noisy");
	ok(order_known(two, both, host, host_noise, second_noisy, 2, again, noisy) && !noisy[1],
	   "in a gear of its own a noisy figure decides nothing: not marked");

	struct cp_stat tight = {.n = 3, .median = 100, .mad = 0.1},
		       loose = {.n = 3, .median = 100, .mad = 4};

	ok(cp_stat_noise(&tight) == 100 * CP_STAT_NOISE_FLOOR / 2, "noise: at least the floor");
	ok(cp_stat_noise(&loose) == 12, "noise: three median absolute deviations");
}

/* When a figure is too noisy to decide anything. */
static void test_too_noisy(void)
{
	struct cp_stat s = {.n = 3, .median = 6.52, .min = 6.1, .max = 163, .mad = 0.4};

	ok(cp_stat_too_noisy(&s, true), "6.52 MB/s with a run at 163: too noisy");
	ok(!cp_stat_too_noisy(&s, false), "as a time, the same runs: the best is near the median");
	s = (struct cp_stat){.n = 3, .median = 65, .min = 46.7, .max = 83.5, .mad = 18.3};
	ok(!cp_stat_too_noisy(&s, true), "65 MB/s, runs 47 to 84 (a loaded host): it decides");
	s = (struct cp_stat){.n = 3, .median = 5.24, .min = 0.46, .max = 11.98, .mad = 4.78};
	ok(cp_stat_too_noisy(&s, true), "5.24 MB/s, runs 0.46 to 11.98: too noisy");
	s = (struct cp_stat){.n = 3, .median = 300, .min = 5, .max = 310, .mad = 10};
	ok(!cp_stat_too_noisy(&s, true), "one slow first run: it decides");
	s = (struct cp_stat){.n = 3, .median = 1000, .min = 400, .max = 1100, .mad = 100};
	ok(cp_stat_too_noisy(&s, false),
	   "a time whose best run is under half the median: too noisy");
	s = (struct cp_stat){.n = 1, .median = 6.52, .min = 6.52, .max = 6.52};
	ok(!cp_stat_too_noisy(&s, true), "a single run: never");
}

static bool group_has(const struct cp_inventory *inv, const char *name, enum cp_class class)
{
	for (size_t i = 0; i < inv->n_algs; i++)
		if (strcmp(inv->algs[i].name, name) == 0 && inv->algs[i].class == class &&
		    !cp_calibration_skip_reason(&inv->algs[i]))
			return true;
	return false;
}

/*
 * Names are measured where an engine competes with the CPU and wins today
 * first, so that a short budget decides those: on the LX2160A, CAAM's
 * cbc(aes) before the CPU-only names.
 */
static void test_names_by_tier(void)
{
	uint32_t size = 4096;
	struct cp_calibrate_options opts = {.sizes = &size,
					    .n_sizes = 1,
					    .workload_size = size,
					    .depth = 1,
					    .cache_only = true,
					    .without_candidates = true};
	struct cp_calibration cal;
	struct cp_inventory inv;
	bool seen_other = false, out_of_order = false;
	size_t n_first = 0;

	load_fixture("proc-crypto-lx2160a.txt", &inv);
	is_int(cp_calibrate(&inv, &opts, &cal), 0, "selected");
	for (size_t i = 0; i < cal.n_measured; i++) {
		const char *name = cal.measured[i].name;
		const struct cp_alg *winner = cp_inventory_winner(&inv, name);
		bool engine_wins = group_has(&inv, name, CP_CLASS_CPU) &&
				   group_has(&inv, name, CP_CLASS_OFFLOAD) && winner &&
				   winner->class == CP_CLASS_OFFLOAD;

		out_of_order |= engine_wins && seen_other;
		seen_other |= !engine_wins;
		n_first += engine_wins;
	}
	ok(n_first > 0 && cal.n_measured > n_first, "names of both kinds (%zu of %zu first)",
	   n_first, cal.n_measured);
	ok(!out_of_order, "where an engine wins over the CPU today: measured first");
	cp_calibration_free(&cal);
	cp_inventory_free(&inv);

	/* Listed first by the kernel, measured last: the CPU against the CPU. */
	static const struct {
		const char *name, *driver;
		uint32_t priority, flags;
	} rows[] = {
	    {"xts(aes)", "xts-aes-ce", 300, CP_ALG_TESTED},
	    {"xts(aes)", "xts-aes-neonbs", 250, CP_ALG_TESTED},
	    {"cbc(aes)", "cbc-aes-engine", 3000, CP_ALG_TESTED | CP_ALG_KERN_DRIVER_ONLY},
	    {"cbc(aes)", "cbc-aes-ce", 300, CP_ALG_TESTED},
	};

	inv = (struct cp_inventory){};
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct cp_alg alg = {.priority = rows[i].priority, .flags = rows[i].flags};

		snprintf(alg.name, sizeof(alg.name), "%s", rows[i].name);
		snprintf(alg.driver, sizeof(alg.driver), "%s", rows[i].driver);
		snprintf(alg.type, sizeof(alg.type), "skcipher");
		snprintf(alg.module, sizeof(alg.module), "kernel");
		if (cp_inventory_add(&inv, &alg) < 0)
			abort();
	}
	cp_classify(&inv, NULL);
	is_int(cp_calibrate(&inv, &opts, &cal), 0, "selected");
	ok(cal.n_measured == 4 && strcmp(cal.measured[0].name, "cbc(aes)") == 0 &&
	       strcmp(cal.measured[3].name, "xts(aes)") == 0,
	   "the engine's name before the one listed first (%s first)",
	   cal.n_measured ? cal.measured[0].name : "none");
	cp_calibration_free(&cal);
	cp_inventory_free(&inv);
}

int main(void)
{
	test_budget_accounting();
	test_stats();
	test_cpustat();
	test_cache_round_trip();
	test_cache_corrupt();
	test_cache_key_order();
	test_cache_comment_at_end();
	test_cache_module_memo();
	test_reference_and_skips();
	test_preloaded_cache();
	test_verification_cached();
	test_candidates_selected();
	test_order_known();
	test_too_noisy();
	test_names_by_tier();
	return done_testing();
}
