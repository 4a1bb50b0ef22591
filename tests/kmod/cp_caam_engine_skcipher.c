// SPDX-License-Identifier: GPL-2.0-only
/*
 * cp_caam_engine: xts(aes) ("xts-aes-cp-caam"), XTS by hand (IEEE 1619,
 * with ciphertext stealing, as crypto/xts.c) over two "ecb(aes)" sync
 * skciphers, one for the data, one for the tweak. Never "xts(aes)": that
 * would instantiate the kernel's xts template, a CPU implementation of
 * this engine's name.
 *
 * Registered without CRYPTO_ALG_ALLOCATES_MEMORY, as an engine that
 * preallocates its requests' memory does (dm-crypt, which cannot wait for
 * memory, takes only such a driver): nothing here allocates per request,
 * the bounce buffer the blocks are ciphered in is in the request context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/aes.h>
#include <crypto/b128ops.h>
#include <crypto/gf128mul.h>
#include <crypto/internal/skcipher.h>
#include <crypto/scatterwalk.h>
#include <crypto/xts.h>
#include <linux/module.h>
#include <linux/string.h>

#include "cp_caam_engine.h"

#define CPC_XTS_BLOCKS	(CPC_CHUNK / AES_BLOCK_SIZE)

/* per request, after the engine's part */
struct cpc_xts_rctx {
	u8 buf[CPC_CHUNK];		/* blocks ciphered in place */
	le128 t[CPC_XTS_BLOCKS];	/* their tweaks */
};

struct cpc_xts_ctx {
	struct crypto_sync_skcipher *data;	/* ecb(aes), key 1 */
	struct crypto_sync_skcipher *tweak;	/* ecb(aes), key 2 */
	unsigned int key_size;			/* of each */
};

/* @len bytes of @buf (in the request context) through ecb, in place */
static int cpc_ecb(struct crypto_sync_skcipher *tfm, u8 *buf,
		   unsigned int len, bool decrypt)
{
	SYNC_SKCIPHER_REQUEST_ON_STACK(sk, tfm);
	struct scatterlist sg;
	int err;

	sg_init_one(&sg, buf, len);
	skcipher_request_set_sync_tfm(sk, tfm);
	skcipher_request_set_callback(sk, 0, NULL, NULL);
	skcipher_request_set_crypt(sk, &sg, &sg, len, NULL);
	err = decrypt ? crypto_skcipher_decrypt(sk) :
			crypto_skcipher_encrypt(sk);
	skcipher_request_zero(sk);
	return err;
}

/* one block of @buf: XOR @t, ecb, XOR @t */
static int cpc_xts_block(struct cpc_xts_ctx *ctx, u8 *buf, const le128 *t,
			 bool decrypt)
{
	int err;

	le128_xor((le128 *)buf, (le128 *)buf, t);
	err = cpc_ecb(ctx->data, buf, AES_BLOCK_SIZE, decrypt);
	le128_xor((le128 *)buf, (le128 *)buf, t);
	return err;
}

static int cpc_xts_run(struct cpt_req *r, bool decrypt)
{
	struct skcipher_request *req =
		container_of(r->base, struct skcipher_request, base);
	struct cpc_xts_ctx *ctx =
		crypto_skcipher_ctx(crypto_skcipher_reqtfm(req));
	struct cpc_xts_rctx *rc = (struct cpc_xts_rctx *)r->subreq;
	unsigned int len = req->cryptlen, tail = len % AES_BLOCK_SIZE;
	unsigned int bulk, off, n, i;
	u8 in[AES_BLOCK_SIZE];
	le128 t, t2;
	int err;

	if (len < AES_BLOCK_SIZE)
		return -EINVAL;
	/* with a partial last block, the last full one is stolen from */
	bulk = tail ? len - AES_BLOCK_SIZE - tail : len;

	/* the first tweak: E(K2, IV) */
	memcpy(rc->buf, req->iv, AES_BLOCK_SIZE);
	err = cpc_ecb(ctx->tweak, rc->buf, AES_BLOCK_SIZE, false);
	if (err)
		return err;
	memcpy(&t, rc->buf, AES_BLOCK_SIZE);

	for (off = 0; off < bulk; off += n) {
		n = min_t(unsigned int, bulk - off, CPC_CHUNK);
		scatterwalk_map_and_copy(rc->buf, req->src, off, n, 0);
		for (i = 0; i < n / AES_BLOCK_SIZE; i++) {
			rc->t[i] = t;
			le128_xor((le128 *)rc->buf + i, (le128 *)rc->buf + i,
				  &t);
			gf128mul_x_ble(&t, &t);
		}
		err = cpc_ecb(ctx->data, rc->buf, n, decrypt);
		if (err)
			return err;
		for (i = 0; i < n / AES_BLOCK_SIZE; i++)
			le128_xor((le128 *)rc->buf + i, (le128 *)rc->buf + i,
				  &rc->t[i]);
		scatterwalk_map_and_copy(rc->buf, req->dst, off, n, 1);
	}

	if (tail) {
		/*
		 * Ciphertext stealing: the last full block with the tweak
		 * of the partial one when decrypting, its own otherwise;
		 * its first bytes are the partial block's output, the
		 * partial input with its other bytes ciphered again.
		 */
		gf128mul_x_ble(&t2, &t);
		scatterwalk_map_and_copy(rc->buf, req->src, bulk,
					 AES_BLOCK_SIZE + tail, 0);
		err = cpc_xts_block(ctx, rc->buf, decrypt ? &t2 : &t, decrypt);
		if (err)
			return err;
		memcpy(in, rc->buf + AES_BLOCK_SIZE, tail);
		memcpy(rc->buf + AES_BLOCK_SIZE, rc->buf, tail);
		memcpy(rc->buf, in, tail);
		err = cpc_xts_block(ctx, rc->buf, decrypt ? &t : &t2, decrypt);
		if (err)
			return err;
		scatterwalk_map_and_copy(rc->buf, req->dst, bulk,
					 AES_BLOCK_SIZE + tail, 1);
	}
	if (cpt_wrong_cipher(r, req->src, req->dst, len, len, ctx->key_size))
		cpt_flip(req->dst, len - 1);
	return 0;
}

