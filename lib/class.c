/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fnmatch.h>
#include <string.h>
#include <sys/utsname.h>

#include "class.h"
#include "fileio.h"
#include "macro.h"

/*
 * Engines whose drivers do not all set CRYPTO_ALG_KERN_DRIVER_ONLY and
 * may be built in (so no module path tells). Patterns match driver names.
 */
static const char *const known_engine_patterns[] = {
    "virtio_crypto_*", "virtio-crypto-*", "virtio-pkcs1-*", "*-caam",	  "*-caam-*",
    "*caam-qi*",       "*-qat",		  "qat-*",	    "qat_*",	  "stm32-*",
    "sun4i-ss-*",      "*-sun4i-ss",	  "*-sun8i-ce",	    "*-sun8i-ss", "*-talitos",
    "atmel-*",	       "omap-*",	  "mv-*",	    "safexcel-*", "*-ccp",
    "*-ccree",	       "*-keembay-ocs",	  "*-img",	    "*-rk",	  "*-qce",
    "*-iaa",
};

bool cp_driver_is_known_engine(const char *driver)
{
	for (size_t i = 0; i < ARRAY_SIZE(known_engine_patterns); i++)
		if (fnmatch(known_engine_patterns[i], driver, 0) == 0)
			return true;
	return false;
}

static void normalise_module_name(char *name)
{
	for (char *p = name; *p; p++)
		if (*p == '-')
			*p = '_';
}

static int module_set_add(struct cp_module_set *set, const char *name, size_t len)
{
	char **names = realloc(set->names, (set->n_names + 1) * sizeof(*names));

	if (!names)
		return -ENOMEM;
	set->names = names;
	names[set->n_names] = strndup(name, len);
	if (!names[set->n_names])
		return -ENOMEM;
	normalise_module_name(names[set->n_names++]);
	return 0;
}

#define DRIVERS_CRYPTO "kernel/drivers/crypto/"

/* "kernel/drivers/crypto/virtio/virtio_crypto.ko.xz: deps..." → "virtio_crypto" */
static int parse_modules_dep_line(struct cp_module_set *set, const char *line, size_t len)
{
	const char *colon = memchr(line, ':', len), *base, *dot;

	if (!colon)
		return 0;
	base = memrchr(line, '/', (size_t) (colon - line)) + 1;
	dot = memchr(base, '.', (size_t) (colon - base));
	if (!dot)
		dot = colon;
	return module_set_add(set, base, (size_t) (dot - base));
}

/*
 * Jump from one line starting with "kernel/drivers/crypto/" to the next
 * instead of reading every line: thousands of lines, a few dozen such
 * modules, and a start under emulation paid tens of milliseconds here.
 * The needle starts with the newline: "kernel/" itself is on every line,
 * several times, and would stop the search at each.
 */
int cp_module_set_from_modules_dep(const char *text, size_t len, struct cp_module_set *set)
{
	static const char needle[] = "\n" DRIVERS_CRYPTO;
	const char *end = text + len, *line = NULL, *hit;

	if (len >= strlen(DRIVERS_CRYPTO) &&
	    memcmp(text, DRIVERS_CRYPTO, strlen(DRIVERS_CRYPTO)) == 0)
		line = text;
	else if ((hit = memmem(text, len, needle, strlen(needle))))
		line = hit + 1;
	while (line) {
		const char *eol = memchr(line, '\n', (size_t) (end - line));
		int r;

		if (!eol)
			eol = end;
		r = parse_modules_dep_line(set, line, (size_t) (eol - line));
		if (r < 0)
			return r;
		hit = memmem(eol, (size_t) (end - eol), needle, strlen(needle));
		line = hit ? hit + 1 : NULL;
	}
	return 0;
}

int cp_module_set_load_running(struct cp_module_set *set)
{
	_cleanup_free_ char *text = NULL;
	struct utsname uts;
	char path[512];
	size_t len;
	int r;

	if (uname(&uts) < 0)
		return negative_errno();
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", uts.release);
	r = cp_read_file(path, CP_MODULES_DEP_MAX_SIZE, &text, &len);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	return cp_module_set_from_modules_dep(text, len, set);
}

void cp_module_set_free(struct cp_module_set *set)
{
	for (size_t i = 0; i < set->n_names; i++)
		free(set->names[i]);
	free(set->names);
	set->names = NULL;
	set->n_names = 0;
}

bool cp_module_set_contains(const struct cp_module_set *set, const char *module)
{
	char name[CP_NAME_MAX];

	snprintf(name, sizeof(name), "%s", module);
	normalise_module_name(name);
	for (size_t i = 0; set && i < set->n_names; i++)
		if (strcmp(set->names[i], name) == 0)
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

	snprintf(parts, sizeof(parts), "%s", driver);
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
