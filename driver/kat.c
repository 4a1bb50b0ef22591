// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: the known-answer check. Every slot of the candidate's run
 * answers once, on the same random input, key and IV as the reference
 * (ref.c), and each answer is judged:
 *
 * - skcipher and hash: the same output as the reference, and for chaining
 *   modes the same output IV;
 * - AEAD: the same ciphertext and tag (encryption), or the same plaintext
 *   from the reference's ciphertext (decryption); then a ciphertext whose
 *   tag has one bit flipped must fail with -EBADMSG;
 * - geniv wrappers (echainiv, seqiv), whose IV depends on a random salt of
 *   each transform: by cross-decryption. The candidate decrypts the
 *   reference's ciphertext, the reference decrypts each of the candidate's,
 *   and both must give the plaintext back; then the corrupted tag.
 *
 * Afterwards the slots hold what the timed run needs: the input for
 * encryption, a valid ciphertext for decryption.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cryptoprio.h"

struct cp_kat {
	struct cp_run *run;	/* the candidate */
	struct cp_run *ref;	/* the reference: one slot, dst for AEAD */
	unsigned int buf_len;	/* a slot's whole buffer */
	u64 grace_ns;
	bool decrypt;		/* the calibration's direction */
	u8 *in;			/* random input */
	u8 *ct;			/* the reference's ciphertext (whole buffer) */
	u8 *want;		/* the expected output */
	u8 *got;		/* a slot's output */
	u8 *iv;
	bool have_ct;		/* ct holds the reference's ciphertext */
};

static bool cp_is_aead(struct cp_run *run)
{
	return run->tfm.type == CRYPTOPRIO_TYPE_AEAD;
}

/* Where a slot's answer to @decrypt lands, and how long it is. */
static void cp_output(struct cp_run *run, struct cp_slot *s, bool decrypt,
		      struct cp_buf **buf, unsigned int *off, unsigned int *len)
{
	const struct cp_geometry *g = &run->geo;

	*buf = &s->src;
	*off = 0;
	*len = run->req_size;
	if (!cp_is_aead(run))
		return;
	*off = g->assoclen;
	if (decrypt) {
		if (s->dst.sgt.sgl)
			*buf = &s->dst;
		*off += g->iv_in_data;
	} else {
		*len += g->iv_in_data + g->out_extra;
	}
}

static void cp_read(struct cp_run *run, struct cp_slot *s, bool decrypt,
		    u8 *to, unsigned int *len)
{
	struct cp_buf *buf;
	unsigned int off;

	if (run->tfm.type == CRYPTOPRIO_TYPE_HASH) {
		*len = run->geo.digestsize;
		memcpy(to, s->out, *len);
		return;
	}
	cp_output(run, s, decrypt, &buf, &off, len);
	sg_pcopy_to_buffer(buf->sgt.sgl, sg_nents(buf->sgt.sgl), to, *len, off);
}

static void cp_read_whole(struct cp_slot *s, u8 *to)
{
	sg_copy_to_buffer(s->src.sgt.sgl, sg_nents(s->src.sgt.sgl), to, s->src.len);
}

/* Fill every slot of @run with @in and the IV. */
static void cp_fill(struct cp_kat *k, struct cp_run *run, const u8 *in)
{
	u32 i;

	for (i = 0; i < run->depth; i++) {
		struct cp_slot *s = &run->slots[i];

		sg_copy_from_buffer(s->src.sgt.sgl, sg_nents(s->src.sgt.sgl),
				    in, k->buf_len);
		memcpy(s->iv, k->iv, run->geo.ivsize);
	}
}

/*
 * One request per slot of @run on @in. CP_RUN_ABANDONED: @run is a zombie
 * now (the caller forgets it); else 0, each slot's result in its err.
 */
static int cp_go(struct cp_kat *k, struct cp_run *run, bool decrypt,
		 const u8 *in)
{
	cp_fill(k, run, in);
	cp_run_prepare(run, decrypt);
	return cp_run_go(run, true, 0, k->grace_ns, NULL);
}

/* The reference's answer to @in; the slot's error if it failed. */
static int cp_ref_go(struct cp_kat *k, bool decrypt, const u8 *in)
{
	int r = cp_go(k, k->ref, decrypt, in);

	if (r == CP_RUN_ABANDONED) {
		k->ref = NULL;	/* a zombie: cannot happen to a synchronous one */
		return r;
	}
	return k->ref->slots[0].err;
}

