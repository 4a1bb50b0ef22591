// SPDX-License-Identifier: GPL-2.0-only
/*
 * cp_test_engine: ecdh-nist-p256 as a kpp ("cp_test_engine_ecdh"), computed
 * by the CPU's ecdh-nist-p256-generic, as CAAM, QAT, HiSilicon's hpre and
 * Keem Bay's OCS register theirs. The private key is the fallback's
 * (set_secret forwarded); modes wrong, crosstalk and sgmulti (on either
 * list) flip the last byte of the output (the public key, or the shared
 * secret); mode lax answers zeros for a peer key the fallback refuses.
 *
 * ecdh-nist-p256-generic allocates with GFP_KERNEL: it may sleep, so every
 * request is computed by the engine's worker (cpt_submit_worker), whatever
 * the completion parameter says.
 *
 * Registered at priority 50, below ecdh-nist-p256-generic's 100, so that
 * the kernel's users of the name (Bluetooth's SMP, NVMe's in-band
 * authentication, crypto_alloc_kpp("ecdh-nist-p256") of any module) keep
 * the CPU's: in hang mode the engine would hang them, and the scenarios
 * that rank the name's drivers keep the order they had.
 *
 * Registered only when the module is loaded with ecdh=1, and then only if
 * ecdh-nist-p256-generic is registered already (modprobe ecdh_generic
 * first): the kernel cannot load ecdh_generic by that name (its aliases
 * are "ecdh" and "crypto-ecdh"), so the self-test would fail without it;
 * and loading it with the engine would add its curves to every scenario
 * that loads the engine.
 *
 * The calls (crypto_alloc_kpp, kpp_request_set_*, crypto_kpp_set_secret/
 * generate_public_key/compute_shared_secret/maxsize/reqsize) and
 * kpp_set_reqsize() are the same on 6.1, 6.12 and 7.2, and so is struct
 * kpp_alg's set_secret, generate_public_key, compute_shared_secret,
 * max_size, init, exit and base (6.1 keeps the request size in the alg,
 * which kpp_set_reqsize() writes: the same for every transform here).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/internal/kpp.h>
#include <crypto/kpp.h>
#include <linux/module.h>

#include "cp_test_engine.h"

#define CPT_ECDH_PRIORITY	50
#define CPT_ECDH_FALLBACK	"ecdh-nist-p256-generic"

static bool cpt_ecdh_on;
module_param_named(ecdh, cpt_ecdh_on, bool, 0444);
MODULE_PARM_DESC(ecdh, "register cp_test_engine_ecdh too (load time; needs " CPT_ECDH_FALLBACK " registered: modprobe ecdh_generic first)");

static bool cpt_ecdh_registered;

struct cpt_kpp_ctx {
	struct crypto_kpp *fallback;
};

static int cpt_kpp_init(struct crypto_kpp *tfm)
{
	struct cpt_kpp_ctx *ctx = kpp_tfm_ctx(tfm);

	ctx->fallback = crypto_alloc_kpp(CPT_ECDH_FALLBACK, 0, CPT_FALLBACK_MASK);
	if (IS_ERR(ctx->fallback))
		return PTR_ERR(ctx->fallback);
	kpp_set_reqsize(tfm, sizeof(struct cpt_req) + sizeof(struct kpp_request) +
			crypto_kpp_reqsize(ctx->fallback));
	return 0;
}

static void cpt_kpp_exit(struct crypto_kpp *tfm)
{
	struct cpt_kpp_ctx *ctx = kpp_tfm_ctx(tfm);

	crypto_free_kpp(ctx->fallback);
}

static int cpt_kpp_set_secret(struct crypto_kpp *tfm, const void *buf,
			      unsigned int len)
{
	struct cpt_kpp_ctx *ctx = kpp_tfm_ctx(tfm);

	return crypto_kpp_set_secret(ctx->fallback, buf, len);
}

static unsigned int cpt_kpp_max_size(struct crypto_kpp *tfm)
{
	struct cpt_kpp_ctx *ctx = kpp_tfm_ctx(tfm);

	return crypto_kpp_maxsize(ctx->fallback);
}

/*
 * Whether @r, @req's, with @space bytes of output, is answered wrong: as a
 * cipher's request (cpt_wrong_cipher()) of the peer key's length, without
 * a key size.
 */
