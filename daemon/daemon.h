/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cryptoprio-daemon's event loop (sd-event): the pipeline at start, then
 * module uevents (debounced, one run at a time, only the new
 * implementations), a retry timer for implementations whose self-test has
 * not finished, SIGHUP to reload the policy, SIGTERM/SIGINT to exit, and a
 * timer that saves measurements once /var/lib is writable.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct cp_daemon_options {
	const char *root;				 /* policy search path prefix; NULL: / */
	const char *config_file;			 /* -c FILE */
	bool once;					 /* exit after the first run */
	const char *state_path, *lock_path, *cache_path; /* NULL: the defaults (paths.h) */
	uint64_t debounce_usec;				 /* module events settle this long */
	uint64_t retry_usec;	   /* look again at untested implementations after this */
	unsigned retry_max;	   /* ... this many times, then wait for the next event */
	uint64_t cache_retry_usec; /* try to save unsaved measurements this often */
};

#define CP_DAEMON_DEBOUNCE_USEC	   (500 * UINT64_C(1000))
#define CP_DAEMON_RETRY_USEC	   (250 * UINT64_C(1000))
#define CP_DAEMON_RETRY_MAX	   240u /* 60 s */
#define CP_DAEMON_CACHE_RETRY_USEC (30 * UINT64_C(1000000))

struct cp_daemon;

int cp_daemon_new(const struct cp_daemon_options *opts, struct cp_daemon **ret);
struct cp_daemon *cp_daemon_free(struct cp_daemon *d);
static inline void cp_daemon_freep(struct cp_daemon **d)
{
	if (*d)
		cp_daemon_free(*d);
}

/*
 * Load the policy and apply it, then (without --once) send READY=1 and run
 * the loop until SIGTERM. Returns the exit code: 0, or 1 when the policy is
 * invalid or the first run failed before changing anything (and, with
 * --once, when any step failed).
 */
int cp_daemon_run(struct cp_daemon *d);
