/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The export document (cryptoprioctl(8), "export"):
 *
 *   {"version":1,"verb":"export",
 *    "kernel":{"release":K,"build":B,"cpu_model":C,"ghash_library":BOOL,
 *              "modules":[{"module":M,"srcversion":S}...]},
 *    "inventory_source":"crypto_user",
 *    "implementations":[{"name","driver","module","type","priority","refcnt",
 *                        "flags":[...],"class","class_reason"}...],
 *    "created":[{"driver","algorithm","priority","in_use"}...],
 *    "calibration":{a calibration cache, lib/calib-cache-json.c}}
 *
 * "modules" lists those of the implementations and, when loaded, the
 * cryptoprio module, whose build the cache's verifications name.
 * "ghash_library" (inventory.h) is how the CPU's gcm instances are named
 * there; an export without it (before it was written) reads as false.
 * "calibration" holds the figures of that kernel and CPU only, so that it
 * is also a cache file an identical machine can be given.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "export.h"
#include "fileio.h"
#include "inventory-load.h"
#include "json-util.h"
#include "macro.h"

#define EXPORT_MAX_SIZE (16u << 20)

void cp_export_free(struct cp_export *ex)
{
	free(ex->modules);
	cp_inventory_free(&ex->inventory);
	free(ex->created);
	cp_cache_free(&ex->calibration);
	memset(ex, 0, sizeof(*ex));
}

static bool same_machine(const struct cp_cache_key *a, const struct cp_cache_key *b)
{
	return streq(a->kernel, b->kernel) && streq(a->build, b->build) &&
	       streq(a->cpu_model, b->cpu_model);
}

static bool has_module(const struct cp_export *ex, const char *module)
{
	for (size_t k = 0; k < ex->n_modules; k++)
		if (streq(ex->modules[k].module, module))
			return true;
	return false;
}

static int add_module(struct cp_export *ex, const char *module, const char *srcversion)
{
	struct cp_module_version *all = reallocarray(ex->modules, ex->n_modules + 1, sizeof(*all));

	if (!all)
		return -ENOMEM;
	ex->modules = all;
	cp_strscpy(all[ex->n_modules].module, sizeof(all[0].module), module);
	cp_strscpy(all[ex->n_modules].srcversion, sizeof(all[0].srcversion), srcversion);
	ex->n_modules++;
	return 0;
}

/*
 * Each module of the inventory once, with its build; and the cryptoprio
 * module's, if loaded: the build its verifications are valid for.
 */
static int collect_modules(struct cp_export *ex)
{
	char verifier[64];

	for (size_t i = 0; i < ex->inventory.n_algs; i++) {
		const struct cp_alg *alg = &ex->inventory.algs[i];
		struct cp_cache_key key;

		if (has_module(ex, alg->module))
			continue;
		if (cp_cache_key_for(alg, &key) < 0 ||
		    add_module(ex, key.module, key.srcversion) < 0)
			return -ENOMEM;
		if (ex->n_modules == 1)
			memcpy(&ex->machine, &key, sizeof(key));
	}
	cp_cache_module_srcversion("cryptoprio", verifier);
	if (verifier[0] && !has_module(ex, "cryptoprio") &&
	    add_module(ex, "cryptoprio", verifier) < 0)
		return -ENOMEM;
	memset(ex->machine.driver, 0, sizeof(ex->machine.driver));
	memset(ex->machine.module, 0, sizeof(ex->machine.module));
	memset(ex->machine.srcversion, 0, sizeof(ex->machine.srcversion));
	return 0;
}

