// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine core of cryptoprio's test-only "offload engines": the queue,
 * the worker, the fault modes and their module parameters. It is compiled
 * into each engine module (cp_test_engine.ko; cp_caam_engine.ko through
 * cp_caam_engine_core.c, which includes this file), so each module has its
 * own queue and parameters under /sys/module/MODULE/parameters. A module
 * registers its shapes between cpt_core_init() and cpt_core_exit() and
 * hands each request to cpt_submit() with what computes it.
 *
 * Each request is computed by the module's code, by default from a
 * workqueue, so completions are really asynchronous. Writable parameters
 * change the requests submitted afterwards (the defaults are the state at
 * load, where the kernel's self-test must pass):
 *
 * mode
 *   ok     correct results (default)
 *   slow   correct, plus 200 us of sleep per request
 *   wrong  correct, then one output byte flipped (skcipher: the last
 *          byte; hash: the first digest byte; aead encrypt: the last
 *          ciphertext byte, decrypt: the last plaintext byte once
 *          authenticated)
 *   hang   never completed: requests are parked on a list; they are
 *          released (computed correctly and completed) as soon as the
 *          mode is set to anything else
 *   etimedout  nothing computed: each request completes with -ETIMEDOUT
 *          after 10 ms, as mxs-dcp does once its hardware timed out
 *   eintr  the same with -EINTR: a driver's own error that looks like
 *          the module's give-up codes
 *   sgmulti, len64, key192, big  correct, but a cipher (skcipher, and
 *          cp_test_engine's AEADs: their text's length) flips the
 *          last output byte (cp_test_engine's hashes, digest:
 *          the digest's first) of a request whose source or destination is
 *          more than one scatterlist entry (sgmulti), whose length is not
 *          a multiple of 64 (len64), keyed with a 192-bit AES key (key192),
 *          or longer than 16 KiB (big): faults of one shape, which the
 *          known-answer check's one shape misses and VERIFY finds;
 *          cp_test_engine's deflate flips its output's first byte when
 *          its text's length is of the shape (len64, big)
 *   crosstalk  correct, but a cipher's request (skcipher, the AEADs of
 *          both modules; cp_test_engine's hashes: the digest's first
 *          byte) gets its last output byte flipped when it was in
 *          flight on the engine together with a request of another
 *          transform: one of them submitted while the other was neither
 *          computed nor refused, as an engine that confuses two
 *          transforms' keys under load (two IPsec SAs). The kernel's
 *          self-test, the known-answer check and VERIFY's cases alone
 *          send one request of one transform at a time: only VERIFY's
 *          cases together find it (cp_test_engine's deflate: its
 *          output's first byte)
 *   overrun  correct, but a request of cp_test_engine's deflate that
 *          fails (its output space too short, the one failure a correct
 *          caller meets) writes one byte just past the space first, as an
 *          engine that transfers its whole answer and then reports the
 *          overflow: its caller's memory after the buffer. The kernel's
 *          self-test and the known-answer check give room enough;
 *          VERIFY's tight cases find it by their canary
 *   updates  correct, but cp_test_engine's hashes ignore the data of the
 *          third and later updates since init (the count travels in the
 *          exported state), as an engine whose chaining of partial
 *          requests breaks past two: the kernel's default self-test
 *          splits a request in two at most, the known-answer check and
 *          VERIFY's digests not at all; VERIFY's cases of up to eight
 *          updates find it
 *   lax    correct, but cp_test_engine's ecdh computes a shared secret
 *          with a peer key its fallback refuses (a point off the curve):
 *          it answers zeros and success, as an engine that does not check
 *          the point (an invalid-curve attack recovers its private key).
 *          The kernel's self-test and the known-answer check send valid
 *          points; VERIFY's flipped peer keys find it
 *   authkey  correct, but cp_test_engine's authenc flips the last output
 *          byte when its authentication key is longer than SHA-256's
 *          block: the key hmac hashes first, which an engine that
 *          precomputes its pads from the raw key gets wrong; the kernel's
 *          vectors and the known-answer check use shorter ones
 *   busydrop  each request is answered -EBUSY, as if backlogged, and then
 *          dropped: never computed, never completed (caam/qi's enqueue
 *          retry path). The engine keeps nothing of it (the request is its
 *          owner's memory) and counts it in the read-only parameter
 *          `dropped`; the owner's transform still holds the module, so
 *          rmmod answers "in use" while the owner keeps it
 * completion (mode ok, slow, wrong, etimedout or eintr; hang always parks)
 *   async  from the workqueue (default): the call returns -EINPROGRESS
 *   sync   computed inside the call, which returns the result (0 or an
 *          error) and calls no callback
 *   inline computed inside the call, which calls the request's callback
 *          itself, from the submitting context, then returns -EINPROGRESS
 *   hardirq  computed by the workqueue as async, then completed from a
 *          hard-IRQ context (an hrtimer of HRTIMER_MODE_REL_HARD, 1 us
 *          later), as a driver completing from its interrupt handler
 * queue_len (default 0: unlimited)
 *   at most this many requests queued, running or parked at once; beyond
 *   it a request with CRYPTO_TFM_REQ_MAY_BACKLOG goes to a backlog (the
 *   call returns -EBUSY; once it enters the queue its callback gets
 *   -EINPROGRESS, later its result, as with crypto_engine), one without
 *   gets -ENOSPC. Not for sync and inline completions, which never queue.
 * backlog (default Y)
 *   N: a full queue refuses every request with -ENOSPC, MAY_BACKLOG or
 *   not, as a driver without a backlog does
 * hang_after (default 0: off)
 *   N: the N-th request submitted from now on, and every later one, hangs
 *   (mode becomes hang), so a test can hang an engine in the middle of a
 *   run, after its first N - 1 requests
 * wrong_after (default 0: off)
 *   N: the same, the mode becoming wrong: its first N - 1 requests right,
 *   every later one wrong, as an engine whose fault comes with use (a
 *   counter that wraps, a descriptor ring reused); the self-test and the
 *   known-answer check, early requests, pass it, VERIFY's N-th case fails
 * latency_us (default 0)
 *   each request sleeps this long before it completes, as a DMA engine
 *   keeps the CPU free
 * burn_us (default 0)
 *   each request busy-waits this long on the CPU before it completes, as
 *   a CPU-driven engine does (keep it well below the soft-lockup timeout)
 *
 * A shape whose computation may sleep (rsa, ecdh) is always completed async.
 *
 * Queueing a request disables bottom halves around the queue's lock, as
 * cryptd does: a caller submitting from hard-IRQ context, which the crypto
 * API does not allow, gets the kernel's warning from local_bh_enable().
 *
 * With sync or inline completion, the delays of slow and latency_us are
 * slept only when the request may sleep (CRYPTO_TFM_REQ_MAY_SLEEP), and
 * waited on the CPU otherwise.
 *
 * Queued, backlogged and parked requests belong to transforms, which hold
 * a reference on their module: it cannot be unloaded with requests
 * outstanding, and module exit has nothing left to release.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/sha2.h>
#include <linux/bottom_half.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "cp_test_engine.h"

enum cpt_mode {
	CPT_OK, CPT_SLOW, CPT_WRONG, CPT_HANG, CPT_ETIMEDOUT, CPT_EINTR,
	CPT_BUSYDROP, CPT_SGMULTI, CPT_LEN64, CPT_KEY192, CPT_BIG, CPT_AUTHKEY,
	CPT_CROSSTALK, CPT_OVERRUN, CPT_UPDATES, CPT_LAX
};

static const char * const cpt_mode_names[] = {
	"ok", "slow", "wrong", "hang", "etimedout", "eintr", "busydrop",
	"sgmulti", "len64", "key192", "big", "authkey", "crosstalk", "overrun", "updates",
	"lax"
};

/* How long a request of mode etimedout or eintr takes to fail. */
#define CPT_FAIL_AFTER_US	10000

static int cpt_mode = CPT_OK;

enum cpt_completion { CPT_ASYNC, CPT_SYNC, CPT_INLINE, CPT_HARDIRQ };

static const char * const cpt_completion_names[] = {
	"async", "sync", "inline", "hardirq"
};

static int cpt_completion = CPT_ASYNC;

static unsigned int cpt_queue_len;
static bool cpt_backlog_on = true;
static unsigned int cpt_latency_us;
static unsigned int cpt_burn_us;
static unsigned int cpt_erratic_us;
static atomic_t cpt_erratic_tfms = ATOMIC_INIT(0);
static atomic_t cpt_hang_after = ATOMIC_INIT(0);
static atomic_t cpt_wrong_after = ATOMIC_INIT(0);

static struct workqueue_struct *cpt_wq;
/* cpt_lock: cpt_parked, cpt_backlog, cpt_queued, and mode changes */
static DEFINE_SPINLOCK(cpt_lock);
static LIST_HEAD(cpt_parked);		/* requests held in hang mode */
static LIST_HEAD(cpt_backlog);		/* waiting for room in the queue */
static LIST_HEAD(cpt_flight);		/* mode crosstalk: not computed yet */
static unsigned int cpt_queued;		/* on the workqueue, running or parked */
static atomic_t cpt_dropped = ATOMIC_INIT(0);	/* mode busydrop */

/* completion hardirq: computed requests wait here for the timer */
static DEFINE_RAW_SPINLOCK(cpt_irq_lock);
static LIST_HEAD(cpt_irq_done);
static struct hrtimer cpt_irq_timer;

bool cpt_wrong(void)
{
	return READ_ONCE(cpt_mode) == CPT_WRONG;
}

bool cpt_wrong_req(const struct cpt_req *r)
{
	int mode = READ_ONCE(cpt_mode);

	return mode == CPT_WRONG ||
	       (mode == CPT_CROSSTALK && READ_ONCE(r->crossed));
}

/*
 * Mode crosstalk: @r, accepted, is in flight; it and every request in
 * flight of another transform are crossed. The list is walked only in
 * this mode (a test's few requests), under cpt_lock.
 */
static void cpt_flight_add_locked(struct cpt_req *r)
{
	struct cpt_req *q;

	lockdep_assert_held(&cpt_lock);
	if (cpt_mode != CPT_CROSSTALK)
		return;
	list_for_each_entry(q, &cpt_flight, flight) {
		if (q->base->tfm != r->base->tfm) {
			WRITE_ONCE(q->crossed, true);
			r->crossed = true;
		}
	}
	list_add_tail(&r->flight, &cpt_flight);
	r->in_flight = true;
}

/*
 * The same, for a request computed in its caller's context (completion sync
 * or inline): the lock only in mode crosstalk. A request submitted while the
 * mode changes to it is not tracked: a test sets the mode before it sends.
 */
static void cpt_flight_add(struct cpt_req *r)
{
	unsigned long flags;

	if (READ_ONCE(cpt_mode) != CPT_CROSSTALK)
		return;
	spin_lock_irqsave(&cpt_lock, flags);
	cpt_flight_add_locked(r);
	spin_unlock_irqrestore(&cpt_lock, flags);
}

/* @r computed (or failed): no longer in flight. */
static void cpt_flight_del(struct cpt_req *r)
{
	unsigned long flags;

	if (!r->in_flight)
		return;
	spin_lock_irqsave(&cpt_lock, flags);
	list_del(&r->flight);
	spin_unlock_irqrestore(&cpt_lock, flags);
	r->in_flight = false;
}

bool cpt_updates(void)
{
	return READ_ONCE(cpt_mode) == CPT_UPDATES;
}

bool cpt_overrun(void)
{
	return READ_ONCE(cpt_mode) == CPT_OVERRUN;
}

bool cpt_lax(void)
{
	return READ_ONCE(cpt_mode) == CPT_LAX;
}

bool cpt_wrong_auth_key(unsigned int auth_key_len)
{
	return READ_ONCE(cpt_mode) == CPT_AUTHKEY && auth_key_len > SHA256_BLOCK_SIZE;
}

/* @sg holds fewer than @len bytes in its first entry (a hash of nothing may have none). */
static bool cpt_sg_multi(struct scatterlist *sg, unsigned int len)
{
	return sg && sg->length < len;
}

bool cpt_wrong_cipher(const struct cpt_req *r, struct scatterlist *src,
		      struct scatterlist *dst, unsigned int sg_len,
		      unsigned int len, unsigned int key_size)
{
	switch (READ_ONCE(cpt_mode)) {
	case CPT_WRONG:
	case CPT_CROSSTALK:
		return cpt_wrong_req(r);
	case CPT_SGMULTI:
		return cpt_sg_multi(src, sg_len) || cpt_sg_multi(dst, sg_len);
	case CPT_LEN64:
		return len % 64;
	case CPT_KEY192:
		return key_size == 24;
	case CPT_BIG:
		return len > 16384;
	default:
		return false;
	}
}

/* The error every request completes with in a failing mode, else 0. */
static int cpt_fault_err(void)
{
	switch (READ_ONCE(cpt_mode)) {
	case CPT_ETIMEDOUT:
		return -ETIMEDOUT;
	case CPT_EINTR:
		return -EINTR;
	default:
		return 0;
	}
}

/* What the engine answers @r: the failing mode's error, or its result. */
static int cpt_answer(struct cpt_req *r)
{
	int err = cpt_fault_err();

	err = err ?: r->run(r);
	cpt_flight_del(r);
	return err;
}

/* Flip the byte at @off of @sg. */
void cpt_flip(struct scatterlist *sg, unsigned int off)
{
	u8 b;

	if (sg_pcopy_to_buffer(sg, sg_nents(sg), &b, 1, off) != 1)
		return;
	b ^= 0x01;
	sg_pcopy_from_buffer(sg, sg_nents(sg), &b, 1, off);
}

static void cpt_busy_wait_us(unsigned int us)
{
	ktime_t end = ktime_add_us(ktime_get(), us);

	while (ktime_before(ktime_get(), end))
		cpu_relax();
}

static void cpt_wait_us(unsigned int us, bool may_sleep)
{
	if (!us)
		return;
	if (!may_sleep)
		cpt_busy_wait_us(us);
	else if (us < 20 * USEC_PER_MSEC)
		usleep_range(us, us + us / 8 + 10);
	else
		msleep(DIV_ROUND_UP(us, USEC_PER_MSEC));
}

/* The time the engine spends on one request before it completes. */
static void cpt_delay(bool may_sleep)
{
	if (READ_ONCE(cpt_mode) == CPT_SLOW)
		cpt_wait_us(200, may_sleep);
	if (cpt_fault_err())
		cpt_wait_us(CPT_FAIL_AFTER_US, may_sleep);
	cpt_wait_us(READ_ONCE(cpt_latency_us), may_sleep);
	cpt_busy_wait_us(READ_ONCE(cpt_burn_us));
}

/* The request's callback, from the kind of context engines call it in. */
static void cpt_callback(struct crypto_async_request *base, int err)
{
	local_bh_disable();
	cpt_base_complete(base, err);
	local_bh_enable();
}

/* Hard IRQ: complete every request the workers have computed. */
static enum hrtimer_restart cpt_irq_fire(struct hrtimer *t)
{
	struct cpt_req *r, *tmp;
	LIST_HEAD(done);

	raw_spin_lock(&cpt_irq_lock);
	list_splice_init(&cpt_irq_done, &done);
	raw_spin_unlock(&cpt_irq_lock);
	list_for_each_entry_safe(r, tmp, &done, node) {
		list_del(&r->node);
		/* @r belongs to its owner again from here on */
		cpt_base_complete(r->base, r->err);
	}
	return HRTIMER_NORESTART;
}

/* Hand @r, computed, to the hard-IRQ timer. */
static void cpt_irq_complete(struct cpt_req *r, int err)
{
	unsigned long flags;

	r->err = err;
	raw_spin_lock_irqsave(&cpt_irq_lock, flags);
	list_add_tail(&r->node, &cpt_irq_done);
	raw_spin_unlock_irqrestore(&cpt_irq_lock, flags);
	hrtimer_start(&cpt_irq_timer, ns_to_ktime(NSEC_PER_USEC),
		      HRTIMER_MODE_REL_HARD);
}

/* Queue @r, or park it in hang mode. Counted in cpt_queued already. */
static void cpt_admit_locked(struct cpt_req *r)
{
	lockdep_assert_held(&cpt_lock);
	if (cpt_mode == CPT_HANG)
		list_add_tail(&r->node, &cpt_parked);
	else
		queue_work(cpt_wq, &r->work);
}

static bool cpt_full_locked(void)
{
	unsigned int len = READ_ONCE(cpt_queue_len);

	return len && cpt_queued >= len;
}

/*
 * Move backlogged requests into the queue while there is room: each one's
 * callback first hears -EINPROGRESS, then the request is queued. Process
 * context, no lock held.
 */
static void cpt_drain_backlog(void)
{
	struct cpt_req *r, *tmp;
	unsigned long flags;
	LIST_HEAD(moved);

	spin_lock_irqsave(&cpt_lock, flags);
	while (!list_empty(&cpt_backlog) && !cpt_full_locked()) {
		list_move_tail(cpt_backlog.next, &moved);
		cpt_queued++;
	}
	spin_unlock_irqrestore(&cpt_lock, flags);

	list_for_each_entry_safe(r, tmp, &moved, node) {
		list_del(&r->node);
		cpt_callback(r->base, -EINPROGRESS);
		spin_lock_irqsave(&cpt_lock, flags);
		cpt_admit_locked(r);
		spin_unlock_irqrestore(&cpt_lock, flags);
	}
}

static void cpt_work(struct work_struct *work)
{
	struct cpt_req *r = container_of(work, struct cpt_req, work);
	struct crypto_async_request *base = r->base;
	unsigned long flags;
	int err;

	cpt_delay(true);
	r->in_worker = true;
	err = cpt_answer(r);
	spin_lock_irqsave(&cpt_lock, flags);
	cpt_queued--;
	spin_unlock_irqrestore(&cpt_lock, flags);
	/* @r belongs to its owner again from here on (it may resubmit it) */
	if (r->hardirq)
		cpt_irq_complete(r, err);
	else
		cpt_callback(base, err);
	cpt_drain_backlog();
}

/* Mode @m from now on; out of hang, the parked requests are released. */
static void cpt_switch_locked(int m)
{
	struct cpt_req *r, *tmp;

	lockdep_assert_held(&cpt_lock);
	WRITE_ONCE(cpt_mode, m);
	if (m == CPT_HANG)
		return;
	list_for_each_entry_safe(r, tmp, &cpt_parked, node) {
		list_del(&r->node);
		queue_work(cpt_wq, &r->work);
	}
}

/* hang_after, wrong_after: from this request on, mode @mode. */
static void cpt_count_down_to(atomic_t *after, int mode)
{
	unsigned long flags;

	if (atomic_add_unless(after, -1, 0) && !atomic_read(after)) {
		spin_lock_irqsave(&cpt_lock, flags);
		cpt_switch_locked(mode);
		spin_unlock_irqrestore(&cpt_lock, flags);
		pr_info("mode %s (%s_after)\n", cpt_mode_names[mode],
			cpt_mode_names[mode]);
	}
}

static void cpt_count_down(void)
{
	cpt_count_down_to(&cpt_hang_after, CPT_HANG);
	cpt_count_down_to(&cpt_wrong_after, CPT_WRONG);
}

/* Completion sync or inline: compute @r in the caller's context. */
static int cpt_run_now(struct cpt_req *r, bool inline_cb)
{
	struct crypto_async_request *base = r->base;
	int err;

	cpt_delay(base->flags & CRYPTO_TFM_REQ_MAY_SLEEP);
	err = cpt_answer(r);
	if (!inline_cb)
		return err;
	cpt_base_complete(base, err);
	return -EINPROGRESS;
}

/*
 * Hand @r (the context of the outer request @base) to the engine; @run
 * computes it, in the caller's context too if @may_run_now and the
 * completion is sync or inline. Returns what the outer encrypt/decrypt/
 * digest returns.
 */
static int cpt_submit_to(struct cpt_req *r, struct crypto_async_request *base,
			 int (*run)(struct cpt_req *r), bool may_run_now)
{
	int completion = may_run_now ? READ_ONCE(cpt_completion) : CPT_ASYNC;
	unsigned long flags;
	int err;

	r->base = base;
	r->run = run;
	r->in_worker = false;
	r->hardirq = completion == CPT_HARDIRQ;
	r->crossed = false;
	r->in_flight = false;
	INIT_WORK(&r->work, cpt_work);
	cpt_count_down();
	if (READ_ONCE(cpt_mode) == CPT_BUSYDROP) {
		/* "backlogged", then forgotten: nothing of @r is kept */
		atomic_inc(&cpt_dropped);
		return -EBUSY;
	}
	if ((completion == CPT_SYNC || completion == CPT_INLINE) &&
	    READ_ONCE(cpt_mode) != CPT_HANG) {
		cpt_flight_add(r);
		return cpt_run_now(r, completion == CPT_INLINE);
	}

	/* as cryptd: warns if called from hard IRQ, outside the API's contract */
	local_bh_disable();
	spin_lock_irqsave(&cpt_lock, flags);
	if (cpt_full_locked() || !list_empty(&cpt_backlog)) {
		if ((base->flags & CRYPTO_TFM_REQ_MAY_BACKLOG) &&
		    READ_ONCE(cpt_backlog_on)) {
			list_add_tail(&r->node, &cpt_backlog);
			cpt_flight_add_locked(r);
			err = -EBUSY;
		} else {
			err = -ENOSPC;
		}
	} else {
		cpt_queued++;
		cpt_flight_add_locked(r);
		cpt_admit_locked(r);
		err = -EINPROGRESS;
	}
	spin_unlock_irqrestore(&cpt_lock, flags);
	local_bh_enable();
	return err;
}

int cpt_submit(struct cpt_req *r, struct crypto_async_request *base,
	       int (*run)(struct cpt_req *r))
{
	return cpt_submit_to(r, base, run, true);
}

int cpt_submit_worker(struct cpt_req *r, struct crypto_async_request *base,
		      int (*run)(struct cpt_req *r))
{
	return cpt_submit_to(r, base, run, false);
}

static int cpt_mode_set(const char *val, const struct kernel_param *kp)
{
	unsigned long flags;
	int m;

	m = sysfs_match_string(cpt_mode_names, val);
	if (m < 0)
		return m;
	spin_lock_irqsave(&cpt_lock, flags);
	cpt_switch_locked(m);
	spin_unlock_irqrestore(&cpt_lock, flags);
	pr_info("mode %s\n", cpt_mode_names[m]);
	return 0;
}

static int cpt_mode_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", cpt_mode_names[READ_ONCE(cpt_mode)]);
}

static const struct kernel_param_ops cpt_mode_ops = {
	.set = cpt_mode_set,
	.get = cpt_mode_get,
};
module_param_cb(mode, &cpt_mode_ops, NULL, 0644);
MODULE_PARM_DESC(mode, "ok, slow (200 us per request), wrong (flip a byte), sgmulti, len64, key192 or big (a cipher, rsa or ecdh flips a byte on multi-entry lists, lengths not a multiple of 64, 192-bit keys, or past 16 KiB), authkey (authenc flips a byte under an authentication key longer than 64 bytes), crosstalk (a request in flight beside another transform's), overrun (deflate writes a byte past a space too short), updates (a hash ignores the third and later updates), lax (ecdh takes a peer key off the curve), hang (never complete), etimedout or eintr (fail each request with it after 10 ms), busydrop (answer -EBUSY, never complete)");

static int cpt_dropped_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&cpt_dropped));
}

