/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the calibration's files share: the selection (calibrate-select.c)
 * and the IV generators' inner names, for the engine (calibrate.c).
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
