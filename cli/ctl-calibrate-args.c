/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * calibrate's options, for both modes: the engine's and --raw's each take
 * their own, and their own ranges of sizes, depths and budgets.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-calibrate-args.h"
#include "types.h"
#include "units.h"

int calibrate_add_size(struct calibrate_args *a, uint32_t size)
{
	for (size_t i = 0; i < a->n_sizes; i++)
		if (a->sizes[i] == size)
			return 0;
	if (a->n_sizes == ARRAY_SIZE(a->sizes))
		return -E2BIG;
	a->sizes[a->n_sizes++] = size;
	return 0;
}

/* The engine's sizes: 16..1M bytes each, duplicates dropped. */
static int parse_size_list(const char *arg, struct calibrate_args *a)
{
	_cleanup_free_ char *copy = strdup(arg);
	char *save = NULL;
	uint32_t size;

	if (!copy)
		return -ENOMEM;
	a->n_sizes = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (cp_parse_size(t, &size) < 0 || a->n_sizes == CALIBRATE_MAX_SIZES ||
		    calibrate_add_size(a, size) < 0)
			return -EINVAL;
	return a->n_sizes ? 0 : -EINVAL;
}

/* --raw's sizes: any u32, as given. */
static int parse_raw_sizes(const char *arg, struct calibrate_args *o)
{
	_cleanup_free_ char *copy = strdup(arg);
	char *save = NULL;

	if (!copy)
		return -ENOMEM;
	o->n_sizes = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (o->n_sizes == CALIBRATE_MAX_SIZES)
			return -E2BIG;
		/* No range beyond u32: the module enforces its limits and says why. */
		if (cp_parse_size_range(t, 0, UINT32_MAX, &o->sizes[o->n_sizes]) < 0)
			return -EINVAL;
		o->n_sizes++;
	}
	return o->n_sizes ? 0 : -EINVAL;
}

static int parse_u32(const char *s, uint32_t *ret)
{
	uint64_t v;
	int r = cp_parse_uint(s, 0, UINT32_MAX, &v);

	if (r >= 0)
		*ret = (uint32_t) v;
	return r;
}

static int parse_sizes(const char *arg, bool raw, struct calibrate_args *a)
{
	if (raw) {
		a->sizes_given = true;
		if (parse_raw_sizes(arg, a) < 0)
			return ctl_usage_error("calibrate: bad --size '%s' (N[,N...], N in bytes "
					       "or with K, KiB, M, MiB)",
					       arg);
		return 0;
	}
	if (parse_size_list(arg, a) < 0)
		return ctl_usage_error("calibrate: bad --size '%s' (N[,N...] of 16..1M bytes, "
				       "at most %d; K, KiB, M, MiB)",
				       arg, CALIBRATE_MAX_SIZES);
	return 0;
}

static int parse_depth(const char *arg, bool raw, struct calibrate_args *a)
{
	uint64_t value;

	if (raw)
		return parse_u32(arg, &a->depth) < 0
			   ? ctl_usage_error("calibrate: bad --depth '%s'", arg)
			   : 0;
	if (cp_parse_uint(arg, CP_IN_FLIGHT_MIN, CP_IN_FLIGHT_MAX, &value) < 0)
		return ctl_usage_error("calibrate: bad --depth '%s' (1..64)", arg);
	a->depth = (uint32_t) value;
	a->depth_set = true;
	return 0;
}

/* The engine's budget: 1ms..1min, a bare number seconds; --raw's: any, a bare number ms. */
static int parse_budget(const char *arg, bool raw, struct calibrate_args *a)
{
	uint64_t usec;

	if (raw) {
		/* No range: the module enforces its own and says why. */
		if (cp_parse_timespan(arg, CP_USEC_PER_MSEC, &usec) < 0 || usec > UINT64_MAX / 1000)
			return ctl_usage_error("calibrate: bad --budget '%s' (a time span: 200ms, "
					       "1s; a bare number is milliseconds)",
					       arg);
		a->budget_ns = usec * 1000;
		return 0;
	}
	if (cp_parse_duration(arg, &usec) < 0)
		return ctl_usage_error("calibrate: bad --budget '%s' (a time span of 1ms..1min: "
				       "500ms, 1s 500ms; a bare number is seconds)",
				       arg);
	a->budget_ns = usec * 1000;
	a->budget_set = true;
	return 0;
}

