// SPDX-License-Identifier: GPL-2.0-only
/*
 * cp_caam_engine: HMAC-SHA256 by hand (RFC 2104) over the CPU's "sha256"
 * shash, for the ahash hmac(sha256) ("hmac-sha256-cp-caam") and for
 * authenc. Never "hmac(sha256)" itself: that would instantiate the
 * kernel's hmac template, the CPU implementation of a name this engine
 * serves alone.
 *
 * The ahash keeps the inner hash's shash state in the request: init
 * (ipad block hashed) and export/import are done at once;
 * update/final/finup/digest go through the engine.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/internal/hash.h>
#include <crypto/scatterwalk.h>
#include <linux/module.h>
#include <linux/string.h>

#include "cp_caam_engine.h"

int cpc_hmac_init(struct cpc_hmac *h)
{
	h->sha = crypto_alloc_shash("sha256", 0, 0);
	return PTR_ERR_OR_ZERO(h->sha);
}

void cpc_hmac_exit(struct cpc_hmac *h)
{
	crypto_free_shash(h->sha);
}

int cpc_hmac_setkey(struct cpc_hmac *h, const u8 *key, unsigned int len)
{
	u8 k[SHA256_BLOCK_SIZE] = {};
	int i, err;

	if (len > SHA256_BLOCK_SIZE) {
		err = crypto_shash_tfm_digest(h->sha, key, len, k);
		if (err)
			return err;
	} else {
		memcpy(k, key, len);
	}
	for (i = 0; i < SHA256_BLOCK_SIZE; i++) {
		h->ipad[i] = k[i] ^ 0x36;
		h->opad[i] = k[i] ^ 0x5c;
	}
	memzero_explicit(k, sizeof(k));
	return 0;
}

/* Hash @len bytes of @sg from @off into @desc, a chunk at a time. */
int cpc_hash_sg(struct shash_desc *desc, struct scatterlist *sg,
		unsigned int off, unsigned int len)
{
	u8 buf[CPC_CHUNK];
	int err = 0;

	while (len && !err) {
		unsigned int n = min_t(unsigned int, len, sizeof(buf));

		scatterwalk_map_and_copy(buf, sg, off, n, 0);
		err = crypto_shash_update(desc, buf, n);
		off += n;
		len -= n;
	}
	return err;
}

static int cpc_hmac_start(struct cpc_hmac *h, struct shash_desc *desc)
{
	desc->tfm = h->sha;
	return crypto_shash_init(desc) ?:
	       crypto_shash_update(desc, h->ipad, SHA256_BLOCK_SIZE);
}

/* The outer hash: @out = H(opad || inner hash in @desc). */
static int cpc_hmac_finish(struct cpc_hmac *h, struct shash_desc *desc,
			   u8 *out)
{
	u8 inner[SHA256_DIGEST_SIZE];
	int err;

	err = crypto_shash_final(desc, inner) ?:
	      crypto_shash_init(desc) ?:
	      crypto_shash_update(desc, h->opad, SHA256_BLOCK_SIZE) ?:
	      crypto_shash_finup(desc, inner, sizeof(inner), out);
	memzero_explicit(inner, sizeof(inner));
	return err;
}

/* @out = HMAC(key, the first @len bytes of @sg) */
int cpc_hmac_sg(struct cpc_hmac *h, struct scatterlist *sg, unsigned int len,
		u8 *out)
{
	SHASH_DESC_ON_STACK(desc, h->sha);
	int err;

	err = cpc_hmac_start(h, desc) ?:
	      cpc_hash_sg(desc, sg, 0, len) ?:
	      cpc_hmac_finish(h, desc, out);
	shash_desc_zero(desc);
	return err;
}

/* the ahash hmac(sha256) */

struct cpc_hash_ctx {
	struct cpc_hmac h;
};

/* the request's inner hash, after the engine's part of its context */
static struct shash_desc *cpc_desc(struct ahash_request *req)
{
	struct cpt_req *r = ahash_request_ctx(req);

	return (struct shash_desc *)r->subreq;
}

static struct cpc_hash_ctx *cpc_hash_ctx(struct ahash_request *req)
{
	return crypto_ahash_ctx(crypto_ahash_reqtfm(req));
}

enum cpc_hash_op { CPC_UPDATE, CPC_FINAL, CPC_FINUP, CPC_DIGEST };

static int cpc_hash_run(struct cpt_req *r, enum cpc_hash_op op)
{
	struct ahash_request *req =
		container_of(r->base, struct ahash_request, base);
	struct cpc_hash_ctx *ctx = cpc_hash_ctx(req);
	struct shash_desc *desc = cpc_desc(req);
	int err = 0;

	if (op == CPC_DIGEST)
		err = cpc_hmac_start(&ctx->h, desc);
	if (!err && op != CPC_FINAL)
		err = cpc_hash_sg(desc, req->src, 0, req->nbytes);
	if (err || op == CPC_UPDATE)
		return err;
	err = cpc_hmac_finish(&ctx->h, desc, req->result);
	if (!err && cpt_wrong())
		req->result[0] ^= 0x01;
	return err;
}

