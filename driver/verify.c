// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: differential verification (VERIFY), the kernel's thorough
 * self-test (CONFIG_CRYPTO_SELFTESTS_FULL, once MANAGER_EXTRA_TESTS) done
 * where it is off. The known-answer check (kat.c) runs one shape; here
 * the candidate and its reference (the lowest-priority implementation of
 * the same name, ref.c) each answer N cases drawn from a seed, and every
 * answer must be the reference's: output, output IV where the mode
 * defines it, and success.
 *
 * A case is drawn from (seed, index) alone, with splitmix64, so the same
 * seed gives the same cases on every kernel and a failing case is
 * reproduced by its seed. Each case picks:
 * - a length: 1 to 4 blocks, around a power of two up to 64 KiB, or any
 *   up to 64 KiB; whole blocks unless the reference takes a partial one
 *   (ctr: block size 1; xts and cts: ciphertext stealing);
 * - its key size in turn among those the candidate advertises and the
 *   reference accepts (aes: 16, 24, 32), the direction every other turn,
 *   random key, IV and data;
 * - in place or not, and for source and destination each a layout: one
 *   entry at an offset, 2 to 8 uneven entries, or entries crossing page
 *   boundaries, at unaligned offsets and with gaps between them.
 *
 * Every request goes through run.c, one at a time: an engine that never
 * answers leaves its run a zombie there, as a calibration's would, and
 * the verdict names the case it hung on. The type's part is its struct
 * cp_verify_ops (types.h): skcipher only for now.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "types.h"

#define CP_VERIFY_MAX_LEN	(65536U + 16)
/* offsets under a page, gaps of up to 31 bytes between up to 8 entries */
#define CP_VERIFY_MAX_ENTRIES	8
#define CP_VERIFY_BUF_LEN	(CP_VERIFY_MAX_LEN + PAGE_SIZE + \
				 CP_VERIFY_MAX_ENTRIES * 32)
#define CP_VERIFY_MAX_KEYS	16

enum cp_layout_kind { CP_LAYOUT_ONE, CP_LAYOUT_UNEVEN, CP_LAYOUT_PAGES };

static const char *const cp_layout_names[] = {
	[CP_LAYOUT_ONE] = "one entry",
	[CP_LAYOUT_UNEVEN] = "uneven entries",
	[CP_LAYOUT_PAGES] = "entries crossing pages",
};

struct cp_layout {
	enum cp_layout_kind kind;
	unsigned int nents;
	unsigned int offset;	/* of the first entry in the buffer */
};

struct cp_vcase {
	u32 index;
	u64 rng;		/* its own stream, from the seed and index */
	unsigned int len;
	unsigned int key_size;
	bool decrypt;
	bool in_place;
	struct cp_layout src, dst;
};

/* One verification in progress. */
struct cp_verify {
	const struct cp_verify_params *p;
	struct cp_verify_result *res;
	struct cp_run *cand;	/* NULL once a zombie */
	struct cp_run *ref;
	unsigned int keys[CP_VERIFY_MAX_KEYS];
	unsigned int nkeys;
	bool partial;		/* the reference takes partial blocks */
	u8 *in, *want, *got;
	u8 key[CRYPTOPRIO_MAX_KEY_SIZE];
	u8 iv[CP_MAX_IV_SIZE], iv_want[CP_MAX_IV_SIZE];
	ktime_t end;
};

