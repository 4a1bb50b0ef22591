// SPDX-License-Identifier: GPL-2.0-only
/*
 * cp_test_engine: the AEAD shapes an engine such as CAAM registers natively:
 * gcm(aes), rfc4106(gcm(aes)), ccm(aes), authenc(hmac(sha256),cbc(aes)) and
 * its IV generator echainiv(authenc(hmac(sha256),cbc(aes))). Each is
 * computed by a synchronous fallback of the same name (for the last, the
 * kernel's echainiv over the generic authenc: its IVs come from a random
 * salt per transform, so two transforms give different ciphertexts).
 * setkey and setauthsize go to the fallback.
 *
 * The faults of one shape (mode sgmulti, len64, key192, big) apply as to
 * a cipher: lists of several entries over the associated data and text,
 * the text's length, the cipher's key size (authenc's encryption key,
 * rfc4106's without its nonce); a decryption is spoiled once
 * authenticated. Mode authkey spoils authenc's requests under an
 * authentication key longer than SHA-256's block.
 *
 * geometry=small (cp_test_engine_main.c): once its self-test has passed,
 * gcm(aes) claims an 8-byte IV and at most an 8-byte tag, the kernel's
 * being 12 and 16. The kernel's self-test refuses that geometry (its
 * vectors set a 16-byte tag, which setauthsize() then refuses, and give
 * 12-byte IVs), so it is claimed after the test: the sizes are read from
 * the algorithm at each use. The engine keeps to what it claims: the
 * fallback gets the IV zero-padded to its own size and the claimed tag
 * size, so nothing past the caller's buffers is touched.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/aes.h>
#include <crypto/authenc.h>
#include <crypto/gcm.h>
#include <crypto/internal/aead.h>
#include <crypto/sha2.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>

#include "cp_test_engine.h"

struct cpt_aead_ctx {
	struct crypto_aead *fallback;
	unsigned int key_size;	/* the cipher's */
	unsigned int auth_key_len;	/* authenc's authentication key's */
};

#define CPT_SMALL_GCM_IV_SIZE	8
#define CPT_SMALL_GCM_TAG_SIZE	8
#define CPT_MAX_IV_SIZE		32

/* After the fallback's request in the context: an IV of the fallback's size. */
static u8 *cpt_aead_iv_buf(struct aead_request *sub)
{
	return (u8 *)sub + sizeof(*sub) +
	       crypto_aead_reqsize(crypto_aead_reqtfm(sub));
}

static int cpt_aead_init(struct crypto_aead *tfm)
{
	struct cpt_aead_ctx *ctx = crypto_aead_ctx(tfm);
	const char *name = crypto_tfm_alg_name(crypto_aead_tfm(tfm));

	ctx->fallback = crypto_alloc_aead(name, 0, CPT_FALLBACK_MASK);
	if (IS_ERR(ctx->fallback))
		return PTR_ERR(ctx->fallback);
	if (crypto_aead_ivsize(ctx->fallback) > CPT_MAX_IV_SIZE) {
		crypto_free_aead(ctx->fallback);
		return -EINVAL;
	}
	crypto_aead_set_reqsize(tfm, sizeof(struct cpt_req) +
				sizeof(struct aead_request) +
				crypto_aead_reqsize(ctx->fallback) +
				CPT_MAX_IV_SIZE);
	/* a smaller claimed tag (geometry=small): the fallback's default too */
	if (crypto_aead_maxauthsize(tfm) < crypto_aead_maxauthsize(ctx->fallback))
		return crypto_aead_setauthsize(ctx->fallback,
					       crypto_aead_maxauthsize(tfm));
	return 0;
}

static void cpt_aead_exit(struct crypto_aead *tfm)
{
	struct cpt_aead_ctx *ctx = crypto_aead_ctx(tfm);

	crypto_free_aead(ctx->fallback);
}

