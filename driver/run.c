// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: the run engine. A run keeps up to depth requests in flight:
 * each slot's completion callback resubmits its request until the budget is
 * spent. A run whose requests do not all come back within the grace period
 * becomes a zombie: its memory and transform are kept for the engine that
 * may still write them, the module holds a reference on itself, and the
 * last late completion hands the run to a work item that frees it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/kernel_stat.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "cryptoprio.h"

static LIST_HEAD(cp_zombies);
static DEFINE_SPINLOCK(cp_zombie_lock);
static void cp_reap(struct work_struct *work);
static DECLARE_WORK(cp_reaper, cp_reap);

int cp_buf_alloc(struct cp_buf *b, unsigned int len)
{
	unsigned int n = DIV_ROUND_UP(len, PAGE_SIZE), i;
	struct scatterlist *sg;
	int r;

	b->len = len;
	r = sg_alloc_table(&b->sgt, n, GFP_KERNEL);
	if (r)
		return r;
	for_each_sg(b->sgt.sgl, sg, n, i) {
		struct page *page = alloc_page(GFP_KERNEL | __GFP_ZERO);

		if (!page) {
			/* the table is marked as ending here for cp_buf_free */
			sg_mark_end(sg);
			b->sgt.orig_nents = i;
			cp_buf_free(b);
			return -ENOMEM;
		}
		sg_set_page(sg, page, min_t(unsigned int, PAGE_SIZE, len), 0);
		len -= min_t(unsigned int, PAGE_SIZE, len);
	}
	return 0;
}

void cp_buf_free(struct cp_buf *b)
{
	struct scatterlist *sg;
	unsigned int i;

	if (!b->sgt.sgl)
		return;
	for_each_sg(b->sgt.sgl, sg, b->sgt.orig_nents, i)
		if (sg_page(sg))
			__free_page(sg_page(sg));
	sg_free_table(&b->sgt);
	b->sgt.sgl = NULL;
}

void cp_run_free(struct cp_run *run)
{
	u32 i;

	for (i = 0; i < run->depth; i++) {
		struct cp_slot *s = &run->slots[i];

		if (s->req)
			run->ops->req_free(s->req);
		cp_buf_free(&s->src);
		cp_buf_free(&s->dst);
		kfree(s->iv);
		kfree(s->out);
	}
	if (run->tfm.any)
		run->ops->free(&run->tfm);
	kfree(run);
}

static void cp_slot_done(struct cp_slot *slot, int err);

static void cp_complete(CP_COMPLETION_PARAMS)
{
	struct cp_slot *slot = cp_completion_data();

	/* a backlogged request has just entered the queue: not done yet */
	if (err == -EINPROGRESS)
		return;
	rcu_read_lock();	/* cp_zombies_exit() waits for callbacks */
	cp_slot_done(slot, err);
	rcu_read_unlock();
}

struct cp_run *cp_run_alloc(struct cp_tfm *t, const struct cp_geometry *g,
			    u32 req_size, u32 depth, bool decrypt)
{
	const struct cp_type_ops *ops = cp_type_ops(t->type);
	unsigned int len = g->assoclen + req_size + g->out_extra;
	struct cp_run *run;
	u32 i;

	run = kzalloc(struct_size(run, slots, depth), GFP_KERNEL);
	if (!run)
		return NULL;
	run->ops = ops;
	run->geo = *g;
	run->req_size = req_size;
	run->depth = depth;
	run->decrypt = decrypt;
	spin_lock_init(&run->lock);
	INIT_LIST_HEAD(&run->zombie_node);
	init_completion(&run->done);

	for (i = 0; i < depth; i++) {
		struct cp_slot *s = &run->slots[i];

		s->run = run;
		s->req = ops->req_alloc(t);
		if (!s->req)
			goto fail;
		if (cp_buf_alloc(&s->src, len))
			goto fail;
		if (t->type == CRYPTOPRIO_TYPE_AEAD && decrypt &&
		    cp_buf_alloc(&s->dst, len))
			goto fail;
		s->iv = kzalloc(max(g->ivsize, 1U), GFP_KERNEL);
		if (!s->iv)
			goto fail;
		if (g->digestsize) {
			s->out = kzalloc(g->digestsize, GFP_KERNEL);
			if (!s->out)
				goto fail;
		}
		ops->req_prepare(t, s, req_size, g, decrypt, cp_complete, s);
	}
	/* the run owns the transform from here on */
	run->tfm = *t;
	return run;

fail:
	cp_run_free(run);
	return NULL;
}

static void cp_note_outstanding(struct cp_run *run)
{
	int now = atomic_inc_return(&run->outstanding);
	int old = atomic_read(&run->max_outstanding);

	while (now > old) {
		int prev = atomic_cmpxchg(&run->max_outstanding, old, now);

		if (prev == old)
			break;
		old = prev;
	}
}

/* The slot will submit no more: the last one ends the run. */
static void cp_slot_retire(struct cp_run *run)
{
	unsigned long flags;
	bool reap = false;

	spin_lock_irqsave(&run->lock, flags);
	if (atomic_dec_and_test(&run->active)) {
		if (run->zombie)
			reap = true;
		else
			complete(&run->done);
	}
	spin_unlock_irqrestore(&run->lock, flags);
	if (reap)
		schedule_work(&cp_reaper);
}

static bool cp_run_should_stop(struct cp_run *run)
{
	return run->once || atomic_read(&run->error) ||
	       ktime_after(ktime_get(), run->deadline);
}