/* The cache's figures of this machine (its kernel, build and CPU). */
static int collect_calibration(struct cp_export *ex, const struct cp_cache *cache)
{
	for (size_t i = 0; i < cache->n_entries; i++) {
		int r;

		if (!same_machine(&cache->entries[i].key, &ex->machine))
			continue;
		r = cp_cache_put(&ex->calibration, &cache->entries[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

static int collect_created(struct cp_export *ex, const char *state_path)
{
	_cleanup_(cp_state_free) struct cp_state state = {};

	if (cp_state_load(state_path, &state) < 0 || state.n_created == 0)
		return 0; /* none known */
	ex->created = calloc(state.n_created, sizeof(*ex->created));
	if (!ex->created)
		return -ENOMEM;
	memcpy(ex->created, state.created, state.n_created * sizeof(*ex->created));
	ex->n_created = state.n_created;
	return 0;
}

int cp_export_collect(const char *cache_path, const char *state_path, struct cp_export *ex)
{
	_cleanup_(cp_cache_free) struct cp_cache cache = {};
	int r;

	memset(ex, 0, sizeof(*ex));
	if (cp_cache_load(cache_path, &cache) < 0)
		cp_cache_free(&cache); /* corrupt: no figures, no memo */
	cp_cache_keys_forget();
	r = cp_inventory_load_memo(&ex->inventory, &cache.modules);
	if (r >= 0)
		r = collect_modules(ex);
	if (r >= 0)
		r = collect_calibration(ex, &cache);
	if (r >= 0)
		r = collect_created(ex, state_path);
	if (r < 0)
		cp_export_free(ex);
	return r < 0 ? r : 0;
}

/* ---- writing ---- */

static json_object *kernel_json(const struct cp_export *ex)
{
	json_object *o = json_object_new_object(), *modules = json_object_new_array();

	json_object_object_add(o, "release", json_object_new_string(ex->machine.kernel));
	json_object_object_add(o, "build", json_object_new_string(ex->machine.build));
	json_object_object_add(o, "cpu_model", json_object_new_string(ex->machine.cpu_model));
	json_object_object_add(o, "ghash_library",
			       json_object_new_boolean(ex->inventory.ghash_library));
	for (size_t i = 0; i < ex->n_modules; i++) {
		json_object *m = json_object_new_object();

		json_object_object_add(m, "module", json_object_new_string(ex->modules[i].module));
		json_object_object_add(m, "srcversion",
				       json_object_new_string(ex->modules[i].srcversion));
		json_object_array_add(modules, m);
	}
	json_object_object_add(o, "modules", modules);
	return o;
}

json_object *cp_alg_json(const struct cp_alg *alg, bool with_name)
{
	json_object *o = json_object_new_object(), *flags = json_object_new_array();

	for (size_t i = 0; i < cp_flag_names_count; i++)
		if (alg->flags & cp_flag_names[i].bit)
			json_object_array_add(flags, json_object_new_string(cp_flag_names[i].name));
	if (with_name)
		json_object_object_add(o, "name", json_object_new_string(alg->name));
	json_object_object_add(o, "driver", json_object_new_string(alg->driver));
	json_object_object_add(o, "module", json_object_new_string(alg->module));
	json_object_object_add(o, "type", json_object_new_string(alg->type));
	json_object_object_add(o, "priority", json_object_new_int64(alg->priority));
	json_object_object_add(o, "refcnt", json_object_new_int64(alg->refcnt));
	json_object_object_add(o, "flags", flags);
	json_object_object_add(o, "class", json_object_new_string(cp_class_to_string(alg->class)));
	json_object_object_add(
	    o, "class_reason",
	    json_object_new_string(cp_class_reason_to_string(alg->class_reason)));
	return o;
}

static json_object *created_json(const struct cp_export *ex)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < ex->n_created; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "driver", json_object_new_string(ex->created[i].driver));
		json_object_object_add(o, "algorithm", json_object_new_string(ex->created[i].name));
		json_object_object_add(o, "priority",
				       json_object_new_int64(ex->created[i].priority));
		json_object_object_add(o, "in_use", json_object_new_boolean(ex->created[i].in_use));
		json_object_array_add(a, o);
	}
	return a;
}

/* The figures as a cache file holds them. */
static json_object *calibration_json(const struct cp_export *ex)
{
	_cleanup_free_ char *text = NULL;

	if (cp_cache_format(&ex->calibration, &text) < 0)
		return NULL;
	return json_tokener_parse(text);
}

json_object *cp_export_to_json(const struct cp_export *ex)
{
	json_object *doc = json_object_new_object(), *algs = json_object_new_array();
	json_object *calibration = calibration_json(ex);

	if (!doc || !algs || !calibration) {
		json_object_put(doc);
		json_object_put(algs);
		json_object_put(calibration);
		return NULL;
	}
	json_object_object_add(doc, "kernel", kernel_json(ex));
	json_object_object_add(doc, "inventory_source",
			       json_object_new_string(cp_source_to_string(ex->inventory.source)));
	for (size_t i = 0; i < ex->inventory.n_algs; i++)
		json_object_array_add(algs, cp_alg_json(&ex->inventory.algs[i], true));
	json_object_object_add(doc, "implementations", algs);
	json_object_object_add(doc, "created", created_json(ex));
	json_object_object_add(doc, "calibration", calibration);
	return doc;
}

/* ---- reading ---- */

struct reader {
	char *why;
	size_t len;
};

static int bad(struct reader *rd, const char *fmt, ...) _printf_(2, 3);

static int bad(struct reader *rd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rd->why, rd->len, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

/* The member @key of @obj, of @type: NULL after saying what is wrong. */
static json_object *member(struct reader *rd, json_object *obj, const char *where, const char *key,
			   json_type type)
{
	json_object *v;

	if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, type)) {
		(void) bad(rd, "%s\"%s\": missing or not %s", where, key,
			   type == json_type_array    ? "an array"
			   : type == json_type_object ? "an object"
						      : "a string");
		return NULL;
	}
	return v;
}

