/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * policy -> inventory -> calibration -> plan -> UPDATEALG, shared by
 * `cryptoprioctl plan|apply` and cryptoprio-daemon (cryptoprioctl(8), "plan").
 * The top of the run: it calls the run's files (apply-files.c) and the pure
 * parts (apply-workloads.c, apply-measurements.c, apply-record.c), and
 * none of them calls back (scripts/check-call-cycles).
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <string.h>

#include "apply-files.h"
#include "apply-measurements.h"
#include "apply-workloads.h"
#include "apply.h"
#include "crypto-user.h"
#include "fileio.h"
#include "inventory-load.h"
#include "macro.h"
#include "paths.h"

static int load_policy(const struct cp_apply_options *opts, struct cp_apply_result *result,
		       const struct cp_policy **ret)
{
	int r;

	if (opts->policy) {
		*ret = opts->policy;
		return cp_policy_is_valid(opts->policy) ? 0 : -EBADMSG;
	}
	r = cp_policy_load(opts->root, opts->config_file, &result->policy);
	*ret = result->policy;
	if (r < 0)
		return r;
	return cp_policy_is_valid(result->policy) ? 0 : -EBADMSG;
}

/* One engine call per workload point, the budget shared by the number of names. */
static int calibrate_workloads(struct cp_apply_files *run, const struct cp_settings *g,
			       struct cp_workload *w, size_t n)
{
	struct cp_apply_result *result = run->result;
	uint64_t left_ns = g->calibration_budget_usec * UINT64_C(1000);
	size_t names_left = 0;
	int r;

