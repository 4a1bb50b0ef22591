/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The calibration cache in memory (calib-cache.h): lookups, updates and the
 * keys a figure is valid for; the file's format is calib-cache-json.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <json-c/json.h>

#include "calib-cache.h"
#include "fileio.h"
#include "json-util.h"
#include "macro.h"

void cp_cache_free(struct cp_cache *cache)
{
	free(cache->entries);
	free(cache->defaults);
	cp_module_memo_free(&cache->modules);
	memset(cache, 0, sizeof(*cache));
}

int cp_cache_load(const char *path, struct cp_cache *cache)
{
	_cleanup_free_ char *text = NULL;
	int r;

	memset(cache, 0, sizeof(*cache));
	r = cp_read_file(path, CP_CACHE_MAX_SIZE, &text, NULL);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	return cp_cache_parse(text, cache);
}

int cp_cache_save(const char *path, const struct cp_cache *cache)
{
	_cleanup_free_ char *text = NULL;
	int r = cp_cache_format(cache, &text);

	return r < 0 ? r : cp_write_file_atomic(path, text, strlen(text), 0644);
}

static bool same_key(const struct cp_cache_key *a, const struct cp_cache_key *b)
{
	/* The driver first: where keys of one machine differ. */
	return streq(a->driver, b->driver) && streq(a->kernel, b->kernel) &&
	       streq(a->build, b->build) && streq(a->cpu_model, b->cpu_model) &&
	       streq(a->module, b->module) && streq(a->srcversion, b->srcversion);
}

const struct cp_cache_entry *cp_cache_find(const struct cp_cache *cache,
					   const struct cp_cache_key *key, uint32_t size,
					   uint32_t depth)
{
	for (size_t i = 0; i < cache->n_entries; i++) {
		const struct cp_cache_entry *e = &cache->entries[i];

		if (e->point.size == size && e->point.depth == depth && same_key(&e->key, key))
			return e;
	}
	return NULL;
}

int cp_cache_put(struct cp_cache *cache, const struct cp_cache_entry *entry)
{
	struct cp_cache_entry *entries;
	const struct cp_cache_entry *old =
	    cp_cache_find(cache, &entry->key, entry->point.size, entry->point.depth);

	if (old) {
		cache->entries[old - cache->entries] = *entry;
		return 0;
	}
	if (cache->n_entries >= CP_CACHE_MAX_ENTRIES)
		return -ENOSPC;
	entries = reallocarray(cache->entries, cache->n_entries + 1, sizeof(*entries));
	if (!entries)
		return -ENOMEM;
	cache->entries = entries;
	entries[cache->n_entries++] = *entry;
	return 0;
}

static bool same_default_key(const struct cp_cache_key *a, const struct cp_cache_key *b)
{
	return streq(a->driver, b->driver) && streq(a->kernel, b->kernel) &&
	       streq(a->build, b->build) && streq(a->module, b->module) &&
	       streq(a->srcversion, b->srcversion);
}

const struct cp_cache_default *cp_cache_find_default(const struct cp_cache *cache,
						     const struct cp_cache_key *key)
{
	for (size_t i = 0; i < cache->n_defaults; i++)
		if (same_default_key(&cache->defaults[i].key, key))
			return &cache->defaults[i];
	return NULL;
}

int cp_cache_put_default(struct cp_cache *cache, const struct cp_cache_default *def)
{
	struct cp_cache_default *defaults;

	if (cp_cache_find_default(cache, &def->key))
		return 0;
	if (cache->n_defaults >= CP_CACHE_MAX_ENTRIES)
		return -ENOSPC;
	defaults = reallocarray(cache->defaults, cache->n_defaults + 1, sizeof(*defaults));
	if (!defaults)
		return -ENOMEM;
	cache->defaults = defaults;
	defaults[cache->n_defaults] = *def;
	defaults[cache->n_defaults].key.cpu_model[0] = '\0'; /* the CPU does not set it */
	cache->n_defaults++;
	return 1;
}

