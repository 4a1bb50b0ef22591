// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: skcipher requests.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/skcipher.h>
#include <linux/err.h>

#include "types.h"

/* @t's transform: what cp_tfm's handle holds for this type. */
static struct crypto_skcipher *cp_skcipher_of(struct cp_tfm *t)
{
	return t->handle;
}

static int cp_sk_alloc(struct cp_tfm *t, const char *name, u32 type, u32 mask)
{
	struct crypto_skcipher *tfm = crypto_alloc_skcipher(name, type, mask);

	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	t->handle = tfm;
	return 0;
}

static void cp_sk_free(struct cp_tfm *t)
{
	crypto_free_skcipher(cp_skcipher_of(t));
}

static const char *cp_sk_driver_name(struct cp_tfm *t)
{
	return crypto_tfm_alg_driver_name(crypto_skcipher_tfm(cp_skcipher_of(t)));
}

static const char *cp_sk_alg_name(struct cp_tfm *t)
{
	return crypto_tfm_alg_name(crypto_skcipher_tfm(cp_skcipher_of(t)));
}

static void cp_sk_geometry(struct cp_tfm *t, struct cp_geometry *g)
{
	(void)cp_shape_of(cp_sk_alg_name(t), &g->shape);
	g->ivsize = crypto_skcipher_ivsize(cp_skcipher_of(t));
	g->blocksize = crypto_skcipher_blocksize(cp_skcipher_of(t));
	/* AES-128 where the algorithm allows it, else its minimum. */
	g->key_default = crypto_skcipher_min_keysize(cp_skcipher_of(t));
	if (g->key_default < 16 &&
	    crypto_skcipher_max_keysize(cp_skcipher_of(t)) >= 16)
		g->key_default = 16;
}

static int cp_sk_setkey(struct cp_tfm *t, const struct cp_geometry *g,
			const u8 *key, unsigned int len)
{
	return crypto_skcipher_setkey(cp_skcipher_of(t), key, len);
}

static void *cp_sk_req_alloc(struct cp_tfm *t)
{
	return skcipher_request_alloc(cp_skcipher_of(t), GFP_KERNEL);
}

static void cp_sk_req_free(void *req)
{
	skcipher_request_free(req);
}

static void cp_sk_req_prepare(struct cp_tfm *t, struct cp_slot *slot,
			      u32 req_size, const struct cp_geometry *g,
			      bool decrypt, crypto_completion_t cb, void *data)
{
	struct skcipher_request *req = slot->req;

	skcipher_request_set_callback(req, CRYPTO_TFM_REQ_MAY_BACKLOG, cb, data);
	skcipher_request_set_crypt(req, slot->src.sgt.sgl, slot->src.sgt.sgl,
				   req_size, slot->iv);
}

static int cp_sk_submit(struct cp_slot *slot, bool decrypt)
{
	return decrypt ? crypto_skcipher_decrypt(slot->req) :
			 crypto_skcipher_encrypt(slot->req);
}

static void cp_sk_key_range(struct cp_tfm *t, unsigned int *min,
			    unsigned int *max)
{
	*min = crypto_skcipher_min_keysize(cp_skcipher_of(t));
	*max = crypto_skcipher_max_keysize(cp_skcipher_of(t));
}

static void cp_sk_req_set(struct cp_tfm *t, struct cp_slot *slot,
			  struct scatterlist *src, struct scatterlist *dst,
			  unsigned int assoclen, unsigned int len,
			  crypto_completion_t cb, void *data)
{
	struct skcipher_request *req = slot->req;

	skcipher_request_set_callback(req, CRYPTO_TFM_REQ_MAY_BACKLOG, cb, data);
	skcipher_request_set_crypt(req, src, dst, len, slot->iv);
}

static const struct cp_verify_ops cp_sk_verify_ops = {
	.key_range = cp_sk_key_range,
	.req_set = cp_sk_req_set,
};

/*
 * The skcipher frontend looks lskciphers up too since 6.7 (its maskset,
 * private to the kernel, is 0xe then).
 */
#ifdef CRYPTO_ALG_TYPE_LSKCIPHER
#define CP_SKCIPHER_FRONTEND_MASK	0xe
#else
#define CP_SKCIPHER_FRONTEND_MASK	CRYPTO_ALG_TYPE_MASK
#endif

const struct cp_type_ops cp_skcipher_ops = {
	.name = "skcipher",
	.alloc = cp_sk_alloc,
	.free = cp_sk_free,
	.driver_name = cp_sk_driver_name,
	.alg_name = cp_sk_alg_name,
	.geometry = cp_sk_geometry,
	.setkey = cp_sk_setkey,
	.req_alloc = cp_sk_req_alloc,
	.req_free = cp_sk_req_free,
	.req_prepare = cp_sk_req_prepare,
	.submit = cp_sk_submit,
	.kat = &cp_cipher_kat_ops,
	.verify = &cp_sk_verify_ops,
	.frontend_type = CRYPTO_ALG_TYPE_SKCIPHER,
	.frontend_mask = CP_SKCIPHER_FRONTEND_MASK,
	.whole_blocks = true,
};
