// SPDX-License-Identifier: GPL-2.0-only
/*
 * cp_test_engine: cbc(aes) as an skcipher ("cp_test_engine_cbc_aes"),
 * computed by a synchronous cbc(aes) fallback, or in the worker by the
 * driver named by offload_to (cp_test_engine_main.c says what for).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/aes.h>
#include <crypto/internal/skcipher.h>
#include <linux/module.h>

#include "cp_test_engine.h"

static char *cpt_offload_to;
module_param_named(offload_to, cpt_offload_to, charp, 0444);
MODULE_PARM_DESC(offload_to, "cbc(aes) driver computing the worker's cbc(aes) requests, waited for asleep (a DMA engine's CPU cost)");

struct cpt_sk_ctx {
	struct crypto_skcipher *fallback;
	struct crypto_skcipher *offload;	/* offload_to, or NULL */
	unsigned int key_size;
	bool erratic;	/* erratic_us: this transform waits */
};

/* offload_to's driver; never one of ours (they need a fallback) */
static struct crypto_skcipher *cpt_sk_alloc_offload(void)
{
	return crypto_alloc_skcipher(cpt_offload_to, 0,
				     CRYPTO_ALG_NEED_FALLBACK);
}

static int cpt_sk_init(struct crypto_skcipher *tfm)
{
	struct cpt_sk_ctx *ctx = crypto_skcipher_ctx(tfm);
	const char *name = crypto_tfm_alg_name(crypto_skcipher_tfm(tfm));
	unsigned int subsize;

	ctx->fallback = crypto_alloc_skcipher(name, 0, CPT_FALLBACK_MASK);
	if (IS_ERR(ctx->fallback))
		return PTR_ERR(ctx->fallback);
	subsize = crypto_skcipher_reqsize(ctx->fallback);
	ctx->offload = NULL;
	ctx->erratic = cpt_tfm_erratic();
	if (cpt_offload_to) {
		ctx->offload = cpt_sk_alloc_offload();
		if (IS_ERR(ctx->offload)) {
			crypto_free_skcipher(ctx->fallback);
			return PTR_ERR(ctx->offload);
		}
		subsize = max(subsize, crypto_skcipher_reqsize(ctx->offload));
	}
	crypto_skcipher_set_reqsize(tfm, sizeof(struct cpt_req) +
				    sizeof(struct skcipher_request) + subsize);
	return 0;
}

static void cpt_sk_exit(struct crypto_skcipher *tfm)
{
	struct cpt_sk_ctx *ctx = crypto_skcipher_ctx(tfm);

	crypto_free_skcipher(ctx->offload);
	crypto_free_skcipher(ctx->fallback);
}

static int cpt_sk_setkey(struct crypto_skcipher *tfm, const u8 *key,
			 unsigned int len)
{
	struct cpt_sk_ctx *ctx = crypto_skcipher_ctx(tfm);
	int err = crypto_skcipher_setkey(ctx->fallback, key, len);

	if (!err && ctx->offload)
		err = crypto_skcipher_setkey(ctx->offload, key, len);
	if (!err)
		ctx->key_size = len;
	return err;
}

static int cpt_sk_run(struct cpt_req *r, bool decrypt)
{
	struct skcipher_request *req =
		container_of(r->base, struct skcipher_request, base);
	struct skcipher_request *sub = (void *)r->subreq;
	struct cpt_sk_ctx *ctx = crypto_skcipher_ctx(crypto_skcipher_reqtfm(req));
	bool offload = ctx->offload && r->in_worker;
	DECLARE_CRYPTO_WAIT(wait);
	int err;

	cpt_erratic_wait(ctx->erratic, r->in_worker);
	skcipher_request_set_tfm(sub, offload ? ctx->offload : ctx->fallback);
	if (offload)
		skcipher_request_set_callback(sub, CRYPTO_TFM_REQ_MAY_SLEEP |
					      CRYPTO_TFM_REQ_MAY_BACKLOG,
					      crypto_req_done, &wait);
	else
		skcipher_request_set_callback(sub, 0, NULL, NULL);
	skcipher_request_set_crypt(sub, req->src, req->dst, req->cryptlen,
				   req->iv);
	err = decrypt ? crypto_skcipher_decrypt(sub) :
			crypto_skcipher_encrypt(sub);
	if (offload)
		err = crypto_wait_req(err, &wait);
	if (!err && req->cryptlen &&
	    cpt_wrong_cipher(r, req->src, req->dst, req->cryptlen, req->cryptlen,
			     ctx->key_size))
		cpt_flip(req->dst, req->cryptlen - 1);
	return err;
}

static int cpt_sk_run_enc(struct cpt_req *r)
{
	return cpt_sk_run(r, false);
}

static int cpt_sk_run_dec(struct cpt_req *r)
{
	return cpt_sk_run(r, true);
}

static int cpt_sk_encrypt(struct skcipher_request *req)
{
	return cpt_submit(skcipher_request_ctx(req), &req->base,
			  cpt_sk_run_enc);
}

static int cpt_sk_decrypt(struct skcipher_request *req)
{
	return cpt_submit(skcipher_request_ctx(req), &req->base,
			  cpt_sk_run_dec);
}

static struct skcipher_alg cpt_cbc_aes = {
	.base = {
		.cra_name = "cbc(aes)",
		.cra_driver_name = "cp_test_engine_cbc_aes",
		.cra_priority = CPT_PRIORITY,
		.cra_flags = CPT_FLAGS,
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

int cpt_skcipher_register(void)
{
	struct crypto_skcipher *offload;

	if (cpt_offload_to) {	/* refuse the load rather than fail self-tests */
		offload = cpt_sk_alloc_offload();
		if (IS_ERR(offload)) {
			pr_err("offload_to=%s: %ld\n", cpt_offload_to,
			       PTR_ERR(offload));
			return PTR_ERR(offload);
		}
		if (strcmp(crypto_tfm_alg_name(crypto_skcipher_tfm(offload)),
			   cpt_cbc_aes.base.cra_name)) {
			pr_err("offload_to=%s is not a cbc(aes)\n",
			       cpt_offload_to);
			crypto_free_skcipher(offload);
			return -EINVAL;
		}
		crypto_free_skcipher(offload);
	}
	return crypto_register_skcipher(&cpt_cbc_aes);
}

void cpt_skcipher_unregister(void)
{
	crypto_unregister_skcipher(&cpt_cbc_aes);
}