static u64 cp_splitmix64(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * A number in 0..@n - 1 (@n > 0) from @c's stream: the same on every
 * architecture, so that a seed names the same cases on each (a 32-bit one
 * has no 64-bit '%': div_u64_rem()).
 */
static u32 cp_rand(struct cp_vcase *c, u32 n)
{
	u32 rem;

	div_u64_rem(cp_splitmix64(&c->rng), n, &rem);
	return rem;
}

static void cp_rand_bytes(struct cp_vcase *c, u8 *to, unsigned int len)
{
	u64 v;

	while (len) {
		unsigned int n = min_t(unsigned int, len, sizeof(v));

		v = cp_splitmix64(&c->rng);
		memcpy(to, &v, n);
		to += n;
		len -= n;
	}
}

static unsigned int cp_case_len(struct cp_verify *v, struct cp_vcase *c)
{
	unsigned int bs = max(v->cand->geo.blocksize, 1U);
	unsigned int len, unit = max(bs, 16U);

	switch (cp_rand(c, 3)) {
	case 0:		/* 1 to 4 blocks */
		len = 1 + cp_rand(c, 4 * unit);
		break;
	case 1:		/* around a power of two, 16 to 64 KiB */
		len = (1U << (4 + cp_rand(c, 13))) + cp_rand(c, 33);
		len = len > 16 ? len - 16 : len;
		break;
	default:
		len = 1 + cp_rand(c, CP_VERIFY_MAX_LEN);
		break;
	}
	if (bs > 1 && !v->partial)
		len -= len % bs;
	return clamp(len, bs, CP_VERIFY_MAX_LEN);
}

static void cp_case_layout(struct cp_vcase *c, struct cp_layout *l)
{
	l->kind = cp_rand(c, 3);
	l->nents = l->kind == CP_LAYOUT_ONE ? 1 : 2 + cp_rand(c, 7);
	l->nents = min(l->nents, c->len);
	if (l->kind == CP_LAYOUT_PAGES)
		l->offset = PAGE_SIZE - 1 - cp_rand(c, 64);
	else if (cp_rand(c, 2))
		l->offset = cp_rand(c, 64);		/* unaligned */
	else
		l->offset = 16 * cp_rand(c, PAGE_SIZE / 16);
}

/*
 * Case @index of @v's seed. The key size takes each advertised size in
 * turn, the direction changes every round of them.
 */
static void cp_case_draw(struct cp_verify *v, u32 index, struct cp_vcase *c)
{
	u64 i = index;

	c->index = index;
	c->rng = v->p->seed ^ cp_splitmix64(&i);
	c->key_size = v->keys[index % v->nkeys];
	c->decrypt = (index / v->nkeys) & 1;
	c->len = cp_case_len(v, c);
	c->in_place = cp_rand(c, 2);
	cp_case_layout(c, &c->src);
	if (!c->in_place)
		cp_case_layout(c, &c->dst);
	cp_rand_bytes(c, v->key, c->key_size);
	cp_rand_bytes(c, v->iv, v->cand->geo.ivsize);
	cp_rand_bytes(c, v->in, c->len);
}

/*
 * @l over @buf's pages into @t: its entries cut the case's length in
 * uneven pieces (a page boundary inside each, for CP_LAYOUT_PAGES), gaps
 * of up to 31 bytes between them. Within CP_VERIFY_BUF_LEN by its bounds.
 */
static int cp_layout_build(struct cp_vcase *c, const struct cp_layout *l,
			   struct cp_buf *buf, struct sg_table *t)
{
	struct page *base = sg_page(buf->sgt.sgl);
	unsigned int pos = l->offset, left = c->len, i;
	struct scatterlist *sg;
	int r;

	sg_free_table(t);
	r = sg_alloc_table(t, l->nents, GFP_KERNEL);
	if (r)
		return r;
	for_each_sg(t->sgl, sg, l->nents, i) {
		unsigned int n = left;

		if (i + 1 < l->nents) {
			n = 1 + cp_rand(c, left - (l->nents - i - 1));
			if (l->kind == CP_LAYOUT_PAGES && n > 1) {
				/* end past the next page boundary if it can */
				unsigned int to_page = PAGE_SIZE - pos % PAGE_SIZE;

				if (to_page < left - (l->nents - i - 1))
					n = max(n, to_page + 1);
			}
		}
		sg_set_page(sg, base + pos / PAGE_SIZE, n, pos % PAGE_SIZE);
		left -= n;
		pos += n;
		if (l->kind == CP_LAYOUT_UNEVEN)
			pos += cp_rand(c, 32);
	}
	return 0;
}

/* "3 uneven entries from offset 7" */
static int cp_layout_words(char *to, size_t len, const struct cp_layout *l)
{
	if (l->kind == CP_LAYOUT_ONE)
		return scnprintf(to, len, "one entry at offset %u", l->offset);
	return scnprintf(to, len, "%u %s from offset %u", l->nents,
			 cp_layout_names[l->kind], l->offset);
}

/* The failing case, in words, into res->failure. */
static void cp_case_fail(struct cp_verify *v, const struct cp_vcase *c,
			 const char *what)
{
	char *s = v->res->failure;
	size_t n = sizeof(v->res->failure);
	int w;

	v->res->verdict = CRYPTOPRIO_VERIFY_FAILED;
	v->res->failed_case = c->index;
	w = scnprintf(s, n, "case %u of seed %llu: %s %u bytes, %u-byte key, %s, src ",
		      c->index, v->p->seed, c->decrypt ? "decrypt" : "encrypt",
		      c->len, c->key_size,
		      c->in_place ? "in place" : "out of place");
	w += cp_layout_words(s + w, n - w, &c->src);
	if (!c->in_place) {
		w += scnprintf(s + w, n - w, ", dst ");
		w += cp_layout_words(s + w, n - w, &c->dst);
	}
	scnprintf(s + w, n - w, ": %s", what);
	pr_info("%s: verification failed: %s\n", v->p->driver, s);
}

/* The reference's answer to the case: one entry, in place. */
static int cp_case_reference(struct cp_verify *v, struct cp_vcase *c)
{
	struct cp_run *ref = v->ref;
	struct cp_slot *s = &ref->slots[0];
	int r;

	r = ref->ops->setkey(&ref->tfm, &ref->geo, v->key, c->key_size);
	if (r)
		return r;
	sg_copy_from_buffer(s->src.sgt.sgl, 1, v->in, c->len);
	memcpy(s->iv, v->iv, ref->geo.ivsize);
	cp_run_point(ref, s->src.sgt.sgl, s->src.sgt.sgl, c->len, c->decrypt);
	r = cp_run_go(ref, true, 0, v->p->grace_ns, NULL);
	if (r == CP_RUN_ABANDONED) {
		v->ref = NULL;	/* a zombie: a synchronous one never is */
		return -ETIMEDOUT;
	}
	if (s->err)
		return s->err;
	sg_copy_to_buffer(s->src.sgt.sgl, 1, v->want, c->len);
	memcpy(v->iv_want, s->iv, ref->geo.ivsize);
	return 0;
}

/* The first byte where @a and @b differ, or @len. */
static unsigned int cp_first_diff(const u8 *a, const u8 *b, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len && a[i] == b[i]; i++)
		;
	return i;
}

