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

#include "calib-cache.h"
#include "calibrate.h"
#include "export.h"
#include "inventory.h"
#include "planner.h"
#include "policy.h"
#include "state.h"

struct cp_apply_result;

struct cp_apply_options {
	const char *root;	 /* prefix for the policy search path ("/" normally) */
	const char *config_file; /* -c FILE, or NULL for the search path */
	const struct cp_policy
	    *policy;		/* already loaded (daemon reload): used instead of loading */
	bool dry_run;		/* plan only: no lock, no state, no UPDATEALG */
	bool force_calibration; /* ignore the cache */
	/*
	 * Measure nothing (Calibrate = cached unless the policy says never),
	 * and leave out the names whose figures the cache lacks: their steps
	 * are not made, the kernel keeps its order of them, the other names
	 * are applied (apply --cached-only, the initramfs). -ENODATA when a
	 * name was left out (result->left_out).
	 */
	bool cached_only;
	/*
	 * Give each point its first runs whatever the budget, which bounds only
	 * the further runs (cp_calibrate_options.finish): the daemon's
	 * measurements after READY.
	 */
	bool finish_calibration;
	const char *state_path; /* default CP_STATE_PATH */
	const char *lock_path;	/* default CP_LOCK_PATH */
	const char *cache_path; /* NULL: CP_CACHE_PATH; "": no cache */
	/*
	 * With dry_run, plan for another machine from its export (plan
	 * --from): its implementations, created instances and figures instead
	 * of this kernel's, the state's and the cache's; nothing measured,
	 * nothing read from this kernel. from_path names it in messages.
	 */
	const struct cp_export *from;
	const char *from_path;
	/* Only drivers matching these (new implementations after a module load); none: all. */
	char *const *only_drivers;
	size_t n_only_drivers;
	void (*progress)(const struct cp_progress *progress, void *userdata);
	void *userdata;
	const char *agent; /* recorded in the state file; default "cryptoprioctl" */
	void (*lock_waiting)(const char *path); /* called once before waiting for another holder */
	uint64_t lock_timeout_usec; /* then at most this long (-ETIMEDOUT); 0: no limit */
	/*
	 * With dry_run: fail where apply would, changing nothing: without
	 * CAP_NET_ADMIN (-EPERM), without crypto_user, where the lock cannot
	 * be opened or the state file's directory is not writable.
	 */
	bool check_needs;
	/*
	 * Called (with @userdata) just before the run's last write of the
	 * state file, after the cache's: what it adds to @state (the daemon
	 * its record) is written in that same write. Not called by a dry run
	 * nor by a run that stopped before its steps.
	 */
	void (*before_final_write)(const struct cp_apply_result *result, struct cp_state *state,
				   void *userdata);
	/* Called (with @userdata) right after that write, whether it succeeded or not. */
	void (*after_final_write)(const struct cp_apply_result *result, void *userdata);
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
