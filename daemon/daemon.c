/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <sys/epoll.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "apply.h"
#include "daemon-state.h"
#include "daemon.h"
#include "inventory-load.h"
#include "fileio.h"
#include "log.h"
#include "macro.h"
#include "metrics.h"
#include "modload.h"
#include "paths.h"
#include "track.h"
#include "uevent.h"

struct cp_daemon {
	struct cp_daemon_options opts;
	sd_event *event;
	sd_event_source *uevents;
	sd_event_source *debounce, *retry, *cache_timer;
	struct cp_policy *policy; /* in force */
	struct cp_names known;	  /* tested drivers seen at the last run */
	struct cp_names modules;  /* modules of the events not handled yet */
	struct cp_names waiting;  /* drivers whose self-test had not finished */
	struct cp_names late;	  /* selected, but not ready yet when the run planned */
	/*
	 * Names the budget left to measure, each by one of its registered
	 * drivers (a run given one driver plans and measures its whole name):
	 * measured one at a time after READY, at idle priority.
	 */
	struct pending {
		char name[CP_NAME_MAX], driver[CP_NAME_MAX];
	} * pending;
	size_t n_pending;
	sd_event_source *background;
	bool steps_failed;   /* a run after the first had failed steps (--once's exit code) */
	bool no_crypto_user; /* the kernel has no crypto_user: nothing to do on it */
	bool said_afalg;     /* calibrating through AF_ALG, said once */
	bool metrics_due;    /* MetricsFile= could not be written yet: tried with the cache */
	int metrics_error;   /* the error said last about it (said once) */
	bool ready_sent;
	bool status_sent; /* the run's STATUS= went with its READY=1 */
	int uevent_fd;	  /* subscribed before the first run, watched after READY */
	unsigned retries;
	struct cp_cache unsaved; /* measurements the cache could not take yet */
	struct cp_daemon_record rec;
	char *rec_written; /* the record as last written, so that an unchanged one is not again */
	uint64_t started_usec;
};

static const char *state_path(const struct cp_daemon *d)
{
	return d->opts.state_path ? d->opts.state_path : CP_STATE_PATH;
}

static const char *lock_path(const struct cp_daemon *d)
{
	return d->opts.lock_path ? d->opts.lock_path : CP_LOCK_PATH;
}

/* NULL: no cache at all (cache_path ""). */
static const char *cache_path(const struct cp_daemon *d)
{
	if (!d->opts.cache_path)
		return CP_CACHE_PATH;
	return d->opts.cache_path[0] ? d->opts.cache_path : NULL;
}

int cp_daemon_new(const struct cp_daemon_options *opts, struct cp_daemon **ret)
{
	struct cp_daemon *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->opts = *opts;
	d->uevent_fd = -1;
	if (!d->opts.debounce_usec)
		d->opts.debounce_usec = CP_DAEMON_DEBOUNCE_USEC;
	if (!d->opts.retry_usec)
		d->opts.retry_usec = CP_DAEMON_RETRY_USEC;
	if (!d->opts.retry_max)
		d->opts.retry_max = CP_DAEMON_RETRY_MAX;
	if (!d->opts.cache_retry_usec)
		d->opts.cache_retry_usec = CP_DAEMON_CACHE_RETRY_USEC;
	*ret = d;
	return 0;
}

struct cp_daemon *cp_daemon_free(struct cp_daemon *d)
{
	if (!d)
		return NULL;
	sd_event_source_disable_unref(d->debounce);
	sd_event_source_disable_unref(d->retry);
	sd_event_source_disable_unref(d->cache_timer);
	sd_event_source_disable_unref(d->background);
	sd_event_source_disable_unref(d->uevents);
	if (!d->uevents && d->uevent_fd >= 0)
		close(d->uevent_fd);
	sd_event_unref(d->event);
	if (d->policy)
		cp_policy_free(d->policy);
	cp_names_clear(&d->known);
	cp_names_clear(&d->modules);
	cp_names_clear(&d->waiting);
	cp_names_clear(&d->late);
	free(d->pending);
	cp_cache_free(&d->unsaved);
	cp_daemon_record_free(&d->rec);
	free(d->rec_written);
	free(d);
	return NULL;
}

static uint64_t now_usec(clockid_t clock)
{
	struct timespec ts;

	(void) clock_gettime(clock, &ts);
	return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

static int record_pending(struct cp_daemon *d)
{
	_cleanup_free_ char **names = calloc(d->n_pending + 1, sizeof(*names));

	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < d->n_pending; i++)
		names[i] = d->pending[i].name;
	return cp_daemon_record_set_pending(&d->rec, names, d->n_pending);
}

