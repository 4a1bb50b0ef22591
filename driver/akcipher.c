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

#include "cryptoprio.h"

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
	t->akcipher = tfm;
	return 0;
}

static void cp_akcipher_free(struct cp_tfm *t)
{
	crypto_free_akcipher(t->akcipher);
}

static const char *cp_akcipher_driver_name(struct cp_tfm *t)
{
	return crypto_tfm_alg_driver_name(crypto_akcipher_tfm(t->akcipher));
}

static const char *cp_akcipher_alg_name(struct cp_tfm *t)
{
	return crypto_tfm_alg_name(crypto_akcipher_tfm(t->akcipher));
}

static void cp_akcipher_geometry(struct cp_tfm *t, struct cp_geometry *g)
{
	g->blocksize = 1;
	/* padding schemes (pkcs1pad) and ecdsa (before 6.13) are not raw RSA */
	g->rsa = !strcmp(cp_akcipher_alg_name(t), "rsa");
	g->key_default = CP_RSA_KEY_BYTES;
}

/* The fixed public key, whatever @key holds: @len must be its size. */
static int cp_akcipher_setkey(struct cp_tfm *t, const struct cp_geometry *g,
			      const u8 *key, unsigned int len)
{
	int r;

	if (len != CP_RSA_KEY_BYTES)
		return -EINVAL;
	r = crypto_akcipher_set_pub_key(t->akcipher, cp_rsa_pub_key,
					sizeof(cp_rsa_pub_key));
	if (!r && crypto_akcipher_maxsize(t->akcipher) != CP_RSA_KEY_BYTES)
		r = -EINVAL;
	return r;
}

