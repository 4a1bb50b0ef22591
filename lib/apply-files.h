/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The files of one plan or apply run, for the pipeline (apply.c) and the
 * unit tests: not for the CLI or the daemon.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "apply-options.h"
#include "apply-result.h"
#include "calib-cache.h"
#include "policy.h"
#include "state.h"

/*
 * The files of one plan or apply run, those it reads once at the start and
 * writes back once (the state twice when there are steps: the record before
 * the first change, the results after the last), with the options, the
 * policy and the result they serve.
 */
struct cp_apply_files {
	const struct cp_apply_options *opts;
	const struct cp_policy *policy; /* the one in force: loaded, or handed in */
	struct cp_apply_result *result;
	const char *state_path;
	const char *cache_path; /* NULL: no cache */
	struct cp_state state;
	int state_error; /* the state could not be loaded: apply stops before any change */
	struct cp_cache cache;
	int cache_error; /* its load failed, so it is empty: the calibration warns */
	/* Defaults of the originals recorded now, and how many the cache did not know. */
	struct cp_cache defaults_seen;
	int n_defaults_new;
	bool modules_changed; /* the cache's memo of the module index: worth a write */
	/* The steps ran (or there were none): cp_apply_files_record_finish() writes. */
	bool final_write_due;
};

/*
 * Start @run: the paths of @opts and the cache (first: it holds the memo
 * the inventory's classification asks), then, once the inventory is
 * loaded, the state (for apply under the lock, one that does not parse
 * moved aside as cp_state_load_salvage() does; for a dry run, one that
 * cannot be read knows nothing); each read once. Errors are kept for
 * later: the plan goes on without the file.
 */
void cp_apply_files_load(struct cp_apply_files *run, const struct cp_apply_options *opts,
			 const struct cp_policy *policy, struct cp_apply_result *result);
void cp_apply_files_load_state(struct cp_apply_files *run);
void cp_apply_files_free(struct cp_apply_files *run);

/* The plan and its selected steps, knowing the instances the loaded state created. */
int cp_apply_files_plan(struct cp_apply_files *run);

/*
 * Before any change: the originals of the drivers the steps touch, the
 * creates and the plan pending written to the state file, and the defaults
 * noted in the cache (saved at the end). With no steps, nothing is written
 * here: the final write records the check. Returns 0 or a negative errno,
 * with nothing changed.
 */
int cp_apply_files_record_start(struct cp_apply_files *run);
/*
 * Into @rec, the winners of the names this run plans: @inv's (the kernel
 * once the steps are made), or with @inv NULL those @rec does not plan
 * carried from the state's last apply. Returns 0 or -ENOMEM.
 */
int cp_apply_files_record_winners(struct cp_apply_files *run, struct cp_state_apply *rec,
				  const struct cp_inventory *inv);
/* Step @i was sent to the kernel (result->steps[i] says how it went): kept in the record. */
void cp_apply_files_step_done(struct cp_apply_files *run, size_t i);
/* After the last step: the record finished, for cp_apply_files_record_finish() to write. */
void cp_apply_files_steps_finished(struct cp_apply_files *run);
/*
 * At the end of the run, whatever happened: the cache written once if the
 * calibration or the defaults changed it. Failing that, the calibration's
 * cache_warning and result->defaults_unsaved say what was not kept.
 */
void cp_apply_files_save_cache(struct cp_apply_files *run);
/*
 * After cp_apply_files_save_cache(), when the steps ran or there were none: the
 * caller's before_final_write hook adds its part to the state, which is
 * then written, once (result->state_error if that fails).
 */
void cp_apply_files_record_finish(struct cp_apply_files *run);
