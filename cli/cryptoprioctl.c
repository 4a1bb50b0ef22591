/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cryptoprioctl: inspect and change which crypto implementation the kernel hands out. */
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>

#include "config.h"
#include "cpmod.h"
#include "cryptoprioctl.h"
#include "json-util.h"
#include "modload.h"
#include "units.h"

static const struct ctl_verb verbs[] = {
    {"list", "list [--inventory FILE] [PATTERN...]", verb_list},
    {"set", "set [--wait TIME] DRIVER PRIORITY", verb_set},
    {"reset", "reset [--wait TIME] [DRIVER...]", verb_reset},
    {"calibrate",
     "calibrate [PATTERN...] [--size N[,N...]] [--depth N] [--budget TIME] [--force]\n"
     "          [--backend module|af_alg] [--chart | --chart=svg FILE]\n"
     "calibrate --raw [PATTERN...] [--size N[,N...]] [--depth N] [--budget TIME] [--decrypt]\n"
     "          [--key-size N] [--type skcipher|aead|hash|acomp|akcipher|kpp]",
     verb_calibrate},
    {"chart", "chart [--svg FILE] DOCUMENT", verb_chart},
    {"resolve", "resolve NAME [--type skcipher|aead|hash|acomp|akcipher|kpp]", verb_resolve},
    {"verify", "verify [PATTERN...] [--seed N] [--cases N]", verb_verify},
    {"check-policy", "check-policy [--verbose] [--inventory FILE] [--root DIR] [FILE...]",
     verb_check_policy},
    {"plan", "plan [--all] [--force] [--exit-code]\nplan --from FILE [--all] [--exit-code]",
     verb_plan},
    {"apply", "apply [--dry-run] [--force | --cached-only] [--all] [--wait TIME]", verb_apply},
    {"status", "status", verb_status},
    {"export", "export", verb_export},
    {"metrics", "metrics", verb_metrics},
};

/* For --json: the verb of the documents, whether one was printed, the last error said. */
static const char *doc_verb = "";
static bool doc_printed;
static char last_error[1024];

static void vprint_error(const char *fmt, va_list ap)
{
	va_list copy;

	va_copy(copy, ap);
	vsnprintf(last_error, sizeof(last_error), fmt, copy);
	va_end(copy);
	fputs("cryptoprioctl: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void ctl_lock_waiting(const char *path)
{
	fprintf(stderr,
		"cryptoprioctl: waiting for %s: another apply, set or reset, or the daemon, is "
		"changing priorities\n",
		path);
}

int ctl_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint_error(fmt, ap);
	va_end(ap);
	return EXIT_FAILURE;
}

int ctl_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap); /* for the error document */
	va_end(ap);
	fprintf(stderr, "cryptoprioctl: %s; see 'cryptoprioctl --help'\n", last_error);
	return EXIT_USAGE;
}

/* The verb's arguments as getopt_long leaves them (it permutes them). */
static char **verb_argv;

int ctl_option_error(const char *verb, int c)
{
	const char *arg = optind > 0 ? verb_argv[optind - 1] : "";
	char shown[3] = {'-', (char) optopt, '\0'};

	if (c == ':')
		return ctl_usage_error("%s: option '%s' needs a value", verb, arg);
	if (strncmp(arg, "--", 2) == 0 && strchr(arg, '=') && optopt)
		return ctl_usage_error("%s: option '%.*s' takes no value", verb,
				       (int) (strchr(arg, '=') - arg), arg);
	/* A short option is one letter of its word ("-jx"); a long one is the word. */
	return ctl_usage_error("%s: unknown option '%s'", verb, optopt ? shown : arg);
}

