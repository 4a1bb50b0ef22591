/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What one plan or apply run (cp_apply_run(), apply.h) did, freed with
 * cp_apply_result_free(): its own header so that the parts of the run
 * below the pipeline fill it without including the pipeline's.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "calib-cache.h"
#include "calibrate.h"
#include "inventory.h"
#include "planner.h"
#include "policy.h"

/* What one step (UPDATEALG, NEWALG or DELALG) did. */
struct cp_apply_step_result {
	char driver[CP_NAME_MAX];
	uint32_t old_priority, new_priority;
	enum cp_step_action action;
	int error; /* 0 or negative errno */
	char extack[256];
	char name[CP_NAME_MAX]; /* the algorithm it was planned under */
	enum cp_class class;
	char why[CP_STEP_WHY_MAX];
	bool applied; /* sent to the kernel; false with dry_run */
	bool gone;    /* the kernel no longer had the driver (ENOENT): not an error */
	bool in_use;  /* a remove found it held (EBUSY): lowered instead, removed when free */
};

struct cp_apply_result {
	struct cp_policy *policy; /* owned; NULL if it could not be loaded */
	struct cp_inventory inventory;
	struct cp_calibration calibration;
	struct cp_plan *plan; /* owned */
	struct cp_apply_step_result *steps;
	size_t n_steps;
	size_t n_changed, n_failed, n_gone;
	size_t n_created, n_removed, n_in_use; /* creates done; removes done, and found held */
	time_t applied_at;
	/* Added for the CLI: */
	enum cp_calibration_mode calibrate; /* the policy's Calibrate= */
	bool unprivileged;		    /* no CAP_NET_ADMIN: calibrated through AF_ALG only */
	int state_error; /* saving the steps' results failed (the changes were made): errno or 0 */
	/* Defaults first seen now that the cache could not take (its error in defaults_error). */
	struct cp_cache defaults_unsaved;
	int defaults_error;
	/* The state file did not parse: moved aside to *.corrupt, originals from the defaults. */
	bool state_salvaged;
	/* The lock or the state file's directory, when it stopped the run (its error returned). */
	const char *unusable_path;
	/*
	 * With cached_only: the names the cache lacks figures for, sorted,
	 * their steps left out of result->steps.
	 */
	char **left_out;
	size_t n_left_out;
};