/*
 * Submit on @slot until the budget is spent or the driver answers
 * asynchronously (then the callback continues). @may_sleep in process
 * context only.
 */
static void cp_slot_loop(struct cp_slot *slot, bool may_sleep)
{
	struct cp_run *run = slot->run;
	int r;

	for (;;) {
		cp_note_outstanding(run);
		r = run->ops->submit(slot->req, run->decrypt);
		if (r == -EINPROGRESS || r == -EBUSY)
			return;		/* queued or backlogged: callback follows */
		atomic_dec(&run->outstanding);
		if (r) {
			atomic_cmpxchg(&run->error, 0, r);
			break;
		}
		atomic64_inc(&run->requests);
		run->last_completion = ktime_get();
		if (cp_run_should_stop(run))
			break;
		if (may_sleep)
			cond_resched();
	}
	cp_slot_retire(run);
}

static void cp_slot_done(struct cp_slot *slot, int err)
{
	struct cp_run *run = slot->run;

	atomic_dec(&run->outstanding);
	if (err) {
		atomic_cmpxchg(&run->error, 0, err);
	} else {
		atomic64_inc(&run->requests);
		run->last_completion = ktime_get();
	}
	if (err || run->zombie || cp_run_should_stop(run)) {
		cp_slot_retire(run);
		return;
	}
	cp_slot_loop(slot, false);
}

u64 cp_cpu_busy_ns(void)
{
	struct kernel_cpustat kcs;
	u64 sum = 0;
	int cpu;

	for_each_online_cpu(cpu) {
		kcpustat_cpu_fetch(&kcs, cpu);
		sum += kcs.cpustat[CPUTIME_USER] + kcs.cpustat[CPUTIME_NICE] +
		       kcs.cpustat[CPUTIME_SYSTEM] + kcs.cpustat[CPUTIME_IRQ] +
		       kcs.cpustat[CPUTIME_SOFTIRQ];
	}
	return sum;
}

int cp_run_go(struct cp_run *run, bool once, u64 budget_ns, u64 grace_ns,
	      u64 *wall_ns)
{
	u32 n = once ? 1 : run->depth, i;
	unsigned long flags;
	ktime_t start;
	s64 left;
	bool late;

	run->once = once;
	atomic_set(&run->error, 0);
	atomic_set(&run->outstanding, 0);
	atomic_set(&run->max_outstanding, 0);
	atomic64_set(&run->requests, 0);
	reinit_completion(&run->done);
	atomic_set(&run->active, n + 1);	/* +1: ours, until all started */

	start = ktime_get();
	run->last_completion = start;
	run->deadline = ktime_add_ns(start, once ? 0 : budget_ns);
	for (i = 0; i < n; i++)
		cp_slot_loop(&run->slots[i], true);
	cp_slot_retire(run);

	/* give up GRACE after the deadline, however long submitting took */
	left = ktime_to_ns(ktime_sub(ktime_add_ns(run->deadline, grace_ns),
				     ktime_get()));
	if (left < NSEC_PER_MSEC)
		left = NSEC_PER_MSEC;
	if (!wait_for_completion_timeout(&run->done, nsecs_to_jiffies(left))) {
		spin_lock_irqsave(&run->lock, flags);
		late = atomic_read(&run->active) > 0;
		if (late)
			run->zombie = true;
		spin_unlock_irqrestore(&run->lock, flags);
		if (late) {
			__module_get(THIS_MODULE);
			spin_lock(&cp_zombie_lock);
			list_add_tail(&run->zombie_node, &cp_zombies);
			spin_unlock(&cp_zombie_lock);
			pr_warn("%s: %d request(s) not completed %llu ms after the budget; keeping their memory until the driver completes them, module pinned\n",
				run->ops->driver_name(&run->tfm),
				atomic_read(&run->outstanding),
				grace_ns / NSEC_PER_MSEC);
			/* a completion may have come in between: look again */
			schedule_work(&cp_reaper);
			return -ETIMEDOUT;
		}
	}
	/* the last callback completed us under the lock: let it drop it */
	spin_lock_irqsave(&run->lock, flags);
	spin_unlock_irqrestore(&run->lock, flags);
	*wall_ns = ktime_to_ns(ktime_sub(run->last_completion, start));
	return atomic_read(&run->error);
}

/* Free zombie runs whose last request has come back. */
static void cp_reap(struct work_struct *work)
{
	struct cp_run *run, *tmp;
	LIST_HEAD(dead);

	spin_lock(&cp_zombie_lock);
	list_for_each_entry_safe(run, tmp, &cp_zombies, zombie_node)
		if (atomic_read(&run->active) == 0)
			list_move(&run->zombie_node, &dead);
	spin_unlock(&cp_zombie_lock);

	list_for_each_entry_safe(run, tmp, &dead, zombie_node) {
		list_del(&run->zombie_node);
		pr_info("%s: late requests completed, memory released\n",
			run->ops->driver_name(&run->tfm));
		/* the last callback may still be returning: let it leave */
		synchronize_rcu();
		cp_run_free(run);
		module_put(THIS_MODULE);
	}
}

/*
 * Module exit: zombies hold a module reference, so none is left here; wait
 * for a reaper still running and for callbacks still returning.
 */
void cp_zombies_exit(void)
{
	flush_work(&cp_reaper);
	synchronize_rcu();
}
