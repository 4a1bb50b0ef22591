/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * policy -> inventory -> calibration -> plan -> UPDATEALG, shared by
 * `cryptoprioctl plan|apply` and cryptoprio-daemon (cryptoprioctl(8), "plan").
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <unistd.h>
#include <string.h>

#include "apply-internal.h"
#include "crypto-user.h"
#include "fileio.h"
#include "inventory-load.h"
#include "macro.h"
#include "paths.h"
#include "pattern.h"

/* ---- which points to calibrate ---- */

/* A name as an fnmatch pattern that matches only itself. */
static char *escape_pattern(const char *name)
{
	char *out = malloc(2 * strlen(name) + 1), *p = out;

	if (!out)
		return NULL;
	for (const char *s = name; *s; s++) {
		if (strchr("*?[]\\", *s))
			*p++ = '\\';
		*p++ = *s;
	}
	*p = '\0';
	return out;
}

/* Measured for apply: what the planner orders (rsa is calibrated, not ordered). */
static bool planned_name_competes(const struct cp_alg *alg)
{
	return cp_alg_competes(alg) && !cp_driver_is_template_instance(alg->driver) &&
	       cp_plan_orders_type(alg->type);
}

/*
 * Registered implementations competing for @name, or, @with_candidate,
 * those calibration would measure, the CPU's candidate counted.
 */
static size_t competitors(const struct cp_inventory *inv, const char *name, bool with_candidate)
{
	size_t n = 0, measured;

	for (size_t i = 0; i < inv->n_algs; i++)
		n += streq(inv->algs[i].name, name) && planned_name_competes(&inv->algs[i]);
	measured = with_candidate ? cp_calibration_competitors(inv, name) : 0;

	return measured > n ? measured : n;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static bool has_unmeasured_point(const struct cp_measured *m)
{
	for (size_t i = 0; i < m->n_points; i++)
		if (m->points[i].verdict == CP_VERDICT_UNMEASURED)
			return true;
	return false;
}

static bool names_have(char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (streq(names[i], name))
			return true;
	return false;
}

int cp_apply_names_unmeasured(const struct cp_calibration *cal, char ***ret)
{
	char **names = NULL;
	size_t n = 0;

	for (size_t i = 0; i < cal->n_measured; i++) {
		const struct cp_measured *m = &cal->measured[i];

		if (!has_unmeasured_point(m) || names_have(names, n, m->name))
			continue;
		if (cp_strv_push(&names, &n, m->name) < 0) {
			cp_strv_free(names, n);
			return -ENOMEM;
		}
	}
	if (n > 1)
		qsort(names, n, sizeof(*names), compare_names);
	*ret = names;
	return (int) n;
}

bool cp_apply_name_selected(const struct cp_inventory *inv, const char *name,
			    char *const *only_drivers, size_t n_only_drivers)
{
	if (n_only_drivers == 0)
		return true;
	for (size_t i = 0; i < inv->n_algs; i++) {
		if (!streq(inv->algs[i].name, name))
			continue;
		for (size_t k = 0; k < n_only_drivers; k++)
			if (cp_pattern_match(only_drivers[k], inv->algs[i].driver))
				return true;
	}
	return false;
}

void cp_workloads_free(struct cp_workload *w, size_t n)
{
	for (size_t i = 0; w && i < n; i++) {
		for (size_t k = 0; k < w[i].n_names; k++)
			free(w[i].names[k]);
		free(w[i].names);
	}
	free(w);
}

bool cp_workloads_have(const struct cp_workload *w, size_t n, const char *pattern)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < w[i].n_names; k++)
			if (streq(w[i].names[k], pattern))
				return true;
	return false;
}

/* The group for the point and candidates of @s, added if new; NULL on ENOMEM. */
static struct cp_workload *workload_for(struct cp_workload **w, size_t *n,
					const struct cp_settings *s)
{
	bool candidates = s->gears == CP_GEARS_ANY;
	struct cp_workload *all;

	for (size_t i = 0; i < *n; i++)
		if ((*w)[i].size == s->request_size && (*w)[i].depth == s->in_flight &&
		    (*w)[i].candidates == candidates)
			return &(*w)[i];
	all = reallocarray(*w, *n + 1, sizeof(*all));
	if (!all)
		return NULL;
	*w = all;
	all[*n] = (struct cp_workload){
	    .size = s->request_size, .depth = s->in_flight, .candidates = candidates};
	return &all[(*n)++];
}

