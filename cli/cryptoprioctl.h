/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "macro.h"

/*
 * Exit codes (cryptoprioctl(8), EXIT STATUS): 0 success, 1 failure at run
 * time, 2 malformed command line, 3 a difference the script asked about
 * (plan --exit-code: changes pending; status: a priority changed since),
 * 4 an implementation found faulty (verify).
 */
#define EXIT_USAGE   2
#define EXIT_CHANGES 3
#define EXIT_FAULTY  4

/* The "version" of every JSON document (data/cryptoprioctl.schema.json). */
#define CTL_JSON_VERSION 1

/*
 * How long apply, set and reset wait for the lock without --wait: longer
 * than a daemon's run holds it (its calibration budget, at most 60 s, and
 * the plan); and the longest --wait short of infinity (a day).
 */
#define CTL_WAIT_DEFAULT_USEC UINT64_C(120000000)
#define CTL_WAIT_MAX_USEC     (UINT64_C(86400) * 1000000)

/* --json=MODE; a verb's own -j sets CTL_JSON_PRETTY (true). */
enum ctl_json {
	CTL_JSON_OFF,
	CTL_JSON_PRETTY, /* indented, for people */
	CTL_JSON_SHORT,	 /* one line per document, for scripts */
};

struct ctl {
	enum ctl_json json;
	bool no_legend;	    /* --no-legend: tables without their header and summary lines */
	const char *config; /* -c FILE, or NULL for the search path */
};

/*
 * A verb returns an exit code. Verbs parse their own options with
 * getopt_long starting at argv[0] = verb name.
 */
struct ctl_verb {
	const char *name;
	const char *synopsis; /* for --help: one line per form, '\n' between */
	int (*run)(struct ctl *ctl, int argc, char **argv);
};

/* Errors go to stderr as "cryptoprioctl: ..."; return the exit code to use. */
int ctl_error(const char *fmt, ...) _printf_(1, 2);
/* Said before blocking on the lock another apply, set, reset or the daemon holds. */
void ctl_lock_waiting(const char *path);
int ctl_usage_error(const char *fmt, ...) _printf_(1, 2);
/*
 * What getopt_long (opterr = 0, optstring starting with ':') returned as
 * @c for an option of @verb: the one line that says so, and EXIT_USAGE.
 */
int ctl_option_error(const char *verb, int c);
/* Report a failed privileged operation; names CAP_NET_ADMIN for EPERM. */
int ctl_errno(int negative_errno, const char *extack, const char *fmt, ...) _printf_(3, 4);

/* Why the cryptoprio module cannot be used, in words: "is not loaded (modprobe cryptoprio)". */
const char *ctl_module_reason(int negative_errno);
/*
 * Why crypto_user cannot be reached, in words, with what to do where that
 * is known: "the kernel has no crypto_user (modprobe crypto_user; ...)".
 */
const char *ctl_crypto_user_reason(int negative_errno);

struct cp_nl;
/*
 * The companion module's generic netlink family, for @verb: 0 with @nl
 * open and @family set, or the exit code after saying why ("not loaded
 * (modprobe cryptoprio)", the errno, the kernel's words); @nl closed then.
 */
int ctl_open_module(const char *verb, struct cp_nl *nl, uint16_t *family);

struct cp_inventory;
/*
 * The implementations for @verb: the kernel's, or another machine's
 * /proc/crypto saved in @file (--inventory). 0, or the exit code after
 * saying why not.
 */
int ctl_inventory_load(const char *verb, const char *file, struct cp_inventory *inv);

/* The modules loaded when a command began (/proc/modules); ok false where unreadable. */
struct ctl_modules {
	char **names;
	size_t n;
	bool ok;
};
void ctl_modules_snapshot(struct ctl_modules *m);
/*
 * The modules loaded since @before was taken, which a calibration that
 * had the kernel build an instance may have loaded: said on standard
 * error (unless --json) with @verb, and as a JSON array (null where
 * unknown) for the document. @before released.
 */
json_object *ctl_modules_loaded(const struct ctl *ctl, const char *verb,
				struct ctl_modules *before);

/*
 * Print a JSON document to stdout (one per command, as --json says) and
 * release it; "version" and "verb" come first.
 */
void ctl_json_print(json_object *doc);
/* The "verb" of the documents when it is not the verb's name ("calibrate --raw"). */
void ctl_json_set_verb(const char *verb);
/*
 * --wait=TIMESPAN of @verb: "infinity" (0: no limit) or a time span of
 * cp_parse_duration in @ret_usec; 0, or the exit code after saying why not.
 */
int ctl_parse_wait(const char *verb, const char *arg, uint64_t *ret_usec);
/* Said when the lock was still held after --wait (the exit code). */
int ctl_lock_timeout(const char *verb, const char *path, uint64_t wait_usec);

/* Seconds since the epoch as local "YYYY-MM-DD HH:MM:SS +ZZZZ"; "never" for 0. */
const char *ctl_format_time(char *buf, size_t len, int64_t t);

/* "s" after a count other than 1: "1 step", "2 steps". */
static inline const char *ctl_plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* Whether stdout is a terminal (for progress lines and markers). */
bool ctl_stdout_is_tty(void);

int verb_list(struct ctl *ctl, int argc, char **argv);
int verb_set(struct ctl *ctl, int argc, char **argv);
int verb_reset(struct ctl *ctl, int argc, char **argv);
/* The module probe behind `calibrate --raw` (ctl-calibrate-raw.c). */
int calibrate_raw(struct ctl *ctl, int argc, char **argv);
int verb_calibrate(struct ctl *ctl, int argc, char **argv);
int verb_chart(struct ctl *ctl, int argc, char **argv);
int verb_resolve(struct ctl *ctl, int argc, char **argv);
int verb_verify(struct ctl *ctl, int argc, char **argv);
int verb_check_policy(struct ctl *ctl, int argc, char **argv);
int verb_plan(struct ctl *ctl, int argc, char **argv);
int verb_apply(struct ctl *ctl, int argc, char **argv);
int verb_status(struct ctl *ctl, int argc, char **argv);
int verb_export(struct ctl *ctl, int argc, char **argv);
int verb_metrics(struct ctl *ctl, int argc, char **argv);
