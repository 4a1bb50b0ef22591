// SPDX-License-Identifier: GPL-2.0-only
/*
 * cp_test_engine: deflate as an acomp ("cp_test_engine_deflate"), computed
 * by the CPU's deflate (deflate-scomp before 6.15, deflate-generic since),
 * as Intel IAA, QAT and HiSilicon's zip register theirs for zswap. Mode
 * wrong flips the first output byte: in compressed data, the final-block
 * bit of the first deflate block, which no decompressor can miss; so do
 * modes len64 and big when the text's length (the input's, or the
 * decompressed output's) is of their shape, and crosstalk a request in
 * flight beside another transform's. Mode overrun writes a byte past an
 * output space found too short (cp_engine_core.c).
 *
 * Each transform has one request of the fallback, allocated by
 * acomp_request_alloc() at init and used under a lock: before 6.15 that
 * call also allocates scomp's per-request context (the compressor's
 * workspace), which a request embedded in ours would lack. The fallback is
 * synchronous and does not sleep (scomp ran on per-CPU scratch buffers
 * with preemption off; since 6.15 on per-CPU streams under spin_lock_bh),
 * so the lock may be a spinlock taken in any context.
 *
 * acomp_alg.reqsize exists before 6.15 only: the request size is set in
 * init, which every kernel calls after it set crypto_acomp.reqsize.
 *
 * With deflate_store, compression writes stored blocks (RFC 1951 3.2.4:
 * the input as it is, five bytes of header per 65535), which any inflate
 * reads back: an engine much faster than the CPU's deflate and with a
 * worse ratio (1:1), the extreme of a hardware engine's fixed codes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/acompress.h>
#include <crypto/internal/acompress.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>

#include "cp_test_engine.h"

struct cpt_acomp_ctx {
	struct crypto_acomp *fallback;
	struct acomp_req *fbreq;
	spinlock_t lock;		/* fbreq */
};

static int cpt_acomp_init(struct crypto_acomp *tfm)
{
	struct cpt_acomp_ctx *ctx = acomp_tfm_ctx(tfm);
	const char *name = crypto_tfm_alg_name(crypto_acomp_tfm(tfm));

	ctx->fallback = crypto_alloc_acomp(name, 0, CPT_FALLBACK_MASK);
	if (IS_ERR(ctx->fallback))
		return PTR_ERR(ctx->fallback);
	ctx->fbreq = acomp_request_alloc(ctx->fallback);
	if (!ctx->fbreq) {
		crypto_free_acomp(ctx->fallback);
		return -ENOMEM;
	}
	spin_lock_init(&ctx->lock);
	tfm->reqsize = sizeof(struct cpt_req);
	return 0;
}

static void cpt_acomp_exit(struct crypto_acomp *tfm)
{
	struct cpt_acomp_ctx *ctx = acomp_tfm_ctx(tfm);

	acomp_request_free(ctx->fbreq);
	crypto_free_acomp(ctx->fallback);
}

static bool cpt_deflate_store;
module_param_named(deflate_store, cpt_deflate_store, bool, 0644);
MODULE_PARM_DESC(deflate_store, "Y: deflate compresses into stored blocks (fast, ratio 1:1)");

#define CPT_STORED_MAX	65535u	/* bytes of one stored block */
#define CPT_STORED_HDR	5u	/* BFINAL/BTYPE byte, LEN, NLEN */

/* @req's input as stored deflate blocks into its output; 0 or -ENOSPC. */
static int cpt_deflate_stored(struct acomp_req *req)
{
	unsigned int slen = req->slen, done = 0, off = 0;
	unsigned int n_src = sg_nents(req->src), n_dst = sg_nents(req->dst);
	u8 buf[256];

	do {
		unsigned int len = min(slen - done, CPT_STORED_MAX);

		if (off + CPT_STORED_HDR + len > req->dlen)
			return -ENOSPC;
		buf[0] = done + len == slen;	/* BFINAL; BTYPE 00: stored */
		put_unaligned_le16(len, buf + 1);
		put_unaligned_le16(~len & 0xffff, buf + 3);
		sg_pcopy_from_buffer(req->dst, n_dst, buf, CPT_STORED_HDR, off);
		off += CPT_STORED_HDR;
		for (unsigned int i = 0; i < len; i += sizeof(buf)) {
			unsigned int c = min_t(unsigned int, len - i, sizeof(buf));

			sg_pcopy_to_buffer(req->src, n_src, buf, c, done + i);
			sg_pcopy_from_buffer(req->dst, n_dst, buf, c, off + i);
		}
		off += len;
		done += len;
	} while (done < slen);
	req->dlen = off;
	return 0;
}

