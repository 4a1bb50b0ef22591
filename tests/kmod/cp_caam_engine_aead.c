// SPDX-License-Identifier: GPL-2.0-only
/*
 * cp_caam_engine: the AEADs CAAM registers natively, each computed in the
 * engine's worker from CPU implementations of other names only:
 *
 * authenc(hmac(sha256),cbc(aes)) ("authenc-hmac-sha256-cbc-aes-cp-caam")
 *   as crypto/authenc.c lays it out: the associated data, then the
 *   ciphertext of a "cbc(aes)" sync skcipher, then the HMAC-SHA256 (by
 *   hand over "sha256") of both, truncated to the authsize; the key in
 *   the authenc format (crypto_authenc_extractkeys).
 * echainiv(authenc(hmac(sha256),cbc(aes)))
 *   ("echainiv-authenc-hmac-sha256-cbc-aes-cp-caam")
 *   crypto/echainiv.c's IV generation over the authenc above: the
 *   request's IV carries the sequence number, the IV used is it times a
 *   random salt per transform (odd), and the first cipher block (the
 *   ESP IV's place, zeroed) encrypts to the IV sent; decryption takes the
 *   IV from the text and authenticates it as associated data.
 * gcm(aes) ("gcm-aes-cp-caam") and rfc4106(gcm(aes)) ("rfc4106-gcm-aes-cp-caam")
 *   GCM by hand: the keystream of a "ctr(aes)" sync skcipher, GHASH by
 *   hand (the GF(2^128) product of the GCM specification, bit by bit);
 *   rfc4106 with its 4-byte salt at the key's end and the 8-byte IV at
 *   the end of the associated data, as crypto/gcm.c has them.
 *
 * Never one of this engine's own names (authenc, echainiv, hmac, gcm...):
 * allocating them would instantiate the kernel's templates, the CPU
 * implementations the test needs absent.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/aes.h>
#include <crypto/algapi.h>
#include <crypto/authenc.h>
#include <crypto/b128ops.h>
#include <crypto/gcm.h>
#include <crypto/internal/aead.h>
#include <crypto/scatterwalk.h>
#include <crypto/skcipher.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/string.h>

#include "cp_caam_engine.h"

/* per request, after the engine's part: what a scatterlist may point to */
struct cpc_aead_rctx {
	u8 iv[AES_BLOCK_SIZE];		/* the counter of ctr(aes) */
	u8 ekj0[AES_BLOCK_SIZE];	/* GCM: E(K, J0) */
};

struct cpc_aead_ctx {
	struct crypto_sync_skcipher *sk;	/* cbc(aes) or ctr(aes) */
	struct cpc_hmac h;			/* authenc, echainiv */
	u8 salt[AES_BLOCK_SIZE];		/* echainiv */
	be128 ghash_key;			/* GCM: E(K, 0) */
	u8 nonce[4];				/* rfc4106 */
};

static struct cpc_aead_ctx *cpc_ctx(struct aead_request *req)
{
	return crypto_aead_ctx(crypto_aead_reqtfm(req));
}

static struct cpc_aead_rctx *cpc_rctx(struct cpt_req *r)
{
	return (struct cpc_aead_rctx *)r->subreq;
}

/*
 * @len bytes of @src from @off through the sync skcipher @tfm into @dst
 * at the same offset; @iv is updated as the skcipher does.
 */
static int cpc_sk(struct crypto_sync_skcipher *tfm, struct scatterlist *src,
		  struct scatterlist *dst, unsigned int off, unsigned int len,
		  u8 *iv, bool decrypt)
{
	SYNC_SKCIPHER_REQUEST_ON_STACK(sk, tfm);
	struct scatterlist s[2], d[2], *sp, *dp;
	int err;

	if (!len)
		return 0;
	sp = scatterwalk_ffwd(s, src, off);
	dp = src == dst ? sp : scatterwalk_ffwd(d, dst, off);
	skcipher_request_set_sync_tfm(sk, tfm);
	skcipher_request_set_callback(sk, 0, NULL, NULL);
	skcipher_request_set_crypt(sk, sp, dp, len, iv);
	err = decrypt ? crypto_skcipher_decrypt(sk) :
			crypto_skcipher_encrypt(sk);
	skcipher_request_zero(sk);
	return err;
}

/*
 * Mode wrong, as cp_test_engine: encrypt flips the last ciphertext byte
 * (the last tag byte if there is no text); decrypt, once authenticated,
 * the last plaintext byte.
 */