/*
 * The record brought up to date, as text: NULL when it is what was last
 * written (or on ENOMEM, when it cannot be written either). With @ret_json,
 * the record as JSON too when it changed (the caller's), not made twice.
 */
static char *record_changed(struct cp_daemon *d, json_object **ret_json)
{
	json_object *o;
	char *text = NULL;

	cp_strscpy(d->rec.last_error, sizeof(d->rec.last_error), cp_log_last_error());
	d->rec.cache_unsaved = d->unsaved.n_entries > 0 || d->unsaved.n_defaults > 0;
	if (cp_daemon_record_set_waiting(&d->rec, d->waiting.v, d->waiting.n) < 0 ||
	    record_pending(d) < 0)
		return NULL;
	o = cp_daemon_record_to_json(&d->rec);
	if (o)
		text = strdup(json_object_to_json_string(o));
	if (!text || (d->rec_written && strcmp(text, d->rec_written) == 0)) {
		json_object_put(o);
		free(text);
		return NULL;
	}
	if (ret_json)
		*ret_json = o;
	else
		json_object_put(o);
	return text;
}

/* @text (owned, or NULL: not known) is the record as it is on disk now. */
static void record_written(struct cp_daemon *d, char *text)
{
	free(d->rec_written);
	d->rec_written = text;
}

static void save_record(struct cp_daemon *d)
{
	char *text = record_changed(d, NULL);
	int r;

	if (!text)
		return;
	r = cp_daemon_record_save(state_path(d), lock_path(d), &d->rec);
	if (r >= 0) {
		record_written(d, text);
		return;
	}
	free(text);
	record_written(d, NULL);
	cp_log_errno(LOG_WARNING, r, "Failed to record the daemon's state in %s", state_path(d));
}

/* ---- timers ---- */

/* (Re)arm @s, created on first use, to fire once @usec from now. */
static int arm_timer(struct cp_daemon *d, sd_event_source **s, uint64_t usec,
		     sd_event_time_handler_t handler)
{
	int r;

	if (!d->event)
		return 0;
	if (*s) {
		r = sd_event_source_set_time_relative(*s, usec);
		if (r >= 0)
			r = sd_event_source_set_enabled(*s, SD_EVENT_ONESHOT);
		return r;
	}
	return sd_event_add_time_relative(d->event, s, CLOCK_MONOTONIC, usec, 0, handler, d);
}

static int on_cache_timer(sd_event_source *s, uint64_t usec, void *userdata);

/* The defaults the apply could not write (read-only /var at boot): kept with the measurements. */
static int keep_defaults(struct cp_daemon *d, const struct cp_apply_result *res)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < res->defaults_unsaved.n_defaults; i++)
		r = cp_cache_put_default(&d->unsaved, &res->defaults_unsaved.defaults[i]);
	if (r >= 0 && res->defaults_unsaved.n_defaults)
		cp_log(LOG_INFO, "%s: %s; keeping %zu default %s until it can be written",
		       cache_path(d), strerror(-res->defaults_error), d->unsaved.n_defaults,
		       cp_plural(d->unsaved.n_defaults, "priority", "priorities"));
	return r;
}

/* Keep what the calibration and the apply could not write, and try again later. */
static void keep_unsaved(struct cp_daemon *d, const struct cp_apply_result *res)
{
	int n = 0;

	if (!cache_path(d))
		return;
	if (cp_track_cache_unsaved(res)) {
		n = cp_calibration_cache_put(&res->calibration, time(NULL), &d->unsaved);
		if (n > 0)
			cp_log(LOG_INFO, "%s: %s; keeping %zu %s until it can be written",
			       cache_path(d), res->calibration.cache_warning, d->unsaved.n_entries,
			       cp_plural(d->unsaved.n_entries, "measurement", "measurements"));
	}
	if (n >= 0)
		n = keep_defaults(d, res);
	if (n < 0) {
		cp_log_errno(LOG_WARNING, n, "Failed to keep what the cache could not take");
		return;
	}
	if (d->unsaved.n_entries == 0 && d->unsaved.n_defaults == 0)
		return;
	if (arm_timer(d, &d->cache_timer, d->opts.cache_retry_usec, on_cache_timer) < 0)
		cp_log(LOG_WARNING, "Failed to arm the cache timer");
}

