/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cryptoprioctl plan / apply: the policy's order planned from measurements,
 * and applied under the lock.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "apply.h"
#include "cryptoprioctl.h"
#include "ctl-daemon.h"
#include "ctl-table.h"
#include "fileio.h"
#include "json-util.h"
#include "paths.h"
#include "units.h"

struct plan_opts {
	bool dry_run, force, all;
	bool cached_only; /* apply --cached-only */
	bool exit_code;	  /* plan --exit-code: 3 when there are steps */
	const char *root;
	const char *from;   /* plan --from FILE: another machine's export */
	uint64_t wait_usec; /* --wait: 0 for no limit */
};

/* ---- progress on a terminal ---- */

static void progress_cb(const struct cp_progress *p, void *userdata)
{
	char size[32];

	(void) userdata;
	fprintf(stderr, "\r\033[Kcalibrating %zu/%zu: %s at %s", p->done + 1, p->total, p->driver,
		cp_format_size(size, sizeof(size), p->size));
	fflush(stderr);
}

static void progress_end(bool shown)
{
	if (shown)
		fputs("\r\033[K", stderr);
}

/* ---- the pipeline's summary ---- */

static void print_policy_files(const struct cp_policy *p)
{
	if (!p || p->n_files == 0) {
		printf("Policy: built-in default\n");
		return;
	}
	printf("Policy:");
	for (size_t i = 0; i < p->n_files; i++)
		printf(" %s", p->files[i]);
	printf("\n");
}

/* What was measured now, or taken from the cache, and through what. */
static void print_measured(const struct cp_apply_result *r)
{
	const struct cp_calibration *c = &r->calibration;

	printf(", backend %s, %zu point%s measured now, %zu from the cache, %zu left out "
	       "(%.1f s)\n",
	       cp_backend_to_string(c->backend), c->n_run, ctl_plural(c->n_run), c->n_from_cache,
	       c->n_unmeasured, (double) c->elapsed_ns / 1e9);
	if (r->unprivileged)
		printf("  without CAP_NET_ADMIN: measured through AF_ALG only (on Linux >= 7.2 it "
		       "cannot reach offload engines); the cache is read, not written\n");
	else if (c->module_error && c->backend == CP_BACKEND_AFALG)
		printf("  the cryptoprio module %s: measured through AF_ALG\n",
		       ctl_module_reason(c->module_error));
}

static void print_calibration(const struct cp_apply_result *r, const struct plan_opts *o)
{
	const struct cp_calibration *c = &r->calibration;
	bool all = o->all;

	printf("Calibration: Calibrate=%s", cp_calibration_mode_to_string(r->calibrate));
	if (r->calibrate == CP_CALIBRATE_NEVER) {
		printf(", nothing measured: ordered by class\n");
		return;
	}
	if (o->from)
		printf(", the figures of %s: %zu point%s, %zu not in it\n", o->from,
		       c->n_from_cache, ctl_plural(c->n_from_cache), c->n_unmeasured);
	else
		print_measured(r);
	if (c->cache_warning[0])
		printf("  cache: %s\n", c->cache_warning);
	if (!all && c->n_skipped)
		printf("  %zu competing implementation%s cannot be calibrated (--all lists them)\n",
		       c->n_skipped, ctl_plural(c->n_skipped));
	for (size_t i = 0; all && i < c->n_skipped; i++)
		printf("  not measured: %s (%s): %s\n", c->skipped[i].driver, c->skipped[i].name,
		       c->skipped[i].reason);
}

static void print_notes(const struct cp_plan *plan)
{
	for (size_t i = 0; plan && i < plan->n_notes; i++)
		printf("Note: %s\n", plan->notes[i]);
}

/* The steps' columns; RESULT (index 7) with apply's results only. */
static const struct ctl_column step_columns[] = {
    {"ALGORITHM"}, {"DRIVER"}, {"CLASS"}, {"OLD", CTL_COL_RIGHT}, {""}, {"NEW"},
    {"ACTION"},	   {"RESULT"}, {"WHY"},
};