static int add_name(struct cp_workload *w, char *pattern)
{
	char **names = reallocarray(w->names, w->n_names + 1, sizeof(*names));

	if (!names)
		return -ENOMEM;
	w->names = names;
	names[w->n_names++] = pattern;
	return 0;
}

/* @name's pattern into the group of @s, unless a group has it already. 0 or -ENOMEM. */
static int add_workload_name(struct cp_workload **w, size_t *n, const char *name,
			     const struct cp_settings *s)
{
	_cleanup_free_ char *pattern = escape_pattern(name);
	struct cp_workload *group;

	if (!pattern)
		return -ENOMEM;
	if (cp_workloads_have(*w, *n, pattern))
		return 0;
	group = workload_for(w, n, s);
	if (!group || add_name(group, pattern) < 0)
		return -ENOMEM;
	pattern = NULL;
	return 0;
}

int cp_apply_workloads(const struct cp_inventory *inv, const struct cp_policy *policy,
		       char *const *only_drivers, size_t n_only_drivers, struct cp_workload **ret)
{
	struct cp_workload *w = NULL;
	const char *last = NULL; /* the name looked at last */
	size_t n = 0;

	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *alg = &inv->algs[i];
		struct cp_settings s;

		/* A name's entries are adjacent in a loaded (sorted) inventory: looked at once. */
		if (!planned_name_competes(alg) || (last && streq(last, alg->name)) ||
		    !cp_apply_name_selected(inv, alg->name, only_drivers, n_only_drivers))
			continue;
		last = alg->name;
		cp_policy_algorithm(policy, alg->name, &s);
		if (competitors(inv, alg->name, s.gears == CP_GEARS_ANY) < 2)
			continue;
		if (add_workload_name(&w, &n, alg->name, &s) < 0)
			goto oom;
	}
	*ret = w;
	return (int) n;
oom:
	cp_workloads_free(w, n);
	return -ENOMEM;
}

/* ---- calibration results ---- */

static int merge_points(struct cp_measured *into, struct cp_measured *from)
{
	struct cp_point *points =
	    reallocarray(into->points, into->n_points + from->n_points, sizeof(*points));

	if (!points)
		return -ENOMEM;
	memcpy(points + into->n_points, from->points, from->n_points * sizeof(*points));
	into->points = points;
	into->n_points += from->n_points;
	if (from->kat == CRYPTOPRIO_KAT_MISMATCH || into->kat == CRYPTOPRIO_KAT_UNSUPPORTED)
		into->kat = from->kat;
	if (into->backend == CP_BACKEND_NONE)
		into->backend = from->backend;
	into->pending |= from->pending;
	free(from->points);
	from->points = NULL;
	from->n_points = 0;
	return 0;
}

static int merge_measured(struct cp_calibration *into, struct cp_calibration *from)
{
	for (size_t i = 0; i < from->n_measured; i++) {
		struct cp_measured *m =
		    (struct cp_measured *) cp_calibration_find(into, from->measured[i].driver);
		struct cp_measured *all;

		if (m) {
			if (merge_points(m, &from->measured[i]) < 0)
				return -ENOMEM;
			continue;
		}
		all = reallocarray(into->measured, into->n_measured + 1, sizeof(*all));
		if (!all)
			return -ENOMEM;
		into->measured = all;
		all[into->n_measured++] = from->measured[i];
		from->measured[i] = (struct cp_measured){};
	}
	return 0;
}

static int merge_skipped(struct cp_calibration *into, struct cp_calibration *from)
{
	struct cp_skipped *all;

	if (from->n_skipped == 0)
		return 0;
	all = reallocarray(into->skipped, into->n_skipped + from->n_skipped, sizeof(*all));
	if (!all)
		return -ENOMEM;
	into->skipped = all;
	for (size_t i = 0; i < from->n_skipped; i++) {
		bool dup = false;

		for (size_t k = 0; k < into->n_skipped && !dup; k++)
			dup = strcmp(all[k].driver, from->skipped[i].driver) == 0;
		if (!dup)
			all[into->n_skipped++] = from->skipped[i];
	}
	return 0;
}

