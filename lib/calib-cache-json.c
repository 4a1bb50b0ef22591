/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The calibration cache's file, version 2: the figures and defaults
 * grouped by the machine they were taken on, a figure's statistics as an
 * array. Read at every start: what repeated itself in version 1 (the
 * kernel, its build and the CPU in every entry, the statistics' names in
 * every figure) was most of what a warm start parsed.
 *
 *   {"version":2,"machines":[{"kernel":K,"build":B,"cpu_model":C,
 *     "entries":[{"driver","module","srcversion","backend","kat",
 *                 "measured_at","size","depth","max_in_flight",
 *                 "mbps":[N,MEDIAN,MIN,MAX,MAD],"ns_per_request":[...],
 *                 "cpu_ns_per_byte":[...],"decided"}],
 *     "defaults":[{"driver","module","srcversion","priority","seen_at"}]}]}
 *
 * Defaults belong to the machine whose cpu_model is "" (the CPU does not
 * set a priority). A file of version 1 is read as empty: its figures are
 * measured again.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "calib-cache.h"
#include "json-util.h"
#include "macro.h"

#define CACHE_VERSION_1 1

static int get_figure(json_object *array, size_t i, double *ret)
{
	json_object *value = json_object_array_get_idx(array, i);

	if (!json_object_is_type(value, json_type_double) &&
	    !json_object_is_type(value, json_type_int))
		return -EBADMSG;
	*ret = json_object_get_double(value);
	return isfinite(*ret) && *ret >= 0 ? 0 : -EBADMSG;
}

/* [N, MEDIAN, MIN, MAX, MAD] */
static int parse_stat(json_object *obj, const char *key, struct cp_stat *stat)
{
	json_object *a, *n;
	int64_t runs;

	if (!json_object_object_get_ex(obj, key, &a) || !json_object_is_type(a, json_type_array) ||
	    json_object_array_length(a) != 5)
		return -EBADMSG;
	n = json_object_array_get_idx(a, 0);
	if (!json_object_is_type(n, json_type_int))
		return -EBADMSG;
	runs = json_object_get_int64(n);
	if (runs < 1 || runs > CP_STAT_MAX_RUNS || get_figure(a, 1, &stat->median) < 0 ||
	    get_figure(a, 2, &stat->min) < 0 || get_figure(a, 3, &stat->max) < 0 ||
	    get_figure(a, 4, &stat->mad) < 0)
		return -EBADMSG;
	stat->n = (unsigned) runs;
	return stat->min <= stat->median && stat->median <= stat->max ? 0 : -EBADMSG;
}

/* The driver's part of a key; the machine's part is @machine's. */
static int parse_driver_key(json_object *obj, const struct cp_cache_key *machine,
			    struct cp_cache_key *key)
{
	*key = *machine;
	if (!json_object_is_type(obj, json_type_object) ||
	    cp_json_get_string(obj, "driver", key->driver, sizeof(key->driver), false) < 0 ||
	    /* none for a template instance (cp_measured_cache_key()) */
	    cp_json_get_string(obj, "module", key->module, sizeof(key->module), true) < 0 ||
	    cp_json_get_string(obj, "srcversion", key->srcversion, sizeof(key->srcversion), true) <
		0)
		return -EBADMSG;
	return 0;
}

static int parse_kat(json_object *obj, enum cryptoprio_kat *ret)
{
	char kat[16];

	if (cp_json_get_string(obj, "kat", kat, sizeof(kat), false) < 0)
		return -EBADMSG;
	/* Only trusted figures are cached. */
	if (strcmp(kat, "ok") == 0)
		*ret = CRYPTOPRIO_KAT_OK;
	else if (strcmp(kat, "unsupported") == 0)
		*ret = CRYPTOPRIO_KAT_UNSUPPORTED;
	else
		return -EBADMSG;
	return 0;
}

static int parse_entry(json_object *obj, const struct cp_cache_key *machine,
		       struct cp_cache_entry *e)
{
	int64_t size, depth, max_in_flight, measured_at;
	char backend[16];
	json_object *v;