/* Every slot of the candidate answered @want (and @iv_out if not NULL). */
static bool cp_all_match(struct cp_kat *k, bool decrypt, const u8 *want,
			 unsigned int want_len, const u8 *iv_out)
{
	struct cp_run *run = k->run;
	unsigned int len;
	u32 i;

	for (i = 0; i < run->depth; i++) {
		struct cp_slot *s = &run->slots[i];

		if (s->err)
			return false;
		cp_read(run, s, decrypt, k->got, &len);
		if (len != want_len || memcmp(k->got, want, len))
			return false;
		if (iv_out && memcmp(s->iv, iv_out, run->geo.ivsize))
			return false;
	}
	return true;
}

/* Same output as the reference: skcipher, hash, AEAD other than geniv. */
static int cp_kat_compare(struct cp_kat *k, bool *ok)
{
	struct cp_run *run = k->run;
	u8 iv_out[CP_MAX_IV_SIZE];
	bool check_iv = run->geo.shape.iv_out;
	unsigned int want_len;
	int r;

	r = cp_ref_go(k, false, k->in);
	if (r)
		return r;
	cp_read_whole(&k->ref->slots[0], k->ct);
	k->have_ct = true;
	cp_read(k->ref, &k->ref->slots[0], false, k->want, &want_len);
	memcpy(iv_out, k->ref->slots[0].iv, run->geo.ivsize);
	if (k->decrypt) {
		r = cp_ref_go(k, true, k->ct);
		if (r)
			return r;
		cp_read(k->ref, &k->ref->slots[0], true, k->want, &want_len);
		memcpy(iv_out, k->ref->slots[0].iv, run->geo.ivsize);
	}
	r = cp_go(k, run, k->decrypt, k->decrypt ? k->ct : k->in);
	if (r)
		return r;
	*ok = cp_all_match(k, k->decrypt, k->want, want_len,
			   check_iv ? iv_out : NULL);
	return 0;
}

/* Cross-decryption for the geniv wrappers, whose outputs differ by design. */
static int cp_kat_geniv(struct cp_kat *k, bool *ok)
{
	const struct cp_geometry *g = &k->run->geo;
	const u8 *text = k->in + g->assoclen + g->iv_in_data;
	struct cp_run *run = k->run;
	unsigned int len;
	int r;
	u32 i;

	r = cp_ref_go(k, false, k->in);
	if (r)
		return r;
	cp_read_whole(&k->ref->slots[0], k->ct);
	k->have_ct = true;
	/* the candidate decrypts the reference's ciphertext */
	r = cp_go(k, run, true, k->ct);
	if (r)
		return r;
	*ok = cp_all_match(k, true, text, run->req_size, NULL);
	if (!*ok)
		return 0;
	/* the reference decrypts each of the candidate's ciphertexts */
	r = cp_go(k, run, false, k->in);
	if (r)
		return r;
	for (i = 0; i < run->depth && *ok; i++) {
		if (run->slots[i].err) {
			*ok = false;
			break;
		}
		cp_read_whole(&run->slots[i], k->want);
		r = cp_ref_go(k, true, k->want);
		if (r && r != -EBADMSG)
			return r;
		cp_read(k->ref, &k->ref->slots[0], true, k->got, &len);
		*ok = !r && !memcmp(k->got, text, run->req_size);
	}
	return 0;
}

/* A ciphertext with a corrupted tag must fail to authenticate in every slot. */
static int cp_kat_bad_tag(struct cp_kat *k, bool *ok)
{
	struct cp_run *run = k->run;
	unsigned int last = k->buf_len - 1;
	int r;
	u32 i;

	memcpy(k->want, k->ct, k->buf_len);
	k->want[last] ^= 0x01;		/* the tag ends the buffer */
	r = cp_go(k, run, true, k->want);
	if (r)
		return r;
	for (i = 0; i < run->depth; i++)
		if (run->slots[i].err != -EBADMSG)
			*ok = false;
	if (!*ok)
		pr_info("%s: a corrupted tag was not refused\n",
			run->ops->driver_name(&run->tfm));
	return 0;
}

/* The sizes a candidate must share with its reference, as cryptoprio(4) names them. */
static const struct cp_geo_field {
	const char *what;
	size_t off;
	const char *msg;	/* for kernels without NL_SET_ERR_MSG_FMT */
} cp_geo_fields[] = {
	{ "IV size", offsetof(struct cp_geometry, ivsize),
	  "IV size differs from the reference's: faulty" },
	{ "block size", offsetof(struct cp_geometry, blocksize),
	  "block size differs from the reference's: faulty" },
	{ "tag size", offsetof(struct cp_geometry, out_extra),
	  "tag size (authsize) differs from the reference's: faulty" },
	{ "digest size", offsetof(struct cp_geometry, digestsize),
	  "digest size differs from the reference's: faulty" },
};

