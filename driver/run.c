// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: the run engine. A run keeps up to depth requests in flight.
 *
 * Submitting: process context loops (cp_slot_loop); a completion callback
 * in process or softirq context resubmits its slot at most once. Whatever
 * would make it loop — a driver that answers synchronously, one that
 * completes inline from inside its own encrypt(), one whose queue is full
 * (-ENOSPC, -EAGAIN) — is handed to the slot's work item, which continues
 * in process context. So no callback loops or recurses. A callback in
 * hard-irq context (or with interrupts disabled), where the crypto API
 * takes no request, hands its resubmission to the work item too: it only
 * queues it.
 *
 * Ending: once the budget is spent no slot resubmits. The owner waits for
 * the requests in flight for as long as they keep coming back: it gives up
 * when none has completed for the grace period, when the command's
 * deadline has passed however they trickle back (core.c), or when the
 * command's caller has gone.
 * Then the run becomes a zombie: its memory and transform are kept for the
 * engine that may still write them, the module holds a reference, and the
 * last late completion hands the run to the reaper, which frees it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "types.h"

static LIST_HEAD(cp_zombies);
static DEFINE_SPINLOCK(cp_zombie_lock);
static size_t cp_zombie_bytes;		/* under cp_zombie_lock */
static struct workqueue_struct *cp_wq;	/* slots' work items, the reaper */
static void cp_reap(struct work_struct *work);
static DECLARE_WORK(cp_reaper, cp_reap);

#define CP_PAGE_GFP (GFP_KERNEL | __GFP_ZERO | __GFP_NORETRY | __GFP_NOWARN)

static void cp_buf_free(struct cp_buf *b)
{
	struct scatterlist *sg;
	unsigned int i;

	if (!b->sgt.sgl)
		return;
	if (b->linear) {
		__free_pages(sg_page(b->sgt.sgl), b->order);
		sg_free_table(&b->sgt);
		b->sgt.sgl = NULL;
		return;
	}
	/* every entry of every chained chunk; unfilled ones have no page */
	for_each_sg(b->sgt.sgl, sg, b->sgt.orig_nents, i)
		if (sg_page(sg))
			__free_page(sg_page(sg));
	sg_free_table(&b->sgt);
	b->sgt.sgl = NULL;
}