static int cpt_aead_setkey(struct crypto_aead *tfm, const u8 *key,
			   unsigned int len)
{
	struct cpt_aead_ctx *ctx = crypto_aead_ctx(tfm);
	const char *name = crypto_tfm_alg_name(crypto_aead_tfm(tfm));
	const struct rtattr *rta = (const void *)key;

	ctx->key_size = len;
	ctx->auth_key_len = 0;
	/* authenc's key format (crypto/authenc.c), read here not to need its module */
	if (strstr(name, "authenc(") && RTA_OK(rta, len) &&
	    rta->rta_type == CRYPTO_AUTHENC_KEYA_PARAM &&
	    RTA_PAYLOAD(rta) == sizeof(struct crypto_authenc_key_param)) {
		const struct crypto_authenc_key_param *param = RTA_DATA(rta);

		ctx->key_size = be32_to_cpu(param->enckeylen);
		/* what follows the attribute, less the cipher's key */
		if (ctx->key_size <= len - RTA_ALIGN(rta->rta_len))
			ctx->auth_key_len = len - RTA_ALIGN(rta->rta_len) - ctx->key_size;
	} else if (strstarts(name, "rfc4106(") && len >= 4) {
		ctx->key_size = len - 4;
	}
	return crypto_aead_setkey(ctx->fallback, key, len);
}

static int cpt_aead_setauthsize(struct crypto_aead *tfm, unsigned int size)
{
	struct cpt_aead_ctx *ctx = crypto_aead_ctx(tfm);

	return crypto_aead_setauthsize(ctx->fallback, size);
}

/*
 * Mode wrong: encrypt flips the last ciphertext byte (the last tag byte if
 * there is no text); decrypt, once authenticated, the last plaintext byte.
 */
static void cpt_aead_spoil(struct aead_request *req, bool decrypt)
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

/*
 * Whether the mode spoils @req: a fault of its shape, the lists' over the
 * associated data and text, the lengths' of the text.
 */
static bool cpt_aead_wrong(const struct cpt_req *r, struct aead_request *req,
			   bool decrypt, const struct cpt_aead_ctx *ctx)
{
	unsigned int authsize = crypto_aead_authsize(crypto_aead_reqtfm(req));
	unsigned int text = req->cryptlen;

	if (decrypt)
		text -= min(authsize, text);
	return cpt_wrong_cipher(r, req->src, req->dst, req->assoclen + text,
				text, ctx->key_size) ||
	       cpt_wrong_auth_key(ctx->auth_key_len);
}

static int cpt_aead_run(struct cpt_req *r, bool decrypt)
{
	struct aead_request *req =
		container_of(r->base, struct aead_request, base);
	struct aead_request *sub = (void *)r->subreq;
	struct crypto_aead *tfm = crypto_aead_reqtfm(req);
	struct cpt_aead_ctx *ctx = crypto_aead_ctx(tfm);
	unsigned int ivsize = crypto_aead_ivsize(tfm);
	u8 *iv = req->iv;
	int err;

	aead_request_set_tfm(sub, ctx->fallback);
	aead_request_set_callback(sub, 0, NULL, NULL);
	if (ivsize < crypto_aead_ivsize(ctx->fallback)) {
		iv = cpt_aead_iv_buf(sub);
		memset(iv, 0, crypto_aead_ivsize(ctx->fallback));
		memcpy(iv, req->iv, ivsize);
	}
	aead_request_set_crypt(sub, req->src, req->dst, req->cryptlen, iv);
	aead_request_set_ad(sub, req->assoclen);
	err = decrypt ? crypto_aead_decrypt(sub) : crypto_aead_encrypt(sub);
	if (!err && cpt_aead_wrong(r, req, decrypt, ctx))
		cpt_aead_spoil(req, decrypt);
	return err;
}

static int cpt_aead_run_enc(struct cpt_req *r)
{
	return cpt_aead_run(r, false);
}

static int cpt_aead_run_dec(struct cpt_req *r)
{
	return cpt_aead_run(r, true);
}