static unsigned int cp_geo_get(const struct cp_geometry *g,
			       const struct cp_geo_field *f)
{
	return *(const unsigned int *)((const u8 *)g + f->off);
}

/*
 * The reference runs on buffers sized by the candidate's geometry: a
 * candidate that claims a smaller IV, tag or digest than its algorithm's
 * would have the reference read and write past them. A size that differs
 * is a wrong implementation of the name (the kernel's own comparison with
 * the generic implementation, testmgr's extra tests, fails it too).
 */
static bool cp_kat_same_geometry(struct cp_kat *k, struct cp_tfm *rt,
				 struct netlink_ext_ack *extack)
{
	const struct cp_geometry *g = &k->run->geo;
	struct cp_geometry rg = {};
	unsigned int i, c, r;

	k->run->ops->geometry(rt, &rg);
	for (i = 0; i < ARRAY_SIZE(cp_geo_fields); i++) {
		const struct cp_geo_field *f = &cp_geo_fields[i];

		c = cp_geo_get(g, f);
		r = cp_geo_get(&rg, f);
		if (c == r)
			continue;
		pr_info("%s: %s %u, the reference %s's %u\n",
			k->run->ops->driver_name(&k->run->tfm), f->what, c,
			k->run->ops->driver_name(rt), r);
#ifdef NL_SET_ERR_MSG_FMT
		NL_SET_ERR_MSG_FMT(extack, "%s %u, the reference's %u: faulty",
				   f->what, c, r);
#else
		/* NL_SET_ERR_MSG() takes a literal only */
		if (extack)
			extack->_msg = f->msg;
#endif
		return false;
	}
	return true;
}

/*
 * 0: k->ref is ready. -ENOENT: no reference. -EPROTO: the reference's
 * geometry is not the candidate's (never run). -ENOMEM.
 */
static int cp_kat_reference(struct cp_kat *k, const u8 *key,
			    unsigned int key_size, struct cp_result *res,
			    struct netlink_ext_ack *extack)
{
	const struct cp_type_ops *ops = k->run->ops;
	struct cp_tfm rt = { .type = k->run->tfm.type };
	int r;

	r = cp_reference_driver(ops->alg_name(&k->run->tfm), res->reference,
				sizeof(res->reference));
	if (!r)
		r = ops->alloc(&rt, res->reference, 0,
			       CRYPTO_ALG_ASYNC | CRYPTO_ALG_KERN_DRIVER_ONLY |
			       CRYPTO_NOLOAD);
	if (r)
		goto none;
	/* the name actually instantiated */
	strscpy(res->reference, ops->driver_name(&rt), sizeof(res->reference));
	if (!cp_kat_same_geometry(k, &rt, extack)) {
		ops->free(&rt);
		return -EPROTO;
	}
	r = key_size ? ops->setkey(&rt, &k->run->geo, key, key_size) : 0;
	if (!r) {
		k->ref = cp_run_alloc(&rt, &k->run->geo, k->run->req_size, 1,
				      cp_is_aead(k->run));
		if (!k->ref)
			r = -ENOMEM;
	}
	if (r) {
		ops->free(&rt);
		if (r == -ENOMEM)
			return r;
		goto none;
	}
	return 0;
none:
	pr_debug("%s: no reference (%d)\n", ops->driver_name(&k->run->tfm), r);
	res->reference[0] = '\0';
	return -ENOENT;
}

/*
 * Judge the candidate against the reference; res->kat says the verdict.
 * The candidate's runs fail only by CP_RUN_ABANDONED (each slot's answer,
 * a driver's -ETIMEDOUT too, is in its err): any error is the reference's,
 * which then is no reference.
 */
static int cp_kat_judge(struct cp_kat *k, struct cp_result *res)
{
	struct cp_run *run = k->run;
	bool ok = true;
	int r;

	r = run->geo.shape.geniv ? cp_kat_geniv(k, &ok) : cp_kat_compare(k, &ok);
	if (!r && ok && cp_is_aead(run))
		r = cp_kat_bad_tag(k, &ok);
	if (r == CP_RUN_ABANDONED)
		return r;
	if (r) {
		pr_debug("reference %s failed: %d\n", res->reference, r);
		res->reference[0] = '\0';
		k->have_ct = false;
		return 0;
	}
	res->kat = ok ? CRYPTOPRIO_KAT_OK : CRYPTOPRIO_KAT_MISMATCH;
	if (!ok)
		pr_info("%s: output differs from the reference %s\n",
			run->ops->driver_name(&run->tfm), res->reference);
	return 0;
}

