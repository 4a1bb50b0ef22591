/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which modules the kernel would load to build an algorithm name, and
 * which it did load. A lookup of a name that no registered implementation
 * serves has cryptomgr build a template instance: it asks modprobe for
 * "crypto-TEMPLATE" and for "crypto-ARG" of every argument not registered
 * (CRYPTO_NOLOAD spares the outer name only), and modprobe loads every
 * module the alias names, with its dependencies.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "modindex.h"

/* Whether @name is registered (as an algorithm or a driver name) for a lookup to find. */
typedef bool cp_registered_fn(const char *name, void *data);

/*
 * The aliases a build of @name asks modprobe for, each once, in the order
 * asked: its template's, those of templates the template builds on
 * (xts and lrw: ecb; gcm: ctr and ghash...), then each argument's that
 * @registered says is not registered, and recursively its own. Not the
 * name's own: a lookup with CRYPTO_NOLOAD asks none for it. Below a
 * template @template_exists says no module has (NULL: all have), none:
 * its build fails first. A name without a template needs no build:
 * none. -EINVAL for a malformed name.
 */
int cp_build_aliases(const char *name, cp_registered_fn *registered,
		     cp_registered_fn *template_exists, void *data, char ***aliases, size_t *n);

/*
 * The modules @aliases name in @alias_idx (modules.alias.bin), with the
 * dependencies @dep_idx (modules.dep.bin) lists for them, less those in
 * @live: what modprobe would load, each once, sorted. Built-in modules
 * are in neither index: nothing to load.
 */
int cp_alias_modules(const struct cp_modindex *alias_idx, const struct cp_modindex *dep_idx,
		     char *const *aliases, size_t n_aliases, char *const *live, size_t n_live,
		     char ***modules, size_t *n);

/* The modules loaded now, from /proc/modules (or @path), sorted. */
int cp_modules_live(const char *path, char ***modules, size_t *n);

/* The names of sorted @after that sorted @before lacks. */
int cp_modules_gained(char *const *before, size_t n_before, char *const *after, size_t n_after,
		      char ***gained, size_t *n);

/*
 * What a build of @name on the running kernel would load: the aliases,
 * looked up in its module index, less the modules loaded now. -ENOENT
 * etc. where the index cannot be read: then nobody can tell.
 */
int cp_build_would_load(const char *name, cp_registered_fn *registered, void *data, char ***modules,
			size_t *n);