static const char *step_result(const struct cp_apply_step_result *s)
{
	return !s->applied    ? ""
	       : s->gone      ? "gone"
	       : s->error < 0 ? "failed"
	       : s->in_use    ? "in use"
			      : "done";
}

/* One step's row, and the kernel's message below it: 0 or -ENOMEM. */
static int add_step(struct ctl_table *t, const struct cp_apply_step_result *s, bool with_result)
{
	char old[16], new[16];
	const char *cells[] = {
	    s->name, s->driver, cp_class_to_string(s->class),	     old,
	    "->",    new,	cp_step_action_to_string(s->action), step_result(s),
	    s->why};
	int r;

	/* Not registered before its create: no value then. */
	snprintf(old, sizeof(old), s->action == CP_STEP_CREATE ? "-" : "%" PRIu32, s->old_priority);
	snprintf(new, sizeof(new), "%" PRIu32, s->new_priority);
	if (!with_result) /* no RESULT column: WHY in its place */
		cells[7] = s->why;
	r = ctl_table_row(t, cells);
	if (r >= 0 && with_result && s->error >= 0 && s->extack[0])
		r = ctl_table_title(t, "  %s", s->extack);
	return r;
}

static int print_steps(const struct ctl *ctl, const struct cp_apply_result *r, bool with_result)
{
	struct ctl_column columns[ARRAY_SIZE(step_columns)];
	size_t n = ARRAY_SIZE(columns) - !with_result;
	struct ctl_table *t;
	int e = 0;

	memcpy(columns, step_columns, sizeof(columns));
	if (!with_result)
		columns[7] = columns[8];
	t = ctl_table_new(ctl, columns, n, "");
	for (size_t i = 0; t && e >= 0 && i < r->n_steps; i++) {
		const struct cp_apply_step_result *s = &r->steps[i];

		e = add_step(t, s, with_result);
		if (s->error < 0)
			fprintf(stderr, "cryptoprioctl: apply: %s: %s%s%s\n", s->driver,
				strerror(-s->error), s->extack[0] ? ": " : "", s->extack);
	}
	if (t && e >= 0)
		return ctl_table_print(t);
	ctl_table_free(t);
	return -ENOMEM;
}

static const struct ctl_column place_columns[] = {
    {"", CTL_COL_RIGHT}, {"DRIVER"}, {"CLASS"}, {"OLD", CTL_COL_RIGHT}, {""}, {"NEW"}, {"WHY"},
};

/* The title of @a's order, then a row per place: 0 or -ENOMEM. */
static int add_order(struct ctl_table *t, const struct cp_plan_algorithm *a)
{
	char size[32], rank[24], old[16], new[16], why[sizeof(a->places[0].why) + 16];
	const char *cells[] = {rank, NULL, NULL, old, "->", new, why};
	int r = ctl_table_title(
	    t, "\n%s (%s): Gears = %s, Rank = %s at %s, InFlight = %" PRIu32, a->name, a->type,
	    cp_gears_to_string(a->settings.gears), cp_rank_to_string(a->settings.rank),
	    cp_format_size(size, sizeof(size), a->settings.request_size), a->settings.in_flight);

	for (size_t k = 0; r >= 0 && k < a->n_places; k++) {
		const struct cp_plan_place *p = &a->places[k];

		snprintf(rank, sizeof(rank), "%zu.", k + 1);
		/* Not registered: no value now. */
		snprintf(old, sizeof(old), p->create ? "-" : "%" PRIu32, p->old_priority);
		snprintf(new, sizeof(new), "%" PRIu32, p->new_priority);
		snprintf(why, sizeof(why), "%s%s", p->create ? "to be created: " : "", p->why);
		cells[1] = p->driver;
		cells[2] = cp_class_to_string(p->class);
		r = ctl_table_row(t, cells);
	}
	return r;
}

