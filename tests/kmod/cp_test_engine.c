// SPDX-License-Identifier: GPL-2.0-only
/*
 * cp_test_engine: a test-only "offload engine" for cryptoprio's VM tests.
 *
 * Registers asynchronous, CRYPTO_ALG_KERN_DRIVER_ONLY implementations of
 * cbc(aes) ("cp_test_engine_cbc_aes", skcipher) and sha256
 * ("cp_test_engine_sha256", ahash) at priority 100. Each request is computed
 * by a synchronous software fallback from a workqueue, so completions are
 * really asynchronous. The writable parameter "mode" changes the behaviour
 * of requests submitted afterwards:
 *
 *   ok     correct results (the mode at load: the self-test must pass)
 *   slow   correct, plus 200 us of sleep per request
 *   wrong  correct, then one output byte flipped
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

#include <crypto/aes.h>
#include <crypto/internal/hash.h>
#include <crypto/internal/skcipher.h>
#include <crypto/sha2.h>
#include <linux/delay.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/version.h>
#include <linux/workqueue.h>

enum cpt_mode { CPT_OK, CPT_SLOW, CPT_WRONG, CPT_HANG };
static const char * const cpt_mode_names[] = { "ok", "slow", "wrong", "hang" };
static int cpt_mode = CPT_OK;

static struct workqueue_struct *cpt_wq;
static LIST_HEAD(cpt_parked);		/* requests held in hang mode */
static DEFINE_SPINLOCK(cpt_lock);	/* cpt_parked, cpt_mode changes */

/* 6.3 added *_request_complete(); before, call base.complete directly. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define cpt_sk_complete(req, err) skcipher_request_complete(req, err)
#define cpt_ahash_complete(req, err) ahash_request_complete(req, err)
#else
#define cpt_sk_complete(req, err) ((req)->base.complete(&(req)->base, err))
#define cpt_ahash_complete(req, err) ((req)->base.complete(&(req)->base, err))
#endif

/* Per request: the work item, its list node, and the fallback request last. */
struct cpt_req {
	struct work_struct work;
	struct list_head node;
	int (*run)(struct cpt_req *r);
	void *outer;
	unsigned long subreq[] __aligned(CRYPTO_MINALIGN);
};

static void cpt_flip(struct scatterlist *sg, unsigned int len)
{
	u8 b;

	if (!len)
		return;
	sg_pcopy_to_buffer(sg, sg_nents(sg), &b, 1, len - 1);
	b ^= 0x01;
	sg_pcopy_from_buffer(sg, sg_nents(sg), &b, 1, len - 1);
}

static void cpt_work(struct work_struct *work)
{
	struct cpt_req *r = container_of(work, struct cpt_req, work);

	if (READ_ONCE(cpt_mode) == CPT_SLOW)
		usleep_range(200, 250);
	r->run(r);
}

