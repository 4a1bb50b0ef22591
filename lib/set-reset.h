/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `cryptoprioctl set` and `cryptoprioctl reset`, each one transaction under
 * the lock: the state file and the calibration cache read once, the kernel
 * changed through crypto_user, the state written once (set: before the
 * change; reset: after the last). Nothing is printed: the result says what
 * happened, for the caller to report.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inventory.h"

/* Where a transaction stopped short of what it was asked. */
enum cp_sr_failure {
	CP_SR_OK,
	CP_SR_NO_PRIVILEGE,   /* no CAP_NET_ADMIN: nothing tried */
	CP_SR_LOCK,	      /* the lock could not be taken */
	CP_SR_STATE_READ,     /* the state file could not be read */
	CP_SR_INVENTORY,      /* the kernel's implementations could not be read */
	CP_SR_NO_CRYPTO_USER, /* read without crypto_user: error is its errno (may be 0) */
	CP_SR_NETLINK,	      /* crypto_user could not be opened */
	CP_SR_NO_MEMORY,      /* before any change */
	CP_SR_NO_DRIVER,      /* set: no implementation with that driver name */
	CP_SR_STATE_SAVE,     /* set: the original could not be recorded; nothing changed */
	CP_SR_KERNEL,	      /* set: the kernel refused the priority (extack says why) */
	CP_SR_NOT_CHANGED,    /* reset: DRIVERs cryptoprio has no record of (unknown) */
};

/* The files a transaction uses: NULL for the defaults of paths.h. */
struct cp_sr_env {
	const char *state_path;
	const char *cache_path;
	const char *lock_path;
	void (*lock_waiting)(const char *path); /* called once before waiting for another holder */
	uint64_t
	    lock_timeout_usec; /* then at most this long (CP_SR_LOCK, -ETIMEDOUT); 0: no limit */
};

/* What became of the files, whatever else happened. */
struct cp_sr_files {
	const char *state_path, *cache_path, *lock_path; /* those used */
	bool state_salvaged; /* did not parse: moved to state_path.corrupt, an empty state used */
	int cache_error;     /* could not be loaded (-EBADMSG: not a cache): taken as empty */
};

struct cp_set_options {
	struct cp_sr_env env;
	const char *driver;
	uint32_t priority; /* at most CP_PRIORITY_MAX */
};

struct cp_set_result {
	enum cp_sr_failure failure;
	int error;	  /* negative errno with failure, else 0 */
	char extack[256]; /* CP_SR_KERNEL: the kernel's reason, or "" */
	struct cp_sr_files files;
	uint32_t old_priority, new_priority;
	uint32_t original_priority; /* recorded in the state: what reset restores */
	bool original_recorded;	    /* the first change: the original written to the state */
	int defaults_error;	    /* the cache could not take the defaults first seen now, or 0 */
};

/*
 * Set opts->driver's priority, its original recorded first (the default
 * the cache knows, else the current priority; a later set keeps it).
 * Returns 0 or result->error.
 */
int cp_set_run(const struct cp_set_options *opts, struct cp_set_result *result);

enum cp_restore_outcome {
	CP_RESTORE_RESTORED,
	CP_RESTORE_FORGOTTEN, /* not registered now: a reload registers it at its default */
	CP_RESTORE_FAILED,    /* kept in the state */
};

/* One original put back. */
struct cp_restore {
	char driver[CP_NAME_MAX];
	bool registered;
	uint32_t old_priority; /* when registered */
	uint32_t priority;     /* the original */
	enum cp_restore_outcome outcome;
	int error; /* CP_RESTORE_FAILED: negative errno */
	char extack[256];
};

enum cp_removal_outcome {
	CP_REMOVAL_REMOVED,
	CP_REMOVAL_GONE,   /* not registered any more: forgotten */
	CP_REMOVAL_IN_USE, /* held: lowered to CP_IN_USE_PRIORITY, kept in the state */
	CP_REMOVAL_FAILED, /* kept in the state */
};

/* One template instance cryptoprio created, removed. */
struct cp_removal {
	char driver[CP_NAME_MAX];
	char name[CP_NAME_MAX]; /* the algorithm it serves */
	enum cp_removal_outcome outcome;
	bool busy; /* DELALG found it held (EBUSY): lowering it was tried instead */
	/* FAILED: negative errno; IN_USE: -ENOMEM when it could not be kept in the state. */
	int error;
	char extack[256];
};

struct cp_reset_options {
	struct cp_sr_env env;
	char *const *drivers; /* none: every original, every created instance */
	size_t n_drivers;
};

struct cp_reset_result {
	enum cp_sr_failure failure;
	int error; /* negative errno with failure, else 0 */
	struct cp_sr_files files;
	/* Originals the state had lost, given from the defaults in the cache. */
	size_t n_recovered;
	/* CP_SR_NOT_CHANGED: the DRIVERs with no original nor creation recorded. */
	const char **unknown;
	size_t n_unknown;
	/* In the order done: the originals first, then the created instances, outermost first. */
	struct cp_restore *restores;
	size_t n_restores;
	struct cp_removal *removals;
	size_t n_removals;
	int state_error; /* the state could not be written after the changes, or 0 */
	size_t n_failed; /* failed restores and removals, and a state not written */
};

/*
 * Restore the originals of opts->drivers (none: all), recovering those a
 * lost state forgot from the cache's defaults, then remove the instances
 * cryptoprio created. Returns 0 (some steps may have failed: n_failed)
 * or result->error when it stopped before any change.
 */
int cp_reset_run(const struct cp_reset_options *opts, struct cp_reset_result *result);
void cp_reset_result_free(struct cp_reset_result *result);