/* Every algorithm's whole order, in one table without a header (the titles say it). */
static int print_orders(const struct ctl *ctl, const struct cp_plan *plan)
{
	struct ctl no_header = *ctl;
	struct ctl_table *t;
	int r = 0;

	no_header.no_legend = true;
	t = ctl_table_new(&no_header, place_columns, ARRAY_SIZE(place_columns), "  ");
	for (size_t i = 0; t && r >= 0 && i < plan->n_algorithms; i++)
		r = add_order(t, &plan->algorithms[i]);
	if (t && r >= 0)
		return ctl_table_print(t);
	ctl_table_free(t);
	return -ENOMEM;
}

static size_t count_action(const struct cp_apply_result *r, enum cp_step_action action)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_steps; i++)
		n += r->steps[i].action == action;
	return n;
}

static void print_applied(const struct cp_apply_result *r)
{
	size_t touched = r->n_steps - r->n_changed - r->n_created - r->n_removed - r->n_in_use -
			 r->n_failed - r->n_gone;

	printf("Applied: %zu changed, %zu touched, %zu failed", r->n_changed, touched, r->n_failed);
	if (r->n_created || r->n_removed)
		printf(", %zu created, %zu removed", r->n_created, r->n_removed);
	if (r->n_in_use)
		printf(", %zu in use (lowered to %u, removed once free)", r->n_in_use,
		       CP_IN_USE_PRIORITY);
	if (r->n_gone)
		printf(", %zu gone meanwhile", r->n_gone); /* as the daemon's summary says it */
	printf(".\n");
}

/*
 * The summary lines, the orders with --all, the steps: --no-legend leaves
 * only rows. @applied: the steps were made (apply, not --dry-run, and not
 * an apply --cached-only that found no name with its figures).
 */
static void print_text(const struct ctl *ctl, const struct cp_apply_result *r,
		       const struct plan_opts *o, bool apply, bool applied)
{
	bool legend = !ctl->no_legend;
	size_t n_algorithms = r->plan ? r->plan->n_algorithms : 0;

	if (legend) {
		print_policy_files(r->policy);
		print_calibration(r, o);
		print_notes(r->plan);
	}
	if (o->all && r->plan)
		(void) print_orders(ctl, r->plan);
	if (r->n_steps == 0) {
		if (legend)
			printf(
			    "%sNothing to change: %zu algorithm%s already in the planned order.\n",
			    o->all ? "\n" : "", n_algorithms, ctl_plural(n_algorithms));
		return;
	}
	if (o->all)
		printf("\n");
	(void) print_steps(ctl, r, applied);
	if (!legend)
		return;
	if (!applied)
		printf(
		    "%zu step%s planned (%zu set, %zu touched, %zu to create, %zu to remove)%s.\n",
		    r->n_steps, ctl_plural(r->n_steps), count_action(r, CP_STEP_SET),
		    count_action(r, CP_STEP_TOUCH), count_action(r, CP_STEP_CREATE),
		    count_action(r, CP_STEP_REMOVE),
		    !apply	 ? ""
		    : o->dry_run ? "; dry run: nothing changed"
				 : "; nothing changed");
	else
		print_applied(r);
}

/* ---- JSON ---- */