static void cpc_spoil(struct aead_request *req, bool decrypt)
{
	unsigned int authsize = crypto_aead_authsize(crypto_aead_reqtfm(req));
	unsigned int end = req->assoclen + req->cryptlen;

	if (decrypt) {
		if (req->cryptlen > authsize)
			cpt_flip(req->dst, end - authsize - 1);
	} else if (req->cryptlen) {
		cpt_flip(req->dst, end - 1);
	} else if (authsize) {
		cpt_flip(req->dst, end + authsize - 1);
	}
}

/* authenc(hmac(sha256),cbc(aes)) */

static int cpc_authenc_init(struct crypto_aead *tfm)
{
	struct cpc_aead_ctx *ctx = crypto_aead_ctx(tfm);
	int err;

	ctx->sk = crypto_alloc_sync_skcipher("cbc(aes)", 0, 0);
	if (IS_ERR(ctx->sk))
		return PTR_ERR(ctx->sk);
	err = cpc_hmac_init(&ctx->h);
	if (err) {
		crypto_free_sync_skcipher(ctx->sk);
		return err;
	}
	get_random_bytes(ctx->salt, sizeof(ctx->salt));
	crypto_aead_set_reqsize(tfm, sizeof(struct cpt_req) +
				sizeof(struct cpc_aead_rctx));
	return 0;
}

static void cpc_authenc_exit(struct crypto_aead *tfm)
{
	struct cpc_aead_ctx *ctx = crypto_aead_ctx(tfm);

	cpc_hmac_exit(&ctx->h);
	crypto_free_sync_skcipher(ctx->sk);
}

static int cpc_authenc_setkey(struct crypto_aead *tfm, const u8 *key,
			      unsigned int len)
{
	struct cpc_aead_ctx *ctx = crypto_aead_ctx(tfm);
	struct crypto_authenc_keys keys;
	int err;

	err = crypto_authenc_extractkeys(&keys, key, len) ?:
	      cpc_hmac_setkey(&ctx->h, keys.authkey, keys.authkeylen) ?:
	      crypto_sync_skcipher_setkey(ctx->sk, keys.enckey,
					  keys.enckeylen);
	memzero_explicit(&keys, sizeof(keys));
	return err;
}

/*
 * authenc over @src/@dst: @assoclen bytes of associated data, then
 * @cryptlen bytes of text (with the tag on decryption), with @iv.
 */
static int cpc_authenc(struct aead_request *req, struct scatterlist *src,
		       struct scatterlist *dst, unsigned int assoclen,
		       unsigned int cryptlen, u8 *iv, bool decrypt)
{
	struct cpc_aead_ctx *ctx = cpc_ctx(req);
	unsigned int authsize = crypto_aead_authsize(crypto_aead_reqtfm(req));
	u8 tag[SHA256_DIGEST_SIZE], want[SHA256_DIGEST_SIZE];
	int err;

	if (decrypt) {
		if (cryptlen < authsize)
			return -EINVAL;
		cryptlen -= authsize;
		err = cpc_hmac_sg(&ctx->h, src, assoclen + cryptlen, tag);
		if (err)
			return err;
		scatterwalk_map_and_copy(want, src, assoclen + cryptlen,
					 authsize, 0);
		if (crypto_memneq(tag, want, authsize))
			return -EBADMSG;
		return cpc_sk(ctx->sk, src, dst, assoclen, cryptlen, iv, true);
	}
	if (src != dst)
		memcpy_sglist(dst, src, assoclen);
	err = cpc_sk(ctx->sk, src, dst, assoclen, cryptlen, iv, false) ?:
	      cpc_hmac_sg(&ctx->h, dst, assoclen + cryptlen, tag);
	if (!err)
		scatterwalk_map_and_copy(tag, dst, assoclen + cryptlen,
					 authsize, 1);
	return err;
}

static int cpc_authenc_run(struct cpt_req *r, bool decrypt)
{
	struct aead_request *req =
		container_of(r->base, struct aead_request, base);
	int err;

	err = cpc_authenc(req, req->src, req->dst, req->assoclen,
			  req->cryptlen, req->iv, decrypt);
	if (!err && cpt_wrong_req(r))
		cpc_spoil(req, decrypt);
	return err;
}

/* echainiv(authenc(hmac(sha256),cbc(aes))), after crypto/echainiv.c */

