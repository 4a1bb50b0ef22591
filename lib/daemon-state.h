/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What cryptoprio-daemon says about itself, kept as the member "daemon" of
 * /run/cryptoprio/state.json (the state file keeps members it does not know
 * on save, so `cryptoprioctl apply` leaves it alone): written by the daemon
 * under the apply lock, read by `cryptoprioctl status`.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

struct cp_daemon_record {
	int32_t pid;
	int64_t started_at;  /* seconds since the epoch */
	int64_t ready_at;    /* READY=1 sent; 0: not yet */
	int64_t stopped_at;  /* clean exit; 0: still running (or killed) */
	uint64_t ready_usec; /* from start to READY=1, monotonic */
	char **policy_files; /* the policy in force; none: built-in default */
	size_t n_policy_files;
	uint64_t runs, module_events, reloads, reload_failures;
	int64_t last_run_at;
	char last_trigger[16]; /* "start", "module", "retry", "reload" */
	uint64_t last_changed, last_failed, last_from_cache, last_measured;
	char backend[16];     /* calibration backend of the last run */
	char last_error[256]; /* the last error the daemon logged, or "" */
	char **waiting;	      /* drivers whose self-test has not finished yet */
	size_t n_waiting;
	bool cache_unsaved; /* measurements kept until /var/lib is writable */
	/* The last run stopped on an error or failed a step (optional in the file: false). */
	bool last_run_failed;
	/* Algorithm names the boot's budget left to measure after READY (optional in the file). */
	char **pending;
	size_t n_pending;
};

void cp_daemon_record_free(struct cp_daemon_record *rec);

/* Replace the policy file list / the waiting / the pending list with copies. 0 or -ENOMEM. */
int cp_daemon_record_set_files(struct cp_daemon_record *rec, char *const *files, size_t n);
int cp_daemon_record_set_waiting(struct cp_daemon_record *rec, char *const *drivers, size_t n);
int cp_daemon_record_set_pending(struct cp_daemon_record *rec, char *const *names, size_t n);

json_object *cp_daemon_record_to_json(const struct cp_daemon_record *rec);
/* -EBADMSG for a malformed record. */
int cp_daemon_record_from_json(json_object *obj, struct cp_daemon_record *rec);

/* Read the record from the state file at @path: -ENOENT if there is none. */
int cp_daemon_record_load(const char *path, struct cp_daemon_record *rec);
/* Store @rec into the state file at @path under the lock at @lock_path. */
int cp_daemon_record_save(const char *path, const char *lock_path,
			  const struct cp_daemon_record *rec);

struct cp_state;
/*
 * Put @rec into @state's document (made if it has none), to be written with
 * it: how an apply run's last write carries the record. 0 or -ENOMEM.
 */
int cp_daemon_record_put(struct cp_state *state, const struct cp_daemon_record *rec);
/* The same with the record already as JSON (cp_daemon_record_to_json()), taken over. */
int cp_daemon_record_put_json(struct cp_state *state, json_object *record);
/* The record held by an already loaded state: -ENOENT if there is none. */
int cp_daemon_record_from_state(const struct cp_state *state, struct cp_daemon_record *rec);

/*
 * Whether the last run failed: a step of the last plan applied failed or is
 * still pending (interrupted), or the daemon's record says its last run
 * failed a step or stopped before its plan.
 */
bool cp_state_last_run_failed(const struct cp_state *state);