static json_object *str_or_null(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

static json_object *calibration_json(const struct cp_apply_result *r)
{
	const struct cp_calibration *c = &r->calibration;
	json_object *o = json_object_new_object(), *skipped = json_object_new_array();

	json_object_object_add(o, "calibrate",
			       json_object_new_string(cp_calibration_mode_to_string(r->calibrate)));
	json_object_object_add(o, "backend",
			       json_object_new_string(cp_backend_to_string(c->backend)));
	json_object_object_add(o, "unprivileged", json_object_new_boolean(r->unprivileged));
	json_object_object_add(o, "module_error",
			       c->module_error ? json_object_new_string(strerror(-c->module_error))
					       : NULL);
	json_object_object_add(o, "points_measured", json_object_new_int64((int64_t) c->n_run));
	json_object_object_add(o, "points_from_cache",
			       json_object_new_int64((int64_t) c->n_from_cache));
	json_object_object_add(o, "points_unmeasured",
			       json_object_new_int64((int64_t) c->n_unmeasured));
	json_object_object_add(o, "elapsed_ns", json_object_new_uint64(c->elapsed_ns));
	json_object_object_add(o, "cache_warning", str_or_null(c->cache_warning));
	for (size_t i = 0; i < c->n_skipped; i++) {
		json_object *s = json_object_new_object();

		json_object_object_add(s, "driver", json_object_new_string(c->skipped[i].driver));
		json_object_object_add(s, "algorithm", json_object_new_string(c->skipped[i].name));
		json_object_object_add(s, "reason", json_object_new_string(c->skipped[i].reason));
		json_object_array_add(skipped, s);
	}
	json_object_object_add(o, "not_calibrated", skipped);
	return o;
}

static json_object *place_json(const struct cp_plan_place *p)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "driver", json_object_new_string(p->driver));
	json_object_object_add(o, "class", json_object_new_string(cp_class_to_string(p->class)));
	json_object_object_add(o, "gear", json_object_new_int((int) p->gear));
	json_object_object_add(o, "old_priority", json_object_new_int64(p->old_priority));
	json_object_object_add(o, "new_priority", json_object_new_int64(p->new_priority));
	json_object_object_add(o, "reason",
			       json_object_new_string(cp_place_reason_to_string(p->reason)));
	json_object_object_add(o, "why", json_object_new_string(p->why));
	json_object_object_add(o, "create", json_object_new_boolean(p->create));
	return o;
}

static json_object *algorithms_json(const struct cp_plan *plan)
{
	json_object *array = json_object_new_array();

	for (size_t i = 0; plan && i < plan->n_algorithms; i++) {
		const struct cp_plan_algorithm *a = &plan->algorithms[i];
		json_object *o = json_object_new_object(), *places = json_object_new_array();

		json_object_object_add(o, "name", json_object_new_string(a->name));
		json_object_object_add(o, "type", json_object_new_string(a->type));
		json_object_object_add(
		    o, "gears", json_object_new_string(cp_gears_to_string(a->settings.gears)));
		json_object_object_add(o, "rank",
				       json_object_new_string(cp_rank_to_string(a->settings.rank)));
		json_object_object_add(o, "request_size",
				       json_object_new_int64(a->settings.request_size));
		json_object_object_add(o, "in_flight",
				       json_object_new_int64(a->settings.in_flight));
		for (size_t k = 0; k < a->n_places; k++)
			json_object_array_add(places, place_json(&a->places[k]));
		json_object_object_add(o, "places", places);
		json_object_array_add(array, o);
	}
	return array;
}

static json_object *step_json(const struct cp_apply_step_result *s, bool with_result)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "algorithm", json_object_new_string(s->name));
	json_object_object_add(o, "driver", json_object_new_string(s->driver));
	json_object_object_add(o, "class", json_object_new_string(cp_class_to_string(s->class)));
	json_object_object_add(o, "action",
			       json_object_new_string(cp_step_action_to_string(s->action)));
	json_object_object_add(o, "old_priority", json_object_new_int64(s->old_priority));
	json_object_object_add(o, "new_priority", json_object_new_int64(s->new_priority));
	json_object_object_add(o, "why", json_object_new_string(s->why));
	if (!with_result)
		return o;
	json_object_object_add(o, "result",
			       json_object_new_string(!s->applied    ? "planned"
						      : s->gone	     ? "gone"
						      : s->error < 0 ? "failed"
						      : s->in_use    ? "in-use"
								     : "done"));
	json_object_object_add(o, "error",
			       s->error < 0 ? json_object_new_string(strerror(-s->error)) : NULL);
	json_object_object_add(o, "message", str_or_null(s->extack));
	return o;
}

/*
 * @applied as for print_text(): an apply --cached-only that found no name
 * with its figures is --dry-run's document; "left_out" lists the names it
 * left in the kernel's order.
 */
