// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: compression through the acomp interface, which serves the
 * kernel's synchronous compressors (scomp: lzo, lz4, deflate before 6.15...)
 * too. A slot's src holds the uncompressed data, its dst the compressed:
 * compression goes from src to dst, decompression ("decrypt") back.
 *
 * Both buffers are one scatterlist entry over contiguous pages (run.c):
 * since 6.15 scomp maps the first entry of src and dst and fails a dst
 * longer than it with -ENOSYS, copying a src that is not linear into a
 * scratch page of PAGE_SIZE. Before, it copied both through per-CPU
 * scratch buffers of 128 KiB (SCOMP_SCRATCH_SIZE), refusing a longer src:
 * hence CRYPTOPRIO_MAX_ACOMP_REQ_SIZE.
 *
 * The same calls exist on 6.1, 6.12 and 7.2: crypto_alloc_acomp(),
 * acomp_request_alloc(tfm) (an exported function before 6.15, which also
 * allocates scomp's per-request context; since, a macro whose gfp argument
 * is optional), acomp_request_set_callback() and acomp_request_set_params()
 * (which since 6.15 also clears the request's virtual-address flags), and
 * req->dlen, the output's length once a request completed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/acompress.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "types.h"

/* @t's transform: what cp_tfm's handle holds for this type. */
static struct crypto_acomp *cp_acomp_of(struct cp_tfm *t)
{
	return t->handle;
}

static int cp_acomp_alloc(struct cp_tfm *t, const char *name, u32 type, u32 mask)
{
	struct crypto_acomp *tfm = crypto_alloc_acomp(name, type, mask);

	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	t->handle = tfm;
	return 0;
}

static void cp_acomp_free(struct cp_tfm *t)
{
	crypto_free_acomp(cp_acomp_of(t));
}

static const char *cp_acomp_driver_name(struct cp_tfm *t)
{
	return crypto_tfm_alg_driver_name(crypto_acomp_tfm(cp_acomp_of(t)));
}

static const char *cp_acomp_alg_name(struct cp_tfm *t)
{
	return crypto_tfm_alg_name(crypto_acomp_tfm(cp_acomp_of(t)));
}

static void cp_acomp_geometry(struct cp_tfm *t, struct cp_geometry *g)
{
	g->blocksize = 1;
	g->acomp = true;
}

static int cp_acomp_check(const struct cp_params *p, const struct cp_geometry *g,
			  struct netlink_ext_ack *extack)
{
	if (p->req_size > CRYPTOPRIO_MAX_ACOMP_REQ_SIZE) {
		NL_SET_ERR_MSG(extack, "compression requests are at most 65536 bytes (64 KiB)");
		return -EINVAL;
	}
	return 0;
}

static int cp_acomp_setkey(struct cp_tfm *t, const struct cp_geometry *g,
			   const u8 *key, unsigned int len)
{
	return -EINVAL;		/* no compressor takes a key (core.c refuses one) */
}

static void *cp_acomp_req_alloc(struct cp_tfm *t)
{
	return acomp_request_alloc(cp_acomp_of(t));
}

static void cp_acomp_req_free(void *req)
{
	acomp_request_free(req);
}

/* Lengths anew for each request: a completed one holds its output's in dlen. */
static void cp_acomp_set_params(struct cp_slot *slot, bool decompress)
{
	struct acomp_req *req = slot->req;

	if (decompress)
		acomp_request_set_params(req, slot->dst.sgt.sgl, slot->src.sgt.sgl,
					 slot->clen, slot->src.len);
	else
		acomp_request_set_params(req, slot->src.sgt.sgl, slot->dst.sgt.sgl,
					 slot->src.len, slot->dst.len);
}

static void cp_acomp_req_prepare(struct cp_tfm *t, struct cp_slot *slot,
				 u32 req_size, const struct cp_geometry *g,
				 bool decrypt, crypto_completion_t cb, void *data)
{
	acomp_request_set_callback(slot->req, CRYPTO_TFM_REQ_MAY_BACKLOG, cb, data);
	cp_acomp_set_params(slot, decrypt);
}

static int cp_acomp_submit(struct cp_slot *slot, bool decrypt)
{
	if (!slot->pointed)
		cp_acomp_set_params(slot, decrypt);
	return decrypt ? crypto_acomp_decompress(slot->req) :
			 crypto_acomp_compress(slot->req);
}

/*
 * The corpus: what a compressor meets in a swapped-out page, made here,
 * deterministically, rather than taken from a table, so that any request
 * size up to the limit gets data that repeats no earlier part of itself
 * (deflate's window is 32 KiB) at no cost in the module's size. Zeros
 * would measure nothing (zswap stores same-filled pages without
 * compressing them) and random bytes only the stored-block path; so each
 * 512-byte chunk is, in a fixed rotation of eight, text (half the
 * chunks), arrays of kernel-like structures (pointers, counters, flags),
 * a sparse table or random bytes, each from xorshift32 seeded by the
 * chunk's index. Every page of 4 KiB has the same mix; deflate-generic
 * compresses a page of it 2.2 to 1 (2.4 at 64 KiB), lzo 2.0 to 1.
 */
#define CP_CHUNK	512

enum cp_chunk_kind { CP_TEXT, CP_RECORDS, CP_SPARSE, CP_NOISE };

static const enum cp_chunk_kind cp_rotation[8] = {
	CP_TEXT, CP_RECORDS, CP_TEXT, CP_SPARSE,
	CP_TEXT, CP_RECORDS, CP_NOISE, CP_TEXT,
};

static const char *const cp_words[] = {
	"the", "page", "of", "memory", "to", "and", "kernel", "a", "in",
	"process", "is", "file", "for", "that", "data", "with", "error",
	"on", "buffer", "request", "as", "device", "by", "not", "queue",
	"user", "from", "at", "this", "returned", "write", "read",
};

static u32 cp_xorshift(u32 *state)
{
	u32 x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

static void cp_chunk_text(u8 *p, unsigned int n, u32 *rng)
{
	unsigned int i = 0, words = 0;

	while (i < n) {
		u32 v = cp_xorshift(rng);
		char num[12];
		const char *w = cp_words[v % ARRAY_SIZE(cp_words)];
		size_t len;

		if ((v >> 8) % 16 == 0) {
			snprintf(num, sizeof(num), "%u", (v >> 12) % 100000);
			w = num;
		}
		len = min_t(size_t, strlen(w), n - i);
		memcpy(p + i, w, len);
		i += len;
		if (i < n)
			p[i++] = ++words % 11 ? ' ' : '\n';
	}
}

static void cp_chunk_records(u8 *p, unsigned int n, u32 index, u32 *rng)
{
	unsigned int i;

	/* 32-byte records: id, a pointer, flags, a reference count */
	for (i = 0; i + 32 <= n; i += 32) {
		u64 id = (u64)index * (CP_CHUNK / 32) + i / 32;
		u64 ptr = 0xffff888000000000ULL |
			  ((u64)(cp_xorshift(rng) & 0xfffff) << 6);
		u32 flags = cp_xorshift(rng) & 7;
		u64 refs = 1 + (cp_xorshift(rng) & 3);

		memcpy(p + i, &id, 8);
		memcpy(p + i + 8, &ptr, 8);
		memcpy(p + i + 16, &flags, 4);
		memset(p + i + 20, 0, 4);
		memcpy(p + i + 24, &refs, 8);
	}
	memset(p + i, 0, n - i);
}

static void cp_chunk_sparse(u8 *p, unsigned int n, u32 *rng)
{
	unsigned int i;

	memset(p, 0, n);
	for (i = 0; i + 8 <= n; i += 64) {
		u64 v = cp_xorshift(rng) & 0xfff;

		memcpy(p + i, &v, 8);
	}
}

static void cp_chunk_noise(u8 *p, unsigned int n, u32 *rng)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = cp_xorshift(rng);
}

static void cp_corpus(u8 *buf, unsigned int len)
{
	unsigned int off;

	for (off = 0; off < len; off += CP_CHUNK) {
		u32 index = off / CP_CHUNK;
		u32 rng = (index + 1) * 0x9e3779b9U;
		unsigned int n = min_t(unsigned int, CP_CHUNK, len - off);

		switch (cp_rotation[index % ARRAY_SIZE(cp_rotation)]) {
		case CP_TEXT:
			cp_chunk_text(buf + off, n, &rng);
			break;
		case CP_RECORDS:
			cp_chunk_records(buf + off, n, index, &rng);
			break;
		case CP_SPARSE:
			cp_chunk_sparse(buf + off, n, &rng);
			break;
		case CP_NOISE:
			cp_chunk_noise(buf + off, n, &rng);
			break;
		}
	}
}

/*
 * The known-answer check. Outputs of compression may differ between
 * implementations (levels, block strategies); what must hold is that each
 * decompresses the other's output to the input. So, on the corpus (k->in):
 *  1. the reference compresses (into k->want); every slot of the
 *     candidate decompresses that and must give the corpus back;
 *  2. every slot compresses the corpus; the reference decompresses each
 *     output and must give the corpus back.
 * Without a reference, the candidate must still compress (verdict
 * unsupported). Afterwards each slot holds the corpus in src and its own
 * verified output in dst, what the timed runs work on; where its output
 * failed, the reference's.
 */

/* Buffers are linear in lowmem (run.c allocates them without HIGHMEM). */
static u8 *cp_buf_mem(struct cp_buf *b)
{
	return page_address(sg_page(b->sgt.sgl));
}

static unsigned int cp_req_dlen(struct cp_slot *s)
{
	return ((struct acomp_req *)s->req)->dlen;
}

static int cp_acomp_kat_init(struct cp_kat *k)
{
	cp_corpus(k->in, k->run->req_size);
	return 0;
}

/* The slot decompressed to the corpus, exactly. */
static bool cp_src_is_corpus(struct cp_kat *k, struct cp_slot *s)
{
	return !s->err && cp_req_dlen(s) == s->src.len &&
	       !memcmp(cp_buf_mem(&s->src), k->in, s->src.len);
}

/* Step 1: the candidate decompresses the reference's output. */
static int cp_acomp_kat_decompress(struct cp_kat *k, bool *ok)
{
	struct cp_run *run = k->run;
	struct cp_slot *rs = &k->ref->slots[0];
	int r;
	u32 i;

	memcpy(cp_buf_mem(&rs->src), k->in, rs->src.len);
	r = cp_kat_ref_go(k, false);
	if (r)
		return r;
	k->want_len = cp_req_dlen(rs);
	if (!k->want_len || k->want_len > rs->dst.len)
		return -EINVAL;
	memcpy(k->want, cp_buf_mem(&rs->dst), k->want_len);
	for (i = 0; i < run->depth; i++) {
		struct cp_slot *s = &run->slots[i];

		memcpy(cp_buf_mem(&s->dst), k->want, k->want_len);
		s->clen = k->want_len;
		memset(cp_buf_mem(&s->src), 0, s->src.len);
	}
	r = cp_kat_go(k, run, true);
	if (r)
		return r;
	for (i = 0; i < run->depth; i++)
		if (!cp_src_is_corpus(k, &run->slots[i]))
			*ok = false;
	return 0;
}

/* Step 2 (or the only one): every slot compresses the corpus. */
static int cp_acomp_kat_compress(struct cp_kat *k, bool *ok)
{
	struct cp_run *run = k->run;
	int r;
	u32 i;

	for (i = 0; i < run->depth; i++)
		memcpy(cp_buf_mem(&run->slots[i].src), k->in,
		       run->slots[i].src.len);
	r = cp_kat_go(k, run, false);
	if (r)
		return r;
	for (i = 0; i < run->depth; i++) {
		struct cp_slot *s = &run->slots[i];
		unsigned int len = cp_req_dlen(s);

		s->clen = len;
		if (s->err || !len || len > s->dst.len) {
			s->clen = 0;
			*ok = false;
		}
	}
	return 0;
}

/* Step 2's second half: the reference decompresses each slot's output. */
static int cp_acomp_kat_cross(struct cp_kat *k, bool *ok)
{
	struct cp_slot *rs = &k->ref->slots[0];
	struct cp_run *run = k->run;
	int r;
	u32 i;

	for (i = 0; i < run->depth && *ok; i++) {
		struct cp_slot *s = &run->slots[i];

		memcpy(cp_buf_mem(&rs->dst), cp_buf_mem(&s->dst), s->clen);
		rs->clen = s->clen;
		memset(cp_buf_mem(&rs->src), 0, rs->src.len);
		r = cp_kat_ref_go(k, true);
		if (r == CP_RUN_ABANDONED)
			return r;
		/* the reference failing on it: the candidate's output is bad */
		if (r || !cp_src_is_corpus(k, rs))
			*ok = false;
	}
	return 0;
}

static int cp_acomp_kat_judge(struct cp_kat *k, bool *ok)
{
	int r;

	r = cp_acomp_kat_decompress(k, ok);
	if (!r)
		r = cp_acomp_kat_compress(k, ok);
	if (!r && *ok)
		r = cp_acomp_kat_cross(k, ok);
	/* no reference after all: none of its output to fall back on */
	if (r && r != CP_RUN_ABANDONED)
		k->want_len = 0;
	return r;
}

/* Unjudged, every slot must have compressed. */
static int cp_acomp_kat_answer(struct cp_kat *k, bool mismatch)
{
	struct cp_run *run = k->run;
	bool ok = true;
	int r;
	u32 i;

	r = cp_acomp_kat_compress(k, &ok);
	for (i = 0; !r && i < run->depth; i++)
		if (!run->slots[i].clen)
			r = run->slots[i].err ?: -EIO;
	return r;
}

/*
 * The corpus in every src; where a slot's own output is not to be
 * trusted, the reference's in its dst.
 */
static void cp_acomp_kat_settle(struct cp_kat *k, struct cp_result *res)
{
	bool trusted = res->kat != CRYPTOPRIO_KAT_MISMATCH;
	struct cp_run *run = k->run;
	u32 i;

	res->compressed_size = run->slots[0].clen;
	for (i = 0; i < run->depth; i++) {
		struct cp_slot *s = &run->slots[i];

		memcpy(cp_buf_mem(&s->src), k->in, s->src.len);
		if (!trusted && k->want_len) {
			memcpy(cp_buf_mem(&s->dst), k->want, k->want_len);
			s->clen = k->want_len;
		}
	}
	cp_run_prepare(run, k->decrypt);
}

/* No compressor takes a key. */
static void cp_acomp_key_range(struct cp_tfm *t, unsigned int *min,
			       unsigned int *max)
{
	*min = 0;
	*max = 0;
}

/* @len bytes of @src (de)compressed into @dst's one entry, its length the space. */
static void cp_acomp_req_set(struct cp_tfm *t, struct cp_slot *slot,
			     struct scatterlist *src, struct scatterlist *dst,
			     unsigned int assoclen, unsigned int len,
			     crypto_completion_t cb, void *data)
{
	acomp_request_set_callback(slot->req, CRYPTO_TFM_REQ_MAY_BACKLOG, cb, data);
	acomp_request_set_params(slot->req, src, dst, len, dst->length);
}

static const struct cp_verify_ops cp_acomp_verify_ops = {
	.key_range = cp_acomp_key_range,
	.req_set = cp_acomp_req_set,
	.round_trip = true,
	.answer_len = cp_req_dlen,
};

static const struct cp_kat_ops cp_acomp_kat_ops = {
	.find_reference = cp_reference_acomp,
	.init = cp_acomp_kat_init,
	.judge = cp_acomp_kat_judge,
	.answer = cp_acomp_kat_answer,
	.settle = cp_acomp_kat_settle,
	.mismatch = "does not round-trip with the reference",
};

const struct cp_type_ops cp_acomp_ops = {
	.name = "acomp",
	.alloc = cp_acomp_alloc,
	.free = cp_acomp_free,
	.driver_name = cp_acomp_driver_name,
	.alg_name = cp_acomp_alg_name,
	.geometry = cp_acomp_geometry,
	.check = cp_acomp_check,
	.setkey = cp_acomp_setkey,
	.req_alloc = cp_acomp_req_alloc,
	.req_free = cp_acomp_req_free,
	.req_prepare = cp_acomp_req_prepare,
	.submit = cp_acomp_submit,
	.kat = &cp_acomp_kat_ops,
	.verify = &cp_acomp_verify_ops,
	.frontend_type = CRYPTO_ALG_TYPE_ACOMPRESS,
	.frontend_mask = CRYPTO_ALG_TYPE_ACOMPRESS_MASK,
	.dst = CP_DST_ALWAYS,
	.key_size_refused = "KEY_SIZE is for ciphers and keyed hashes, not compressors",
	.compressed_size = true,
};
