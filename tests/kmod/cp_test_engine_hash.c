// SPDX-License-Identifier: GPL-2.0-only
/*
 * cp_test_engine: sha256 ("cp_test_engine_sha256") and hmac(sha256)
 * ("cp_test_engine_hmac_sha256") as ahash, computed by a synchronous
 * fallback of the same name. init/export/import (and setkey) are done at
 * once; update/final/finup/digest go through the engine. Of the fault
 * modes, digest takes wrong, sgmulti, len64, big and crosstalk (final and
 * finup: wrong), flipping the digest's first byte; update takes updates,
 * ignoring the data of the third and later updates since init. The count
 * is part of the state: export writes it after the fallback's, import
 * reads it back.
 *
 * geometry=small (cp_test_engine_main.c): once its self-test has passed,
 * sha256 claims a 16-byte digest, and writes only that much (the first
 * half of the fallback's).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/internal/hash.h>
#include <crypto/sha2.h>
#include <linux/module.h>

#include "cp_test_engine.h"

struct cpt_hash_ctx {
	struct crypto_ahash *fallback;
};

#define CPT_SMALL_SHA256_DIGEST_SIZE	16

/* After the fallback's request in the context: a digest of its size. */
static u8 *cpt_hash_digest_buf(struct ahash_request *sub)
{
	return (u8 *)sub + sizeof(*sub) +
	       crypto_ahash_reqsize(crypto_ahash_reqtfm(sub));
}

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

/*
 * Whether @op's digest is flipped: mode wrong, or a fault of the shape
 * of the data digest reads (sgmulti, len64, big; crosstalk: in flight
 * with another transform's request). No key192: a hash's key is any
 * length.
 */
static bool cpt_hash_wrong(const struct cpt_req *r, enum cpt_hash_op op,
			   struct ahash_request *req)
{
	if (op != CPT_DIGEST)
		return cpt_wrong();
	return cpt_wrong_cipher(r, req->src, req->src, req->nbytes,
				req->nbytes, 0);
}

