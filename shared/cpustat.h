/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a run costs the whole machine in CPU time, and the clock it is
 * measured by: a fast run can still keep every CPU busy.
 */
#pragma once

#include <stdint.h>

/* Busy time of all CPUs since boot in ns, from /proc/stat (tick resolution). */
int cp_cpustat_busy_ns(uint64_t *ret);
/* The same from a /proc/stat text, for tests. */
int cp_cpustat_parse(const char *text, long ticks_per_second, uint64_t *ret);

/* CLOCK_MONOTONIC in ns. */
uint64_t cp_now_ns(void);