static void flush_unsaved(struct cp_daemon *d)
{
	size_t n = d->unsaved.n_entries, n_defaults = d->unsaved.n_defaults;
	int r;

	if ((n == 0 && n_defaults == 0) || !cache_path(d))
		return;
	r = cp_track_cache_flush(cache_path(d), &d->unsaved);
	if (r < 0) {
		cp_log(LOG_DEBUG, "%s still not writable (%s); next try in %" PRIu64 " s",
		       cache_path(d), strerror(-r), d->opts.cache_retry_usec / 1000000);
		(void) arm_timer(d, &d->cache_timer, d->opts.cache_retry_usec, on_cache_timer);
		return;
	}
	cp_log(LOG_INFO, "Saved %zu %s and %zu default %s to %s", n,
	       cp_plural(n, "measurement", "measurements"), n_defaults,
	       cp_plural(n_defaults, "priority", "priorities"), cache_path(d));
}

/*
 * MetricsFile= after a run, whole (read after the run as `cryptoprioctl
 * metrics` reads it); at boot /var may not be writable yet: tried again
 * with the cache, the reason said once.
 */
static void write_metrics(struct cp_daemon *d)
{
	const char *path = d->policy ? d->policy->metrics_file : NULL;
	_cleanup_free_ char *text = NULL;
	int r;

	d->metrics_due = false;
	if (!path)
		return;
	r = cp_metrics_collect(d->policy, state_path(d), cache_path(d), &text);
	if (r >= 0)
		r = cp_write_file_atomic(path, text, strlen(text), 0644);
	if (r >= 0) {
		if (d->metrics_error)
			cp_log(LOG_INFO, "Metrics written to %s", path);
		d->metrics_error = 0;
		return;
	}
	if (r != d->metrics_error)
		cp_log_errno(r == -EROFS || r == -ENOENT ? LOG_INFO : LOG_WARNING, r,
			     "Cannot write the metrics to %s yet; trying again every %" PRIu64 " s",
			     path, d->opts.cache_retry_usec / 1000000);
	d->metrics_error = r;
	d->metrics_due = true;
	(void) arm_timer(d, &d->cache_timer, d->opts.cache_retry_usec, on_cache_timer);
}

static int on_cache_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct cp_daemon *d = userdata;

	flush_unsaved(d);
	if (d->metrics_due)
		write_metrics(d);
	save_record(d);
	return 0;
}

/* ---- one run of the pipeline ---- */

/* What the calibration could not do or found wrong: the daemon's reasons, said aloud. */
static void log_verdicts(struct cp_daemon *d, const struct cp_calibration *cal)
{
	char msg[512];
	int level;

	/* Once: no module for this kernel is how it is installed, not news at every run. */
	if (cal->backend == CP_BACKEND_AFALG && cal->module_error && !d->said_afalg) {
		/* No generic netlink family of its name: not loaded, nor loadable by its alias. */
		cp_log(LOG_NOTICE, "Calibrating through AF_ALG: the cryptoprio module is %s",
		       cal->module_error == -ENOENT ? "not loaded (nor found by modprobe)"
						    : strerror(-cal->module_error));
		d->said_afalg = true;
	}
	for (size_t i = 0; i < cal->n_measured; i++)
		if (cp_track_verdict_text(&cal->measured[i], msg, sizeof(msg), &level))
			cp_log(level, "%s", msg);
}

static void log_result(struct cp_daemon *d, const struct cp_apply_result *res, const char *trigger)
{
	log_verdicts(d, &res->calibration);
	for (size_t i = 0; i < res->n_steps; i++)
		cp_log_step(&res->steps[i], trigger);
	if (res->calibration.cache_warning[0] && !cp_track_cache_unsaved(res))
		cp_log(LOG_WARNING, "Calibration cache: %s", res->calibration.cache_warning);
	if (res->state_salvaged)
		cp_log(LOG_WARNING,
		       "Ignoring %s: not a valid state file (moved to %s.corrupt); originals taken "
		       "from the defaults recorded in the cache",
		       CP_STATE_PATH, CP_STATE_PATH);
	if (res->state_error)
		cp_log_errno(LOG_WARNING, res->state_error, "Failed to record a step in %s",
			     CP_STATE_PATH);
	for (size_t i = 0; res->plan && i < res->plan->n_notes; i++)
		cp_log(LOG_DEBUG, "Plan: %s", res->plan->notes[i]);
}

static void log_lock_waiting(const char *path)
{
	cp_log(LOG_INFO, "Waiting for %s: cryptoprioctl is changing priorities", path);
}

/* READY=1, with @status (or none) in the same message. Once. */
static void send_ready(struct cp_daemon *d, const char *status)
{
	if (d->ready_sent)
		return;
	d->ready_sent = true;
	d->status_sent = status != NULL;
	if (status)
		(void) sd_notifyf(false, "READY=1\nSTATUS=%s", status);
	else
		(void) sd_notify(false, "READY=1");
}