static int cpc_echainiv_run(struct cpt_req *r, bool decrypt)
{
	struct aead_request *req =
		container_of(r->base, struct aead_request, base);
	struct cpc_aead_ctx *ctx = cpc_ctx(req);
	unsigned int ivsize = AES_BLOCK_SIZE, i;
	u8 *iv = req->iv;
	u64 seqno;
	int err;

	if (req->cryptlen < ivsize)
		return -EINVAL;
	if (decrypt) {
		/* the IV sent is the first block, authenticated as AD */
		scatterwalk_map_and_copy(iv, req->src, req->assoclen, ivsize,
					 0);
		err = cpc_authenc(req, req->src, req->dst,
				  req->assoclen + ivsize,
				  req->cryptlen - ivsize, iv, true);
	} else {
		if (req->src != req->dst)
			memcpy_sglist(req->dst, req->src,
				      req->assoclen + req->cryptlen);
		seqno = get_unaligned_be64(iv + ivsize - 8);
		memset(iv, 0, ivsize);
		scatterwalk_map_and_copy(iv, req->dst, req->assoclen, ivsize,
					 1);
		for (i = ivsize; i; i -= 8) {
			u64 a;

			memcpy(&a, ctx->salt + i - 8, 8);
			a |= 1;
			a *= seqno;
			memcpy(iv + i - 8, &a, 8);
		}
		err = cpc_authenc(req, req->dst, req->dst, req->assoclen,
				  req->cryptlen, iv, false);
	}
	if (!err && cpt_wrong_req(r))
		cpc_spoil(req, decrypt);
	return err;
}

/* gcm(aes), rfc4106(gcm(aes)) */

/* x = x * y in GF(2^128), bit by bit as the GCM specification says */
static void cpc_gf_mul(be128 *x, const be128 *y)
{
	u64 xh = be64_to_cpu(x->a), xl = be64_to_cpu(x->b);
	u64 vh = be64_to_cpu(y->a), vl = be64_to_cpu(y->b);
	u64 zh = 0, zl = 0, lsb;
	int i;

	for (i = 0; i < 128; i++) {
		if ((i < 64 ? xh >> (63 - i) : xl >> (127 - i)) & 1) {
			zh ^= vh;
			zl ^= vl;
		}
		lsb = vl & 1;
		vl = (vl >> 1) | (vh << 63);
		vh >>= 1;
		if (lsb)
			vh ^= 0xe100000000000000ULL;
	}
	x->a = cpu_to_be64(zh);
	x->b = cpu_to_be64(zl);
}

/* GHASH @len bytes of @sg from @off into @x, the last block zero-padded */
static void cpc_ghash_sg(const be128 *key, be128 *x, struct scatterlist *sg,
			 unsigned int off, unsigned int len)
{
	u8 buf[CPC_CHUNK];
	unsigned int i, n;

	while (len) {
		n = min_t(unsigned int, len, sizeof(buf));
		scatterwalk_map_and_copy(buf, sg, off, n, 0);
		for (i = 0; i < n; i += 16) {
			be128 b = {};

			memcpy(&b, buf + i, min(16U, n - i));
			be128_xor(x, x, &b);
			cpc_gf_mul(x, key);
		}
		off += n;
		len -= n;
	}
}

static int cpc_gcm_init(struct crypto_aead *tfm)
{
	struct cpc_aead_ctx *ctx = crypto_aead_ctx(tfm);

	ctx->sk = crypto_alloc_sync_skcipher("ctr(aes)", 0, 0);
	if (IS_ERR(ctx->sk))
		return PTR_ERR(ctx->sk);
	crypto_aead_set_reqsize(tfm, sizeof(struct cpt_req) +
				sizeof(struct cpc_aead_rctx));
	return 0;
}

static void cpc_gcm_exit(struct crypto_aead *tfm)
{
	struct cpc_aead_ctx *ctx = crypto_aead_ctx(tfm);

	crypto_free_sync_skcipher(ctx->sk);
}

static int cpc_gcm_setkey(struct crypto_aead *tfm, const u8 *key,
			  unsigned int len)
{
	struct cpc_aead_ctx *ctx = crypto_aead_ctx(tfm);
	u8 iv[AES_BLOCK_SIZE] = {};
	struct scatterlist sg;
	int err;

	err = crypto_sync_skcipher_setkey(ctx->sk, key, len);
	if (err)
		return err;
	/* the GHASH key E(K, 0^128): the first block of ctr from 0 */
	memset(&ctx->ghash_key, 0, sizeof(ctx->ghash_key));
	sg_init_one(&sg, &ctx->ghash_key, sizeof(ctx->ghash_key));
	return cpc_sk(ctx->sk, &sg, &sg, 0, sizeof(ctx->ghash_key), iv,
		      false);
}