/* First line of @path starting with @prefix, after the colon; "" if none. */
static void read_field(const char *path, const char *prefix, char *dst, size_t size)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	_cleanup_free_ char *line = NULL;
	size_t n = 0;

	dst[0] = '\0';
	while (f && getline(&line, &n, f) >= 0) {
		char *colon = strchr(line, ':');

		if (strncmp(line, prefix, strlen(prefix)) != 0 || (*prefix && !colon))
			continue;
		cp_strscpy(dst, size, *prefix ? colon + 1 + strspn(colon + 1, " \t") : line);
		dst[strcspn(dst, "\n")] = '\0';
		return;
	}
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (uint8_t) *s) * 0x100000001b3ull;
	return h;
}

/* Another machine's identity (cp_cache_keys_assume()), or NULL: this one. */
static const struct cp_cache_key *assumed_machine;
static const struct cp_module_version *assumed_modules;
static size_t n_assumed_modules;

void cp_cache_keys_assume(const struct cp_cache_key *machine,
			  const struct cp_module_version *modules, size_t n_modules)
{
	assumed_machine = machine;
	assumed_modules = modules;
	n_assumed_modules = n_modules;
}

/*
 * The kernel and CPU parts of every key, read once per process: /proc/cpuinfo
 * alone costs a millisecond a read under emulation, and a warm start looks
 * up every competing driver.
 */
static int machine_key(struct cp_cache_key *key)
{
	static struct cp_cache_key machine;
	static bool known;
	char version[512];
	struct utsname uts;

	if (assumed_machine) {
		memcpy(key->kernel, assumed_machine->kernel, sizeof(key->kernel));
		memcpy(key->build, assumed_machine->build, sizeof(key->build));
		memcpy(key->cpu_model, assumed_machine->cpu_model, sizeof(key->cpu_model));
		return 0;
	}
	if (!known) {
		if (uname(&uts) < 0)
			return negative_errno();
		cp_strscpy(machine.kernel, sizeof(machine.kernel), uts.release);
		read_field("/proc/version", "", version, sizeof(version));
		snprintf(machine.build, sizeof(machine.build), "%016" PRIx64, fnv1a(version));
		read_field("/proc/cpuinfo", "model name", machine.cpu_model,
			   sizeof(machine.cpu_model));
		known = true;
	}
	memcpy(key->kernel, machine.kernel, sizeof(key->kernel));
	memcpy(key->build, machine.build, sizeof(key->build));
	memcpy(key->cpu_model, machine.cpu_model, sizeof(key->cpu_model));
	return 0;
}

/*
 * Each module's srcversion, read once per run (cp_cache_keys_forget()): a
 * warm start builds a key for every competing driver, most of them from
 * the same few modules, and each read of /sys is a system call or three.
 */
static struct {
	char module[CP_NAME_MAX];
	char srcversion[sizeof(((struct cp_cache_key *) NULL)->srcversion)];
} srcversions[32];
static size_t n_srcversions;

void cp_cache_keys_forget(void)
{
	n_srcversions = 0;
}

static void module_srcversion(const char *module, char *srcversion)
{
	size_t size = sizeof(srcversions[0].srcversion);
	char path[128 + CP_NAME_MAX];

	if (assumed_machine) {
		srcversion[0] = '\0';
		for (size_t i = 0; i < n_assumed_modules; i++)
			if (strcmp(assumed_modules[i].module, module) == 0)
				memcpy(srcversion, assumed_modules[i].srcversion, size);
		return;
	}
	for (size_t i = 0; i < n_srcversions; i++)
		if (strcmp(srcversions[i].module, module) == 0) {
			memcpy(srcversion, srcversions[i].srcversion, size);
			return;
		}
	snprintf(path, sizeof(path), "/sys/module/%s/srcversion", module);
	read_field(path, "", srcversion, size);
	if (n_srcversions == ARRAY_SIZE(srcversions))
		return;
	cp_strscpy(srcversions[n_srcversions].module, CP_NAME_MAX, module);
	memcpy(srcversions[n_srcversions++].srcversion, srcversion, size);
}

void cp_cache_module_srcversion(const char *module, char srcversion[static 64])
{
	module_srcversion(module, srcversion);
}

int cp_cache_key_for(const struct cp_alg *alg, struct cp_cache_key *key)
{
	int r;

	memset(key, 0, sizeof(*key));
	r = machine_key(key);
	if (r < 0)
		return r;
	cp_strscpy(key->driver, sizeof(key->driver), alg->driver);
	cp_strscpy(key->module, sizeof(key->module), alg->module);
	module_srcversion(alg->module, key->srcversion);
	return 0;
}
