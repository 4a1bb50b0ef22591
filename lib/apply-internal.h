/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pure parts of the apply pipeline (apply.h), for apply.c and its unit
 * tests: which names to calibrate, the figures the planner reads, the state
 * file's record of a run, and the run's files read and written once each.
 * Not for the CLI or the daemon.
 */
#pragma once

#include "apply.h"

/*
 * The workload points to calibrate: the names that compete, grouped by
 * (RequestSize, InFlight) and by whether the CPU's candidates are measured.
 */
struct cp_workload {
	uint32_t size, depth;
	/*
	 * Gears = any: only there a candidate's figures decide its place; the
	 * other gears put it in the CPU's gear whatever it measures.
	 */
	bool candidates;
	char **names; /* fnmatch patterns matching exactly these names (escaped) */
	size_t n_names;
};

/*
 * Group every name with two or more competing implementations (template
 * instances aside, as the planner; the CPU's candidate counted where the
 * name's Gears = any) by its settings' point; with @only_drivers, only
 * names one of whose drivers matches. Returns the count or -ENOMEM; free
 * with cp_workloads_free().
 */
int cp_apply_workloads(const struct cp_inventory *inv, const struct cp_policy *policy,
		       char *const *only_drivers, size_t n_only_drivers, struct cp_workload **ret);
void cp_workloads_free(struct cp_workload *w, size_t n);
/* Whether one of @w's @n groups has the name pattern @pattern. */
bool cp_workloads_have(const struct cp_workload *w, size_t n, const char *pattern);

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

/*
 * The names of @cal with a point left unmeasured (no figure in the cache,
 * or the budget ran out), sorted, each once: apply --cached-only leaves
 * them out. Returns the count (*ret NULL for none) or -ENOMEM; each
 * name and the array are the caller's to free.
 */
int cp_apply_names_unmeasured(const struct cp_calibration *cal, char ***ret);
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

/*
 * One plan or apply run: the files it reads once at the start and writes
 * back once (the state twice when there are steps: the record before the
 * first change, the results after the last).
 */
struct cp_run {
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
	bool final_write_due; /* the steps ran (or there were none): cp_run_record_finish writes */
};

/*
 * Start @run: the paths of @opts and the cache (first: it holds the memo
 * the inventory's classification asks), then, once the inventory is
 * loaded, the state (for apply under the lock, one that does not parse
 * moved aside as cp_state_load_salvage() does; for a dry run, one that
 * cannot be read knows nothing); each read once. Errors are kept for
 * later: the plan goes on without the file.
 */
void cp_run_load(struct cp_run *run, const struct cp_apply_options *opts,
		 const struct cp_policy *policy, struct cp_apply_result *result);
void cp_run_load_state(struct cp_run *run);
void cp_run_free(struct cp_run *run);

/* The plan and its selected steps, knowing the instances the loaded state created. */
int cp_run_plan(struct cp_run *run);

/*
 * Before any change: the originals of the drivers the steps touch, the
 * creates and the plan pending written to the state file, and the defaults
 * noted in the cache (saved at the end). With no steps, nothing is written
 * here: the final write records the check. Returns 0 or a negative errno,
 * with nothing changed.
 */
int cp_run_record_start(struct cp_run *run);
/* Step @i was sent to the kernel (result->steps[i] says how it went): kept in the record. */
void cp_run_step_done(struct cp_run *run, size_t i);
/* After the last step: the record finished, for cp_run_record_finish() to write. */
void cp_run_steps_finished(struct cp_run *run);
/*
 * At the end of the run, whatever happened: the cache written once if the
 * calibration or the defaults changed it. Failing that, the calibration's
 * cache_warning and result->defaults_unsaved say what was not kept.
 */
void cp_run_save_cache(struct cp_run *run);
/*
 * After cp_run_save_cache(), when the steps ran or there were none: the
 * caller's before_final_write hook adds its part to the state, which is
 * then written, once (result->state_error if that fails).
 */
void cp_run_record_finish(struct cp_run *run);
