/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What apply's calibration gave, for the planner: the runs of each point
 * merged, the figures as planner measurements, the names left unmeasured
 * (apply-measurements.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "apply-measurements.h"
#include "macro.h"
#include "stats.h"

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static bool has_unmeasured_point(const struct cp_measured *m)
{
	for (size_t i = 0; i < m->n_points; i++)
		if (m->points[i].verdict == CP_VERDICT_UNMEASURED)
			return true;
	return false;
}

static bool names_have(char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (streq(names[i], name))
			return true;
	return false;
}

int cp_apply_names_unmeasured(const struct cp_calibration *cal, char ***ret)
{
	char **names = NULL;
	size_t n = 0;

	for (size_t i = 0; i < cal->n_measured; i++) {
		const struct cp_measured *m = &cal->measured[i];

		if (!has_unmeasured_point(m) || names_have(names, n, m->name))
			continue;
		if (cp_strv_push(&names, &n, m->name) < 0) {
			cp_strv_free(names, n);
			return -ENOMEM;
		}
	}
	if (n > 1)
		qsort(names, n, sizeof(*names), compare_names);
	*ret = names;
	return (int) n;
}

static int merge_points(struct cp_measured *into, struct cp_measured *from)
{
	struct cp_point *points =
	    reallocarray(into->points, into->n_points + from->n_points, sizeof(*points));

	if (!points)
		return -ENOMEM;
	memcpy(points + into->n_points, from->points, from->n_points * sizeof(*points));
	into->points = points;
	into->n_points += from->n_points;
	if (from->kat == CRYPTOPRIO_KAT_MISMATCH || into->kat == CRYPTOPRIO_KAT_UNSUPPORTED)
		into->kat = from->kat;
	if (into->backend == CP_BACKEND_NONE)
		into->backend = from->backend;
	/* the later verification stands, unless the earlier failed */
	if (from->verified.state != CP_VERIFICATION_NONE &&
	    into->verified.state != CP_VERIFICATION_FAILED)
		into->verified = from->verified;
	into->pending |= from->pending;
	free(from->points);
	from->points = NULL;
	from->n_points = 0;
	return 0;
}

static int merge_measured(struct cp_calibration *into, struct cp_calibration *from)
{
	for (size_t i = 0; i < from->n_measured; i++) {
		struct cp_measured *m =
		    (struct cp_measured *) cp_calibration_find(into, from->measured[i].driver);
		struct cp_measured *all;

		if (m) {
			if (merge_points(m, &from->measured[i]) < 0)
				return -ENOMEM;
			continue;
		}
		all = reallocarray(into->measured, into->n_measured + 1, sizeof(*all));
		if (!all)
			return -ENOMEM;
		into->measured = all;
		all[into->n_measured++] = from->measured[i];
		from->measured[i] = (struct cp_measured){};
	}
	return 0;
}

static int merge_skipped(struct cp_calibration *into, struct cp_calibration *from)
{
	struct cp_skipped *all;

	if (from->n_skipped == 0)
		return 0;
	all = reallocarray(into->skipped, into->n_skipped + from->n_skipped, sizeof(*all));
	if (!all)
		return -ENOMEM;
	into->skipped = all;
	for (size_t i = 0; i < from->n_skipped; i++) {
		bool dup = false;

		for (size_t k = 0; k < into->n_skipped && !dup; k++)
			dup = strcmp(all[k].driver, from->skipped[i].driver) == 0;
		if (!dup)
			all[into->n_skipped++] = from->skipped[i];
	}
	return 0;
}

static void merge_summary(struct cp_calibration *into, const struct cp_calibration *from)
{
	if (from->backend != CP_BACKEND_NONE)
		into->backend = from->backend;
	if (from->module_error)
		into->module_error = from->module_error;
	into->elapsed_ns += from->elapsed_ns;
	into->n_from_cache += from->n_from_cache;
	into->n_run += from->n_run;
	into->n_unmeasured += from->n_unmeasured;
	into->n_pending_names += from->n_pending_names;
	into->n_noisy_names += from->n_noisy_names;
	into->n_unverified += from->n_unverified;
	into->cache_updated |= from->cache_updated;
	if (from->cache_warning[0])
		memcpy(into->cache_warning, from->cache_warning, sizeof(into->cache_warning));
	if (from->cache_oldest && (!into->cache_oldest || from->cache_oldest < into->cache_oldest))
		into->cache_oldest = from->cache_oldest;
}

int cp_calibration_merge(struct cp_calibration *into, struct cp_calibration *from)
{
	int r;

	r = merge_measured(into, from);
	if (r >= 0)
		r = merge_skipped(into, from);
	merge_summary(into, from);
	cp_calibration_free(from);
	memset(from, 0, sizeof(*from));
	return r;
}

/* A measurement for the planner: the median, its noise (cp_stat_noise()), whether it decides. */
static struct cp_metric metric_of(const struct cp_stat *s, bool higher_better)
{
	return (struct cp_metric){.value = s->median,
				  .noise = cp_stat_noise(s),
				  .spread = (s->max - s->min) / 2,
				  .too_noisy = cp_stat_too_noisy(s, higher_better)};
}

static enum cp_measurement_state state_of(enum cp_verdict verdict)
{
	switch (verdict) {
	case CP_VERDICT_MEASURED:
		return CP_MEASUREMENT_MEASURED;
	case CP_VERDICT_FAULTY:
		return CP_MEASUREMENT_FAULTY;
	case CP_VERDICT_TIMEOUT:
		return CP_MEASUREMENT_TIMEOUT;
	case CP_VERDICT_UNREACHABLE:
		return CP_MEASUREMENT_UNREACHABLE;
	case CP_VERDICT_UNMEASURED:
	case CP_VERDICT_ERROR:
		return CP_MEASUREMENT_NOT_MEASURED;
	}
	return CP_MEASUREMENT_NOT_MEASURED;
}

int cp_apply_measurements(const struct cp_calibration *cal, struct cp_measurement **ret)
{
	struct cp_measurement *ms;
	size_t n = 0;

	for (size_t i = 0; i < cal->n_measured; i++)
		n += cal->measured[i].n_points;
	ms = calloc(n ? n : 1, sizeof(*ms));
	if (!ms)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < cal->n_measured; i++) {
		const struct cp_measured *m = &cal->measured[i];

		for (size_t k = 0; k < m->n_points; k++, n++) {
			const struct cp_point *p = &m->points[k];

			cp_strscpy(ms[n].driver, sizeof(ms[n].driver), m->driver);
			ms[n].request_size = p->size;
			ms[n].in_flight = p->depth;
			ms[n].state = state_of(p->verdict);
			ms[n].verified = m->verified.state == CP_VERIFICATION_PASSED;
			if (m->verified.state == CP_VERIFICATION_FAILED ||
			    m->verified.state == CP_VERIFICATION_NOT_RUN)
				cp_strscpy(ms[n].verification, sizeof(ms[n].verification),
					   m->verified.text);
			if (ms[n].state != CP_MEASUREMENT_MEASURED)
				continue;
			ms[n].throughput = metric_of(&p->mbps, true);
			ms[n].latency = metric_of(&p->ns_per_request, false);
			ms[n].cpu_cost = metric_of(&p->cpu_ns_per_byte, false);
			if (p->compressed_size)
				ms[n].ratio = (struct cp_metric){.value = (double) p->size /
									  p->compressed_size};
		}
	}
	*ret = ms;
	return (int) n;
}
