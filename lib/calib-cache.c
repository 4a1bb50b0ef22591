/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
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
	memset(cache, 0, sizeof(*cache));
}

static int get_double(json_object *obj, const char *key, double *ret)
{
	json_object *value;

	if (!json_object_object_get_ex(obj, key, &value) ||
	    !(json_object_is_type(value, json_type_double) ||
	      json_object_is_type(value, json_type_int)))
		return -EBADMSG;
	*ret = json_object_get_double(value);
	return isfinite(*ret) && *ret >= 0 ? 0 : -EBADMSG;
}

static int parse_stat(json_object *obj, const char *key, struct cp_stat *stat)
{
	json_object *s;
	int64_t n;

	if (!json_object_object_get_ex(obj, key, &s) || !json_object_is_type(s, json_type_object))
		return -EBADMSG;
	if (cp_json_get_int(s, "n", 1, CP_STAT_MAX_RUNS, &n) < 0 ||
	    get_double(s, "median", &stat->median) < 0 || get_double(s, "min", &stat->min) < 0 ||
	    get_double(s, "max", &stat->max) < 0 || get_double(s, "mad", &stat->mad) < 0)
		return -EBADMSG;
	stat->n = (unsigned) n;
	return stat->min <= stat->median && stat->median <= stat->max ? 0 : -EBADMSG;
}

static int parse_key(json_object *obj, struct cp_cache_key *key)
{
	if (cp_json_get_string(obj, "kernel", key->kernel, sizeof(key->kernel), false) < 0 ||
	    cp_json_get_string(obj, "build", key->build, sizeof(key->build), false) < 0 ||
	    cp_json_get_string(obj, "cpu_model", key->cpu_model, sizeof(key->cpu_model), true) <
		0 ||
	    cp_json_get_string(obj, "driver", key->driver, sizeof(key->driver), false) < 0 ||
	    /* none for a template instance (cp_measured_cache_key()) */
	    cp_json_get_string(obj, "module", key->module, sizeof(key->module), true) < 0 ||
	    cp_json_get_string(obj, "srcversion", key->srcversion, sizeof(key->srcversion), true) <
		0)
		return -EBADMSG;
	return 0;
}

static int parse_entry(json_object *obj, struct cp_cache_entry *e)
{
	char backend[16], kat[16];
	json_object *v;
	int64_t size, depth, max_in_flight, measured_at;
	int r;

	if (!json_object_is_type(obj, json_type_object) || parse_key(obj, &e->key) < 0)
		return -EBADMSG;
	if (cp_json_get_string(obj, "backend", backend, sizeof(backend), false) < 0 ||
	    cp_backend_from_string(backend, &e->backend) < 0 || e->backend == CP_BACKEND_NONE)
		return -EBADMSG;
	if (cp_json_get_string(obj, "kat", kat, sizeof(kat), false) < 0)
		return -EBADMSG;
	r = strcmp(kat, "ok") == 0	      ? CRYPTOPRIO_KAT_OK
	    : strcmp(kat, "unsupported") == 0 ? CRYPTOPRIO_KAT_UNSUPPORTED
					      : -1; /* only trusted figures are cached */
	if (r < 0)
		return -EBADMSG;
	e->kat = (enum cryptoprio_kat) r;
	if (cp_json_get_int(obj, "measured_at", 0, INT64_MAX, &measured_at) < 0 ||
	    cp_json_get_int(obj, "size", 1, CRYPTOPRIO_MAX_REQ_SIZE, &size) < 0 ||
	    cp_json_get_int(obj, "depth", 1, CRYPTOPRIO_MAX_DEPTH, &depth) < 0 ||
	    cp_json_get_int(obj, "max_in_flight", 0, CRYPTOPRIO_MAX_DEPTH, &max_in_flight) < 0)
		return -EBADMSG;
	e->measured_at = (time_t) measured_at;
	e->point = (struct cp_point){.size = (uint32_t) size,
				     .depth = (uint32_t) depth,
				     .verdict = CP_VERDICT_MEASURED,
				     .cached = true,
				     .max_in_flight = (uint32_t) max_in_flight};
	if (parse_stat(obj, "mbps", &e->point.mbps) < 0 ||
	    parse_stat(obj, "ns_per_request", &e->point.ns_per_request) < 0 ||
	    parse_stat(obj, "cpu_ns_per_byte", &e->point.cpu_ns_per_byte) < 0)
		return -EBADMSG;
	/* Optional: caches written before it was recorded say nothing. */
	if (json_object_object_get_ex(obj, "decided", &v)) {
		if (!json_object_is_type(v, json_type_boolean))
			return -EBADMSG;
		e->point.decided = json_object_get_boolean(v);
	}
	return 0;
}