static int cpc_hash_run_update(struct cpt_req *r)
{
	return cpc_hash_run(r, CPC_UPDATE);
}

static int cpc_hash_run_final(struct cpt_req *r)
{
	return cpc_hash_run(r, CPC_FINAL);
}

static int cpc_hash_run_finup(struct cpt_req *r)
{
	return cpc_hash_run(r, CPC_FINUP);
}

static int cpc_hash_run_digest(struct cpt_req *r)
{
	return cpc_hash_run(r, CPC_DIGEST);
}

static int cpc_hash_queue(struct ahash_request *req,
			  int (*run)(struct cpt_req *r))
{
	return cpt_submit(ahash_request_ctx(req), &req->base, run);
}

static int cpc_hash_init(struct ahash_request *req)
{
	return cpc_hmac_start(&cpc_hash_ctx(req)->h, cpc_desc(req));
}

static int cpc_hash_update(struct ahash_request *req)
{
	return cpc_hash_queue(req, cpc_hash_run_update);
}

static int cpc_hash_final(struct ahash_request *req)
{
	return cpc_hash_queue(req, cpc_hash_run_final);
}

static int cpc_hash_finup(struct ahash_request *req)
{
	return cpc_hash_queue(req, cpc_hash_run_finup);
}

static int cpc_hash_digest(struct ahash_request *req)
{
	return cpc_hash_queue(req, cpc_hash_run_digest);
}

/* the state is the inner hash's: sha256's own export format */
static int cpc_hash_export(struct ahash_request *req, void *out)
{
	return crypto_shash_export(cpc_desc(req), out);
}

static int cpc_hash_import(struct ahash_request *req, const void *in)
{
	struct shash_desc *desc = cpc_desc(req);

	desc->tfm = cpc_hash_ctx(req)->h.sha;
	return crypto_shash_import(desc, in);
}

static int cpc_hash_setkey(struct crypto_ahash *tfm, const u8 *key,
			   unsigned int len)
{
	struct cpc_hash_ctx *ctx = crypto_ahash_ctx(tfm);

	return cpc_hmac_setkey(&ctx->h, key, len);
}

static int cpc_hash_cra_init(struct crypto_tfm *tfm)
{
	struct cpc_hash_ctx *ctx = crypto_tfm_ctx(tfm);
	int err = cpc_hmac_init(&ctx->h);

	if (err)
		return err;
	crypto_ahash_set_reqsize(__crypto_ahash_cast(tfm),
				 sizeof(struct cpt_req) +
				 sizeof(struct shash_desc) +
				 crypto_shash_descsize(ctx->h.sha));
	return 0;
}

static void cpc_hash_cra_exit(struct crypto_tfm *tfm)
{
	struct cpc_hash_ctx *ctx = crypto_tfm_ctx(tfm);

	cpc_hmac_exit(&ctx->h);
}

/* statesize: set at registration from sha256's own */
static struct ahash_alg cpc_hmac_sha256 = {
	.init = cpc_hash_init,
	.update = cpc_hash_update,
	.final = cpc_hash_final,
	.finup = cpc_hash_finup,
	.digest = cpc_hash_digest,
	.export = cpc_hash_export,
	.import = cpc_hash_import,
	.setkey = cpc_hash_setkey,
	.halg = {
		.digestsize = SHA256_DIGEST_SIZE,
		.base = {
			.cra_name = "hmac(sha256)",
			.cra_driver_name = "hmac-sha256-cp-caam",
			.cra_priority = CPC_PRIORITY,
			.cra_flags = CPC_FLAGS,
			.cra_blocksize = SHA256_BLOCK_SIZE,
			.cra_ctxsize = sizeof(struct cpc_hash_ctx),
			.cra_init = cpc_hash_cra_init,
			.cra_exit = cpc_hash_cra_exit,
			.cra_module = THIS_MODULE,
		},
	},
};

int cpc_hash_register(void)
{
	struct crypto_shash *sha = crypto_alloc_shash("sha256", 0, 0);

	if (IS_ERR(sha))
		return PTR_ERR(sha);
	cpc_hmac_sha256.halg.statesize = crypto_shash_statesize(sha);
	crypto_free_shash(sha);
	return crypto_register_ahash(&cpc_hmac_sha256);
}

void cpc_hash_unregister(void)
{
	crypto_unregister_ahash(&cpc_hmac_sha256);
}
