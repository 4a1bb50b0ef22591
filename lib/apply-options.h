/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What one plan or apply run (cp_apply_run(), apply.h) is asked to do: its
 * own header so that the parts of the run below the pipeline read it
 * without including the pipeline's.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calibrate.h"
#include "export.h"
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
	/* cp_calibrate_options.verify_first_only: the daemon's start. */
	bool verify_first_only;
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
