/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cryptoprioctl set / reset: change a priority by hand, and restore the originals. */
#include <errno.h>
#include <string.h>

#include "crypto-user.h"
#include "cryptoprioctl.h"
#include "defaults.h"
#include "fileio.h"
#include "inventory-load.h"
#include "paths.h"
#include "state.h"

/*
 * Positional arguments and --json in any order; "-1" is a (bad) priority,
 * not an option. Returns 0 with the count in @ret_n, or an exit code.
 */
static int split_arguments(struct ctl *ctl, int argc, char **argv, char **args, int max_args,
			   int *ret_n)
{
	int n = 0;
	bool options_done = false;

	for (int i = 1; i < argc; i++) {
		if (!options_done && strcmp(argv[i], "--") == 0) {
			options_done = true;
		} else if (!options_done &&
			   (strcmp(argv[i], "-j") == 0 || strcmp(argv[i], "--json") == 0)) {
			ctl->json = true;
		} else if (!options_done && argv[i][0] == '-' &&
			   !(argv[i][1] >= '0' && argv[i][1] <= '9')) {
			return ctl_usage_error("%s: unknown option '%s'", argv[0], argv[i]);
		} else {
			if (n == max_args)
				return ctl_usage_error("%s: too many arguments", argv[0]);
			args[n++] = argv[i];
		}
	}
	*ret_n = n;
	return 0;
}

static int parse_priority(const char *s, uint32_t *ret)
{
	unsigned long long v = 0;

	if (!*s || strlen(s) > 10)
		return -ERANGE;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		v = v * 10 + (unsigned) (*p - '0');
	}
	if (v > CP_PRIORITY_MAX)
		return -ERANGE;
	*ret = (uint32_t) v;
	return 0;
}

static int check_driver_name(const char *verb, const char *driver)
{
	if (strlen(driver) >= CP_NAME_MAX)
		return ctl_usage_error("%s: driver name '%.20s...' is %zu bytes; crypto_user can "
				       "address names of at most %d bytes",
				       verb, driver, strlen(driver), CP_NAME_MAX - 1);
	return 0;
}

static int require_net_admin(const char *verb)
{
	if (cp_have_net_admin())
		return 0;
	return ctl_error(
	    "%s: changing priorities needs CAP_NET_ADMIN (run as root); nothing changed", verb);
}

/* The lock, the state, the recorded defaults and a fresh inventory: what every writer holds. */
struct writer {
	int lock_fd;
	struct cp_state state;
	struct cp_cache defaults; /* from CP_CACHE_PATH; empty if absent or corrupt */
	struct cp_inventory inv;
	struct cp_nl nl;
};

static void writer_close(struct writer *w)
{
	cp_nl_close(&w->nl);
	cp_cache_free(&w->defaults);
	cp_inventory_free(&w->inv);
	cp_state_free(&w->state);
	closep(&w->lock_fd);
}

static int writer_open(struct writer *w, const char *verb)
{
	int r;

	memset(w, 0, sizeof(*w));
	w->lock_fd = cp_lock_acquire_or_wait(CP_LOCK_PATH, ctl_lock_waiting);
	if (w->lock_fd < 0)
		return ctl_errno(w->lock_fd, NULL, "%s: cannot take %s", verb, CP_LOCK_PATH);
	r = cp_state_load_salvage(CP_STATE_PATH, &w->state);
	if (r < 0)
		return ctl_errno(r, NULL, "%s: cannot read %s", verb, CP_STATE_PATH);
	if (r > 0)
		fprintf(stderr, "%s: ignoring %s: not a valid state file (moved to %s.corrupt)\n",
			verb, CP_STATE_PATH, CP_STATE_PATH);
	r = cp_cache_load(CP_CACHE_PATH, &w->defaults);
	if (r < 0)
		fprintf(stderr, "%s: ignoring %s: %s\n", verb, CP_CACHE_PATH,
			r == -EBADMSG ? "not a valid cache file" : strerror(-r));
	r = cp_inventory_load(&w->inv);
	if (r < 0)
		return ctl_errno(r, NULL, "%s: cannot read the kernel's crypto implementations",
				 verb);
	if (w->inv.source != CP_SOURCE_CRYPTO_USER)
		return ctl_errno(w->inv.crypto_user_error, NULL,
				 "%s: crypto_user is unavailable, priorities cannot be changed",
				 verb);
	r = cp_cu_open(&w->nl);
	if (r < 0)
		return ctl_errno(r, NULL, "%s: cannot open crypto_user", verb);
	return 0;
}

