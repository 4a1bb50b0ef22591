/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Loading the inventory (inventory.h) from the running kernel. */
#pragma once

#include "inventory.h"

/*
 * Read the kernel's implementations: crypto_user first, /proc/crypto where
 * crypto_user cannot be reached. Classes are filled in. Returns 0 or a
 * negative errno; inv must be released with cp_inventory_free().
 */
int cp_inventory_load(struct cp_inventory *inv);

struct cp_module_memo;
/*
 * The same, the modules classified through @memo (cp_module_memo_update()):
 * 1 when @memo changed and is worth saving, 0 when not, or a negative errno.
 */
int cp_inventory_load_memo(struct cp_inventory *inv, struct cp_module_memo *memo);

/*
 * The implementations another machine's /proc/crypto listed, saved in
 * @path ('#' lines are comments), classified by their names and flags
 * alone (this machine's module index says nothing of them). Returns 0,
 * -EBADMSG (not /proc/crypto's format) or another negative errno.
 */
int cp_inventory_load_file(const char *path, struct cp_inventory *inv);