/* One entry over 2^order contiguous pages (order <= 5: 128 KiB). */
static int cp_buf_alloc_linear(struct cp_buf *b, unsigned int len)
{
	struct page *page;
	int r;

	b->len = len;
	b->order = get_order(len);
	r = sg_alloc_table(&b->sgt, 1, GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
	if (r)
		return r;
	page = alloc_pages(CP_PAGE_GFP, b->order);
	if (!page) {
		sg_free_table(&b->sgt);
		b->sgt.sgl = NULL;
		return -ENOMEM;
	}
	b->linear = true;
	sg_set_page(b->sgt.sgl, page, len, 0);
	return 0;
}

static int cp_buf_alloc(struct cp_buf *b, unsigned int len, bool linear)
{
	unsigned int n = DIV_ROUND_UP(len, PAGE_SIZE), i;
	struct scatterlist *sg;
	int r;

	if (linear)
		return cp_buf_alloc_linear(b, len);
	b->len = len;
	r = sg_alloc_table(&b->sgt, n, GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
	if (r)
		return r;
	for_each_sg(b->sgt.sgl, sg, n, i) {
		struct page *page = alloc_page(CP_PAGE_GFP);

		if (!page) {
			cp_buf_free(b);
			return -ENOMEM;
		}
		sg_set_page(sg, page, min_t(unsigned int, PAGE_SIZE, len), 0);
		len -= min_t(unsigned int, PAGE_SIZE, len);
	}
	return 0;
}

static unsigned int cp_buf_len(const struct cp_geometry *g, u32 req_size)
{
	return g->assoclen + g->iv_in_data + req_size + g->out_extra;
}

/*
 * A compressor's output buffer: twice its input, as zswap gives, so that
 * incompressible data fits whatever the algorithm's worst case.
 */
static unsigned int cp_dst_len(const struct cp_geometry *g, u32 req_size)
{
	return g->acomp ? 2 * req_size : cp_buf_len(g, req_size);
}

static bool cp_needs_dst(const struct cp_type_ops *ops, bool decrypt)
{
	return ops->dst == CP_DST_ALWAYS ||
	       (ops->dst == CP_DST_DECRYPT && decrypt);
}

/* Memory of one buffer of @len: linear ones take a power of two of pages. */
static size_t cp_buf_bytes(const struct cp_geometry *g, unsigned int len)
{
	return g->acomp ? PAGE_SIZE << get_order(len) : PAGE_ALIGN(len);
}

size_t cp_run_bytes(const struct cp_type_ops *ops, const struct cp_geometry *g,
		    u32 req_size, u32 depth, bool decrypt)
{
	size_t per_slot = cp_buf_bytes(g, cp_buf_len(g, req_size));

	if (cp_needs_dst(ops, decrypt))
		per_slot += cp_buf_bytes(g, cp_dst_len(g, req_size));
	return (size_t)depth * per_slot;
}

void cp_run_free(struct cp_run *run)
{
	u32 i;

	for (i = 0; i < run->depth; i++) {
		struct cp_slot *s = &run->slots[i];

		/* a work item still returning from its last retire */
		flush_work(&s->work);
		if (s->req)
			run->ops->req_free(s->req);
		sg_free_table(&s->layout[0]);
		sg_free_table(&s->layout[1]);
		cp_buf_free(&s->src);
		cp_buf_free(&s->dst);
		kfree(s->iv);
		kfree(s->out);
	}
	if (run->tfm.handle)
		run->ops->free(&run->tfm);
	kfree(run);
}

static void cp_complete(CP_COMPLETION_PARAMS);
static void cp_slot_work(struct work_struct *work);

static int cp_slot_alloc(struct cp_run *run, struct cp_tfm *t,
			 struct cp_slot *s, bool dst)
{
	const struct cp_geometry *g = &run->geo;

	s->run = run;
	INIT_WORK(&s->work, cp_slot_work);
	s->req = run->ops->req_alloc(t);
	if (!s->req ||
	    cp_buf_alloc(&s->src, cp_buf_len(g, run->req_size), g->acomp))
		return -ENOMEM;
	if (dst && cp_buf_alloc(&s->dst, cp_dst_len(g, run->req_size), g->acomp))
		return -ENOMEM;
	s->iv = kzalloc(max(g->ivsize, 1U), GFP_KERNEL);
	if (!s->iv)
		return -ENOMEM;
	if (g->digestsize) {
		s->out = kzalloc(g->digestsize, GFP_KERNEL);
		if (!s->out)
			return -ENOMEM;
	}
	return 0;
}

/* A run of @depth slots not allocated yet. */
static struct cp_run *cp_run_new(struct cp_tfm *t, const struct cp_geometry *g,
				 u32 req_size, u32 depth)
{
	struct cp_run *run;

	run = kzalloc(struct_size(run, slots, depth), GFP_KERNEL);
	if (!run)
		return NULL;
	run->ops = cp_type_ops(t->type);
	run->geo = *g;
	run->req_size = req_size;
	run->depth = depth;
	spin_lock_init(&run->lock);
	INIT_LIST_HEAD(&run->zombie_node);
	init_completion(&run->done);
	return run;
}

struct cp_run *cp_run_alloc(struct cp_tfm *t, const struct cp_geometry *g,
			    u32 req_size, u32 depth, bool decrypt)
{
	const struct cp_type_ops *ops = cp_type_ops(t->type);
	bool dst = cp_needs_dst(ops, decrypt);
	struct cp_run *run;
	u32 i;

	run = cp_run_new(t, g, req_size, depth);
	if (!run)
		return NULL;
	run->bytes = cp_run_bytes(ops, g, req_size, depth, decrypt);

	for (i = 0; i < depth; i++) {
		if (cp_slot_alloc(run, t, &run->slots[i], dst)) {
			/* INIT_WORK on the remaining slots for cp_run_free */
			for (; i < depth; i++)
				INIT_WORK(&run->slots[i].work, cp_slot_work);
			cp_run_free(run);
			return NULL;
		}
	}
	/* the run owns the transform from here on */
	run->tfm = *t;
	cp_run_prepare(run, decrypt);
	return run;
}

struct cp_run *cp_run_alloc_linear(struct cp_tfm *t, const struct cp_geometry *g,
				   unsigned int len)
{
	struct cp_run *run = cp_run_new(t, g, len, 1);
	struct cp_slot *s;

	if (!run)
		return NULL;
	s = &run->slots[0];
	s->run = run;
	INIT_WORK(&s->work, cp_slot_work);
	run->bytes = 2 * (PAGE_SIZE << get_order(len));
	s->req = run->ops->req_alloc(t);
	s->iv = kzalloc(max(g->ivsize, 1U), GFP_KERNEL);
	if (g->digestsize)
		s->out = kzalloc(g->digestsize, GFP_KERNEL);
	if (!s->req || !s->iv || (g->digestsize && !s->out) ||
	    cp_buf_alloc_linear(&s->src, len) ||
	    cp_buf_alloc_linear(&s->dst, len)) {
		cp_run_free(run);
		return NULL;
	}
	run->tfm = *t;
	return run;
}

void cp_run_point(struct cp_run *run, struct scatterlist *src,
		  struct scatterlist *dst, unsigned int assoclen,
		  unsigned int len, bool decrypt)
{
	run->decrypt = decrypt;
	run->slots[0].pointed = true;
	run->ops->verify->req_set(&run->tfm, &run->slots[0], src, dst, assoclen,
				  len, cp_complete, &run->slots[0]);
}

unsigned int cp_sg_bytes(struct scatterlist *sg)
{
	unsigned int len = 0;

	for (; sg; sg = sg_next(sg))
		len += sg->length;
	return len;
}

void cp_run_prepare(struct cp_run *run, bool decrypt)
{
	u32 i;

	run->decrypt = decrypt;
	for (i = 0; i < run->depth; i++) {
		run->slots[i].pointed = false;
		run->ops->req_prepare(&run->tfm, &run->slots[i], run->req_size,
				      &run->geo, decrypt, cp_complete,
				      &run->slots[i]);
	}
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
		cp_reap_soon();
}

static bool cp_run_should_stop(struct cp_run *run)
{
	return run->once || READ_ONCE(run->stop) || atomic_read(&run->error) ||
	       ktime_after(ktime_get(), run->deadline);
}

/*
 * When the owner stops waiting: the grace after the deadline or the last
 * completion, and the command's hard end at the latest.
 */
static ktime_t cp_run_give_up_time(struct cp_run *run)
{
	ktime_t last = READ_ONCE(run->last_completion);
	ktime_t t = ktime_add_ns(ktime_after(last, run->deadline) ? last :
				 run->deadline, run->grace_ns);

	return ktime_before(t, run->hard_end) ? t : run->hard_end;
}

/* A full queue (no backlog) that does not drain: retrying is pointless. */
static bool cp_run_stalled(struct cp_run *run)
{
	return READ_ONCE(run->stop) ||
	       ktime_after(ktime_get(), cp_run_give_up_time(run));
}

/* Count a request that came back; true if the slot should stop. */
static bool cp_slot_account(struct cp_slot *slot, int err)
{
	struct cp_run *run = slot->run;

	/* an answer above 0 is no errno, but a failure all the same */
	if (err > 0)
		err = -EIO;
	slot->err = err;
	WRITE_ONCE(run->last_completion, ktime_get());
	if (err) {
		/* once: each slot's answer is the caller's to judge */
		if (!run->once)
			atomic_cmpxchg(&run->error, 0, err);
		return true;
	}
	atomic64_inc(&run->requests);
	return cp_run_should_stop(run);
}

static int cp_slot_submit(struct cp_slot *slot)
{
	struct cp_run *run = slot->run;
	int r;

	cp_note_outstanding(run);
	atomic_inc(&slot->in_submit);
	r = run->ops->submit(slot, run->decrypt);
	atomic_dec(&slot->in_submit);
	if (r != -EINPROGRESS && r != -EBUSY)
		atomic_dec(&run->outstanding);
	return r;
}

static bool cp_queue_full(int r)
{
	return r == -ENOSPC || r == -EAGAIN;
}

/* Process context: submit until the driver takes a request asynchronously. */
static void cp_slot_loop(struct cp_slot *slot)
{
	struct cp_run *run = slot->run;
	int r;

	for (;;) {
		r = cp_slot_submit(slot);
		if (r == -EINPROGRESS || r == -EBUSY)
			return;		/* the callback or the work item follows */
		if (cp_queue_full(r) && !cp_run_stalled(run)) {
			/* no backlog: let the requests in flight drain */
			if (!run->once && cp_run_should_stop(run))
				break;
			usleep_range(20, 100);
			continue;
		}
		if (cp_slot_account(slot, r))
			break;
		cond_resched();
	}
	cp_slot_retire(run);
}

static void cp_slot_work(struct work_struct *work)
{
	cp_slot_loop(container_of(work, struct cp_slot, work));
}

/*
 * Drivers take requests in process or softirq context only: cryptd, for
 * one, warns in local_bh_enable() when called from hard irq.
 */
static bool cp_may_submit_here(void)
{
	return !in_hardirq() && !irqs_disabled();
}

/* A request came back, in any context: resubmit once at most. */
static void cp_slot_done(struct cp_slot *slot, int err)
{
	struct cp_run *run = slot->run;
	int r;

	atomic_dec(&run->outstanding);
	/* an abandoned run has its stop flag set: it stops here too */
	if (cp_slot_account(slot, err)) {
		cp_slot_retire(run);
		return;
	}
	/*
	 * Completed inline from inside its own submit (no recursion), or
	 * from hard irq: the work item submits. It is not pending (the
	 * slot's request was in flight until now), so this queues it once.
	 */
	if (atomic_read(&slot->in_submit) || !cp_may_submit_here()) {
		queue_work(cp_wq, &slot->work);
		return;
	}
	r = cp_slot_submit(slot);
	if (r == -EINPROGRESS || r == -EBUSY)
		return;
	if (!cp_queue_full(r) && cp_slot_account(slot, r)) {
		cp_slot_retire(run);
		return;
	}
	queue_work(cp_wq, &slot->work);
}

static void cp_complete(CP_COMPLETION_PARAMS)
{
	struct cp_slot *slot = cp_completion_data();

	/* a backlogged request has just entered the queue: not done yet */
	if (err == -EINPROGRESS)
		return;
	rcu_read_lock();	/* the reaper waits for callbacks to return */
	cp_slot_done(slot, err);
	rcu_read_unlock();
}

/* How often the owner looks whether the command's caller has gone. */
#define CP_RUN_POLL_MS	100

/*
 * Wait for the run's end while its requests keep coming back: give up
 * the grace period after the deadline or the last completion, whichever
 * is later, at the command's hard end, or once its caller has gone.
 * Returns 0 when all slots retired, else why not: -ETIMEDOUT (the
 * grace), -ETIME (the hard end) or -EPIPE (the caller).
 */
static int cp_run_wait(struct cp_run *run)
{
	for (;;) {
		ktime_t now = ktime_get();
		s64 left = ktime_to_ns(ktime_sub(cp_run_give_up_time(run),
						 now));
		unsigned long w;

		/* a run finished after others were waited for is done already */
		if (left <= 0 && try_wait_for_completion(&run->done))
			return 0;
		if (left <= 0)
			return ktime_before(now, run->hard_end) ? -ETIMEDOUT :
								  -ETIME;
		w = min(nsecs_to_jiffies(left) + 1,
			msecs_to_jiffies(CP_RUN_POLL_MS));
		if (wait_for_completion_timeout(&run->done, w))
			return 0;
		if (cp_command_caller_gone())
			return -EPIPE;
	}
}

static const char *cp_run_why(int why)
{
	switch (why) {
	case -EPIPE:
		return "caller gone";
	case -ETIME:
		return "the command's time is up";
	default:
		return "timed out";
	}
}

/*
 * Give up on @run: a zombie if requests are still out. Until it is on the
 * zombie list no reaper can free it; from then on it is not ours to read.
 */
static bool cp_run_abandon(struct cp_run *run, int why, u64 grace_ns)
{
	unsigned long flags;
	bool late;

	WRITE_ONCE(run->stop, true);
	spin_lock_irqsave(&run->lock, flags);
	late = atomic_read(&run->active) > 0;
	if (late)
		run->zombie = true;
	spin_unlock_irqrestore(&run->lock, flags);
	if (!late)
		return false;
	if (why == -ETIMEDOUT)
		pr_warn("%s: %d request(s) not completed %llu ms after the last one (timed out); keeping their memory until the driver completes them, module pinned\n",
			run->ops->driver_name(&run->tfm),
			atomic_read(&run->outstanding),
			div_u64(grace_ns, NSEC_PER_MSEC));
	else
		pr_warn("%s: %d request(s) not completed (%s); keeping their memory until the driver completes them, module pinned\n",
			run->ops->driver_name(&run->tfm),
			atomic_read(&run->outstanding), cp_run_why(why));
	/* the caller's command holds a reference: this one is the zombie's */
	__module_get(THIS_MODULE);
	spin_lock(&cp_zombie_lock);
	list_add_tail(&run->zombie_node, &cp_zombies);
	cp_zombie_bytes += run->bytes;
	spin_unlock(&cp_zombie_lock);
	/* the last completion may have come in between: look again */
	cp_reap_soon();
	return true;
}

void cp_run_start(struct cp_run *run, bool once, u64 budget_ns, u64 grace_ns)
{
	ktime_t start;
	u32 i;

	run->once = once;
	run->stop = false;
	run->grace_ns = grace_ns;
	atomic_set(&run->error, 0);
	atomic_set(&run->outstanding, 0);
	atomic_set(&run->max_outstanding, 0);
	atomic64_set(&run->requests, 0);
	reinit_completion(&run->done);
	atomic_set(&run->active, run->depth + 1); /* +1: ours, until all started */

	start = ktime_get();
	run->start = start;
	run->last_completion = start;
	run->deadline = ktime_add_ns(start, once ? 0 : budget_ns);
	run->hard_end = cp_command_deadline();
	for (i = 0; i < run->depth; i++) {
		run->slots[i].err = -EINPROGRESS;
		cp_slot_loop(&run->slots[i]);
	}
	cp_slot_retire(run);
}

int cp_run_finish(struct cp_run *run, u64 *wall_ns)
{
	unsigned long flags;
	int r;
	u32 i;

	r = cp_run_wait(run);
	if (r && cp_run_abandon(run, r, run->grace_ns))
		return CP_RUN_ABANDONED;
	/* the last callback completed us under the lock: let it drop it */
	spin_lock_irqsave(&run->lock, flags);
	spin_unlock_irqrestore(&run->lock, flags);
	/* and a work item may still be returning from its retire */
	for (i = 0; i < run->depth; i++)
		flush_work(&run->slots[i].work);
	if (wall_ns)
		*wall_ns = ktime_to_ns(ktime_sub(run->last_completion,
						 run->start));
	return atomic_read(&run->error);
}

int cp_run_go(struct cp_run *run, bool once, u64 budget_ns, u64 grace_ns,
	      u64 *wall_ns)
{
	cp_run_start(run, once, budget_ns, grace_ns);
	return cp_run_finish(run, wall_ns);
}

int cp_zombie_check(const char *driver, size_t bytes,
		    struct netlink_ext_ack *extack)
{
	struct cp_run *run;
	int r = 0;

	spin_lock(&cp_zombie_lock);
	list_for_each_entry(run, &cp_zombies, zombie_node) {
		if (!strcmp(run->ops->driver_name(&run->tfm), driver)) {
			NL_SET_ERR_MSG(extack, "an earlier run of this driver still has requests outstanding");
			r = -EBUSY;
			goto out;
		}
	}
	if (cp_zombie_bytes + bytes > CP_MAX_ZOMBIE_BYTES + CP_MAX_RUN_BYTES) {
		NL_SET_ERR_MSG(extack, "hung requests of earlier runs hold too much memory");
		r = -EBUSY;
	}
out:
	spin_unlock(&cp_zombie_lock);
	return r;
}

/*
 * /sys/module/cryptoprio/parameters/kept_runs: one line per zombie run,
 * "DRIVER OUTSTANDING BYTES", for cryptoprioctl status. A zombie is freed
 * only by the reaper, which takes it off the list under the lock first.
 */
static int cp_kept_runs_get(char *buf, const struct kernel_param *kp)
{
	struct cp_run *run;
	int n = 0;

	spin_lock(&cp_zombie_lock);
	list_for_each_entry(run, &cp_zombies, zombie_node)
		n += scnprintf(buf + n, PAGE_SIZE - n, "%s %d %zu\n",
			       run->ops->driver_name(&run->tfm),
			       atomic_read(&run->outstanding), run->bytes);
	spin_unlock(&cp_zombie_lock);
	return n;
}

static const struct kernel_param_ops cp_kept_runs_ops = {
	.get = cp_kept_runs_get,
};
module_param_cb(kept_runs, &cp_kept_runs_ops, NULL, 0444);
MODULE_PARM_DESC(kept_runs, "runs kept for requests an engine never completed: DRIVER OUTSTANDING BYTES per line (read-only)");

void cp_reap_soon(void)
{
	queue_work(cp_wq, &cp_reaper);
}

bool cp_zombies_empty(void)
{
	bool empty;

	spin_lock(&cp_zombie_lock);
	empty = list_empty(&cp_zombies);
	spin_unlock(&cp_zombie_lock);
	return empty;
}

/*
 * Free zombie runs whose last request has come back, then what their
 * commands left registered (trace.c); each zombie's module reference is
 * dropped last.
 */
static void cp_reap(struct work_struct *work)
{
	struct cp_run *run, *tmp;
	unsigned int freed = 0;
	LIST_HEAD(dead);

	spin_lock(&cp_zombie_lock);
	list_for_each_entry_safe(run, tmp, &cp_zombies, zombie_node) {
		if (atomic_read(&run->active) == 0) {
			list_move(&run->zombie_node, &dead);
			cp_zombie_bytes -= run->bytes;
		}
	}
	spin_unlock(&cp_zombie_lock);

	list_for_each_entry_safe(run, tmp, &dead, zombie_node) {
		list_del(&run->zombie_node);
		pr_info("%s: late requests completed, memory released\n",
			run->ops->driver_name(&run->tfm));
		/* the last callback may still be returning: let it leave */
		synchronize_rcu();
		cp_run_free(run);
		freed++;
	}
	cp_trace_leftovers();
	while (freed--)
		module_put(THIS_MODULE);
}

int cp_run_init(void)
{
	cp_wq = alloc_workqueue("cryptoprio", WQ_UNBOUND, 0);
	return cp_wq ? 0 : -ENOMEM;
}

/*
 * Module exit: every zombie holds a module reference, so none is left;
 * wait for a reaper still running and for callbacks still returning.
 */
void cp_run_exit(void)
{
	destroy_workqueue(cp_wq);
	synchronize_rcu();
}
