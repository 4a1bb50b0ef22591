// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: one CALIBRATE: allocate the driver, check its answers against
 * the reference (kat.c), then time it and measure what it costs the CPUs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/err.h>
#include <linux/math64.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "types.h"

/*
 * The machine's own load is measured twice, with nothing of ours running,
 * just before and just after a run, each time for a sixteenth of its
 * budget (2 to 10 ms); the lower figure is subtracted, so a transient on
 * one side (a helper the kernel started for a lookup) does not eat the
 * run's own cost.
 */
#define CP_BASELINE_MIN_US	2000
#define CP_BASELINE_MAX_US	10000

/* The machine's load, counted both ways, in CPU ns per ns of wall time (ppm). */
struct cp_cpu_load {
	u64 by_idle_ppm;
	u64 by_tasks_ppm;
};

/* The machine's load while nothing of ours runs. */
static void cp_cpu_baseline(u64 budget_ns, struct cp_cpu_load *load)
{
	u64 us = clamp_t(u64, div_u64(budget_ns, 16 * NSEC_PER_USEC),
			 CP_BASELINE_MIN_US, CP_BASELINE_MAX_US);
	struct cp_cpu_mark m;
	struct cp_cpu_busy b;
	u64 wall;

	cp_cpu_mark(&m);
	usleep_range(us, us + us / 8);
	cp_cpu_busy_since(&m, &b);
	wall = max_t(u64, 1, b.wall_ns);
	load->by_idle_ppm = div64_u64(b.by_idle_ns * 1000000, wall);
	load->by_tasks_ppm = div64_u64(b.by_tasks_ns * 1000000, wall);
}

/* The lower of two loads, count by count. */
static void cp_cpu_load_min(struct cp_cpu_load *load, const struct cp_cpu_load *other)
{
	load->by_idle_ppm = min(load->by_idle_ppm, other->by_idle_ppm);
	load->by_tasks_ppm = min(load->by_tasks_ppm, other->by_tasks_ppm);
}

/* @busy less a load of @ppm over @wall_ns, or 0. */
static u64 cp_above_load(u64 busy, u64 ppm, u64 wall_ns)
{
	u64 load = div_u64(wall_ns * ppm, 1000000);

	return busy > load ? busy - load : 0;
}

/*
 * What the run cost the CPUs: by each count (cpu.c), the machine's busy
 * time above its own load, the larger of the two, but never less than the
 * time of the thread that ran it, where a synchronous driver does all its
 * work. The load is measured beside the run and subtracted whole, though
 * the run displaced the part of it that shared its CPU: with a second VM
 * on the host, a 100 ms run of cbc-aes-aesni on 6.1 came out at 0 ns.
 */
static u64 cp_run_cost(const struct cp_cpu_busy *b, const struct cp_cpu_load *load,
		       u64 own)
{
	u64 by_idle = cp_above_load(b->by_idle_ns, load->by_idle_ppm, b->wall_ns);
	u64 by_tasks = cp_above_load(b->by_tasks_ns, load->by_tasks_ppm, b->wall_ns);

	return max3(by_idle, by_tasks, own);
}

static int cp_timed_run(struct cp_run *run, const struct cp_params *p,
			struct cp_result *res, struct netlink_ext_ack *extack)
{
	struct cp_cpu_load load, after;
	struct cp_cpu_mark m;
	struct cp_cpu_busy b;
	u64 own;
	int r;

	cp_cpu_baseline(p->budget_ns, &load);
	own = current->se.sum_exec_runtime;
	cp_cpu_mark(&m);
	r = cp_run_go(run, false, p->budget_ns, p->grace_ns, &res->wall_ns);
	cp_cpu_busy_since(&m, &b);
	own = current->se.sum_exec_runtime - own;
	if (r == CP_RUN_ABANDONED) {
		NL_SET_ERR_MSG(extack, "requests did not complete within the budget plus the grace period");
		return r;
	}
	if (r) {
		/* its own error, whatever it is: -ETIMEDOUT from mxs-dcp */
		NL_SET_ERR_MSG(extack, "the driver failed a request");
		return r;
	}
	cp_cpu_baseline(p->budget_ns, &after);
	cp_cpu_load_min(&load, &after);
	res->requests = atomic64_read(&run->requests);
	res->bytes = res->requests * p->req_size;
	res->cpu_ns = cp_run_cost(&b, &load, own);
	res->max_in_flight = atomic_read(&run->max_outstanding);
	return 0;
}

