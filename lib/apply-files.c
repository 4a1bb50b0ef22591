/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The files of one plan or apply run: the state and the cache read once at
 * the start; the state written before the first change and after the last
 * (not after each step: one fsync'd rename per step costs seconds at boot
 * on slow storage), once when nothing changes; the cache written once, just
 * before the state's last write, which carries what the caller adds (the
 * daemon's record).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "apply-files.h"
#include "apply-measurements.h"
#include "apply-record.h"
#include "apply-workloads.h"
#include "defaults.h"
#include "macro.h"
#include "paths.h"

/* NULL: the default; "": no cache. An export's figures are its own cache. */
static const char *cache_path_of(const struct cp_apply_options *opts)
{
	if (opts->from)
		return opts->from_path ? opts->from_path : "the export";
	if (!opts->cache_path)
		return CP_CACHE_PATH;
	return opts->cache_path[0] ? opts->cache_path : NULL;
}

/* A plan only reads: a state it cannot read knows no created instance. */
static void load_state(struct cp_apply_files *run)
{
	int r;

	if (run->opts->dry_run) {
		if (cp_state_load(run->state_path, &run->state) < 0)
			cp_state_free(&run->state);
		return;
	}
	r = cp_state_load_salvage(run->state_path, &run->state);
	if (r < 0) {
		cp_state_free(&run->state);
		run->state_error = r;
		return;
	}
	run->result->state_salvaged = r > 0;
}

/* An export's figures, read only: the run's cache, never saved. */
static int copy_figures(struct cp_cache *to, const struct cp_cache *from)
{
	size_t size = from->n_entries * sizeof(*from->entries);

	if (size == 0)
		return 0;
	to->entries = malloc(size);
	if (!to->entries)
		return -ENOMEM;
	memcpy(to->entries, from->entries, size);
	to->n_entries = from->n_entries;
	return 0;
}

/* The instances the exported machine's state lists as created. */
static int load_exported_created(struct cp_apply_files *run)
{
	const struct cp_export *from = run->opts->from;

	for (size_t i = 0; i < from->n_created; i++)
		if (cp_state_add_created(&run->state, &from->created[i]) < 0)
			return -ENOMEM;
	return 0;
}

void cp_apply_files_load(struct cp_apply_files *run, const struct cp_apply_options *opts,
			 const struct cp_policy *policy, struct cp_apply_result *result)
{
	int r;

	*run = (struct cp_apply_files){
	    .opts = opts,
	    .policy = policy,
	    .result = result,
	    .state_path = opts->state_path ? opts->state_path : CP_STATE_PATH,
	    .cache_path = cache_path_of(opts),
	};
	if (!run->cache_path)
		return;
	if (opts->from) {
		run->cache_error = copy_figures(&run->cache, &opts->from->calibration);
		return;
	}
	/* Corrupt or absent: no figures nor defaults known (the calibration says why). */
	r = cp_cache_load(run->cache_path, &run->cache);
	if (r < 0) {
		cp_cache_free(&run->cache);
		run->cache_error = r;
	}
}

void cp_apply_files_load_state(struct cp_apply_files *run)
{
	if (run->opts->from) {
		if (load_exported_created(run) < 0)
			cp_state_free(&run->state); /* ENOMEM: knows no created instance */
		return;
	}
	load_state(run);
}

void cp_apply_files_free(struct cp_apply_files *run)
{
	cp_state_free(&run->state);
	cp_cache_free(&run->cache);
	cp_cache_free(&run->defaults_seen);
}

/*
 * The plan, knowing the instances the state file says cryptoprio created.
 * A state file that could not be read knows none (apply then salvaged it,
 * or stops before any change).
 */
static int build_plan(struct cp_apply_files *run, const struct cp_measurement *ms, size_t n)
{
	struct cp_state *state = &run->state;
	_cleanup_free_ char **created = calloc(state->n_created + 1, sizeof(*created));

	if (!created)
		return -ENOMEM;
	for (size_t i = 0; i < state->n_created; i++)
		created[i] = state->created[i].driver;
	return cp_plan_build_created(&run->result->inventory, ms, n, run->policy, created,
				     state->n_created, &run->result->plan);
}