	if (parse_driver_key(obj, machine, &e->key) < 0 ||
	    cp_json_get_string(obj, "backend", backend, sizeof(backend), false) < 0 ||
	    cp_backend_from_string(backend, &e->backend) < 0 || e->backend == CP_BACKEND_NONE ||
	    parse_kat(obj, &e->kat) < 0 ||
	    cp_json_get_int(obj, "measured_at", 0, INT64_MAX, &measured_at) < 0 ||
	    cp_json_get_int(obj, "size", 1, CRYPTOPRIO_MAX_REQ_SIZE, &size) < 0 ||
	    cp_json_get_int(obj, "depth", 1, CRYPTOPRIO_MAX_DEPTH, &depth) < 0 ||
	    cp_json_get_int(obj, "max_in_flight", 0, CRYPTOPRIO_MAX_DEPTH, &max_in_flight) < 0 ||
	    !json_object_object_get_ex(obj, "decided", &v) ||
	    !json_object_is_type(v, json_type_boolean))
		return -EBADMSG;
	e->measured_at = (time_t) measured_at;
	e->point = (struct cp_point){.size = (uint32_t) size,
				     .depth = (uint32_t) depth,
				     .verdict = CP_VERDICT_MEASURED,
				     .cached = true,
				     .decided = json_object_get_boolean(v),
				     .max_in_flight = (uint32_t) max_in_flight};
	if (parse_stat(obj, "mbps", &e->point.mbps) < 0 ||
	    parse_stat(obj, "ns_per_request", &e->point.ns_per_request) < 0 ||
	    parse_stat(obj, "cpu_ns_per_byte", &e->point.cpu_ns_per_byte) < 0)
		return -EBADMSG;
	return 0;
}

static int parse_default(json_object *obj, const struct cp_cache_key *machine,
			 struct cp_cache_default *d)
{
	int64_t priority, seen_at;

	if (parse_driver_key(obj, machine, &d->key) < 0 ||
	    cp_json_get_int(obj, "priority", 0, INT32_MAX, &priority) < 0 ||
	    cp_json_get_int(obj, "seen_at", 0, INT64_MAX, &seen_at) < 0)
		return -EBADMSG;
	d->priority = (uint32_t) priority;
	d->seen_at = (time_t) seen_at;
	return 0;
}

/* The array @key of @obj (absent: none), its length in @n, within what a cache may hold. */
static int get_array(json_object *obj, const char *key, size_t held, json_object **ret, size_t *n)
{
	*ret = NULL;
	*n = 0;
	if (!json_object_object_get_ex(obj, key, ret))
		return 0;
	if (!json_object_is_type(*ret, json_type_array))
		return -EBADMSG;
	*n = json_object_array_length(*ret);
	return *n > CP_CACHE_MAX_ENTRIES - held ? -EBADMSG : 0;
}

static int parse_entries(json_object *m, const struct cp_cache_key *machine, struct cp_cache *cache)
{
	struct cp_cache_entry *entries;
	json_object *array;
	size_t n;

	if (get_array(m, "entries", cache->n_entries, &array, &n) < 0)
		return -EBADMSG;
	entries = reallocarray(cache->entries, cache->n_entries + n + 1, sizeof(*entries));
	if (!entries)
		return -ENOMEM;
	cache->entries = entries;
	for (size_t i = 0; i < n; i++) {
		if (parse_entry(json_object_array_get_idx(array, i), machine,
				&entries[cache->n_entries]) < 0)
			return -EBADMSG;
		cache->n_entries++;
	}
	return 0;
}

static int parse_defaults(json_object *m, const struct cp_cache_key *machine,
			  struct cp_cache *cache)
{
	struct cp_cache_default *defaults;
	json_object *array;
	size_t n;

	if (get_array(m, "defaults", cache->n_defaults, &array, &n) < 0 ||
	    (n > 0 && machine->cpu_model[0]))
		return -EBADMSG;
	defaults = reallocarray(cache->defaults, cache->n_defaults + n + 1, sizeof(*defaults));
	if (!defaults)
		return -ENOMEM;
	cache->defaults = defaults;
	for (size_t i = 0; i < n; i++) {
		struct cp_cache_default *d = &defaults[cache->n_defaults];

		if (parse_default(json_object_array_get_idx(array, i), machine, d) < 0 ||
		    cp_cache_find_default(cache, &d->key))
			return -EBADMSG; /* two defaults for one driver: which is true? */
		cache->n_defaults++;
	}
	return 0;
}

static int parse_machine(json_object *m, struct cp_cache *cache)
{
	struct cp_cache_key machine = {};
	int r;

	if (!json_object_is_type(m, json_type_object) ||
	    cp_json_get_string(m, "kernel", machine.kernel, sizeof(machine.kernel), false) < 0 ||
	    cp_json_get_string(m, "build", machine.build, sizeof(machine.build), false) < 0 ||
	    cp_json_get_string(m, "cpu_model", machine.cpu_model, sizeof(machine.cpu_model), true) <
		0)
		return -EBADMSG;
	r = parse_entries(m, &machine, cache);
	return r < 0 ? r : parse_defaults(m, &machine, cache);
}

