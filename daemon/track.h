/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The daemon's bookkeeping, without I/O: which implementations a module
 * event brings (new ones, and those of a module that was loaded again,
 * whose priorities the kernel reset), which of them still wait for their
 * self-test, the STATUS= line, and measurements kept for the cache until
 * /var/lib is writable.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "apply.h"
#include "calib-cache.h"
#include "inventory.h"

/* A set of names (drivers or modules), in insertion order. */
struct cp_names {
	char **v; /* NULL-terminated */
	size_t n;
};

void cp_names_clear(struct cp_names *s);
bool cp_names_contains(const struct cp_names *s, const char *name);
/* Add @name unless present: 1 added, 0 already there, -ENOMEM. */
int cp_names_add(struct cp_names *s, const char *name);

/* Whether the daemon looks at @alg at all: not internal, not a template instance. */
bool cp_track_relevant(const struct cp_alg *alg);

/*
 * Whether @driver is ready to be planned: present, and every entry of it
 * self-tested and not a larval (the planner's view, cp_alg_competes()).
 */
bool cp_track_driver_ready(const struct cp_inventory *inv, const char *driver);

/*
 * The implementations to plan after module events: each relevant one of
 * @inv that is not in @known (the tested drivers seen at the last run) or
 * whose module is in @modules (the modules of the events). Ready ones go
 * to @ready, the others (self-test still running) to @waiting. Returns the
 * number in @ready or -ENOMEM.
 */
int cp_track_select(const struct cp_inventory *inv, const struct cp_names *known,
		    const struct cp_names *modules, struct cp_names *ready,
		    struct cp_names *waiting);

/* @known := the relevant ready drivers of @inv. Returns 0 or -ENOMEM. */
int cp_track_known(const struct cp_inventory *inv, struct cp_names *known);

/* @waiting := the relevant drivers of @inv not ready yet. Returns the count or -ENOMEM.
 */
int cp_track_untested(const struct cp_inventory *inv, struct cp_names *waiting);

/*
 * Escape each name into an fnmatch pattern matching only itself (for
 * cp_apply_options.only_drivers). The result is NULL-terminated; free with
 * cp_names_clear(). Returns 0 or -ENOMEM.
 */
int cp_track_patterns(const struct cp_names *drivers, struct cp_names *ret);

/* The STATUS= text of a run: what changed, what failed, where the figures came from. */
const char *cp_track_status_text(const struct cp_apply_result *r, const char *trigger, char *buf,
				 size_t len);

/*
 * What the calibration found wrong with @m (faulty, a request that never
 * completed, unreachable by the backend), for the journal: the text in
 * @buf and its level in @ret_level, or NULL when every point is fine.
 */
const char *cp_track_verdict_text(const struct cp_measured *m, char *buf, size_t len,
				  int *ret_level);

/*
 * Why a run that changed nothing failed with @error, for the journal and
 * STATUS=: crypto_user missing (the inventory then comes from /proc/crypto
 * and nothing can change) is said as such, with its own errno.
 */
void cp_track_failure_text(const struct cp_apply_result *r, int error, const char *trigger,
			   char *buf, size_t len);

/* Whether @r's calibration could not write its cache (read-only or absent /var/lib). */
bool cp_track_cache_unsaved(const struct cp_apply_result *r);
/*
 * Merge @pending (measurements and defaults) into the cache file at @path and
 * save it; @pending is emptied on success.
 */
int cp_track_cache_flush(const char *path, struct cp_cache *pending);