int ctl_errno(int negative_errno, const char *extack, const char *fmt, ...)
{
	char what[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	/* The kernel refuses netlink requests without the capability with EPERM. */
	if (negative_errno == -EPERM)
		return ctl_error("%s: needs CAP_NET_ADMIN (run as root)%s%s%s", what,
				 extack && *extack ? " (kernel: " : "",
				 extack && *extack ? extack : "", extack && *extack ? ")" : "");
	return ctl_error("%s: %s%s%s%s%s", what, strerror(-negative_errno),
			 extack && *extack ? " (kernel: " : "", extack && *extack ? extack : "",
			 extack && *extack ? ")" : "",
			 negative_errno == -EACCES ? " (needs CAP_NET_ADMIN; run as root)" : "");
}

int ctl_parse_wait(const char *verb, const char *arg, uint64_t *ret_usec)
{
	if (strcmp(arg, "infinity") == 0) {
		*ret_usec = 0;
		return 0;
	}
	/* A bare number is seconds, as systemd's. */
	if (cp_parse_timespan(arg, CP_USEC_PER_SEC, ret_usec) < 0 || *ret_usec < CP_USEC_PER_MSEC ||
	    *ret_usec > CTL_WAIT_MAX_USEC)
		return ctl_usage_error("%s: bad --wait '%s' (a time span of 1ms..1d, or infinity)",
				       verb, arg);
	return 0;
}

int ctl_lock_timeout(const char *verb, const char *path, uint64_t wait_usec)
{
	char span[32];

	return ctl_error("%s: %s still held after %s (--wait): another apply, set or reset, or "
			 "the daemon, is changing priorities; nothing changed",
			 verb, path, cp_format_duration(span, sizeof(span), wait_usec));
}

const char *ctl_module_reason(int negative_errno)
{
	switch (negative_errno) {
	case -ENOENT: /* no generic netlink family of that name */
		return "is not loaded (modprobe cryptoprio)";
	case -EPERM:
	case -EACCES:
		return "needs CAP_NET_ADMIN (run as root)";
	case -EPROTO: /* its family's version is older than ours */
		return "is older than this cryptoprioctl (rmmod cryptoprio; modprobe cryptoprio)";
	default:
		return strerror(-negative_errno);
	}
}

const char *ctl_crypto_user_reason(int negative_errno)
{
	static char buf[128];

	if (negative_errno == -EPROTONOSUPPORT) /* no NETLINK_CRYPTO in this kernel */
		return "the kernel has no crypto_user (modprobe crypto_user; CONFIG_CRYPTO_USER)";
	snprintf(buf, sizeof(buf), "crypto_user: %s", strerror(-negative_errno));
	return buf;
}

int ctl_open_module(const char *verb, struct cp_nl *nl, uint16_t *family)
{
	int r = cp_nl_open(nl, NETLINK_GENERIC);

	if (r < 0)
		return ctl_errno(r, NULL, "%s: cannot open a generic netlink socket", verb);
	r = cp_mod_family(nl, family);
	if (r < 0)
		(void) ctl_error("%s: the cryptoprio kernel module %s", verb, ctl_module_reason(r));
	if (r < 0)
		cp_nl_close(nl);
	return r < 0 ? EXIT_FAILURE : 0;
}

void ctl_modules_snapshot(struct ctl_modules *m)
{
	*m = (struct ctl_modules){};
	m->ok = cp_modules_live(NULL, &m->names, &m->n) >= 0;
}

json_object *ctl_modules_loaded(const struct ctl *ctl, const char *verb, struct ctl_modules *before)
{
	struct ctl_modules after;
	char **gained = NULL;
	size_t n = 0;
	json_object *arr = NULL;

	ctl_modules_snapshot(&after);
	if (before->ok && after.ok &&
	    cp_modules_gained(before->names, before->n, after.names, after.n, &gained, &n) >= 0) {
		arr = cp_json_strv(gained, n);
		if (n && !ctl->json) {
			fprintf(stderr,
				"%s: the kernel loaded modules to build what was named:", verb);
			for (size_t i = 0; i < n; i++)
				fprintf(stderr, " %s", gained[i]);
			fputc('\n', stderr);
		}
	}
	cp_strv_free(gained, n);
	cp_strv_free(after.names, after.n);
	cp_strv_free(before->names, before->n);
	*before = (struct ctl_modules){};
	return arr;
}

void ctl_json_set_verb(const char *verb)
{
	doc_verb = verb;
}

/* @doc after "version" and "verb" (a new object; @doc released). */
static json_object *versioned(json_object *doc)
{
	json_object *out = json_object_new_object();

	json_object_object_add(out, "version", json_object_new_int(CTL_JSON_VERSION));
	/* No verb known (none given, or one unknown): null. */
	json_object_object_add(out, "verb", doc_verb ? json_object_new_string(doc_verb) : NULL);
	json_object_object_foreach(doc, key, value)
	    json_object_object_add(out, key, json_object_get(value));
	json_object_put(doc);
	doc_printed = true;
	return out;
}

/* The options of the command running, for what prints its output. */
static const struct ctl *the_ctl;

void ctl_json_print(json_object *doc)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;

	doc = versioned(doc);
	if (!the_ctl || the_ctl->json != CTL_JSON_SHORT)
		flags |= JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED;
	puts(json_object_to_json_string_ext(doc, flags));
	json_object_put(doc);
}

