/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pipeline shared by `cryptoprioctl plan|apply` and cryptoprio-daemon:
 * policy -> inventory -> calibration (per the policy's Calibrate=) -> plan
 * -> apply under the lock, with originals and the plan recorded in the
 * state file before the first change and the steps' results after the
 * last. The state and the cache are each read once per run.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "apply-options.h"
#include "apply-result.h"
#include "calib-cache.h"
#include "calibrate.h"
#include "export.h"
#include "inventory.h"
#include "planner.h"
#include "policy.h"
#include "state.h"

/*
 * Run the pipeline. Returns 0 when every step succeeded (or nothing needed
 * to change), -EBADMSG for an invalid policy (its errors in
 * result->policy->errors, nothing changed), -EIO when some steps failed
 * (see result->steps), -ENODATA when opts->cached_only left names out
 * (result->left_out; the others applied, and if none had its figures
 * nothing changed and nothing was recorded: result->n_steps is 0), another
 * negative errno otherwise.
 */
int cp_apply_run(const struct cp_apply_options *opts, struct cp_apply_result *result);
void cp_apply_result_free(struct cp_apply_result *result);
