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
 *                 "cpu_ns_per_byte":[...],"decided",
 *                 "compressed_size" (a compressor's only),
 *                 "verified_seed","verified_cases","verified_by" (a
 *                 passed verification's only),
 *                 "too_noisy" (true only: measured again, see use_cache())}],
 *     "defaults":[{"driver","module","srcversion","priority","seen_at"}]}],
 *   "modules":{"kernel":K,"index":[SIZE,MTIME_NS],"looked_up":[M...],"offload":[M...]}}
 *
 * "modules" (optional) is lib/class.c's memo of the module index.
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
#include "json-scan.h"
#include "json-util.h"
#include "macro.h"

#define CACHE_VERSION_1 1

/*
 * Read with shared/json-scan.c, straight into the cache's arrays: json-c's
 * tokenizer and the tree it built and freed were a third of a warm start.
 * Each object's keys are matched against a table, each known key at most
 * once, unknown ones skipped.
 */
enum { KEYS_MAX = 16 };

/* The index of @key in @keys, -1 if unknown; -EBADMSG if seen before (bit in @seen). */
static int key_index(const char *key, const char *const *keys, size_t n, unsigned *seen)
{
	for (size_t i = 0; i < n; i++)
		if (streq(key, keys[i])) {
			if (*seen & (1U << i))
				return -EBADMSG;
			*seen |= 1U << i;
			return (int) i;
		}
	return -1;
}

/* The keys of an object scanned: each known one handed to @field, each unknown one skipped. */
static int scan_object(struct cp_jscan *s, const char *const *keys, size_t n_keys,
		       int (*field)(struct cp_jscan *s, int index, void *userdata), void *userdata,
		       unsigned *seen)
{
	char key[32];
	int r, i;

	*seen = 0;
	if (cp_jscan_object(s) < 0)
		return -EBADMSG;
	while ((r = cp_jscan_key(s, key, sizeof(key))) > 0) {
		i = key_index(key, keys, n_keys, seen);
		if (i == -EBADMSG)
			return -EBADMSG;
		r = i < 0 ? cp_jscan_skip(s) : field(s, i, userdata);
		if (r < 0)
			return r;
	}
	return r;
}

/* Whether the first @n_keys keys were all seen. */
static bool all_seen(unsigned seen, size_t n_keys)
{
	unsigned want = (1U << n_keys) - 1;

	return (seen & want) == want;
}

/* [N, MEDIAN, MIN, MAX, MAD] */
static int scan_stat(struct cp_jscan *s, struct cp_stat *stat)
{
	double *figures[] = {&stat->median, &stat->min, &stat->max, &stat->mad};
	int64_t runs;

	if (cp_jscan_array(s) < 0 || cp_jscan_item(s) != 1 ||
	    cp_jscan_int(s, 1, CP_STAT_MAX_RUNS, &runs) < 0)
		return -EBADMSG;
	for (size_t i = 0; i < ARRAY_SIZE(figures); i++)
		if (cp_jscan_item(s) != 1 || cp_jscan_double(s, figures[i]) < 0 || *figures[i] < 0)
			return -EBADMSG;
	if (cp_jscan_item(s) != 0)
		return -EBADMSG;
	stat->n = (unsigned) runs;
	return stat->min <= stat->median && stat->median <= stat->max ? 0 : -EBADMSG;
}

/* The driver's part of a key, first in both entries and defaults. */
enum { KEY_DRIVER, KEY_MODULE, KEY_SRCVERSION, KEY_DRIVER_END };

static int scan_driver_key(struct cp_jscan *s, int index, struct cp_cache_key *key)
{
	switch (index) {
	case KEY_DRIVER:
		return cp_jscan_string(s, key->driver, sizeof(key->driver)) < 0 || !key->driver[0]
			   ? -EBADMSG
			   : 0;
	case KEY_MODULE: /* "" for a template instance (cp_measured_cache_key()) */
		return cp_jscan_string(s, key->module, sizeof(key->module));
	default:
		return cp_jscan_string(s, key->srcversion, sizeof(key->srcversion));
	}
}

