/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Default priorities as first seen (lib/defaults.c, kept in the calibration
 * cache) and the salvage of a corrupt state file: what lets `reset` restore
 * the originals when /run/cryptoprio/state.json is lost or broken.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calib-cache.h"
#include "defaults.h"
#include "fileio.h"
#include "macro.h"
#include "tap.h"

static struct cp_alg alg(const char *driver, const char *module, uint32_t priority)
{
	struct cp_alg a = {.priority = priority};

	snprintf(a.name, sizeof(a.name), "cbc(aes)");
	snprintf(a.driver, sizeof(a.driver), "%s", driver);
	snprintf(a.module, sizeof(a.module), "%s", module);
	snprintf(a.type, sizeof(a.type), "skcipher");
	return a;
}

static struct cp_cache_default def_of(const struct cp_alg *a, uint32_t priority)
{
	struct cp_cache_default d = {.priority = priority, .seen_at = 1764460800};

	(void) cp_cache_key_for(a, &d.key);
	return d;
}

static void test_cache_defaults(void)
{
	struct cp_alg engine = alg("virtio_crypto_aes_cbc", "virtio_crypto", 150);
	struct cp_cache cache = {}, loaded = {};
	struct cp_cache_default d = def_of(&engine, 150), other;
	_cleanup_free_ char *text = NULL;
	const struct cp_cache_default *found;

	ok(d.key.cpu_model[0] || access("/proc/cpuinfo", R_OK) < 0,
	   "a measurement key has the CPU model");
	is_int(cp_cache_put_default(&cache, &d), 1, "first sight recorded");
	d.priority = 1234;
	is_int(cp_cache_put_default(&cache, &d), 0, "a later sight does not replace it");
	found = cp_cache_find_default(&cache, &d.key);
	ok(found && found->priority == 150, "the first priority stays");
	ok(found && !found->key.cpu_model[0], "stored without the CPU model");
	is_int(cp_cache_format(&cache, &text), 0, "formatted");
	is_int(cp_cache_parse(text, &loaded), 0, "parsed back");
	is_int(loaded.n_defaults, 1, "one default");
	other = d;
	snprintf(other.key.cpu_model, sizeof(other.key.cpu_model), "AMD EPYC");
	ok(cp_cache_find_default(&loaded, &other.key), "the CPU model does not key a default");
	snprintf(other.key.srcversion, sizeof(other.key.srcversion), "REBUILT");
	ok(!cp_cache_find_default(&loaded, &other.key), "a rebuilt module has its own default");
	cp_cache_free(&loaded);
	cp_cache_free(&cache);

	is_int(cp_cache_parse("{\"version\":2,\"machines\":[{\"kernel\":\"k\",\"build\":\"b\","
			      "\"cpu_model\":\"\",\"entries\":[]}]}",
			      &loaded),
	       0, "a machine without defaults is valid");
	is_int(loaded.n_defaults, 0, "and has none");
	cp_cache_free(&loaded);
	is_int(cp_cache_parse("{\"version\":2,\"machines\":[{\"kernel\":\"k\",\"build\":\"b\","
			      "\"cpu_model\":\"\",\"defaults\":{}}]}",
			      &loaded),
	       -EBADMSG, "defaults not an array: refused");
	is_int(
	    cp_cache_parse("{\"version\":2,\"machines\":[{\"kernel\":\"k\",\"build\":\"b\","
			   "\"cpu_model\":\"EPYC\",\"defaults\":[{\"driver\":\"d\","
			   "\"module\":\"\",\"srcversion\":\"\",\"priority\":1,\"seen_at\":0}]}]}",
			   &loaded),
	    -EBADMSG, "defaults under a CPU model: refused (the CPU sets no priority)");
}

static void test_cache_defaults_corrupt(void)
{
	struct cp_alg engine = alg("virtio_crypto_aes_cbc", "virtio_crypto", 150);
	struct cp_cache cache = {}, loaded;
	struct cp_cache_default d = def_of(&engine, 150);
	_cleanup_free_ char *text = NULL, *twice = NULL;
	char *p;

	(void) cp_cache_put_default(&cache, &d);
	(void) cp_cache_format(&cache, &text);
	cp_cache_free(&cache);
	p = strstr(text, "\"priority\":150");
	ok(p != NULL, "the priority is written as a number");
	if (p) {
		memcpy(p, "\"priority\":-15", 14);
		is_int(cp_cache_parse(text, &loaded), -EBADMSG, "a negative priority: refused");
		memcpy(p, "\"priority\":150", 14);
	}
	/* The same default twice: which one is true cannot be told. */
	p = strstr(text, "\"defaults\":[");
	ok(p != NULL, "defaults written as an array");
	if (p) {
		char *obj = strchr(p, '{'), *end = strchr(obj, '}');

		ok(asprintf(&twice, "%.*s%.*s, %s", (int) (end + 1 - text), text,
			    (int) (end + 1 - obj), obj, end + 1) > 0,
		   "document with a duplicate built");
		is_int(cp_cache_parse(twice, &loaded), -EBADMSG, "a duplicate default: refused");
	}
}

