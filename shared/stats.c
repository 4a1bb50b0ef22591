/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Median, median absolute deviation and noise of repeated runs (stats.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return x < y ? -1 : x > y;
}

static double sorted_median(const double *sorted, unsigned n)
{
	return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

void cp_stat_compute(double *values, unsigned n, struct cp_stat *stat)
{
	double deviations[CP_STAT_MAX_RUNS];

	memset(stat, 0, sizeof(*stat));
	if (n == 0)
		return;
	if (n > CP_STAT_MAX_RUNS)
		n = CP_STAT_MAX_RUNS;
	qsort(values, n, sizeof(*values), compare_doubles);
	stat->n = n;
	stat->median = sorted_median(values, n);
	stat->min = values[0];
	stat->max = values[n - 1];
	for (unsigned i = 0; i < n; i++)
		deviations[i] = fabs(values[i] - stat->median);
	qsort(deviations, n, sizeof(*deviations), compare_doubles);
	stat->mad = sorted_median(deviations, n);
}

bool cp_stat_within_noise(const struct cp_stat *a, const struct cp_stat *b)
{
	double larger = fmax(fabs(a->median), fabs(b->median));

	if (a->n == 0 || b->n == 0)
		return false;
	if (fabs(a->median - b->median) <= CP_STAT_NOISE_FLOOR * larger)
		return true;
	return a->n > 1 && b->n > 1 && a->min <= b->max && b->min <= a->max;
}

double cp_stat_noise(const struct cp_stat *s)
{
	return fmax(3 * s->mad, fabs(s->median) * CP_STAT_NOISE_FLOOR / 2);
}

bool cp_stat_too_noisy(const struct cp_stat *s, bool higher_better)
{
	if (s->n < 2)
		return false;
	return higher_better ? s->max > 2 * s->median : s->min < s->median / 2;
}
