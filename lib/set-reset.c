/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * set and reset: a priority changed by hand, and every change of
 * cryptoprio's undone (cryptoprioctl(8), "set", "reset").
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "crypto-user.h"
#include "defaults.h"
#include "fileio.h"
#include "inventory-load.h"
#include "macro.h"
#include "paths.h"
#include "set-reset-internal.h"

/* ---- the files and the kernel ---- */

static void files_init(struct cp_sr_files *files, const struct cp_sr_env *env)
{
	*files = (struct cp_sr_files){
	    .state_path = env->state_path ? env->state_path : CP_STATE_PATH,
	    .cache_path = env->cache_path ? env->cache_path : CP_CACHE_PATH,
	    .lock_path = env->lock_path ? env->lock_path : CP_LOCK_PATH,
	};
}

int cp_sr_load(struct cp_sr_run *run, const struct cp_sr_env *env, struct cp_sr_files *files)
{
	int r;

	files_init(files, env);
	run->files = files;
	cp_state_init(&run->state);
	run->cache = (struct cp_cache){};
	r = cp_state_load_salvage(files->state_path, &run->state);
	if (r < 0)
		return r;
	files->state_salvaged = r > 0;
	/* Absent: no default known. Corrupt: none either, and the caller warns. */
	files->cache_error = cp_cache_load(files->cache_path, &run->cache);
	return 0;
}

void cp_sr_free(struct cp_sr_run *run)
{
	cp_state_free(&run->state);
	cp_cache_free(&run->cache);
}

static int nl_set_priority(void *data, const char *driver, uint32_t priority, char *extack)
{
	struct cp_nl *nl = data;
	int r = cp_cu_set_priority(nl, driver, priority);

	cp_strscpy(extack, sizeof(nl->extack), nl->extack);
	return r;
}

static int nl_remove(void *data, const char *driver, char *extack)
{
	struct cp_nl *nl = data;
	int r = cp_cu_delete(nl, driver);

	cp_strscpy(extack, sizeof(nl->extack), nl->extack);
	return r;
}

/* The lock, the files, the inventory and crypto_user: what every writer holds. */
struct session {
	int lock_fd;
	struct cp_inventory inv;
	struct cp_nl nl;
	struct cp_sr_run run;
};

static void session_close(struct session *s)
{
	cp_nl_close(&s->nl);
	cp_sr_free(&s->run);
	cp_inventory_free(&s->inv);
	closep(&s->lock_fd);
}

/* The inventory is read under the lock: nobody changes a priority under us. */
static int session_open(struct session *s, const struct cp_sr_env *env, struct cp_sr_files *files,
			enum cp_sr_failure *failure)
{
	int r;

	*s = (struct session){.lock_fd = -1};
	cp_state_init(&s->run.state);
	files_init(files, env);
	if (!cp_have_net_admin())
		return *failure = CP_SR_NO_PRIVILEGE, -EPERM;
	s->lock_fd =
	    cp_lock_acquire_timeout(files->lock_path, env->lock_waiting, env->lock_timeout_usec);
	if (s->lock_fd < 0)
		return *failure = CP_SR_LOCK, s->lock_fd;
	r = cp_sr_load(&s->run, env, files);
	if (r < 0)
		return *failure = CP_SR_STATE_READ, r;
	r = cp_inventory_load(&s->inv);
	if (r < 0)
		return *failure = CP_SR_INVENTORY, r;
	if (s->inv.source != CP_SOURCE_CRYPTO_USER)
		return *failure = CP_SR_NO_CRYPTO_USER, s->inv.crypto_user_error;
	r = cp_cu_open(&s->nl);
	if (r < 0)
		return *failure = CP_SR_NETLINK, r;
	s->run.inv = &s->inv;
	s->run.kernel = (struct cp_sr_kernel){
	    .set_priority = nl_set_priority, .remove = nl_remove, .data = &s->nl};
	return 0;
}

/* ---- set ---- */

static int set_failed(struct cp_set_result *result, enum cp_sr_failure failure, int error)
{
	result->failure = failure;
	result->error = error;
	return error;
}

/* The defaults first seen now into the cache: its error, or 0. */
static int note_defaults(struct cp_sr_run *run)
{
	int r = cp_defaults_note(&run->cache, &run->state, run->inv, time(NULL));

	if (r > 0)
		r = cp_cache_save(run->files->cache_path, &run->cache);
	return r < 0 ? r : 0;
}

int cp_set_transact(struct cp_sr_run *run, const struct cp_set_options *opts,
		    struct cp_set_result *result)
{
	const struct cp_alg *alg = cp_inventory_find_driver(run->inv, opts->driver);
	int r;

