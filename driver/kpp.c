// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: key agreement through the kpp interface. Of the names
 * registered as kpps, two are measured: ecdh-nist-p256 and dh (over RFC
 * 7919's ffdhe2048 group, g = 2). What is timed is the shared-secret step,
 * crypto_kpp_compute_shared_secret(), which every key exchange pays once
 * per peer: the private key is fixed (below) and set once per transform,
 * one request is one peer public key (REQ_SIZE: its bytes, 64 for P-256's
 * x || y, 256 for ffdhe2048) and gives the secret (32 or 256 bytes).
 *
 * The calls used have the same form on 6.1, 6.12 and 7.2:
 * crypto_alloc_kpp(), crypto_kpp_set_secret(), crypto_kpp_maxsize(),
 * kpp_request_alloc(tfm, gfp), kpp_request_set_callback(),
 * kpp_request_set_input(), kpp_request_set_output() and
 * crypto_kpp_compute_shared_secret().
 *
 * VERIFY (verify.c) draws a private key for each case (key size 32): a
 * case is the public key of it, or the shared secret with a peer key the
 * reference made of another, a bit of it flipped every other time;
 * verify_setkey() makes the drawn bytes a valid key either way a kernel
 * reads them, and a pointed request's direction (DECRYPT) is the public
 * key's generation.
 *
 * The private keys are packed here as crypto_ecdh_encode_key() and
 * crypto_dh_encode_key() pack them (struct kpp_secret, then the sizes,
 * then the bytes, in the CPU's order): the first lives in ecdh_generic.ko
 * on Debian's kernels, and calling it would load ecdh_generic with this
 * module, registering its algorithms whether or not anyone measures them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/kpp.h>
#include <linux/err.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "types.h"

/* @t's transform: what cp_tfm's handle holds for this type. */
static struct crypto_kpp *cp_kpp_of(struct cp_tfm *t)
{
	return t->handle;
}

/*
 * The fixed keys, made offline for this module with python3: P-256's
 * private key is 32 random bytes (the secrets module) kept only if they
 * are a valid scalar (0 < d < n) read either way a kernel may read them:
 * big-endian, or as 64-bit digits in the CPU's order, least significant
 * first (little-endian on x86_64 and arm64); its peer is k * G for a
 * random k, checked to be on the curve and of order n, as x || y,
 * big-endian. ffdhe2048's p is RFC 7919's (as OpenSSL's group "ffdhe2048"
 * gives it, checked against the RFC's formula); the private key is a
 * random 256-bit exponent (RFC 7919 asks at least 225 bits of
 * ffdhe2048's), the peer 2^b mod p for a random 256-bit b, 1 < y < p - 1,
 * big-endian, one p long. The secrets
 * they agree on were computed there too, big-endian: ffdhe2048's, and
 * P-256's x coordinate for each reading of the private key.
 */
static const u8 cp_p256_priv[] = {
	0x3c, 0x5f, 0xb1, 0x97, 0x04, 0xdd, 0xee, 0x27, 0x07, 0x18, 0x2b, 0xad,
	0x45, 0x71, 0x71, 0x37, 0x3a, 0x83, 0x6a, 0xa8, 0xdc, 0x99, 0xf1, 0x5d,
	0xa9, 0x08, 0x70, 0x16, 0xff, 0x54, 0xaa, 0x3a,
};

static const u8 cp_p256_peer[] = {
	0xa5, 0x15, 0xba, 0xc8, 0xb7, 0xbc, 0x10, 0xf7, 0x3d, 0x5a, 0x2f, 0xa2,
	0x73, 0x6b, 0x55, 0xff, 0xb3, 0x20, 0x99, 0x8e, 0xd1, 0x80, 0x41, 0x71,
	0xe0, 0x02, 0x88, 0xb7, 0x04, 0x0c, 0xaa, 0xff, 0x7a, 0xd3, 0x50, 0x31,
	0x01, 0xad, 0x60, 0x89, 0x42, 0x7c, 0x29, 0x27, 0x1a, 0xf3, 0xb6, 0xa0,
	0xb5, 0x5d, 0x2f, 0x77, 0x96, 0xd5, 0x92, 0x32, 0xd0, 0x1b, 0xe5, 0x6f,
	0x12, 0x6b, 0xba, 0x3a,
};

static const u8 cp_ffdhe2048_p[] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xad, 0xf8, 0x54, 0x58,
	0xa2, 0xbb, 0x4a, 0x9a, 0xaf, 0xdc, 0x56, 0x20, 0x27, 0x3d, 0x3c, 0xf1,
	0xd8, 0xb9, 0xc5, 0x83, 0xce, 0x2d, 0x36, 0x95, 0xa9, 0xe1, 0x36, 0x41,
	0x14, 0x64, 0x33, 0xfb, 0xcc, 0x93, 0x9d, 0xce, 0x24, 0x9b, 0x3e, 0xf9,
	0x7d, 0x2f, 0xe3, 0x63, 0x63, 0x0c, 0x75, 0xd8, 0xf6, 0x81, 0xb2, 0x02,
	0xae, 0xc4, 0x61, 0x7a, 0xd3, 0xdf, 0x1e, 0xd5, 0xd5, 0xfd, 0x65, 0x61,
	0x24, 0x33, 0xf5, 0x1f, 0x5f, 0x06, 0x6e, 0xd0, 0x85, 0x63, 0x65, 0x55,
	0x3d, 0xed, 0x1a, 0xf3, 0xb5, 0x57, 0x13, 0x5e, 0x7f, 0x57, 0xc9, 0x35,
	0x98, 0x4f, 0x0c, 0x70, 0xe0, 0xe6, 0x8b, 0x77, 0xe2, 0xa6, 0x89, 0xda,
	0xf3, 0xef, 0xe8, 0x72, 0x1d, 0xf1, 0x58, 0xa1, 0x36, 0xad, 0xe7, 0x35,
	0x30, 0xac, 0xca, 0x4f, 0x48, 0x3a, 0x79, 0x7a, 0xbc, 0x0a, 0xb1, 0x82,
	0xb3, 0x24, 0xfb, 0x61, 0xd1, 0x08, 0xa9, 0x4b, 0xb2, 0xc8, 0xe3, 0xfb,
	0xb9, 0x6a, 0xda, 0xb7, 0x60, 0xd7, 0xf4, 0x68, 0x1d, 0x4f, 0x42, 0xa3,
	0xde, 0x39, 0x4d, 0xf4, 0xae, 0x56, 0xed, 0xe7, 0x63, 0x72, 0xbb, 0x19,
	0x0b, 0x07, 0xa7, 0xc8, 0xee, 0x0a, 0x6d, 0x70, 0x9e, 0x02, 0xfc, 0xe1,
	0xcd, 0xf7, 0xe2, 0xec, 0xc0, 0x34, 0x04, 0xcd, 0x28, 0x34, 0x2f, 0x61,
	0x91, 0x72, 0xfe, 0x9c, 0xe9, 0x85, 0x83, 0xff, 0x8e, 0x4f, 0x12, 0x32,
	0xee, 0xf2, 0x81, 0x83, 0xc3, 0xfe, 0x3b, 0x1b, 0x4c, 0x6f, 0xad, 0x73,
	0x3b, 0xb5, 0xfc, 0xbc, 0x2e, 0xc2, 0x20, 0x05, 0xc5, 0x8e, 0xf1, 0x83,
	0x7d, 0x16, 0x83, 0xb2, 0xc6, 0xf3, 0x4a, 0x26, 0xc1, 0xb2, 0xef, 0xfa,
	0x88, 0x6b, 0x42, 0x38, 0x61, 0x28, 0x5c, 0x97, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff,
};

static const u8 cp_ffdhe2048_priv[] = {
	0xe7, 0x2e, 0xed, 0x34, 0x7c, 0xf9, 0x30, 0x03, 0xfc, 0xc5, 0xbe, 0xc9,
	0xbf, 0xaf, 0x41, 0xcd, 0x76, 0x93, 0x09, 0x45, 0x66, 0x89, 0x1b, 0x1a,
	0xde, 0xae, 0xcd, 0x95, 0x58, 0xef, 0x63, 0xdc,
};

static const u8 cp_ffdhe2048_peer[] = {
	0xe3, 0x08, 0x10, 0x2d, 0x03, 0x09, 0x9e, 0x30, 0xa1, 0xc8, 0x4a, 0x34,
	0xff, 0x15, 0x47, 0xd5, 0x72, 0x30, 0xa5, 0xb1, 0xa1, 0xd4, 0xfb, 0x7a,
	0xa6, 0x9a, 0x40, 0x58, 0x72, 0xf0, 0x73, 0x82, 0x8e, 0x90, 0x71, 0xef,
	0x76, 0x6b, 0xce, 0xa3, 0x69, 0xa4, 0x14, 0x13, 0x73, 0x9d, 0xb6, 0x49,
	0xaa, 0x25, 0x49, 0x29, 0x23, 0x99, 0x55, 0x75, 0xba, 0x47, 0x87, 0xbe,
	0xe9, 0x08, 0x45, 0x7a, 0x4d, 0xc4, 0x5c, 0xd3, 0x47, 0x37, 0x60, 0x8a,
	0xff, 0x9f, 0xdb, 0x8d, 0xbc, 0x90, 0x11, 0x92, 0xfb, 0xa3, 0xef, 0x46,
	0xa5, 0xdd, 0x51, 0x80, 0xc7, 0x9c, 0x88, 0x8e, 0x18, 0x02, 0x8b, 0xa2,
	0x93, 0xf3, 0x93, 0x0c, 0x7a, 0x8e, 0x27, 0x39, 0xb3, 0x66, 0x8b, 0xef,
	0xc8, 0x08, 0xad, 0x86, 0xf0, 0x3f, 0x19, 0xc1, 0xaf, 0x09, 0x06, 0xed,
	0xf2, 0xd5, 0x9f, 0x36, 0x81, 0xd6, 0x37, 0x88, 0xd2, 0x31, 0xda, 0x53,
	0xc2, 0xf7, 0x71, 0xc3, 0xae, 0xe1, 0x94, 0x6b, 0xf4, 0x3e, 0xd1, 0x3d,
	0x3f, 0xca, 0x90, 0xba, 0xd4, 0x04, 0xae, 0x8c, 0xc9, 0xe4, 0x0e, 0x45,
	0xc9, 0x22, 0xb9, 0xac, 0x18, 0x7c, 0x5f, 0x51, 0x30, 0x14, 0x7f, 0xa0,
	0x7c, 0x2c, 0x26, 0x8a, 0x44, 0xcf, 0x1d, 0xe5, 0xcf, 0x7d, 0x25, 0x82,
	0xa7, 0x39, 0xa1, 0x44, 0x56, 0x3b, 0x35, 0x3a, 0x4d, 0xb0, 0xc0, 0x47,
	0xe5, 0x0d, 0x1b, 0x52, 0xdd, 0x46, 0x75, 0xad, 0x75, 0x6e, 0x33, 0x27,
	0x75, 0xf2, 0x18, 0x81, 0x8b, 0xdd, 0xdd, 0x2b, 0xdb, 0x00, 0xd4, 0x0a,
	0xbd, 0x8b, 0xb8, 0xdc, 0x3a, 0xe5, 0xd9, 0x5b, 0x4b, 0xa4, 0x41, 0xf2,
	0x0b, 0xf7, 0x95, 0x2a, 0x40, 0x25, 0xab, 0xd9, 0x6c, 0x2f, 0x2a, 0x64,
	0xa3, 0xf9, 0xab, 0xf7, 0xa0, 0x85, 0xbf, 0x2d, 0x1b, 0x74, 0xbd, 0x33,
	0x1c, 0x9b, 0xdd, 0x6d,
};

static const u8 cp_p256_secret_be[] = {
	0xbe, 0x5e, 0x63, 0x4d, 0xbd, 0x30, 0x21, 0x95, 0x00, 0x76, 0xe2, 0xc2,
	0xf5, 0xda, 0xfc, 0x0c, 0x84, 0x96, 0xfe, 0xeb, 0xc0, 0x84, 0x1e, 0xfe,
	0x6c, 0x24, 0xb3, 0x23, 0xba, 0x99, 0x91, 0x00,
};

static const u8 cp_p256_secret_digits[] = {
	0x27, 0x7c, 0x0c, 0x0a, 0x62, 0xf2, 0x3d, 0x95, 0x5b, 0x47, 0x37, 0x1c,
	0xa5, 0xba, 0xce, 0xf3, 0x8a, 0x48, 0x8c, 0x4b, 0x59, 0x39, 0x8c, 0x46,
	0x8b, 0x4f, 0x84, 0x6d, 0xf6, 0xf2, 0x9d, 0xac,
};

static const u8 cp_ffdhe2048_secret[] = {
	0x3e, 0xb9, 0x28, 0x7d, 0x35, 0xc3, 0xe6, 0x10, 0xd3, 0x10, 0x1a, 0x64,
	0xd4, 0xd7, 0xf8, 0xfa, 0xf4, 0x9a, 0xcd, 0xb9, 0xeb, 0x10, 0x47, 0x7f,
	0xac, 0xb8, 0x15, 0xfe, 0x37, 0x19, 0xf8, 0x49, 0x98, 0x97, 0xb5, 0x32,
	0x93, 0xab, 0x96, 0x2b, 0x8a, 0x47, 0x5d, 0x61, 0xcd, 0x34, 0xfc, 0xe8,
	0x46, 0x2a, 0x35, 0x7c, 0x25, 0x26, 0x14, 0xe5, 0x30, 0xb1, 0x74, 0x9c,
	0xba, 0x4a, 0x0f, 0xd2, 0xc1, 0xda, 0xb3, 0xec, 0xd2, 0x0b, 0x55, 0xc7,
	0x97, 0xb6, 0xf1, 0xca, 0xf6, 0x99, 0xef, 0x2b, 0x3b, 0xb6, 0x88, 0x81,
	0x20, 0x0a, 0x5f, 0x86, 0x5e, 0x8f, 0x5a, 0x2f, 0xbc, 0x23, 0x61, 0x50,
	0x41, 0xa1, 0xa0, 0x91, 0x74, 0x2f, 0x95, 0x92, 0x2d, 0x2c, 0x52, 0x60,
	0xd6, 0xe9, 0x17, 0x7a, 0x0a, 0x1e, 0x37, 0xe3, 0x18, 0x1b, 0x14, 0x27,
	0xb7, 0x71, 0x42, 0x1f, 0x1d, 0xff, 0x22, 0x6f, 0x92, 0xd7, 0x1f, 0x03,
	0xe3, 0x2a, 0x29, 0xb1, 0x4c, 0xc9, 0x46, 0x15, 0xee, 0xdc, 0x4c, 0x3d,
	0xb8, 0xac, 0x32, 0x75, 0x11, 0xae, 0x14, 0xc7, 0x5a, 0xf6, 0x2e, 0x3f,
	0xc7, 0x8b, 0x5f, 0x85, 0xf9, 0x96, 0xb6, 0x66, 0x1f, 0xde, 0x37, 0x27,
	0xcc, 0x10, 0x67, 0x30, 0x29, 0x05, 0xaa, 0x9b, 0x2e, 0xc0, 0xe7, 0x93,
	0x33, 0x8c, 0x2f, 0x04, 0xbc, 0x84, 0x2f, 0xc8, 0xcd, 0x2e, 0x2a, 0x91,
	0xe9, 0xe9, 0xb5, 0xd9, 0x76, 0xc4, 0xbd, 0x06, 0x60, 0x74, 0x57, 0x36,
	0x99, 0x17, 0xa4, 0x22, 0x94, 0x6c, 0xbd, 0x64, 0xc7, 0x99, 0x03, 0xa3,
	0xf8, 0xea, 0xfa, 0x33, 0x73, 0x57, 0x6a, 0xbf, 0xcd, 0x84, 0xcb, 0xeb,
	0xe3, 0x32, 0x0d, 0x84, 0x89, 0x99, 0x2e, 0xca, 0x9c, 0x37, 0xe8, 0x60,
	0x97, 0xe7, 0xef, 0xc6, 0x8a, 0xe7, 0xed, 0xe9, 0x16, 0xd8, 0xaa, 0xcd,
	0xd1, 0x50, 0x19, 0xef,
};

/* The groups measured: what a set_secret packs and a request carries. */
struct cp_kpp_group {
	const char *name;		/* cra_name */
	unsigned short secret_type;	/* CRYPTO_KPP_SECRET_TYPE_* */
	const u8 *priv;
	unsigned int priv_len;
	const u8 *p;			/* dh: the modulus; g is 2 */
	unsigned int p_len;
	const u8 *peer;
	unsigned int peer_len;		/* REQ_SIZE */
	unsigned int secret_len;	/* bytes of the shared secret */
	const u8 *known[2];		/* the secrets it may agree on, NULL if fewer */
};

static const u8 cp_dh_generator = 2;

static const struct cp_kpp_group cp_kpp_groups[] = {
	[CP_KPP_P256] = {
		.name = "ecdh-nist-p256",
		.secret_type = CRYPTO_KPP_SECRET_TYPE_ECDH,
		.priv = cp_p256_priv, .priv_len = sizeof(cp_p256_priv),
		.peer = cp_p256_peer, .peer_len = sizeof(cp_p256_peer),
		.secret_len = 32,
		/* kernels have read the private key both ways */
		.known = { cp_p256_secret_be, cp_p256_secret_digits },
	},
	[CP_KPP_FFDHE2048] = {
		.name = "dh",
		.secret_type = CRYPTO_KPP_SECRET_TYPE_DH,
		.priv = cp_ffdhe2048_priv, .priv_len = sizeof(cp_ffdhe2048_priv),
		.p = cp_ffdhe2048_p, .p_len = sizeof(cp_ffdhe2048_p),
		.peer = cp_ffdhe2048_peer, .peer_len = sizeof(cp_ffdhe2048_peer),
		.secret_len = sizeof(cp_ffdhe2048_p),
		.known = { cp_ffdhe2048_secret },
	},
};

static const struct cp_kpp_group *cp_kpp_group(const struct cp_geometry *g)
{
	if (g->kpp <= CP_KPP_NONE || g->kpp >= ARRAY_SIZE(cp_kpp_groups))
		return NULL;
	return &cp_kpp_groups[g->kpp];
}

/* One of the measured groups, a request one peer public key. */
static int cp_kpp_check(const struct cp_params *p, const struct cp_geometry *g,
			struct netlink_ext_ack *extack)
{
	const struct cp_kpp_group *grp = cp_kpp_group(g);

	if (!grp) {
		NL_SET_ERR_MSG(extack, "of the key agreements only ecdh-nist-p256 and dh are measured (the shared-secret step)");
		return -EOPNOTSUPP;
	}
	if (p->req_size != grp->peer_len) {
		NL_SET_ERR_MSG(extack, "a key agreement request is one peer public key: REQ_SIZE must be 64 for ecdh-nist-p256, 256 for dh (ffdhe2048)");
		return -EINVAL;
	}
	return 0;
}

static int cp_kpp_alloc(struct cp_tfm *t, const char *name, u32 type, u32 mask)
{
	struct crypto_kpp *tfm = crypto_alloc_kpp(name, type, mask);

	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	t->handle = tfm;
	return 0;
}

static void cp_kpp_free(struct cp_tfm *t)
{
	crypto_free_kpp(cp_kpp_of(t));
}

static const char *cp_kpp_driver_name(struct cp_tfm *t)
{
	return crypto_tfm_alg_driver_name(crypto_kpp_tfm(cp_kpp_of(t)));
}

static const char *cp_kpp_alg_name(struct cp_tfm *t)
{
	return crypto_tfm_alg_name(crypto_kpp_tfm(cp_kpp_of(t)));
}

static void cp_kpp_geometry(struct cp_tfm *t, struct cp_geometry *g)
{
	const char *name = cp_kpp_alg_name(t);
	unsigned int i;

	g->blocksize = 1;
	g->kpp = CP_KPP_NONE;
	for (i = CP_KPP_NONE + 1; i < ARRAY_SIZE(cp_kpp_groups); i++)
		if (!strcmp(name, cp_kpp_groups[i].name))
			g->kpp = i;
	g->key_default = g->kpp ? cp_kpp_groups[g->kpp].priv_len : 0;
}

static u8 *cp_kpp_pack(u8 *to, const void *from, size_t len)
{
	memcpy(to, from, len);
	return to + len;
}

/*
 * @priv, a private key of @grp, as crypto_kpp_set_secret() takes it:
 * struct kpp_secret, then for ECDH the key's size (unsigned short) and
 * the key, for DH the sizes of key, p and g (unsigned int each), then
 * key, p, g.
 */
static u8 *cp_kpp_encode(const struct cp_kpp_group *grp, const u8 *priv,
			 unsigned int *len)
{
	bool dh = grp->secret_type == CRYPTO_KPP_SECRET_TYPE_DH;
	unsigned int g_len = dh ? sizeof(cp_dh_generator) : 0;
	struct kpp_secret secret = { .type = grp->secret_type };
	unsigned short ecdh_key_len = grp->priv_len;
	u8 *buf, *to;

	*len = sizeof(secret) + grp->priv_len + grp->p_len + g_len +
	       (dh ? 3 * sizeof(unsigned int) : sizeof(ecdh_key_len));
	secret.len = *len;
	buf = kmalloc(*len, GFP_KERNEL);
	if (!buf)
		return NULL;
	to = cp_kpp_pack(buf, &secret, sizeof(secret));
	if (dh) {
		to = cp_kpp_pack(to, &grp->priv_len, sizeof(grp->priv_len));
		to = cp_kpp_pack(to, &grp->p_len, sizeof(grp->p_len));
		to = cp_kpp_pack(to, &g_len, sizeof(g_len));
		to = cp_kpp_pack(to, priv, grp->priv_len);
		to = cp_kpp_pack(to, grp->p, grp->p_len);
		cp_kpp_pack(to, &cp_dh_generator, g_len);
	} else {
		to = cp_kpp_pack(to, &ecdh_key_len, sizeof(ecdh_key_len));
		cp_kpp_pack(to, priv, grp->priv_len);
	}
	return buf;
}

/* @priv, packed, as @t's private key: 0, or the driver's refusal. */
static int cp_kpp_set_priv(struct cp_tfm *t, const struct cp_kpp_group *grp,
			   const u8 *priv)
{
	unsigned int packed_len;
	u8 *packed;
	int r;

	packed = cp_kpp_encode(grp, priv, &packed_len);
	if (!packed)
		return -ENOMEM;
	r = crypto_kpp_set_secret(cp_kpp_of(t), packed, packed_len);
	kfree_sensitive(packed);
	/*
	 * crypto_kpp_maxsize() is only meaningful once a key is set; it is
	 * the larger output, the public key (ecdh: x || y, twice the secret)
	 */
	if (!r && crypto_kpp_maxsize(cp_kpp_of(t)) < grp->secret_len)
		r = -EINVAL;
	return r;
}

/* The fixed private key, whatever @key holds: @len must be its size. */
static int cp_kpp_setkey(struct cp_tfm *t, const struct cp_geometry *g,
			 const u8 *key, unsigned int len)
{
	const struct cp_kpp_group *grp = cp_kpp_group(g);

	if (!grp || len != grp->priv_len)
		return -EINVAL;
	return cp_kpp_set_priv(t, grp, grp->priv);
}

static void *cp_kpp_req_alloc(struct cp_tfm *t)
{
	return kpp_request_alloc(cp_kpp_of(t), GFP_KERNEL);
}

static void cp_kpp_req_free(void *req)
{
	kpp_request_free(req);
}

/* Lengths anew for each request: a completed one may hold its output's in dst_len. */
static void cp_kpp_set_io(struct cp_slot *slot)
{
	const struct cp_kpp_group *grp = cp_kpp_group(&slot->run->geo);

	kpp_request_set_input(slot->req, slot->src.sgt.sgl, slot->src.len);
	kpp_request_set_output(slot->req, slot->dst.sgt.sgl,
			       min(slot->dst.len, grp->secret_len));
}

static void cp_kpp_req_prepare(struct cp_tfm *t, struct cp_slot *slot,
			       u32 req_size, const struct cp_geometry *g,
			       bool decrypt, crypto_completion_t cb, void *data)
{
	kpp_request_set_callback(slot->req, CRYPTO_TFM_REQ_MAY_BACKLOG, cb,
				 data);
	cp_kpp_set_io(slot);
}

/* A request verify.c pointed generates the public key for @decrypt. */
static int cp_kpp_submit(struct cp_slot *slot, bool decrypt)
{
	if (!slot->pointed)
		cp_kpp_set_io(slot);
	else if (decrypt)
		return crypto_kpp_generate_public_key(slot->req);
	return crypto_kpp_compute_shared_secret(slot->req);
}

/*
 * The known-answer check (kat.c's cp_kat_same_output()): every slot
 * computes the secret of the fixed private key and peer key, and each
 * must be the reference's (the same two keys always agree on the same
 * secret), which must be the secret computed offline: a reference that
 * agrees with itself only would pass itself. Secrets are compared as the
 * integers they are: one implementation may write leading zero bytes to
 * the secret's full length, another may not.
 */
static int cp_kpp_find_reference(const char *name, char *out, size_t len)
{
	return cp_reference_typed(name, CRYPTO_ALG_TYPE_KPP,
				  CRYPTO_ALG_TYPE_MASK, out, len);
}

static int cp_kpp_kat_supported(struct cp_run *run,
				struct netlink_ext_ack *extack)
{
	/* cp_kpp_check() refused it */
	return cp_kpp_group(&run->geo) ? 0 : -EOPNOTSUPP;
}

/* The peer's key into every slot, and no earlier secret in its output. */
static void cp_kpp_kat_fill(struct cp_kat *k, struct cp_run *run)
{
	const struct cp_kpp_group *grp = cp_kpp_group(&run->geo);
	u32 i;

	for (i = 0; i < run->depth; i++) {
		struct cp_slot *s = &run->slots[i];

		sg_copy_from_buffer(s->src.sgt.sgl, sg_nents(s->src.sgt.sgl),
				    grp->peer, grp->peer_len);
		sg_zero_buffer(s->dst.sgt.sgl, sg_nents(s->dst.sgt.sgl),
			       s->dst.len, 0);
	}
}

/* A slot's secret: no longer than the secret's size. */
static int cp_kpp_kat_output(struct cp_kat *k, struct cp_slot *s, u8 *to)
{
	const struct cp_kpp_group *grp = cp_kpp_group(&k->run->geo);
	unsigned int len = ((struct kpp_request *)s->req)->dst_len;

	if (len > grp->secret_len)
		return -EIO;
	return cp_kat_integer(s, len, to);
}

/* Whether @secret (@len bytes, no leading zeros) is one of @grp's known secrets. */
static bool cp_kpp_known(const struct cp_kpp_group *grp, const u8 *secret,
			 unsigned int len)
{
	unsigned int i, skip;

	for (i = 0; i < ARRAY_SIZE(grp->known) && grp->known[i]; i++) {
		for (skip = 0; skip < grp->secret_len && !grp->known[i][skip]; skip++)
			;
		if (len == grp->secret_len - skip &&
		    !memcmp(secret, grp->known[i] + skip, len))
			return true;
	}
	return false;
}

/* The candidate's secrets the reference's, and that a known one. */
static int cp_kpp_kat_judge(struct cp_kat *k, bool *ok)
{
	const struct cp_kpp_group *grp = cp_kpp_group(&k->run->geo);
	int r = cp_kat_same_output(k, ok);

	if (r || cp_kpp_known(grp, k->want, k->want_len))
		return r;
	pr_info("%s: reference %s's secret is not the known answer\n",
		cp_kpp_driver_name(&k->run->tfm),
		cp_kpp_driver_name(&k->ref->tfm));
	*ok = false;
	return 0;
}

static const struct cp_kat_ops cp_kpp_kat_ops = {
	.find_reference = cp_kpp_find_reference,
	.supported = cp_kpp_kat_supported,
	.judge = cp_kpp_kat_judge,
	.answer = cp_kat_each_answers,
	.settle = cp_kat_refill,
	.fill = cp_kpp_kat_fill,
	.output = cp_kpp_kat_output,
	.mismatch = "secret differs from the reference",
};

/* The verification's private keys: the group's size. */
static void cp_kpp_key_range(struct cp_tfm *t, unsigned int *min,
			     unsigned int *max)
{
	struct cp_geometry g = {};

	cp_kpp_geometry(t, &g);
	/* cp_kpp_verify_supported() refused any other */
	*min = cp_kpp_group(&g)->priv_len;
	*max = *min;
}

/* A case's output: the public key (ecdh: x || y; dh: one p), or the secret. */
static unsigned int cp_kpp_out_len(const struct cp_geometry *g, bool public)
{
	const struct cp_kpp_group *grp = cp_kpp_group(g);

	if (!public)
		return grp->secret_len;
	return grp->p ? grp->p_len : 2 * grp->secret_len;
}

/*
 * @len bytes of @key as a private key, made valid whichever way a kernel
 * reads them: P-256's below 2^255 big-endian and as 64-bit digits least
 * significant first (n is above), and above 2^120 either way (at least
 * 2); dh's nonzero.
 */
static int cp_kpp_verify_setkey(struct cp_tfm *t, const struct cp_geometry *g,
				const u8 *key, unsigned int len)
{
	const struct cp_kpp_group *grp = cp_kpp_group(g);
	u8 priv[32];
	int r;

	if (!grp || len != grp->priv_len || len != sizeof(priv))
		return -EINVAL;
	memcpy(priv, key, len);
	if (grp->p) {
		priv[len - 1] |= 1;
	} else {
		priv[0] &= 0x7f;
		priv[len - 1] &= 0x7f;
		priv[len / 2] |= 0x10;
	}
	r = cp_kpp_set_priv(t, grp, priv);
	memzero_explicit(priv, sizeof(priv));
	return r;
}

/* @len bytes of peer key in @src (none for a public key), the answer into @dst. */
static void cp_kpp_req_set(struct cp_tfm *t, struct cp_slot *slot,
			   struct scatterlist *src, struct scatterlist *dst,
			   unsigned int assoclen, unsigned int len,
			   crypto_completion_t cb, void *data)
{
	kpp_request_set_callback(slot->req, CRYPTO_TFM_REQ_MAY_BACKLOG, cb,
				 data);
	kpp_request_set_input(slot->req, len ? src : NULL, len);
	kpp_request_set_output(slot->req, dst, cp_sg_bytes(dst));
}

/* A completed request's output length. */
static unsigned int cp_kpp_dst_len(struct cp_slot *slot)
{
	return ((struct kpp_request *)slot->req)->dst_len;
}

/* The measured groups only: the module has no parameters of another. */
static int cp_kpp_verify_supported(const struct cp_geometry *g,
				   struct netlink_ext_ack *extack)
{
	if (cp_kpp_group(g))
		return 0;
	NL_SET_ERR_MSG(extack, "of the key agreements only ecdh-nist-p256 and dh are verified");
	return -EOPNOTSUPP;
}

static const struct cp_verify_ops cp_kpp_verify_ops = {
	.supported = cp_kpp_verify_supported,
	.key_range = cp_kpp_key_range,
	.req_set = cp_kpp_req_set,
	.integer = true,
	.answer_len = cp_kpp_dst_len,
	.out_len = cp_kpp_out_len,
	.setkey = cp_kpp_verify_setkey,
};

const struct cp_type_ops cp_kpp_ops = {
	.name = "kpp",
	.alloc = cp_kpp_alloc,
	.free = cp_kpp_free,
	.driver_name = cp_kpp_driver_name,
	.alg_name = cp_kpp_alg_name,
	.geometry = cp_kpp_geometry,
	.check = cp_kpp_check,
	.setkey = cp_kpp_setkey,
	.req_alloc = cp_kpp_req_alloc,
	.req_free = cp_kpp_req_free,
	.req_prepare = cp_kpp_req_prepare,
	.submit = cp_kpp_submit,
	.kat = &cp_kpp_kat_ops,
	.verify = &cp_kpp_verify_ops,
	.frontend_type = CRYPTO_ALG_TYPE_KPP,
	.frontend_mask = CRYPTO_ALG_TYPE_MASK,
	.dst = CP_DST_ALWAYS,
	.key_refused = "the driver refused the module's private key",
	.decrypt_refused = "DECRYPT is not for key agreement: the shared-secret step is measured",
	.key_size_refused = "KEY_SIZE is not for key agreement: the module's private keys are fixed",
};
