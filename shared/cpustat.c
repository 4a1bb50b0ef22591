/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU busy time from /proc/stat and the monotonic clock (cpustat.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpustat.h"
#include "fileio.h"
#include "macro.h"

int cp_cpustat_parse(const char *text, long ticks_per_second, uint64_t *ret)
{
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal = 0;
	int n;

	if (strncmp(text, "cpu ", 4) != 0 || ticks_per_second <= 0)
		return -EBADMSG;
	n = sscanf(text + 4,
		   "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64,
		   &user, &nice, &system, &idle, &iowait, &irq, &softirq, &steal);
	if (n < 7)
		return -EBADMSG;
	/* Idle and I/O wait are not busy; guest time is already in user. */
	*ret = (user + nice + system + irq + softirq + steal) *
	       (1000000000ull / (uint64_t) ticks_per_second);
	return 0;
}

int cp_cpustat_busy_ns(uint64_t *ret)
{
	_cleanup_free_ char *text = NULL;
	int r;

	r = cp_read_file("/proc/stat", 1 << 20, &text, NULL);
	if (r < 0)
		return r;
	return cp_cpustat_parse(text, sysconf(_SC_CLK_TCK), ret);
}

uint64_t cp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}
