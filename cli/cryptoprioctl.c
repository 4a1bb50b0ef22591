/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cryptoprioctl: inspect and change which crypto implementation the kernel hands out. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>

#include "config.h"
#include "cpmod.h"
#include "cryptoprioctl.h"
#include "units.h"

static const struct ctl_verb verbs[] = {
    {"list", "list [PATTERN...]", verb_list},
    {"set", "set [--wait TIME] DRIVER PRIORITY", verb_set},
    {"reset", "reset [--wait TIME] [DRIVER...]", verb_reset},
    {"calibrate",
     "calibrate [PATTERN...] [--size N[,N...]] [--depth N] [--budget TIME] [--force]\n"
     "          [--backend module|af_alg]\n"
     "calibrate --raw [PATTERN...] [--size N[,N...]] [--depth N] [--budget MS] [--decrypt]\n"
     "          [--key-size N] [--type skcipher|aead|hash]",
     verb_calibrate},
    {"resolve", "resolve NAME [--type skcipher|aead|hash]", verb_resolve},
    {"check-policy", "check-policy [--verbose] [FILE...]", verb_check_policy},
    {"plan", "plan [--all] [--force] [--exit-code]", verb_plan},
    {"apply", "apply [--dry-run] [--force] [--all] [--wait TIME]", verb_apply},
    {"status", "status", verb_status},
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
	vprint_error(fmt, ap);
	va_end(ap);
	fputs("Try 'cryptoprioctl --help'.\n", stderr);
	return EXIT_USAGE;
}

int ctl_errno(int negative_errno, const char *extack, const char *fmt, ...)
{
	char what[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return ctl_error("%s: %s%s%s%s%s", what, strerror(-negative_errno),
			 extack && *extack ? " (kernel: " : "", extack && *extack ? extack : "",
			 extack && *extack ? ")" : "",
			 negative_errno == -EPERM || negative_errno == -EACCES
			     ? " (CAP_NET_ADMIN is required; run as root)"
			     : "");
}

int ctl_parse_wait(const char *verb, const char *arg, uint64_t *ret_usec)
{
	if (strcmp(arg, "infinity") == 0) {
		*ret_usec = 0;
		return 0;
	}
	if (cp_parse_duration(arg, ret_usec) < 0)
		return ctl_usage_error("%s: bad --wait '%s' (a time span of 1ms..60s, or infinity)",
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

int ctl_open_module(const char *verb, struct cp_nl *nl, uint16_t *family)
{
	int r = cp_nl_open(nl, NETLINK_GENERIC);

	if (r < 0)
		return ctl_errno(r, NULL, "%s: cannot open a generic netlink socket", verb);
	r = cp_mod_family(nl, family);
	if (r == -ENOENT)
		(void) ctl_error("%s: cryptoprio kernel module not loaded (modprobe cryptoprio)",
				 verb);
	else if (r < 0)
		(void) ctl_errno(r, nl->extack, "%s: cannot use the cryptoprio module", verb);
	if (r < 0)
		cp_nl_close(nl);
	return r < 0 ? EXIT_FAILURE : 0;
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
	json_object_object_add(out, "verb", json_object_new_string(doc_verb));
	json_object_object_foreach(doc, key, value)
	    json_object_object_add(out, key, json_object_get(value));
	json_object_put(doc);
	doc_printed = true;
	return out;
}

void ctl_json_print(json_object *doc)
{
	doc = versioned(doc);
	puts(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						     JSON_C_TO_STRING_NOSLASHESCAPE));
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
	printf("\nOptions (-j also after the verb):\n"
	       "  -c, --config FILE  use FILE as the whole policy (no search path)\n"
	       "  -j, --json         print one JSON document instead of a table\n"
	       "  -h, --help         show this help; after a verb, the verb's usage\n"
	       "      --version      show the version\n\n"
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

/* --json or -j (or --json=FORMAT but off) among a verb's arguments before any "--". */
static bool verb_wants_json(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "-j") == 0 || strcmp(argv[i], "--json") == 0 ||
		    (strncmp(argv[i], "--json=", 7) == 0 && strcmp(argv[i], "--json=off") != 0))
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

static int parse_global_options(struct ctl *ctl, int argc, char **argv)
{
	enum { OPT_VERSION = 0x100 };
	static const struct option options[] = {
	    {"config", required_argument, NULL, 'c'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, OPT_VERSION},
	    {},
	};
	int c;

	/* '+': stop at the verb, its options are its own. */
	while ((c = getopt_long(argc, argv, "+c:jh", options, NULL)) >= 0) {
		switch (c) {
		case 'c':
			ctl->config = optarg;
			break;
		case 'j':
			ctl->json = true;
			break;
		case 'h':
			help();
			return 0;
		case OPT_VERSION:
			printf("cryptoprioctl %s\n", PACKAGE_VERSION);
			return 0;
		default:
			return -EINVAL;
		}
	}
	return 1;
}

int main(int argc, char **argv)
{
	struct ctl ctl = {};
	int r;

	r = parse_global_options(&ctl, argc, argv);
	if (r < 0) {
		fputs("Try 'cryptoprioctl --help'.\n", stderr);
		return EXIT_USAGE;
	}
	if (r == 0)
		return EXIT_SUCCESS;
	if (optind >= argc)
		return ctl_usage_error("missing verb");

	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++) {
		if (strcmp(argv[optind], verbs[i].name) != 0)
			continue;
		argc -= optind;
		argv += optind;
		if (verb_wants_help(argc, argv)) {
			puts("Usage:");
			print_synopsis("  cryptoprioctl [OPTIONS] ", verbs[i].synopsis);
			puts("\nSee cryptoprioctl(8).");
			return EXIT_SUCCESS;
		}
		optind = 0; /* reset getopt for the verb's own options */
		doc_verb = verbs[i].name;
		r = verbs[i].run(&ctl, argc, argv);
		if (r != EXIT_SUCCESS && !doc_printed && (ctl.json || verb_wants_json(argc, argv)))
			print_error_document(r);
		return r;
	}
	return ctl_usage_error("unknown verb '%s'", argv[optind]);
}