	for (size_t i = 0; i < n; i++)
		names_left += w[i].n_names;
	for (size_t i = 0; i < n; i++) {
		struct cp_calibration cal = {};
		struct cp_calibrate_options co = {
		    .patterns = w[i].names,
		    .n_patterns = w[i].n_names,
		    .sizes = &w[i].size,
		    .n_sizes = 1,
		    .workload_size = w[i].size,
		    .depth = w[i].depth,
		    .budget_ns = left_ns / names_left * w[i].n_names,
		    .policy = run->policy,
		    .finish = run->opts->finish_calibration,
		    .verify_first_only = run->opts->verify_first_only,
		    .force = run->opts->force_calibration,
		    .cache_only = g->calibrate == CP_CALIBRATE_CACHED || run->opts->from,
		    .without_candidates = !w[i].candidates,
		    .cache_path = run->cache_path,
		    /* Read once for every point, saved once at the end of the run. */
		    .cache = run->cache_path ? &run->cache : NULL,
		    .cache_error = run->cache_error,
		    .backend = result->unprivileged ? CP_BACKEND_AFALG : CP_BACKEND_NONE,
		    .progress = run->opts->progress,
		    .userdata = run->opts->userdata,
		};

		r = cp_calibrate(&result->inventory, &co, &cal);
		left_ns = cal.elapsed_ns < left_ns ? left_ns - cal.elapsed_ns : 0;
		names_left -= w[i].n_names;
		if (r >= 0)
			r = cp_calibration_merge(&result->calibration, &cal);
		cp_calibration_free(&cal);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * The name of each registered instance cryptoprio created, with its
 * engines, under Gears = any: calibration lists the instance from the
 * cache only (its candidate's figures, cp_measured.cache_only), so that
 * it keeps the place its candidate won. Under the other gears the
 * instance's gear places it, as it placed its candidate, unmeasured. A
 * CPU instance the kernel built does not make its name worth calibrating:
 * like any template instance it has no figures of its own, and its place
 * follows its class.
 */
static int add_created_names(struct cp_apply_files *run, struct cp_workload **w, size_t *n)
{
	const struct cp_inventory *inv = &run->result->inventory;

	for (size_t i = 0; i < run->state.n_created; i++) {
		const struct cp_alg *alg =
		    cp_inventory_find_driver(inv, run->state.created[i].driver);
		struct cp_settings s;

		if (!alg || !cp_apply_name_selected(inv, alg->name, run->opts->only_drivers,
						    run->opts->n_only_drivers))
			continue;
		cp_policy_algorithm(run->policy, alg->name, &s);
		if (s.gears != CP_GEARS_ANY)
			continue; /* its gear places it: the engines' figures decide nothing */
		if (cp_workloads_add_name(w, n, alg->name, &s) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int calibrate(struct cp_apply_files *run)
{
	struct cp_workload *w = NULL;
	struct cp_settings g;
	size_t n_w;
	int n, r;

	cp_policy_global(run->policy, &g);
	if (run->opts->cached_only && g.calibrate != CP_CALIBRATE_NEVER)
		g.calibrate = CP_CALIBRATE_CACHED;
	run->result->calibrate = g.calibrate;
	if (g.calibrate == CP_CALIBRATE_NEVER)
		return 0;
	n = cp_apply_workloads(&run->result->inventory, run->policy, run->opts->only_drivers,
			       run->opts->n_only_drivers, &w);
	if (n < 0)
		return n;
	n_w = (size_t) n;
	r = add_created_names(run, &w, &n_w);
	if (r >= 0)
		r = calibrate_workloads(run, &g, w, n_w);
	cp_workloads_free(w, n_w);
	return r;
}

/*
 * NEWALG. One registered meanwhile (EEXIST: looked up by its driver name
 * since the inventory was read) gets the planned priority instead, and is
 * kept as created: cryptoprio placed it, reset removes it. Recorded as
 * created before (cp_apply_note_creates()); forgotten again when the
 * kernel refused it, since nothing was created.
 */
static int create_step(struct cp_nl *nl, const struct cp_apply_step_result *s,
		       struct cp_state *state, char *note, size_t len)
{
	int r = cp_cu_create(nl, s->driver, s->name, s->new_priority);

	if (r == -EEXIST) {
		snprintf(note, len, "registered meanwhile: its priority set");
		r = cp_cu_set_priority(nl, s->driver, s->new_priority);
	}
	if (r < 0)
		(void) cp_state_forget_created(state, s->driver);
	return r;
}

/*
 * DELALG. Held by someone (EBUSY): lowered to new_priority
 * (CP_IN_USE_PRIORITY) so that it wins no new lookup, and kept in the
 * state, to be removed by a later apply or reset once free. Not registered
 * (ENOENT): gone already, forgotten.
 */
static int remove_step(struct cp_nl *nl, struct cp_apply_step_result *s, struct cp_state *state,
		       char *note, size_t len)
{
	const struct cp_created *known = cp_state_find_created(state, s->driver);
	struct cp_created kept = known ? *known : (struct cp_created){};
	int r = cp_cu_delete(nl, s->driver);

	if (r == -EBUSY) {
		r = cp_cu_set_priority(nl, s->driver, s->new_priority);
		s->in_use = r == 0;
	}
	if (r == 0 && s->in_use) {
		snprintf(note, len, "in use: lowered to priority %u, removed once free",
			 s->new_priority);
		cp_strscpy(kept.driver, sizeof(kept.driver), s->driver);
		cp_strscpy(kept.name, sizeof(kept.name), s->name);
		kept.priority = s->new_priority;
		kept.in_use = true;
		return cp_state_add_created(state, &kept) < 0 ? -ENOMEM : 0;
	}
	if (r == 0 || r == -ENOENT)
		(void) cp_state_forget_created(state, s->driver);
	return r;
}

/* UPDATEALG; a created instance set (raised again after it was found in use) is wanted again. */
static int set_step(struct cp_nl *nl, const struct cp_apply_step_result *s, struct cp_state *state)
{
	struct cp_created *known = (struct cp_created *) cp_state_find_created(state, s->driver);
	int r = cp_cu_set_priority(nl, s->driver, s->new_priority);

	if (r == 0 && known) {
		known->priority = s->new_priority;
		known->in_use = false;
	}
	return r;
}

/*
 * One step. A driver unregistered since the inventory was read (its module
 * removed during calibration) is gone, not failed: there is nothing left to
 * order, and the kernel's lookups no longer see it. Not so for a create,
 * whose ENOENT says a part could not be found.
 */
static void run_step(struct cp_nl *nl, struct cp_apply_step_result *s, struct cp_state *state)
{
	char note[sizeof(s->extack)] = "";

	nl->extack[0] = '\0';
	if (s->action == CP_STEP_CREATE)
		s->error = create_step(nl, s, state, note, sizeof(note));
	else if (s->action == CP_STEP_REMOVE)
		s->error = remove_step(nl, s, state, note, sizeof(note));
	else
		s->error = set_step(nl, s, state);
	s->applied = true;
	s->gone = s->error == -ENOENT && s->action != CP_STEP_CREATE;
	if (s->gone)
		s->error = 0;
	cp_strscpy(s->extack, sizeof(s->extack), s->error < 0 ? nl->extack : note);
}

/*
 * What new users of each name planned get once the steps are made, as the
 * kernel says (created instances and retired ones included), for status
 * to compare. A dump that fails leaves those names unrecorded: no drift
 * can be told of them.
 */
static void record_winners(struct cp_apply_files *run, struct cp_nl *nl)
{
	_cleanup_(cp_inventory_free) struct cp_inventory now = {};

	if (cp_cu_dump(nl, &now) >= 0)
		(void) cp_apply_files_record_winners(run, run->state.last_apply, &now);
}

/*
 * The steps, their results kept in memory and written once after the last:
 * the record written before the first change says what a crash in between
 * may have left (cryptoprioctl status, reset).
 */
static int apply_steps(struct cp_apply_files *run)
{
	struct cp_apply_result *result = run->result;
	struct cp_nl nl = {};
	int r;

	r = cp_cu_open(&nl);
	if (r < 0)
		return r;
	for (size_t i = 0; i < result->n_steps; i++) {
		run_step(&nl, &result->steps[i], &run->state);
		cp_apply_files_step_done(run, i);
	}
	record_winners(run, &nl);
	cp_nl_close(&nl);
	cp_apply_files_steps_finished(run);
	return result->n_failed ? -EIO : 0;
}

/* Under the lock: the record before the first change, then the changes. */
static int apply(struct cp_apply_files *run)
{
	int r;

	r = cp_apply_files_record_start(run);
	if (r < 0 || run->result->n_steps == 0)
		return r; /* nothing changed */
	return apply_steps(run);
}

static const char *lock_path(const struct cp_apply_options *opts)
{
	return opts->lock_path ? opts->lock_path : CP_LOCK_PATH;
}

static int open_lock(const struct cp_apply_options *opts, struct cp_apply_result *result,
		     int *ret_fd)
{
	if (!cp_have_net_admin())
		return -EPERM;
	*ret_fd =
	    cp_lock_acquire_timeout(lock_path(opts), opts->lock_waiting, opts->lock_timeout_usec);
	if (*ret_fd < 0)
		result->unusable_path = lock_path(opts);
	return *ret_fd < 0 ? *ret_fd : 0;
}

/* An export's implementations, as classified where they were exported. */
static int copy_inventory(struct cp_inventory *to, const struct cp_inventory *from)
{
	to->source = CP_SOURCE_FILE;
	to->ghash_library = from->ghash_library;
	for (size_t i = 0; i < from->n_algs; i++)
		if (cp_inventory_add(to, &from->algs[i]) < 0)
			return -ENOMEM;
	return 0;
}

/*
 * After the lock: nobody changes a priority under us. The modules
 * classified through the cache's memo of the module index, where there is
 * a cache.
 */
static int load_inventory(struct cp_apply_files *run)
{
	const struct cp_apply_options *opts = run->opts;
	struct cp_apply_result *result = run->result;
	int r;

	if (opts->from)
		return copy_inventory(&result->inventory, &opts->from->inventory);
	r = cp_inventory_load_memo(&result->inventory,
				   run->cache_path ? &run->cache.modules : NULL);
	if (r < 0)
		return r;
	run->modules_changed = r > 0;
	if ((!opts->dry_run || opts->check_needs) &&
	    result->inventory.source != CP_SOURCE_CRYPTO_USER)
		return result->inventory.crypto_user_error ?: -EOPNOTSUPP;
	return 0;
}

/*
 * A dry run's check of what apply needs, after the inventory: the lock can
 * be opened (not taken: nothing waits; an existing one opened for writing,
 * a missing one creatable) and the state written beside it. Nothing is
 * created.
 */
static int check_files(const struct cp_apply_options *opts, struct cp_apply_result *result)
{
	const char *state_path = opts->state_path ? opts->state_path : CP_STATE_PATH;
	int fd, r;

	fd = open(lock_path(opts), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	r = fd >= 0	      ? 0
	    : errno == ENOENT ? cp_check_dir_writable(lock_path(opts))
			      : negative_errno();
	if (fd >= 0)
		close(fd);
	if (r < 0) {
		result->unusable_path = lock_path(opts);
		return r;
	}
	r = cp_check_dir_writable(state_path);
	if (r < 0)
		result->unusable_path = state_path;
	return r;
}

static int run_pipeline(const struct cp_apply_options *opts, struct cp_apply_result *result)
{
	_cleanup_close_ int lock_fd = -1;
	_cleanup_(cp_apply_files_free) struct cp_apply_files run = {};
	const struct cp_policy *policy = NULL;
	int r;

	memset(result, 0, sizeof(*result));
	cp_cache_keys_forget(); /* modules may have been reloaded since the last run */
	r = load_policy(opts, result, &policy);
	if (r < 0)
		return r;
	result->unprivileged = !opts->from && !cp_have_net_admin();
	if (opts->dry_run && opts->check_needs && result->unprivileged)
		return -EPERM;
	if (!opts->dry_run) {
		r = open_lock(opts, result, &lock_fd);
		if (r < 0)
			return r;
	}
	cp_apply_files_load(&run, opts, policy, result);
	r = load_inventory(&run);
	if (r >= 0 && opts->dry_run && opts->check_needs)
		r = check_files(opts, result);
	if (r < 0)
		return r;
	cp_apply_files_load_state(&run);
	r = calibrate(&run);
	if (r >= 0)
		r = cp_apply_files_plan(&run);
	/* --cached-only with no name that has its figures: nothing to do, nothing recorded. */
	if (r >= 0 && result->n_left_out > 0 && result->n_steps == 0)
		r = -ENODATA;
	if (r >= 0 && !opts->dry_run)
		r = apply(&run);
	/* the others applied */
	if (r >= 0 && result->n_left_out > 0)
		r = -ENODATA;
	cp_apply_files_save_cache(
	    &run); /* what the calibration measured is kept even if the rest failed */
	cp_apply_files_record_finish(&run);
	return r;
}

int cp_apply_run(const struct cp_apply_options *opts, struct cp_apply_result *result)
{
	int r;

	if (!opts->from)
		return run_pipeline(opts, result);
	if (!opts->dry_run)
		return -EINVAL;
	/* The figures keyed as on the exported machine; this one's again after. */
	cp_cache_keys_assume(&opts->from->machine, opts->from->modules, opts->from->n_modules);
	r = run_pipeline(opts, result);
	cp_cache_keys_assume(NULL, NULL, 0);
	return r;
}

void cp_apply_result_free(struct cp_apply_result *result)
{
	if (result->policy)
		cp_policy_free(result->policy);
	cp_inventory_free(&result->inventory);
	cp_calibration_free(&result->calibration);
	cp_cache_free(&result->defaults_unsaved);
	if (result->plan)
		cp_plan_free(result->plan);
	free(result->steps);
	cp_strv_free(result->left_out, result->n_left_out);
	memset(result, 0, sizeof(*result));
}