/* The candidate's answer, judged: 0 (see res), or CP_RUN_ABANDONED. */
static int cp_case_candidate(struct cp_verify *v, struct cp_vcase *c)
{
	struct cp_run *run = v->cand;
	struct cp_slot *s = &run->slots[0];
	struct scatterlist *out;
	char what[80];
	unsigned int at;
	int r;

	r = run->ops->setkey(&run->tfm, &run->geo, v->key, c->key_size);
	if (r) {
		snprintf(what, sizeof(what),
			 "setkey failed (%d), the reference took the key", r);
		cp_case_fail(v, c, what);
		return 0;
	}
	if (cp_layout_build(c, &c->src, &s->src, &s->layout[0]) ||
	    (!c->in_place &&
	     cp_layout_build(c, &c->dst, &s->dst, &s->layout[1])))
		return -ENOMEM;
	out = c->in_place ? s->layout[0].sgl : s->layout[1].sgl;
	sg_copy_from_buffer(s->layout[0].sgl, c->src.nents, v->in, c->len);
	memcpy(s->iv, v->iv, run->geo.ivsize);
	cp_run_point(run, s->layout[0].sgl, out, c->len, c->decrypt);
	r = cp_run_go(run, true, 0, v->p->grace_ns, NULL);
	if (r == CP_RUN_ABANDONED) {
		v->cand = NULL;
		cp_case_fail(v, c, "no answer within the grace period (its memory kept until it completes)");
		v->res->verdict = CRYPTOPRIO_VERIFY_TIMEOUT;
		return r;
	}
	if (s->err) {
		snprintf(what, sizeof(what),
			 "failed with error %d, the reference succeeded", s->err);
		cp_case_fail(v, c, what);
		return 0;
	}
	sg_copy_to_buffer(out, sg_nents(out), v->got, c->len);
	at = cp_first_diff(v->got, v->want, c->len);
	if (at < c->len) {
		snprintf(what, sizeof(what),
			 "output differs from the reference's from byte %u", at);
		cp_case_fail(v, c, what);
	} else if (run->geo.shape.iv_out &&
		   memcmp(s->iv, v->iv_want, run->geo.ivsize)) {
		cp_case_fail(v, c, "output IV differs from the reference's");
	}
	return 0;
}