static bool left_out(const struct cp_apply_result *result, const char *name)
{
	for (size_t i = 0; i < result->n_left_out; i++)
		if (streq(result->left_out[i], name))
			return true;
	return false;
}

/*
 * The plan's steps of the names selected (only_drivers) and not left out:
 * a name without its figures keeps the kernel's order whole, so that no
 * half of an order is made from what was measured of the other half.
 */
static void select_steps(struct cp_apply_files *run)
{
	struct cp_apply_result *result = run->result;

	for (size_t i = 0; i < result->plan->n_steps; i++) {
		const struct cp_plan_step *p = &result->plan->steps[i];
		struct cp_apply_step_result *s = &result->steps[result->n_steps];

		if (!cp_apply_name_selected(&result->inventory, p->name, run->opts->only_drivers,
					    run->opts->n_only_drivers) ||
		    left_out(result, p->name))
			continue;
		memcpy(s->driver, p->driver, sizeof(s->driver));
		memcpy(s->name, p->name, sizeof(s->name));
		memcpy(s->why, p->why, sizeof(s->why));
		s->class = p->class;
		s->action = p->action;
		s->old_priority = p->old_priority;
		s->new_priority = p->new_priority;
		result->n_steps++;
	}
}

int cp_apply_files_plan(struct cp_apply_files *run)
{
	struct cp_apply_result *result = run->result;
	_cleanup_free_ struct cp_measurement *ms = NULL;
	int n, r;

	n = cp_apply_measurements(&result->calibration, &ms);
	if (n < 0)
		return n;
	r = build_plan(run, ms, (size_t) n);
	if (r < 0)
		return r;
	if (run->opts->cached_only) {
		n = cp_apply_names_unmeasured(&result->calibration, &result->left_out);
		if (n < 0)
			return n;
		result->n_left_out = (size_t) n;
	}
	result->steps = calloc(result->plan->n_steps + 1, sizeof(*result->steps));
	if (!result->steps)
		return -ENOMEM;
	select_steps(run);
	return 0;
}

/*
 * The defaults of drivers about to change, into the cache in memory (best
 * effort: /var may not be writable yet at boot; the daemon keeps them for
 * later). Written with the cache at the end of the run.
 */
static void note_defaults(struct cp_apply_files *run)
{
	struct cp_apply_result *result = run->result;
	int r;

	r = cp_defaults_note(&run->defaults_seen, &run->state, &result->inventory,
			     result->applied_at);
	for (size_t i = 0; r >= 0 && i < run->defaults_seen.n_defaults; i++) {
		r = cp_cache_put_default(&run->cache, &run->defaults_seen.defaults[i]);
		run->n_defaults_new += r > 0;
	}
	if (r < 0) {
		result->defaults_unsaved =
		    run->defaults_seen; /* merged later, the first sight winning */
		result->defaults_error = r;
		run->defaults_seen = (struct cp_cache){};
		run->n_defaults_new = 0;
	}
}

/* The names this run plans: the plan's, of the drivers selected, not left out. */
static int planned_names(const struct cp_apply_files *run, char ***ret, size_t *ret_n)
{
	const struct cp_apply_result *result = run->result;
	const struct cp_plan *plan = result->plan;

	*ret = NULL;
	*ret_n = 0;
	for (size_t i = 0; plan && i < plan->n_algorithms; i++) {
		const char *name = plan->algorithms[i].name;

		if (cp_apply_name_selected(&result->inventory, name, run->opts->only_drivers,
					   run->opts->n_only_drivers) &&
		    !left_out(result, name) && cp_strv_push(ret, ret_n, name) < 0)
			return -ENOMEM;
	}
	return 0;
}

int cp_apply_files_record_winners(struct cp_apply_files *run, struct cp_state_apply *rec,
				  const struct cp_inventory *inv)
{
	char **names;
	size_t n;
	int r;

	r = planned_names(run, &names, &n);
	if (r >= 0)
		r = inv ? cp_apply_record_winners(rec, inv, names, n)
			: cp_apply_carry_winners(rec, run->state.last_apply, names, n);
	cp_strv_free(names, n);
	return r;
}