static int cpc_gcm_setauthsize(struct crypto_aead *tfm, unsigned int size)
{
	return crypto_gcm_check_authsize(size);
}

/*
 * GCM over @src/@dst: GHASH over @adlen bytes of @src's start, the text at
 * @off, @cryptlen bytes (with the tag on decryption), nonce @iv12.
 */
static int cpc_gcm(struct cpt_req *r, struct aead_request *req,
		   unsigned int adlen, unsigned int off, unsigned int cryptlen,
		   const u8 *iv12, bool decrypt)
{
	struct cpc_aead_ctx *ctx = cpc_ctx(req);
	struct cpc_aead_rctx *rc = cpc_rctx(r);
	unsigned int authsize = crypto_aead_authsize(crypto_aead_reqtfm(req));
	be128 x = {}, lens;
	u8 want[AES_BLOCK_SIZE];
	struct scatterlist sg;
	int err;

	if (decrypt) {
		if (cryptlen < authsize)
			return -EINVAL;
		cryptlen -= authsize;
	}
	/* E(K, J0), J0 = IV || 1; the text's counter starts at J0 + 1 */
	memcpy(rc->iv, iv12, GCM_AES_IV_SIZE);
	put_unaligned_be32(1, rc->iv + GCM_AES_IV_SIZE);
	memset(rc->ekj0, 0, sizeof(rc->ekj0));
	sg_init_one(&sg, rc->ekj0, sizeof(rc->ekj0));
	err = cpc_sk(ctx->sk, &sg, &sg, 0, sizeof(rc->ekj0), rc->iv, false);
	if (err)
		return err;
	memcpy(rc->iv, iv12, GCM_AES_IV_SIZE);
	put_unaligned_be32(2, rc->iv + GCM_AES_IV_SIZE);
	if (!decrypt) {
		err = cpc_sk(ctx->sk, req->src, req->dst, off, cryptlen,
			     rc->iv, false);
		if (err)
			return err;
	}

	cpc_ghash_sg(&ctx->ghash_key, &x, req->src, 0, adlen);
	cpc_ghash_sg(&ctx->ghash_key, &x, decrypt ? req->src : req->dst, off,
		     cryptlen);
	lens.a = cpu_to_be64((u64)adlen * 8);
	lens.b = cpu_to_be64((u64)cryptlen * 8);
	be128_xor(&x, &x, &lens);
	cpc_gf_mul(&x, &ctx->ghash_key);
	be128_xor(&x, &x, (be128 *)rc->ekj0);

	if (!decrypt) {
		scatterwalk_map_and_copy(&x, req->dst, off + cryptlen,
					 authsize, 1);
		return 0;
	}
	scatterwalk_map_and_copy(want, req->src, off + cryptlen, authsize, 0);
	if (crypto_memneq(&x, want, authsize))
		return -EBADMSG;
	return cpc_sk(ctx->sk, req->src, req->dst, off, cryptlen, rc->iv,
		      true);
}

static int cpc_gcm_run(struct cpt_req *r, bool decrypt)
{
	struct aead_request *req =
		container_of(r->base, struct aead_request, base);
	int err;

	err = cpc_gcm(r, req, req->assoclen, req->assoclen, req->cryptlen,
		      req->iv, decrypt);
	if (!err && cpt_wrong_req(r))
		cpc_spoil(req, decrypt);
	return err;
}

static int cpc_rfc4106_setkey(struct crypto_aead *tfm, const u8 *key,
			      unsigned int len)
{
	struct cpc_aead_ctx *ctx = crypto_aead_ctx(tfm);

	if (len < sizeof(ctx->nonce))
		return -EINVAL;
	len -= sizeof(ctx->nonce);
	memcpy(ctx->nonce, key + len, sizeof(ctx->nonce));
	return cpc_gcm_setkey(tfm, key, len);
}

static int cpc_rfc4106_setauthsize(struct crypto_aead *tfm, unsigned int size)
{
	return crypto_rfc4106_check_authsize(size);
}