/*
 * A geometry that is not the reference's: a mismatch, judged without the
 * reference. The candidate still answers once, and for AEAD decryption
 * makes the ciphertext the timed run decrypts: its own.
 */
static int cp_kat_own_ct(struct cp_kat *k, struct cp_result *res)
{
	struct cp_run *run = k->run;
	int r;

	res->kat = CRYPTOPRIO_KAT_MISMATCH;
	r = cp_go(k, run, false, k->in);
	if (r)
		return r;
	if (run->slots[0].err)
		return run->slots[0].err;
	cp_read_whole(&run->slots[0], k->ct);
	k->have_ct = true;
	return 0;
}

static void cp_kat_free(struct cp_kat *k)
{
	if (k->ref)
		cp_run_free(k->ref);
	kvfree(k->in);
	kvfree(k->ct);
	kvfree(k->want);
	kvfree(k->got);
	kfree(k->iv);
}

static int cp_kat_alloc(struct cp_kat *k, struct cp_run *run, u64 grace_ns)
{
	unsigned int len = max(run->slots[0].src.len, run->geo.digestsize);

	k->run = run;
	k->decrypt = run->decrypt;
	k->grace_ns = grace_ns;
	k->buf_len = run->slots[0].src.len;
	k->in = kvmalloc(len, GFP_KERNEL);
	k->ct = kvzalloc(len, GFP_KERNEL);
	k->want = kvmalloc(len, GFP_KERNEL);
	k->got = kvmalloc(len, GFP_KERNEL);
	k->iv = kzalloc(max(run->geo.ivsize, 1U), GFP_KERNEL);
	if (!k->in || !k->ct || !k->want || !k->got || !k->iv)
		return -ENOMEM;
	get_random_bytes(k->in, k->buf_len);
	get_random_bytes(k->iv, run->geo.ivsize);
	if (run->geo.shape.ccm)
		k->iv[0] = 3;	/* L' = 3: 4-byte lengths, an 11-byte nonce */
	return 0;
}

int cp_known_answer(struct cp_run *run, const u8 *key, unsigned int key_size,
		    u64 grace_ns, struct cp_result *res,
		    struct netlink_ext_ack *extack)
{
	struct cp_kat k = {};
	int r;

	res->kat = CRYPTOPRIO_KAT_UNSUPPORTED;
	if (run->geo.acomp)
		return cp_acomp_known_answer(run, grace_ns, res, extack);
	if (run->tfm.type == CRYPTOPRIO_TYPE_AKCIPHER)
		return cp_akcipher_known_answer(run, grace_ns, res, extack);
	if (run->tfm.type == CRYPTOPRIO_TYPE_KPP)
		return cp_kpp_known_answer(run, grace_ns, res, extack);
	if (run->geo.ivsize > CP_MAX_IV_SIZE) {
		NL_SET_ERR_MSG(extack, "the algorithm's IV is larger than the module handles");
		return -EOPNOTSUPP;
	}
	r = cp_kat_alloc(&k, run, grace_ns);
	if (r) {
		NL_SET_ERR_MSG(extack, "out of memory for the known-answer test");
		goto out;
	}
	r = cp_kat_reference(&k, key, key_size, res, extack);
	if (r == -ENOMEM) {
		NL_SET_ERR_MSG(extack, "out of memory for the reference request");
		goto out;
	}
	if (!r)
		r = cp_kat_judge(&k, res);
	else if (r == -EPROTO)
		r = cp_kat_own_ct(&k, res);
	else
		r = 0;
	if (!r && !k.have_ct && cp_is_aead(run) && k.decrypt) {
		NL_SET_ERR_MSG(extack, "AEAD decryption needs a reference implementation to make its ciphertext");
		r = -EOPNOTSUPP;
		goto out;
	} else if (!r && res->kat == CRYPTOPRIO_KAT_UNSUPPORTED) {
		/* no reference: the candidate must still answer */
		r = cp_go(&k, run, k.decrypt, k.in);
		if (!r && run->slots[0].err)
			r = run->slots[0].err;
	}
	if (r == CP_RUN_ABANDONED) {
		NL_SET_ERR_MSG(extack, "the known-answer request did not complete within the grace period");
		goto out;
	}
	if (r) {
		NL_SET_ERR_MSG(extack, "the driver failed the known-answer request");
		goto out;
	}
	/* what the timed run works on */
	cp_fill(&k, run, k.decrypt && k.have_ct ? k.ct : k.in);
	cp_run_prepare(run, k.decrypt);
out:
	cp_kat_free(&k);
	return r;
}