/*
 * The first run's results, about to be written with the record: main to
 * here is ready_usec. READY=1 follows that write at once (the journal's
 * lines and the event loop come after it).
 */
static void mark_started(struct cp_daemon *d)
{
	if (d->opts.once) {
		d->rec.stopped_at = (int64_t) time(NULL);
		return;
	}
	d->rec.ready_at = (int64_t) time(NULL);
	d->rec.ready_usec = now_usec(CLOCK_MONOTONIC) - d->started_usec;
}

static bool pending_has_name(const struct cp_daemon *d, const char *name)
{
	for (size_t i = 0; i < d->n_pending; i++)
		if (strcmp(d->pending[i].name, name) == 0)
			return true;
	return false;
}

static void drop_pending(struct cp_daemon *d, const char *name)
{
	for (size_t i = 0; i < d->n_pending; i++)
		if (strcmp(d->pending[i].name, name) == 0) {
			memmove(&d->pending[i], &d->pending[i + 1],
				(d->n_pending - i - 1) * sizeof(*d->pending));
			d->n_pending--;
			return;
		}
}

/*
 * What the run's calibration left pending (cut short by the budget, too
 * noisy to decide, or an engine left to verify), and what it finished: a run of
 * everything (@full) says all that is pending; a run of some names takes
 * out those it measured to the end. A run after READY (@again false)
 * leaves its name out whatever its figures (too noisy still: measured
 * again at the next start, as its cache entry says), so that the run's
 * one write of the state has the record as it stays. By a registered
 * driver of each name: the CPU's candidate is not one.
 */
static int update_pending(struct cp_daemon *d, const struct cp_apply_result *res, bool full,
			  bool again)
{
	const struct cp_calibration *cal = &res->calibration;

	if (full)
		d->n_pending = 0;
	for (size_t i = 0; i < cal->n_measured; i++)
		drop_pending(d, cal->measured[i].name); /* added again below if still pending */
	if (!again)
		return 0;
	for (size_t i = 0; i < cal->n_measured; i++) {
		const struct cp_measured *m = &cal->measured[i], *by = NULL;
		struct pending *all;

		if (!(m->pending || cp_measured_too_noisy(m) ||
		      cp_measured_wants_verification(m)) ||
		    pending_has_name(d, m->name))
			continue;
		for (size_t k = 0; k < cal->n_measured && !by; k++)
			if (strcmp(cal->measured[k].name, m->name) == 0 &&
			    !cal->measured[k].candidate)
				by = &cal->measured[k];
		if (!by)
			continue;
		all = reallocarray(d->pending, d->n_pending + 1, sizeof(*all));
		if (!all)
			return -ENOMEM;
		d->pending = all;
		cp_strscpy(all[d->n_pending].name, CP_NAME_MAX, m->name);
		cp_strscpy(all[d->n_pending].driver, CP_NAME_MAX, by->driver);
		d->n_pending++;
	}
	return 0;
}

/* Bookkeeping from the inventory this run saw (taken under the lock, after ours). */
static void note_run(struct cp_daemon *d, const struct cp_apply_result *res, const char *trigger,
		     const struct cp_names *only)
{
	for (size_t i = 0; only && i < only->n; i++)
		if (!cp_track_driver_ready(&res->inventory, only->v[i]) &&
		    cp_names_add(&d->late, only->v[i]) < 0)
			cp_log(LOG_WARNING, "Out of memory tracking drivers");
	if (!only) {
		if (cp_track_known(&res->inventory, &d->known) < 0 ||
		    cp_track_untested(&res->inventory, &d->waiting) < 0)
			cp_log(LOG_WARNING, "Out of memory tracking drivers");
	}
	if (update_pending(d, res, !only, strcmp(trigger, "background") != 0) < 0)
		cp_log(LOG_WARNING, "Out of memory tracking what is left to measure");
	keep_unsaved(d, res);
	flush_unsaved(d);

	d->rec.runs++;
	d->rec.last_run_at = (int64_t) (res->applied_at ? res->applied_at : time(NULL));
	cp_strscpy(d->rec.last_trigger, sizeof(d->rec.last_trigger), trigger);
	d->rec.last_changed = res->n_changed;
	d->rec.last_failed = res->n_failed;
	d->rec.last_run_failed = res->n_failed > 0;
	d->rec.last_from_cache = res->calibration.n_from_cache;
	d->rec.last_measured = res->calibration.n_run;
	snprintf(d->rec.backend, sizeof(d->rec.backend), "%s",
		 cp_backend_to_string(res->calibration.backend));
	if (strcmp(trigger, "start") == 0)
		mark_started(d);
}