static const struct kernel_param_ops cpt_dropped_ops = {
	.get = cpt_dropped_get,
};
module_param_cb(dropped, &cpt_dropped_ops, NULL, 0444);
MODULE_PARM_DESC(dropped, "requests answered -EBUSY and dropped in mode busydrop (read-only)");

static int cpt_completion_set(const char *val, const struct kernel_param *kp)
{
	int c = sysfs_match_string(cpt_completion_names, val);

	if (c < 0)
		return c;
	WRITE_ONCE(cpt_completion, c);
	pr_info("completion %s\n", cpt_completion_names[c]);
	return 0;
}

static int cpt_completion_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  cpt_completion_names[READ_ONCE(cpt_completion)]);
}

static const struct kernel_param_ops cpt_completion_ops = {
	.set = cpt_completion_set,
	.get = cpt_completion_get,
};
module_param_cb(completion, &cpt_completion_ops, NULL, 0644);
MODULE_PARM_DESC(completion, "async (from a workqueue), sync (in the call, no callback), inline (callback called in the call, then -EINPROGRESS), hardirq (callback from a hard-IRQ hrtimer)");

/* A longer queue (or 0, unlimited) takes backlogged requests in at once. */
static int cpt_queue_len_set(const char *val, const struct kernel_param *kp)
{
	int r = param_set_uint(val, kp);

	if (r)
		return r;
	/* the module is loaded: cpt_wq exists (a load parameter finds none) */
	if (cpt_wq)
		cpt_drain_backlog();
	return 0;
}