static json_object *result_json(const struct cp_apply_result *r, bool apply, bool applied)
{
	json_object *doc = json_object_new_object(), *steps = json_object_new_array();

	if (apply)
		json_object_object_add(doc, "dry_run", json_object_new_boolean(!applied));
	json_object_object_add(
	    doc, "policy_files",
	    cp_json_strv(r->policy ? r->policy->files : NULL, r->policy ? r->policy->n_files : 0));
	json_object_object_add(doc, "inventory_source",
			       json_object_new_string(cp_source_to_string(r->inventory.source)));
	json_object_object_add(doc, "calibration", calibration_json(r));
	json_object_object_add(doc, "algorithms", algorithms_json(r->plan));
	for (size_t i = 0; i < r->n_steps; i++)
		json_object_array_add(steps, step_json(&r->steps[i], apply));
	json_object_object_add(doc, "steps", steps);
	if (apply)
		json_object_object_add(doc, "left_out", cp_json_strv(r->left_out, r->n_left_out));
	json_object_object_add(
	    doc, "notes",
	    cp_json_strv(r->plan ? r->plan->notes : NULL, r->plan ? r->plan->n_notes : 0));
	if (applied) {
		json_object_object_add(doc, "applied_at", json_object_new_int64(r->applied_at));
		json_object_object_add(doc, "changed",
				       json_object_new_int64((int64_t) r->n_changed));
		json_object_object_add(doc, "failed", json_object_new_int64((int64_t) r->n_failed));
		json_object_object_add(doc, "gone", json_object_new_int64((int64_t) r->n_gone));
		json_object_object_add(doc, "created",
				       json_object_new_int64((int64_t) r->n_created));
		json_object_object_add(doc, "removed",
				       json_object_new_int64((int64_t) r->n_removed));
		json_object_object_add(doc, "in_use", json_object_new_int64((int64_t) r->n_in_use));
	}
	return doc;
}

/* ---- plan and apply ---- */

static void print_policy_errors(const struct cp_policy *p)
{
	for (size_t i = 0; p && i < p->n_errors; i++) {
		const struct cp_policy_error *e = &p->errors[i];

		if (e->line > 0)
			fprintf(stderr, "%s:%u: %s\n", e->file, e->line, e->reason);
		else
			fprintf(stderr, "%s: %s\n", e->file, e->reason);
	}
}

static int report_failure(const char *verb, int r, const struct cp_apply_result *res,
			  const struct plan_opts *o)
{
	/* plan changes nothing, ever: only apply says it did not. */
	const char *unchanged = strcmp(verb, "apply") == 0 ? "; nothing changed" : "";
	size_t n_errors = res->policy ? res->policy->n_errors : 0;

	if (r == -ETIMEDOUT && res->unusable_path)
		return ctl_lock_timeout(verb, res->unusable_path, o->wait_usec);
	if (res->unusable_path)
		return ctl_errno(r, NULL, "%s: cannot use %s%s", verb, res->unusable_path,
				 unchanged);
	if (r == -EBADMSG) {
		print_policy_errors(res->policy);
		return ctl_error("%s: the policy is invalid (%zu error%s)%s", verb, n_errors,
				 n_errors == 1 ? "" : "s", unchanged);
	}
	if (r == -EPERM && !cp_have_net_admin())
		return ctl_error("%s: changing priorities needs CAP_NET_ADMIN (run as root)%s",
				 verb, unchanged);
	if (res->inventory.n_algs && res->inventory.source != CP_SOURCE_CRYPTO_USER)
		return ctl_error("%s: priorities cannot be changed: %s%s", verb,
				 ctl_crypto_user_reason(res->inventory.crypto_user_error),
				 unchanged);
	if (res->plan)
		return ctl_errno(r, NULL, "%s: failed before the first change (see %s)", verb,
				 CP_STATE_PATH);
	return ctl_errno(r, NULL, "%s", verb);
}