int cp_cache_parse(const char *text, struct cp_cache *cache)
{
	json_object *doc, *machines;
	int64_t version;
	size_t n;
	int r;

	memset(cache, 0, sizeof(*cache));
	r = cp_json_parse_any_version(text, &doc, &version);
	if (r < 0)
		return r;
	if (version == CACHE_VERSION_1) {
		json_object_put(doc);
		return 0;
	}
	r = -EBADMSG;
	if (version == CP_CACHE_VERSION && json_object_object_get_ex(doc, "machines", &machines) &&
	    json_object_is_type(machines, json_type_array))
		r = 0;
	n = r < 0 ? 0 : json_object_array_length(machines);
	for (size_t i = 0; r >= 0 && i < n; i++)
		r = parse_machine(json_object_array_get_idx(machines, i), cache);
	json_object_put(doc);
	if (r < 0)
		cp_cache_free(cache);
	return r;
}

/*
 * Six significant digits: the runs' noise is percents, and json-c's 17
 * digits made a third of the file.
 */
static json_object *format_stat(const struct cp_stat *stat)
{
	const double figures[] = {stat->median, stat->min, stat->max, stat->mad};
	json_object *a = json_object_new_array_ext(5);

	json_object_array_add(a, json_object_new_int((int) stat->n));
	for (size_t i = 0; i < ARRAY_SIZE(figures); i++) {
		char text[32];

		snprintf(text, sizeof(text), "%.6g", figures[i]);
		json_object_array_add(a, json_object_new_double_s(figures[i], text));
	}
	return a;
}

static json_object *format_driver_key(const struct cp_cache_key *key)
{
	json_object *obj = json_object_new_object();

	json_object_object_add(obj, "driver", json_object_new_string(key->driver));
	json_object_object_add(obj, "module", json_object_new_string(key->module));
	json_object_object_add(obj, "srcversion", json_object_new_string(key->srcversion));
	return obj;
}

static json_object *format_default(const struct cp_cache_default *d)
{
	json_object *obj = format_driver_key(&d->key);

	json_object_object_add(obj, "priority", json_object_new_int64(d->priority));
	json_object_object_add(obj, "seen_at", json_object_new_int64(d->seen_at));
	return obj;
}

static json_object *format_entry(const struct cp_cache_entry *e)
{
	json_object *obj = format_driver_key(&e->key);

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

static bool is_machine(json_object *m, const char *key, const char *value)
{
	return strcmp(json_object_get_string(json_object_object_get(m, key)), value) == 0;
}

/* The object of @key's machine in @machines, added at the end if new. */
static json_object *machine_of(json_object *machines, const struct cp_cache_key *key)
{
	size_t n = json_object_array_length(machines);
	json_object *m;

	for (size_t i = 0; i < n; i++) {
		m = json_object_array_get_idx(machines, i);
		if (is_machine(m, "kernel", key->kernel) && is_machine(m, "build", key->build) &&
		    is_machine(m, "cpu_model", key->cpu_model))
			return m;
	}
	m = json_object_new_object();
	json_object_object_add(m, "kernel", json_object_new_string(key->kernel));
	json_object_object_add(m, "build", json_object_new_string(key->build));
	json_object_object_add(m, "cpu_model", json_object_new_string(key->cpu_model));
	json_object_object_add(m, "entries", json_object_new_array());
	json_object_object_add(m, "defaults", json_object_new_array());
	json_object_array_add(machines, m);
	return m;
}

int cp_cache_format(const struct cp_cache *cache, char **ret_text)
{
	json_object *doc = cp_json_new_versioned(CP_CACHE_VERSION),
		    *machines = json_object_new_array();

	if (!doc || !machines) {
		json_object_put(doc);
		json_object_put(machines);
		return -ENOMEM;
	}
	for (size_t i = 0; i < cache->n_entries; i++)
		json_object_array_add(
		    json_object_object_get(machine_of(machines, &cache->entries[i].key), "entries"),
		    format_entry(&cache->entries[i]));
	for (size_t i = 0; i < cache->n_defaults; i++)
		json_object_array_add(
		    json_object_object_get(machine_of(machines, &cache->defaults[i].key),
					   "defaults"),
		    format_default(&cache->defaults[i]));
	json_object_object_add(doc, "machines", machines);
	/* One line: read at every start, by a program, not by a person. */
	return cp_json_format_compact(doc, ret_text);
}
