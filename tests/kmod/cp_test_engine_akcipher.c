// SPDX-License-Identifier: GPL-2.0-only
/*
 * cp_test_engine: rsa as an akcipher ("cp_test_engine_rsa"), computed by
 * the CPU's rsa (rsa-generic), as CAAM, QAT, HiSilicon's hpre and
 * virtio-crypto register theirs. Keys are the fallback's; modes wrong,
 * crosstalk, sgmulti and len64 flip the last byte of the output (of a
 * message whose length is not a multiple of 64 for len64).
 *
 * rsa-generic allocates its integers with GFP_KERNEL: it may sleep, so
 * every request is computed by the engine's worker (cpt_submit_worker),
 * whatever the completion parameter says.
 *
 * Registered at priority 50, below rsa-generic's 100: a new implementation
 * of a name at or above another's priority makes the kernel retire the
 * instances built on that one (the pkcs1pad(rsa-generic,...) of module
 * signature checks), and a later one could be built on the engine, whose
 * hang mode would then hang insmod.
 *
 * The client calls (crypto_alloc_akcipher, akcipher_request_set_*,
 * crypto_akcipher_encrypt/decrypt/set_*_key/maxsize) and
 * akcipher_set_reqsize() are the same on 6.1, 6.12 and 7.2; 7.2's
 * akcipher_alg has no sign and verify (sig since 6.13), which are not set.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/akcipher.h>
#include <crypto/internal/akcipher.h>
#include <linux/module.h>

#include "cp_test_engine.h"

#define CPT_RSA_PRIORITY	50

struct cpt_akcipher_ctx {
	struct crypto_akcipher *fallback;
};

static int cpt_akcipher_init(struct crypto_akcipher *tfm)
{
	struct cpt_akcipher_ctx *ctx = akcipher_tfm_ctx(tfm);
	const char *name = crypto_tfm_alg_name(crypto_akcipher_tfm(tfm));

	ctx->fallback = crypto_alloc_akcipher(name, 0, CPT_FALLBACK_MASK);
	if (IS_ERR(ctx->fallback))
		return PTR_ERR(ctx->fallback);
	akcipher_set_reqsize(tfm, sizeof(struct cpt_req) +
			     sizeof(struct akcipher_request) +
			     crypto_akcipher_reqsize(ctx->fallback));
	return 0;
}

static void cpt_akcipher_exit(struct crypto_akcipher *tfm)
{
	struct cpt_akcipher_ctx *ctx = akcipher_tfm_ctx(tfm);

	crypto_free_akcipher(ctx->fallback);
}

static int cpt_akcipher_set_pub_key(struct crypto_akcipher *tfm,
				    const void *key, unsigned int keylen)
{
	struct cpt_akcipher_ctx *ctx = akcipher_tfm_ctx(tfm);

	return crypto_akcipher_set_pub_key(ctx->fallback, key, keylen);
}

static int cpt_akcipher_set_priv_key(struct crypto_akcipher *tfm,
				     const void *key, unsigned int keylen)
{
	struct cpt_akcipher_ctx *ctx = akcipher_tfm_ctx(tfm);

	return crypto_akcipher_set_priv_key(ctx->fallback, key, keylen);
}

static unsigned int cpt_akcipher_max_size(struct crypto_akcipher *tfm)
{
	struct cpt_akcipher_ctx *ctx = akcipher_tfm_ctx(tfm);

	return crypto_akcipher_maxsize(ctx->fallback);
}

/*
 * Whether @r, @req's, with @space bytes of output, is answered wrong: as a
 * cipher's request (cpt_wrong_cipher()) of the message's length, keyed
 * with the modulus's bytes: wrong, crosstalk, sgmulti (on either side's
 * list) and len64 apply.
 */
static bool cpt_akcipher_wrong(const struct cpt_req *r,
			       struct akcipher_request *req, unsigned int space,
			       struct cpt_akcipher_ctx *ctx)
{
	unsigned int key = crypto_akcipher_maxsize(ctx->fallback);

	return cpt_wrong_cipher(r, req->src, NULL, req->src_len, req->src_len,
				key) ||
	       cpt_wrong_cipher(r, NULL, req->dst, space, req->src_len, key);
}

/* In the worker: the fallback's request after ours, its lengths copied back. */
static int cpt_akcipher_run(struct cpt_req *r, bool decrypt)
{
	struct akcipher_request *req =
		container_of(r->base, struct akcipher_request, base);
	struct cpt_akcipher_ctx *ctx =
		akcipher_tfm_ctx(crypto_akcipher_reqtfm(req));
	struct akcipher_request *sub = (void *)r->subreq;
	unsigned int space = req->dst_len;
	int err;

	akcipher_request_set_tfm(sub, ctx->fallback);
	akcipher_request_set_callback(sub, CRYPTO_TFM_REQ_MAY_SLEEP, NULL, NULL);
	akcipher_request_set_crypt(sub, req->src, req->dst, req->src_len,
				   req->dst_len);
	err = decrypt ? crypto_akcipher_decrypt(sub) :
			crypto_akcipher_encrypt(sub);
	/* the length needed (-EOVERFLOW) or written */
	req->dst_len = sub->dst_len;
	if (!err && req->dst_len && cpt_akcipher_wrong(r, req, space, ctx))
		cpt_flip(req->dst, req->dst_len - 1);
	return err;
}

static int cpt_akcipher_run_encrypt(struct cpt_req *r)
{
	return cpt_akcipher_run(r, false);
}

static int cpt_akcipher_run_decrypt(struct cpt_req *r)
{
	return cpt_akcipher_run(r, true);
}

static int cpt_akcipher_encrypt(struct akcipher_request *req)
{
	return cpt_submit_worker(akcipher_request_ctx(req), &req->base,
				 cpt_akcipher_run_encrypt);
}

static int cpt_akcipher_decrypt(struct akcipher_request *req)
{
	return cpt_submit_worker(akcipher_request_ctx(req), &req->base,
				 cpt_akcipher_run_decrypt);
}

static struct akcipher_alg cpt_rsa = {
	.encrypt = cpt_akcipher_encrypt,
	.decrypt = cpt_akcipher_decrypt,
	.set_pub_key = cpt_akcipher_set_pub_key,
	.set_priv_key = cpt_akcipher_set_priv_key,
	.max_size = cpt_akcipher_max_size,
	.init = cpt_akcipher_init,
	.exit = cpt_akcipher_exit,
	.base = {
		.cra_name = "rsa",
		.cra_driver_name = "cp_test_engine_rsa",
		.cra_priority = CPT_RSA_PRIORITY,
		.cra_flags = CPT_FLAGS,
		.cra_ctxsize = sizeof(struct cpt_akcipher_ctx),
		.cra_module = THIS_MODULE,
	},
};

int cpt_akcipher_register(void)
{
	return crypto_register_akcipher(&cpt_rsa);
}

void cpt_akcipher_unregister(void)
{
	crypto_unregister_akcipher(&cpt_rsa);
}
