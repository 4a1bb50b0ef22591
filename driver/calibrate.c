// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: one CALIBRATE: allocate the driver, check its answer against
 * the reference, then time it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cryptoprio.h"

const struct cp_type_ops *cp_type_ops(enum cryptoprio_type type)
{
	switch (type) {
	case CRYPTOPRIO_TYPE_SKCIPHER:
		return &cp_skcipher_ops;
	case CRYPTOPRIO_TYPE_AEAD:
		return &cp_aead_ops;
	case CRYPTOPRIO_TYPE_HASH:
		return &cp_hash_ops;
	case CRYPTOPRIO_TYPE_UNSPEC:
	case __CRYPTOPRIO_TYPE_MAX:
		break;
	}
	return NULL;
}

/* Where a request's result lands, and how long it is. */
static void cp_output(struct cp_run *run, struct cp_slot *s,
		      struct scatterlist **sg, unsigned int *off,
		      unsigned int *len, u8 **linear)
{
	const struct cp_geometry *g = &run->geo;

	*linear = NULL;
	*sg = s->src.sgt.sgl;
	*off = 0;
	*len = run->req_size;
	switch (run->tfm.type) {
	case CRYPTOPRIO_TYPE_AEAD:
		*off = g->assoclen;
		if (run->decrypt)
			*sg = s->dst.sgt.sgl;
		else
			*len += g->out_extra;
		break;
	case CRYPTOPRIO_TYPE_HASH:
		*linear = s->out;
		*len = g->digestsize;
		break;
	case CRYPTOPRIO_TYPE_SKCIPHER:
	case CRYPTOPRIO_TYPE_UNSPEC:
	case __CRYPTOPRIO_TYPE_MAX:
		break;
	}
}

static int cp_copy_out(struct cp_run *run, struct cp_slot *s, u8 *to,
		       unsigned int *len)
{
	struct scatterlist *sg;
	unsigned int off;
	u8 *linear;

	cp_output(run, s, &sg, &off, len, &linear);
	if (linear) {
		memcpy(to, linear, *len);
		return 0;
	}
	if (sg_pcopy_to_buffer(sg, sg_nents(sg), to, *len, off) != *len)
		return -EIO;
	return 0;
}

/* Copy slot 0's whole source buffer into @dst's source buffer. */
static void cp_copy_src(struct cp_slot *from, struct cp_slot *to, u8 *tmp)
{
	unsigned int len = from->src.len;

	sg_copy_to_buffer(from->src.sgt.sgl, sg_nents(from->src.sgt.sgl),
			  tmp, len);
	sg_copy_from_buffer(to->src.sgt.sgl, sg_nents(to->src.sgt.sgl),
			    tmp, len);
}

/*
 * Fill the candidate's slots with random input and run the reference and
 * the candidate once on it. Returns 0 with res->kat set, or an error
 * (-ETIMEDOUT: @run is a zombie now).
 */
static int cp_known_answer(struct cp_run *run, const u8 *key,
			   unsigned int key_size, u64 grace_ns,
			   struct cp_result *res,
			   struct netlink_ext_ack *extack)
{
	const struct cp_type_ops *ops = run->ops;
	unsigned int buf_len = run->slots[0].src.len, a_len, b_len;
	struct cp_tfm rt = { .type = run->tfm.type };
	bool aead_dec = run->tfm.type == CRYPTOPRIO_TYPE_AEAD && run->decrypt;
	struct cp_run *ref = NULL;
	u8 *a = NULL, *b = NULL, *iv = NULL;
	u64 wall;
	u32 i;
	int r;

	res->kat = CRYPTOPRIO_KAT_UNSUPPORTED;
	a = kvmalloc(buf_len, GFP_KERNEL);
	b = kvmalloc(buf_len, GFP_KERNEL);
	iv = kmalloc(max(run->geo.ivsize, 1U), GFP_KERNEL);
	if (!a || !b || !iv) {
		NL_SET_ERR_MSG(extack, "out of memory for the known-answer test");
		r = -ENOMEM;
		goto out;
	}
	get_random_bytes(a, buf_len);
	get_random_bytes(iv, run->geo.ivsize);
	sg_copy_from_buffer(run->slots[0].src.sgt.sgl,
			    sg_nents(run->slots[0].src.sgt.sgl), a, buf_len);

	r = cp_reference_driver(ops->alg_name(&run->tfm), res->reference,
				sizeof(res->reference));
	if (!r)
		r = ops->alloc(&rt, res->reference, 0,
			       CRYPTO_ALG_ASYNC | CRYPTO_ALG_KERN_DRIVER_ONLY);
	if (r) {
		pr_debug("%s: no reference (%d)\n", ops->driver_name(&run->tfm), r);
		res->reference[0] = '\0';
		goto no_reference;
	}
	/* the name actually instantiated, e.g. "cbc(aes-generic)" */
	strscpy(res->reference, ops->driver_name(&rt), sizeof(res->reference));
	if (key_size && ops->setkey(&rt, key, key_size)) {
		ops->free(&rt);
		res->reference[0] = '\0';
		goto no_reference;
	}
	ref = cp_run_alloc(&rt, &run->geo, run->req_size, 1, run->decrypt);
	if (!ref) {
		ops->free(&rt);
		NL_SET_ERR_MSG(extack, "out of memory for the reference request");
		r = -ENOMEM;
		goto out;
	}
	sg_copy_from_buffer(ref->slots[0].src.sgt.sgl,
			    sg_nents(ref->slots[0].src.sgt.sgl), a, buf_len);