	if (!alg)
		return set_failed(result, CP_SR_NO_DRIVER, -ENOENT);
	result->old_priority = alg->priority;
	result->new_priority = opts->priority;
	/* The original goes to disk before the kernel changes. */
	r = cp_state_record_default(&run->state, alg, &run->cache);
	if (r < 0)
		return set_failed(result, CP_SR_NO_MEMORY, r);
	if (r > 0) {
		r = cp_state_save(run->files->state_path, &run->state);
		if (r < 0)
			return set_failed(result, CP_SR_STATE_SAVE, r);
		result->original_recorded = true;
		result->defaults_error = note_defaults(run);
	}
	result->original_priority = cp_state_find(&run->state, alg->driver)->priority;
	r = run->kernel.set_priority(run->kernel.data, alg->driver, opts->priority, result->extack);
	if (r < 0)
		return set_failed(result, CP_SR_KERNEL, r);
	return 0;
}

int cp_set_run(const struct cp_set_options *opts, struct cp_set_result *result)
{
	_cleanup_(session_close) struct session s;
	int r;

	*result = (struct cp_set_result){};
	r = session_open(&s, &opts->env, &result->files, &result->failure);
	if (r < 0)
		return result->error = r;
	return cp_set_transact(&s.run, opts, result);
}

/* ---- reset ---- */

static int reset_failed(struct cp_reset_result *result, enum cp_sr_failure failure, int error)
{
	result->failure = failure;
	result->error = error;
	return error;
}

/*
 * The winners the last apply recorded for @name: given back, the name is
 * no longer as a plan of cryptoprio's left it, and its winner moving is no
 * drift (cryptoprioctl status).
 */
static void forget_winners(struct cp_sr_run *run, const char *name)
{
	if (run->state.last_apply)
		(void) cp_state_apply_forget_winners(run->state.last_apply, name);
}

/* Restore one driver; on success its original is forgotten, and its name's winners. */
static void restore_one(struct cp_sr_run *run, struct cp_reset_result *result, const char *driver)
{
	const struct cp_original *orig = cp_state_find(&run->state, driver);
	const struct cp_alg *alg = cp_inventory_find_driver(run->inv, driver);
	struct cp_restore *s = &result->restores[result->n_restores++];
	int r;

	*s = (struct cp_restore){.registered = alg != NULL, .priority = orig->priority};
	snprintf(s->driver, sizeof(s->driver), "%s", orig->driver); /* @driver may be orig's */
	if (!alg) {
		/* Its module is gone: a reload registers it at its default again. */
		s->outcome = CP_RESTORE_FORGOTTEN;
		(void) cp_state_forget(&run->state, s->driver);
		return;
	}
	s->old_priority = alg->priority;
	r = run->kernel.set_priority(run->kernel.data, s->driver, s->priority, s->extack);
	if (r < 0) {
		s->outcome = CP_RESTORE_FAILED;
		s->error = r;
		result->n_failed++;
		return;
	}
	s->outcome = CP_RESTORE_RESTORED;
	(void) cp_state_forget(&run->state, s->driver);
	forget_winners(run, alg->name);
}

/* Every original (no drivers), or those of the drivers that have one. */
static void restore_originals(struct cp_sr_run *run, const struct cp_reset_options *opts,
			      struct cp_reset_result *result)
{
	size_t failed = 0;

	/* A failed one stays in place: the next is the one after it. */
	while (opts->n_drivers == 0 && run->state.n_originals > failed) {
		restore_one(run, result, run->state.originals[failed].driver);
		failed += result->restores[result->n_restores - 1].outcome == CP_RESTORE_FAILED;
	}
	for (size_t i = 0; i < opts->n_drivers; i++)
		if (cp_state_find(&run->state, opts->drivers[i]))
			restore_one(run, result, opts->drivers[i]);
}

/*
 * Remove an instance cryptoprio created. Held by someone (EBUSY): lowered
 * to CP_IN_USE_PRIORITY so that it wins no new lookup, and kept in the
 * state for the next reset or apply; "in use" is not a failure of reset.
 */
static void remove_one(struct cp_sr_run *run, struct cp_reset_result *result,
		       const struct cp_created *created)
{
	struct cp_created c = *created;
	struct cp_removal *s = &result->removals[result->n_removals++];
	int r;

	*s = (struct cp_removal){};
	memcpy(s->driver, c.driver, sizeof(s->driver));
	memcpy(s->name, c.name, sizeof(s->name));
	r = run->kernel.remove(run->kernel.data, c.driver, s->extack);
	if (r == 0 || r == -ENOENT) {
		s->outcome = r == 0 ? CP_REMOVAL_REMOVED : CP_REMOVAL_GONE;
		(void) cp_state_forget_created(&run->state, c.driver);
		forget_winners(run, c.name);
		return;
	}
	if (r == -EBUSY) {
		s->busy = true;
		r = run->kernel.set_priority(run->kernel.data, c.driver, CP_IN_USE_PRIORITY,
					     s->extack);
	}
	if (r < 0) {
		s->outcome = CP_REMOVAL_FAILED;
		s->error = r;
		result->n_failed++;
		return;
	}
	s->outcome = CP_REMOVAL_IN_USE;
	forget_winners(run, c.name);
	c.priority = CP_IN_USE_PRIORITY;
	c.in_use = true;
	if (cp_state_add_created(&run->state, &c) < 0) {
		s->error = -ENOMEM;
		result->n_failed++;
	}
}