static int string_member(struct reader *rd, json_object *obj, const char *where, const char *key,
			 char *dst, size_t size, bool empty_ok)
{
	if (cp_json_get_string(obj, key, dst, size, empty_ok) < 0)
		return bad(rd, "%s\"%s\": missing, not a string, %sor longer than %zu bytes", where,
			   key, empty_ok ? "" : "empty ", size - 1);
	return 0;
}

static int uint32_member(struct reader *rd, json_object *obj, const char *where, const char *key,
			 int64_t max, uint32_t *ret)
{
	int64_t v;

	if (cp_json_get_int(obj, key, 0, max, &v) < 0)
		return bad(rd, "%s\"%s\": missing, or not an integer 0..%" PRId64, where, key, max);
	*ret = (uint32_t) v;
	return 0;
}

static int read_kernel(struct reader *rd, json_object *doc, struct cp_export *ex)
{
	json_object *k = member(rd, doc, "", "kernel", json_type_object), *modules;
	struct cp_cache_key *m = &ex->machine;
	json_object *ghash;
	int r;

	if (!k)
		return -EBADMSG;
	if (json_object_object_get_ex(k, "ghash_library", &ghash)) {
		if (!json_object_is_type(ghash, json_type_boolean))
			return bad(rd, "kernel: \"ghash_library\": not true or false");
		ex->inventory.ghash_library = json_object_get_boolean(ghash);
	}
	r = string_member(rd, k, "kernel: ", "release", m->kernel, sizeof(m->kernel), false);
	if (r >= 0)
		r = string_member(rd, k, "kernel: ", "build", m->build, sizeof(m->build), false);
	if (r >= 0)
		r = string_member(rd, k, "kernel: ", "cpu_model", m->cpu_model,
				  sizeof(m->cpu_model), true);
	modules = r >= 0 ? member(rd, k, "kernel: ", "modules", json_type_array) : NULL;
	if (!modules)
		return -EBADMSG;
	ex->n_modules = json_object_array_length(modules);
	ex->modules = calloc(ex->n_modules + 1, sizeof(*ex->modules));
	if (!ex->modules)
		return -ENOMEM;
	for (size_t i = 0; r >= 0 && i < ex->n_modules; i++) {
		json_object *o = json_object_array_get_idx(modules, i);
		char where[64];

		snprintf(where, sizeof(where), "kernel: modules[%zu]: ", i);
		r = string_member(rd, o, where, "module", ex->modules[i].module,
				  sizeof(ex->modules[i].module), false);
		if (r >= 0)
			r = string_member(rd, o, where, "srcversion", ex->modules[i].srcversion,
					  sizeof(ex->modules[i].srcversion), true);
	}
	return r;
}

