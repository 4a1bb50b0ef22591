/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cpu or offload (class.h): by the driver's flags, its name where engines
 * are known, and whether its module's file lies under drivers/crypto/.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "class.h"
#include "macro.h"
#include "modindex.h"

/*
 * Engines whose drivers do not all set CRYPTO_ALG_KERN_DRIVER_ONLY and
 * may be built in (so no module path tells), by their driver names: a
 * start, an end or a part. Plain comparisons: fnmatch(3) over patterns
 * cost a tenth of a warm start's instructions for a few dozen names.
 */
enum name_part { STARTS, ENDS, HAS };

#define ENGINE(part, text)                                                                         \
	{                                                                                          \
		part, text, sizeof(text) - 1                                                       \
	}

static const struct engine_name {
	enum name_part part;
	const char *text;
	size_t len;
} known_engines[] = {
    ENGINE(STARTS, "virtio_crypto_"),
    ENGINE(STARTS, "virtio-crypto-"),
    ENGINE(STARTS, "virtio-pkcs1-"),
    ENGINE(ENDS, "-caam"),
    ENGINE(HAS, "-caam-"),
    ENGINE(HAS, "caam-qi"),
    ENGINE(ENDS, "-qat"),
    ENGINE(STARTS, "qat-"),
    ENGINE(STARTS, "qat_"),
    ENGINE(STARTS, "stm32-"),
    ENGINE(STARTS, "sun4i-ss-"),
    ENGINE(ENDS, "-sun4i-ss"),
    ENGINE(ENDS, "-sun8i-ce"),
    ENGINE(ENDS, "-sun8i-ss"),
    ENGINE(ENDS, "-talitos"),
    ENGINE(STARTS, "atmel-"),
    ENGINE(STARTS, "omap-"),
    ENGINE(STARTS, "mv-"),
    ENGINE(STARTS, "safexcel-"),
    ENGINE(ENDS, "-ccp"),
    ENGINE(ENDS, "-ccree"),
    ENGINE(ENDS, "-keembay-ocs"),
    ENGINE(ENDS, "-img"),
    ENGINE(ENDS, "-rk"),
    ENGINE(ENDS, "-qce"),
    ENGINE(ENDS, "-iaa"),
};

/* The first or last bytes compared in line: asked of every driver, most differ there. */
static bool name_matches(const struct engine_name *e, const char *driver, size_t len)
{
	size_t n = e->len;

	switch (e->part) {
	case STARTS:
		return driver[0] == e->text[0] && strncmp(driver, e->text, n) == 0;
	case ENDS:
		return len >= n && driver[len - 1] == e->text[n - 1] &&
		       memcmp(driver + len - n, e->text, n) == 0;
	case HAS:
		return strstr(driver, e->text);
	}
	return false;
}

bool cp_driver_is_known_engine(const char *driver)
{
	size_t len = strlen(driver);

	for (size_t i = 0; i < ARRAY_SIZE(known_engines); i++)
		if (name_matches(&known_engines[i], driver, len))
			return true;
	return false;
}

static void normalise_module_name(char *name)
{
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
}

int cp_module_set_add(struct cp_module_set *set, const char *name)
{
	char **names = realloc(set->names, (set->n_names + 1) * sizeof(*names));

	if (!names)
		return -ENOMEM;
	set->names = names;
	names[set->n_names] = strdup(name);
	if (!names[set->n_names])
		return -ENOMEM;
	normalise_module_name(names[set->n_names++]);
	return 0;
}

#define DRIVERS_CRYPTO "kernel/drivers/crypto/"

bool cp_module_path_is_offload(const char *path)
{
	return strncmp(path, DRIVERS_CRYPTO, strlen(DRIVERS_CRYPTO)) == 0 ||
	       strstr(path, "/" DRIVERS_CRYPTO);
}

/* A modules.dep line, "kernel/drivers/crypto/virtio/virtio_crypto.ko.xz: deps...". */
static bool depline_is_offload(const char *line)
{
	char path[PATH_MAX];
	size_t len = strcspn(line, ":");

	if (len >= sizeof(path))
		return false;
	memcpy(path, line, len);
	path[len] = '\0';
	return cp_module_path_is_offload(path);
}

/*
 * A lookup in the module index per module the inventory names, instead of
 * reading modules.dep whole (600 KB on Debian's amd64 kernels: tens of
 * milliseconds of a start under emulation).
 */
/* A module of @inv the index is asked about, not yet in @looked_up. */
static const char *next_unknown(const struct cp_inventory *inv, size_t *i,
				const struct cp_module_set *looked_up)
{
	for (; *i < inv->n_algs; (*i)++) {
		const char *module = inv->algs[*i].module;

		if (module[0] && !streq(module, "kernel") &&
		    !cp_module_set_contains(looked_up, module))
			return module;
	}
	return NULL;
}

