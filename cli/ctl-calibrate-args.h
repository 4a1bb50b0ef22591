/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * calibrate's options, for the engine (ctl-calibrate.c) and --raw's probe
 * (ctl-calibrate-raw.c): one parser, each mode's options and values.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calib-point.h"
#include "cpmod.h"
#include "cryptoprioctl.h"

#define CALIBRATE_MAX_SIZES 16

struct calibrate_args {
	/* the engine's: + the workload point's size; --raw's: at most CALIBRATE_MAX_SIZES */
	uint32_t sizes[CALIBRATE_MAX_SIZES + 1];
	size_t n_sizes;
	bool sizes_given; /* --size: otherwise cp_mod_request_size() where it fixes one (--raw) */
	uint32_t workload_size, depth;
	uint64_t budget_ns;
	bool force, depth_set, budget_set;
	enum cp_backend backend;
	/* --chart: drawn after the table; --chart=svg FILE: written to FILE ("-": stdout) */
	bool chart;
	const char *chart_svg;
	/* --raw's alone */
	uint32_t key_size;
	bool decrypt;
	enum cryptoprio_type type; /* for names the inventory does not list */
};

/*
 * The options of `calibrate` or, with @raw, of `calibrate --raw` into @a
 * (its defaults set by the caller): 0, or the exit code after saying what
 * is wrong. The operands are argv[optind..].
 */
int calibrate_parse_args(struct ctl *ctl, int argc, char **argv, bool raw,
			 struct calibrate_args *a);
/* @size added to the engine's sizes unless there: 0, or -E2BIG. */
int calibrate_add_size(struct calibrate_args *a, uint32_t size);