static int cpt_aead_encrypt(struct aead_request *req)
{
	return cpt_submit(aead_request_ctx(req), &req->base, cpt_aead_run_enc);
}

static int cpt_aead_decrypt(struct aead_request *req)
{
	return cpt_submit(aead_request_ctx(req), &req->base, cpt_aead_run_dec);
}

#define CPT_AEAD(name, drv, bs, iv, maxauth) {				\
	.base = {							\
		.cra_name = name,					\
		.cra_driver_name = drv,					\
		.cra_priority = CPT_PRIORITY,				\
		.cra_flags = CPT_FLAGS,					\
		.cra_blocksize = bs,					\
		.cra_ctxsize = sizeof(struct cpt_aead_ctx),		\
		.cra_module = THIS_MODULE,				\
	},								\
	.init = cpt_aead_init,						\
	.exit = cpt_aead_exit,						\
	.setkey = cpt_aead_setkey,					\
	.setauthsize = cpt_aead_setauthsize,				\
	.encrypt = cpt_aead_encrypt,					\
	.decrypt = cpt_aead_decrypt,					\
	.ivsize = iv,							\
	.maxauthsize = maxauth,						\
}

/* Sizes as the kernel's own templates give them for these names. */
static struct aead_alg cpt_aeads[] = {
	CPT_AEAD("gcm(aes)", "cp_test_engine_gcm_aes",
		 1, GCM_AES_IV_SIZE, AES_BLOCK_SIZE),
	CPT_AEAD("rfc4106(gcm(aes))", "cp_test_engine_rfc4106_gcm_aes",
		 1, GCM_RFC4106_IV_SIZE, AES_BLOCK_SIZE),
	CPT_AEAD("ccm(aes)", "cp_test_engine_ccm_aes",
		 1, AES_BLOCK_SIZE, AES_BLOCK_SIZE),
	CPT_AEAD("authenc(hmac(sha256),cbc(aes))",
		 "cp_test_engine_authenc_hmac_sha256_cbc_aes",
		 AES_BLOCK_SIZE, AES_BLOCK_SIZE, SHA256_DIGEST_SIZE),
	CPT_AEAD("echainiv(authenc(hmac(sha256),cbc(aes)))",
		 "cp_test_engine_echainiv_authenc_hmac_sha256_cbc_aes",
		 AES_BLOCK_SIZE, AES_BLOCK_SIZE, SHA256_DIGEST_SIZE),
};

/*
 * geometry=small: wait for gcm(aes)'s self-test (an allocation by driver
 * name waits for it, and fails if the test did), then shrink its sizes.
 */
static int cpt_aead_shrink(void)
{
	struct aead_alg *alg = &cpt_aeads[0];
	struct crypto_aead *probe;

	probe = crypto_alloc_aead(alg->base.cra_driver_name, 0, 0);
	if (IS_ERR(probe)) {
		pr_err("geometry=small: %s did not pass its self-test: %ld\n",
		       alg->base.cra_driver_name, PTR_ERR(probe));
		return PTR_ERR(probe);
	}
	crypto_free_aead(probe);
	alg->ivsize = CPT_SMALL_GCM_IV_SIZE;
	alg->maxauthsize = CPT_SMALL_GCM_TAG_SIZE;
	pr_info("geometry=small: %s claims a %u-byte IV and tag\n",
		alg->base.cra_driver_name, CPT_SMALL_GCM_IV_SIZE);
	return 0;
}

int cpt_aead_register(void)
{
	int r;

	r = crypto_register_aeads(cpt_aeads, ARRAY_SIZE(cpt_aeads));
	if (r || !cpt_geometry_small)
		return r;
	r = cpt_aead_shrink();
	if (r)
		crypto_unregister_aeads(cpt_aeads, ARRAY_SIZE(cpt_aeads));
	return r;
}

void cpt_aead_unregister(void)
{
	crypto_unregister_aeads(cpt_aeads, ARRAY_SIZE(cpt_aeads));
}
