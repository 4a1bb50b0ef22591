/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The parts of set and reset (set-reset.h) that need no kernel, for
 * set-reset.c and its unit tests: the files loaded once, an inventory
 * handed in, and the kernel's two requests behind function pointers.
 * Not for the CLI or the daemon.
 */
#pragma once

#include "calib-cache.h"
#include "set-reset.h"
#include "state.h"

/* UPDATEALG and DELALG: 0 or a negative errno, the kernel's reason in @extack (256 bytes). */
struct cp_sr_kernel {
	int (*set_priority)(void *data, const char *driver, uint32_t priority, char *extack);
	int (*remove)(void *data, const char *driver, char *extack);
	void *data;
};

/* One transaction: its files, read once, and what it sees of the kernel. */
struct cp_sr_run {
	struct cp_sr_files *files;
	struct cp_state state;
	struct cp_cache cache; /* the defaults recorded; empty if absent or corrupt */
	const struct cp_inventory *inv;
	struct cp_sr_kernel kernel;
};

/*
 * The paths of @env into @files, then the state (one that does not parse
 * moved aside) and the cache, each read once. Returns 0, or the state's
 * error (the cache's is kept in files->cache_error).
 */
int cp_sr_load(struct cp_sr_run *run, const struct cp_sr_env *env, struct cp_sr_files *files);
void cp_sr_free(struct cp_sr_run *run);

/* set, once loaded: result->failure and error say where it stopped. */
int cp_set_transact(struct cp_sr_run *run, const struct cp_set_options *opts,
		    struct cp_set_result *result);
/* reset, once loaded; the state written at the end. */
int cp_reset_transact(struct cp_sr_run *run, const struct cp_reset_options *opts,
		      struct cp_reset_result *result);

/*
 * The order reset removes @state's created instances in: longer driver
 * names first, as an instance holds the instances it is built on; equal
 * lengths in the state's order. Indices into state->created, in a new
 * array of n_created (+1) entries; NULL on ENOMEM.
 */
size_t *cp_reset_removal_order(const struct cp_state *state);
