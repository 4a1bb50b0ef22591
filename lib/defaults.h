/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Each driver's default priority, recorded in the calibration cache the
 * first time cryptoprio changes it (for that kernel build and module
 * build, so the same at every boot): the original `reset` restores and the
 * next apply records when /run/cryptoprio/state.json was lost. Lost with
 * both files: the defaults of drivers changed before the loss (reset then
 * cannot tell their original; a reboot restores them).
 */
#pragma once

#include <stdbool.h>
#include <time.h>

#include "calib-cache.h"
#include "inventory.h"
#include "state.h"

/* @alg's recorded default in @cache into @ret: true if there is one. */
bool cp_default_priority(const struct cp_cache *cache, const struct cp_alg *alg, uint32_t *ret);

/*
 * Record @alg's original in @state unless one is there: its recorded
 * default when known, else its current priority. 1 if added, 0 or -ENOMEM.
 */
int cp_state_record_default(struct cp_state *state, const struct cp_alg *alg,
			    const struct cp_cache *cache);

/*
 * Record in @cache, as defaults first seen at @now, the originals of @state
 * whose driver is registered in @inv (the build it belongs to is known only
 * then). Returns the count added or a negative errno.
 */
int cp_defaults_note(struct cp_cache *cache, const struct cp_state *state,
		     const struct cp_inventory *inv, time_t now);

/*
 * Give @state an original for every driver of @inv that has none and whose
 * priority differs from its recorded default: what the lost state would
 * have held. Returns the count added or -ENOMEM.
 */
int cp_defaults_recover(struct cp_state *state, const struct cp_inventory *inv,
			const struct cp_cache *cache);
