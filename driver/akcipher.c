// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: public-key operations through the akcipher interface. Of
 * the names registered as akciphers, rsa is measured: its public-key
 * operation, raw RSA encryption (m^e mod n), which is what the
 * verification of an RSA signature costs (the padding around it is the
 * CPU's work on every implementation). The key is fixed (below): one
 * request is one message of one modulus, REQ_SIZE the key's bytes.
 *
 * The calls used have the same form on 6.1, 6.12 and 7.2:
 * crypto_alloc_akcipher(), crypto_akcipher_set_pub_key(),
 * crypto_akcipher_maxsize(), akcipher_request_alloc(tfm, gfp),
 * akcipher_request_set_callback(), akcipher_request_set_crypt() and
 * crypto_akcipher_encrypt(). 6.13 moved sign and verify to the sig type
 * (pkcs1, ecdsa); rsa stayed an akcipher with encrypt and decrypt.
 * crypto_akcipher_maxsize() dereferences the key on rsa-generic: it is
 * called only once a key is set.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/akcipher.h>
#include <linux/err.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "types.h"

/* @t's transform: what cp_tfm's handle holds for this type. */
static struct crypto_akcipher *cp_akcipher_of(struct cp_tfm *t)
{
	return t->handle;
}

/*
 * A 2048-bit RSA public key made for this module (e = 65537), as
 * crypto_akcipher_set_pub_key() takes it: RsaPubKey, SEQUENCE { n INTEGER,
 * e INTEGER }, in DER. Its modulus has its top bit set, as every 2048-bit
 * modulus has: a message whose top bit is clear is below it.
 */
static const u8 cp_rsa_pub_key[] = {
	0x30, 0x82, 0x01, 0x0a, 0x02, 0x82, 0x01, 0x01, 0x00, 0xb0, 0xd9, 0xe9,
	0xa5, 0xc1, 0xc0, 0xf2, 0x9a, 0x9f, 0xe1, 0xfa, 0x59, 0x85, 0x1c, 0x55,
	0x3a, 0xd7, 0x69, 0xfb, 0x85, 0x3e, 0x31, 0x55, 0x9d, 0x26, 0xdc, 0xbd,
	0xfb, 0x78, 0xee, 0x36, 0x2f, 0xa3, 0x59, 0x07, 0xb4, 0x48, 0x9f, 0x4c,
	0xd7, 0x2c, 0xac, 0x6b, 0xef, 0xde, 0x8c, 0x45, 0x29, 0x89, 0x06, 0xfb,
	0xd2, 0x55, 0x6c, 0x8d, 0x8d, 0xb4, 0x3b, 0x05, 0xfb, 0xb9, 0x24, 0x2a,
	0x2f, 0xc6, 0x8d, 0xae, 0x17, 0x3f, 0x08, 0xe7, 0xfc, 0x5a, 0x3f, 0xf5,
	0x4e, 0xe8, 0x84, 0x3f, 0xbc, 0x6c, 0xe0, 0x03, 0xb6, 0x68, 0x10, 0x20,
	0xaf, 0xe2, 0x24, 0xa5, 0x2a, 0xc0, 0x5a, 0xd3, 0x67, 0x25, 0xbb, 0x29,
	0xa0, 0x02, 0x8c, 0x65, 0x3c, 0xb3, 0x0a, 0x69, 0xe6, 0xc1, 0xbd, 0x65,
	0xd9, 0x73, 0x3a, 0x52, 0x2c, 0x78, 0xef, 0x5e, 0x41, 0x7a, 0x4e, 0xcd,
	0x3d, 0x7f, 0x42, 0x2d, 0x45, 0x6b, 0xd7, 0x1d, 0xd5, 0x99, 0x4b, 0x78,
	0x1d, 0xd3, 0x40, 0x66, 0xe8, 0x0c, 0xbc, 0x74, 0xbb, 0xb8, 0x27, 0x13,
	0xb6, 0xa1, 0xfd, 0x94, 0xfb, 0x2a, 0x6c, 0xc5, 0xf1, 0x62, 0x55, 0x48,
	0xdf, 0xab, 0x5d, 0x1b, 0xcf, 0x1c, 0x08, 0xff, 0xd2, 0x9c, 0xc3, 0xf0,
	0x1b, 0x54, 0x74, 0xc9, 0xbb, 0xf6, 0x53, 0xab, 0x84, 0x48, 0xa9, 0x52,
	0x1f, 0x08, 0x10, 0x54, 0x27, 0xba, 0xed, 0x77, 0xe9, 0x01, 0xff, 0x87,
	0x58, 0x21, 0xb7, 0x53, 0xf5, 0xa3, 0x47, 0x42, 0xa9, 0x94, 0xf5, 0x53,
	0x8b, 0xc4, 0x37, 0xb1, 0xb9, 0xf7, 0xeb, 0xff, 0x6d, 0x26, 0x18, 0x46,
	0x72, 0x1a, 0xc4, 0xac, 0x0d, 0x34, 0xef, 0x2b, 0x46, 0xae, 0x2c, 0x4d,
	0x69, 0xeb, 0x4f, 0x6b, 0x47, 0xa1, 0xaa, 0x89, 0x68, 0x9c, 0xa3, 0xb9,
	0xc4, 0x0a, 0xbb, 0x5e, 0xf9, 0x75, 0x83, 0x3b, 0xe4, 0xc4, 0x2e, 0x7f,
	0xad, 0x02, 0x03, 0x01, 0x00, 0x01,
};

static int cp_akcipher_alloc(struct cp_tfm *t, const char *name, u32 type,
			     u32 mask)
{
	struct crypto_akcipher *tfm = crypto_alloc_akcipher(name, type, mask);

	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	t->handle = tfm;
	return 0;
}

static void cp_akcipher_free(struct cp_tfm *t)
{
	crypto_free_akcipher(cp_akcipher_of(t));
}

static const char *cp_akcipher_driver_name(struct cp_tfm *t)
{
	return crypto_tfm_alg_driver_name(crypto_akcipher_tfm(cp_akcipher_of(t)));
}

static const char *cp_akcipher_alg_name(struct cp_tfm *t)
{
	return crypto_tfm_alg_name(crypto_akcipher_tfm(cp_akcipher_of(t)));
}

static void cp_akcipher_geometry(struct cp_tfm *t, struct cp_geometry *g)
{
	g->blocksize = 1;
	/* padding schemes (pkcs1pad) and ecdsa (before 6.13) are not raw RSA */
	g->rsa = !strcmp(cp_akcipher_alg_name(t), "rsa");
	g->key_default = CP_RSA_KEY_BYTES;
}

/* Only raw RSA is measured, with the module's key, a modulus per request. */
static int cp_akcipher_check(const struct cp_params *p,
			     const struct cp_geometry *g,
			     struct netlink_ext_ack *extack)
{
	if (!g->rsa) {
		NL_SET_ERR_MSG(extack, "of the akciphers only rsa is measured (its public-key operation)");
		return -EOPNOTSUPP;
	}
	if (p->key_size && p->key_size != CP_RSA_KEY_BYTES) {
		NL_SET_ERR_MSG(extack, "the module's RSA key is 2048 bits: KEY_SIZE 256 or none");
		return -EINVAL;
	}
	if (p->req_size != CP_RSA_KEY_BYTES) {
		NL_SET_ERR_MSG(extack, "an RSA request is one message of one modulus: REQ_SIZE must be 256, the key's bytes");
		return -EINVAL;
	}
	return 0;
}

/* The fixed public key, whatever @key holds: @len must be its size. */
static int cp_akcipher_setkey(struct cp_tfm *t, const struct cp_geometry *g,
			      const u8 *key, unsigned int len)
{
	int r;

	if (len != CP_RSA_KEY_BYTES)
		return -EINVAL;
	r = crypto_akcipher_set_pub_key(cp_akcipher_of(t), cp_rsa_pub_key,
					sizeof(cp_rsa_pub_key));
	if (!r && crypto_akcipher_maxsize(cp_akcipher_of(t)) != CP_RSA_KEY_BYTES)
		r = -EINVAL;
	return r;
}

static void *cp_akcipher_req_alloc(struct cp_tfm *t)
{
	return akcipher_request_alloc(cp_akcipher_of(t), GFP_KERNEL);
}

static void cp_akcipher_req_free(void *req)
{
	akcipher_request_free(req);
}

/* Lengths anew for each request: a completed one holds its output's in dst_len. */
static void cp_akcipher_set_crypt(struct cp_slot *slot)
{
	akcipher_request_set_crypt(slot->req, slot->src.sgt.sgl,
				   slot->dst.sgt.sgl, slot->src.len,
				   slot->dst.len);
}

static void cp_akcipher_req_prepare(struct cp_tfm *t, struct cp_slot *slot,
				    u32 req_size, const struct cp_geometry *g,
				    bool decrypt, crypto_completion_t cb,
				    void *data)
{
	akcipher_request_set_callback(slot->req, CRYPTO_TFM_REQ_MAY_BACKLOG,
				      cb, data);
	cp_akcipher_set_crypt(slot);
}

static int cp_akcipher_submit(struct cp_slot *slot, bool decrypt)
{
	cp_akcipher_set_crypt(slot);
	return crypto_akcipher_encrypt(slot->req);
}

/*
 * The known-answer check (kat.c's cp_kat_same_output()): every slot
 * encrypts the same random message, and each output must be the
 * reference's (raw RSA is deterministic). Outputs are compared as the
 * integers they are: one implementation may write the ciphertext with
 * leading zero bytes to the modulus's length, another without them.
 */
static int cp_akcipher_find_reference(const char *name, char *out, size_t len)
{
	return cp_reference_typed(name, CRYPTO_ALG_TYPE_AKCIPHER,
				  CRYPTO_ALG_TYPE_MASK, out, len);
}

/* The message: random, one modulus long, below the modulus. */
static int cp_akcipher_kat_init(struct cp_kat *k)
{
	get_random_bytes(k->in, k->run->req_size);
	k->in[0] &= 0x7f;
	return 0;
}

static void cp_akcipher_kat_fill(struct cp_kat *k, struct cp_run *run)
{
	u32 i;

	for (i = 0; i < run->depth; i++) {
		struct cp_slot *s = &run->slots[i];

		sg_copy_from_buffer(s->src.sgt.sgl, sg_nents(s->src.sgt.sgl),
				    k->in, s->src.len);
	}
}

static int cp_akcipher_kat_output(struct cp_kat *k, struct cp_slot *s, u8 *to)
{
	return cp_kat_integer(s, ((struct akcipher_request *)s->req)->dst_len,
			      to);
}

static const struct cp_kat_ops cp_akcipher_kat_ops = {
	.find_reference = cp_akcipher_find_reference,
	.init = cp_akcipher_kat_init,
	.judge = cp_kat_same_output,
	.answer = cp_kat_each_answers,
	.settle = cp_kat_refill,
	.fill = cp_akcipher_kat_fill,
	.output = cp_akcipher_kat_output,
	.mismatch = "output differs from the reference",
};

const struct cp_type_ops cp_akcipher_ops = {
	.name = "akcipher",
	.alloc = cp_akcipher_alloc,
	.free = cp_akcipher_free,
	.driver_name = cp_akcipher_driver_name,
	.alg_name = cp_akcipher_alg_name,
	.geometry = cp_akcipher_geometry,
	.check = cp_akcipher_check,
	.setkey = cp_akcipher_setkey,
	.req_alloc = cp_akcipher_req_alloc,
	.req_free = cp_akcipher_req_free,
	.req_prepare = cp_akcipher_req_prepare,
	.submit = cp_akcipher_submit,
	.kat = &cp_akcipher_kat_ops,
	.frontend_type = CRYPTO_ALG_TYPE_AKCIPHER,
	.frontend_mask = CRYPTO_ALG_TYPE_MASK,
	.dst = CP_DST_ALWAYS,
	.decrypt_refused = "DECRYPT needs a private key: only the public-key operation is measured",
};
