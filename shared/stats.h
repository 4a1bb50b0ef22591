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

/*
 * A summary's noise as the planner weighs it: three median absolute
 * deviations (about two standard deviations), at least half the floor
 * above. Not the range of the runs: one run slowed by the host (an
 * engine's first run at depth 8 under TCG) would make a 7x lead look like
 * noise. Two figures are apart when they differ by more than the sum of
 * their noises.
 */
double cp_stat_noise(const struct cp_stat *s);

/*
 * Whether a summary is too noisy to decide an order (@higher_better: of
 * a throughput, else of a time or a cost): its best run more than twice
 * as good as its median. A host's load only ever slows a run, so a
 * median at less than half of what a run showed is a figure of the host,
 * not of the implementation (virtio-crypto at 64 KiB under load: 6.52
 * MB/s, with a run at 163; 357 idle). A quiet machine, or one beside
 * another VM, spreads its runs by tens of percent at most; a slow first
 * run (an engine's queue filling under TCG) pulls the worst run, not the
 * best, and is no reason to distrust the median.
 */
bool cp_stat_too_noisy(const struct cp_stat *s, bool higher_better);