/* What went wrong with the files but did not stop the apply. */
static void report_file_warnings(const char *verb, const struct cp_apply_result *res)
{
	if (res->state_salvaged)
		fprintf(stderr,
			"%s: ignoring %s: not a valid state file (moved to %s.corrupt); originals "
			"taken from the defaults recorded in %s\n",
			verb, CP_STATE_PATH, CP_STATE_PATH, CP_CACHE_PATH);
	if (res->defaults_error)
		fprintf(stderr, "%s: warning: cannot record default priorities in %s: %s\n", verb,
			CP_CACHE_PATH, strerror(-res->defaults_error));
}

/* plan --from FILE: the export read, or the exit code after saying what is wrong with it. */
static int load_export(const char *path, struct cp_export *ex)
{
	char why[512];
	int r = cp_export_load(path, ex, why, sizeof(why));

	if (r == -EBADMSG)
		return ctl_error("plan: %s: %s", path, why);
	if (r < 0)
		return ctl_errno(r, NULL, "plan: cannot read %s", path);
	return 0;
}

/* apply --cached-only: which names kept the kernel's order, on standard error. */
static void report_left_out(const struct cp_apply_result *r, bool applied)
{
	fprintf(stderr,
		"cryptoprioctl: apply: the calibration cache lacks %zu figure%s (none, or made "
		"for another kernel, module or CPU): %s; left in the kernel's order:",
		r->calibration.n_unmeasured, ctl_plural(r->calibration.n_unmeasured),
		applied ? "the names that have theirs applied" : "nothing changed");
	for (size_t i = 0; i < r->n_left_out; i++)
		fprintf(stderr, "%s %s", i ? "," : "", r->left_out[i]);
	fprintf(stderr, "\n");
}

static int run(struct ctl *ctl, const struct plan_opts *o, bool apply)
{
	_cleanup_(cp_apply_result_free) struct cp_apply_result res = {};
	_cleanup_(cp_json_putp) json_object *daemon_record = NULL;
	_cleanup_(cp_export_free) struct cp_export from = {};
	bool tty = isatty(STDERR_FILENO) == 1;
	struct cp_apply_options opts = {
	    .root = o->root,
	    .config_file = ctl->config,
	    .dry_run = !apply || o->dry_run,
	    .force_calibration = o->force,
	    .cached_only = o->cached_only,
	    .progress = tty ? progress_cb : NULL,
	    .agent = "cryptoprioctl",
	    .lock_waiting = ctl_lock_waiting,
	    .lock_timeout_usec = o->wait_usec,
	    .check_needs = apply, /* apply --dry-run fails where apply would */
	    .before_final_write = ctl_daemon_keep_record,
	    .userdata = &daemon_record,
	    .from = o->from ? &from : NULL,
	    .from_path = o->from,
	};
	const char *verb = apply ? "apply" : "plan";
	bool applied;
	int r;

	if (o->from) {
		r = load_export(o->from, &from);
		if (r != 0)
			return r;
	}
	r = cp_apply_run(&opts, &res);
	progress_end(tty);
	report_file_warnings(verb, &res);
	if (r < 0 && r != -EIO && r != -ENODATA)
		return report_failure(verb, r, &res, o);
	/* --cached-only: nothing was made only when no name had its figures. */
	applied = apply && !o->dry_run && !(r == -ENODATA && res.n_steps == 0);
	if (ctl->json)
		ctl_json_print(result_json(&res, apply, applied));
	else
		print_text(ctl, &res, o, apply, applied);
	if (res.n_left_out)
		report_left_out(&res, applied);
	if (res.state_error)
		(void) ctl_errno(res.state_error, NULL, "%s: cannot record the results in %s", verb,
				 CP_STATE_PATH);
	if (applied && !o->root)
		ctl_daemon_after_apply(res.policy, daemon_record);
	if (r == -EIO)
		return ctl_error("%s: %zu of %zu step%s failed", verb, res.n_failed, res.n_steps,
				 ctl_plural(res.n_steps));
	if (res.state_error)
		return EXIT_FAILURE;
	if (r == -ENODATA)
		return EXIT_CHANGES;
	return o->exit_code && res.n_steps > 0 ? EXIT_CHANGES : EXIT_SUCCESS;
}