static int cpc_xts_run_enc(struct cpt_req *r)
{
	return cpc_xts_run(r, false);
}

static int cpc_xts_run_dec(struct cpt_req *r)
{
	return cpc_xts_run(r, true);
}

static int cpc_xts_encrypt(struct skcipher_request *req)
{
	return cpt_submit(skcipher_request_ctx(req), &req->base,
			  cpc_xts_run_enc);
}

static int cpc_xts_decrypt(struct skcipher_request *req)
{
	return cpt_submit(skcipher_request_ctx(req), &req->base,
			  cpc_xts_run_dec);
}

static int cpc_xts_setkey(struct crypto_skcipher *tfm, const u8 *key,
			  unsigned int len)
{
	struct cpc_xts_ctx *ctx = crypto_skcipher_ctx(tfm);

	int err = xts_verify_key(tfm, key, len) ?:
		  crypto_sync_skcipher_setkey(ctx->data, key, len / 2) ?:
		  crypto_sync_skcipher_setkey(ctx->tweak, key + len / 2,
					      len / 2);

	if (!err)
		ctx->key_size = len / 2;
	return err;
}

static int cpc_xts_init(struct crypto_skcipher *tfm)
{
	struct cpc_xts_ctx *ctx = crypto_skcipher_ctx(tfm);

	ctx->data = crypto_alloc_sync_skcipher("ecb(aes)", 0, 0);
	if (IS_ERR(ctx->data))
		return PTR_ERR(ctx->data);
	ctx->tweak = crypto_alloc_sync_skcipher("ecb(aes)", 0, 0);
	if (IS_ERR(ctx->tweak)) {
		crypto_free_sync_skcipher(ctx->data);
		return PTR_ERR(ctx->tweak);
	}
	crypto_skcipher_set_reqsize(tfm, sizeof(struct cpt_req) +
				    sizeof(struct cpc_xts_rctx));
	return 0;
}

static void cpc_xts_exit(struct crypto_skcipher *tfm)
{
	struct cpc_xts_ctx *ctx = crypto_skcipher_ctx(tfm);

	crypto_free_sync_skcipher(ctx->tweak);
	crypto_free_sync_skcipher(ctx->data);
}

static struct skcipher_alg cpc_xts_aes = {
	.base = {
		.cra_name = "xts(aes)",
		.cra_driver_name = "xts-aes-cp-caam",
		.cra_priority = CPC_PRIORITY,
		.cra_flags = CPC_FLAGS_PREALLOC,
		.cra_blocksize = AES_BLOCK_SIZE,
		.cra_ctxsize = sizeof(struct cpc_xts_ctx),
		.cra_module = THIS_MODULE,
	},
	.init = cpc_xts_init,
	.exit = cpc_xts_exit,
	.setkey = cpc_xts_setkey,
	.encrypt = cpc_xts_encrypt,
	.decrypt = cpc_xts_decrypt,
	.min_keysize = 2 * AES_MIN_KEY_SIZE,
	.max_keysize = 2 * AES_MAX_KEY_SIZE,
	.ivsize = AES_BLOCK_SIZE,
};

int cpc_skcipher_register(void)
{
	return crypto_register_skcipher(&cpc_xts_aes);
}

void cpc_skcipher_unregister(void)
{
	crypto_unregister_skcipher(&cpc_xts_aes);
}
