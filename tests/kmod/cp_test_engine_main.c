// SPDX-License-Identifier: GPL-2.0-only
/*
 * cp_test_engine: a test-only "offload engine" for cryptoprio's VM tests.
 *
 * Registers asynchronous, CRYPTO_ALG_KERN_DRIVER_ONLY implementations at
 * priority 100, the shapes a real engine (CAAM) registers natively:
 *
 *   skcipher cbc(aes)                       cp_test_engine_cbc_aes
 *   ahash    sha256                         cp_test_engine_sha256
 *   ahash    hmac(sha256)                   cp_test_engine_hmac_sha256
 *   aead     gcm(aes)                       cp_test_engine_gcm_aes
 *   aead     rfc4106(gcm(aes))              cp_test_engine_rfc4106_gcm_aes
 *   aead     ccm(aes)                       cp_test_engine_ccm_aes
 *   aead     authenc(hmac(sha256),cbc(aes))
 *                              cp_test_engine_authenc_hmac_sha256_cbc_aes
 *   aead     echainiv(authenc(hmac(sha256),cbc(aes)))
 *                     cp_test_engine_echainiv_authenc_hmac_sha256_cbc_aes
 *
 * Each request is computed by a synchronous software fallback of the same
 * name from a workqueue, so completions are really asynchronous. The
 * writable parameter "mode" changes the behaviour of requests submitted
 * afterwards:
 *
 *   ok     correct results (the mode at load: the self-test must pass)
 *   slow   correct, plus 200 us of sleep per request
 *   wrong  correct, then one output byte flipped (skcipher: the last
 *          byte; hash: the first digest byte; aead encrypt: the last
 *          ciphertext byte, decrypt: the last plaintext byte once
 *          authenticated)
 *   hang   never completed: requests are parked on a list
 *
 * Parked requests are released (computed correctly and completed) as soon
 * as the mode is set to anything but "hang". Until then their owner's
 * transforms hold a reference on this module, so it cannot be unloaded with
 * requests outstanding; module exit has nothing left to release.
 *
 * Never installed: built only for the VM tests.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bottom_half.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/spinlock.h>

#include "cp_test_engine.h"

enum cpt_mode { CPT_OK, CPT_SLOW, CPT_WRONG, CPT_HANG };
static const char * const cpt_mode_names[] = { "ok", "slow", "wrong", "hang" };
static int cpt_mode = CPT_OK;

static struct workqueue_struct *cpt_wq;
static LIST_HEAD(cpt_parked);		/* requests held in hang mode */
static DEFINE_SPINLOCK(cpt_lock);	/* cpt_parked, cpt_mode changes */

bool cpt_wrong(void)
{
	return READ_ONCE(cpt_mode) == CPT_WRONG;
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

/* The request's callback, from the kind of context engines call it in. */
static void cpt_callback(struct crypto_async_request *base, int err)
{
	local_bh_disable();
	cpt_base_complete(base, err);
	local_bh_enable();
}

static void cpt_work(struct work_struct *work)
{
	struct cpt_req *r = container_of(work, struct cpt_req, work);

	if (READ_ONCE(cpt_mode) == CPT_SLOW)
		usleep_range(200, 250);
	cpt_callback(r->base, r->run(r));
}

/*
 * Hand @r (the context of the outer request @base) to the engine, or park
 * it in hang mode; @run computes it.
 */
int cpt_submit(struct cpt_req *r, struct crypto_async_request *base,
	       int (*run)(struct cpt_req *r))
{
	unsigned long flags;

	r->base = base;
	r->run = run;
	INIT_WORK(&r->work, cpt_work);
	spin_lock_irqsave(&cpt_lock, flags);
	if (cpt_mode == CPT_HANG)
		list_add_tail(&r->node, &cpt_parked);
	else
		queue_work(cpt_wq, &r->work);
	spin_unlock_irqrestore(&cpt_lock, flags);
	return -EINPROGRESS;
}

static int cpt_mode_set(const char *val, const struct kernel_param *kp)
{
	struct cpt_req *r, *tmp;
	unsigned long flags;
	int m;

	m = sysfs_match_string(cpt_mode_names, val);
	if (m < 0)
		return m;
	spin_lock_irqsave(&cpt_lock, flags);
	WRITE_ONCE(cpt_mode, m);
	if (m != CPT_HANG) {
		list_for_each_entry_safe(r, tmp, &cpt_parked, node) {
			list_del(&r->node);
			queue_work(cpt_wq, &r->work);
		}
	}
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
MODULE_PARM_DESC(mode, "ok, slow (200 us per request), wrong (flip a byte), hang (never complete)");

static int __init cpt_init(void)
{
	int r;

	cpt_wq = alloc_workqueue("cp_test_engine", WQ_UNBOUND, 0);
	if (!cpt_wq)
		return -ENOMEM;
	r = cpt_skcipher_register();
	if (r)
		goto free_wq;
	r = cpt_hash_register();
	if (r)
		goto unregister_skcipher;
	r = cpt_aead_register();
	if (r)
		goto unregister_hash;
	return 0;

unregister_hash:
	cpt_hash_unregister();
unregister_skcipher:
	cpt_skcipher_unregister();
free_wq:
	destroy_workqueue(cpt_wq);
	return r;
}

static void __exit cpt_exit(void)
{
	cpt_aead_unregister();
	cpt_hash_unregister();
	cpt_skcipher_unregister();
	/*
	 * No transform is left, so no request is parked or queued; this
	 * waits for a worker still returning from a callback.
	 */
	destroy_workqueue(cpt_wq);
}

module_init(cpt_init);
module_exit(cpt_exit);

MODULE_DESCRIPTION("cryptoprio test-only engine: slow, wrong or hanging on demand");
MODULE_LICENSE("GPL");