static void test_record_and_recover(void)
{
	struct cp_alg algs[] = {
	    alg("virtio_crypto_aes_cbc", "virtio_crypto", 1234), /* changed, state lost */
	    alg("cbc-aes-aesni", "aesni_intel", 400),		 /* at its default */
	    alg("cbc(aes-generic)", "kernel", 100),		 /* no default recorded */
	};
	struct cp_inventory inv = {.algs = algs, .n_algs = ARRAY_SIZE(algs)};
	struct cp_cache cache = {};
	struct cp_state state, fresh;
	struct cp_cache_default d;
	uint32_t prio = 0;

	cp_state_init(&state);
	cp_state_init(&fresh);
	d = def_of(&algs[0], 150);
	(void) cp_cache_put_default(&cache, &d);
	d = def_of(&algs[1], 400);
	(void) cp_cache_put_default(&cache, &d);

	ok(cp_default_priority(&cache, &algs[0], &prio) && prio == 150, "default found by alg");
	ok(!cp_default_priority(&cache, &algs[2], &prio), "none for an unseen driver");
	is_int(cp_state_record_default(&state, &algs[0], &cache), 1, "original recorded");
	is_int(cp_state_find(&state, algs[0].driver)->priority, 150,
	       "the recorded default, not the current 1234, is the original");
	is_int(cp_state_record_default(&state, &algs[2], &cache), 1, "unseen driver recorded");
	is_int(cp_state_find(&state, algs[2].driver)->priority, 100, "at its current priority");

	is_int(cp_defaults_recover(&fresh, &inv, &cache), 1,
	       "lost state: one driver away from its default");
	ok(cp_state_find(&fresh, algs[0].driver) &&
	       cp_state_find(&fresh, algs[0].driver)->priority == 150,
	   "its original is the default");
	ok(!cp_state_find(&fresh, algs[1].driver), "a driver at its default needs no reset");
	is_int(cp_defaults_recover(&fresh, &inv, &cache), 0, "recovering twice adds nothing");

	cp_cache_free(&cache);
	is_int(cp_defaults_note(&cache, &state, &inv, 1764460800), 2,
	       "both originals noted as defaults");
	ok(cp_default_priority(&cache, &algs[0], &prio) && prio == 150, "noted from the state");
	snprintf(algs[2].module, sizeof(algs[2].module), "other_module");
	cp_cache_free(&cache);
	is_int(cp_defaults_note(&cache, &state, &inv, 1764460800), 1,
	       "a driver now from another module is not noted with the old one's original");
	cp_cache_free(&cache);
	cp_state_free(&state);
	cp_state_free(&fresh);
}

static void test_salvage(const char *dir)
{
	_cleanup_free_ char *path = NULL, *aside = NULL;
	struct cp_state state;

	ok(asprintf(&path, "%s/state.json", dir) > 0 && asprintf(&aside, "%s.corrupt", path) > 0,
	   "paths");
	is_int(cp_state_load_salvage(path, &state), 0, "missing: an empty state");
	cp_state_free(&state);
	is_int(cp_write_file_atomic(path, "{\"version\":1,\"origi", 19, 0644), 0, "truncated file");
	is_int(cp_state_load(path, &state), -EBADMSG, "readers refuse it");
	is_int(cp_state_load_salvage(path, &state), 1, "writers move it aside");
	is_int(state.n_originals, 0, "and start empty");
	ok(access(path, F_OK) < 0 && access(aside, F_OK) == 0, "kept as state.json.corrupt");
	cp_state_free(&state);
	unlink(aside);
}

int main(void)
{
	char dir[] = "/tmp/cryptoprio-test-defaults.XXXXXX";

	if (!mkdtemp(dir))
		return 1;
	test_cache_defaults();
	test_cache_defaults_corrupt();
	test_record_and_recover();
	test_salvage(dir);
	rmdir(dir);
	return done_testing();
}