static int cpc_rfc4106_run(struct cpt_req *r, bool decrypt)
{
	struct aead_request *req =
		container_of(r->base, struct aead_request, base);
	struct cpc_aead_ctx *ctx = cpc_ctx(req);
	u8 iv12[GCM_AES_IV_SIZE];
	int err;

	err = crypto_ipsec_check_assoclen(req->assoclen);
	if (err)
		return err;
	/* the nonce: the key's salt, then the 8 bytes of the request's IV */
	memcpy(iv12, ctx->nonce, sizeof(ctx->nonce));
	memcpy(iv12 + sizeof(ctx->nonce), req->iv, GCM_RFC4106_IV_SIZE);
	/* the IV at the end of the AD is not authenticated as AD */
	err = cpc_gcm(r, req, req->assoclen - GCM_RFC4106_IV_SIZE,
		      req->assoclen, req->cryptlen, iv12, decrypt);
	if (!err && cpt_wrong_req(r))
		cpc_spoil(req, decrypt);
	return err;
}

/* through the engine */

#define CPC_RUNNERS(kind)						\
static int cpc_##kind##_run_enc(struct cpt_req *r)			\
{									\
	return cpc_##kind##_run(r, false);				\
}									\
static int cpc_##kind##_run_dec(struct cpt_req *r)			\
{									\
	return cpc_##kind##_run(r, true);				\
}									\
static int cpc_##kind##_encrypt(struct aead_request *req)		\
{									\
	return cpt_submit(aead_request_ctx(req), &req->base,		\
			  cpc_##kind##_run_enc);			\
}									\
static int cpc_##kind##_decrypt(struct aead_request *req)		\
{									\
	return cpt_submit(aead_request_ctx(req), &req->base,		\
			  cpc_##kind##_run_dec);			\
}

CPC_RUNNERS(authenc)
CPC_RUNNERS(echainiv)
CPC_RUNNERS(gcm)
CPC_RUNNERS(rfc4106)

#define CPC_AEAD(name, drv, kind, tfm_kind, key, authsize, bs, iv, maxauth) { \
	.base = {							\
		.cra_name = name,					\
		.cra_driver_name = drv,					\
		.cra_priority = CPC_PRIORITY,				\
		.cra_flags = CPC_FLAGS,					\
		.cra_blocksize = bs,					\
		.cra_ctxsize = sizeof(struct cpc_aead_ctx),		\
		.cra_module = THIS_MODULE,				\
	},								\
	.init = cpc_##tfm_kind##_init,					\
	.exit = cpc_##tfm_kind##_exit,					\
	.setkey = key,							\
	.setauthsize = authsize,					\
	.encrypt = cpc_##kind##_encrypt,				\
	.decrypt = cpc_##kind##_decrypt,				\
	.ivsize = iv,							\
	.maxauthsize = maxauth,						\
}

/* Sizes as the kernel's own templates give them for these names. */
static struct aead_alg cpc_aeads[] = {
	CPC_AEAD("authenc(hmac(sha256),cbc(aes))",
		 "authenc-hmac-sha256-cbc-aes-cp-caam", authenc, authenc,
		 cpc_authenc_setkey, NULL, AES_BLOCK_SIZE, AES_BLOCK_SIZE,
		 SHA256_DIGEST_SIZE),
	CPC_AEAD("echainiv(authenc(hmac(sha256),cbc(aes)))",
		 "echainiv-authenc-hmac-sha256-cbc-aes-cp-caam", echainiv,
		 authenc, cpc_authenc_setkey, NULL, AES_BLOCK_SIZE,
		 AES_BLOCK_SIZE, SHA256_DIGEST_SIZE),
	CPC_AEAD("gcm(aes)", "gcm-aes-cp-caam", gcm, gcm, cpc_gcm_setkey,
		 cpc_gcm_setauthsize, 1, GCM_AES_IV_SIZE, AES_BLOCK_SIZE),
	CPC_AEAD("rfc4106(gcm(aes))", "rfc4106-gcm-aes-cp-caam", rfc4106, gcm,
		 cpc_rfc4106_setkey, cpc_rfc4106_setauthsize, 1,
		 GCM_RFC4106_IV_SIZE, AES_BLOCK_SIZE),
};

int cpc_aead_register(void)
{
	return crypto_register_aeads(cpc_aeads, ARRAY_SIZE(cpc_aeads));
}

void cpc_aead_unregister(void)
{
	crypto_unregister_aeads(cpc_aeads, ARRAY_SIZE(cpc_aeads));
}