/* Each module of @inv not in @looked_up: into it, and into @offload if it is one. */
static int look_up_modules(const struct cp_inventory *inv, struct cp_module_set *looked_up,
			   struct cp_module_set *offload)
{
	struct cp_modindex idx;
	const char *module;
	size_t i = 0;
	int r;

	if (!next_unknown(inv, &i, looked_up))
		return 0;
	r = cp_modindex_open_running(&idx);
	if (r < 0)
		return r;
	while (r >= 0 && (module = next_unknown(inv, &i, looked_up))) {
		const char *line = cp_modindex_lookup(&idx, module);

		r = cp_module_set_add(looked_up, module);
		if (r >= 0 && line && depline_is_offload(line))
			r = cp_module_set_add(offload, module);
	}
	cp_modindex_close(&idx);
	return r < 0 ? r : 1;
}

int cp_module_set_load_running(const struct cp_inventory *inv, struct cp_module_set *set)
{
	_cleanup_(cp_module_set_free) struct cp_module_set looked_up = {};
	int r = look_up_modules(inv, &looked_up, set);

	return r < 0 ? r : 0;
}

void cp_module_memo_free(struct cp_module_memo *memo)
{
	cp_module_set_free(&memo->looked_up);
	cp_module_set_free(&memo->offload);
	*memo = (struct cp_module_memo){};
}

int cp_module_memo_update(const struct cp_inventory *inv, struct cp_module_memo *memo)
{
	struct cp_modindex_id id;
	bool changed = false;
	int r;

	r = cp_modindex_id_running(&id);
	if (r < 0)
		return r;
	if (!streq(id.kernel, memo->index.kernel) || id.size != memo->index.size ||
	    id.mtime_ns != memo->index.mtime_ns) {
		cp_module_memo_free(memo);
		memo->index = id;
		changed = true;
	}
	r = look_up_modules(inv, &memo->looked_up, &memo->offload);
	if (r < 0)
		return r;
	return changed || r > 0;
}

void cp_module_set_free(struct cp_module_set *set)
{
	for (size_t i = 0; i < set->n_names; i++)
		free(set->names[i]);
	free(set->names);
	set->names = NULL;
	set->n_names = 0;
}

/* Whether @normalised is @module with each '-' read as '_' (no copy: asked per implementation). */
static bool module_name_equal(const char *normalised, const char *module)
{
	for (;; normalised++, module++) {
		char c = *module == '-' ? '_' : *module;

		if (*normalised != c)
			return false;
		if (!c)
			return true;
	}
}

bool cp_module_set_contains(const struct cp_module_set *set, const char *module)
{
	for (size_t i = 0; set && i < set->n_names; i++)
		if (module_name_equal(set->names[i], module))
			return true;
	return false;
}

static bool is_template_instance(const struct cp_alg *alg)
{
	return strchr(alg->driver, '(') != NULL;
}

static void classify_plain(struct cp_alg *alg, const struct cp_module_set *offload_modules)
{
	alg->class = CP_CLASS_OFFLOAD;
	if (alg->flags & CP_ALG_KERN_DRIVER_ONLY)
		alg->class_reason = CP_CLASS_REASON_KERN_DRIVER_ONLY;
	else if (cp_module_set_contains(offload_modules, alg->module))
		alg->class_reason = CP_CLASS_REASON_MODULE_PATH;
	else if (cp_driver_is_known_engine(alg->driver))
		alg->class_reason = CP_CLASS_REASON_KNOWN_ENGINE;
	else {
		alg->class = CP_CLASS_CPU;
		alg->class_reason = CP_CLASS_REASON_DEFAULT;
	}
}

/* Whether any part named in a template instance's driver name is offload. */
static bool template_has_offload_part(const struct cp_inventory *inv, const char *driver)
{
	char parts[CP_NAME_MAX];
	char *save = NULL;

	cp_strscpy(parts, sizeof(parts), driver);
	for (char *part = strtok_r(parts, "(),", &save); part;
	     part = strtok_r(NULL, "(),", &save)) {
		const struct cp_alg *alg = cp_inventory_find_driver(inv, part);

		if (alg ? alg->class == CP_CLASS_OFFLOAD : cp_driver_is_known_engine(part))
			return true;
	}
	return false;
}

void cp_classify(struct cp_inventory *inv, const struct cp_module_set *offload_modules)
{
	for (size_t i = 0; i < inv->n_algs; i++)
		if (!is_template_instance(&inv->algs[i]))
			classify_plain(&inv->algs[i], offload_modules);
	for (size_t i = 0; i < inv->n_algs; i++) {
		struct cp_alg *alg = &inv->algs[i];

		if (!is_template_instance(alg))
			continue;
		classify_plain(alg, offload_modules);
		if (alg->class == CP_CLASS_CPU && template_has_offload_part(inv, alg->driver)) {
			alg->class = CP_CLASS_OFFLOAD;
			alg->class_reason = CP_CLASS_REASON_TEMPLATE;
		}
	}
}