/* Queue @r, or park it in hang mode. */
static int cpt_enqueue(struct cpt_req *r)
{
	unsigned long flags;

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

/* cbc(aes) */

struct cpt_sk_ctx {
	struct crypto_skcipher *fallback;
};

static int cpt_sk_init(struct crypto_skcipher *tfm)
{
	struct cpt_sk_ctx *ctx = crypto_skcipher_ctx(tfm);

	ctx->fallback = crypto_alloc_skcipher("cbc(aes)", 0,
					      CRYPTO_ALG_ASYNC |
					      CRYPTO_ALG_NEED_FALLBACK);
	if (IS_ERR(ctx->fallback))
		return PTR_ERR(ctx->fallback);
	crypto_skcipher_set_reqsize(tfm, sizeof(struct cpt_req) +
				    sizeof(struct skcipher_request) +
				    crypto_skcipher_reqsize(ctx->fallback));
	return 0;
}

static void cpt_sk_exit(struct crypto_skcipher *tfm)
{
	struct cpt_sk_ctx *ctx = crypto_skcipher_ctx(tfm);

	crypto_free_skcipher(ctx->fallback);
}

static int cpt_sk_setkey(struct crypto_skcipher *tfm, const u8 *key,
			 unsigned int len)
{
	struct cpt_sk_ctx *ctx = crypto_skcipher_ctx(tfm);

	return crypto_skcipher_setkey(ctx->fallback, key, len);
}

static int cpt_sk_run(struct cpt_req *r, bool decrypt)
{
	struct skcipher_request *req = r->outer;
	struct skcipher_request *sub = (void *)r->subreq;
	struct cpt_sk_ctx *ctx = crypto_skcipher_ctx(crypto_skcipher_reqtfm(req));
	int err;

	skcipher_request_set_tfm(sub, ctx->fallback);
	skcipher_request_set_callback(sub, 0, NULL, NULL);
	skcipher_request_set_crypt(sub, req->src, req->dst, req->cryptlen,
				   req->iv);
	err = decrypt ? crypto_skcipher_decrypt(sub) :
			crypto_skcipher_encrypt(sub);
	if (!err && READ_ONCE(cpt_mode) == CPT_WRONG)
		cpt_flip(req->dst, req->cryptlen);
	local_bh_disable();
	cpt_sk_complete(req, err);
	local_bh_enable();
	return 0;
}

static int cpt_sk_run_enc(struct cpt_req *r)
{
	return cpt_sk_run(r, false);
}

static int cpt_sk_run_dec(struct cpt_req *r)
{
	return cpt_sk_run(r, true);
}

static int cpt_sk_queue(struct skcipher_request *req, bool decrypt)
{
	struct cpt_req *r = skcipher_request_ctx(req);

	r->outer = req;
	r->run = decrypt ? cpt_sk_run_dec : cpt_sk_run_enc;
	return cpt_enqueue(r);
}

static int cpt_sk_encrypt(struct skcipher_request *req)
{
	return cpt_sk_queue(req, false);
}

static int cpt_sk_decrypt(struct skcipher_request *req)
{
	return cpt_sk_queue(req, true);
}

static struct skcipher_alg cpt_cbc_aes = {
	.base = {
		.cra_name = "cbc(aes)",
		.cra_driver_name = "cp_test_engine_cbc_aes",
		.cra_priority = 100,
		.cra_flags = CRYPTO_ALG_ASYNC | CRYPTO_ALG_KERN_DRIVER_ONLY |
			     CRYPTO_ALG_NEED_FALLBACK,
		.cra_blocksize = AES_BLOCK_SIZE,
		.cra_ctxsize = sizeof(struct cpt_sk_ctx),
		.cra_module = THIS_MODULE,
	},
	.init = cpt_sk_init,
	.exit = cpt_sk_exit,
	.setkey = cpt_sk_setkey,
	.encrypt = cpt_sk_encrypt,
	.decrypt = cpt_sk_decrypt,
	.min_keysize = AES_MIN_KEY_SIZE,
	.max_keysize = AES_MAX_KEY_SIZE,
	.ivsize = AES_BLOCK_SIZE,
};

/* sha256: init/export/import at once, update/final/finup/digest queued. */

struct cpt_hash_ctx {
	struct crypto_ahash *fallback;
};

static struct ahash_request *cpt_sub(struct ahash_request *req)
{
	struct cpt_req *r = ahash_request_ctx(req);
	struct ahash_request *sub = (void *)r->subreq;
	struct cpt_hash_ctx *ctx = crypto_ahash_ctx(crypto_ahash_reqtfm(req));

	ahash_request_set_tfm(sub, ctx->fallback);
	ahash_request_set_callback(sub, 0, NULL, NULL);
	ahash_request_set_crypt(sub, req->src, req->result, req->nbytes);
	return sub;
}

enum cpt_hash_op { CPT_UPDATE, CPT_FINAL, CPT_FINUP, CPT_DIGEST };

static int cpt_hash_run(struct cpt_req *r, enum cpt_hash_op op)
{
	struct ahash_request *req = r->outer;
	struct ahash_request *sub = cpt_sub(req);
	bool result = op != CPT_UPDATE;
	int err = 0;

	switch (op) {
	case CPT_UPDATE:
		err = crypto_ahash_update(sub);
		break;
	case CPT_FINAL:
		err = crypto_ahash_final(sub);
		break;
	case CPT_FINUP:
		err = crypto_ahash_finup(sub);
		break;
	case CPT_DIGEST:
		err = crypto_ahash_digest(sub);
		break;
	}
	if (!err && result && READ_ONCE(cpt_mode) == CPT_WRONG)
		req->result[0] ^= 0x01;
	local_bh_disable();
	cpt_ahash_complete(req, err);
	local_bh_enable();
	return 0;
}

static int cpt_hash_run_update(struct cpt_req *r)
{
	return cpt_hash_run(r, CPT_UPDATE);
}

static int cpt_hash_run_final(struct cpt_req *r)
{
	return cpt_hash_run(r, CPT_FINAL);
}

static int cpt_hash_run_finup(struct cpt_req *r)
{
	return cpt_hash_run(r, CPT_FINUP);
}

static int cpt_hash_run_digest(struct cpt_req *r)
{
	return cpt_hash_run(r, CPT_DIGEST);
}

static int cpt_hash_queue(struct ahash_request *req, int (*run)(struct cpt_req *))
{
	struct cpt_req *r = ahash_request_ctx(req);

	r->outer = req;
	r->run = run;
	return cpt_enqueue(r);
}

static int cpt_hash_init(struct ahash_request *req)
{
	return crypto_ahash_init(cpt_sub(req));
}

static int cpt_hash_update(struct ahash_request *req)
{
	return cpt_hash_queue(req, cpt_hash_run_update);
}

static int cpt_hash_final(struct ahash_request *req)
{
	return cpt_hash_queue(req, cpt_hash_run_final);
}

static int cpt_hash_finup(struct ahash_request *req)
{
	return cpt_hash_queue(req, cpt_hash_run_finup);
}

static int cpt_hash_digest(struct ahash_request *req)
{
	return cpt_hash_queue(req, cpt_hash_run_digest);
}

static int cpt_hash_export(struct ahash_request *req, void *out)
{
	return crypto_ahash_export(cpt_sub(req), out);
}

static int cpt_hash_import(struct ahash_request *req, const void *in)
{
	return crypto_ahash_import(cpt_sub(req), in);
}

static int cpt_hash_cra_init(struct crypto_tfm *tfm)
{
	struct cpt_hash_ctx *ctx = crypto_tfm_ctx(tfm);

	ctx->fallback = crypto_alloc_ahash("sha256", 0, CRYPTO_ALG_ASYNC |
					   CRYPTO_ALG_NEED_FALLBACK);
	if (IS_ERR(ctx->fallback))
		return PTR_ERR(ctx->fallback);
	crypto_ahash_set_reqsize(__crypto_ahash_cast(tfm),
				 sizeof(struct cpt_req) +
				 sizeof(struct ahash_request) +
				 crypto_ahash_reqsize(ctx->fallback));
	return 0;
}

static void cpt_hash_cra_exit(struct crypto_tfm *tfm)
{
	struct cpt_hash_ctx *ctx = crypto_tfm_ctx(tfm);

	crypto_free_ahash(ctx->fallback);
}

static struct ahash_alg cpt_sha256 = {
	.init = cpt_hash_init,
	.update = cpt_hash_update,
	.final = cpt_hash_final,
	.finup = cpt_hash_finup,
	.digest = cpt_hash_digest,
	.export = cpt_hash_export,
	.import = cpt_hash_import,
	.halg = {
		.digestsize = SHA256_DIGEST_SIZE,
		/* set at init from the fallback's own state size */
		.base = {
			.cra_name = "sha256",
			.cra_driver_name = "cp_test_engine_sha256",
			.cra_priority = 100,
			.cra_flags = CRYPTO_ALG_ASYNC |
				     CRYPTO_ALG_KERN_DRIVER_ONLY |
				     CRYPTO_ALG_NEED_FALLBACK,
			.cra_blocksize = SHA256_BLOCK_SIZE,
			.cra_ctxsize = sizeof(struct cpt_hash_ctx),
			.cra_init = cpt_hash_cra_init,
			.cra_exit = cpt_hash_cra_exit,
			.cra_module = THIS_MODULE,
		},
	},
};

static int __init cpt_init(void)
{
	struct crypto_ahash *probe;
	int r;

	/* our export/import are the fallback's: same state size */
	probe = crypto_alloc_ahash("sha256", 0, CRYPTO_ALG_ASYNC |
				   CRYPTO_ALG_NEED_FALLBACK);
	if (IS_ERR(probe))
		return PTR_ERR(probe);
	cpt_sha256.halg.statesize = crypto_ahash_statesize(probe);
	crypto_free_ahash(probe);

	cpt_wq = alloc_workqueue("cp_test_engine", WQ_UNBOUND, 0);
	if (!cpt_wq)
		return -ENOMEM;
	r = crypto_register_skcipher(&cpt_cbc_aes);
	if (r)
		goto free_wq;
	r = crypto_register_ahash(&cpt_sha256);
	if (r)
		goto unregister_skcipher;
	return 0;

unregister_skcipher:
	crypto_unregister_skcipher(&cpt_cbc_aes);
free_wq:
	destroy_workqueue(cpt_wq);
	return r;
}

static void __exit cpt_exit(void)
{
	crypto_unregister_ahash(&cpt_sha256);
	crypto_unregister_skcipher(&cpt_cbc_aes);
	/* no transform is left, so no request is parked or queued */
	destroy_workqueue(cpt_wq);
}

module_init(cpt_init);
module_exit(cpt_exit);

MODULE_DESCRIPTION("cryptoprio test-only engine: slow, wrong or hanging on demand");
MODULE_LICENSE("GPL");
