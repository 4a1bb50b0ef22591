/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the calibration's files share: the selection (calibrate-select.c)
 * the IV generators' inner names and the verification of engines
 * (calibrate-verify.c), the cache's part (calibrate-cache.c), for the
 * engine (calibrate.c).
 */
#pragma once

#include <stdbool.h>

#include "calibrate.h"

/*
 * Without patterns: every calibrable implementation of a name that has two
 * or more, the CPU's candidate for a name only engines serve counted. With
 * patterns: every calibrable implementation they match; the others served
 * by name listed with the reason. Into @cal's measured and skipped.
 */
int cp_calibration_select(const struct cp_inventory *inv, const struct cp_calibrate_options *opts,
			  struct cp_calibration *cal);
/* X of "echainiv(X)" or "seqiv(X)" into @inner; false for any other name. */
bool cp_geniv_inner(const char *name, char inner[static CP_NAME_MAX]);

/*
 * Verify each implementation of @cal that wants it (VERIFY on @nl, the
 * module @by is the srcversion of): the verdict decides whether its
 * figures count at all, and a pass is cached. With @first_only, only
 * those verified first (verify_first): the others stay unverified, and
 * still want it (cp_measured_wants_verification()). With no module (@nl
 * NULL, @by ""), say why in its verdict (@module_error, or -ENOENT). A
 * failure marks every point of its implementation faulty.
 */
void cp_calibration_verify(struct cp_calibration *cal, struct cp_nl *nl, int module_error,
			   const char *by, bool first_only);

/*
 * The runs @m needs before its figure is compared: CP_RUNS_FIRST where
 * another implementation of its name is ranked in its gear; one where its
 * gear alone places it.
 */
unsigned cp_calibration_runs_needed(const struct cp_calibration *cal, const struct cp_measured *m);

struct cp_cache;
/* The cache to read and update: the caller's, or the file's loaded into @own. */
struct cp_cache *cp_calibration_open_cache(const struct cp_calibrate_options *opts,
					   struct cp_calibration *cal, struct cp_cache *own);
/*
 * The cached points of @cal's drivers, and their verifications. A point with
 * fewer runs than its gear now needs (Gears= changed), or too noisy to
 * decide when it was measured, is measured again (unless @cache_only: then
 * taken as it is); its driver's verification is taken all the same.
 */
void cp_calibration_use_cache(struct cp_calibration *cal, const struct cp_cache *cache,
			      const char *by, bool cache_only);
/* Keep what was measured now: saved here unless the caller owns the cache. */
void cp_calibration_store_cache(const struct cp_calibrate_options *opts, struct cp_calibration *cal,
				struct cp_cache *cache);