static bool cpt_kpp_wrong(const struct cpt_req *r, struct kpp_request *req,
			  unsigned int space)
{
	return cpt_wrong_cipher(r, req->src, NULL, req->src_len, req->src_len,
				0) ||
	       cpt_wrong_cipher(r, NULL, req->dst, space, req->src_len, 0);
}

/* In the worker: the fallback's request after ours, its lengths copied back. */
static int cpt_kpp_run(struct cpt_req *r, bool shared)
{
	struct kpp_request *req = container_of(r->base, struct kpp_request, base);
	struct cpt_kpp_ctx *ctx = kpp_tfm_ctx(crypto_kpp_reqtfm(req));
	struct kpp_request *sub = (void *)r->subreq;
	unsigned int space = req->dst_len;
	int err;

	kpp_request_set_tfm(sub, ctx->fallback);
	kpp_request_set_callback(sub, CRYPTO_TFM_REQ_MAY_SLEEP, NULL, NULL);
	/* generate_public_key has no input: src NULL, src_len 0 */
	kpp_request_set_input(sub, req->src, req->src_len);
	kpp_request_set_output(sub, req->dst, req->dst_len);
	err = shared ? crypto_kpp_compute_shared_secret(sub) :
		       crypto_kpp_generate_public_key(sub);
	req->dst_len = sub->dst_len;
	if (err == -EINVAL && shared && cpt_lax()) {
		/* the point's check skipped: an answer all the same */
		sg_zero_buffer(req->dst, sg_nents(req->dst), req->dst_len, 0);
		return 0;
	}
	if (!err && req->dst_len && cpt_kpp_wrong(r, req, space))
		cpt_flip(req->dst, req->dst_len - 1);
	return err;
}

static int cpt_kpp_run_public_key(struct cpt_req *r)
{
	return cpt_kpp_run(r, false);
}

static int cpt_kpp_run_shared_secret(struct cpt_req *r)
{
	return cpt_kpp_run(r, true);
}

static int cpt_kpp_generate_public_key(struct kpp_request *req)
{
	return cpt_submit_worker(kpp_request_ctx(req), &req->base,
				 cpt_kpp_run_public_key);
}

static int cpt_kpp_compute_shared_secret(struct kpp_request *req)
{
	return cpt_submit_worker(kpp_request_ctx(req), &req->base,
				 cpt_kpp_run_shared_secret);
}

static struct kpp_alg cpt_ecdh = {
	.set_secret = cpt_kpp_set_secret,
	.generate_public_key = cpt_kpp_generate_public_key,
	.compute_shared_secret = cpt_kpp_compute_shared_secret,
	.max_size = cpt_kpp_max_size,
	.init = cpt_kpp_init,
	.exit = cpt_kpp_exit,
	.base = {
		.cra_name = "ecdh-nist-p256",
		.cra_driver_name = "cp_test_engine_ecdh",
		.cra_priority = CPT_ECDH_PRIORITY,
		.cra_flags = CPT_FLAGS,
		.cra_ctxsize = sizeof(struct cpt_kpp_ctx),
		.cra_module = THIS_MODULE,
	},
};

/* Before anything registers: ecdh=1 without the fallback fails the load. */
int cpt_kpp_check(void)
{
	if (cpt_ecdh_on &&
	    !crypto_has_alg(CPT_ECDH_FALLBACK, CRYPTO_ALG_TYPE_KPP,
			    CRYPTO_ALG_TYPE_MASK | CRYPTO_NOLOAD)) {
		pr_err("ecdh=1 needs " CPT_ECDH_FALLBACK " registered: modprobe ecdh_generic first\n");
		return -ENOENT;
	}
	return 0;
}

int cpt_kpp_register(void)
{
	int r;

	if (!cpt_ecdh_on)
		return 0;
	r = crypto_register_kpp(&cpt_ecdh);
	cpt_ecdh_registered = !r;
	return r;
}

void cpt_kpp_unregister(void)
{
	if (cpt_ecdh_registered)
		crypto_unregister_kpp(&cpt_ecdh);
	cpt_ecdh_registered = false;
}