static int read_flags(struct reader *rd, json_object *o, const char *where, uint32_t *ret)
{
	json_object *a = member(rd, o, where, "flags", json_type_array);

	*ret = 0;
	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(a, i));
		size_t k;

		for (k = 0; k < cp_flag_names_count && !streq(cp_flag_names[k].name, name); k++)
			;
		if (k == cp_flag_names_count)
			return bad(rd, "%s\"flags\": unknown flag '%s'", where, name);
		*ret |= cp_flag_names[k].bit;
	}
	return a ? 0 : -EBADMSG;
}

static int read_class(struct reader *rd, json_object *o, const char *where, struct cp_alg *alg)
{
	char class[32], reason[32];
	int r;

	r = string_member(rd, o, where, "class", class, sizeof(class), false);
	if (r >= 0)
		r = string_member(rd, o, where, "class_reason", reason, sizeof(reason), false);
	if (r < 0)
		return r;
	for (alg->class = CP_CLASS_CPU; !streq(cp_class_to_string(alg->class), class);)
		if (alg->class ++ == CP_CLASS_OFFLOAD)
			return bad(rd, "%s\"class\": '%s', not cpu or offload", where, class);
	for (alg->class_reason = CP_CLASS_REASON_DEFAULT;
	     !streq(cp_class_reason_to_string(alg->class_reason), reason);)
		if (alg->class_reason++ == CP_CLASS_REASON_POLICY)
			return bad(rd, "%s\"class_reason\": unknown '%s'", where, reason);
	return 0;
}

static int read_implementation(struct reader *rd, json_object *o, size_t i, struct cp_alg *alg)
{
	char where[64];
	int r;

	snprintf(where, sizeof(where), "implementations[%zu]: ", i);
	if (!json_object_is_type(o, json_type_object))
		return bad(rd, "%snot an object", where);
	r = string_member(rd, o, where, "name", alg->name, sizeof(alg->name), false);
	if (r >= 0)
		r = string_member(rd, o, where, "driver", alg->driver, sizeof(alg->driver), false);
	if (r >= 0)
		r = string_member(rd, o, where, "module", alg->module, sizeof(alg->module), false);
	if (r >= 0)
		r = string_member(rd, o, where, "type", alg->type, sizeof(alg->type), false);
	if (r >= 0)
		r = uint32_member(rd, o, where, "priority", INT32_MAX, &alg->priority);
	if (r >= 0)
		r = uint32_member(rd, o, where, "refcnt", UINT32_MAX, &alg->refcnt);
	if (r >= 0)
		r = read_flags(rd, o, where, &alg->flags);
	return r >= 0 ? read_class(rd, o, where, alg) : r;
}

static int read_inventory(struct reader *rd, json_object *doc, struct cp_export *ex)
{
	json_object *a = member(rd, doc, "", "implementations", json_type_array);
	int r = 0;

	ex->inventory.source = CP_SOURCE_FILE;
	if (!a)
		return -EBADMSG;
	if (json_object_array_length(a) == 0)
		return bad(rd, "\"implementations\": empty");
	for (size_t i = 0; r >= 0 && i < json_object_array_length(a); i++) {
		struct cp_alg alg = {};

		r = read_implementation(rd, json_object_array_get_idx(a, i), i, &alg);
		if (r >= 0 && cp_inventory_find_driver(&ex->inventory, alg.driver))
			r = bad(rd, "implementations[%zu]: driver '%s' listed twice", i,
				alg.driver);
		if (r >= 0)
			r = cp_inventory_add(&ex->inventory, &alg);
	}
	cp_inventory_sort(&ex->inventory);
	return r;
}

static int read_created(struct reader *rd, json_object *doc, struct cp_export *ex)
{
	json_object *a = member(rd, doc, "", "created", json_type_array);
	int r = 0;

	if (!a)
		return -EBADMSG;
	ex->n_created = json_object_array_length(a);
	ex->created = calloc(ex->n_created + 1, sizeof(*ex->created));
	if (!ex->created)
		return -ENOMEM;
	for (size_t i = 0; r >= 0 && i < ex->n_created; i++) {
		json_object *o = json_object_array_get_idx(a, i), *in_use;
		struct cp_created *c = &ex->created[i];
		char where[64];

		snprintf(where, sizeof(where), "created[%zu]: ", i);
		r = string_member(rd, o, where, "driver", c->driver, sizeof(c->driver), false);
		if (r >= 0)
			r = string_member(rd, o, where, "algorithm", c->name, sizeof(c->name),
					  false);
		if (r >= 0)
			r = uint32_member(rd, o, where, "priority", INT32_MAX, &c->priority);
		if (r >= 0 && (!json_object_object_get_ex(o, "in_use", &in_use) ||
			       !json_object_is_type(in_use, json_type_boolean)))
			r = bad(rd, "%s\"in_use\": missing or not a boolean", where);
		if (r >= 0)
			c->in_use = json_object_get_boolean(in_use);
	}
	return r;
}

