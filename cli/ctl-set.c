/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cryptoprioctl set / reset: change a priority by hand, and restore the
 * originals. The transaction is lib/set-reset.c's; here the arguments and
 * the report of what it did.
 */
#include <errno.h>
#include <string.h>

#include "crypto-user.h"
#include "cryptoprioctl.h"
#include "planner.h"
#include "set-reset.h"

/* --wait: how long set and reset wait for the lock (0: no limit). */
static uint64_t wait_usec = CTL_WAIT_DEFAULT_USEC;

/* --wait=TIMESPAN or --wait TIMESPAN at argv[*i] (then past it): 1, 0 if not --wait, or -exit code.
 */
static int take_wait(int argc, char **argv, int *i)
{
	const char *arg = NULL;
	int r;

	if (strncmp(argv[*i], "--wait=", 7) == 0)
		arg = argv[*i] + 7;
	else if (strcmp(argv[*i], "--wait") == 0 && *i + 1 < argc)
		arg = argv[++*i];
	else if (strcmp(argv[*i], "--wait") == 0)
		return -ctl_usage_error("%s: --wait needs a time span", argv[0]);
	if (!arg)
		return 0;
	r = ctl_parse_wait(argv[0], arg, &wait_usec);
	return r != 0 ? -r : 1;
}

/*
 * Positional arguments, --json and --wait in any order; "-1" is a (bad)
 * priority, not an option. Returns 0 with the count in @ret_n, or an exit code.
 */