	if (aead_dec) {
		/* a valid ciphertext for every slot, made by the reference */
		ops->req_prepare(&ref->tfm, &ref->slots[0], run->req_size,
				 &run->geo, false, NULL, NULL);
		memcpy(ref->slots[0].iv, iv, run->geo.ivsize);
		r = ops->submit(ref->slots[0].req, false);
		if (r) {
			NL_SET_ERR_MSG(extack, "the reference failed to encrypt");
			goto out;
		}
		for (i = 0; i < run->depth; i++)
			cp_copy_src(&ref->slots[0], &run->slots[i], a);
		ops->req_prepare(&ref->tfm, &ref->slots[0], run->req_size,
				 &run->geo, true, NULL, NULL);
	}
	/* synchronous by its mask: completes within submit */
	memcpy(ref->slots[0].iv, iv, run->geo.ivsize);
	r = ops->submit(ref->slots[0].req, run->decrypt);
	if (r) {
		pr_debug("reference %s failed: %d\n", res->reference, r);
		res->reference[0] = '\0';
		goto no_reference;
	}
	r = cp_copy_out(ref, &ref->slots[0], b, &b_len);
	if (r)
		goto out;
	res->kat = CRYPTOPRIO_KAT_MISMATCH;

no_reference:
	if (aead_dec && res->kat == CRYPTOPRIO_KAT_UNSUPPORTED) {
		NL_SET_ERR_MSG(extack, "AEAD decryption needs a reference implementation to make its ciphertext");
		r = -EOPNOTSUPP;
		goto out;
	}
	/* the candidate's answer; timed out: the run is a zombie now */
	for (i = 0; i < run->depth; i++)
		memcpy(run->slots[i].iv, iv, run->geo.ivsize);
	r = cp_run_go(run, true, 0, grace_ns, &wall);
	if (r == -ETIMEDOUT) {
		NL_SET_ERR_MSG(extack, "the known-answer request did not complete within the grace period");
		goto out;
	}
	if (r) {
		NL_SET_ERR_MSG(extack, "the driver failed the known-answer request");
		goto out;
	}
	if (res->kat == CRYPTOPRIO_KAT_MISMATCH) {
		r = cp_copy_out(run, &run->slots[0], a, &a_len);
		if (r)
			goto out;
		if (a_len == b_len && !memcmp(a, b, a_len))
			res->kat = CRYPTOPRIO_KAT_OK;
		else
			pr_info("%s: output differs from the reference %s\n",
				ops->driver_name(&run->tfm), res->reference);
	}
	/* AEAD decryption needs the IV that made the ciphertext */
	for (i = 0; i < run->depth; i++)
		memcpy(run->slots[i].iv, iv, run->geo.ivsize);
	r = 0;
out:
	if (ref)
		cp_run_free(ref);
	kfree(iv);
	kvfree(b);
	kvfree(a);
	return r;
}

int cp_calibrate(const struct cp_params *p, struct cp_result *res,
		 struct netlink_ext_ack *extack)
{
	const struct cp_type_ops *ops = cp_type_ops(p->type);
	u8 key[CRYPTOPRIO_MAX_KEY_SIZE + CP_HMAC_KEY_LEN];
	struct cp_tfm t = { .type = p->type };
	struct cp_geometry g = {};
	struct cp_run *run;
	u64 cpu0, cpu1;
	int r;

	r = ops->alloc(&t, p->driver, 0, 0);
	if (r) {
		if (r == -ENOENT)
			NL_SET_ERR_MSG(extack, "no such driver of this type");
		else
			NL_SET_ERR_MSG(extack, "cannot allocate the driver");
		return r;
	}
	if (strcmp(ops->driver_name(&t), p->driver)) {
		NL_SET_ERR_MSG(extack, "an algorithm name, not a driver name");
		r = -EINVAL;
		goto free_tfm;
	}
	ops->geometry(&t, &g);
	if (g.blocksize > 1 && p->type != CRYPTOPRIO_TYPE_HASH &&
	    p->req_size % g.blocksize) {
		NL_SET_ERR_MSG(extack, "request size is not a multiple of the block size");
		r = -EINVAL;
		goto free_tfm;
	}
	res->key_size = p->key_size ? p->key_size : g.key_default;
	get_random_bytes(key, sizeof(key));
	if (res->key_size) {
		r = ops->setkey(&t, key, res->key_size);
		if (r) {
			NL_SET_ERR_MSG(extack, "the driver refused the key size");
			goto free_tfm;
		}
	}

	run = cp_run_alloc(&t, &g, p->req_size, p->depth, p->decrypt);
	if (!run) {
		NL_SET_ERR_MSG(extack, "out of memory for the requests");
		r = -ENOMEM;
		goto free_tfm;
	}

	r = cp_known_answer(run, key, res->key_size, p->grace_ns, res, extack);
	if (r == -ETIMEDOUT)
		goto out_key;		/* the run is a zombie now */
	if (r)
		goto free_run;

	cpu0 = cp_cpu_busy_ns();
	r = cp_run_go(run, false, p->budget_ns, p->grace_ns, &res->wall_ns);
	cpu1 = cp_cpu_busy_ns();
	if (r == -ETIMEDOUT) {
		NL_SET_ERR_MSG(extack, "requests did not complete within the budget plus the grace period");
		goto out_key;
	}
	if (r) {
		NL_SET_ERR_MSG(extack, "the driver failed a request");
		goto free_run;
	}
	res->requests = atomic64_read(&run->requests);
	res->bytes = res->requests * p->req_size;
	res->cpu_ns = cpu1 > cpu0 ? cpu1 - cpu0 : 0;
	res->max_in_flight = atomic_read(&run->max_outstanding);
free_run:
	cp_run_free(run);
	goto out_key;
free_tfm:
	ops->free(&t);
out_key:
	memzero_explicit(key, sizeof(key));
	return r;
}
