/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cryptoprioctl verify: the companion module's differential verification
 * (VERIFY, cryptoprio(4)) of each matching implementation against its
 * reference, on the cases of one seed: what the kernel's thorough
 * self-test would find, where it is off. The module verifies every type,
 * of akciphers and key agreements those it measures: it refuses another
 * (EOPNOTSUPP), listed as not verified with its reason. Each
 * verification's time is said (what an engine adds to a boot that
 * verifies it), and on a terminal a line as each one ends.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "cpmod.h"
#include "cpustat.h"
#include "cryptoprioctl.h"
#include "ctl-table.h"
#include "inventory-load.h"
#include "json-util.h"
#include "pattern.h"
#include "units.h"

struct verify_args {
	char **patterns;
	int n_patterns;
	uint64_t seed;
	uint32_t cases;
};

/* What became of one implementation. */
struct outcome {
	const struct cp_alg *alg;
	enum cryptoprio_type type;
	int r; /* the module's error, or 0 */
	uint64_t elapsed_ns;
	char extack[256];
	struct cp_mod_verify_result res;
};

static const char *verdict_of(const struct outcome *o)
{
	if (o->r == -EOPNOTSUPP)
		return "not-verified";
	if (o->r < 0)
		return "error";
	if (streq(o->res.reference, o->alg->driver))
		return "reference";
	return o->res.verdict == CRYPTOPRIO_VERIFY_PASSED ? "passed" : "failed";
}

/* The last column: the failing case, the reference, or why not verified. */
static void detail_of(const struct outcome *o, char *buf, size_t len)
{
	const char *v = verdict_of(o);

	if (streq(v, "not-verified"))
		snprintf(buf, len, "type %s: %s", cp_mod_type_to_string(o->type), o->extack);
	else if (streq(v, "error"))
		snprintf(buf, len, "%s%s%s", strerror(-o->r), o->extack[0] ? ": " : "", o->extack);
	else if (streq(v, "failed"))
		snprintf(buf, len, "%s", o->res.failure);
	else if (streq(v, "reference"))
		snprintf(buf, len, "the yardstick of the others");
	else
		snprintf(buf, len, "as %s", o->res.reference);
}

static int parse_args(int argc, char **argv, struct verify_args *a, bool *json)
{
	static const struct option options[] = {
	    {"seed", required_argument, NULL, 's'},
	    {"cases", required_argument, NULL, 'n'},
	    {"json", no_argument, NULL, 'j'},
	    {},
	};
	bool have_seed = false;
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, ":s:n:j", options, NULL)) >= 0) {
		if (c == 's') {
			if (cp_parse_uint(optarg, 0, UINT64_MAX, &a->seed) < 0)
				return ctl_usage_error("verify: bad --seed '%s' (0..%" PRIu64 ")",
						       optarg, UINT64_MAX);
			have_seed = true;
		} else if (c == 'n') {
			if (cp_parse_uint(optarg, 1, CRYPTOPRIO_VERIFY_MAX_CASES, &v) < 0)
				return ctl_usage_error("verify: bad --cases '%s' (1..%u)", optarg,
						       CRYPTOPRIO_VERIFY_MAX_CASES);
			a->cases = (uint32_t) v;
		} else if (c == 'j') {
			*json = true;
		} else {
			return ctl_option_error("verify", c);
		}
	}
	a->patterns = argv + optind;
	a->n_patterns = argc - optind;
	/* one seed for all, said in the output, so any failure can be replayed */
	if (!have_seed && getrandom(&a->seed, sizeof(a->seed), 0) != sizeof(a->seed))
		return ctl_errno(-errno, NULL, "verify: cannot draw a seed");
	return 0;
}

static bool matches(const struct cp_alg *a, const struct verify_args *args)
{
	if (args->n_patterns == 0)
		return true;
	for (int p = 0; p < args->n_patterns; p++)
		if (cp_pattern_match(args->patterns[p], a->name) ||
		    cp_pattern_match(args->patterns[p], a->driver))
			return true;
	return false;
}