/* The key sizes in the candidate's range that the reference accepts. */
static int cp_verify_keys(struct cp_verify *v, struct netlink_ext_ack *extack)
{
	struct cp_run *ref = v->ref;
	unsigned int min, max, k;

	v->cand->ops->verify->key_range(&v->cand->tfm, &min, &max);
	max = min(max, CRYPTOPRIO_MAX_KEY_SIZE);
	get_random_bytes(v->key, sizeof(v->key));
	for (k = min; k <= max && v->nkeys < CP_VERIFY_MAX_KEYS; k++)
		if (!ref->ops->setkey(&ref->tfm, &ref->geo, v->key, k))
			v->keys[v->nkeys++] = k;
	if (!v->nkeys) {
		NL_SET_ERR_MSG(extack, "the reference takes none of the key sizes the driver advertises");
		return -EINVAL;
	}
	return 0;
}

/* Whether the reference takes a block and one byte (ciphertext stealing). */
static int cp_verify_partial(struct cp_verify *v)
{
	struct cp_run *ref = v->ref;
	struct cp_slot *s = &ref->slots[0];
	int r;

	v->partial = true;
	if (ref->geo.blocksize <= 1)
		return 0;
	r = ref->ops->setkey(&ref->tfm, &ref->geo, v->key, v->keys[0]);
	if (r)
		return r;
	cp_run_point(ref, s->src.sgt.sgl, s->src.sgt.sgl,
		     ref->geo.blocksize + 1, false);
	r = cp_run_go(ref, true, 0, v->p->grace_ns, NULL);
	if (r == CP_RUN_ABANDONED) {
		v->ref = NULL;
		return -ETIMEDOUT;
	}
	v->partial = !s->err;
	return 0;
}

/* The reference, keyed with its first key size, on a run of its own. */
static int cp_verify_reference(struct cp_verify *v,
			       struct netlink_ext_ack *extack)
{
	const struct cp_type_ops *ops = v->cand->ops;
	struct cp_tfm rt = { .type = v->p->type };
	struct cp_geometry rg = {};
	char *name = v->res->reference;
	int r;

	r = ops->kat->find_reference(ops->alg_name(&v->cand->tfm), name,
				     sizeof(v->res->reference));
	if (!r)
		r = ops->alloc(&rt, name, 0, CRYPTO_ALG_ASYNC |
			       CRYPTO_ALG_KERN_DRIVER_ONLY | CRYPTO_NOLOAD);
	if (r) {
		name[0] = '\0';
		NL_SET_ERR_MSG(extack, "no reference implementation to compare with");
		return -ENOENT;
	}
	strscpy(name, ops->driver_name(&rt), sizeof(v->res->reference));
	ops->geometry(&rt, &rg);
	if (rg.ivsize != v->cand->geo.ivsize ||
	    rg.blocksize != v->cand->geo.blocksize) {
		ops->free(&rt);
		NL_SET_ERR_MSG(extack, "IV or block size differs from the reference's: faulty");
		return -EPROTO;
	}
	v->ref = cp_run_alloc_linear(&rt, &rg, CP_VERIFY_BUF_LEN);
	if (!v->ref) {
		ops->free(&rt);
		return -ENOMEM;
	}
	r = cp_verify_keys(v, extack);
	if (!r)
		r = cp_verify_partial(v);
	return r;
}