struct run_context {
	struct cp_daemon *d;
	const char *trigger;
	const struct cp_names *only;
	bool noted; /* note_run() done, its record in the apply's last write */
};

/* The apply's last write of the state file carries the record: one write, not two. */
static void note_before_final_write(const struct cp_apply_result *res, struct cp_state *state,
				    void *userdata)
{
	struct run_context *ctx = userdata;
	struct cp_daemon *d = ctx->d;
	json_object *record = NULL;
	char *text;

	note_run(d, res, ctx->trigger, ctx->only);
	ctx->noted = true;
	text = record_changed(d, &record);
	if (!text)
		return;
	if (cp_daemon_record_put_json(state, record) < 0) {
		free(text);
		return;
	}
	record_written(d, text); /* forgotten in run_pipeline() if the write fails */
}

/* The start's results on record: boot may go on (not for --once: see run_once_rest()). */
static void ready_after_final_write(const struct cp_apply_result *res, void *userdata)
{
	struct run_context *ctx = userdata;
	char status[512];

	if (strcmp(ctx->trigger, "start") != 0 || ctx->d->opts.once)
		return;
	cp_track_status_text(res, ctx->trigger, status, sizeof(status));
	send_ready(ctx->d, status);
}

/*
 * The modules loaded since @before (sorted names from /proc/modules), said:
 * a calibration's known-answer reference can have the kernel load a
 * template's module, and whatever else loaded one meanwhile shows too.
 */
static void log_modules_loaded(char **before, size_t n_before, bool ok)
{
	char **after = NULL, **gained = NULL, list[512] = "";
	size_t n_after = 0, n_gained = 0;

	if (ok && cp_modules_live(NULL, &after, &n_after) >= 0 &&
	    cp_modules_gained(before, n_before, after, n_after, &gained, &n_gained) >= 0 &&
	    n_gained) {
		for (size_t i = 0; i < n_gained; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? " " : "", gained[i]);
		cp_log(LOG_INFO,
		       "Modules loaded during this run (a calibration's lookups, or "
		       "anything else meanwhile): %s",
		       list);
	}
	cp_strv_free(gained, n_gained);
	cp_strv_free(after, n_after);
	cp_strv_free(before, n_before);
}

/*
 * Apply the policy in force, to @only (NULL: everything). Returns 0, -EIO
 * when some steps failed, or another negative errno when nothing was
 * applied.
 */
static int run_pipeline(struct cp_daemon *d, const char *trigger, const struct cp_names *only)
{
	_cleanup_(cp_names_clear) struct cp_names patterns = {};
	struct run_context ctx = {.d = d, .trigger = trigger, .only = only};
	struct cp_apply_result res = {};
	struct cp_apply_options o = {
	    .root = d->opts.root,
	    .config_file = d->opts.config_file,
	    .policy = d->policy,
	    .state_path = d->opts.state_path,
	    .lock_path = d->opts.lock_path,
	    .cache_path = d->opts.cache_path,
	    .agent = "cryptoprio-daemon",
	    .lock_waiting = log_lock_waiting,
	    .before_final_write = note_before_final_write,
	    .after_final_write = ready_after_final_write,
	    .userdata = &ctx,
	    .finish_calibration = strcmp(trigger, "background") == 0,
	    .verify_first_only = strcmp(trigger, "start") == 0,
	};
	char status[512], **modules = NULL;
	size_t n_modules = 0;
	bool modules_ok;
	int r;

	if (only) {
		r = cp_track_patterns(only, &patterns);
		if (r < 0)
			return r;
		o.only_drivers = patterns.v;
		o.n_only_drivers = patterns.n;
	}
	modules_ok = cp_modules_live(NULL, &modules, &n_modules) >= 0;
	r = cp_apply_run(&o, &res);
	log_modules_loaded(modules, n_modules, modules_ok);
	if (res.state_error)
		record_written(d, NULL);
	if (r < 0 && r != -EIO) {
		/* No NETLINK_CRYPTO at all (not built, or blacklisted): not an error of ours. */
		d->no_crypto_user = res.inventory.source != CP_SOURCE_CRYPTO_USER &&
				    res.inventory.crypto_user_error == -EPROTONOSUPPORT;
		cp_track_failure_text(&res, r, trigger, status, sizeof(status));
		cp_log(d->no_crypto_user ? LOG_WARNING : LOG_ERR, "%s", status);
		(void) sd_notifyf(false, "STATUS=%s", status);
		cp_apply_result_free(&res);
		d->rec.runs += !ctx.noted;
		d->rec.last_run_failed = true;
		save_record(d);
		write_metrics(d);
		return r;
	}
	log_result(d, &res, trigger);
	if (!ctx.noted)
		note_run(d, &res, trigger, only);
	cp_track_status_text(&res, trigger, status, sizeof(status));
	cp_log(r < 0 ? LOG_WARNING : LOG_INFO, "%s", status);
	if (!d->status_sent) /* the same text, after the same final write */
		(void) sd_notifyf(false, "STATUS=%s", status);
	d->status_sent = false;
	cp_apply_result_free(&res);
	write_metrics(d);
	return r;
}