static void merge_summary(struct cp_calibration *into, const struct cp_calibration *from)
{
	if (from->backend != CP_BACKEND_NONE)
		into->backend = from->backend;
	if (from->module_error)
		into->module_error = from->module_error;
	into->elapsed_ns += from->elapsed_ns;
	into->n_from_cache += from->n_from_cache;
	into->n_run += from->n_run;
	into->n_unmeasured += from->n_unmeasured;
	into->n_pending_names += from->n_pending_names;
	into->cache_updated |= from->cache_updated;
	if (from->cache_warning[0])
		memcpy(into->cache_warning, from->cache_warning, sizeof(into->cache_warning));
	if (from->cache_oldest && (!into->cache_oldest || from->cache_oldest < into->cache_oldest))
		into->cache_oldest = from->cache_oldest;
}

int cp_calibration_merge(struct cp_calibration *into, struct cp_calibration *from)
{
	int r;

	r = merge_measured(into, from);
	if (r >= 0)
		r = merge_skipped(into, from);
	merge_summary(into, from);
	cp_calibration_free(from);
	memset(from, 0, sizeof(*from));
	return r;
}

/* A measurement for the planner: the median and its noise (cp_stat_noise()). */
static struct cp_metric metric_of(const struct cp_stat *s)
{
	return (struct cp_metric){.value = s->median, .noise = cp_stat_noise(s)};
}

static enum cp_measurement_state state_of(enum cp_verdict verdict)
{
	switch (verdict) {
	case CP_VERDICT_MEASURED:
		return CP_MEASUREMENT_MEASURED;
	case CP_VERDICT_FAULTY:
		return CP_MEASUREMENT_FAULTY;
	case CP_VERDICT_TIMEOUT:
		return CP_MEASUREMENT_TIMEOUT;
	case CP_VERDICT_UNREACHABLE:
		return CP_MEASUREMENT_UNREACHABLE;
	case CP_VERDICT_UNMEASURED:
	case CP_VERDICT_ERROR:
		return CP_MEASUREMENT_NOT_MEASURED;
	}
	return CP_MEASUREMENT_NOT_MEASURED;
}

int cp_apply_measurements(const struct cp_calibration *cal, struct cp_measurement **ret)
{
	struct cp_measurement *ms;
	size_t n = 0;

	for (size_t i = 0; i < cal->n_measured; i++)
		n += cal->measured[i].n_points;
	ms = calloc(n ? n : 1, sizeof(*ms));
	if (!ms)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < cal->n_measured; i++) {
		const struct cp_measured *m = &cal->measured[i];

		for (size_t k = 0; k < m->n_points; k++, n++) {
			const struct cp_point *p = &m->points[k];

			cp_strscpy(ms[n].driver, sizeof(ms[n].driver), m->driver);
			ms[n].request_size = p->size;
			ms[n].in_flight = p->depth;
			ms[n].state = state_of(p->verdict);
			if (ms[n].state != CP_MEASUREMENT_MEASURED)
				continue;
			ms[n].throughput = metric_of(&p->mbps);
			ms[n].latency = metric_of(&p->ns_per_request);
			ms[n].cpu_cost = metric_of(&p->cpu_ns_per_byte);
			if (p->compressed_size)
				ms[n].ratio = (struct cp_metric){.value = (double) p->size /
									  p->compressed_size};
		}
	}
	*ret = ms;
	return (int) n;
}

/* ---- the state record ---- */

int cp_apply_note_creates(struct cp_state *state, const struct cp_apply_result *result)
{
	for (size_t i = 0; i < result->n_steps; i++) {
		const struct cp_apply_step_result *s = &result->steps[i];
		struct cp_created c = {.priority = s->new_priority};

		if (s->action != CP_STEP_CREATE)
			continue;
		cp_strscpy(c.driver, sizeof(c.driver), s->driver);
		cp_strscpy(c.name, sizeof(c.name), s->name);
		if (cp_state_add_created(state, &c) < 0)
			return -ENOMEM;
	}
	return 0;
}