/*
 * --chart, or --chart=svg FILE: FILE is the argument after it, taken here
 * (getopt_long moves what it skipped past it, so it is no PATTERN).
 */
static int parse_chart(int argc, char **argv, const char *arg, struct calibrate_args *a)
{
	a->chart = true;
	a->chart_svg = NULL;
	if (!arg)
		return 0;
	if (strcmp(arg, "svg") != 0)
		return ctl_usage_error("calibrate: bad --chart '%s' (--chart for the terminal, "
				       "--chart=svg FILE)",
				       arg);
	if (optind >= argc)
		return ctl_usage_error("calibrate: --chart=svg needs a FILE (- for standard "
				       "output)");
	a->chart_svg = argv[optind++];
	return 0;
}

/* What --chart cannot go with: --json on the same standard output. */
static int check_chart(const struct ctl *ctl, const struct calibrate_args *a)
{
	if (!a->chart || !ctl->json)
		return 0;
	if (!a->chart_svg)
		return ctl_usage_error(
		    "calibrate: --chart draws for a terminal, --json prints a "
		    "document: use --chart=svg FILE, or cryptoprioctl chart on the "
		    "document");
	if (strcmp(a->chart_svg, "-") == 0)
		return ctl_usage_error("calibrate: --chart=svg - and --json would both write to "
				       "standard output: give --chart=svg a FILE");
	return 0;
}

/* --type into @a: 0, or the exit code after saying what is wrong. */
static int parse_type(const char *arg, struct calibrate_args *a)
{
	char names[128];

	if (cp_mod_type_from_string(arg, &a->type) < 0)
		return ctl_usage_error("calibrate: bad --type '%s' (%s)", arg,
				       cp_type_names(names, sizeof(names)));
	return 0;
}

/* One option into @a: 0, or the exit code after saying what is wrong. */
static int parse_option(struct ctl *ctl, int c, const char *arg, bool raw, struct calibrate_args *a)
{
	switch (c) {
	case 's':
		return parse_sizes(arg, raw, a);
	case 'd':
		return parse_depth(arg, raw, a);
	case 'b':
		return parse_budget(arg, raw, a);
	case 'f':
		a->force = true;
		return 0;
	case 'B':
		if (cp_backend_from_string(arg, &a->backend) < 0 || a->backend == CP_BACKEND_NONE)
			return ctl_usage_error("calibrate: bad --backend '%s' (module, af_alg)",
					       arg);
		return 0;
	case 'D':
		a->decrypt = true;
		return 0;
	case 'k':
		return parse_u32(arg, &a->key_size) < 0
			   ? ctl_usage_error("calibrate: bad --key-size '%s'", arg)
			   : 0;
	case 't':
		return parse_type(arg, a);
	case 'j':
		ctl->json = true;
		return 0;
	case 'r':
		return 0;
	default:
		return ctl_option_error("calibrate", c);
	}
}

int calibrate_parse_args(struct ctl *ctl, int argc, char **argv, bool raw, struct calibrate_args *a)
{
	/* Each mode its options: another's is unknown, not abbreviated to one of its own. */
	static const struct option engine_options[] = {
	    {"size", required_argument, NULL, 's'},    {"depth", required_argument, NULL, 'd'},
	    {"budget", required_argument, NULL, 'b'},  {"force", no_argument, NULL, 'f'},
	    {"backend", required_argument, NULL, 'B'}, {"chart", optional_argument, NULL, 'C'},
	    {"json", no_argument, NULL, 'j'},	       {},
	};
	static const struct option raw_options[] = {
	    {"size", required_argument, NULL, 's'},
	    {"depth", required_argument, NULL, 'd'},
	    {"budget", required_argument, NULL, 'b'},
	    {"decrypt", no_argument, NULL, 'D'},
	    {"key-size", required_argument, NULL, 'k'},
	    {"type", required_argument, NULL, 't'},
	    {"json", no_argument, NULL, 'j'},
	    {"raw", no_argument, NULL, 'r'},
	    {},
	};
	const char *shorts = raw ? ":s:d:b:Dk:t:jr" : ":s:d:b:fB:j";
	int c, r;

	while ((c = getopt_long(argc, argv, shorts, raw ? raw_options : engine_options, NULL)) >=
	       0) {
		r = c == 'C' ? parse_chart(argc, argv, optarg, a)
			     : parse_option(ctl, c, optarg, raw, a);
		if (r != 0)
			return r;
	}
	return check_chart(ctl, a);
}
