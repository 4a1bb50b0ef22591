/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/metrics.c on 7.2's inventory with a state and a cache made here: the
 * last apply, its failed step, drift, the winners, a created instance whose
 * name needs escaping, the figures at the workload point, an engine's
 * verification; the text parsed
 * by Prometheus' own parser (tests/tools/check-metrics).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metrics.h"
#include "proc-fixture.h"
#include "tap.h"

static void add_step(struct cp_state_apply *a, const char *driver, uint32_t old, uint32_t new,
		     enum cp_step_result result)
{
	struct cp_state_step step = {
	    .action = CP_STEP_SET, .old_priority = old, .new_priority = new, .result = result};

	cp_strscpy(step.driver, sizeof(step.driver), driver);
	cp_strscpy(step.name, sizeof(step.name), "cbc(aes)");
	if (cp_state_apply_add_step(a, &step) < 0)
		abort();
}

/* The last apply: virtio raised (done), aesni lowered (failed); both recorded originals. */
static void make_state(struct cp_state *state, const struct cp_inventory *inv)
{
	struct cp_state_apply *a = cp_state_apply_new();
	struct cp_created odd = {.priority = 0, .in_use = true};

	if (!a)
		abort();
	a->started_at = 1790000000;
	a->finished_at = 1790000001;
	add_step(a, "virtio_crypto_aes_cbc", 150, 4000, CP_STEP_DONE);
	add_step(a, "cbc-aes-aesni", 400, 100, CP_STEP_FAILED);
	cp_state_set_last_apply(state, a);
	state->checked_at = 1790000002;
	if (cp_state_record(state, cp_inventory_find_driver(inv, "virtio_crypto_aes_cbc")) < 0 ||
	    cp_state_record(state, cp_inventory_find_driver(inv, "cbc-aes-aesni")) < 0)
		abort();
	cp_strscpy(odd.driver, sizeof(odd.driver), "odd\"name\\x");
	cp_strscpy(odd.name, sizeof(odd.name), "cbc(aes)");
	if (cp_state_add_created(state, &odd) < 0)
		abort();
}

static void put_figure(struct cp_cache *cache, const struct cp_alg *alg, double mbps)
{
	struct cp_cache_entry e = {.backend = CP_BACKEND_MODULE, .kat = CRYPTOPRIO_KAT_OK};

	if (cp_cache_key_for(alg, &e.key) < 0)
		abort();
	e.point = (struct cp_point){.size = 4096, .depth = 1, .verdict = CP_VERDICT_MEASURED};
	e.point.mbps = (struct cp_stat){.n = 3, .median = mbps, .min = mbps, .max = mbps};
	e.point.ns_per_request = (struct cp_stat){.n = 3, .median = 2000, .min = 2000, .max = 2000};
	e.point.cpu_ns_per_byte = (struct cp_stat){.n = 3, .median = 0.5, .min = 0.5, .max = 0.5};
	if (cp_cache_put(cache, &e) < 0)
		abort();
	/* Another point: not the workload's, not shown. */
	e.point.size = 65536;
	if (cp_cache_put(cache, &e) < 0)
		abort();
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p += n)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

/* Prometheus' parser over @text, with these samples expected in it. */
static bool parses(const char *text, const char *expect)
{
	char path[] = "/tmp/test-metrics.XXXXXX", cmd[4096];
	int fd = mkstemp(path), r;

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t) strlen(text))
		abort();
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s %s %s", CHECK_METRICS, path, expect);
	r = system(cmd);
	unlink(path);
	return r == 0;
}

static void test_escape(void)
{
	char out[16];

	is_int(cp_metrics_escape("a\"b\\c\nd", out, sizeof(out)), 10, "escaped length");
	is_str(out, "a\\\"b\\\\c\\nd", "backslash, quote and line feed escaped");
	is_int(cp_metrics_escape("0123456789abcdef", out, sizeof(out)), -ENAMETOOLONG,
	       "too long for the buffer: refused");
}

static size_t drift_gauge(const struct cp_state *state, const struct cp_inventory *inv,
			  const struct cp_policy *policy)
{
	_cleanup_free_ char *text = NULL;
	const char *p;

	if (cp_metrics_format(&(struct cp_metrics_input){state, inv, NULL, policy}, &text) < 0 ||
	    !(p = strstr(text, "\ncryptoprio_drifted_implementations ")))
		abort();
	return strtoul(p + strlen("\ncryptoprio_drifted_implementations "), NULL, 10);
}

/*
 * With the winners recorded, the gauge counts the names and callers whose
 * winner moved, not the priorities: virtio at 150 again moves none.
 */
static void test_winners(struct cp_state *state, struct cp_inventory *inv,
			 const struct cp_policy *policy)
{
	struct cp_alg *aesni = (struct cp_alg *) cp_inventory_find_driver(inv, "cbc-aes-aesni");
	struct cp_winners w;

	/* /proc/crypto's text: no flag says which allocate memory; those callers not told. */
	inv->source = CP_SOURCE_PROC_CRYPTO;
	ok(cp_winners_of(inv, "cbc(aes)", &w) && streq(w.driver[CP_CALLER_ANY], "cbc-aes-aesni"),
	   "cbc(aes)'s winner: aesni above virtio at 150");
	if (cp_state_apply_set_winners(state->last_apply, &w) < 0)
		abort();
	state->last_apply->winners_recorded = true;
	is_int(drift_gauge(state, inv, policy), 0,
	       "winners recorded: virtio's priority changed, no winner moved: no drift");
	aesni->priority = 100;
	is_int(drift_gauge(state, inv, policy), 1, "aesni below virtio: any caller's winner moved");
}