size_t cp_apply_forget_unregistered(struct cp_state *state, const struct cp_inventory *inv)
{
	size_t n = 0;

	for (size_t i = 0; i < state->n_created;) {
		if (cp_inventory_find_driver(inv, state->created[i].driver)) {
			i++;
			continue;
		}
		(void) cp_state_forget_created(state, state->created[i].driver);
		n++;
	}
	return n;
}

struct cp_state_apply *cp_apply_state_record(const struct cp_apply_result *result,
					     const struct cp_policy *policy, const char *agent,
					     int64_t now, int32_t pid)
{
	_cleanup_(cp_state_apply_freep) struct cp_state_apply *rec = cp_state_apply_new();

	if (!rec)
		return NULL;
	rec->started_at = now;
	rec->pid = pid;
	cp_strscpy(rec->agent, sizeof(rec->agent), agent ? agent : "cryptoprioctl");
	/* Nothing measured now but figures taken from the cache: say so, not "none". */
	snprintf(rec->backend, sizeof(rec->backend), "%s",
		 result->calibration.backend == CP_BACKEND_NONE && result->calibration.n_from_cache
		     ? "cache"
		     : cp_backend_to_string(result->calibration.backend));
	for (size_t i = 0; policy && i < policy->n_files; i++)
		if (cp_state_apply_add_policy_file(rec, policy->files[i]) < 0)
			return NULL;
	for (size_t i = 0; i < result->n_steps; i++) {
		const struct cp_apply_step_result *s = &result->steps[i];
		struct cp_state_step step = {
		    .action = s->action,
		    .old_priority = s->old_priority,
		    .new_priority = s->new_priority,
		    .result = CP_STEP_PENDING,
		};

		cp_strscpy(step.driver, sizeof(step.driver), s->driver);
		cp_strscpy(step.name, sizeof(step.name), s->name);
		cp_strscpy(step.why, sizeof(step.why), s->why);
		if (cp_state_apply_add_step(rec, &step) < 0)
			return NULL;
	}
	for (size_t i = 0; i < result->n_left_out; i++)
		if (cp_state_apply_add_left_out(rec, result->left_out[i]) < 0)
			return NULL;
	return steal_pointer(&rec);
}

/* ---- the pipeline ---- */

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
static int calibrate_workloads(struct cp_run *run, const struct cp_settings *g,
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
static int add_created_names(struct cp_run *run, struct cp_workload **w, size_t *n)
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
		if (add_workload_name(w, n, alg->name, &s) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int calibrate(struct cp_run *run)
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
 * The steps, their results kept in memory and written once after the last:
 * the record written before the first change says what a crash in between
 * may have left (cryptoprioctl status, reset).
 */
static int apply_steps(struct cp_run *run)
{
	struct cp_apply_result *result = run->result;
	struct cp_nl nl = {};
	int r;

	r = cp_cu_open(&nl);
	if (r < 0)
		return r;
	for (size_t i = 0; i < result->n_steps; i++) {
		run_step(&nl, &result->steps[i], &run->state);
		cp_run_step_done(run, i);
	}
	cp_nl_close(&nl);
	cp_run_steps_finished(run);
	return result->n_failed ? -EIO : 0;
}

/* Under the lock: the record before the first change, then the changes. */
static int apply(struct cp_run *run)
{
	int r;

	r = cp_run_record_start(run);
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
static int load_inventory(struct cp_run *run)
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
	_cleanup_(cp_run_free) struct cp_run run = {};
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
	cp_run_load(&run, opts, policy, result);
	r = load_inventory(&run);
	if (r >= 0 && opts->dry_run && opts->check_needs)
		r = check_files(opts, result);
	if (r < 0)
		return r;
	cp_run_load_state(&run);
	r = calibrate(&run);
	if (r >= 0)
		r = cp_run_plan(&run);
	/* --cached-only with no name that has its figures: nothing to do, nothing recorded. */
	if (r >= 0 && result->n_left_out > 0 && result->n_steps == 0)
		r = -ENODATA;
	if (r >= 0 && !opts->dry_run)
		r = apply(&run);
	/* the others applied */
	if (r >= 0 && result->n_left_out > 0)
		r = -ENODATA;
	cp_run_save_cache(&run); /* what the calibration measured is kept even if the rest failed */
	cp_run_record_finish(&run);
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
