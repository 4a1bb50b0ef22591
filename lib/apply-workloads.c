/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which points apply calibrates: the names that compete, grouped by their
 * settings' point (apply-workloads.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "apply-workloads.h"
#include "calibrate.h"
#include "macro.h"
#include "pattern.h"
#include "planner.h"

/* A name as an fnmatch pattern that matches only itself. */
static char *escape_pattern(const char *name)
{
	char *out = malloc(2 * strlen(name) + 1), *p = out;

	if (!out)
		return NULL;
	for (const char *s = name; *s; s++) {
		if (strchr("*?[]\\", *s))
			*p++ = '\\';
		*p++ = *s;
	}
	*p = '\0';
	return out;
}

/* Measured for apply: what the planner orders (rsa is calibrated, not ordered). */
static bool planned_name_competes(const struct cp_alg *alg)
{
	return cp_alg_competes(alg) && !cp_driver_is_template_instance(alg->driver) &&
	       cp_plan_orders_type(alg->type);
}

/*
 * Whether an engine of @name goes above the CPU only once verified
 * (cp_plan_wants_verification()) and something of the CPU's would be
 * placed before it meanwhile: an implementation registered, a template
 * instance cryptoprio created among them, or the candidate to create. The
 * calibration verifies it, and so measures its name where nothing else
 * competes by its figures (an engine's authenc() under Gears = offload
 * cpu).
 */
static bool verification_wanted(const struct cp_inventory *inv, const struct cp_policy *policy,
				const char *name, const struct cp_settings *s)
{
	bool wanted = false, cpu = false;

	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *alg = &inv->algs[i];

		if (!streq(alg->name, name) || !cp_alg_competes(alg))
			continue;
		cpu |= alg->class == CP_CLASS_CPU;
		wanted |= planned_name_competes(alg) && cp_plan_wants_verification(policy, s, alg);
	}
	return wanted && (cpu || cp_calibration_competitors(inv, name) >= 2);
}

/*
 * Registered implementations competing for @name, or, @with_candidate,
 * those calibration would measure, the CPU's candidate counted.
 */
static size_t competitors(const struct cp_inventory *inv, const char *name, bool with_candidate)
{
	size_t n = 0, measured;

	for (size_t i = 0; i < inv->n_algs; i++)
		n += streq(inv->algs[i].name, name) && planned_name_competes(&inv->algs[i]);
	measured = with_candidate ? cp_calibration_competitors(inv, name) : 0;

	return measured > n ? measured : n;
}

bool cp_apply_name_selected(const struct cp_inventory *inv, const char *name,
			    char *const *only_drivers, size_t n_only_drivers)
{
	if (n_only_drivers == 0)
		return true;
	for (size_t i = 0; i < inv->n_algs; i++) {
		if (!streq(inv->algs[i].name, name))
			continue;
		for (size_t k = 0; k < n_only_drivers; k++)
			if (cp_pattern_match(only_drivers[k], inv->algs[i].driver))
				return true;
	}
	return false;
}

void cp_workloads_free(struct cp_workload *w, size_t n)
{
	for (size_t i = 0; w && i < n; i++) {
		for (size_t k = 0; k < w[i].n_names; k++)
			free(w[i].names[k]);
		free(w[i].names);
	}
	free(w);
}

bool cp_workloads_have(const struct cp_workload *w, size_t n, const char *pattern)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < w[i].n_names; k++)
			if (streq(w[i].names[k], pattern))
				return true;
	return false;
}

/* The group for the point and candidates of @s, added if new; NULL on ENOMEM. */
static struct cp_workload *workload_for(struct cp_workload **w, size_t *n,
					const struct cp_settings *s)
{
	bool candidates = s->gears == CP_GEARS_ANY;
	struct cp_workload *all;

	for (size_t i = 0; i < *n; i++)
		if ((*w)[i].size == s->request_size && (*w)[i].depth == s->in_flight &&
		    (*w)[i].candidates == candidates)
			return &(*w)[i];
	all = reallocarray(*w, *n + 1, sizeof(*all));
	if (!all)
		return NULL;
	*w = all;
	all[*n] = (struct cp_workload){
	    .size = s->request_size, .depth = s->in_flight, .candidates = candidates};
	return &all[(*n)++];
}

static int add_name(struct cp_workload *w, char *pattern)
{
	char **names = reallocarray(w->names, w->n_names + 1, sizeof(*names));

	if (!names)
		return -ENOMEM;
	w->names = names;
	names[w->n_names++] = pattern;
	return 0;
}

int cp_workloads_add_name(struct cp_workload **w, size_t *n, const char *name,
			  const struct cp_settings *s)
{
	_cleanup_free_ char *pattern = escape_pattern(name);
	struct cp_workload *group;

	if (!pattern)
		return -ENOMEM;
	if (cp_workloads_have(*w, *n, pattern))
		return 0;
	group = workload_for(w, n, s);
	if (!group || add_name(group, pattern) < 0)
		return -ENOMEM;
	pattern = NULL;
	return 0;
}

int cp_apply_workloads(const struct cp_inventory *inv, const struct cp_policy *policy,
		       char *const *only_drivers, size_t n_only_drivers, struct cp_workload **ret)
{
	struct cp_workload *w = NULL;
	const char *last = NULL; /* the name looked at last */
	size_t n = 0;

	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *alg = &inv->algs[i];
		struct cp_settings s;

		/* A name's entries are adjacent in a loaded (sorted) inventory: looked at once. */
		if (!planned_name_competes(alg) || (last && streq(last, alg->name)) ||
		    !cp_apply_name_selected(inv, alg->name, only_drivers, n_only_drivers))
			continue;
		last = alg->name;
		cp_policy_algorithm(policy, alg->name, &s);
		if (competitors(inv, alg->name, s.gears == CP_GEARS_ANY) < 2 &&
		    !verification_wanted(inv, policy, alg->name, &s))
			continue;
		if (cp_workloads_add_name(&w, &n, alg->name, &s) < 0)
			goto oom;
	}
	*ret = w;
	return (int) n;
oom:
	cp_workloads_free(w, n);
	return -ENOMEM;
}