static const struct kernel_param_ops cpt_queue_len_ops = {
	.set = cpt_queue_len_set,
	.get = param_get_uint,
};
module_param_cb(queue_len, &cpt_queue_len_ops, &cpt_queue_len, 0644);
MODULE_PARM_DESC(queue_len, "requests queued at most (0: unlimited); beyond: backlog and -EBUSY with MAY_BACKLOG, else -ENOSPC");

module_param_named(latency_us, cpt_latency_us, uint, 0644);
MODULE_PARM_DESC(latency_us, "sleep per request before it completes (us), as a DMA engine");

module_param_named(burn_us, cpt_burn_us, uint, 0644);
MODULE_PARM_DESC(burn_us, "busy-wait on the CPU per request before it completes (us)");

/* Setting erratic_us counts transforms from the start again. */
static int cpt_erratic_set(const char *val, const struct kernel_param *kp)
{
	int r = param_set_uint(val, kp);

	if (!r)
		atomic_set(&cpt_erratic_tfms, 0);
	return r;
}

static const struct kernel_param_ops cpt_erratic_ops = {
	.set = cpt_erratic_set,
	.get = param_get_uint,
};
module_param_cb(erratic_us, &cpt_erratic_ops, &cpt_erratic_us, 0644);
MODULE_PARM_DESC(erratic_us, "N > 0: of each three cbc(aes) transforms allocated from now on, the first two wait N us more per request: a driver's runs (a transform each) that differ by factors, as on a loaded host");