/* The defaults first seen now into the cache: a warning if it cannot take them. */
static void save_defaults(struct writer *w, const char *verb)
{
	int r = cp_defaults_note(&w->defaults, &w->state, &w->inv, time(NULL));

	if (r > 0)
		r = cp_cache_save(CP_CACHE_PATH, &w->defaults);
	if (r < 0)
		fprintf(stderr, "%s: warning: cannot record default priorities in %s: %s\n", verb,
			CP_CACHE_PATH, strerror(-r));
}

int verb_set(struct ctl *ctl, int argc, char **argv)
{
	_cleanup_(writer_close) struct writer w = {.lock_fd = -1};
	const struct cp_alg *alg;
	char *args[2];
	uint32_t priority, old;
	int n_args, r;

	r = split_arguments(ctl, argc, argv, args, 2, &n_args);
	if (r != 0)
		return r;
	if (n_args != 2)
		return ctl_usage_error("set: expected DRIVER PRIORITY");
	r = check_driver_name("set", args[0]);
	if (r != 0)
		return r;
	r = parse_priority(args[1], &priority);
	if (r < 0)
		return ctl_usage_error("set: priority '%s' is not a number in 0..%u", args[1],
				       CP_PRIORITY_MAX);
	r = require_net_admin("set");
	if (r != 0)
		return r;
	r = writer_open(&w, "set");
	if (r != 0)
		return r;
	alg = cp_inventory_find_driver(&w.inv, args[0]);
	if (!alg)
		return ctl_error("set: no crypto implementation with driver name '%s'", args[0]);
	old = alg->priority;
	/* The original goes to disk before the kernel changes. */
	if (cp_state_record_default(&w.state, alg, &w.defaults) > 0) {
		r = cp_state_save(CP_STATE_PATH, &w.state);
		if (r < 0)
			return ctl_errno(r, NULL, "set: cannot record the original priority in %s",
					 CP_STATE_PATH);
		save_defaults(&w, "set");
	}
	r = cp_cu_set_priority(&w.nl, args[0], priority);
	if (r < 0)
		return ctl_errno(r, w.nl.extack, "set: %s", args[0]);
	if (ctl->json) {
		json_object *doc = json_object_new_object();

		json_object_object_add(doc, "driver", json_object_new_string(args[0]));
		json_object_object_add(doc, "old_priority", json_object_new_int64(old));
		json_object_object_add(doc, "new_priority", json_object_new_int64(priority));
		json_object_object_add(
		    doc, "original_priority",
		    json_object_new_int64(cp_state_find(&w.state, args[0])->priority));
		ctl_json_print(doc);
	} else {
		printf("%s: %u -> %u\n", args[0], old, priority);
	}
	return EXIT_SUCCESS;
}

struct reset_result {
	json_object *steps;   /* for --json */
	json_object *removed; /* the created instances: removed, gone, in use or failed */
	int failed;
};

static void report_step(struct ctl *ctl, struct reset_result *res, const struct cp_original *orig,
			const struct cp_alg *alg, const char *result)
{
	if (ctl->json) {
		json_object *obj = json_object_new_object();

		json_object_object_add(obj, "driver", json_object_new_string(orig->driver));
		json_object_object_add(obj, "old_priority",
				       alg ? json_object_new_int64(alg->priority) : NULL);
		json_object_object_add(obj, "new_priority", json_object_new_int64(orig->priority));
		json_object_object_add(obj, "result", json_object_new_string(result));
		json_object_array_add(res->steps, obj);
	} else if (alg) {
		printf("%s: %u -> %u (%s)\n", orig->driver, alg->priority, orig->priority, result);
	} else {
		printf("%s: not registered now (%s)\n", orig->driver, result);
	}
}