/* The implementations to verify, each once; skipped ones said on stderr. */
static int select_algs(const struct cp_inventory *inv, const struct verify_args *args,
		       struct outcome **ret, size_t *ret_n)
{
	struct outcome *o = calloc(inv->n_algs + 1, sizeof(*o));
	size_t n = 0;

	if (!o)
		return -ENOMEM;
	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *a = &inv->algs[i];
		enum cryptoprio_type type = cp_mod_type_from_alg_type(a->type);
		bool seen = false;

		if (type == CRYPTOPRIO_TYPE_UNSPEC || (a->flags & CP_ALG_INTERNAL) ||
		    !matches(a, args))
			continue;
		for (size_t j = 0; j < n && !seen; j++)
			seen = streq(o[j].alg->driver, a->driver);
		if (seen)
			continue;
		if (!(a->flags & CP_ALG_TESTED)) {
			fprintf(stderr,
				"verify: skipping %s (%s): not tested, or failed the "
				"kernel's self-test\n",
				a->driver, a->name);
			continue;
		}
		o[n++] = (struct outcome){.alg = a, .type = type};
	}
	*ret = o;
	*ret_n = n;
	return 0;
}

static void verify_one(struct cp_nl *nl, const struct verify_args *args, struct outcome *o)
{
	struct cp_mod_verify_req req = {
	    .driver = o->alg->driver,
	    .type = o->type,
	    .has_seed = true,
	    .seed = args->seed,
	    .cases = args->cases,
	};
	uint64_t start = cp_now_ns();

	nl->extack[0] = '\0';
	o->r = cp_mod_verify(nl, &req, &o->res);
	o->elapsed_ns = cp_now_ns() - start;
	snprintf(o->extack, sizeof(o->extack), "%s", o->r < 0 ? nl->extack : "");
}

/* "1873ms": the verification's time, to the millisecond. */
static const char *elapsed_of(const struct outcome *o, char *buf, size_t len)
{
	return cp_format_duration(buf, len, (o->elapsed_ns + 500000) / 1000000 * 1000);
}

/*
 * On a terminal: what runs now, then a line as each ends ("verify 3/17:
 * DRIVER: passed, 48 cases, 1873ms"), so that a long verification is
 * seen going.
 */
static void show_started(size_t i, size_t n, const struct outcome *o)
{
	fprintf(stderr, "\r\033[Kverifying %zu/%zu: %s (%s)...", i + 1, n, o->alg->driver,
		o->alg->name);
}

static void show_ended(size_t i, size_t n, const struct outcome *o)
{
	char took[32];

	fprintf(stderr, "\r\033[Kverify %zu/%zu: %s: %s", i + 1, n, o->alg->driver, verdict_of(o));
	if (o->r == 0)
		fprintf(stderr, ", %" PRIu32 " case%s", o->res.cases, ctl_plural(o->res.cases));
	fprintf(stderr, ", %s\n", elapsed_of(o, took, sizeof(took)));
}

static json_object *outcome_json(const struct outcome *o, const struct verify_args *args)
{
	json_object *j = json_object_new_object();
	const char *v = verdict_of(o);
	char detail[512];
	bool ran = streq(v, "passed") || streq(v, "failed") || streq(v, "reference");

	detail_of(o, detail, sizeof(detail));
	json_object_object_add(j, "driver", json_object_new_string(o->alg->driver));
	json_object_object_add(j, "name", json_object_new_string(o->alg->name));
	json_object_object_add(j, "type", json_object_new_string(cp_mod_type_to_string(o->type)));
	json_object_object_add(j, "verdict", json_object_new_string(v));
	json_object_object_add(j, "seed", json_object_new_uint64(args->seed));
	json_object_object_add(j, "cases", ran ? json_object_new_int64(o->res.cases) : NULL);
	json_object_object_add(j, "reference",
			       ran && o->res.reference[0] ? json_object_new_string(o->res.reference)
							  : NULL);
	json_object_object_add(j, "elapsed_ns", json_object_new_uint64(o->elapsed_ns));
	if (streq(v, "failed")) {
		json_object_object_add(j, "failed_case", json_object_new_int64(o->res.failed_case));
		json_object_object_add(j, "failure", json_object_new_string(o->res.failure));
	} else if (streq(v, "error") || streq(v, "not-verified")) {
		json_object_object_add(j, "reason", json_object_new_string(detail));
	}
	return j;
}