static int parse_entries(json_object *array, struct cp_cache *cache)
{
	size_t n = json_object_array_length(array);

	if (n > CP_CACHE_MAX_ENTRIES)
		return -EBADMSG;
	cache->entries = calloc(n ? n : 1, sizeof(*cache->entries));
	if (!cache->entries)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (parse_entry(json_object_array_get_idx(array, i), &cache->entries[i]) < 0)
			return -EBADMSG;
		cache->n_entries++;
	}
	return 0;
}

static int parse_default(json_object *obj, struct cp_cache_default *d)
{
	int64_t priority, seen_at;

	if (!json_object_is_type(obj, json_type_object) || parse_key(obj, &d->key) < 0 ||
	    d->key.cpu_model[0] || cp_json_get_int(obj, "priority", 0, INT32_MAX, &priority) < 0 ||
	    cp_json_get_int(obj, "seen_at", 0, INT64_MAX, &seen_at) < 0)
		return -EBADMSG;
	d->priority = (uint32_t) priority;
	d->seen_at = (time_t) seen_at;
	return 0;
}

/* Optional: a cache written before defaults were kept has none. */
static int parse_defaults(json_object *doc, struct cp_cache *cache)
{
	json_object *array;
	size_t n;

	if (!json_object_object_get_ex(doc, "defaults", &array))
		return 0;
	if (!json_object_is_type(array, json_type_array))
		return -EBADMSG;
	n = json_object_array_length(array);
	if (n > CP_CACHE_MAX_ENTRIES)
		return -EBADMSG;
	cache->defaults = calloc(n ? n : 1, sizeof(*cache->defaults));
	if (!cache->defaults)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct cp_cache_default *d = &cache->defaults[cache->n_defaults];

		if (parse_default(json_object_array_get_idx(array, i), d) < 0 ||
		    cp_cache_find_default(cache, &d->key))
			return -EBADMSG; /* two defaults for one driver: which is true? */
		cache->n_defaults++;
	}
	return 0;
}

int cp_cache_parse(const char *text, struct cp_cache *cache)
{
	json_object *doc, *entries;
	int r;

	memset(cache, 0, sizeof(*cache));
	r = cp_json_parse_versioned(text, CP_CACHE_VERSION, &doc);
	if (r < 0)
		return r;
	r = -EBADMSG;
	if (json_object_object_get_ex(doc, "entries", &entries) &&
	    json_object_is_type(entries, json_type_array))
		r = parse_entries(entries, cache);
	if (r >= 0)
		r = parse_defaults(doc, cache);
	json_object_put(doc);
	if (r < 0)
		cp_cache_free(cache);
	return r;
}

static json_object *format_stat(const struct cp_stat *stat)
{
	json_object *obj = json_object_new_object();

	json_object_object_add(obj, "n", json_object_new_int((int) stat->n));
	json_object_object_add(obj, "median", json_object_new_double(stat->median));
	json_object_object_add(obj, "min", json_object_new_double(stat->min));
	json_object_object_add(obj, "max", json_object_new_double(stat->max));
	json_object_object_add(obj, "mad", json_object_new_double(stat->mad));
	return obj;
}