/* ---- after READY: what the budget left ---- */

/*
 * Measure the first pending name to the end and apply what its figures
 * change, at idle CPU priority (SCHED_IDLE: boot and every other task go
 * first; the runs then see only the CPU time nothing else wants, which the
 * noise test weighs like any other slowdown). One name per call: the lock
 * is held for that name only, and module events are handled in between.
 */
static void measure_pending_one(struct cp_daemon *d)
{
	_cleanup_(cp_names_clear) struct cp_names only = {};
	struct sched_param idle = {}, old_param = {};
	int old_policy = sched_getscheduler(0);
	char name[CP_NAME_MAX];
	bool idled;

	cp_strscpy(name, sizeof(name), d->pending[0].name);
	if (cp_names_add(&only, d->pending[0].driver) < 0) {
		cp_log(LOG_WARNING, "Out of memory measuring %s", name);
		drop_pending(d, name);
		return;
	}
	(void) sched_getparam(0, &old_param);
	idled = old_policy >= 0 && sched_setscheduler(0, SCHED_IDLE, &idle) == 0;
	cp_log(LOG_DEBUG, "Measuring %s after READY (%zu %s left)", name, d->n_pending,
	       cp_plural(d->n_pending, "name", "names"));
	if (run_pipeline(d, "background", &only) == -EIO)
		d->steps_failed = true;
	if (idled && sched_setscheduler(0, old_policy, &old_param) < 0)
		cp_log_errno(LOG_WARNING, -errno, "Failed to leave idle priority");
	drop_pending(d, name); /* failed, if still there: not again until its module comes back */
	save_record(d);	       /* (unchanged after a run that noted itself: not written) */
}

static int on_background(sd_event_source *s, void *userdata)
{
	struct cp_daemon *d = userdata;

	if (d->n_pending)
		measure_pending_one(d);
	if (d->n_pending == 0) {
		cp_log(LOG_INFO, "Nothing left to measure");
		return sd_event_source_set_enabled(s, SD_EVENT_OFF);
	}
	return 0;
}

/* Run on_background() whenever the loop has nothing else to do, until nothing is pending. */
static void schedule_pending(struct cp_daemon *d)
{
	int r = 0;

	if (!d->event || d->n_pending == 0)
		return;
	if (!d->background) {
		r = sd_event_add_defer(d->event, &d->background, on_background, d);
		if (r >= 0)
			r = sd_event_source_set_priority(d->background, SD_EVENT_PRIORITY_IDLE);
	}
	if (r >= 0)
		r = sd_event_source_set_enabled(d->background, SD_EVENT_ON);
	if (r < 0)
		cp_log_errno(LOG_WARNING, r, "Failed to schedule the measurements left");
}

/* ---- module events ---- */

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata);