const char *ctl_format_time(char *buf, size_t len, int64_t t)
{
	time_t tt = (time_t) t;
	struct tm tm;

	if (t <= 0 || !localtime_r(&tt, &tm) ||
	    strftime(buf, len, "%Y-%m-%d %H:%M:%S %z", &tm) == 0)
		snprintf(buf, len, "never");
	return buf;
}

bool ctl_stdout_is_tty(void)
{
	return isatty(STDOUT_FILENO) == 1;
}

/*
 * Each line of @synopsis: a form after @prefix, a continuation (it starts
 * with a blank) after as many blanks.
 */
static void print_synopsis(const char *prefix, const char *synopsis)
{
	int width = (int) strlen(prefix);

	for (const char *line = synopsis, *end; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		printf("%*s%.*s\n", width, *line == ' ' ? "" : prefix, (int) (end - line), line);
	}
}

static void help(void)
{
	printf("Usage: cryptoprioctl [OPTIONS] VERB [ARGS...]\n\n"
	       "Show and change which implementation of each kernel crypto algorithm\n"
	       "new users get, by priority.\n\nVerbs:\n");
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++)
		print_synopsis("  ", verbs[i].synopsis);
	printf("\nOptions (all but --help and --version also after the verb):\n"
	       "  -c, --config FILE    use FILE as the whole policy (no search path)\n"
	       "  -j, --json[=MODE]    print one JSON document instead of a table: pretty\n"
	       "                       (-j, --json), short (one line), off\n"
	       "      --no-legend      print tables without their header and summary lines\n"
	       "      --no-pager       accepted; cryptoprioctl never pages its output\n"
	       "  -h, --help           show this help; after a verb, the verb's usage\n"
	       "      --version        show the version\n\n"
	       "See cryptoprioctl(8).\n");
}

/* VERB ... --help (or -h) before any "--": show the verb's usage instead. */
static bool verb_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return true;
	return false;
}

/* A verb asked for JSON that failed before its document: the error as one (schema "error"). */
static void print_error_document(int status)
{
	json_object *doc = json_object_new_object(), *error = json_object_new_object();

	json_object_object_add(
	    error, "message",
	    json_object_new_string(last_error[0] ? last_error : "malformed command line"));
	json_object_object_add(error, "exit_status", json_object_new_int(status));
	json_object_object_add(doc, "error", error);
	ctl_json_print(doc);
}

/* No verb to run, @status its exit status: under --json, the error as a document too. */
static int no_verb(const struct ctl *ctl, int status)
{
	if (ctl->json != CTL_JSON_OFF) {
		doc_verb = NULL;
		print_error_document(status);
	}
	return status;
}

static int set_json(struct ctl *ctl, const char *mode)
{
	if (!mode || strcmp(mode, "pretty") == 0)
		ctl->json = CTL_JSON_PRETTY;
	else if (strcmp(mode, "short") == 0)
		ctl->json = CTL_JSON_SHORT;
	else if (strcmp(mode, "off") == 0)
		ctl->json = CTL_JSON_OFF;
	else
		return ctl_usage_error("bad --json '%s' (pretty, short, off)", mode);
	return 0;
}

/* --config FILE, --config=FILE, -c FILE, -cFILE at argv[i]: the arguments used, or -1. */
static int config_option(struct ctl *ctl, int argc, char **argv, int i)
{
	const char *a = argv[i];

	if (strncmp(a, "--config=", 9) == 0 || (strncmp(a, "-c", 2) == 0 && a[2])) {
		ctl->config = a[1] == '-' ? a + 9 : a + 2;
		return 1;
	}
	if (strcmp(a, "--config") != 0 && strcmp(a, "-c") != 0)
		return 0;
	if (i + 1 >= argc) {
		(void) ctl_usage_error("option '%s' needs a FILE", a);
		return -1;
	}
	ctl->config = argv[i + 1];
	return 2;
}