static json_object *format_key(const struct cp_cache_key *key)
{
	json_object *obj = json_object_new_object();

	json_object_object_add(obj, "kernel", json_object_new_string(key->kernel));
	json_object_object_add(obj, "build", json_object_new_string(key->build));
	json_object_object_add(obj, "cpu_model", json_object_new_string(key->cpu_model));
	json_object_object_add(obj, "driver", json_object_new_string(key->driver));
	json_object_object_add(obj, "module", json_object_new_string(key->module));
	json_object_object_add(obj, "srcversion", json_object_new_string(key->srcversion));
	return obj;
}

static json_object *format_default(const struct cp_cache_default *d)
{
	json_object *obj = format_key(&d->key);

	json_object_object_add(obj, "priority", json_object_new_int64(d->priority));
	json_object_object_add(obj, "seen_at", json_object_new_int64(d->seen_at));
	return obj;
}

static json_object *format_entry(const struct cp_cache_entry *e)
{
	json_object *obj = format_key(&e->key);

	json_object_object_add(obj, "backend",
			       json_object_new_string(cp_backend_to_string(e->backend)));
	json_object_object_add(obj, "kat", json_object_new_string(cp_mod_kat_to_string(e->kat)));
	json_object_object_add(obj, "measured_at", json_object_new_int64(e->measured_at));
	json_object_object_add(obj, "size", json_object_new_int64(e->point.size));
	json_object_object_add(obj, "depth", json_object_new_int64(e->point.depth));
	json_object_object_add(obj, "max_in_flight", json_object_new_int64(e->point.max_in_flight));
	json_object_object_add(obj, "mbps", format_stat(&e->point.mbps));
	json_object_object_add(obj, "ns_per_request", format_stat(&e->point.ns_per_request));
	json_object_object_add(obj, "cpu_ns_per_byte", format_stat(&e->point.cpu_ns_per_byte));
	json_object_object_add(obj, "decided", json_object_new_boolean(e->point.decided));
	return obj;
}

int cp_cache_format(const struct cp_cache *cache, char **ret_text)
{
	json_object *doc = cp_json_new_versioned(CP_CACHE_VERSION),
		    *entries = json_object_new_array(), *defaults = json_object_new_array();

	if (!doc || !entries || !defaults) {
		json_object_put(doc);
		json_object_put(entries);
		json_object_put(defaults);
		return -ENOMEM;
	}
	for (size_t i = 0; i < cache->n_entries; i++)
		json_object_array_add(entries, format_entry(&cache->entries[i]));
	json_object_object_add(doc, "entries", entries);
	for (size_t i = 0; i < cache->n_defaults; i++)
		json_object_array_add(defaults, format_default(&cache->defaults[i]));
	json_object_object_add(doc, "defaults", defaults);
	return cp_json_format(doc, ret_text);
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
	return strcmp(a->kernel, b->kernel) == 0 && strcmp(a->build, b->build) == 0 &&
	       strcmp(a->cpu_model, b->cpu_model) == 0 && strcmp(a->driver, b->driver) == 0 &&
	       strcmp(a->module, b->module) == 0 && strcmp(a->srcversion, b->srcversion) == 0;
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
	return strcmp(a->kernel, b->kernel) == 0 && strcmp(a->build, b->build) == 0 &&
	       strcmp(a->driver, b->driver) == 0 && strcmp(a->module, b->module) == 0 &&
	       strcmp(a->srcversion, b->srcversion) == 0;
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
		snprintf(dst, size, "%s", *prefix ? colon + 1 + strspn(colon + 1, " \t") : line);
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

	if (!known) {
		if (uname(&uts) < 0)
			return negative_errno();
		snprintf(machine.kernel, sizeof(machine.kernel), "%s", uts.release);
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

int cp_cache_key_for(const struct cp_alg *alg, struct cp_cache_key *key)
{
	char path[128 + CP_NAME_MAX];
	int r;

	memset(key, 0, sizeof(*key));
	r = machine_key(key);
	if (r < 0)
		return r;
	snprintf(key->driver, sizeof(key->driver), "%s", alg->driver);
	snprintf(key->module, sizeof(key->module), "%s", alg->module);
	snprintf(path, sizeof(path), "/sys/module/%s/srcversion", alg->module);
	read_field(path, "", key->srcversion, sizeof(key->srcversion));
	return 0;
}
