/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Summaries of repeated short runs: the median and how far the runs spread. */
#pragma once

#include <stdbool.h>

#define CP_STAT_MAX_RUNS 16

struct cp_stat {
	unsigned n;
	double median;
	double min, max;
	double mad; /* median absolute deviation from the median */
};

/* Summarise @n values (sorted in place). n == 0 gives all zeroes. */
void cp_stat_compute(double *values, unsigned n, struct cp_stat *stat);

/*
 * Whether the difference between two summaries is noise: their ranges
 * [min, max] overlap, or their medians differ by less than
 * CP_STAT_NOISE_FLOOR of the larger (single runs have no range).
 */
#define CP_STAT_NOISE_FLOOR 0.03
bool cp_stat_within_noise(const struct cp_stat *a, const struct cp_stat *b);