/* Whether @r's answer, @text bytes of text, is to be made wrong. */
static bool cpt_acomp_wrong(struct cpt_req *r, unsigned int text)
{
	return cpt_wrong_cipher(r, NULL, NULL, 0, text, 0);
}

/*
 * Mode overrun, @req's output space too short: its byte just past the
 * space's last entry flipped, as if the engine had written on. Lowmem
 * only (sg_virt()).
 */
static void cpt_acomp_overrun(struct acomp_req *req)
{
	struct scatterlist *last;
	u8 *p;

	if (!cpt_overrun() || !req->dst || !req->dlen)
		return;
	last = sg_last(req->dst, sg_nents(req->dst));
	if (PageHighMem(sg_page(last)))
		return;
	p = (u8 *)sg_virt(last) + last->length;
	*p ^= 0xff;
}

static int cpt_acomp_run(struct cpt_req *r, bool decompress)
{
	struct acomp_req *req = container_of(r->base, struct acomp_req, base);
	struct cpt_acomp_ctx *ctx = acomp_tfm_ctx(crypto_acomp_reqtfm(req));
	struct acomp_req *fb = ctx->fbreq;
	unsigned int dlen;
	int err;

	if (!decompress && READ_ONCE(cpt_deflate_store)) {
		err = cpt_deflate_stored(req);
		if (!err && cpt_acomp_wrong(r, req->slen))
			cpt_flip(req->dst, 0);
		if (err == -ENOSPC)
			cpt_acomp_overrun(req);
		return err;
	}
	spin_lock_bh(&ctx->lock);
	acomp_request_set_callback(fb, 0, NULL, NULL);
	acomp_request_set_params(fb, req->src, req->dst, req->slen, req->dlen);
	err = decompress ? crypto_acomp_decompress(fb) :
			   crypto_acomp_compress(fb);
	dlen = fb->dlen;
	spin_unlock_bh(&ctx->lock);
	if (err) {
		cpt_acomp_overrun(req);
		return err;
	}
	req->dlen = dlen;
	if (dlen && cpt_acomp_wrong(r, decompress ? dlen : req->slen))
		cpt_flip(req->dst, 0);
	return 0;
}

static int cpt_acomp_run_compress(struct cpt_req *r)
{
	return cpt_acomp_run(r, false);
}

static int cpt_acomp_run_decompress(struct cpt_req *r)
{
	return cpt_acomp_run(r, true);
}

static int cpt_acomp_compress(struct acomp_req *req)
{
	return cpt_submit(acomp_request_ctx(req), &req->base,
			  cpt_acomp_run_compress);
}

static int cpt_acomp_decompress(struct acomp_req *req)
{
	return cpt_submit(acomp_request_ctx(req), &req->base,
			  cpt_acomp_run_decompress);
}

static struct acomp_alg cpt_deflate = {
	.compress = cpt_acomp_compress,
	.decompress = cpt_acomp_decompress,
	.init = cpt_acomp_init,
	.exit = cpt_acomp_exit,
	.base = {
		.cra_name = "deflate",
		.cra_driver_name = "cp_test_engine_deflate",
		.cra_priority = CPT_PRIORITY,
		.cra_flags = CPT_FLAGS,
		.cra_ctxsize = sizeof(struct cpt_acomp_ctx),
		.cra_module = THIS_MODULE,
	},
};

int cpt_acomp_register(void)
{
	return crypto_register_acomp(&cpt_deflate);
}

void cpt_acomp_unregister(void)
{
	crypto_unregister_acomp(&cpt_deflate);
}