/* Originals, creates and the pending plan, then on disk before the first change. */
static int record_plan(struct cp_apply_files *run)
{
	struct cp_apply_result *result = run->result;
	struct cp_state_apply *rec;
	int r;

	if (cp_apply_note_creates(&run->state, result) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < result->n_steps; i++) {
		const struct cp_alg *alg =
		    cp_inventory_find_driver(&result->inventory, result->steps[i].driver);

		/* A created instance has no original: reset removes it. */
		if (alg && !cp_state_find_created(&run->state, alg->driver) &&
		    cp_state_record_default(&run->state, alg, &run->cache) < 0)
			return -ENOMEM;
	}
	rec = cp_apply_state_record(result, run->policy, run->opts->agent,
				    (int64_t) result->applied_at, (int32_t) getpid());
	if (!rec || cp_apply_files_record_winners(run, rec, NULL) < 0) {
		if (rec)
			cp_state_apply_free(rec);
		return -ENOMEM;
	}
	cp_state_set_last_apply(&run->state, rec);
	run->state.checked_at = (int64_t) result->applied_at;
	r = cp_state_save(run->state_path, &run->state);
	if (r >= 0 && run->cache_path)
		note_defaults(run);
	return r;
}

int cp_apply_files_record_start(struct cp_apply_files *run)
{
	struct cp_apply_result *result = run->result;

	if (run->state_error < 0)
		return run->state_error;
	result->applied_at = time(NULL);
	(void) cp_apply_forget_unregistered(&run->state, &result->inventory);
	if (result->n_steps == 0) {
		/* The kernel is as planned: what it hands out now is what the plan chose. */
		if (run->state.last_apply &&
		    cp_apply_files_record_winners(run, run->state.last_apply, &result->inventory) <
			0)
			return -ENOMEM;
		run->state.checked_at = (int64_t) result->applied_at;
		run->final_write_due = true;
		return 0;
	}
	return record_plan(run);
}

static void count_step(struct cp_apply_result *result, const struct cp_apply_step_result *s)
{
	if (s->error < 0)
		result->n_failed++;
	else if (s->gone)
		result->n_gone++;
	else if (s->in_use)
		result->n_in_use++;
	else if (s->action == CP_STEP_SET)
		result->n_changed++;
	else if (s->action == CP_STEP_CREATE)
		result->n_created++;
	else if (s->action == CP_STEP_REMOVE)
		result->n_removed++;
}

void cp_apply_files_step_done(struct cp_apply_files *run, size_t i)
{
	const struct cp_apply_step_result *s = &run->result->steps[i];
	struct cp_state_step *rec = &run->state.last_apply->steps[i];

	rec->result = s->gone ? CP_STEP_GONE : s->error < 0 ? CP_STEP_FAILED : CP_STEP_DONE;
	rec->error = s->error;
	memcpy(rec->message, s->extack, sizeof(rec->message));
	count_step(run->result, s);
}

void cp_apply_files_steps_finished(struct cp_apply_files *run)
{
	run->state.last_apply->finished_at = (int64_t) time(NULL);
	run->final_write_due = true;
}

void cp_apply_files_save_cache(struct cp_apply_files *run)
{
	struct cp_calibration *cal = &run->result->calibration;
	int r;

	/* A plan writes for its figures only, not for the memo of the module index. */
	bool memo = run->modules_changed && !run->opts->dry_run;

	if (!run->cache_path || run->opts->from ||
	    (!cal->cache_updated && run->n_defaults_new == 0 && !memo))
		return;
	r = cp_cache_save(run->cache_path, &run->cache);
	if (r >= 0)
		return;
	if (cal->cache_updated)
		cp_calibration_cache_unsaved(cal, run->cache_path, r);
	if (run->n_defaults_new > 0) {
		run->result->defaults_unsaved = run->defaults_seen;
		run->result->defaults_error = r;
		run->defaults_seen = (struct cp_cache){};
	}
}

void cp_apply_files_record_finish(struct cp_apply_files *run)
{
	const struct cp_apply_options *opts = run->opts;
	int r;

	if (!run->final_write_due)
		return;
	if (opts->before_final_write)
		opts->before_final_write(run->result, &run->state, opts->userdata);
	r = cp_state_save(run->state_path, &run->state);
	if (r < 0 && !run->result->state_error)
		run->result->state_error = r;
	if (opts->after_final_write)
		opts->after_final_write(run->result, opts->userdata);
}