static int cpt_hash_run(struct cpt_req *r, enum cpt_hash_op op)
{
	struct ahash_request *req =
		container_of(r->base, struct ahash_request, base);
	struct ahash_request *sub = cpt_sub(req);
	unsigned int ds = crypto_ahash_digestsize(crypto_ahash_reqtfm(req));
	bool shrunk = ds < crypto_ahash_digestsize(crypto_ahash_reqtfm(sub));
	int err = 0;

	/* a claimed digest smaller than the fallback's: truncate it */
	if (shrunk && op != CPT_UPDATE)
		ahash_request_set_crypt(sub, req->src, cpt_hash_digest_buf(sub),
					req->nbytes);
	switch (op) {
	case CPT_UPDATE:
		if (++r->updates >= 3 && cpt_updates())
			return 0;
		return crypto_ahash_update(sub);
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
	if (!err && shrunk)
		memcpy(req->result, cpt_hash_digest_buf(sub), ds);
	if (!err && cpt_hash_wrong(r, op, req))
		req->result[0] ^= 0x01;
	return err;
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

static int cpt_hash_queue(struct ahash_request *req,
			  int (*run)(struct cpt_req *r))
{
	return cpt_submit(ahash_request_ctx(req), &req->base, run);
}

static int cpt_hash_init(struct ahash_request *req)
{
	struct cpt_req *r = ahash_request_ctx(req);

	r->updates = 0;
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

/* The fallback's state, then the count of updates. */
static int cpt_hash_export(struct ahash_request *req, void *out)
{
	struct cpt_req *r = ahash_request_ctx(req);
	struct ahash_request *sub = cpt_sub(req);
	int err = crypto_ahash_export(sub, out);

	if (!err)
		memcpy(out + crypto_ahash_statesize(crypto_ahash_reqtfm(sub)),
		       &r->updates, sizeof(r->updates));
	return err;
}

static int cpt_hash_import(struct ahash_request *req, const void *in)
{
	struct cpt_req *r = ahash_request_ctx(req);
	struct ahash_request *sub = cpt_sub(req);
	int err = crypto_ahash_import(sub, in);

	if (!err)
		memcpy(&r->updates,
		       in + crypto_ahash_statesize(crypto_ahash_reqtfm(sub)),
		       sizeof(r->updates));
	return err;
}

static int cpt_hash_setkey(struct crypto_ahash *tfm, const u8 *key,
			   unsigned int len)
{
	struct cpt_hash_ctx *ctx = crypto_ahash_ctx(tfm);

	return crypto_ahash_setkey(ctx->fallback, key, len);
}

static int cpt_hash_cra_init(struct crypto_tfm *tfm)
{
	struct cpt_hash_ctx *ctx = crypto_tfm_ctx(tfm);

	ctx->fallback = crypto_alloc_ahash(crypto_tfm_alg_name(tfm), 0,
					   CPT_FALLBACK_MASK);
	if (IS_ERR(ctx->fallback))
		return PTR_ERR(ctx->fallback);
	crypto_ahash_set_reqsize(__crypto_ahash_cast(tfm),
				 sizeof(struct cpt_req) +
				 sizeof(struct ahash_request) +
				 crypto_ahash_reqsize(ctx->fallback) +
				 HASH_MAX_DIGESTSIZE);
	return 0;
}

static void cpt_hash_cra_exit(struct crypto_tfm *tfm)
{
	struct cpt_hash_ctx *ctx = crypto_tfm_ctx(tfm);

	crypto_free_ahash(ctx->fallback);
}

/* statesize: set at registration from the fallback's own state size */
#define CPT_AHASH(name, drv, bs, ds, key) {				\
	.init = cpt_hash_init,						\
	.update = cpt_hash_update,					\
	.final = cpt_hash_final,					\
	.finup = cpt_hash_finup,					\
	.digest = cpt_hash_digest,					\
	.export = cpt_hash_export,					\
	.import = cpt_hash_import,					\
	.setkey = key,							\
	.halg = {							\
		.digestsize = ds,					\
		.base = {						\
			.cra_name = name,				\
			.cra_driver_name = drv,				\
			.cra_priority = CPT_PRIORITY,			\
			.cra_flags = CPT_FLAGS,				\
			.cra_blocksize = bs,				\
			.cra_ctxsize = sizeof(struct cpt_hash_ctx),	\
			.cra_init = cpt_hash_cra_init,			\
			.cra_exit = cpt_hash_cra_exit,			\
			.cra_module = THIS_MODULE,			\
		},							\
	},								\
}

static struct ahash_alg cpt_hashes[] = {
	CPT_AHASH("sha256", "cp_test_engine_sha256", SHA256_BLOCK_SIZE,
		  SHA256_DIGEST_SIZE, NULL),
	CPT_AHASH("hmac(sha256)", "cp_test_engine_hmac_sha256",
		  SHA256_BLOCK_SIZE, SHA256_DIGEST_SIZE, cpt_hash_setkey),
};

/*
 * geometry=small: wait for sha256's self-test (an allocation by driver
 * name waits for it, and fails if the test did), then shrink its digest.
 */
static int cpt_hash_shrink(void)
{
	struct hash_alg_common *halg = &cpt_hashes[0].halg;
	struct crypto_ahash *probe;

	probe = crypto_alloc_ahash(halg->base.cra_driver_name, 0, 0);
	if (IS_ERR(probe)) {
		pr_err("geometry=small: %s did not pass its self-test: %ld\n",
		       halg->base.cra_driver_name, PTR_ERR(probe));
		return PTR_ERR(probe);
	}
	crypto_free_ahash(probe);
	halg->digestsize = CPT_SMALL_SHA256_DIGEST_SIZE;
	pr_info("geometry=small: %s claims a %u-byte digest\n",
		halg->base.cra_driver_name, CPT_SMALL_SHA256_DIGEST_SIZE);
	return 0;
}

int cpt_hash_register(void)
{
	struct crypto_ahash *probe;
	int i, r;

	/* our export/import: the fallback's state, then the count of updates */
	for (i = 0; i < ARRAY_SIZE(cpt_hashes); i++) {
		struct hash_alg_common *halg = &cpt_hashes[i].halg;

		probe = crypto_alloc_ahash(halg->base.cra_name, 0,
					   CPT_FALLBACK_MASK);
		if (IS_ERR(probe))
			return PTR_ERR(probe);
		halg->statesize = crypto_ahash_statesize(probe) +
				  sizeof_field(struct cpt_req, updates);
		crypto_free_ahash(probe);
	}
	r = crypto_register_ahashes(cpt_hashes, ARRAY_SIZE(cpt_hashes));
	if (r || !cpt_geometry_small)
		return r;
	r = cpt_hash_shrink();
	if (r)
		crypto_unregister_ahashes(cpt_hashes, ARRAY_SIZE(cpt_hashes));
	return r;
}

void cpt_hash_unregister(void)
{
	crypto_unregister_ahashes(cpt_hashes, ARRAY_SIZE(cpt_hashes));
}