static int scan_kat(struct cp_jscan *s, enum cryptoprio_kat *ret)
{
	char kat[16];

	if (cp_jscan_string(s, kat, sizeof(kat)) < 0)
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

static int scan_backend(struct cp_jscan *s, enum cp_backend *ret)
{
	char backend[16];

	if (cp_jscan_string(s, backend, sizeof(backend)) < 0 ||
	    cp_backend_from_string(backend, ret) < 0 || *ret == CP_BACKEND_NONE)
		return -EBADMSG;
	return 0;
}

static int scan_uint32(struct cp_jscan *s, int64_t min, int64_t max, uint32_t *ret)
{
	int64_t v;

	if (cp_jscan_int(s, min, max, &v) < 0)
		return -EBADMSG;
	*ret = (uint32_t) v;
	return 0;
}

static int scan_time(struct cp_jscan *s, time_t *ret)
{
	int64_t v;

	if (cp_jscan_int(s, 0, INT64_MAX, &v) < 0)
		return -EBADMSG;
	*ret = (time_t) v;
	return 0;
}

/* Seeds are drawn below 2^53: exact in any reader's JSON numbers. */
static int scan_seed(struct cp_jscan *s, uint64_t *ret)
{
	int64_t v;

	if (cp_jscan_int(s, 0, CP_VERIFY_SEED_MAX, &v) < 0)
		return -EBADMSG;
	*ret = (uint64_t) v;
	return 0;
}

static const char *const entry_keys[] = {"driver",
					 "module",
					 "srcversion",
					 "backend",
					 "kat",
					 "measured_at",
					 "size",
					 "depth",
					 "max_in_flight",
					 "mbps",
					 "ns_per_request",
					 "cpu_ns_per_byte",
					 "decided",
					 "compressed_size",
					 "verified_seed",
					 "verified_cases",
					 "verified_by",
					 "too_noisy"};
#define ENTRY_KEYS_REQUIRED 13 /* all but compressed_size, the verification and too_noisy */

static int entry_field(struct cp_jscan *s, int index, void *userdata)
{
	struct cp_cache_entry *e = userdata;
	struct cp_point *p = &e->point;

	switch (index) {
	case 3:
		return scan_backend(s, &e->backend);
	case 4:
		return scan_kat(s, &e->kat);
	case 5:
		return scan_time(s, &e->measured_at);
	case 6:
		return scan_uint32(s, 1, CRYPTOPRIO_MAX_REQ_SIZE, &p->size);
	case 7:
		return scan_uint32(s, 1, CRYPTOPRIO_MAX_DEPTH, &p->depth);
	case 8:
		return scan_uint32(s, 0, CRYPTOPRIO_MAX_DEPTH, &p->max_in_flight);
	case 9:
		return scan_stat(s, &p->mbps);
	case 10:
		return scan_stat(s, &p->ns_per_request);
	case 11:
		return scan_stat(s, &p->cpu_ns_per_byte);
	case 12:
		return cp_jscan_bool(s, &p->decided);
	case 13:
		return scan_uint32(s, 1, UINT32_MAX, &p->compressed_size);
	case 14:
		return scan_seed(s, &e->verified.seed);
	case 15:
		return scan_uint32(s, 1, CRYPTOPRIO_VERIFY_MAX_CASES, &e->verified.cases);
	case 16:
		return cp_jscan_string(s, e->verified.by, sizeof(e->verified.by)) < 0 ||
			       !e->verified.by[0]
			   ? -EBADMSG
			   : 0;
	case 17:
		return cp_jscan_bool(s, &p->too_noisy);
	default:
		return scan_driver_key(s, index, &e->key);
	}
}

static const char *const default_keys[] = {"driver", "module", "srcversion", "priority", "seen_at"};

static int default_field(struct cp_jscan *s, int index, void *userdata)
{
	struct cp_cache_default *d = userdata;

	if (index == 3)
		return scan_uint32(s, 0, INT32_MAX, &d->priority);
	if (index == 4)
		return scan_time(s, &d->seen_at);
	return scan_driver_key(s, index, &d->key);
}

/* Room for one more element in *@array of *@n, held by *@room. */
static int grow(void **array, size_t n, size_t *room, size_t elem_size)
{
	size_t want = n < 16 ? 16 : n * 2;
	void *p;

	if (n < *room)
		return 0;
	if (n >= CP_CACHE_MAX_ENTRIES)
		return -EBADMSG;
	want = want > CP_CACHE_MAX_ENTRIES ? CP_CACHE_MAX_ENTRIES : want;
	p = reallocarray(*array, want, elem_size);
	if (!p)
		return -ENOMEM;
	*array = p;
	*room = want;
	return 0;
}

struct scan_cache {
	struct cp_cache *cache;
	size_t room_entries, room_defaults;
	struct cp_cache_key machine; /* the machine's part of its keys */
	int64_t version;
};

/* An array of objects, each into a new element of a growing array, every one of its keys set. */
struct object_array {
	void **array;
	size_t *n, *room, elem_size;
	const void *blank; /* what an element starts as */
	const char *const *keys;
	size_t n_keys, n_required; /* the first n_required keys must be there */
	int (*field)(struct cp_jscan *s, int index, void *elem);
};

static int scan_objects(struct cp_jscan *s, const struct object_array *a)
{
	unsigned seen;
	int r;

	if (cp_jscan_array(s) < 0)
		return -EBADMSG;
	while ((r = cp_jscan_item(s)) > 0) {
		char *elem;

		r = grow(a->array, *a->n, a->room, a->elem_size);
		if (r < 0)
			return r;
		elem = (char *) *a->array + *a->n * a->elem_size;
		memcpy(elem, a->blank, a->elem_size);
		r = scan_object(s, a->keys, a->n_keys, a->field, elem, &seen);
		if (r < 0)
			return r;
		if (!all_seen(seen, a->n_required))
			return -EBADMSG;
		(*a->n)++;
	}
	return r;
}

static int scan_entries(struct cp_jscan *s, struct scan_cache *sc)
{
	static const struct cp_cache_entry blank = {
	    .point = {.verdict = CP_VERDICT_MEASURED, .cached = true}};

	return scan_objects(
	    s, &(struct object_array){(void **) &sc->cache->entries, &sc->cache->n_entries,
				      &sc->room_entries, sizeof(blank), &blank, entry_keys,
				      ARRAY_SIZE(entry_keys), ENTRY_KEYS_REQUIRED, entry_field});
}

static int scan_defaults(struct cp_jscan *s, struct scan_cache *sc)
{
	static const struct cp_cache_default blank;

	return scan_objects(s, &(struct object_array){(void **) &sc->cache->defaults,
						      &sc->cache->n_defaults, &sc->room_defaults,
						      sizeof(blank), &blank, default_keys,
						      ARRAY_SIZE(default_keys),
						      ARRAY_SIZE(default_keys), default_field});
}

static const char *const machine_keys[] = {"kernel", "build", "cpu_model", "entries", "defaults"};

static int machine_field(struct cp_jscan *s, int index, void *userdata)
{
	struct scan_cache *sc = userdata;
	struct cp_cache_key *m = &sc->machine;

	switch (index) {
	case 0:
		return cp_jscan_string(s, m->kernel, sizeof(m->kernel)) < 0 || !m->kernel[0]
			   ? -EBADMSG
			   : 0;
	case 1:
		return cp_jscan_string(s, m->build, sizeof(m->build)) < 0 || !m->build[0] ? -EBADMSG
											  : 0;
	case 2:
		return cp_jscan_string(s, m->cpu_model, sizeof(m->cpu_model));
	case 3:
		return scan_entries(s, sc);
	default:
		return scan_defaults(s, sc);
	}
}

static void set_machine(struct cp_cache_key *key, const struct cp_cache_key *machine)
{
	memcpy(key->kernel, machine->kernel, sizeof(key->kernel));
	memcpy(key->build, machine->build, sizeof(key->build));
	memcpy(key->cpu_model, machine->cpu_model, sizeof(key->cpu_model));
}

/* A machine's keys, which may come after its entries, given to them when it ends. */
static int scan_machine(struct cp_jscan *s, struct scan_cache *sc)
{
	struct cp_cache *c = sc->cache;
	size_t first_entry = c->n_entries, first_default = c->n_defaults, n_defaults;
	unsigned seen;
	int r;

	sc->machine = (struct cp_cache_key){};
	r = scan_object(s, machine_keys, ARRAY_SIZE(machine_keys), machine_field, sc, &seen);
	if (r < 0)
		return r;
	if ((seen & 7) != 7)
		return -EBADMSG;
	for (size_t i = first_entry; i < c->n_entries; i++)
		set_machine(&c->entries[i].key, &sc->machine);
	/* Defaults belong to the machine without a CPU; one per driver, or which is true? */
	n_defaults = c->n_defaults;
	if (n_defaults > first_default && sc->machine.cpu_model[0])
		return -EBADMSG;
	for (c->n_defaults = first_default; c->n_defaults < n_defaults; c->n_defaults++) {
		struct cp_cache_default *d = &c->defaults[c->n_defaults];

		set_machine(&d->key, &sc->machine);
		if (cp_cache_find_default(c, &d->key))
			return -EBADMSG;
	}
	return 0;
}

/* An array of module names, each added to @set once. */
static int scan_module_set(struct cp_jscan *s, struct cp_module_set *set)
{
	char name[CP_NAME_MAX];
	int r;

	if (cp_jscan_array(s) < 0)
		return -EBADMSG;
	while ((r = cp_jscan_item(s)) > 0) {
		if (cp_jscan_string(s, name, sizeof(name)) < 0 || !name[0] ||
		    cp_module_set_contains(set, name))
			return -EBADMSG;
		r = cp_module_set_add(set, name);
		if (r < 0)
			return r;
	}
	return r;
}

static int scan_index_id(struct cp_jscan *s, struct cp_modindex_id *id)
{
	int64_t size;

	if (cp_jscan_array(s) < 0 || cp_jscan_item(s) <= 0 ||
	    cp_jscan_int(s, 0, INT64_MAX, &size) < 0 || cp_jscan_item(s) <= 0 ||
	    cp_jscan_int(s, INT64_MIN, INT64_MAX, &id->mtime_ns) < 0 || cp_jscan_item(s) != 0)
		return -EBADMSG;
	id->size = (uint64_t) size;
	return 0;
}

static const char *const modules_keys[] = {"kernel", "index", "looked_up", "offload"};

static int modules_field(struct cp_jscan *s, int index, void *userdata)
{
	struct cp_module_memo *memo = userdata;

	switch (index) {
	case 0:
		return cp_jscan_string(s, memo->index.kernel, sizeof(memo->index.kernel)) < 0 ||
			       !memo->index.kernel[0]
			   ? -EBADMSG
			   : 0;
	case 1:
		return scan_index_id(s, &memo->index);
	case 2:
		return scan_module_set(s, &memo->looked_up);
	default:
		return scan_module_set(s, &memo->offload);
	}
}

static int scan_modules(struct cp_jscan *s, struct cp_module_memo *memo)
{
	unsigned seen;
	int r;

	r = scan_object(s, modules_keys, ARRAY_SIZE(modules_keys), modules_field, memo, &seen);
	if (r < 0)
		return r;
	return all_seen(seen, ARRAY_SIZE(modules_keys)) ? 0 : -EBADMSG;
}

/* "modules" last: optional (all_seen() of the first two). */
static const char *const top_keys[] = {"version", "machines", "modules"};
#define TOP_KEYS_REQUIRED 2

static int top_field(struct cp_jscan *s, int index, void *userdata)
{
	struct scan_cache *sc = userdata;
	int r;

	if (index == 0)
		return cp_jscan_int(s, INT64_MIN, INT64_MAX, &sc->version);
	if (index == 2)
		return sc->version == CACHE_VERSION_1 ? -ESTALE
						      : scan_modules(s, &sc->cache->modules);
	/* A version 1 file (version first, as written) is not read further. */
	if (sc->version == CACHE_VERSION_1)
		return -ESTALE;
	if (sc->version && sc->version != CP_CACHE_VERSION)
		return -EBADMSG;
	if (cp_jscan_array(s) < 0)
		return -EBADMSG;
	while ((r = cp_jscan_item(s)) > 0) {
		r = scan_machine(s, sc);
		if (r < 0)
			return r;
	}
	return r;
}

int cp_cache_parse(const char *text, struct cp_cache *cache)
{
	struct scan_cache sc = {.cache = cache};
	struct cp_jscan s;
	unsigned seen;
	int r;

	memset(cache, 0, sizeof(*cache));
	cp_jscan_init(&s, text, strlen(text));
	r = scan_object(&s, top_keys, ARRAY_SIZE(top_keys), top_field, &sc, &seen);
	if (r >= 0)
		r = cp_jscan_end(&s);
	if (r == -ESTALE || (r >= 0 && sc.version == CACHE_VERSION_1)) {
		cp_cache_free(cache); /* version 1: read as empty, its figures measured again */
		return 0;
	}
	if (r >= 0 && (!all_seen(seen & ((1U << TOP_KEYS_REQUIRED) - 1), TOP_KEYS_REQUIRED) ||
		       sc.version != CP_CACHE_VERSION))
		r = -EBADMSG;
	if (r < 0) {
		cp_cache_free(cache);
		return r == -ENOMEM ? r : -EBADMSG;
	}
	return 0;
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
	if (e->point.too_noisy)
		json_object_object_add(obj, "too_noisy", json_object_new_boolean(true));
	if (e->point.compressed_size)
		json_object_object_add(obj, "compressed_size",
				       json_object_new_int64(e->point.compressed_size));
	if (e->verified.by[0]) {
		json_object_object_add(obj, "verified_seed",
				       json_object_new_int64((int64_t) e->verified.seed));
		json_object_object_add(obj, "verified_cases",
				       json_object_new_int64(e->verified.cases));
		json_object_object_add(obj, "verified_by", json_object_new_string(e->verified.by));
	}
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

static json_object *format_module_set(const struct cp_module_set *set)
{
	json_object *array = json_object_new_array();

	for (size_t i = 0; i < set->n_names; i++)
		json_object_array_add(array, json_object_new_string(set->names[i]));
	return array;
}

static json_object *format_modules(const struct cp_module_memo *memo)
{
	json_object *o = json_object_new_object(), *index = json_object_new_array();

	json_object_array_add(index, json_object_new_int64((int64_t) memo->index.size));
	json_object_array_add(index, json_object_new_int64(memo->index.mtime_ns));
	json_object_object_add(o, "kernel", json_object_new_string(memo->index.kernel));
	json_object_object_add(o, "index", index);
	json_object_object_add(o, "looked_up", format_module_set(&memo->looked_up));
	json_object_object_add(o, "offload", format_module_set(&memo->offload));
	return o;
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
	if (cache->modules.index.kernel[0])
		json_object_object_add(doc, "modules", format_modules(&cache->modules));
	/* One line: read at every start, by a program, not by a person. */
	return cp_json_format_compact(doc, ret_text);
}
