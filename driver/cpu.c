// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: the CPU time a run costs the machine.
 *
 * By idle time: every online CPU's wall time less its idle and iowait
 * time, as the idle loop accounts them. That counts everything the CPUs
 * did, an engine driver's interrupts and softirqs on an otherwise idle
 * CPU included, as precisely as the kernel accounts idle time: Linux 6.x
 * stamps every entry to and exit from idle (NO_HZ).
 *
 * By task run time: the scheduler's exact run time of every task
 * (kworkers, threaded interrupts and ksoftirqd included), read from the
 * task list under RCU. Exact on every kernel, but blind to interrupt
 * time spent on the idle task.
 *
 * calibrate.c measures the machine's own load both ways, subtracts each
 * from its count, and takes the larger remainder.
 *
 * Linux 7.x stamps only the idle periods in which the tick is stopped and
 * samples the others at the tick (4 ms a sample at HZ=250), and the short
 * sleeps of an engine between requests keep the tick: on 7.2 under QEMU,
 * a 1 ms-latency engine's 64 KiB requests came out at 0 to 5 ms of busy
 * time per 100 ms run where 6.12 counted 12 to 25 ms, and with a second
 * CPU online a 2 ms-latency engine at 1.1 to 1.7 ms per request, most of
 * its sleep. There (CP_IDLE_TIME_SAMPLED, set by Kbuild) only the task
 * run time counts.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/kernel_stat.h>
#include <linux/math64.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/tick.h>

#include "cryptoprio.h"

#ifdef CP_IDLE_TIME_SAMPLED
static const bool cp_idle_time_sampled = true;
#else
static const bool cp_idle_time_sampled;
#endif

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

/*
 * The run time of every task. A task that exits between two marks takes
 * its time with it, one that starts brings all of its own: both are rare
 * during a run of at most a few seconds, and only make the count noisier.
 */
static u64 cp_tasks_runtime_ns(void)
{
	struct task_struct *g, *t;
	u64 sum = 0;

	rcu_read_lock();
	for_each_process_thread(g, t)
		sum += READ_ONCE(t->se.sum_exec_runtime);
	rcu_read_unlock();
	return sum;
}

void cp_cpu_mark(struct cp_cpu_mark *m)
{
	int cpu;

	m->idle_us = 0;
	m->cpus = 0;
	m->task_ns = cp_tasks_runtime_ns();
	m->time = ktime_get();
	for_each_online_cpu(cpu) {
		/* where the idle count is not used (7.x), it is not read either */
		if (!cp_idle_time_sampled)
			m->idle_us += cp_cpu_idle_us(cpu);
		m->cpus++;
	}
}

void cp_cpu_busy_since(const struct cp_cpu_mark *m, struct cp_cpu_busy *b)
{
	struct cp_cpu_mark end;
	u64 idle;

	cp_cpu_mark(&end);
	b->end = end.time;
	b->wall_ns = ktime_to_ns(ktime_sub(end.time, m->time));
	b->by_tasks_ns = end.task_ns > m->task_ns ? end.task_ns - m->task_ns : 0;
	/* a CPU that went on- or offline meanwhile: no figure by idle time */
	b->by_idle_ns = 0;
	if (cp_idle_time_sampled || end.cpus != m->cpus ||
	    end.idle_us < m->idle_us)
		return;
	idle = (end.idle_us - m->idle_us) * NSEC_PER_USEC;
	if (b->wall_ns * m->cpus > idle)
		b->by_idle_ns = b->wall_ns * m->cpus - idle;
}