int main(void)
{
	_cleanup_(cp_inventory_free) struct cp_inventory inv = {};
	_cleanup_(cp_state_free) struct cp_state state = {};
	_cleanup_(cp_cache_free) struct cp_cache cache = {};
	_cleanup_(cp_policy_freep) struct cp_policy *policy = cp_policy_new();
	_cleanup_free_ char *text = NULL;
	struct cp_cache_key machine = {.kernel = "7.2.13+deb14-amd64", .build = "0123456789abcdef"};
	struct cp_module_version modules[] = {{"virtio_crypto", "S1"}, {"cryptoprio", "V1"}};
	struct cp_alg *virtio;

	test_escape();
	/* A machine whose cryptoprio module is the build "V1". */
	cp_cache_keys_assume(&machine, modules, ARRAY_SIZE(modules));
	load_fixture("proc-crypto-7.2.txt", &inv);
	cp_inventory_sort(&inv);
	/* The kernel now: virtio at what the plan set, aesni left at 400 (its step failed). */
	virtio = (struct cp_alg *) cp_inventory_find_driver(&inv, "virtio_crypto_aes_cbc");
	make_state(&state, &inv);
	virtio->priority = 4000;
	put_figure(&cache, cp_inventory_find_driver(&inv, "cbc-aes-aesni"), 600);
	put_figure(&cache, virtio, 900);
	cache.entries[cache.n_entries - 2].verified =
	    (struct cp_cache_verified){.seed = 7, .cases = 48, .by = "V1"};

	is_int(cp_metrics_format(&(struct cp_metrics_input){&state, &inv, &cache, policy}, &text),
	       0, "formatted");
	ok(has_line(text, "cryptoprio_last_apply_timestamp_seconds 1790000000"), "last apply");
	ok(has_line(text, "cryptoprio_last_run_success 0"), "a failed step: the run failed");
	ok(has_line(text, "cryptoprio_last_apply_steps_failed 1"), "one step failed");
	ok(has_line(text, "cryptoprio_drifted_implementations 0"), "as planned: no drift");
	ok(has_line(text, "cryptoprio_winner_priority{name=\"cbc(aes)\","
			  "driver=\"virtio_crypto_aes_cbc\",class=\"offload\"} 4000"),
	   "cbc(aes)'s winner and its class");
	ok(has_line(text, "cryptoprio_created_instance_in_use{name=\"cbc(aes)\","
			  "driver=\"odd\\\"name\\\\x\"} 1"),
	   "a label value escaped");
	ok(has_line(text, "cryptoprio_created_instances 0"), "the instance is not registered");
	ok(has_line(text, "cryptoprio_calibration_throughput_bytes_per_second{name=\"cbc(aes)\","
			  "driver=\"virtio_crypto_aes_cbc\",class=\"offload\","
			  "request_size=\"4096\",in_flight=\"1\"} 9e+08"),
	   "the figure at the workload point, in bytes per second");
	ok(!strstr(text, "request_size=\"65536\""), "only the workload point's figures");
	ok(has_line(text, "cryptoprio_engine_verified{name=\"cbc(aes)\","
			  "driver=\"virtio_crypto_aes_cbc\",class=\"offload\"} 1"),
	   "virtio's pass by the loaded module's build: verified");
	ok(!strstr(text, "cryptoprio_engine_verified{name=\"cbc(aes)\",driver=\"cbc-aes-aesni\""),
	   "the CPU's is not an engine: no gauge");
	modules[1] = (struct cp_module_version){"cryptoprio", "V2"};
	cp_cache_keys_forget();
	free(steal_pointer(&text));
	is_int(cp_metrics_format(&(struct cp_metrics_input){&state, &inv, &cache, policy}, &text),
	       0, "formatted, another build of cryptoprio.ko loaded");
	ok(has_line(text, "cryptoprio_engine_verified{name=\"cbc(aes)\","
			  "driver=\"virtio_crypto_aes_cbc\",class=\"offload\"} 0"),
	   "a pass by another build does not count");
	ok(parses(text, "'cryptoprio_last_apply_steps{result=\"done\"} 1' "
			"'cryptoprio_calibration_latency_seconds{name=\"cbc(aes)\","
			"driver=\"cbc-aes-aesni\",class=\"cpu\",request_size=\"4096\","
			"in_flight=\"1\"} 2e-06'"),
	   "Prometheus' parser reads it: HELP, TYPE, no timestamps, the values");

	/* Someone set virtio's priority since: drift. */
	virtio->priority = 150;
	free(steal_pointer(&text));
	is_int(cp_metrics_format(&(struct cp_metrics_input){&state, &inv, NULL, policy}, &text), 0,
	       "formatted without a cache");
	ok(has_line(text, "cryptoprio_drifted_implementations 1"), "drift: virtio at 150 now");
	ok(!strstr(text, "cryptoprio_calibration_"), "no cache: no figures");
	ok(parses(text, "'cryptoprio_drifted_implementations 1'"), "parses without figures");
	test_winners(&state, &inv, policy);
	cp_cache_keys_assume(NULL, NULL, 0);
	return done_testing();
}