/* Restore one driver; on success its original is forgotten. */
static void reset_one(struct ctl *ctl, struct writer *w, struct reset_result *res,
		      const char *driver)
{
	struct cp_original orig = *cp_state_find(&w->state, driver);
	const struct cp_alg *alg = cp_inventory_find_driver(&w->inv, driver);
	int r;

	if (!alg) {
		/* Its module is gone: a reload registers it at its default again. */
		report_step(ctl, res, &orig, NULL, "forgotten");
		(void) cp_state_forget(&w->state, driver);
		return;
	}
	r = cp_cu_set_priority(&w->nl, driver, orig.priority);
	if (r < 0) {
		(void) ctl_errno(r, w->nl.extack, "reset: %s", driver);
		report_step(ctl, res, &orig, alg, "failed");
		res->failed++;
		return;
	}
	report_step(ctl, res, &orig, alg, "restored");
	(void) cp_state_forget(&w->state, driver);
}

static void report_removal(struct ctl *ctl, struct reset_result *res, const struct cp_created *c,
			   const char *result)
{
	if (ctl->json) {
		json_object *obj = json_object_new_object();

		json_object_object_add(obj, "driver", json_object_new_string(c->driver));
		json_object_object_add(obj, "algorithm", json_object_new_string(c->name));
		json_object_object_add(obj, "result", json_object_new_string(result));
		json_object_object_add(obj, "priority",
				       strcmp(result, "in-use") == 0
					   ? json_object_new_int64(CP_IN_USE_PRIORITY)
					   : NULL);
		json_object_array_add(res->removed, obj);
	} else if (strcmp(result, "in-use") == 0) {
		printf("%s: in use, not removed: lowered to priority %u (the next reset or apply "
		       "removes it once free)\n",
		       c->driver, CP_IN_USE_PRIORITY);
	} else {
		printf("%s: created by cryptoprio (%s)\n", c->driver, result);
	}
}

/*
 * Remove an instance cryptoprio created. Held by someone (EBUSY): lowered
 * to CP_IN_USE_PRIORITY so that it wins no new lookup, and kept in the
 * state for the next reset or apply; "in use" is not a failure of reset.
 */
static void remove_one(struct ctl *ctl, struct writer *w, struct reset_result *res,
		       const char *driver)
{
	struct cp_created c = *cp_state_find_created(&w->state, driver);
	int r = cp_cu_delete(&w->nl, driver);

	if (r == 0 || r == -ENOENT) {
		report_removal(ctl, res, &c, r == 0 ? "removed" : "gone");
		(void) cp_state_forget_created(&w->state, driver);
		return;
	}
	if (r == -EBUSY) {
		fprintf(stderr, "reset: %s is in use: lowering it to priority %u instead\n", driver,
			CP_IN_USE_PRIORITY);
		r = cp_cu_set_priority(&w->nl, driver, CP_IN_USE_PRIORITY);
	}
	if (r < 0) {
		(void) ctl_errno(r, w->nl.extack, "reset: removing %s", driver);
		report_removal(ctl, res, &c, "failed");
		res->failed++;
		return;
	}
	c.priority = CP_IN_USE_PRIORITY;
	c.in_use = true;
	report_removal(ctl, res, &c, "in-use");
	if (cp_state_add_created(&w->state, &c) < 0)
		res->failed += ctl_errno(-ENOMEM, NULL, "reset");
}

/* Longer driver names first: an instance before the instances it is built on (it holds them). */
static int outermost_first(const void *x, const void *y)
{
	size_t a = strlen(((const struct cp_created *) x)->driver),
	       b = strlen(((const struct cp_created *) y)->driver);

	return a > b ? -1 : a < b;
}

/*
 * After the originals: while an engine's priority is restored, the instance
 * still serves its name, so new users go from the instance straight to the
 * engines as they were before cryptoprio. Removing it first would hand them
 * for a moment the engines in cryptoprio's order, which is neither.
 */
static void remove_created(struct ctl *ctl, struct writer *w, struct reset_result *res,
			   char **drivers, int n_drivers)
{
	_cleanup_free_ struct cp_created *all = NULL;
	size_t n = w->state.n_created;

	all = calloc(n + 1, sizeof(*all));
	if (!all) {
		res->failed += ctl_errno(-ENOMEM, NULL, "reset");
		return;
	}
	memcpy(all, w->state.created, n * sizeof(*all));
	qsort(all, n, sizeof(*all), outermost_first);
	for (size_t i = 0; i < n; i++) {
		bool named = n_drivers == 0;

		for (int k = 0; k < n_drivers && !named; k++)
			named = strcmp(drivers[k], all[i].driver) == 0;
		if (named)
			remove_one(ctl, w, res, all[i].driver);
	}
}