static void *cp_akcipher_req_alloc(struct cp_tfm *t)
{
	return akcipher_request_alloc(t->akcipher, GFP_KERNEL);
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

const struct cp_type_ops cp_akcipher_ops = {
	.alloc = cp_akcipher_alloc,
	.free = cp_akcipher_free,
	.driver_name = cp_akcipher_driver_name,
	.alg_name = cp_akcipher_alg_name,
	.geometry = cp_akcipher_geometry,
	.setkey = cp_akcipher_setkey,
	.req_alloc = cp_akcipher_req_alloc,
	.req_free = cp_akcipher_req_free,
	.req_prepare = cp_akcipher_req_prepare,
	.submit = cp_akcipher_submit,
};

/*
 * The known-answer check: every slot encrypts the same random message,
 * and each output must be the reference's (raw RSA is deterministic).
 * Outputs are compared as the integers they are: one implementation may
 * write the ciphertext with leading zero bytes to the modulus's length,
 * another without them.
 */
struct cp_akcipher_kat {
	struct cp_run *run;
	struct cp_run *ref;	/* one slot, NULL if none */
	u64 grace_ns;
	u8 *msg;		/* the message, one modulus long */
	u8 *want;		/* the reference's ciphertext */
	unsigned int want_len;
	u8 *got;
};

static void cp_akcipher_fill(struct cp_run *run, const u8 *msg)
{
	u32 i;

	for (i = 0; i < run->depth; i++) {
		struct cp_slot *s = &run->slots[i];

		sg_copy_from_buffer(s->src.sgt.sgl, sg_nents(s->src.sgt.sgl),
				    msg, s->src.len);
	}
}

/* One request per slot of @run; CP_RUN_ABANDONED: @run is a zombie now. */
static int cp_akcipher_go(struct cp_akcipher_kat *k, struct cp_run *run)
{
	cp_akcipher_fill(run, k->msg);
	cp_run_prepare(run, false);
	return cp_run_go(run, true, 0, k->grace_ns, NULL);
}

/*
 * A slot's ciphertext into @to without its leading zero bytes; its
 * length, or -EIO if the driver failed or claimed more than the buffer.
 */
static int cp_akcipher_output(struct cp_slot *s, u8 *to)
{
	unsigned int len = ((struct akcipher_request *)s->req)->dst_len;
	unsigned int skip = 0;

	if (s->err || !len || len > s->dst.len)
		return -EIO;
	sg_copy_to_buffer(s->dst.sgt.sgl, sg_nents(s->dst.sgt.sgl), to, len);
	while (skip < len && !to[skip])
		skip++;
	memmove(to, to + skip, len - skip);
	return len - skip;
}

static int cp_akcipher_reference(struct cp_akcipher_kat *k,
				 struct cp_result *res)
{
	struct cp_tfm rt = { .type = CRYPTOPRIO_TYPE_AKCIPHER };
	struct cp_run *run = k->run;
	int r;

	r = cp_reference_typed(cp_akcipher_alg_name(&run->tfm),
			       CRYPTO_ALG_TYPE_AKCIPHER, CRYPTO_ALG_TYPE_MASK,
			       res->reference, sizeof(res->reference));
	if (!r)
		r = cp_akcipher_alloc(&rt, res->reference, 0,
				      CRYPTO_ALG_ASYNC | CRYPTO_ALG_KERN_DRIVER_ONLY |
				      CRYPTO_NOLOAD);
	if (r)
		goto none;
	strscpy(res->reference, cp_akcipher_driver_name(&rt),
		sizeof(res->reference));
	r = cp_akcipher_setkey(&rt, &run->geo, NULL, CP_RSA_KEY_BYTES);
	if (r) {
		cp_akcipher_free(&rt);
		goto none;
	}
	k->ref = cp_run_alloc(&rt, &run->geo, run->req_size, 1, false);
	if (!k->ref) {
		cp_akcipher_free(&rt);
		return -ENOMEM;
	}
	return 0;
none:
	pr_debug("%s: no reference (%d)\n", cp_akcipher_driver_name(&run->tfm), r);
	res->reference[0] = '\0';
	return -ENOENT;
}

/* The reference's ciphertext into k->want; its failure makes it no reference. */
static int cp_akcipher_ref_answer(struct cp_akcipher_kat *k)
{
	int r = cp_akcipher_go(k, k->ref);

	if (r) {
		k->ref = NULL;	/* a zombie: cannot happen to a synchronous one */
		return r;
	}
	r = cp_akcipher_output(&k->ref->slots[0], k->want);
	if (r <= 0)
		return k->ref->slots[0].err ?: -EIO;
	k->want_len = r;
	return 0;
}

/* Every slot answered, and (with a reference) as the reference did. */
static bool cp_akcipher_judge(struct cp_akcipher_kat *k, bool judged)
{
	struct cp_run *run = k->run;
	bool ok = true;
	int len;
	u32 i;

	for (i = 0; i < run->depth; i++) {
		len = cp_akcipher_output(&run->slots[i], k->got);
		if (len < 0 || (judged && (len != k->want_len ||
					   memcmp(k->got, k->want, len))))
			ok = false;
	}
	return ok;
}

static int cp_akcipher_kat_alloc(struct cp_akcipher_kat *k)
{
	unsigned int len = k->run->req_size;

	k->msg = kmalloc(len, GFP_KERNEL);
	k->want = kmalloc(len, GFP_KERNEL);
	k->got = kmalloc(len, GFP_KERNEL);
	if (!k->msg || !k->want || !k->got)
		return -ENOMEM;
	get_random_bytes(k->msg, len);
	k->msg[0] &= 0x7f;	/* below the modulus */
	return 0;
}

int cp_akcipher_known_answer(struct cp_run *run, u64 grace_ns,
			     struct cp_result *res,
			     struct netlink_ext_ack *extack)
{
	struct cp_akcipher_kat k = { .run = run, .grace_ns = grace_ns };
	bool judged = false, ok;
	int r;

	r = cp_akcipher_kat_alloc(&k);
	if (!r) {
		r = cp_akcipher_reference(&k, res);
		if (r == -ENOENT)
			r = 0;
	}
	if (r) {
		NL_SET_ERR_MSG(extack, "out of memory for the known-answer test");
		goto out;
	}
	if (k.ref) {
		r = cp_akcipher_ref_answer(&k);
		judged = !r;
		if (r && r != CP_RUN_ABANDONED) {
			pr_debug("reference %s failed: %d\n", res->reference, r);
			res->reference[0] = '\0';
			r = 0;
		}
	}
	if (!r)
		r = cp_akcipher_go(&k, run);
	if (r == CP_RUN_ABANDONED) {
		NL_SET_ERR_MSG(extack, "the known-answer request did not complete within the grace period");
		goto out;
	}
	ok = cp_akcipher_judge(&k, judged);
	if (judged) {
		res->kat = ok ? CRYPTOPRIO_KAT_OK : CRYPTOPRIO_KAT_MISMATCH;
		if (!ok)
			pr_info("%s: output differs from the reference %s\n",
				cp_akcipher_driver_name(&run->tfm), res->reference);
	} else if (!ok) {
		NL_SET_ERR_MSG(extack, "the driver failed the known-answer request");
		r = run->slots[0].err ?: -EIO;
		goto out;
	}
	/* what the timed run works on: the message again in every slot */
	cp_akcipher_fill(run, k.msg);
	cp_run_prepare(run, false);
out:
	if (k.ref)
		cp_run_free(k.ref);
	kfree(k.msg);
	kfree(k.want);
	kfree(k.got);
	return r;
}
