// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: the known-answer check, before a calibration is timed. The
 * candidate's run answers once per slot, and each answer is judged
 * against a reference, the lowest-priority implementation of the same
 * name (ref.c), by its type's struct cp_kat_ops:
 *
 * 1. the reference is allocated, keyed as the candidate is, on a run of
 *    one slot with the candidate's geometry (a candidate whose sizes are
 *    not the reference's is a mismatch, never run against it);
 * 2. the type's judge runs both and compares (a reference that fails is
 *    no reference); the verdict is CRYPTOPRIO_KAT_OK or _MISMATCH;
 * 3. without a reference (_UNSUPPORTED), or against one whose sizes
 *    differ, the candidate must still answer;
 * 4. the type leaves in every slot what the timed run works on.
 *
 * Here too, the check of the ciphers and hashes (cp_cipher_kat_ops):
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
 * encryption, a valid ciphertext for decryption. And the helpers of the
 * types whose answer must be the reference's (akcipher.c, kpp.c):
 * cp_kat_same_output(), cp_kat_each_answers(), cp_kat_refill().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "types.h"

static bool cp_is_aead(struct cp_run *run)
{
	return run->tfm.type == CRYPTOPRIO_TYPE_AEAD;
}

/* A slot's whole buffer, as the ciphers' check fills it. */
static unsigned int cp_kat_buf_len(struct cp_kat *k)
{
	return k->run->slots[0].src.len;
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
				    in, cp_kat_buf_len(k));
		memcpy(s->iv, k->iv, run->geo.ivsize);
	}
}

int cp_kat_go(struct cp_kat *k, struct cp_run *run, bool decrypt)
{
	cp_run_prepare(run, decrypt);
	return cp_run_go(run, true, 0, k->grace_ns, NULL);
}

int cp_kat_ref_go(struct cp_kat *k, bool decrypt)
{
	int r = cp_kat_go(k, k->ref, decrypt);

	if (r == CP_RUN_ABANDONED) {
		k->ref = NULL;	/* a zombie: cannot happen to a synchronous one */
		return r;
	}
	return k->ref->slots[0].err;
}

/* One request per slot of @run on @in, with the IV: cp_kat_go(). */
static int cp_go(struct cp_kat *k, struct cp_run *run, bool decrypt,
		 const u8 *in)
{
	cp_fill(k, run, in);
	return cp_kat_go(k, run, decrypt);
}