/* Drivers away from their recorded default with no original in the state: /run lost it. */
static int recover_originals(struct writer *w)
{
	int n = cp_defaults_recover(&w->state, &w->inv, &w->defaults);

	if (n < 0)
		return ctl_errno(n, NULL, "reset");
	if (n > 0)
		fprintf(stderr,
			"reset: %d driver%s changed with no original in %s; restoring the "
			"default%s recorded in %s\n",
			n, n == 1 ? "" : "s", CP_STATE_PATH, n == 1 ? "" : "s", CP_CACHE_PATH);
	return 0;
}

static int check_reset_arguments(struct writer *w, char **drivers, int n_drivers)
{
	int r = 0;

	for (int i = 0; i < n_drivers; i++)
		if (!cp_state_find(&w->state, drivers[i]) &&
		    !cp_state_find_created(&w->state, drivers[i]))
			r = ctl_error("reset: no original priority recorded for '%s', nor "
				      "created by cryptoprio",
				      drivers[i]);
	return r;
}

/* Every original (no @drivers), or those of @drivers that have one. */
static void reset_originals(struct ctl *ctl, struct writer *w, struct reset_result *res,
			    char **drivers, int n_drivers)
{
	if (n_drivers == 0) {
		/* Copy the names: reset_one() removes entries as it goes. */
		while (w->state.n_originals > (size_t) res->failed) {
			char driver[CP_NAME_MAX];

			snprintf(driver, sizeof(driver), "%s",
				 w->state.originals[res->failed].driver);
			reset_one(ctl, w, res, driver);
		}
	}
	for (int i = 0; i < n_drivers; i++)
		if (cp_state_find(&w->state, drivers[i]))
			reset_one(ctl, w, res, drivers[i]);
}

/* The JSON document, or "Nothing to reset" when the lines said nothing; releases @res's arrays. */
static void print_reset(const struct ctl *ctl, struct reset_result *res)
{
	json_object *doc;

	if (!ctl->json) {
		if (json_object_array_length(res->steps) == 0 &&
		    json_object_array_length(res->removed) == 0)
			printf("Nothing to reset: no priority was changed by cryptoprio.\n");
		json_object_put(res->steps);
		json_object_put(res->removed);
		return;
	}
	doc = json_object_new_object();
	json_object_object_add(doc, "reset", res->steps);
	json_object_object_add(doc, "removed", res->removed);
	ctl_json_print(doc);
}

int verb_reset(struct ctl *ctl, int argc, char **argv)
{
	_cleanup_(writer_close) struct writer w = {.lock_fd = -1};
	struct reset_result res = {};
	_cleanup_free_ char **drivers = calloc((size_t) argc, sizeof(*drivers));
	int n_drivers = 0, r;

	if (!drivers)
		return ctl_errno(-ENOMEM, NULL, "reset");

	r = split_arguments(ctl, argc, argv, drivers, argc, &n_drivers);
	if (r != 0)
		return r;
	for (int i = 0; i < n_drivers; i++) {
		r = check_driver_name("reset", drivers[i]);
		if (r != 0)
			return r;
	}
	r = require_net_admin("reset");
	if (r != 0)
		return r;
	r = writer_open(&w, "reset");
	if (r != 0)
		return r;
	r = recover_originals(&w);
	if (r != 0)
		return r;
	r = check_reset_arguments(&w, drivers, n_drivers);
	if (r != 0)
		return r;
	res.steps = json_object_new_array();
	res.removed = json_object_new_array();
	reset_originals(ctl, &w, &res, drivers, n_drivers);
	remove_created(ctl, &w, &res, drivers, n_drivers);
	r = cp_state_save(CP_STATE_PATH, &w.state);
	if (r < 0)
		res.failed += ctl_errno(r, NULL, "reset: cannot update %s", CP_STATE_PATH);
	print_reset(ctl, &res);
	return res.failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
