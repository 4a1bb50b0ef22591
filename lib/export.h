/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One machine as `cryptoprioctl export` writes it and `plan --from` reads
 * it back on any other: its kernel's identity (what the calibration cache
 * keys figures by), its implementations as classified there, the template
 * instances cryptoprio created on it, and the figures its cache holds for
 * that kernel and CPU, as a calibration cache of their own.
 */
#pragma once

#include <json-c/json.h>

#include "calib-cache.h"
#include "inventory.h"
#include "state.h"

/*
 * One implementation as `list` (without its name: listed under it) and
 * `export` print it: driver, module, type, priority, refcnt, flags, class,
 * class_reason.
 */
json_object *cp_alg_json(const struct cp_alg *alg, bool with_name);

/* The "version" of the document (cryptoprioctl's JSON vocabulary). */
#define CP_EXPORT_VERSION 1

struct cp_export {
	struct cp_cache_key machine; /* kernel, build, cpu_model; the driver's part empty */
	struct cp_module_version *modules;
	size_t n_modules;
	struct cp_inventory inventory;
	struct cp_created *created;
	size_t n_created;
	struct cp_cache calibration; /* the machine's figures only; no defaults, no memo */
};

void cp_export_free(struct cp_export *ex);

/*
 * This machine: the kernel's implementations (classified through the
 * cache's memo of the module index), the cache at @cache_path and the
 * state at @state_path read, nothing written. A cache or state that cannot
 * be read contributes nothing. Returns 0 or a negative errno (the
 * inventory could not be read).
 */
int cp_export_collect(const char *cache_path, const char *state_path, struct cp_export *ex);

/* The document's members after "version" and "verb"; NULL on ENOMEM. */
json_object *cp_export_to_json(const struct cp_export *ex);

/*
 * Read a document cp_export_to_json() made (with "version" and "verb":
 * "export"). Returns 0; -EBADMSG with what is wrong in @why (a member's
 * path, or the calibration measured on another machine than the one
 * exported); another negative errno.
 */
int cp_export_parse(const char *text, struct cp_export *ex, char *why, size_t len);
int cp_export_load(const char *path, struct cp_export *ex, char *why, size_t len);