static int cp_check_geometry(const struct cp_params *p,
			     const struct cp_type_ops *ops,
			     const struct cp_geometry *g,
			     struct netlink_ext_ack *extack)
{
	size_t bytes;
	int r;

	r = ops->check ? ops->check(p, g, extack) : 0;
	if (r)
		return r;
	if (ops->whole_blocks && g->blocksize > 1 &&
	    p->req_size % g->blocksize) {
		NL_SET_ERR_MSG(extack, "request size is not a multiple of the block size");
		return -EINVAL;
	}
	bytes = cp_run_bytes(ops, g, p->req_size, p->depth, p->decrypt);
	if (bytes > CP_MAX_RUN_BYTES) {
		NL_SET_ERR_MSG(extack, "depth x request size needs more than 64 MiB of buffers");
		return -EINVAL;
	}
	return cp_zombie_check(p->driver, bytes, extack);
}

int cp_alloc_candidate(const char *driver, enum cryptoprio_type type,
		       struct cp_tfm *t, struct netlink_ext_ack *extack)
{
	const struct cp_type_ops *ops = cp_type_ops(type);
	int r;

	/*
	 * NOLOAD spares a module for the name itself only: a driver name of a
	 * template instance not registered ("cbc(camellia-generic)") is built,
	 * and the build loads what its template and arguments need. Asking to
	 * calibrate it asks for that; cryptoprioctl says what was loaded.
	 */
	r = ops->alloc(t, driver, 0, CRYPTO_NOLOAD);
	if (r) {
		if (r == -ENOENT)
			NL_SET_ERR_MSG(extack, "no such driver of this type");
		else if (r == -ELIBBAD)
			NL_SET_ERR_MSG(extack, "the driver failed the kernel's self-test: not calibrated");
		else
			NL_SET_ERR_MSG(extack, "cannot allocate the driver");
		return r;
	}
	if (strcmp(ops->driver_name(t), driver)) {
		NL_SET_ERR_MSG(extack, "an algorithm name, not a driver name");
		ops->free(t);
		return -EINVAL;
	}
	return 0;
}

int cp_calibrate(const struct cp_params *p, struct cp_result *res,
		 struct netlink_ext_ack *extack)
{
	const struct cp_type_ops *ops = cp_type_ops(p->type);
	u8 key[CRYPTOPRIO_MAX_KEY_SIZE + CP_HMAC_KEY_LEN];
	struct cp_tfm t = { .type = p->type };
	struct cp_geometry g = {};
	struct cp_run *run;
	int r;

	r = cp_alloc_candidate(p->driver, p->type, &t, extack);
	if (r)
		return r;
	ops->geometry(&t, &g);
	r = cp_check_geometry(p, ops, &g, extack);
	if (r)
		goto free_tfm;
	res->key_size = p->key_size ? p->key_size : g.key_default;
	get_random_bytes(key, sizeof(key));
	if (res->key_size) {
		r = ops->setkey(&t, &g, key, res->key_size);
		if (r) {
			NL_SET_ERR_MSG(extack, "the driver refused the key size");
			if (extack && ops->key_refused)
				extack->_msg = ops->key_refused;
			goto free_tfm;
		}
	}

	run = cp_run_alloc(&t, &g, p->req_size, p->depth, p->decrypt);
	if (!run) {
		NL_SET_ERR_MSG(extack, "out of memory for the requests");
		r = -ENOMEM;
		goto free_tfm;
	}
	r = cp_known_answer(run, key, res->key_size, p->grace_ns, res, extack);
	if (!r)
		r = cp_timed_run(run, p, res, extack);
	/* given up on with requests out: the run is a zombie now */
	if (r != CP_RUN_ABANDONED)
		cp_run_free(run);
	goto out_key;
free_tfm:
	ops->free(&t);
out_key:
	memzero_explicit(key, sizeof(key));
	return r;
}
