/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /run/cryptoprio/state.json: the priorities drivers had before cryptoprio changed them. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

#include "inventory.h"
#include "planner.h"
#include "winners.h"

#define CP_STATE_VERSION  1
#define CP_STATE_MAX_SIZE (4u << 20)

struct cp_original {
	char driver[CP_NAME_MAX];
	char module[CP_NAME_MAX];
	uint32_t priority;
};

/*
 * A template instance cryptoprio created (NEWALG): removed again by reset,
 * or by an apply whose plan no longer puts it first. Recorded before the
 * NEWALG, so that a crash cannot leave one nobody knows about; one that is
 * not registered is simply forgotten.
 */
struct cp_created {
	char driver[CP_NAME_MAX];
	char name[CP_NAME_MAX]; /* the algorithm it serves */
	uint32_t priority;	/* set at creation, or CP_IN_USE_PRIORITY */
	bool in_use;		/* a removal found it held (EBUSY): lowered, removed when free */
};

/* What became of one step of an applied plan. */
enum cp_step_result {
	CP_STEP_PENDING, /* recorded before the change; still so after a crash */
	CP_STEP_DONE,
	CP_STEP_FAILED,
	CP_STEP_GONE, /* the driver was unregistered before its step (module removed) */
};

/* One UPDATEALG of an applied plan, as recorded. */
struct cp_state_step {
	char driver[CP_NAME_MAX];
	char name[CP_NAME_MAX]; /* the algorithm it was planned under */
	enum cp_step_action action;
	uint32_t old_priority, new_priority;
	char why[CP_STEP_WHY_MAX];
	enum cp_step_result result;
	int error;	   /* negative errno with CP_STEP_FAILED, else 0 */
	char message[256]; /* the kernel's extended ack, or "" */
};

/* The last plan that changed something: recorded before its first change. */
struct cp_state_apply {
	int64_t started_at;  /* seconds since the epoch: the plan recorded */
	int64_t finished_at; /* 0: interrupted (or still running) */
	int32_t pid;
	char agent[32];	  /* "cryptoprioctl" or "cryptoprio-daemon" */
	char backend[16]; /* calibration backend: "module", "afalg", "none" */
	char **policy_files;
	size_t n_policy_files;
	struct cp_state_step *steps;
	size_t n_steps;
	/* Names left in the kernel's order, the cache lacking their figures (--cached-only). */
	char **left_out;
	size_t n_left_out;
	/*
	 * What new users of each name an apply planned got once it was done,
	 * per caller (winners.h); kept across runs for the names a run did not
	 * plan (a module's). winners_recorded is false in a file written
	 * before cryptoprio recorded them: drift is then by priorities alone.
	 */
	struct cp_winners *winners;
	size_t n_winners;
	bool winners_recorded;
};

struct cp_state {
	struct cp_original *originals;
	size_t n_originals;
	struct cp_state_apply *last_apply; /* NULL: no plan applied yet */
	struct cp_created *created;	   /* kept across applies until removed */
	size_t n_created;
	int64_t checked_at; /* the last apply run, even one with nothing to change; 0: never */
	/* The whole document as read: keys this version does not know are kept on save. */
	json_object *doc;
};

void cp_state_init(struct cp_state *state);
void cp_state_free(struct cp_state *state);

/* Parse a state document; -EBADMSG for anything malformed (never half-trusted). */
int cp_state_parse(const char *text, struct cp_state *state);
/* Serialise; the returned string is owned by the caller. */
int cp_state_format(const struct cp_state *state, char **ret_text);
/* The created instances as the state file lists them (status shows the same). */
json_object *cp_state_created_json(const struct cp_state *state);

/*
 * Whether step @i of the last plan applied has drifted: done and its
 * driver's last step (a remove leaves nothing to compare), the driver still
 * cryptoprio's (an original or a created instance kept: reset gave back
 * the others), registered in @inv at another priority (in @ret_priority).
 */
bool cp_state_step_drifted(const struct cp_state *state, size_t i, const struct cp_inventory *inv,
			   uint32_t *ret_priority);

/*
 * Whether drift is told by winners: the last apply recorded them. A file
 * of an older cryptoprio has none, and drift is then a step's priority
 * changed since (cp_state_step_drifted()).
 */
static inline bool cp_state_drift_by_winners(const struct cp_state *state)
{
	return state->last_apply && state->last_apply->winners_recorded;
}

/*
 * How much the kernel drifted from the last plan applied: by winners, the
 * callers of names whose winner moved (cp_winners_drift()); without them,
 * the steps whose priority did.
 */
size_t cp_state_drift_count(const struct cp_state *state, const struct cp_inventory *inv);

/* Load @path; a missing file is an empty state, not an error. */
int cp_state_load(const char *path, struct cp_state *state);
/*
 * For writers: as cp_state_load(), but a file that does not parse is moved
 * aside to @path.corrupt and an empty state returned, with 1 (0 otherwise).
 */
int cp_state_load_salvage(const char *path, struct cp_state *state);
/* Write @path atomically (mode 0644). */
int cp_state_save(const char *path, const struct cp_state *state);

const struct cp_original *cp_state_find(const struct cp_state *state, const char *driver);
/* Record @alg's current priority unless an original is already recorded: returns 1 if added. */
int cp_state_record(struct cp_state *state, const struct cp_alg *alg);
/* The same with @priority as the original (a default recorded earlier, not the current one). */
int cp_state_record_priority(struct cp_state *state, const struct cp_alg *alg, uint32_t priority);
/* Forget @driver's original (after it was restored). Returns 1 if there was one. */
int cp_state_forget(struct cp_state *state, const char *driver);

const struct cp_created *cp_state_find_created(const struct cp_state *state, const char *driver);
/* Record (or update) @created: 1 added, 0 updated, -ENOMEM. */
int cp_state_add_created(struct cp_state *state, const struct cp_created *created);
/* Forget @driver's creation (removed, or not registered). Returns 1 if there was one. */
int cp_state_forget_created(struct cp_state *state, const char *driver);

/* An empty record of an apply run; NULL on ENOMEM. */
struct cp_state_apply *cp_state_apply_new(void);
void cp_state_apply_free(struct cp_state_apply *apply);
static inline void cp_state_apply_freep(struct cp_state_apply **p)
{
	if (*p)
		cp_state_apply_free(*p);
}
/* Append a copy of @step / of @file / of @name. Return 0 or -ENOMEM. */
int cp_state_apply_add_step(struct cp_state_apply *apply, const struct cp_state_step *step);
int cp_state_apply_add_policy_file(struct cp_state_apply *apply, const char *file);
int cp_state_apply_add_left_out(struct cp_state_apply *apply, const char *name);
/* Record @winners, replacing those of their name. Returns 0 or -ENOMEM. */
int cp_state_apply_set_winners(struct cp_state_apply *apply, const struct cp_winners *winners);
const struct cp_winners *cp_state_apply_find_winners(const struct cp_state_apply *apply,
						     const char *name);
/* Forget the winners recorded for @name. Returns 1 if there were. */
int cp_state_apply_forget_winners(struct cp_state_apply *apply, const char *name);
/* Replace state->last_apply with @apply (owned by the state from now on). */
void cp_state_set_last_apply(struct cp_state *state, struct cp_state_apply *apply);

const char *cp_step_result_to_string(enum cp_step_result result);
int cp_step_result_from_string(const char *s, enum cp_step_result *ret);
