// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: AEAD requests. Buffer layout: associated data (16 bytes),
 * the IV for the geniv wrappers (echainiv, seqiv: as IPsec sends it), text,
 * tag (16 bytes or the algorithm's maximum if smaller). Encryption works in
 * place; decryption reads a valid ciphertext from src and writes dst (in
 * place where the slot has no dst), so every request authenticates.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/aead.h>
#include <crypto/authenc.h>
#include <linux/err.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "types.h"

/* @t's transform: what cp_tfm's handle holds for this type. */
static struct crypto_aead *cp_aead_of(struct cp_tfm *t)
{
	return t->handle;
}

static int cp_aead_alloc(struct cp_tfm *t, const char *name, u32 type, u32 mask)
{
	struct crypto_aead *tfm = crypto_alloc_aead(name, type, mask);
	unsigned int authsize;
	int r;

	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	authsize = min_t(unsigned int, CP_AEAD_TAG_LEN, crypto_aead_maxauthsize(tfm));
	r = crypto_aead_setauthsize(tfm, authsize);
	if (r) {
		crypto_free_aead(tfm);
		return r;
	}
	t->handle = tfm;
	return 0;
}

static void cp_aead_free(struct cp_tfm *t)
{
	crypto_free_aead(cp_aead_of(t));
}

static const char *cp_aead_driver_name(struct cp_tfm *t)
{
	return crypto_tfm_alg_driver_name(crypto_aead_tfm(cp_aead_of(t)));
}

static const char *cp_aead_alg_name(struct cp_tfm *t)
{
	return crypto_tfm_alg_name(crypto_aead_tfm(cp_aead_of(t)));
}

static void cp_aead_geometry(struct cp_tfm *t, struct cp_geometry *g)
{
	/* a name that does not parse gets the plain AEAD defaults */
	(void)cp_shape_of(cp_aead_alg_name(t), &g->shape);
	g->ivsize = crypto_aead_ivsize(cp_aead_of(t));
	g->blocksize = crypto_aead_blocksize(cp_aead_of(t));
	g->out_extra = crypto_aead_authsize(cp_aead_of(t));
	g->assoclen = CP_AEAD_ASSOC_LEN;
	g->iv_in_data = g->shape.geniv ? g->ivsize : 0;
	g->key_default = g->shape.key ? g->shape.key : 16;
}

/*
 * @len is the cipher key size. The nonce of rfc4106 & co. follows the key;
 * authenc takes the kernel's authenc key format: a parameter attribute,
 * the authentication key, then the cipher key.
 */
static int cp_aead_setkey(struct cp_tfm *t, const struct cp_geometry *g,
			  const u8 *key, unsigned int len)
{
	unsigned int auth_len = g->shape.auth_key;
	struct crypto_authenc_key_param *param;
	struct rtattr *rta;
	unsigned int blob_len;
	u8 *blob;
	int r;

	if (!g->shape.authenc) {
		if (len + g->shape.nonce > CRYPTOPRIO_MAX_KEY_SIZE)
			return -EINVAL;
		return crypto_aead_setkey(cp_aead_of(t), key, len + g->shape.nonce);
	}

	if (len > CRYPTOPRIO_MAX_KEY_SIZE || auth_len > CP_MAX_AUTH_KEY_LEN)
		return -EINVAL;
	blob_len = RTA_SPACE(sizeof(*param)) + auth_len + len;
	blob = kzalloc(blob_len, GFP_KERNEL);
	if (!blob)
		return -ENOMEM;
	rta = (struct rtattr *)blob;
	rta->rta_type = CRYPTO_AUTHENC_KEYA_PARAM;
	rta->rta_len = RTA_LENGTH(sizeof(*param));
	param = RTA_DATA(rta);
	param->enckeylen = cpu_to_be32(len);
	/* authentication key, then encryption key, from the same random bytes */
	memcpy(blob + RTA_SPACE(sizeof(*param)), key + len, auth_len);
	memcpy(blob + RTA_SPACE(sizeof(*param)) + auth_len, key, len);
	r = crypto_aead_setkey(cp_aead_of(t), blob, blob_len);
	kfree_sensitive(blob);
	return r;
}

static void *cp_aead_req_alloc(struct cp_tfm *t)
{
	return aead_request_alloc(cp_aead_of(t), GFP_KERNEL);
}

static void cp_aead_req_free(void *req)
{
	aead_request_free(req);
}

static void cp_aead_req_prepare(struct cp_tfm *t, struct cp_slot *slot,
				u32 req_size, const struct cp_geometry *g,
				bool decrypt, crypto_completion_t cb, void *data)
{
	struct aead_request *req = slot->req;
	struct scatterlist *src = slot->src.sgt.sgl;
	struct scatterlist *dst = slot->dst.sgt.sgl ? slot->dst.sgt.sgl : src;
	unsigned int len = g->iv_in_data + req_size;

	aead_request_set_callback(req, CRYPTO_TFM_REQ_MAY_BACKLOG, cb, data);
	aead_request_set_ad(req, g->assoclen);
	if (decrypt)
		aead_request_set_crypt(req, src, dst, len + g->out_extra, slot->iv);
	else
		aead_request_set_crypt(req, src, src, len, slot->iv);
}

static int cp_aead_submit(struct cp_slot *slot, bool decrypt)
{
	return decrypt ? crypto_aead_decrypt(slot->req) :
			 crypto_aead_encrypt(slot->req);
}

/* An AEAD advertises no key size: verify.c keeps those the reference takes. */
static void cp_aead_key_range(struct cp_tfm *t, unsigned int *min,
			      unsigned int *max)
{
	*min = 1;
	*max = CRYPTOPRIO_MAX_KEY_SIZE;
}

static unsigned int cp_aead_max_tag(struct cp_tfm *t)
{
	return crypto_aead_maxauthsize(cp_aead_of(t));
}

static int cp_aead_set_tag(struct cp_tfm *t, unsigned int len)
{
	return crypto_aead_setauthsize(cp_aead_of(t), len);
}

static void cp_aead_req_set(struct cp_tfm *t, struct cp_slot *slot,
			    struct scatterlist *src, struct scatterlist *dst,
			    unsigned int assoclen, unsigned int len,
			    crypto_completion_t cb, void *data)
{
	struct aead_request *req = slot->req;

	aead_request_set_callback(req, CRYPTO_TFM_REQ_MAY_BACKLOG, cb, data);
	aead_request_set_ad(req, assoclen);
	aead_request_set_crypt(req, src, dst, len, slot->iv);
}

static const struct cp_verify_ops cp_aead_verify_ops = {
	.key_range = cp_aead_key_range,
	.max_tag = cp_aead_max_tag,
	.set_tag = cp_aead_set_tag,
	.req_set = cp_aead_req_set,
};

const struct cp_type_ops cp_aead_ops = {
	.name = "aead",
	.alloc = cp_aead_alloc,
	.free = cp_aead_free,
	.driver_name = cp_aead_driver_name,
	.alg_name = cp_aead_alg_name,
	.geometry = cp_aead_geometry,
	.setkey = cp_aead_setkey,
	.req_alloc = cp_aead_req_alloc,
	.req_free = cp_aead_req_free,
	.req_prepare = cp_aead_req_prepare,
	.submit = cp_aead_submit,
	.kat = &cp_cipher_kat_ops,
	.verify = &cp_aead_verify_ops,
	.frontend_type = CRYPTO_ALG_TYPE_AEAD,
	.frontend_mask = CRYPTO_ALG_TYPE_MASK,
	.dst = CP_DST_DECRYPT,
	.whole_blocks = true,
};