static int cp_verify_prepare(struct cp_verify *v, struct netlink_ext_ack *extack)
{
	const struct cp_type_ops *ops = cp_type_ops(v->p->type);
	struct cp_tfm t = { .type = v->p->type };
	struct cp_geometry g = {};
	int r;

	if (!ops || !ops->verify) {
		NL_SET_ERR_MSG(extack, "not verified: type skcipher only for now");
		return -EOPNOTSUPP;
	}
	r = cp_alloc_candidate(v->p->driver, v->p->type, &t, extack);
	if (r)
		return r;
	ops->geometry(&t, &g);
	if (g.ivsize > CP_MAX_IV_SIZE) {
		ops->free(&t);
		NL_SET_ERR_MSG(extack, "the algorithm's IV is larger than the module handles");
		return -EOPNOTSUPP;
	}
	r = cp_zombie_check(v->p->driver, 2 * (PAGE_SIZE << get_order(CP_VERIFY_BUF_LEN)),
			    extack);
	if (!r) {
		v->cand = cp_run_alloc_linear(&t, &g, CP_VERIFY_BUF_LEN);
		r = v->cand ? 0 : -ENOMEM;
	}
	if (r) {
		ops->free(&t);
		return r;
	}
	v->in = kvmalloc(CP_VERIFY_MAX_LEN, GFP_KERNEL);
	v->want = kvmalloc(CP_VERIFY_MAX_LEN, GFP_KERNEL);
	v->got = kvmalloc(CP_VERIFY_MAX_LEN, GFP_KERNEL);
	if (!v->in || !v->want || !v->got)
		return -ENOMEM;
	return cp_verify_reference(v, extack);
}

/* Case after case until one fails; 0, an error, or CP_RUN_ABANDONED. */
static int cp_verify_cases(struct cp_verify *v, struct netlink_ext_ack *extack)
{
	struct cp_vcase c;
	u32 i;
	int r;

	for (i = 0; i < v->p->cases; i++) {
		if (cp_command_caller_gone())
			return -EPIPE;
		if (ktime_after(ktime_get(), v->end)) {
			NL_SET_ERR_MSG(extack, "the cases took longer than 60 s");
			return -ETIME;
		}
		cp_case_draw(v, i, &c);
		v->res->cases = i + 1;
		r = cp_case_reference(v, &c);
		if (r) {
			NL_SET_ERR_MSG(extack, "the reference failed a case: nothing to compare with");
			return r;
		}
		r = cp_case_candidate(v, &c);
		if (r || v->res->verdict != CRYPTOPRIO_VERIFY_PASSED)
			return r;
		cond_resched();
	}
	return 0;
}

int cp_verify(const struct cp_verify_params *p, struct cp_verify_result *res,
	      struct netlink_ext_ack *extack)
{
	struct cp_verify v = { .p = p, .res = res };
	int r;

	res->verdict = CRYPTOPRIO_VERIFY_PASSED;
	v.end = ktime_add_ns(ktime_get(), CP_VERIFY_TIME_NS);
	r = cp_verify_prepare(&v, extack);
	if (r == -ENOMEM)
		NL_SET_ERR_MSG(extack, "out of memory for the verification's buffers");
	if (!r)
		r = cp_verify_cases(&v, extack);
	if (v.ref)
		cp_run_free(v.ref);
	/* a zombie's buffers are its own now */
	if (v.cand)
		cp_run_free(v.cand);
	kvfree(v.in);
	kvfree(v.want);
	kvfree(v.got);
	memzero_explicit(v.key, sizeof(v.key));
	return r;
}