static const struct ctl_column columns[] = {
    {"DRIVER"},
    {"VERDICT"},
    {"CASES", CTL_COL_RIGHT},
    {"SEED", CTL_COL_RIGHT},
    {"TIME", CTL_COL_RIGHT},
    {"DETAIL"},
};

static int print_table(const struct ctl *ctl, const struct outcome *o, size_t n,
		       const struct verify_args *args)
{
	struct ctl_table *t = ctl_table_new(ctl, columns, ARRAY_SIZE(columns), "");
	char seed[24], cases[16], took[32], detail[512];

	if (!t)
		return -ENOMEM;
	snprintf(seed, sizeof(seed), "%" PRIu64, args->seed);
	for (size_t i = 0; i < n; i++) {
		const char *v = verdict_of(&o[i]);
		bool ran = !streq(v, "error") && !streq(v, "not-verified");
		const char *cells[] = {o[i].alg->driver, v, ran ? cases : "-", seed, took, detail};

		snprintf(cases, sizeof(cases), "%" PRIu32, o[i].res.cases);
		elapsed_of(&o[i], took, sizeof(took));
		detail_of(&o[i], detail, sizeof(detail));
		if (ctl_table_row(t, cells) < 0) {
			ctl_table_free(t);
			return -ENOMEM;
		}
	}
	return ctl_table_print(t);
}

static void print_json(const struct outcome *o, size_t n, const struct verify_args *args)
{
	json_object *doc = json_object_new_object();
	json_object *arr = json_object_new_array();

	json_object_object_add(doc, "seed", json_object_new_uint64(args->seed));
	json_object_object_add(
	    doc, "cases",
	    json_object_new_int64(args->cases ? args->cases : CRYPTOPRIO_VERIFY_CASES));
	json_object_object_add(doc, "implementations", arr);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(arr, outcome_json(&o[i], args));
	ctl_json_print(doc);
}

/* EXIT_FAULTY if one failed, else 1 if one could not be verified, else 0. */
static int exit_code(const struct outcome *o, size_t n)
{
	int code = 0;

	for (size_t i = 0; i < n; i++) {
		if (streq(verdict_of(&o[i]), "failed"))
			return EXIT_FAULTY;
		if (streq(verdict_of(&o[i]), "error"))
			code = EXIT_FAILURE;
	}
	return code;
}

int verb_verify(struct ctl *ctl, int argc, char **argv)
{
	_cleanup_(cp_inventory_free) struct cp_inventory inv = {0};
	_cleanup_(cp_nl_close) struct cp_nl nl = {};
	_cleanup_free_ struct outcome *o = NULL;
	struct verify_args args = {0};
	bool json = false, progress = isatty(STDERR_FILENO);
	uint16_t family;
	size_t n = 0;
	int r;

	r = parse_args(argc, argv, &args, &json);
	if (json && ctl->json == CTL_JSON_OFF)
		ctl->json = CTL_JSON_PRETTY;
	if (r == 0)
		r = ctl_inventory_load("verify", NULL, &inv);
	if (r != 0)
		return r;
	if (select_algs(&inv, &args, &o, &n) < 0)
		return ctl_errno(-ENOMEM, NULL, "verify");
	if (n == 0)
		return ctl_error("verify: no implementation matches");
	r = ctl_open_module("verify", &nl, &family);
	if (r != 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		if (progress)
			show_started(i, n, &o[i]);
		verify_one(&nl, &args, &o[i]);
		if (progress)
			show_ended(i, n, &o[i]);
	}
	if (ctl->json != CTL_JSON_OFF)
		print_json(o, n, &args);
	else if (print_table(ctl, o, n, &args) < 0)
		return ctl_errno(-ENOMEM, NULL, "verify");
	return exit_code(o, n);
}
