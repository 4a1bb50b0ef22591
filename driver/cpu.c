// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: the CPU time a run costs the machine.
 *
 * Busy time is every online CPU's wall time less its idle and iowait time,
 * as the idle loop accounts them (precise under NO_HZ, where the kernel
 * stamps every entry to and exit from idle; the tick-sampled per-CPU
 * statistics otherwise). So it counts everything the CPUs did: the
 * caller's submissions, the engine driver's interrupts, softirqs, tasklets
 * and kworkers — and any unrelated load, which calibrate.c measures just
 * before and after the run and subtracts.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/kernel_stat.h>
#include <linux/math64.h>
#include <linux/tick.h>

#include "cryptoprio.h"

static u64 cp_cpu_idle_us(int cpu)
{
	u64 idle = get_cpu_idle_time_us(cpu, NULL);
	u64 iowait = get_cpu_iowait_time_us(cpu, NULL);
	struct kernel_cpustat kcs;

	if (idle != (u64)-1 && iowait != (u64)-1)
		return idle + iowait;
	/* NO_HZ inactive: the tick's statistics */
	kcpustat_cpu_fetch(&kcs, cpu);
	return div_u64(kcs.cpustat[CPUTIME_IDLE] + kcs.cpustat[CPUTIME_IOWAIT],
		       NSEC_PER_USEC);
}

void cp_cpu_mark(struct cp_cpu_mark *m)
{
	int cpu;

	m->idle_us = 0;
	m->cpus = 0;
	m->time = ktime_get();
	for_each_online_cpu(cpu) {
		m->idle_us += cp_cpu_idle_us(cpu);
		m->cpus++;
	}
}

u64 cp_cpu_busy_since(const struct cp_cpu_mark *m, ktime_t *now)
{
	struct cp_cpu_mark end;
	u64 wall, idle;

	cp_cpu_mark(&end);
	if (now)
		*now = end.time;
	/* a CPU that went on- or offline meanwhile: no figure */
	if (end.cpus != m->cpus || end.idle_us < m->idle_us)
		return 0;
	wall = ktime_to_ns(ktime_sub(end.time, m->time)) * m->cpus;
	idle = (end.idle_us - m->idle_us) * NSEC_PER_USEC;
	return wall > idle ? wall - idle : 0;
}