/* After module events settle (or a retry): plan what is new. */
static void rescan(struct cp_daemon *d, const char *trigger)
{
	_cleanup_(cp_names_clear) struct cp_names ready = {}, waiting = {};
	struct cp_inventory inv = {};
	int r;

	r = cp_inventory_load(&inv);
	if (r < 0) {
		cp_log_errno(LOG_ERR, r, "Failed to read the kernel's implementations");
		cp_inventory_free(&inv);
		return;
	}
	r = cp_track_select(&inv, &d->known, &d->modules, &ready, &waiting);
	if (r >= 0 && ready.n > 0) {
		for (size_t i = 0; i < ready.n; i++)
			cp_log(LOG_DEBUG, "New or reloaded implementation: %s", ready.v[i]);
		(void) run_pipeline(d, trigger, &ready);
		schedule_pending(d);
	}
	if (r >= 0)
		r = cp_track_known(&inv, &d->known);
	/* Selected but not ready when the run planned: not known, looked at again. */
	for (size_t i = 0; r >= 0 && i < d->late.n; i++) {
		cp_log(LOG_DEBUG, "%s was not ready when planned: looking again", d->late.v[i]);
		r = cp_names_add(&waiting, d->late.v[i]);
		for (size_t k = 0; r >= 0 && k < d->known.n; k++)
			if (strcmp(d->known.v[k], d->late.v[i]) == 0) {
				free(d->known.v[k]);
				d->known.v[k] = d->known.v[--d->known.n];
				d->known.v[d->known.n] = NULL;
				break;
			}
	}
	cp_names_clear(&d->late);
	cp_inventory_free(&inv);
	if (r < 0) {
		cp_log_errno(LOG_ERR, r, "Failed to track the implementations");
		return;
	}
	cp_names_clear(&d->modules);
	cp_names_clear(&d->waiting);
	d->waiting = waiting;
	waiting = (struct cp_names){};
	if (d->waiting.n == 0) {
		d->retries = 0;
	} else if (d->retries++ < d->opts.retry_max) {
		cp_log(LOG_DEBUG, "%zu %s not self-tested yet (%s...): looking again", d->waiting.n,
		       cp_plural(d->waiting.n, "implementation", "implementations"),
		       d->waiting.v[0]);
		(void) arm_timer(d, &d->retry, d->opts.retry_usec, on_retry);
	} else {
		cp_log(LOG_WARNING,
		       "%zu %s still not self-tested (%s...): left until the next module event",
		       d->waiting.n, cp_plural(d->waiting.n, "implementation", "implementations"),
		       d->waiting.v[0]);
		d->retries = 0;
	}
	save_record(d);
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	rescan(userdata, "retry");
	return 0;
}

static int on_debounce(sd_event_source *s, uint64_t usec, void *userdata)
{
	rescan(userdata, "module");
	return 0;
}

static int on_uevent(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct cp_daemon *d = userdata;
	char name[CP_NAME_MAX];
	int r;

	while ((r = cp_uevent_receive(fd, name, sizeof(name))) != -EAGAIN) {
		if (r == -ENOBUFS) {
			/* Events were lost: look at everything again. */
			cp_log(LOG_WARNING, "Module events lost (queue overflow): rescanning all");
			cp_names_clear(&d->known);
		} else if (r < 0) {
			cp_log_errno(LOG_ERR, r, "Failed to receive module events");
			return 0;
		} else if (r == CP_UEVENT_OTHER) {
			continue;
		} else {
			cp_log(LOG_DEBUG, "Module %s %s", name,
			       r == CP_UEVENT_MODULE_REMOVE ? "removed" : "loaded");
			d->rec.module_events++;
			if (cp_names_add(&d->modules, name) < 0)
				cp_log(LOG_WARNING, "Out of memory recording module %s", name);
		}
		/* Debounce: every event pushes the run back. */
		if (arm_timer(d, &d->debounce, d->opts.debounce_usec, on_debounce) < 0)
			cp_log(LOG_WARNING, "Failed to arm the debounce timer");
	}
	return 0;
}

/* ---- signals ---- */

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct cp_daemon *d = userdata;
	struct cp_policy *p = NULL;
	int r;

	(void) sd_notify(false, "RELOADING=1\nSTATUS=Reloading the policy");
	d->rec.reloads++;
	r = cp_policy_load(d->opts.root, d->opts.config_file, &p);
	if (r < 0) {
		if (r == -EBADMSG && p) {
			cp_log_policy_errors(p);
			cp_log(LOG_ERR, "Invalid policy: the policy in force is kept");
		} else {
			cp_log_errno(LOG_ERR, r,
				     "Failed to read the policy; the policy in force "
				     "is kept");
		}
		if (p)
			cp_policy_free(p);
		d->rec.reload_failures++;
		(void) sd_notify(false, "READY=1\nSTATUS=Reload refused: invalid policy, the "
					"previous one stays in force");
		save_record(d);
		return 0;
	}
	cp_policy_free(d->policy);
	d->policy = p;
	(void) cp_daemon_record_set_files(&d->rec, p->files, p->n_files);
	cp_log(LOG_INFO, "Policy reloaded from %zu %s", p->n_files,
	       cp_plural(p->n_files, "file", "files"));
	cp_names_clear(&d->modules);
	(void) run_pipeline(d, "reload", NULL);
	(void) sd_notify(false, "READY=1");
	schedule_pending(d);
	save_record(d);
	return 0;
}

static int on_exit_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	cp_log(LOG_INFO, "Exiting on %s", strsignal((int) si->ssi_signo));
	(void) sd_notify(false, "STOPPING=1");
	return sd_event_exit(sd_event_source_get_event(s), 0);
}

/* ---- start ---- */

