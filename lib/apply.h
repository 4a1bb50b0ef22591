/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pipeline shared by `cryptoprioctl plan|apply` and cryptoprio-daemon:
 * policy -> inventory -> calibration (per the policy's Calibrate=) -> plan
 * -> apply under the lock, with originals and the plan recorded in the
 * state file before the first change and each step's result after it.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "calib-cache.h"
#include "calibrate.h"
#include "inventory.h"
#include "planner.h"
#include "policy.h"
#include "state.h"

struct cp_apply_options {
	const char *root;	 /* prefix for the policy search path ("/" normally) */
	const char *config_file; /* -c FILE, or NULL for the search path */
	const struct cp_policy
	    *policy;		/* already loaded (daemon reload): used instead of loading */
	bool dry_run;		/* plan only: no lock, no state, no UPDATEALG */
	bool force_calibration; /* ignore the cache */
	const char *state_path; /* default CP_STATE_PATH */
	const char *lock_path;	/* default CP_LOCK_PATH */
	const char *cache_path; /* NULL: CP_CACHE_PATH; "": no cache */
	/* Only drivers matching these (new implementations after a module load); none: all. */
	char *const *only_drivers;
	size_t n_only_drivers;
	void (*progress)(const struct cp_progress *progress, void *userdata);
	void *userdata;
	const char *agent; /* recorded in the state file; default "cryptoprioctl" */
	void (*lock_waiting)(const char *path); /* called once before waiting for another holder */
};

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
	enum cp_calibrate calibrate; /* the policy's Calibrate= */
	bool unprivileged;	     /* no CAP_NET_ADMIN: calibrated through AF_ALG only */
	int state_error; /* saving a step's result failed (the change was made): errno or 0 */
	/* Defaults first seen now that the cache could not take (its error in defaults_error). */
	struct cp_cache defaults_unsaved;
	int defaults_error;
	/* The state file did not parse: moved aside to *.corrupt, originals from the defaults. */
	bool state_salvaged;
};

/*
 * Run the pipeline. Returns 0 when every step succeeded (or nothing needed
 * to change), -EBADMSG for an invalid policy (its errors in
 * result->policy->errors, nothing changed), -EIO when some steps failed
 * (see result->steps), another negative errno otherwise.
 */
int cp_apply_run(const struct cp_apply_options *opts, struct cp_apply_result *result);
void cp_apply_result_free(struct cp_apply_result *result);

/* ---- the pure parts, exposed for tests ---- */

/* The workload points to calibrate: the names that compete, grouped by (RequestSize, InFlight). */
struct cp_workload {
	uint32_t size, depth;
	char **names; /* fnmatch patterns matching exactly these names (escaped) */
	size_t n_names;
};

/*
 * Group every name with two or more competing implementations (template
 * instances aside, as the planner) by its settings' point; with
 * @only_drivers, only names one of whose drivers matches. Returns the
 * count or -ENOMEM; free with cp_workloads_free().
 */
int cp_apply_workloads(const struct cp_inventory *inv, const struct cp_policy *policy,
		       char *const *only_drivers, size_t n_only_drivers, struct cp_workload **ret);
void cp_workloads_free(struct cp_workload *w, size_t n);

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

/* Whether @name's planned steps are to be applied given @only_drivers (none: all). */
bool cp_apply_name_selected(const struct cp_inventory *inv, const char *name,
			    char *const *only_drivers, size_t n_only_drivers);

/*
 * Record each create step of @result in state->created before its NEWALG,
 * so that an instance created just before a crash is known. Returns 0 or
 * -ENOMEM.
 */
int cp_apply_note_creates(struct cp_state *state, const struct cp_apply_result *result);

/*
 * Forget the created instances @inv (from crypto_user) does not list: a
 * create that did not happen, or an instance removed by someone else (or
 * torn down with a module of its parts). Returns how many were forgotten.
 */
size_t cp_apply_forget_unregistered(struct cp_state *state, const struct cp_inventory *inv);

/*
 * The state record of a plan about to be applied: every step pending,
 * with the files of @policy (the one in force) and who applies it.
 * Returns NULL on ENOMEM.
 */
struct cp_state_apply *cp_apply_state_record(const struct cp_apply_result *result,
					     const struct cp_policy *policy, const char *agent,
					     int64_t now, int32_t pid);