/*
 * A global option at argv[i], before or after the verb: the arguments it
 * used (1 or 2), 0 if it is none, -1 after saying what is wrong.
 */
static int global_option(struct ctl *ctl, int argc, char **argv, int i)
{
	const char *a = argv[i];

	if (strcmp(a, "-j") == 0 || strcmp(a, "--json") == 0 || strncmp(a, "--json=", 7) == 0)
		return set_json(ctl, a[1] == '-' && a[6] ? a + 7 : NULL) == 0 ? 1 : -1;
	if (strcmp(a, "--no-legend") == 0) {
		ctl->no_legend = true;
		return 1;
	}
	if (strcmp(a, "--no-pager") == 0)
		return 1; /* accepted: cryptoprioctl never pages */
	return config_option(ctl, argc, argv, i);
}

/* --help and --version, before the verb only: 1 when shown, 0 if @a is neither. */
static int help_option(const char *a)
{
	if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
		help();
	else if (strcmp(a, "--version") == 0)
		printf("cryptoprioctl %s\n", PACKAGE_VERSION);
	else
		return 0;
	return 1;
}

/*
 * The global options taken out of @argv wherever they are (up to "--"),
 * the rest, verb first, into @args with their count in @ret_n. Returns 1 to
 * run the verb, 0 after --help or --version, or the usage exit code.
 */
static int split_global_options(struct ctl *ctl, int argc, char **argv, char **args, int *ret_n)
{
	bool done = false;
	int n = 0, used;

	for (int i = 1; i < argc; i += used) {
		used = done ? 0 : global_option(ctl, argc, argv, i);
		if (used < 0)
			return EXIT_USAGE;
		if (used > 0)
			continue;
		used = 1;
		if (n == 0 && !done && strcmp(argv[i], "--") == 0) {
			done = true; /* the verb next, whatever it looks like */
			continue;
		}
		if (n == 0 && !done && help_option(argv[i]))
			return 0;
		if (n == 0 && argv[i][0] == '-')
			return ctl_usage_error("unknown option '%s'", argv[i]);
		done = done || strcmp(argv[i], "--") == 0;
		args[n++] = argv[i];
	}
	*ret_n = n;
	return 1;
}

int main(int argc, char **argv)
{
	_cleanup_free_ char **args = calloc((size_t) argc + 1, sizeof(*args));
	struct ctl ctl = {};
	int n, r;

	/*
	 * The character set only, for glyphs (glyph.h) and libsmartcols' cells:
	 * LC_NUMERIC would change the decimal point of tables, JSON and the
	 * numbers parsed, LC_MESSAGES strerror()'s language.
	 */
	setlocale(LC_CTYPE, "");
	if (!args)
		return ctl_errno(-ENOMEM, NULL, "cannot start");
	opterr = 0; /* each verb says what is wrong with its options, once */
	the_ctl = &ctl;
	r = split_global_options(&ctl, argc, argv, args, &n);
	if (r != 1)
		return r;
	if (n == 0)
		return no_verb(&ctl, ctl_usage_error("missing verb"));
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++) {
		if (strcmp(args[0], verbs[i].name) != 0)
			continue;
		if (verb_wants_help(n, args)) {
			puts("Usage:");
			print_synopsis("  cryptoprioctl [OPTIONS] ", verbs[i].synopsis);
			puts("\nSee cryptoprioctl(8).");
			return EXIT_SUCCESS;
		}
		optind = 0; /* reset getopt for the verb's own options */
		verb_argv = args;
		doc_verb = verbs[i].name;
		r = verbs[i].run(&ctl, n, args);
		if (r != EXIT_SUCCESS && !doc_printed && ctl.json != CTL_JSON_OFF)
			print_error_document(r);
		return r;
	}
	return no_verb(&ctl, ctl_usage_error("unknown verb '%s'", args[0]));
}
