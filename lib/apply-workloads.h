/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which points apply calibrates, and which names it applies: pure, for the
 * pipeline (apply.c), the run's files and their unit tests.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inventory.h"
#include "policy.h"

/*
 * The workload points to calibrate: the names that compete, grouped by
 * (RequestSize, InFlight) and by whether the CPU's candidates are measured.
 */
struct cp_workload {
	uint32_t size, depth;
	/*
	 * Gears = any: only there a candidate's figures decide its place; the
	 * other gears put it in the CPU's gear whatever it measures.
	 */
	bool candidates;
	char **names; /* fnmatch patterns matching exactly these names (escaped) */
	size_t n_names;
};

/*
 * Group every name with two or more competing implementations (template
 * instances aside, as the planner; the CPU's candidate counted where the
 * name's Gears = any) by its settings' point; with @only_drivers, only
 * names one of whose drivers matches. Returns the count or -ENOMEM; free
 * with cp_workloads_free().
 */
int cp_apply_workloads(const struct cp_inventory *inv, const struct cp_policy *policy,
		       char *const *only_drivers, size_t n_only_drivers, struct cp_workload **ret);
void cp_workloads_free(struct cp_workload *w, size_t n);
/*
 * @name's pattern into the group of the point and candidates of @s, added
 * if new, unless a group has it already. Returns 0 or -ENOMEM.
 */
int cp_workloads_add_name(struct cp_workload **w, size_t *n, const char *name,
			  const struct cp_settings *s);
/* Whether one of @w's @n groups has the name pattern @pattern. */
bool cp_workloads_have(const struct cp_workload *w, size_t n, const char *pattern);

/* Whether @name's planned steps are to be applied given @only_drivers (none: all). */
bool cp_apply_name_selected(const struct cp_inventory *inv, const char *name,
			    char *const *only_drivers, size_t n_only_drivers);
