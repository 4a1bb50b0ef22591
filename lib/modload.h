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

/* What a build's walk asks of the machine. */
struct cp_build_lookup {
	/*
	 * Whether @name is registered, as an algorithm or a driver name; with
	 * @cipher false, a single-block cipher does not count (the template
	 * looks its argument up under another type first).
	 */
	bool (*registered)(const char *name, bool cipher, void *data);
	/* Whether template @tmpl can be had at all; NULL: every one can. */
	bool (*template_exists)(const char *tmpl, void *data);
	/* cbc and ecb look their argument up as an lskcipher first (Linux 6.7). */
	bool lskcipher;
	void *data;
};

/*
 * The aliases a build of @name asks modprobe for, each once, in the order
 * asked: its template's, those of templates the template builds on
 * (xts and lrw: ecb; gcm: ctr and ghash...), then each argument's that
 * is not registered, and recursively its own. Not the name's own: a
 * lookup with CRYPTO_NOLOAD asks none for it. Nothing below a template
 * that does not exist: its build fails first. A name without a template
 * needs no build: none. -EINVAL for a malformed name.
 */
int cp_build_aliases(const char *name, const struct cp_build_lookup *l, char ***aliases, size_t *n);

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
 * What a build of @name on the running kernel would load: the aliases
 * (with @registered, on @data), looked up in its module index, less the
 * modules loaded now and those for another CPU. -ENOENT etc. where the
 * index cannot be read: then nobody can tell.
 */
int cp_build_would_load(const char *name, bool (*registered)(const char *, bool, void *),
			void *data, char ***modules, size_t *n);