/* Longer driver names first, then the state's order: a stable sort of the indices. */
static int outermost_first(const void *x, const void *y, void *data)
{
	const struct cp_created *created = data;
	size_t i = *(const size_t *) x, k = *(const size_t *) y;
	size_t a = strlen(created[i].driver), b = strlen(created[k].driver);

	if (a != b)
		return a > b ? -1 : 1;
	return i < k ? -1 : i > k;
}

size_t *cp_reset_removal_order(const struct cp_state *state)
{
	size_t *order = calloc(state->n_created + 1, sizeof(*order));

	if (!order)
		return NULL;
	for (size_t i = 0; i < state->n_created; i++)
		order[i] = i;
	qsort_r(order, state->n_created, sizeof(*order), outermost_first, state->created);
	return order;
}

static bool named(const struct cp_reset_options *opts, const char *driver)
{
	if (opts->n_drivers == 0)
		return true;
	for (size_t k = 0; k < opts->n_drivers; k++)
		if (strcmp(opts->drivers[k], driver) == 0)
			return true;
	return false;
}

/*
 * After the originals: while an engine's priority is restored, the instance
 * still serves its name, so new users go from the instance straight to the
 * engines as they were before cryptoprio. Removing it first would hand them
 * for a moment the engines in cryptoprio's order, which is neither.
 * @created: the state's list before the first removal, @order its order.
 */
static void remove_created(struct cp_sr_run *run, const struct cp_reset_options *opts,
			   struct cp_reset_result *result, const struct cp_created *created,
			   const size_t *order, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (named(opts, created[order[i]].driver))
			remove_one(run, result, &created[order[i]]);
}

/* CP_SR_NOT_CHANGED with the DRIVERs cryptoprio has no record of. */
static int check_arguments(struct cp_sr_run *run, const struct cp_reset_options *opts,
			   struct cp_reset_result *result)
{
	result->unknown = calloc(opts->n_drivers + 1, sizeof(*result->unknown));
	if (!result->unknown)
		return reset_failed(result, CP_SR_NO_MEMORY, -ENOMEM);
	for (size_t i = 0; i < opts->n_drivers; i++)
		if (!cp_state_find(&run->state, opts->drivers[i]) &&
		    !cp_state_find_created(&run->state, opts->drivers[i]))
			result->unknown[result->n_unknown++] = opts->drivers[i];
	if (result->n_unknown > 0)
		return reset_failed(result, CP_SR_NOT_CHANGED, -ENOENT);
	return 0;
}

/* Room for every step, taken before the first: a restore per original or per DRIVER. */
static int allocate_steps(struct cp_sr_run *run, const struct cp_reset_options *opts,
			  struct cp_reset_result *result, struct cp_created **ret_created,
			  size_t **ret_order)
{
	size_t n = run->state.n_created;

	result->restores =
	    calloc(run->state.n_originals + opts->n_drivers + 1, sizeof(*result->restores));
	result->removals = calloc(n + 1, sizeof(*result->removals));
	*ret_created = calloc(n + 1, sizeof(**ret_created));
	*ret_order = cp_reset_removal_order(&run->state);
	if (!result->restores || !result->removals || !*ret_created || !*ret_order)
		return reset_failed(result, CP_SR_NO_MEMORY, -ENOMEM);
	if (n > 0)
		memcpy(*ret_created, run->state.created, n * sizeof(**ret_created));
	return 0;
}

int cp_reset_transact(struct cp_sr_run *run, const struct cp_reset_options *opts,
		      struct cp_reset_result *result)
{
	_cleanup_free_ struct cp_created *created = NULL;
	_cleanup_free_ size_t *order = NULL;
	size_t n_created;
	int r;

	/* Drivers away from their recorded default with no original in the state: /run lost it. */
	r = cp_defaults_recover(&run->state, run->inv, &run->cache);
	if (r < 0)
		return reset_failed(result, CP_SR_NO_MEMORY, r);
	result->n_recovered = (size_t) r;
	r = check_arguments(run, opts, result);
	if (r < 0)
		return r;
	n_created = run->state.n_created;
	r = allocate_steps(run, opts, result, &created, &order);
	if (r < 0)
		return r;
	restore_originals(run, opts, result);
	remove_created(run, opts, result, created, order, n_created);
	r = cp_state_save(run->files->state_path, &run->state);
	if (r < 0) {
		result->state_error = r;
		result->n_failed++;
	}
	return 0;
}

int cp_reset_run(const struct cp_reset_options *opts, struct cp_reset_result *result)
{
	_cleanup_(session_close) struct session s;
	int r;

	*result = (struct cp_reset_result){};
	r = session_open(&s, &opts->env, &result->files, &result->failure);
	if (r < 0)
		return result->error = r;
	return cp_reset_transact(&s.run, opts, result);
}

void cp_reset_result_free(struct cp_reset_result *result)
{
	free(result->unknown);
	free(result->restores);
	free(result->removals);
	*result = (struct cp_reset_result){};
}
