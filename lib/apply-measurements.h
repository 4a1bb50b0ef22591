/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What apply's calibration gave, as the planner reads it: pure, for the
 * pipeline (apply.c), the run's files and their unit tests.
 */
#pragma once

#include "calibrate.h"
#include "planner.h"

/*
 * Move @from's results into @into (a driver measured in both gets the
 * points of both); @from is left empty. Returns 0 or -ENOMEM.
 */
int cp_calibration_merge(struct cp_calibration *into, struct cp_calibration *from);

/*
 * One planner measurement per calibrated point. The value is the median of
 * the runs; the noise the farthest run from it (so runs whose ranges
 * overlap are within noise for the planner, as for the engine), at least
 * CP_STAT_NOISE_FLOOR / 2 of the median. Verdicts: faulty -> FAULTY,
 * timeout -> TIMEOUT, unreachable -> UNREACHABLE, unmeasured and error ->
 * NOT_MEASURED. Returns the count or -ENOMEM.
 */
int cp_apply_measurements(const struct cp_calibration *cal, struct cp_measurement **ret);

/*
 * The names of @cal with a point left unmeasured (no figure in the cache,
 * or the budget ran out), sorted, each once: apply --cached-only leaves
 * them out. Returns the count (*ret NULL for none) or -ENOMEM; each
 * name and the array are the caller's to free.
 */
int cp_apply_names_unmeasured(const struct cp_calibration *cal, char ***ret);