enum { OPT_ROOT = 0x100, OPT_EXIT_CODE, OPT_WAIT, OPT_FROM, OPT_CACHED_ONLY };

/* One option of plan or apply (@verb) into @o: 0, or the exit code after saying what is wrong. */
static int parse_plan_option(struct ctl *ctl, int c, const char *verb, struct plan_opts *o,
			     bool apply)
{
	switch (c) {
	case 'n':
		if (!apply)
			return ctl_usage_error("plan: --dry-run is implied");
		o->dry_run = true;
		return 0;
	case 'f':
		o->force = true;
		return 0;
	case 'a':
		o->all = true;
		return 0;
	case 'j':
		ctl->json = true;
		return 0;
	case OPT_ROOT:
		o->root = optarg;
		return 0;
	case OPT_EXIT_CODE:
		if (apply)
			return ctl_usage_error("apply: --exit-code is plan's");
		o->exit_code = true;
		return 0;
	case OPT_WAIT:
		if (!apply)
			return ctl_usage_error("plan: --wait is apply's (plan takes no lock)");
		return ctl_parse_wait(verb, optarg, &o->wait_usec);
	case OPT_FROM:
		if (apply)
			return ctl_usage_error(
			    "apply: --from is plan's (another machine is not changed "
			    "from here)");
		o->from = optarg;
		return 0;
	case OPT_CACHED_ONLY:
		if (!apply)
			return ctl_usage_error("plan: --cached-only is apply's");
		o->cached_only = true;
		return 0;
	default:
		return ctl_option_error(verb, c);
	}
}

static int parse_plan_options(struct ctl *ctl, int argc, char **argv, struct plan_opts *o,
			      bool apply)
{
	static const struct option options[] = {
	    {"dry-run", no_argument, NULL, 'n'},
	    {"force", no_argument, NULL, 'f'},
	    {"all", no_argument, NULL, 'a'},
	    {"json", no_argument, NULL, 'j'},
	    {"root", required_argument, NULL, OPT_ROOT},
	    {"exit-code", no_argument, NULL, OPT_EXIT_CODE},
	    {"wait", required_argument, NULL, OPT_WAIT},
	    {"from", required_argument, NULL, OPT_FROM},
	    {"cached-only", no_argument, NULL, OPT_CACHED_ONLY},
	    {},
	};
	int c, r;

	while ((c = getopt_long(argc, argv, apply ? ":nfaj" : ":faj", options, NULL)) >= 0) {
		r = parse_plan_option(ctl, c, argv[0], o, apply);
		if (r != 0)
			return r;
	}
	if (optind < argc)
		return ctl_usage_error("%s: unexpected argument '%s'", argv[0], argv[optind]);
	if (o->from && o->force)
		return ctl_usage_error("plan: --force measures again; --from measures nothing");
	if (o->cached_only && o->force)
		return ctl_usage_error(
		    "apply: --force measures again; --cached-only measures nothing");
	return 0;
}

int verb_plan(struct ctl *ctl, int argc, char **argv)
{
	struct plan_opts o = {.wait_usec = CTL_WAIT_DEFAULT_USEC};
	int r = parse_plan_options(ctl, argc, argv, &o, false);

	return r != 0 ? r : run(ctl, &o, false);
}

int verb_apply(struct ctl *ctl, int argc, char **argv)
{
	struct plan_opts o = {.wait_usec = CTL_WAIT_DEFAULT_USEC};
	int r = parse_plan_options(ctl, argc, argv, &o, true);

	if (r != 0)
		return r;
	if (!o.dry_run && !cp_have_net_admin())
		return ctl_error("apply: changing priorities needs CAP_NET_ADMIN (run as root); "
				 "nothing changed (try --dry-run)");
	return run(ctl, &o, true);
}