static int split_arguments(struct ctl *ctl, int argc, char **argv, char **args, int max_args,
			   int *ret_n)
{
	int n = 0, r;
	bool options_done = false;

	for (int i = 1; i < argc; i++) {
		if (!options_done && (r = take_wait(argc, argv, &i)) != 0) {
			if (r < 0)
				return -r;
		} else if (!options_done && strcmp(argv[i], "--") == 0) {
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

/* What became of the files: warnings, never fatal. */
static void print_files(const char *verb, const struct cp_sr_files *f)
{
	if (f->state_salvaged)
		fprintf(stderr, "%s: ignoring %s: not a valid state file (moved to %s.corrupt)\n",
			verb, f->state_path, f->state_path);
	if (f->cache_error < 0)
		fprintf(stderr, "%s: ignoring %s: %s\n", verb, f->cache_path,
			f->cache_error == -EBADMSG ? "not a valid cache file"
						   : strerror(-f->cache_error));
}

/* Why a writer could not start (or ran out of memory before any change): the exit code. */
static int print_failure(const char *verb, enum cp_sr_failure failure, int error,
			 const struct cp_sr_files *f)
{
	switch (failure) {
	case CP_SR_NO_PRIVILEGE:
		return ctl_error("%s: changing priorities needs CAP_NET_ADMIN (run as root); "
				 "nothing changed",
				 verb);
	case CP_SR_LOCK:
		if (error == -ETIMEDOUT)
			return ctl_lock_timeout(verb, f->lock_path, wait_usec);
		return ctl_errno(error, NULL, "%s: cannot take %s", verb, f->lock_path);
	case CP_SR_STATE_READ:
		return ctl_errno(error, NULL, "%s: cannot read %s", verb, f->state_path);
	case CP_SR_INVENTORY:
		return ctl_errno(error, NULL, "%s: cannot read the kernel's crypto implementations",
				 verb);
	case CP_SR_NO_CRYPTO_USER:
		return ctl_errno(error, NULL,
				 "%s: crypto_user is unavailable, priorities cannot be changed",
				 verb);
	case CP_SR_NETLINK:
		return ctl_errno(error, NULL, "%s: cannot open crypto_user", verb);
	default:
		return ctl_errno(error, NULL, "%s", verb);
	}
}

static void print_set(const struct ctl *ctl, const struct cp_set_options *opts,
		      const struct cp_set_result *res)
{
	json_object *doc;

	if (!ctl->json) {
		printf("%s: %u -> %u\n", opts->driver, res->old_priority, res->new_priority);
		return;
	}
	doc = json_object_new_object();
	json_object_object_add(doc, "driver", json_object_new_string(opts->driver));
	json_object_object_add(doc, "old_priority", json_object_new_int64(res->old_priority));
	json_object_object_add(doc, "new_priority", json_object_new_int64(res->new_priority));
	json_object_object_add(doc, "original_priority",
			       json_object_new_int64(res->original_priority));
	ctl_json_print(doc);
}

/* The result of set, in the order it happened: the exit code. */
static int report_set(const struct ctl *ctl, const struct cp_set_options *opts,
		      const struct cp_set_result *res)
{
	print_files("set", &res->files);
	if (res->failure == CP_SR_NO_DRIVER)
		return ctl_error("set: no crypto implementation with driver name '%s'",
				 opts->driver);
	if (res->failure == CP_SR_STATE_SAVE)
		return ctl_errno(res->error, NULL, "set: cannot record the original priority in %s",
				 res->files.state_path);
	if (res->failure != CP_SR_OK && res->failure != CP_SR_KERNEL)
		return print_failure("set", res->failure, res->error, &res->files);
	if (res->defaults_error < 0)
		fprintf(stderr, "set: warning: cannot record default priorities in %s: %s\n",
			res->files.cache_path, strerror(-res->defaults_error));
	if (res->failure == CP_SR_KERNEL)
		return ctl_errno(res->error, res->extack, "set: %s", opts->driver);
	print_set(ctl, opts, res);
	return EXIT_SUCCESS;
}

int verb_set(struct ctl *ctl, int argc, char **argv)
{
	struct cp_set_options opts = {.env.lock_waiting = ctl_lock_waiting};
	struct cp_set_result res;
	char *args[2];
	int n_args, r;

	r = split_arguments(ctl, argc, argv, args, 2, &n_args);
	if (r != 0)
		return r;
	opts.env.lock_timeout_usec = wait_usec;
	if (n_args != 2)
		return ctl_usage_error("set: expected DRIVER PRIORITY");
	r = check_driver_name("set", args[0]);
	if (r != 0)
		return r;
	r = parse_priority(args[1], &opts.priority);
	if (r < 0)
		return ctl_usage_error("set: priority '%s' is not a number in 0..%u", args[1],
				       CP_PRIORITY_MAX);
	opts.driver = args[0];
	(void) cp_set_run(&opts, &res);
	return report_set(ctl, &opts, &res);
}

/* The JSON arrays of reset: "reset" (the originals) and "removed" (the created instances). */
struct reset_report {
	json_object *steps;
	json_object *removed;
};

static const char *restore_result(enum cp_restore_outcome outcome)
{
	return outcome == CP_RESTORE_RESTORED	 ? "restored"
	       : outcome == CP_RESTORE_FORGOTTEN ? "forgotten"
						 : "failed";
}

static void print_restore(const struct ctl *ctl, struct reset_report *rep,
			  const struct cp_restore *s)
{
	const char *result = restore_result(s->outcome);

	if (s->outcome == CP_RESTORE_FAILED)
		(void) ctl_errno(s->error, s->extack, "reset: %s", s->driver);
	if (ctl->json) {
		json_object *obj = json_object_new_object();

		json_object_object_add(obj, "driver", json_object_new_string(s->driver));
		json_object_object_add(obj, "old_priority",
				       s->registered ? json_object_new_int64(s->old_priority)
						     : NULL);
		json_object_object_add(obj, "new_priority", json_object_new_int64(s->priority));
		json_object_object_add(obj, "result", json_object_new_string(result));
		json_object_array_add(rep->steps, obj);
	} else if (s->registered) {
		printf("%s: %u -> %u (%s)\n", s->driver, s->old_priority, s->priority, result);
	} else {
		printf("%s: not registered now (%s)\n", s->driver, result);
	}
}

static const char *removal_result(enum cp_removal_outcome outcome)
{
	static const char *const results[] = {
	    [CP_REMOVAL_REMOVED] = "removed",
	    [CP_REMOVAL_GONE] = "gone",
	    [CP_REMOVAL_IN_USE] = "in-use",
	    [CP_REMOVAL_FAILED] = "failed",
	};

	return results[outcome];
}

static void print_removal_line(const struct ctl *ctl, struct reset_report *rep,
			       const struct cp_removal *s)
{
	bool in_use = s->outcome == CP_REMOVAL_IN_USE;

	if (ctl->json) {
		json_object *obj = json_object_new_object();

		json_object_object_add(obj, "driver", json_object_new_string(s->driver));
		json_object_object_add(obj, "algorithm", json_object_new_string(s->name));
		json_object_object_add(obj, "result",
				       json_object_new_string(removal_result(s->outcome)));
		json_object_object_add(obj, "priority",
				       in_use ? json_object_new_int64(CP_IN_USE_PRIORITY) : NULL);
		json_object_array_add(rep->removed, obj);
	} else if (in_use) {
		printf("%s: in use, not removed: lowered to priority %u (the next reset or apply "
		       "removes it once free)\n",
		       s->driver, CP_IN_USE_PRIORITY);
	} else {
		printf("%s: created by cryptoprio (%s)\n", s->driver, removal_result(s->outcome));
	}
}

/* Held: named on stderr; failed: why; kept in use but not in the state: out of memory. */
static void print_removal(const struct ctl *ctl, struct reset_report *rep,
			  const struct cp_removal *s)
{
	if (s->busy)
		fprintf(stderr, "reset: %s is in use: lowering it to priority %u instead\n",
			s->driver, CP_IN_USE_PRIORITY);
	if (s->outcome == CP_REMOVAL_FAILED)
		(void) ctl_errno(s->error, s->extack, "reset: removing %s", s->driver);
	print_removal_line(ctl, rep, s);
	if (s->outcome == CP_REMOVAL_IN_USE && s->error < 0)
		(void) ctl_errno(s->error, NULL, "reset");
}

/*
 * What reset said before any change: warnings, and why it stopped (then
 * true, the exit code in @ret). Nothing is recovered when it could not start.
 */
static bool print_reset_start(const struct cp_reset_result *res, int *ret)
{
	size_t n = res->n_recovered;

	print_files("reset", &res->files);
	if (n > 0)
		fprintf(stderr,
			"reset: %zu driver%s changed with no original in %s; restoring the "
			"default%s recorded in %s\n",
			n, n == 1 ? "" : "s", res->files.state_path, n == 1 ? "" : "s",
			res->files.cache_path);
	for (size_t i = 0; i < res->n_unknown; i++)
		*ret = ctl_error("reset: no original priority recorded for '%s', nor created by "
				 "cryptoprio",
				 res->unknown[i]);
	if (res->failure != CP_SR_OK && res->failure != CP_SR_NOT_CHANGED)
		*ret = print_failure("reset", res->failure, res->error, &res->files);
	return res->failure != CP_SR_OK;
}

/* Each step in the order done, then the JSON document or "Nothing to reset": the exit code. */
static int report_reset(const struct ctl *ctl, const struct cp_reset_result *res)
{
	struct reset_report rep = {json_object_new_array(), json_object_new_array()};
	json_object *doc;
	int r = EXIT_FAILURE;

	if (print_reset_start(res, &r)) {
		json_object_put(rep.steps);
		json_object_put(rep.removed);
		return r;
	}
	for (size_t i = 0; i < res->n_restores; i++)
		print_restore(ctl, &rep, &res->restores[i]);
	for (size_t i = 0; i < res->n_removals; i++)
		print_removal(ctl, &rep, &res->removals[i]);
	if (res->state_error < 0)
		(void) ctl_errno(res->state_error, NULL, "reset: cannot update %s",
				 res->files.state_path);
	if (ctl->json) {
		doc = json_object_new_object();
		json_object_object_add(doc, "reset", rep.steps);
		json_object_object_add(doc, "removed", rep.removed);
		ctl_json_print(doc);
	} else {
		if (res->n_restores == 0 && res->n_removals == 0)
			printf("Nothing to reset: no priority was changed by cryptoprio.\n");
		json_object_put(rep.steps);
		json_object_put(rep.removed);
	}
	return res->n_failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

int verb_reset(struct ctl *ctl, int argc, char **argv)
{
	_cleanup_free_ char **drivers = calloc((size_t) argc, sizeof(*drivers));
	struct cp_reset_options opts = {.env.lock_waiting = ctl_lock_waiting};
	_cleanup_(cp_reset_result_free) struct cp_reset_result res = {};
	int n_drivers = 0, r;

	if (!drivers)
		return ctl_errno(-ENOMEM, NULL, "reset");
	r = split_arguments(ctl, argc, argv, drivers, argc, &n_drivers);
	if (r != 0)
		return r;
	opts.env.lock_timeout_usec = wait_usec;
	for (int i = 0; i < n_drivers; i++) {
		r = check_driver_name("reset", drivers[i]);
		if (r != 0)
			return r;
	}
	opts.drivers = drivers;
	opts.n_drivers = (size_t) n_drivers;
	(void) cp_reset_run(&opts, &res);
	return report_reset(ctl, &res);
}
