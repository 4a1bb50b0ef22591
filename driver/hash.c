// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: hash requests through the ahash interface, which serves shash
 * implementations too. One digest() per request; verify.c's cases also
 * init(), update(), final(), finup(), export() and import().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/hash.h>
#include <linux/err.h>

#include "types.h"

/* @t's transform: what cp_tfm's handle holds for this type. */
static struct crypto_ahash *cp_ahash_of(struct cp_tfm *t)
{
	return t->handle;
}

static int cp_hash_alloc(struct cp_tfm *t, const char *name, u32 type, u32 mask)
{
	struct crypto_ahash *tfm = crypto_alloc_ahash(name, type, mask);

	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	t->handle = tfm;
	return 0;
}

static void cp_hash_free(struct cp_tfm *t)
{
	crypto_free_ahash(cp_ahash_of(t));
}

static const char *cp_hash_driver_name(struct cp_tfm *t)
{
	return crypto_tfm_alg_driver_name(crypto_ahash_tfm(cp_ahash_of(t)));
}

static const char *cp_hash_alg_name(struct cp_tfm *t)
{
	return crypto_tfm_alg_name(crypto_ahash_tfm(cp_ahash_of(t)));
}

static void cp_hash_geometry(struct cp_tfm *t, struct cp_geometry *g)
{
	(void)cp_shape_of(cp_hash_alg_name(t), &g->shape);
	g->digestsize = crypto_ahash_digestsize(cp_ahash_of(t));
	g->blocksize = 1;
	/* keyed hashes (hmac, cmac, ghash...) say so before their key is set */
	if (crypto_ahash_get_flags(cp_ahash_of(t)) & CRYPTO_TFM_NEED_KEY)
		g->key_default = g->shape.key ? g->shape.key : CP_HMAC_KEY_LEN;
}

static int cp_hash_setkey(struct cp_tfm *t, const struct cp_geometry *g,
			  const u8 *key, unsigned int len)
{
	return crypto_ahash_setkey(cp_ahash_of(t), key, len);
}

static void *cp_hash_req_alloc(struct cp_tfm *t)
{
	return ahash_request_alloc(cp_ahash_of(t), GFP_KERNEL);
}

static void cp_hash_req_free(void *req)
{
	ahash_request_free(req);
}

static void cp_hash_req_prepare(struct cp_tfm *t, struct cp_slot *slot,
				u32 req_size, const struct cp_geometry *g,
				bool decrypt, crypto_completion_t cb, void *data)
{
	struct ahash_request *req = slot->req;

	ahash_request_set_callback(req, CRYPTO_TFM_REQ_MAY_BACKLOG, cb, data);
	ahash_request_set_crypt(req, slot->src.sgt.sgl, slot->out, req_size);
}

/* A digest; in verify.c's cases, the step the slot says. */
static int cp_hash_submit(struct cp_slot *slot, bool decrypt)
{
	switch (slot->step) {
	case CP_STEP_INIT:
		return crypto_ahash_init(slot->req);
	case CP_STEP_UPDATE:
		return crypto_ahash_update(slot->req);
	case CP_STEP_FINAL:
		return crypto_ahash_final(slot->req);
	case CP_STEP_FINUP:
		return crypto_ahash_finup(slot->req);
	default:
		return crypto_ahash_digest(slot->req);
	}
}

/* A keyed hash takes keys of any length the reference takes (hmac: any). */
static void cp_hash_key_range(struct cp_tfm *t, unsigned int *min,
			      unsigned int *max)
{
	bool keyed = crypto_ahash_get_flags(cp_ahash_of(t)) & CRYPTO_TFM_NEED_KEY;

	*min = keyed ? 1 : 0;
	*max = keyed ? CRYPTOPRIO_MAX_KEY_SIZE : 0;
}

/* A digest of @len bytes of @src into the slot's out; no dst, AD or IV. */
static void cp_hash_req_set(struct cp_tfm *t, struct cp_slot *slot,
			    struct scatterlist *src, struct scatterlist *dst,
			    unsigned int assoclen, unsigned int len,
			    crypto_completion_t cb, void *data)
{
	struct ahash_request *req = slot->req;

	ahash_request_set_callback(req, CRYPTO_TFM_REQ_MAY_BACKLOG, cb, data);
	ahash_request_set_crypt(req, src, slot->out, len);
}

static unsigned int cp_hash_state_size(struct cp_tfm *t)
{
	return crypto_ahash_statesize(cp_ahash_of(t));
}

static int cp_hash_export(struct cp_slot *slot, void *state)
{
	return crypto_ahash_export(slot->req, state);
}

static int cp_hash_import(struct cp_slot *slot, const void *state)
{
	return crypto_ahash_import(slot->req, state);
}

static const struct cp_verify_ops cp_hash_verify_ops = {
	.key_range = cp_hash_key_range,
	.req_set = cp_hash_req_set,
	.digest = true,
	.state_size = cp_hash_state_size,
	.export = cp_hash_export,
	.import = cp_hash_import,
};

const struct cp_type_ops cp_hash_ops = {
	.name = "hash",
	.alloc = cp_hash_alloc,
	.free = cp_hash_free,
	.driver_name = cp_hash_driver_name,
	.alg_name = cp_hash_alg_name,
	.geometry = cp_hash_geometry,
	.setkey = cp_hash_setkey,
	.req_alloc = cp_hash_req_alloc,
	.req_free = cp_hash_req_free,
	.req_prepare = cp_hash_req_prepare,
	.submit = cp_hash_submit,
	.kat = &cp_cipher_kat_ops,
	.verify = &cp_hash_verify_ops,
	.frontend_type = CRYPTO_ALG_TYPE_AHASH,
	.frontend_mask = 0xe,	/* the ahash frontend takes shash too */
	.decrypt_refused = "DECRYPT is for ciphers, not hashes",
};