/* The reference's answer to @in; the slot's error if it failed. */
static int cp_ref_go(struct cp_kat *k, bool decrypt, const u8 *in)
{
	cp_fill(k, k->ref, in);
	return cp_kat_ref_go(k, decrypt);
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
	unsigned int last = cp_kat_buf_len(k) - 1;
	int r;
	u32 i;

	memcpy(k->want, k->ct, cp_kat_buf_len(k));
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

static int cp_cipher_kat_supported(struct cp_run *run,
				   struct netlink_ext_ack *extack)
{
	if (run->geo.ivsize > CP_MAX_IV_SIZE) {
		NL_SET_ERR_MSG(extack, "the algorithm's IV is larger than the module handles");
		return -EOPNOTSUPP;
	}
	return 0;
}

/* Random input and IV; the reference's ciphertext to come. */
static int cp_cipher_kat_init(struct cp_kat *k)
{
	struct cp_run *run = k->run;

	k->ct = kvzalloc(k->len, GFP_KERNEL);
	k->iv = kzalloc(max(run->geo.ivsize, 1U), GFP_KERNEL);
	if (!k->ct || !k->iv)
		return -ENOMEM;
	get_random_bytes(k->in, cp_kat_buf_len(k));
	get_random_bytes(k->iv, run->geo.ivsize);
	if (run->geo.shape.ccm)
		k->iv[0] = 3;	/* L' = 3: 4-byte lengths, an 11-byte nonce */
	return 0;
}

/*
 * The candidate's runs fail only by CP_RUN_ABANDONED (each slot's answer,
 * a driver's -ETIMEDOUT too, is in its err): any error is the reference's.
 */
static int cp_cipher_kat_judge(struct cp_kat *k, bool *ok)
{
	struct cp_run *run = k->run;
	int r;

	r = run->geo.shape.geniv ? cp_kat_geniv(k, ok) : cp_kat_compare(k, ok);
	if (!r && *ok && cp_is_aead(run))
		r = cp_kat_bad_tag(k, ok);
	if (r && r != CP_RUN_ABANDONED)
		k->have_ct = false;
	return r;
}

static int cp_cipher_kat_without_reference(struct cp_kat *k,
					   struct netlink_ext_ack *extack)
{
	if (cp_is_aead(k->run) && k->decrypt) {
		NL_SET_ERR_MSG(extack, "AEAD decryption needs a reference implementation to make its ciphertext");
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * Unjudged, the candidate answers once; against a reference whose sizes
 * differ (@mismatch) it encrypts, making the ciphertext a timed
 * decryption then works on: its own.
 */
static int cp_cipher_kat_answer(struct cp_kat *k, bool mismatch)
{
	struct cp_run *run = k->run;
	int r;

	r = cp_go(k, run, mismatch ? false : k->decrypt, k->in);
	if (r)
		return r;
	if (run->slots[0].err)
		return run->slots[0].err;
	if (mismatch) {
		cp_read_whole(&run->slots[0], k->ct);
		k->have_ct = true;
	}
	return 0;
}

static void cp_cipher_kat_settle(struct cp_kat *k, struct cp_result *res)
{
	cp_fill(k, k->run, k->decrypt && k->have_ct ? k->ct : k->in);
	cp_run_prepare(k->run, k->decrypt);
}

const struct cp_kat_ops cp_cipher_kat_ops = {
	.find_reference = cp_reference_driver,
	.supported = cp_cipher_kat_supported,
	.init = cp_cipher_kat_init,
	.judge = cp_cipher_kat_judge,
	.without_reference = cp_cipher_kat_without_reference,
	.answer = cp_cipher_kat_answer,
	.settle = cp_cipher_kat_settle,
	.mismatch = "output differs from the reference",
};

int cp_kat_integer(struct cp_slot *s, unsigned int len, u8 *to)
{
	unsigned int skip = 0;

	if (s->err || !len || len > s->dst.len)
		return -EIO;
	sg_copy_to_buffer(s->dst.sgt.sgl, sg_nents(s->dst.sgt.sgl), to, len);
	while (skip < len && !to[skip])
		skip++;
	memmove(to, to + skip, len - skip);
	return len - skip;
}

/* One request per slot of @run on the type's input (its fill). */
static int cp_kat_fill_go(struct cp_kat *k, struct cp_run *run)
{
	k->run->ops->kat->fill(k, run);
	return cp_kat_go(k, run, false);
}

/* Every slot answered, and (@judged) as the reference did. */
static bool cp_kat_all_same(struct cp_kat *k, bool judged)
{
	const struct cp_kat_ops *ops = k->run->ops->kat;
	struct cp_run *run = k->run;
	bool ok = true;
	int len;
	u32 i;

	for (i = 0; i < run->depth; i++) {
		len = ops->output(k, &run->slots[i], k->got);
		if (len < 0 || (judged && (len != k->want_len ||
					   memcmp(k->got, k->want, len))))
			ok = false;
	}
	return ok;
}

int cp_kat_same_output(struct cp_kat *k, bool *ok)
{
	int r;

	k->run->ops->kat->fill(k, k->ref);
	r = cp_kat_ref_go(k, false);
	if (r)
		return r;
	r = k->run->ops->kat->output(k, &k->ref->slots[0], k->want);
	if (r <= 0)
		return k->ref->slots[0].err ?: -EIO;
	k->want_len = r;
	r = cp_kat_fill_go(k, k->run);
	if (r)
		return r;
	*ok = cp_kat_all_same(k, true);
	return 0;
}

int cp_kat_each_answers(struct cp_kat *k, bool mismatch)
{
	int r = cp_kat_fill_go(k, k->run);

	if (r)
		return r;
	if (!cp_kat_all_same(k, false))
		return k->run->slots[0].err ?: -EIO;
	return 0;
}

void cp_kat_refill(struct cp_kat *k, struct cp_result *res)
{
	k->run->ops->kat->fill(k, k->run);
	cp_run_prepare(k->run, false);
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

	r = ops->kat->find_reference(ops->alg_name(&k->run->tfm),
				     res->reference, sizeof(res->reference));
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
		/* it decrypts too: a dst where the type decrypts into one */
		k->ref = cp_run_alloc(&rt, &k->run->geo, k->run->req_size, 1,
				      ops->dst == CP_DST_DECRYPT);
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

/* Judge the candidate against the reference; res->kat says the verdict. */
static int cp_kat_judge(struct cp_kat *k, struct cp_result *res)
{
	const struct cp_kat_ops *ops = k->run->ops->kat;
	struct cp_run *run = k->run;
	bool ok = true;
	int r;

	r = ops->judge(k, &ok);
	if (r == CP_RUN_ABANDONED)
		return r;
	if (r) {
		pr_debug("reference %s failed: %d\n", res->reference, r);
		res->reference[0] = '\0';
		return 0;
	}
	res->kat = ok ? CRYPTOPRIO_KAT_OK : CRYPTOPRIO_KAT_MISMATCH;
	if (!ok)
		pr_info("%s: %s %s\n", run->ops->driver_name(&run->tfm),
			ops->mismatch, res->reference);
	return 0;
}

static void cp_kat_free(struct cp_kat *k)
{
	if (k->ref)
		cp_run_free(k->ref);
	/* a key agreement's answers are its secrets */
	kvfree_sensitive(k->in, k->len);
	kvfree_sensitive(k->want, k->len);
	kvfree_sensitive(k->got, k->len);
	kvfree(k->ct);
	kfree(k->iv);
}

/* Buffers for the largest answer: a slot's src, dst or digest. */
static int cp_kat_alloc(struct cp_kat *k, struct cp_run *run, u64 grace_ns)
{
	const struct cp_slot *s = &run->slots[0];

	k->run = run;
	k->decrypt = run->decrypt;
	k->grace_ns = grace_ns;
	k->len = max3(s->src.len, s->dst.len, run->geo.digestsize);
	k->in = kvzalloc(k->len, GFP_KERNEL);
	k->want = kvzalloc(k->len, GFP_KERNEL);
	k->got = kvzalloc(k->len, GFP_KERNEL);
	if (!k->in || !k->want || !k->got)
		return -ENOMEM;
	return run->ops->kat->init ? run->ops->kat->init(k) : 0;
}

/* Without a reference's verdict, whether the candidate still answers. */
static int cp_kat_unjudged(struct cp_kat *k, struct netlink_ext_ack *extack)
{
	const struct cp_kat_ops *ops = k->run->ops->kat;
	int r;

	if (ops->without_reference) {
		r = ops->without_reference(k, extack);
		if (r)
			return r;
	}
	r = ops->answer(k, false);
	if (r == CP_RUN_ABANDONED)
		NL_SET_ERR_MSG(extack, "the known-answer request did not complete within the grace period");
	else if (r)
		NL_SET_ERR_MSG(extack, "the driver failed the known-answer request");
	return r;
}

int cp_known_answer(struct cp_run *run, const u8 *key, unsigned int key_size,
		    u64 grace_ns, struct cp_result *res,
		    struct netlink_ext_ack *extack)
{
	const struct cp_kat_ops *ops = run->ops->kat;
	struct cp_kat k = {};
	int r;

	res->kat = CRYPTOPRIO_KAT_UNSUPPORTED;
	r = ops->supported ? ops->supported(run, extack) : 0;
	if (r)
		return r;
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
	if (!r) {
		r = cp_kat_judge(&k, res);
	} else if (r == -EPROTO) {
		/* a mismatch judged without the reference */
		res->kat = CRYPTOPRIO_KAT_MISMATCH;
		r = ops->answer(&k, true);
	} else {
		r = 0;
	}
	if (!r && res->kat == CRYPTOPRIO_KAT_UNSUPPORTED) {
		r = cp_kat_unjudged(&k, extack);
		if (r)
			goto out;
	}
	if (r == CP_RUN_ABANDONED) {
		NL_SET_ERR_MSG(extack, "the known-answer request did not complete within the grace period");
		goto out;
	}
	if (r) {
		NL_SET_ERR_MSG(extack, "the driver failed the known-answer request");
		goto out;
	}
	ops->settle(&k, res);
out:
	cp_kat_free(&k);
	return r;
}