/* A calibration cache, of the exported machine's kernel, build and CPU only. */
static int read_calibration(struct reader *rd, json_object *doc, struct cp_export *ex)
{
	json_object *c = member(rd, doc, "", "calibration", json_type_object);
	int64_t version;
	int r;

	if (!c)
		return -EBADMSG;
	/* An older cache parses as empty: here that would hide the figures. */
	r = cp_json_get_int(c, "version", CP_CACHE_VERSION, CP_CACHE_VERSION, &version);
	if (r >= 0)
		r = cp_cache_parse(json_object_to_json_string_ext(c, JSON_C_TO_STRING_PLAIN),
				   &ex->calibration);
	if (r == -EBADMSG)
		return bad(rd, "\"calibration\": not a calibration cache of version %d",
			   CP_CACHE_VERSION);
	if (r < 0)
		return r;
	for (size_t i = 0; i < ex->calibration.n_entries; i++) {
		const struct cp_cache_key *k = &ex->calibration.entries[i].key;

		if (!same_machine(k, &ex->machine))
			return bad(rd,
				   "\"calibration\": figures of kernel %s (build %s, CPU '%s'), "
				   "not of the exported kernel %s (build %s, CPU '%s')",
				   k->kernel, k->build, k->cpu_model, ex->machine.kernel,
				   ex->machine.build, ex->machine.cpu_model);
	}
	return 0;
}

/* "version" and "verb" say that it is an export this program reads. */
static int read_header(struct reader *rd, const char *text, json_object **ret)
{
	json_object *doc = NULL, *verb;
	int64_t version;
	int r;

	r = cp_json_parse_any_version(text, &doc, &version);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return bad(rd, "not a JSON document of cryptoprioctl (one object with a "
			       "\"version\")");
	*ret = doc;
	if (!json_object_object_get_ex(doc, "verb", &verb) ||
	    !json_object_is_type(verb, json_type_string))
		return bad(rd, "no \"verb\": not a document of cryptoprioctl");
	if (!streq(json_object_get_string(verb), "export"))
		return bad(rd,
			   "a document of '%s', not of 'export' (cryptoprioctl export makes one)",
			   json_object_get_string(verb));
	if (version != CP_EXPORT_VERSION)
		return bad(rd, "export of version %" PRId64 ", this cryptoprioctl reads version %d",
			   version, CP_EXPORT_VERSION);
	return 0;
}

int cp_export_parse(const char *text, struct cp_export *ex, char *why, size_t len)
{
	struct reader rd = {why, len};
	json_object *doc = NULL;
	int r;

	memset(ex, 0, sizeof(*ex));
	why[0] = '\0';
	r = read_header(&rd, text, &doc);
	if (r >= 0)
		r = read_kernel(&rd, doc, ex);
	if (r >= 0)
		r = read_inventory(&rd, doc, ex);
	if (r >= 0)
		r = read_created(&rd, doc, ex);
	if (r >= 0)
		r = read_calibration(&rd, doc, ex);
	json_object_put(doc);
	if (r < 0)
		cp_export_free(ex);
	return r;
}

int cp_export_load(const char *path, struct cp_export *ex, char *why, size_t len)
{
	_cleanup_free_ char *text = NULL;
	int r;

	memset(ex, 0, sizeof(*ex));
	why[0] = '\0';
	r = cp_read_file(path, EXPORT_MAX_SIZE, &text, NULL);
	if (r == -EFBIG)
		snprintf(why, len, "larger than %u MiB", EXPORT_MAX_SIZE >> 20);
	if (r < 0)
		return r == -EFBIG ? -EBADMSG : r;
	return cp_export_parse(text, ex, why, len);
}