static int load_policy(struct cp_daemon *d)
{
	int r = cp_policy_load(d->opts.root, d->opts.config_file, &d->policy);

	if (r == -EBADMSG && d->policy) {
		cp_log_policy_errors(d->policy);
		cp_log(LOG_ERR, "Invalid policy: nothing applied");
		return r;
	}
	if (r < 0)
		return cp_log_errno(LOG_ERR, r, "Failed to read the policy");
	if (d->policy->n_files == 0)
		cp_log(LOG_INFO, "No policy file: the built-in default applies");
	for (size_t i = 0; i < d->policy->n_files; i++)
		cp_log(LOG_DEBUG, "Policy file: %s", d->policy->files[i]);
	return cp_daemon_record_set_files(&d->rec, d->policy->files, d->policy->n_files);
}

/*
 * Before the first run: the signals the loop handles blocked (kept pending
 * until then), and the uevent socket subscribed, so that a module loaded
 * meanwhile is not missed. The loop itself is set up after READY=1.
 */
static int prepare_loop(struct cp_daemon *d)
{
	sigset_t ss;

	sigemptyset(&ss);
	sigaddset(&ss, SIGHUP);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	if (sigprocmask(SIG_BLOCK, &ss, NULL) < 0)
		return negative_errno();
	d->uevent_fd = cp_uevent_open();
	return d->uevent_fd < 0 ? d->uevent_fd : 0;
}

static int setup_loop(struct cp_daemon *d)
{
	int r;

	r = sd_event_default(&d->event);
	if (r >= 0)
		r = sd_event_add_signal(d->event, NULL, SIGHUP, on_sighup, d);
	if (r >= 0)
		r = sd_event_add_signal(d->event, NULL, SIGTERM, on_exit_signal, d);
	if (r >= 0)
		r = sd_event_add_signal(d->event, NULL, SIGINT, on_exit_signal, d);
	if (r >= 0)
		r = sd_event_add_io(d->event, &d->uevents, d->uevent_fd, EPOLLIN, on_uevent, d);
	if (r < 0)
		return r;
	return sd_event_source_set_io_fd_own(d->uevents, true);
}

/*
 * --once after its first run: READY=1 where a notify socket is given (boot
 * need not wait for the rest), then what the budget left, name by name,
 * before it exits.
 */
static int run_once_rest(struct cp_daemon *d, int first_run)
{
	if (d->n_pending) {
		(void) sd_notify(false, "READY=1");
		cp_log(LOG_INFO, "Measuring %zu %s the budget left or found too noisy",
		       d->n_pending, cp_plural(d->n_pending, "name", "names"));
	}
	while (d->n_pending)
		measure_pending_one(d);
	save_record(d); /* written with the apply's, unless the run said more since */
	return first_run < 0 || d->steps_failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

int cp_daemon_run(struct cp_daemon *d)
{
	int r;

	d->started_usec = now_usec(CLOCK_MONOTONIC);
	d->rec.pid = (int32_t) getpid();
	d->rec.started_at = (int64_t) time(NULL);
	if (load_policy(d) < 0) {
		(void) sd_notify(false, "STATUS=Invalid policy: nothing applied (see the journal)");
		return EXIT_FAILURE;
	}
	if (!d->opts.once) {
		r = prepare_loop(d);
		if (r < 0)
			return cp_log_errno(LOG_ERR, r, "Failed to set up the event loop"),
			       EXIT_FAILURE;
	}
	r = run_pipeline(d, "start", NULL);
	if (r < 0 && r != -EIO) {
		d->rec.stopped_at = (int64_t) time(NULL);
		save_record(d);
		if (!d->no_crypto_user)
			return EXIT_FAILURE;
		/* Ready, and done: a kernel without crypto_user is not a failed unit. */
		send_ready(d, NULL);
		return EXIT_SUCCESS;
	}
	if (d->opts.once)
		return run_once_rest(d, r);
	send_ready(d, NULL); /* when the run had nothing to write at its end */
	cp_log(LOG_DEBUG, "Ready after %" PRIu64 " ms", d->rec.ready_usec / 1000);
	r = setup_loop(d);
	if (r < 0) {
		cp_log_errno(LOG_ERR, r, "Failed to set up the event loop");
		d->rec.stopped_at = (int64_t) time(NULL);
		save_record(d);
		return EXIT_FAILURE;
	}
	if (d->waiting.n > 0)
		(void) arm_timer(d, &d->retry, d->opts.retry_usec, on_retry);
	schedule_pending(d);
	save_record(d);

	r = sd_event_loop(d->event);
	flush_unsaved(d);
	d->rec.stopped_at = (int64_t) time(NULL);
	save_record(d);
	if (r < 0)
		return cp_log_errno(LOG_ERR, r, "Event loop failed"), EXIT_FAILURE;
	return EXIT_SUCCESS;
}
