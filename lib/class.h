/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cpu or offload: which side of the machine computes an implementation. */
#pragma once

#include <stdio.h>

#include "inventory.h"
#include "modindex.h"

/* Module names (normalised: '-' as '_') whose files live under kernel/drivers/crypto/. */
struct cp_module_set {
	char **names;
	size_t n_names;
};

int cp_module_set_add(struct cp_module_set *set, const char *name);
/* Whether a module's file, as modules.dep names it (relative or absolute), lies under
 * kernel/drivers/crypto/. */
bool cp_module_path_is_offload(const char *path);
/*
 * Into @set, the modules @inv's implementations come from whose files lie
 * under drivers/crypto/, by the running kernel's module index
 * (cp_modindex_open_running); a module the index does not list is not one.
 */
int cp_module_set_load_running(const struct cp_inventory *inv, struct cp_module_set *set);

/*
 * What the module index said of the modules it was asked about, for one
 * index file (cp_modindex_id_running()): kept with the calibration cache,
 * so that a start whose modules were all asked about before does not open
 * the index (800 KB; opening and unmapping it took a fifth of a warm
 * start under emulation).
 */
struct cp_module_memo {
	struct cp_modindex_id index;
	struct cp_module_set looked_up; /* every module asked about */
	struct cp_module_set offload;	/* those of them under drivers/crypto/ */
};

void cp_module_memo_free(struct cp_module_memo *memo);
/*
 * @memo brought up to date for @inv's modules, its offload set then what
 * cp_module_set_load_running() would give: the index is opened only for
 * modules @memo does not answer for, and @memo starts again when the index
 * is another file (a kernel, a depmod since). Returns 1 when @memo
 * changed, 0 when not, or a negative errno.
 */
int cp_module_memo_update(const struct cp_inventory *inv, struct cp_module_memo *memo);
void cp_module_set_free(struct cp_module_set *set);
bool cp_module_set_contains(const struct cp_module_set *set, const char *module);

/* Whether @driver is the name of a known offload engine's implementation. */
bool cp_driver_is_known_engine(const char *driver);

/*
 * Set class and class_reason of every implementation: first the plain
 * ones (flags, module path, known engine names), then template instances,
 * which inherit offload from any offload part named in their driver name.
 */
void cp_classify(struct cp_inventory *inv, const struct cp_module_set *offload_modules);