bool cpt_tfm_erratic(void)
{
	return READ_ONCE(cpt_erratic_us) &&
	       atomic_inc_return(&cpt_erratic_tfms) % 3 != 0;
}

void cpt_erratic_wait(bool erratic, bool may_sleep)
{
	if (erratic)
		cpt_wait_us(READ_ONCE(cpt_erratic_us), may_sleep);
}

module_param_named(backlog, cpt_backlog_on, bool, 0644);
MODULE_PARM_DESC(backlog, "Y: a full queue backlogs MAY_BACKLOG requests (-EBUSY); N: it refuses every request with -ENOSPC");

/* hang_after and wrong_after: @kp->arg is the counter */
static int cpt_after_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int r = kstrtouint(val, 0, &n);

	if (r)
		return r;
	if (n > INT_MAX)
		return -ERANGE;
	atomic_set(kp->arg, n);
	return 0;
}

static int cpt_after_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(kp->arg));
}

static const struct kernel_param_ops cpt_after_ops = {
	.set = cpt_after_set,
	.get = cpt_after_get,
};
module_param_cb(hang_after, &cpt_after_ops, &cpt_hang_after, 0644);
MODULE_PARM_DESC(hang_after, "N > 0: the N-th request submitted from now on switches mode to hang (0: off)");
module_param_cb(wrong_after, &cpt_after_ops, &cpt_wrong_after, 0644);
MODULE_PARM_DESC(wrong_after, "N > 0: the N-th request submitted from now on switches mode to wrong (0: off)");

int cpt_core_init(void)
{
	cpt_hrtimer_setup(&cpt_irq_timer, cpt_irq_fire, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_HARD);
	cpt_wq = alloc_workqueue(KBUILD_MODNAME, WQ_UNBOUND, 0);
	return cpt_wq ? 0 : -ENOMEM;
}

/*
 * Once the module's algorithms are unregistered: no transform is left, so
 * no request is parked, backlogged, queued or waiting for the hard-IRQ
 * timer (a request dropped in mode busydrop is its owner's, whose transform
 * held the module until freed); this waits for a worker still returning
 * from a callback, then for the timer.
 */
void cpt_core_exit(void)
{
	destroy_workqueue(cpt_wq);
	hrtimer_cancel(&cpt_irq_timer);
}
