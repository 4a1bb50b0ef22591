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
 *   reference accepts (aes: 16, 24, 32; an AEAD advertises none: every
 *   size the reference accepts), the direction every other turn, random
 *   key, IV and data;
 * - in place or not, and for source and destination each a layout: one
 *   entry at an offset, 2 to 8 uneven entries, or entries crossing page
 *   boundaries, at unaligned offsets and with gaps between them.
 *
 * An AEAD's case also picks its associated data (0 to 256 bytes, or the
 * lengths among cp_ad_tried the reference takes: rfc4106's 16 and 20),
 * its tag (the longest half the time, else any length from 1 the
 * reference takes), an empty text one time in eight where the reference
 * takes it, and ccm's length field (iv[0], 2 to 7); authenc's its
 * authentication key's length among cp_auth_key_tried (around the
 * digests' lengths and the hashes' blocks: past one, hmac hashes the key
 * first, a path engines that precompute their pads get wrong). A
 * decryption reads the reference's ciphertext of the case's text, one
 * bit of it flipped every other time (associated data, IV, text or tag):
 * the candidate must answer as the reference does, -EBADMSG included.
 * The associated data is not compared (an out-of-place request need not
 * copy it). geniv
 * wrappers (echainiv, seqiv) draw their IV from a salt of each
 * transform: their encryption is judged by the reference's decryption of
 * the candidate's ciphertext, which must give the text back.
 *
 * A hash's case is a digest, into a buffer of its own: 0 bytes one time
 * in sixteen, else a length drawn as above, its data in a source's
 * layout; a keyed hash's key among cp_hash_key_tried in turn (those its
 * reference takes), an unkeyed one's none. Its reference's digest size
 * must be its own. Every other round of its key sizes, a case alone is
 * not one digest() but init(), the data in 1 to 8 updates of uneven
 * lengths (0 included) and final(); or the last piece by finup(); or
 * the state exported after the updates, imported into another transform
 * with the same key, which calls final(): the digest must be the
 * reference's digest() of the whole.
 *
 * A compressor's output is not compared (implementations differ in
 * levels and block strategies): its case is a round trip with the
 * reference. Compression: the reference decompresses the candidate's
 * output, which must give the text back; decompression: the candidate
 * decompresses the reference's compression of the text, which must give
 * it back, of its length. Its text is one of four kinds (noise, sparse
 * data, a repeated period, runs of those mixed) of a length drawn as
 * above up to 64 KiB; each side one entry at its offset (since 6.15
 * scomp takes nothing else, acomp.c); its output space the worst case's
 * (len + len / 8 + 128) or the text's length, or in a quarter of the
 * cases tight: the reference's compressed length or one byte less, the
 * text's less one. Where it is tight the request may fail; elsewhere it
 * must not. Its output must fit the space it claims, and a canary of 64
 * bytes after the space must stay whole (an engine that writes its
 * whole answer anyway overflows its caller's buffer: zswap's, a
 * filesystem's).
 *
 * The last quarter of a verification's cases (16 at most) run together:
 * rounds of CP_TOGETHER cases, each on a transform of its own and key,
 * their requests sent before any is waited for, each answer judged
 * against its own case (an engine that confuses two transforms' keys
 * under load corrupts two IPsec SAs, and a one-request case never shows
 * it). Their texts are at most CP_TOGETHER_MAX_TEXT bytes (a packet's).
 * Whether their requests overlap on the engine is the engine's timing:
 * a seed names their contents, not their overlap.
 *
 * An akcipher's case (rsa: akcipher.c) is a message, 1 byte to its key's
 * modulus long (as long one time in four) and below it, one in four
 * beginning with up to 16 zero bytes, encrypted with one of the module's
 * public keys in turn (1024, 2048 and 4096 bits) into an output space of
 * the modulus's length or up to 64 bytes more, out of place, each side
 * in a layout. Its answer is compared with the reference's as the
 * integer it is: implementations may or may not write leading zero
 * bytes.
 *
 * A kpp's case (ecdh-nist-p256, dh over ffdhe2048: kpp.c) draws two
 * private keys, a and b, made valid by the type: every other round of
 * its key sizes (here, every other case) it is the public key of a, the
 * rest the shared secret of a with the public key the reference makes of
 * b, one bit of that peer key flipped every other time. Its output
 * space is the answer's size; the answer is compared as an integer, and
 * a peer key the reference refuses (off the curve) the candidate must
 * refuse too.
 *
 * Every request goes through run.c: an engine that never answers leaves
 * its run a zombie there, as a calibration's would, and the verdict names
 * the case it hung on. The type's part is its struct cp_verify_ops
 * (types.h): every type the module measures has one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "types.h"

/*
 * A compressor's output space: its text's worst case and more (lzo's is
 * len / 16 + 67, 842's about len / 13; cp_rt_room()), and a canary after it.
 */
#define CP_RT_ROOM_FIXED	128U
#define CP_RT_CANARY		64U
#define CP_RT_MAX_TEXT		CRYPTOPRIO_MAX_ACOMP_REQ_SIZE
#define CP_RT_MAX_LEN		(CP_RT_MAX_TEXT + CP_RT_MAX_TEXT / 8 + \
				 CP_RT_ROOM_FIXED + CP_RT_CANARY)

/* a case's text, and the associated data, IV in the data and tag around it */
#define CP_VERIFY_MAX_TEXT	(65536U + 16)
#define CP_VERIFY_MAX_AD	256U
#define CP_VERIFY_MAX_TAG	64U
#define CP_CIPHER_MAX_LEN	(CP_VERIFY_MAX_TEXT + CP_VERIFY_MAX_AD + \
				 CP_MAX_IV_SIZE + CP_VERIFY_MAX_TAG)
/* a compressor's output and canary are the longest */
#define CP_VERIFY_MAX_LEN	CP_RT_MAX_LEN
static_assert(CP_VERIFY_MAX_LEN >= CP_CIPHER_MAX_LEN);
/* offsets under a page, gaps of up to 31 bytes between up to 8 entries */
#define CP_VERIFY_MAX_ENTRIES	8
#define CP_VERIFY_BUF_LEN	(CP_VERIFY_MAX_LEN + PAGE_SIZE + \
				 CP_VERIFY_MAX_ENTRIES * 32)
#define CP_VERIFY_MAX_KEYS	16

/*
 * Cases together: up to CP_TOGETHER_ROUNDS rounds of CP_TOGETHER, as many
 * as a quarter of the cases fill; their texts shorter, their buffers too.
 */
#define CP_TOGETHER		4
#define CP_TOGETHER_ROUNDS	4
#define CP_TOGETHER_MAX_TEXT	4096U
#define CP_TOGETHER_MAX_LEN	(CP_TOGETHER_MAX_TEXT + CP_TOGETHER_MAX_TEXT / 8 + \
				 CP_RT_ROOM_FIXED + CP_RT_CANARY)
#define CP_TOGETHER_CIPHER_LEN	(CP_TOGETHER_MAX_TEXT + CP_VERIFY_MAX_AD + \
				 CP_MAX_IV_SIZE + CP_VERIFY_MAX_TAG)
static_assert(CP_TOGETHER_MAX_LEN >= CP_TOGETHER_CIPHER_LEN);
#define CP_TOGETHER_BUF_LEN	(CP_TOGETHER_MAX_LEN + PAGE_SIZE + \
				 CP_VERIFY_MAX_ENTRIES * 32)
#define CP_VERIFY_KEY_LEN	(CRYPTOPRIO_MAX_KEY_SIZE + CP_MAX_AUTH_KEY_LEN)

enum cp_layout_kind { CP_LAYOUT_ONE, CP_LAYOUT_UNEVEN, CP_LAYOUT_PAGES };

/*
 * A hash's case alone, every other round of its key sizes: init(), the
 * data in up to CP_MAX_PIECES updates of uneven lengths (0 included),
 * then final(); the last piece by finup(); or final() on another
 * transform with the same key that imported the state exported after the
 * updates.
 */
enum cp_hash_way { CP_WAY_DIGEST, CP_WAY_FINAL, CP_WAY_FINUP, CP_WAY_EXPORT };
#define CP_MAX_PIECES		8

/* What a compressor's text is made of. */
enum cp_rt_kind { CP_RT_NOISE, CP_RT_SPARSE, CP_RT_PERIOD, CP_RT_MIXED };

static const char *const cp_rt_kind_names[] = {
	[CP_RT_NOISE] = "noise",
	[CP_RT_SPARSE] = "sparse data",
	[CP_RT_PERIOD] = "a repeated period",
	[CP_RT_MIXED] = "mixed data",
};

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

/* associated data lengths tried on the reference: all taken, any is drawn */
static const unsigned int cp_ad_tried[] = { 0, 1, 8, 13, 16, 20, 31, 64, 255 };
static const unsigned int cp_auth_key_tried[] = { 16, 20, 32, 48, 63, 64, 65,
						  100, 128, 129, CP_MAX_AUTH_KEY_LEN };
/*
 * A keyed hash's key lengths tried on the reference: hmac takes any, and
 * hashes one longer than its hash's block (64 or 128) first; cmac takes
 * an AES key, ghash 16 bytes.
 */
static const unsigned int cp_hash_key_tried[] = { 1, 16, 20, 24, 32, 48, 63, 64,
						  65, 100, 128, 129, 160,
						  CRYPTOPRIO_MAX_KEY_SIZE };

struct cp_vcase {
	u32 index;
	u64 rng;		/* its own stream, from the seed and index */
	unsigned int len;	/* of the text */
	unsigned int key_size;
	unsigned int auth_key;	/* authenc: the authentication key's length */
	unsigned int assoclen;	/* AEAD */
	unsigned int tag;	/* AEAD: the tag's length */
	bool decrypt;
	bool corrupt;		/* AEAD decryption: bit @flip of the input flipped */
	u32 flip;
	bool in_place;
	struct cp_layout src, dst;
	bool together;		/* sent beside CP_TOGETHER - 1 others */
	/* a hash's */
	enum cp_hash_way way;
	unsigned int pieces;	/* of its data, but a digest's */
	unsigned int cut[CP_MAX_PIECES];	/* where each ends, ascending */
	/* a compressor's */
	enum cp_rt_kind kind;	/* of its text */
	bool tight;		/* its output space short: it may fail */
	bool shave;		/* a tight compression's space one byte less */
	unsigned int space;	/* its output's (an akcipher's, a kpp's too) */
	/* the reference's compression of the text, or its integer answer */
	unsigned int ref_len;
};

/* A case of a round together: its transform and what it is judged by. */
struct cp_together {
	struct cp_run *run;	/* NULL once a zombie */
	struct cp_vcase c;
	struct scatterlist *out;
	int want_err;
	u8 *in, *want;		/* CP_TOGETHER_MAX_LEN bytes each */
	u8 key[CP_VERIFY_KEY_LEN];
	u8 iv[CP_MAX_IV_SIZE], iv_want[CP_MAX_IV_SIZE];
};

/* One verification in progress. */
struct cp_verify {
	const struct cp_verify_params *p;
	struct cp_verify_result *res;
	struct cp_run *cand;	/* NULL once a zombie */
	struct cp_run *ref;
	struct cp_run *twin;	/* a hash's: imports the candidate's state */
	u8 *state;		/* exported */
	struct cp_together *tog;	/* CP_TOGETHER of them, if rounds */
	unsigned int rounds;		/* of cases together */
	unsigned int max_text;		/* of the cases drawn now */
	unsigned int max_alone;		/* of the cases alone */
	unsigned int keys[CP_VERIFY_MAX_KEYS];
	unsigned int nkeys;
	bool partial;		/* the reference takes partial blocks */
	bool digest;		/* a hash: its answer a digest, no direction */
	bool round_trip;	/* a compressor: judged by round trips */
	bool integer;		/* an akcipher, a kpp: its answer an integer */
	bool agree;		/* a kpp: key agreements */
	bool keyless;		/* an unkeyed hash, a compressor */
	/* AEAD */
	bool aead;
	bool geniv;		/* its IV drawn by the transform (echainiv, seqiv) */
	unsigned int ivd;	/* geniv: the IV's bytes in the data */
	u8 tags[CP_VERIFY_MAX_TAG];
	unsigned int ntags;	/* lengths the reference takes, ascending */
	unsigned int ads[ARRAY_SIZE(cp_ad_tried)];
	unsigned int nads;
	bool any_ad;		/* every length tried: any up to CP_VERIFY_MAX_AD */
	bool empty;		/* the reference takes an empty text */
	int want_err;		/* the reference's answer: 0, or -EBADMSG */
	u8 *in, *want, *got;
	/* setkey() reads an authentication key or nonce after the cipher's */
	u8 key[CP_VERIFY_KEY_LEN];
	u8 iv[CP_MAX_IV_SIZE], iv_want[CP_MAX_IV_SIZE];
	ktime_t end;
};

/* The verification's part of @v's type. */
static const struct cp_verify_ops *cp_int_ops(const struct cp_verify *v)
{
	return cp_type_ops(v->p->type)->verify;
}

/* @run's setkey for a case: the verification's own where the type has one. */
static int cp_setkey(struct cp_run *run, const u8 *key, unsigned int len)
{
	const struct cp_type_ops *ops = run->ops;

	if (ops->verify->setkey)
		return ops->verify->setkey(&run->tfm, &run->geo, key, len);
	return ops->setkey(&run->tfm, &run->geo, key, len);
}

/* A compressor's output space for @len bytes of text: its worst case's. */
static unsigned int cp_rt_room(unsigned int len)
{
	return len + len / 8 + CP_RT_ROOM_FIXED;
}

/*
 * The bytes a case's request encrypts or decrypts, after the AD; a
 * compressor's: the text, or the reference's compression of it.
 */
static unsigned int cp_case_crypt(const struct cp_verify *v,
				  const struct cp_vcase *c)
{
	if (v->round_trip)
		return c->decrypt ? c->ref_len : c->len;
	return v->ivd + c->len + (c->decrypt ? c->tag : 0);
}

/* The bytes it reads ... */
static unsigned int cp_case_in(const struct cp_verify *v,
			       const struct cp_vcase *c)
{
	return c->assoclen + cp_case_crypt(v, c);
}

/* ... and writes, the AD included */
static unsigned int cp_case_out(const struct cp_verify *v,
				const struct cp_vcase *c)
{
	if (v->digest)
		return v->cand->geo.digestsize;
	if (v->round_trip || v->integer)
		return c->space;
	return c->decrypt ? cp_case_in(v, c) - c->tag : cp_case_in(v, c) + c->tag;
}

/* The bytes of the source's list: a digest goes to a buffer of its own. */
static unsigned int cp_case_src(const struct cp_verify *v,
				const struct cp_vcase *c)
{
	if (v->digest || !c->in_place)
		return cp_case_in(v, c);
	return max(cp_case_in(v, c), cp_case_out(v, c));
}

/* Where the answer compared starts: after the AD, and a decryption's IV. */
static unsigned int cp_case_from(const struct cp_verify *v,
				 const struct cp_vcase *c)
{
	return c->assoclen + (c->decrypt ? v->ivd : 0);
}

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
	const unsigned int max_len = v->max_text;
	bool whole = bs > 1 && !v->partial;

	if (v->digest && !cp_rand(c, 16))
		return 0;	/* a hash of nothing */
	if (v->agree)	/* a peer's public key, or none to make one's own */
		return c->decrypt ? 0 : cp_int_ops(v)->out_len(&v->cand->geo, true);
	if (v->integer)	/* a modulus long a quarter of the time, as pkcs1's */
		return cp_rand(c, 4) ? 1 + cp_rand(c, c->key_size) : c->key_size;
	switch (cp_rand(c, 3)) {
	case 0:		/* 1 to 4 blocks */
		len = 1 + cp_rand(c, 4 * unit);
		break;
	case 1:		/* around a power of two, 16 to 64 KiB */
		len = (1U << (4 + cp_rand(c, 13))) + cp_rand(c, 33);
		len = len > 16 ? len - 16 : len;
		break;
	default:
		len = 1 + cp_rand(c, max_len);
		break;
	}
	if (whole)
		len -= len % bs;
	/* a round's longest too is whole blocks */
	return clamp(len, bs, whole ? max_len - max_len % bs : max_len);
}

/* A layout for @len bytes (at least one). */
static void cp_case_layout(struct cp_vcase *c, struct cp_layout *l,
			   unsigned int len)
{
	l->kind = cp_rand(c, 3);
	l->nents = l->kind == CP_LAYOUT_ONE ? 1 : 2 + cp_rand(c, 7);
	l->nents = len ? clamp(l->nents, 1U, len) : 1;
	if (l->kind == CP_LAYOUT_PAGES)
		l->offset = PAGE_SIZE - 1 - cp_rand(c, 64);
	else if (cp_rand(c, 2))
		l->offset = cp_rand(c, 64);		/* unaligned */
	else
		l->offset = 16 * cp_rand(c, PAGE_SIZE / 16);
}

/* An AEAD case's text, associated data, tag and flipped bit. */
static void cp_case_aead(struct cp_verify *v, struct cp_vcase *c)
{
	if (v->empty && !cp_rand(c, 8))
		c->len = 0;
	c->assoclen = v->any_ad ? cp_rand(c, CP_VERIFY_MAX_AD + 1) :
				  v->ads[cp_rand(c, v->nads)];
	c->tag = cp_rand(c, 2) ? v->tags[v->ntags - 1] :
				 v->tags[cp_rand(c, v->ntags)];
	c->corrupt = c->decrypt && cp_rand(c, 2);
	if (c->corrupt)
		c->flip = cp_rand(c, 8 * cp_case_in(v, c));
}

/* @len bytes of @kind at @to, from @c's stream. */
static void cp_rt_fill(struct cp_vcase *c, u8 *to, unsigned int len,
		       enum cp_rt_kind kind)
{
	unsigned int i, period;

	switch (kind) {
	case CP_RT_NOISE:
		cp_rand_bytes(c, to, len);
		break;
	case CP_RT_SPARSE:	/* zeros, a byte every 1 to 256 */
		memset(to, 0, len);
		for (i = cp_rand(c, 64); i < len; i += 1 + cp_rand(c, 256))
			to[i] = 1 + cp_rand(c, 255);
		break;
	case CP_RT_PERIOD:	/* 1 to 300 random bytes, again and again */
		period = 1 + cp_rand(c, 300);
		cp_rand_bytes(c, to, min(len, period));
		for (i = period; i < len; i++)
			to[i] = to[i - period];
		break;
	case CP_RT_MIXED:	/* runs of 1 to 1024 bytes of the others */
		for (i = 0; i < len; i += period) {
			period = min(len - i, 1 + cp_rand(c, 1024));
			cp_rt_fill(c, to + i, period, cp_rand(c, CP_RT_MIXED));
		}
		break;
	}
}

/*
 * A compressor's case: out of place, each side one entry at its offset
 * (since 6.15 scomp takes nothing else, acomp.c); its text of a kind; a
 * quarter of them with a tight output space.
 */
static void cp_rt_draw(struct cp_verify *v, struct cp_vcase *c)
{
	c->src.kind = CP_LAYOUT_ONE;
	c->dst.kind = CP_LAYOUT_ONE;
	c->src.nents = 1;
	c->dst.nents = 1;
	c->kind = cp_rand(c, ARRAY_SIZE(cp_rt_kind_names));
	cp_rt_fill(c, v->in, c->len, c->kind);
	c->tight = !cp_rand(c, 4);
	c->shave = cp_rand(c, 2);
}

/*
 * An akcipher's message, below every modulus of its length (their top
 * bit is set): its top bit clear if it is as long, one in four with up
 * to 16 zero bytes first; never 0. A kpp's shared secret: whether a bit
 * of its peer key (the reference's, later) is flipped, and which.
 */
static void cp_int_draw(struct cp_verify *v, struct cp_vcase *c)
{
	if (v->agree) {		/* a bit of the peer key flipped, or not */
		c->corrupt = !c->decrypt && cp_rand(c, 2);
		if (c->corrupt)
			c->flip = cp_rand(c, 8 * c->len);
		return;
	}
	if (c->len == c->key_size)
		v->in[0] &= 0x7f;
	if (c->len > 1 && !cp_rand(c, 4))
		memset(v->in, 0, 1 + cp_rand(c, min(c->len - 1, 16U)));
	v->in[c->len - 1] |= 1;
}

/*
 * Case @index of @v's seed. The key size takes each advertised size in
 * turn, the direction changes every round of them. A request that reads
 * or writes nothing (an AEAD's empty text and AD) is in place.
 */
static void cp_case_draw(struct cp_verify *v, u32 index, struct cp_vcase *c)
{
	unsigned int in, out;
	u64 i = index;

	memset(c, 0, sizeof(*c));
	c->index = index;
	c->rng = v->p->seed ^ cp_splitmix64(&i);
	c->key_size = v->keys[index % v->nkeys];
	c->decrypt = !v->digest && (!v->integer || v->agree) &&
		     ((index / v->nkeys) & 1);
	c->len = cp_case_len(v, c);
	if (v->agree)
		c->space = cp_int_ops(v)->out_len(&v->cand->geo, c->decrypt);
	else if (v->integer)
		c->space = c->key_size + (cp_rand(c, 2) ? 0 : 1 + cp_rand(c, 64));
	if (v->aead)
		cp_case_aead(v, c);
	in = cp_case_in(v, c);
	out = cp_case_out(v, c);
	c->in_place = (cp_rand(c, 2) || !in || !out || v->digest) &&
		      !v->round_trip && !v->integer;
	cp_case_layout(c, &c->src, cp_case_src(v, c));
	if (!c->in_place)
		cp_case_layout(c, &c->dst, out);
	/* an akcipher's key is the module's of its size (up to 512 bytes) */
	if (!v->integer)
		cp_rand_bytes(c, v->key, c->key_size + CP_HMAC_KEY_LEN);
	else if (v->agree)	/* a, and b for the peer */
		cp_rand_bytes(c, v->key, 2 * c->key_size);
	cp_rand_bytes(c, v->iv, v->cand->geo.ivsize);
	if (v->cand->geo.shape.ccm)
		v->iv[0] = 2 + cp_rand(c, 6);	/* L': 3- to 8-byte lengths */
	/* a decryption's ciphertext is the reference's of this plaintext */
	cp_rand_bytes(c, v->in, c->assoclen + v->ivd + c->len);
	/* drawn last: the other types' cases are those of before */
	if (v->cand->geo.shape.authenc) {
		c->auth_key = cp_auth_key_tried[cp_rand(c, ARRAY_SIZE(cp_auth_key_tried))];
		cp_rand_bytes(c, v->key + c->key_size, c->auth_key);
	}
	if (v->round_trip)
		cp_rt_draw(v, c);
	if (v->integer)
		cp_int_draw(v, c);
}

/*
 * A hash's case alone, every other round of its key sizes: its way and
 * where its pieces end (CP_MAX_PIECES at most, the last at its length).
 */
static void cp_case_steps(struct cp_verify *v, struct cp_vcase *c)
{
	unsigned int i, j, cut;

	if (!((c->index / v->nkeys) & 1))
		return;
	c->way = CP_WAY_FINAL + cp_rand(c, 3);
	c->pieces = 1 + cp_rand(c, CP_MAX_PIECES);
	for (i = 0; i + 1 < c->pieces; i++) {
		cut = cp_rand(c, c->len + 1);
		for (j = i; j > 0 && c->cut[j - 1] > cut; j--)
			c->cut[j] = c->cut[j - 1];
		c->cut[j] = cut;
	}
	c->cut[c->pieces - 1] = c->len;
}

/*
 * @l over @buf's pages into @t: its entries cut @len bytes in
 * uneven pieces (a page boundary inside each, for CP_LAYOUT_PAGES), gaps
 * of up to 31 bytes between them. Within CP_VERIFY_BUF_LEN by its bounds.
 */
static int cp_layout_build(struct cp_vcase *c, const struct cp_layout *l,
			   unsigned int len, struct cp_buf *buf,
			   struct sg_table *t)
{
	struct page *base = sg_page(buf->sgt.sgl);
	unsigned int pos = l->offset, left = len, i;
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
	if (l->nents == 1)
		return scnprintf(to, len, "one entry at offset %u", l->offset);
	return scnprintf(to, len, "%u %s from offset %u", l->nents,
			 cp_layout_names[l->kind], l->offset);
}

static const char *cp_case_op(const struct cp_verify *v,
			      const struct cp_vcase *c)
{
	if (v->digest)
		return "digest";
	if (v->round_trip)
		return c->decrypt ? "decompress" : "compress";
	return c->decrypt ? "decrypt" : "encrypt";
}

/* "sparse data, 37 compressed, tight space 36, " */
static int cp_rt_words(char *to, size_t len, const struct cp_vcase *c)
{
	int w = scnprintf(to, len, "%s, ", cp_rt_kind_names[c->kind]);

	if (c->decrypt)
		w += scnprintf(to + w, len - w, "%u compressed, ", c->ref_len);
	return w + scnprintf(to + w, len - w, "%sspace %u, ",
			     c->tight ? "tight " : "", c->space);
}

/* ", init, updates of 5, 0 and 100 bytes, final" */
static int cp_steps_words(char *to, size_t len, const struct cp_vcase *c)
{
	unsigned int updates = c->pieces - (c->way == CP_WAY_FINUP), i, from = 0;
	int w = scnprintf(to, len, ", init");

	for (i = 0; i < updates; i++) {
		w += scnprintf(to + w, len - w, "%s%u", !i ? ", updates of " :
			       i + 1 == updates ? " and " : ", ",
			       c->cut[i] - from);
		from = c->cut[i];
	}
	if (updates)
		w += scnprintf(to + w, len - w, " bytes");
	if (c->way == CP_WAY_FINUP)
		return w + scnprintf(to + w, len - w, ", finup of %u",
				     c->len - from);
	if (c->way == CP_WAY_EXPORT)
		w += scnprintf(to + w, len - w,
			       ", export, import into another transform");
	return w + scnprintf(to + w, len - w, ", final");
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
	if (v->agree)
		w = scnprintf(s, n, "case %u of seed %llu: %s, ", c->index,
			      v->p->seed, c->decrypt ? "public key" :
			      "shared secret");
	else
		w = scnprintf(s, n, "case %u of seed %llu: %s %u bytes, ",
			      c->index, v->p->seed, cp_case_op(v, c), c->len);
	if (v->agree && !c->decrypt)
		w += scnprintf(s + w, n - w, "%u-byte peer key, ", c->len);
	if (v->round_trip)
		w += cp_rt_words(s + w, n - w, c);
	if (c->key_size)
		w += scnprintf(s + w, n - w, "%u-byte key, ", c->key_size);
	if (c->auth_key)
		w += scnprintf(s + w, n - w, "%u-byte authentication key, ",
			       c->auth_key);
	if (v->aead)
		w += scnprintf(s + w, n - w, "AD %u, tag %u, ", c->assoclen,
			       c->tag);
	if (c->corrupt)
		w += scnprintf(s + w, n - w, "bit %u flipped, ", c->flip);
	if (v->digest)
		w += scnprintf(s + w, n - w, "data in ");
	else if (v->round_trip)
		w += scnprintf(s + w, n - w, "src ");
	else
		w += scnprintf(s + w, n - w, "%s, src ",
			       c->in_place ? "in place" : "out of place");
	w += cp_layout_words(s + w, n - w, &c->src);
	if (!c->in_place) {
		w += scnprintf(s + w, n - w, ", dst ");
		w += cp_layout_words(s + w, n - w, &c->dst);
	}
	if (c->way != CP_WAY_DIGEST)
		w += cp_steps_words(s + w, n - w, c);
	if (c->together)
		w += scnprintf(s + w, n - w,
			       ", sent with %u other transforms' requests",
			       CP_TOGETHER - 1);
	scnprintf(s + w, n - w, ": %s", what);
	pr_info("%s: verification failed: %s\n", v->p->driver, s);
}

/* @c's key and, for an AEAD, its tag length on @run: 0, or why not. */
static int cp_case_key(struct cp_verify *v, struct cp_run *run,
		       const struct cp_vcase *c, const char **what)
{
	int r;

	*what = "setkey";
	/* authenc's key length is the case's, read by setkey() from the shape */
	if (run->geo.shape.authenc)
		run->geo.shape.auth_key = c->auth_key;
	/* an unkeyed hash, a compressor: no setkey() */
	if (v->keyless)
		return 0;
	r = cp_setkey(run, v->key, c->key_size);
	if (r || !v->aead)
		return r;
	*what = "setauthsize";
	return run->ops->verify->set_tag(&run->tfm, c->tag);
}

/* @s's answer, @len bytes in @out's list or, a hash's, its digest, into @to. */
static void cp_answer_copy(const struct cp_verify *v, struct cp_slot *s,
			   struct scatterlist *out, u8 *to, unsigned int len)
{
	if (v->digest)
		memcpy(to, s->out, len);
	else
		sg_copy_to_buffer(out, sg_nents(out), to, len);
}

/*
 * The reference, in place on its one entry, keyed: @in under @c's IV and
 * associated data, @crypt bytes after it; its output into @out (which may
 * be @in), its error into *@err. 0, or -ETIMEDOUT: it never answered (a
 * zombie now, which a synchronous one never becomes).
 */
static int cp_ref_once(struct cp_verify *v, const struct cp_vcase *c,
		       bool decrypt, const u8 *in, unsigned int crypt, u8 *out,
		       int *err)
{
	struct cp_run *ref = v->ref;
	struct cp_slot *s = &ref->slots[0];
	unsigned int in_len = c->assoclen + crypt;
	unsigned int out_len = decrypt ? in_len - c->tag : in_len + c->tag;
	int r;

	if (v->digest)
		out_len = ref->geo.digestsize;

	sg_copy_from_buffer(s->src.sgt.sgl, 1, in, in_len);
	memcpy(s->iv, v->iv, ref->geo.ivsize);
	cp_run_point(ref, s->src.sgt.sgl, s->src.sgt.sgl, c->assoclen, crypt,
		     decrypt);
	r = cp_run_go(ref, true, 0, v->p->grace_ns, NULL);
	if (r == CP_RUN_ABANDONED) {
		v->ref = NULL;
		return -ETIMEDOUT;
	}
	*err = s->err;
	if (!s->err) {
		cp_answer_copy(v, s, s->src.sgt.sgl, out, out_len);
		memcpy(v->iv_want, s->iv, ref->geo.ivsize);
	}
	return 0;
}

/*
 * A compressor's reference (an akcipher's and a kpp's too: @decompress
 * is a kpp's public key), on its one entry each side: @in_len bytes of
 * @in compressed (or decompressed) into a space of @space, its output
 * into @out (which may be @in) and its length into *@out_len, its error
 * into *@err. 0, -ENOMEM, -EIO (it claims more than its space) or
 * -ETIMEDOUT (a zombie now, which a synchronous one never becomes).
 */
static int cp_rt_ref_once(struct cp_verify *v, bool decompress, const u8 *in,
			  unsigned int in_len, unsigned int space, u8 *out,
			  unsigned int *out_len, int *err)
{
	static const struct cp_layout whole = { CP_LAYOUT_ONE, 1, 0 };
	struct cp_run *ref = v->ref;
	struct cp_slot *s = &ref->slots[0];
	struct cp_vcase none = {};	/* one entry draws nothing */
	int r;

	if (cp_layout_build(&none, &whole, in_len, &s->src, &s->layout[0]) ||
	    cp_layout_build(&none, &whole, space, &s->dst, &s->layout[1]))
		return -ENOMEM;
	sg_copy_from_buffer(s->layout[0].sgl, 1, in, in_len);
	cp_run_point(ref, s->layout[0].sgl, s->layout[1].sgl, 0, in_len,
		     decompress);
	r = cp_run_go(ref, true, 0, v->p->grace_ns, NULL);
	if (r == CP_RUN_ABANDONED) {
		v->ref = NULL;
		return -ETIMEDOUT;
	}
	*err = s->err;
	if (s->err)
		return 0;
	*out_len = ref->ops->verify->answer_len(s);
	if (*out_len > space)
		return -EIO;
	sg_copy_to_buffer(s->layout[1].sgl, 1, out, *out_len);
	return 0;
}

/*
 * A compressor's case: the reference compresses the text (v->in, kept in
 * v->want) into the worst case's space; a decompression reads its output
 * (into v->in). The candidate's space: the worst case's, or the text's
 * length to decompress; tight, the reference's length or one byte less to
 * compress, the text's less one to decompress (never 0: scomp before
 * 6.15 takes that for its scratch buffer's 128 KiB).
 */
static int cp_rt_reference(struct cp_verify *v, struct cp_vcase *c)
{
	unsigned int tight;
	int r, err;

	memcpy(v->want, v->in, c->len);
	r = cp_rt_ref_once(v, false, v->want, c->len, cp_rt_room(c->len),
			   v->got, &c->ref_len, &err);
	if (r || err)
		return r ?: err;
	if (c->decrypt)
		memcpy(v->in, v->got, c->ref_len);
	c->space = c->decrypt ? c->len : cp_rt_room(c->len);
	tight = c->decrypt ? c->len - 1 : c->ref_len - c->shave;
	if (c->tight && tight)
		c->space = tight;
	else
		c->tight = false;
	return 0;
}

/*
 * A kpp's peer key into v->in: the reference's public key of b (after a
 * in v->key), as long as a public key is (leading zeros written), one
 * bit flipped where @c says.
 */
static int cp_peer_reference(struct cp_verify *v, struct cp_vcase *c)
{
	struct cp_run *ref = v->ref;
	unsigned int len;
	int r, err;

	r = cp_int_ops(v)->setkey(&ref->tfm, &ref->geo, v->key + c->key_size,
				  c->key_size);
	if (!r)
		r = cp_rt_ref_once(v, true, v->in, 0, c->len, v->in, &len, &err);
	if (r || err)
		return r ?: err;
	memmove(v->in + c->len - len, v->in, len);
	memset(v->in, 0, c->len - len);
	if (c->corrupt)
		v->in[c->flip / 8] ^= 1U << (c->flip % 8);
	return 0;
}

/*
 * An akcipher's or a kpp's: the reference's answer into v->want, its
 * length c->ref_len; a kpp's peer key first, into v->in.
 */
static int cp_int_reference(struct cp_verify *v, struct cp_vcase *c)
{
	const char *what;
	int r, err;

	if (v->agree && !c->decrypt) {
		r = cp_peer_reference(v, c);
		if (r)
			return r;
	}
	r = cp_case_key(v, v->ref, c, &what);
	if (!r)
		r = cp_rt_ref_once(v, c->decrypt, v->in, c->len, c->space,
				   v->want, &c->ref_len, &err);
	if (r)
		return r;
	/* a flipped peer key may be refused: then the candidate must too */
	if (c->corrupt)
		v->want_err = err;
	return c->corrupt ? 0 : err;
}

/*
 * The reference's answer to the case into v->want and v->want_err; for
 * an AEAD's decryption, first the ciphertext it reads into v->in. An
 * error the reference should not give is returned: then it is no
 * reference.
 */
static int cp_case_reference(struct cp_verify *v, struct cp_vcase *c)
{
	const char *what;
	int r, err;

	v->want_err = 0;
	if (v->round_trip)
		return cp_rt_reference(v, c);
	if (v->integer)
		return cp_int_reference(v, c);
	r = cp_case_key(v, v->ref, c, &what);
	if (r)
		return r;
	if (v->aead && c->decrypt) {
		r = cp_ref_once(v, c, false, v->in, v->ivd + c->len, v->in, &err);
		if (r || err)
			return r ? r : err;
		if (c->corrupt)
			v->in[c->flip / 8] ^= 1U << (c->flip % 8);
	}
	/* a geniv encryption is judged by the reference's decryption of it */
	if (v->geniv && !c->decrypt)
		return 0;
	r = cp_ref_once(v, c, c->decrypt, v->in, cp_case_crypt(v, c), v->want,
			&v->want_err);
	if (r)
		return r;
	if (v->want_err && !(c->corrupt && v->want_err == -EBADMSG))
		return v->want_err;
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

/*
 * geniv encryption: the reference decrypts the candidate's answer (v->got,
 * the AD put back), which must give the text back. 0 (see res), or an
 * error of the reference's.
 */
static int cp_case_round_trip(struct cp_verify *v, struct cp_vcase *c)
{
	unsigned int text = c->assoclen + v->ivd, at;
	char what[80];
	int r, err;

	memcpy(v->got, v->in, c->assoclen);
	r = cp_ref_once(v, c, true, v->got, v->ivd + c->len + c->tag, v->want,
			&err);
	if (r || (err && err != -EBADMSG))
		return r ? r : err;
	if (err) {
		cp_case_fail(v, c, "its ciphertext does not authenticate under the reference");
		return 0;
	}
	at = cp_first_diff(v->want + text, v->in + text, c->len);
	if (at < c->len) {
		snprintf(what, sizeof(what),
			 "the reference decrypts its ciphertext to other text from byte %u",
			 at);
		cp_case_fail(v, c, what);
	}
	return 0;
}

/* The candidate's error judged against the reference's; true if both failed alike. */
static bool cp_case_error(struct cp_verify *v, struct cp_vcase *c, int err)
{
	char what[96];

	if (err == v->want_err)
		return err != 0;
	if (!v->want_err)
		snprintf(what, sizeof(what),
			 "failed with error %d, the reference succeeded", err);
	else if (!err)
		snprintf(what, sizeof(what),
			 "accepted a corrupted ciphertext, the reference refused it (%d)",
			 v->want_err);
	else
		snprintf(what, sizeof(what),
			 "failed with error %d, the reference with %d", err,
			 v->want_err);
	cp_case_fail(v, c, what);
	return true;
}

/*
 * The canary after a compressor's output space in @s's dst: its entry
 * ends at the dst's offset plus the space, within CP_VERIFY_BUF_LEN (or
 * CP_TOGETHER_BUF_LEN) by their bounds; run.c's pages are lowmem.
 */
static u8 *cp_rt_canary(struct cp_slot *s, const struct cp_vcase *c)
{
	return (u8 *)page_address(sg_page(s->dst.sgt.sgl)) + c->dst.offset +
	       c->space;
}

static u8 cp_rt_canary_byte(unsigned int i)
{
	return 0xa5 + 7 * i;
}

static void cp_rt_canary_set(struct cp_slot *s, const struct cp_vcase *c)
{
	u8 *p = cp_rt_canary(s, c);
	unsigned int i;

	for (i = 0; i < CP_RT_CANARY; i++)
		p[i] = cp_rt_canary_byte(i);
}

static bool cp_rt_canary_ok(struct cp_slot *s, const struct cp_vcase *c)
{
	const u8 *p = cp_rt_canary(s, c);
	unsigned int i;

	for (i = 0; i < CP_RT_CANARY; i++)
		if (p[i] != cp_rt_canary_byte(i))
			return false;
	return true;
}

/*
 * @run's request for @c, from @in under @iv, ready to start; *@out the
 * list its answer is in. 0 or -ENOMEM.
 */
static int cp_case_ready(struct cp_verify *v, struct cp_run *run,
			 struct cp_vcase *c, const u8 *in, const u8 *iv,
			 struct scatterlist **out)
{
	struct cp_slot *s = &run->slots[0];
	unsigned int in_len = cp_case_in(v, c), out_len = cp_case_out(v, c);

	if (cp_layout_build(c, &c->src, cp_case_src(v, c), &s->src,
			    &s->layout[0]) ||
	    (!c->in_place &&
	     cp_layout_build(c, &c->dst, out_len, &s->dst, &s->layout[1])))
		return -ENOMEM;
	*out = c->in_place ? s->layout[0].sgl : s->layout[1].sgl;
	if (v->round_trip)
		cp_rt_canary_set(s, c);
	sg_copy_from_buffer(s->layout[0].sgl, c->src.nents, in, in_len);
	memcpy(s->iv, iv, run->geo.ivsize);
	cp_run_point(run, s->layout[0].sgl, *out, c->assoclen,
		     cp_case_crypt(v, c), c->decrypt);
	return 0;
}

/* @c on @run's key, whose setting failed with @r: the case fails. */
static void cp_case_key_failed(struct cp_verify *v, struct cp_vcase *c,
			       const char *op, int r)
{
	char what[80];

	snprintf(what, sizeof(what), "%s failed (%d), the reference took it",
		 op, r);
	cp_case_fail(v, c, what);
}

/* The case never answered: its run a zombie, the verdict a timeout. */
static int cp_case_hung(struct cp_verify *v, struct cp_vcase *c)
{
	cp_case_fail(v, c, "no answer within the grace period (its memory kept until it completes)");
	v->res->verdict = CRYPTOPRIO_VERIFY_TIMEOUT;
	return CP_RUN_ABANDONED;
}

/* @len bytes of @got, which @who made, must be the text (v->want). */
static void cp_rt_text(struct cp_verify *v, struct cp_vcase *c, const u8 *got,
		       unsigned int len, const char *who)
{
	char what[96];
	unsigned int at;

	if (len != c->len) {
		snprintf(what, sizeof(what), "%s is %u bytes, the text %u", who,
			 len, c->len);
		cp_case_fail(v, c, what);
		return;
	}
	at = cp_first_diff(got, v->want, len);
	if (at < len) {
		snprintf(what, sizeof(what),
			 "%s differs from the text from byte %u", who, at);
		cp_case_fail(v, c, what);
	}
}

/*
 * A compressor's answer to @c, @len bytes in v->got: decompressed, the
 * text; compressed, what the reference decompresses to the text (into a
 * space of the text's length). 0 (see res), or an error of the reference's.
 */
static int cp_rt_answer(struct cp_verify *v, struct cp_vcase *c,
			unsigned int len)
{
	unsigned int text;
	char what[80];
	int r, err;

	if (c->decrypt) {
		cp_rt_text(v, c, v->got, len, "its output");
		return 0;
	}
	r = cp_rt_ref_once(v, true, v->got, len, c->len, v->got, &text, &err);
	if (r)
		return r;
	if (err) {
		snprintf(what, sizeof(what),
			 "the reference cannot decompress its output (%d)", err);
		cp_case_fail(v, c, what);
		return 0;
	}
	cp_rt_text(v, c, v->got, text, "the reference's decompression of its output");
	return 0;
}

/*
 * The length of @run's answer to @c, copied from @out into v->got; -EIO
 * where it claims more than its space: then @c failed.
 */
static int cp_answer_within(struct cp_verify *v, struct cp_vcase *c,
			    struct cp_run *run, struct scatterlist *out)
{
	unsigned int len = run->ops->verify->answer_len(&run->slots[0]);
	char what[80];

	if (len > c->space) {
		snprintf(what, sizeof(what),
			 "claims %u bytes of output in a space of %u", len,
			 c->space);
		cp_case_fail(v, c, what);
		return -EIO;
	}
	sg_copy_to_buffer(out, sg_nents(out), v->got, len);
	return len;
}

/*
 * A compressor's request for @c on @run, its output in @out: the canary
 * after its space whole; an error only where the space was tight; an
 * output within the space, and the text's. 0 (see res), or an error of
 * the reference's.
 */
static int cp_rt_judge(struct cp_verify *v, struct cp_vcase *c,
		       struct cp_run *run, struct scatterlist *out)
{
	struct cp_slot *s = &run->slots[0];
	char what[80];
	int r;

	if (!cp_rt_canary_ok(s, c)) {
		snprintf(what, sizeof(what),
			 "wrote past its output space (%u bytes)", c->space);
		cp_case_fail(v, c, what);
		return 0;
	}
	if (s->err) {
		if (!c->tight) {
			snprintf(what, sizeof(what),
				 "failed with error %d, the reference succeeded",
				 s->err);
			cp_case_fail(v, c, what);
		}
		return 0;
	}
	r = cp_answer_within(v, c, run, out);
	return r < 0 ? 0 : cp_rt_answer(v, c, r);
}

/* @len bytes at *@p less their leading zeros: *@p past them, what is left. */
static unsigned int cp_int_strip(const u8 **p, unsigned int len)
{
	while (len && !**p) {
		(*p)++;
		len--;
	}
	return len;
}

/*
 * An akcipher's or a kpp's answer to @c on @run, in @out: no error,
 * within its space, and the reference's integer (v->want, c->ref_len
 * bytes) but for leading zero bytes; an error, any, where the reference
 * refused a flipped peer key. 0 (see res).
 */
static int cp_int_judge(struct cp_verify *v, struct cp_vcase *c,
			struct cp_run *run, struct scatterlist *out)
{
	struct cp_slot *s = &run->slots[0];
	const u8 *got = v->got, *want = v->want;
	unsigned int got_len, want_len;
	char what[64];
	int r;

	if (v->want_err) {	/* a flipped peer key the reference refused */
		if (!s->err) {
			snprintf(what, sizeof(what),
				 "accepted a peer key the reference refused (%d)",
				 v->want_err);
			cp_case_fail(v, c, what);
		}
		return 0;
	}
	if (cp_case_error(v, c, s->err))
		return 0;
	r = cp_answer_within(v, c, run, out);
	if (r < 0)
		return 0;
	got_len = cp_int_strip(&got, r);
	want_len = cp_int_strip(&want, c->ref_len);
	if (got_len != want_len || memcmp(got, want, got_len))
		cp_case_fail(v, c, "output differs from the reference's integer");
	return 0;
}

/*
 * @run's answer to @c in @out, judged against v->want, v->want_err and
 * v->iv_want: 0 (see res), or an error of the reference's.
 */
static int cp_case_judge(struct cp_verify *v, struct cp_vcase *c,
			 struct cp_run *run, struct scatterlist *out)
{
	unsigned int out_len = cp_case_out(v, c), from = cp_case_from(v, c);
	struct cp_slot *s = &run->slots[0];
	char what[80];
	unsigned int at;

	if (v->round_trip)
		return cp_rt_judge(v, c, run, out);
	if (v->integer)
		return cp_int_judge(v, c, run, out);
	if (v->geniv && !c->decrypt && !s->err) {
		sg_copy_to_buffer(out, sg_nents(out), v->got, out_len);
		return cp_case_round_trip(v, c);
	}
	if (cp_case_error(v, c, s->err))
		return 0;
	cp_answer_copy(v, s, out, v->got, out_len);
	at = from + cp_first_diff(v->got + from, v->want + from, out_len - from);
	if (at < out_len) {
		snprintf(what, sizeof(what),
			 "output differs from the reference's from byte %u", at);
		cp_case_fail(v, c, what);
	} else if (run->geo.shape.iv_out &&
		   memcmp(s->iv, v->iv_want, run->geo.ivsize)) {
		cp_case_fail(v, c, "output IV differs from the reference's");
	}
	return 0;
}

static bool cp_passing(const struct cp_verify *v)
{
	return v->res->verdict == CRYPTOPRIO_VERIFY_PASSED;
}

static const char *const cp_step_names[] = {
	[CP_STEP_DIGEST] = "digest",
	[CP_STEP_INIT] = "init",
	[CP_STEP_UPDATE] = "update",
	[CP_STEP_FINAL] = "final",
	[CP_STEP_FINUP] = "finup",
};

/*
 * @step of @c on *@run (&v->cand or &v->twin), over @len bytes of @src:
 * 0 (a failing step fails the case: see res), an error, or
 * CP_RUN_ABANDONED: it never answered, its run a zombie (*@run NULL).
 */
static int cp_step_go(struct cp_verify *v, struct cp_vcase *c,
		      struct cp_run **run, enum cp_hash_step step,
		      struct scatterlist *src, unsigned int len)
{
	struct cp_slot *s = &(*run)->slots[0];
	char what[96];
	int r;

	s->step = step;
	cp_run_point(*run, src, src, 0, len, false);
	r = cp_run_go(*run, true, 0, v->p->grace_ns, NULL);
	if (r == CP_RUN_ABANDONED)
		*run = NULL;
	if (r)
		return r;
	if (s->err) {
		snprintf(what, sizeof(what),
			 "%s failed with error %d, the reference's digest succeeded",
			 cp_step_names[step], s->err);
		cp_case_fail(v, c, what);
	}
	return 0;
}

/*
 * @len bytes of @c's data from byte @from, as a list over the source's
 * entries in @s->layout[1] (a hash writes no dst) into *@list: 0 or
 * -ENOMEM. An empty piece reads nothing of the source's list.
 */
static int cp_piece_build(struct cp_slot *s, const struct cp_vcase *c,
			  unsigned int from, unsigned int len,
			  struct scatterlist **list)
{
	struct sg_table *t = &s->layout[1];
	unsigned int n = 0, pos = 0, i;
	struct scatterlist *sg, *to;
	int r;

	*list = s->layout[0].sgl;
	if (!len)
		return 0;
	for_each_sg(s->layout[0].sgl, sg, c->src.nents, i) {
		n += pos < from + len && pos + sg->length > from;
		pos += sg->length;
	}
	sg_free_table(t);
	r = sg_alloc_table(t, n, GFP_KERNEL);
	if (r)
		return r;
	to = t->sgl;
	pos = 0;
	for_each_sg(s->layout[0].sgl, sg, c->src.nents, i) {
		unsigned int start = max(pos, from);
		unsigned int end = min(pos + sg->length, from + len);
		unsigned int off = sg->offset + start - pos;

		if (start < end) {
			sg_set_page(to, sg_page(sg) + off / PAGE_SIZE,
				    end - start, off % PAGE_SIZE);
			to = sg_next(to);
		}
		pos += sg->length;
	}
	*list = t->sgl;
	return 0;
}

/*
 * The state the candidate exported after @c's updates, imported into
 * another transform with the case's key, which finishes: as
 * cp_hash_steps_go().
 */
static int cp_hash_twin_go(struct cp_verify *v, struct cp_vcase *c,
			   struct cp_run **judged)
{
	const struct cp_verify_ops *ops = v->cand->ops->verify;
	struct cp_slot *t = &v->twin->slots[0];
	char what[80];
	const char *op;
	int r;

	r = ops->export(&v->cand->slots[0], v->state);
	if (r) {
		snprintf(what, sizeof(what), "export failed with error %d", r);
		cp_case_fail(v, c, what);
		return 0;
	}
	r = cp_case_key(v, v->twin, c, &op);
	if (r) {
		cp_case_key_failed(v, c, op, r);
		return 0;
	}
	r = ops->import(t, v->state);
	if (r) {
		snprintf(what, sizeof(what),
			 "import into another transform failed with error %d", r);
		cp_case_fail(v, c, what);
		return 0;
	}
	r = cp_step_go(v, c, &v->twin, CP_STEP_FINAL, t->src.sgt.sgl, 0);
	if (!r && cp_passing(v))
		*judged = v->twin;
	return r;
}

/*
 * @c's steps on the candidate (init, its pieces, final or finup, or its
 * twin's): 0 with *@judged the run whose slot holds the digest (NULL: a
 * step failed, see res), an error, or CP_RUN_ABANDONED.
 */
static int cp_hash_steps_go(struct cp_verify *v, struct cp_vcase *c,
			    struct cp_run **judged)
{
	unsigned int updates = c->pieces - (c->way == CP_WAY_FINUP);
	struct cp_slot *s = &v->cand->slots[0];
	struct scatterlist *list;
	unsigned int i, from = 0;
	int r;

	*judged = NULL;
	r = cp_step_go(v, c, &v->cand, CP_STEP_INIT, s->layout[0].sgl, 0);
	for (i = 0; !r && cp_passing(v) && i < c->pieces; i++) {
		r = cp_piece_build(s, c, from, c->cut[i] - from, &list);
		if (!r)
			r = cp_step_go(v, c, &v->cand,
				       i < updates ? CP_STEP_UPDATE : CP_STEP_FINUP,
				       list, c->cut[i] - from);
		from = c->cut[i];
	}
	if (r || !cp_passing(v))
		return r;
	if (c->way == CP_WAY_FINUP) {
		*judged = v->cand;
		return 0;
	}
	if (c->way == CP_WAY_EXPORT)
		return cp_hash_twin_go(v, c, judged);
	r = cp_step_go(v, c, &v->cand, CP_STEP_FINAL, s->layout[0].sgl, 0);
	if (!r && cp_passing(v))
		*judged = v->cand;
	return r;
}

/* The candidate's answer, judged: 0 (see res), an error, or CP_RUN_ABANDONED. */
static int cp_case_candidate(struct cp_verify *v, struct cp_vcase *c)
{
	struct cp_run *judged = v->cand;
	struct scatterlist *out;
	const char *op;
	int r;

	r = cp_case_key(v, v->cand, c, &op);
	if (r) {
		cp_case_key_failed(v, c, op, r);
		return 0;
	}
	r = cp_case_ready(v, v->cand, c, v->in, v->iv, &out);
	if (!r && c->way != CP_WAY_DIGEST) {
		r = cp_hash_steps_go(v, c, &judged);
	} else if (!r) {
		v->cand->slots[0].step = CP_STEP_DIGEST;
		r = cp_run_go(v->cand, true, 0, v->p->grace_ns, NULL);
		if (r == CP_RUN_ABANDONED)
			v->cand = NULL;
	}
	if (r == CP_RUN_ABANDONED)
		return cp_case_hung(v, c);
	if (r || !judged)
		return r;
	return cp_case_judge(v, c, judged, out);
}

/*
 * @t's case, drawn as case @index, its reference's answer and its key on
 * its transform, kept in @t: 0 (a key refused: see res), or an error of
 * the reference's.
 */
static int cp_together_prepare(struct cp_verify *v, struct cp_together *t,
			       u32 index, struct netlink_ext_ack *extack)
{
	struct cp_vcase *c = &t->c;
	unsigned int ivsize = v->cand->geo.ivsize;
	const char *op;
	int r;

	cp_case_draw(v, index, c);
	c->together = true;
	r = cp_case_reference(v, c);
	if (r) {
		NL_SET_ERR_MSG(extack, "the reference failed a case: nothing to compare with");
		return r;
	}
	r = cp_case_key(v, t->run, c, &op);
	if (r) {
		cp_case_key_failed(v, c, op, r);
		return 0;
	}
	memcpy(t->in, v->in, cp_case_in(v, c));
	memcpy(t->want, v->want, cp_case_out(v, c));
	t->want_err = v->want_err;
	memcpy(t->key, v->key, sizeof(t->key));
	memcpy(t->iv, v->iv, ivsize);
	memcpy(t->iv_want, v->iv_want, ivsize);
	return 0;
}

/*
 * @t's answer judged as a case of its own: what the reference said of it
 * back in @v (its key too, for a geniv's round trip), then as one case.
 */
static int cp_together_judge(struct cp_verify *v, struct cp_together *t)
{
	struct cp_vcase *c = &t->c;
	unsigned int ivsize = v->cand->geo.ivsize;
	const char *op;
	int r;

	memcpy(v->in, t->in, cp_case_in(v, c));
	memcpy(v->want, t->want, cp_case_out(v, c));
	v->want_err = t->want_err;
	memcpy(v->key, t->key, sizeof(v->key));
	memcpy(v->iv_want, t->iv_want, ivsize);
	if (v->geniv && !c->decrypt) {
		r = cp_case_key(v, v->ref, c, &op);
		if (r)
			return r;
	}
	return cp_case_judge(v, c, t->run, t->out);
}

/*
 * The round from case @first: CP_TOGETHER cases prepared one by one,
 * their requests all sent, then each waited for, then each judged. 0
 * (see res), an error, or CP_RUN_ABANDONED: a request hung, its run a
 * zombie (the others waited for, each its grace).
 */
static int cp_together_round(struct cp_verify *v, u32 first,
			     struct netlink_ext_ack *extack)
{
	struct cp_together *hung = NULL;
	unsigned int j;
	int r = 0;

	v->max_text = CP_TOGETHER_MAX_TEXT;
	for (j = 0; j < CP_TOGETHER && !r; j++) {
		v->res->cases = first + j + 1;
		r = cp_together_prepare(v, &v->tog[j], first + j, extack);
		if (v->res->verdict != CRYPTOPRIO_VERIFY_PASSED)
			break;
	}
	v->max_text = v->max_alone;
	if (r || v->res->verdict != CRYPTOPRIO_VERIFY_PASSED)
		return r;
	for (j = 0; j < CP_TOGETHER && !r; j++) {
		struct cp_together *t = &v->tog[j];

		r = cp_case_ready(v, t->run, &t->c, t->in, t->iv, &t->out);
	}
	if (r)
		return r;
	/* back to back, so that they meet in the engine */
	for (j = 0; j < CP_TOGETHER; j++)
		cp_run_start(v->tog[j].run, true, 0, v->p->grace_ns);
	for (j = 0; j < CP_TOGETHER; j++) {
		if (cp_run_finish(v->tog[j].run, NULL) != CP_RUN_ABANDONED)
			continue;
		v->tog[j].run = NULL;
		hung = hung ?: &v->tog[j];
	}
	if (hung)
		return cp_case_hung(v, &hung->c);
	for (j = 0; j < CP_TOGETHER && !r; j++) {
		r = cp_together_judge(v, &v->tog[j]);
		if (v->res->verdict != CRYPTOPRIO_VERIFY_PASSED)
			break;
	}
	return r;
}

/* Whether the reference takes a @k-byte key: if so, @k is a case's. */
static void cp_verify_key_try(struct cp_verify *v, unsigned int k)
{
	struct cp_run *ref = v->ref;

	if (v->nkeys < CP_VERIFY_MAX_KEYS && !cp_setkey(ref, v->key, k))
		v->keys[v->nkeys++] = k;
}

/*
 * The key sizes in the candidate's range that the reference accepts; a
 * keyed hash's among cp_hash_key_tried, an unkeyed one's none (0).
 */
static int cp_verify_keys(struct cp_verify *v, struct netlink_ext_ack *extack)
{
	unsigned int min, max, k;

	v->cand->ops->verify->key_range(&v->cand->tfm, &min, &max);
	/* setkey() reads that many bytes of v->key, but an akcipher's (its own keys) */
	if (!v->integer)
		max = min(max, CRYPTOPRIO_MAX_KEY_SIZE);
	if ((v->digest || v->round_trip) && !max) {
		v->keyless = true;
		v->keys[v->nkeys++] = 0;
		return 0;
	}
	get_random_bytes(v->key, sizeof(v->key));
	for (k = 0; v->digest && k < ARRAY_SIZE(cp_hash_key_tried); k++)
		if (cp_hash_key_tried[k] >= min && cp_hash_key_tried[k] <= max)
			cp_verify_key_try(v, cp_hash_key_tried[k]);
	for (k = min; !v->digest && k <= max; k++)
		cp_verify_key_try(v, k);
	if (!v->nkeys) {
		NL_SET_ERR_MSG(extack, "the reference takes none of the key sizes the driver advertises");
		return -EINVAL;
	}
	return 0;
}

/*
 * Whether the reference encrypts @len bytes of text after @assoclen of
 * AD, with its first key size and longest tag, into *@takes. 0, or
 * -ETIMEDOUT.
 */
static int cp_ref_takes(struct cp_verify *v, unsigned int assoclen,
			unsigned int len, bool *takes)
{
	struct cp_vcase c = {
		.key_size = v->keys[0],
		.auth_key = CP_HMAC_KEY_LEN,
		.assoclen = assoclen,
		.len = len,
		.tag = v->aead ? v->tags[v->ntags - 1] : 0,
	};
	const char *what;
	int r, err = 0;

	memset(v->iv, 0, sizeof(v->iv));
	if (v->ref->geo.shape.ccm)
		v->iv[0] = 3;	/* ccm's L' must be 1 to 7 */
	r = cp_case_key(v, v->ref, &c, &what);
	if (!r)
		r = cp_ref_once(v, &c, false, v->in, v->ivd + len, v->want, &err);
	if (r == -ETIMEDOUT)
		return r;
	*takes = !r && !err;
	return 0;
}

/* The tag lengths the reference takes, from 1 to its longest. */
static int cp_verify_tags(struct cp_verify *v, struct netlink_ext_ack *extack)
{
	const struct cp_verify_ops *ops = v->ref->ops->verify;
	unsigned int max = ops->max_tag(&v->ref->tfm), t;

	for (t = 1; t <= min(max, CP_VERIFY_MAX_TAG); t++)
		if (!ops->set_tag(&v->ref->tfm, t))
			v->tags[v->ntags++] = t;
	if (!v->ntags) {
		NL_SET_ERR_MSG(extack, "the reference takes no tag length");
		return -EINVAL;
	}
	return 0;
}

/* The AD lengths of cp_ad_tried the reference takes, and an empty text. */
static int cp_verify_ads(struct cp_verify *v, struct netlink_ext_ack *extack)
{
	unsigned int one = max(v->ref->geo.blocksize, 1U), i;
	bool takes;
	int r;

	for (i = 0; i < ARRAY_SIZE(cp_ad_tried); i++) {
		r = cp_ref_takes(v, cp_ad_tried[i], one, &takes);
		if (r)
			return r;
		if (takes)
			v->ads[v->nads++] = cp_ad_tried[i];
	}
	if (!v->nads) {
		NL_SET_ERR_MSG(extack, "the reference takes none of the associated data lengths tried");
		return -EINVAL;
	}
	v->any_ad = v->nads == ARRAY_SIZE(cp_ad_tried);
	return cp_ref_takes(v, v->ads[0], 0, &v->empty);
}

/* Whether the reference takes a block and one byte (ciphertext stealing). */
static int cp_verify_partial(struct cp_verify *v)
{
	unsigned int bs = v->ref->geo.blocksize;

	v->partial = true;
	if (bs <= 1)
		return 0;
	return cp_ref_takes(v, v->aead ? v->ads[0] : 0, bs + 1, &v->partial);
}

/* The reference, on a run of its own, and what it takes. */
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
	    rg.blocksize != v->cand->geo.blocksize ||
	    rg.digestsize != v->cand->geo.digestsize) {
		ops->free(&rt);
		NL_SET_ERR_MSG(extack, "IV, block or digest size differs from the reference's: faulty");
		return -EPROTO;
	}
	v->ref = cp_run_alloc_linear(&rt, &rg, CP_VERIFY_BUF_LEN);
	if (!v->ref) {
		ops->free(&rt);
		return -ENOMEM;
	}
	r = cp_verify_keys(v, extack);
	if (!r && v->aead)
		r = cp_verify_tags(v, extack);
	if (!r && v->aead)
		r = cp_verify_ads(v, extack);
	if (!r)
		r = cp_verify_partial(v);
	return r;
}

/* Another transform of the candidate's driver into *@run, its buffers @len bytes. */
static int cp_candidate_run(struct cp_verify *v, unsigned int len,
			    struct cp_run **run, struct netlink_ext_ack *extack)
{
	const struct cp_type_ops *ops = v->cand->ops;
	struct cp_tfm tfm = { .type = v->p->type };
	struct cp_geometry g = {};
	int r;

	r = cp_alloc_candidate(v->p->driver, v->p->type, &tfm, extack);
	if (r)
		return r;
	ops->geometry(&tfm, &g);
	*run = cp_run_alloc_linear(&tfm, &g, len);
	if (!*run) {
		ops->free(&tfm);
		return -ENOMEM;
	}
	return 0;
}

/* The transforms of the rounds together, each with its buffers. */
static int cp_together_alloc(struct cp_verify *v,
			     struct netlink_ext_ack *extack)
{
	unsigned int j;
	int r;

	if (!v->rounds)
		return 0;
	v->tog = kcalloc(CP_TOGETHER, sizeof(*v->tog), GFP_KERNEL);
	if (!v->tog)
		return -ENOMEM;
	for (j = 0; j < CP_TOGETHER; j++) {
		struct cp_together *t = &v->tog[j];

		t->in = kvzalloc(CP_TOGETHER_MAX_LEN, GFP_KERNEL);
		t->want = kvzalloc(CP_TOGETHER_MAX_LEN, GFP_KERNEL);
		if (!t->in || !t->want)
			return -ENOMEM;
		r = cp_candidate_run(v, CP_TOGETHER_BUF_LEN, &t->run, extack);
		if (r)
			return r;
	}
	return 0;
}

static void cp_together_free(struct cp_verify *v)
{
	unsigned int j;

	if (!v->tog)
		return;
	for (j = 0; j < CP_TOGETHER; j++) {
		/* a zombie's buffers are its own now */
		if (v->tog[j].run)
			cp_run_free(v->tog[j].run);
		kvfree(v->tog[j].in);
		kvfree(v->tog[j].want);
	}
	kfree_sensitive(v->tog);	/* their keys */
}

/*
 * A hash's twin: another transform of the candidate (on a page, its
 * digest its own), and a buffer for the state it imports.
 */
static int cp_twin_alloc(struct cp_verify *v, struct netlink_ext_ack *extack)
{
	const struct cp_verify_ops *ops = v->cand->ops->verify;

	v->state = kzalloc(ops->state_size(&v->cand->tfm), GFP_KERNEL);
	if (!v->state)
		return -ENOMEM;
	return cp_candidate_run(v, PAGE_SIZE, &v->twin, extack);
}

/* The bytes of the candidate's runs: its own, those together's, its twin's. */
static size_t cp_verify_bytes(const struct cp_verify *v)
{
	return 2 * (PAGE_SIZE << get_order(CP_VERIFY_BUF_LEN)) +
	       (v->digest ? 2 * PAGE_SIZE : 0) +
	       (v->rounds ? CP_TOGETHER * 2 *
			    (PAGE_SIZE << get_order(CP_TOGETHER_BUF_LEN)) : 0);
}

static int cp_verify_prepare(struct cp_verify *v, struct netlink_ext_ack *extack)
{
	const struct cp_type_ops *ops = cp_type_ops(v->p->type);
	struct cp_tfm t = { .type = v->p->type };
	struct cp_geometry g = {};
	int r;

	if (!ops || !ops->verify) {
		NL_SET_ERR_MSG(extack, "the module does not verify this type");
		return -EOPNOTSUPP;
	}
	r = cp_alloc_candidate(v->p->driver, v->p->type, &t, extack);
	if (r)
		return r;
	ops->geometry(&t, &g);
	r = ops->verify->supported ? ops->verify->supported(&g, extack) : 0;
	if (r) {
		ops->free(&t);
		return r;
	}
	if (g.ivsize > CP_MAX_IV_SIZE) {
		ops->free(&t);
		NL_SET_ERR_MSG(extack, "the algorithm's IV is larger than the module handles");
		return -EOPNOTSUPP;
	}
	v->rounds = min_t(u32, CP_TOGETHER_ROUNDS,
			  v->p->cases / (4 * CP_TOGETHER));
	v->digest = ops->verify->digest;
	r = cp_zombie_check(v->p->driver, cp_verify_bytes(v), extack);
	if (!r) {
		v->cand = cp_run_alloc_linear(&t, &g, CP_VERIFY_BUF_LEN);
		r = v->cand ? 0 : -ENOMEM;
	}
	if (r) {
		ops->free(&t);
		return r;
	}
	r = cp_together_alloc(v, extack);
	if (!r && v->digest)
		r = cp_twin_alloc(v, extack);
	if (r)
		return r;
	v->aead = ops->verify->set_tag;
	v->round_trip = ops->verify->round_trip;
	v->integer = ops->verify->integer;
	v->agree = ops->verify->out_len;
	v->max_alone = v->round_trip ? CP_RT_MAX_TEXT : CP_VERIFY_MAX_TEXT;
	v->max_text = v->max_alone;
	v->geniv = v->aead && g.shape.geniv;
	v->ivd = g.iv_in_data;
	v->in = kvzalloc(CP_VERIFY_MAX_LEN, GFP_KERNEL);
	v->want = kvzalloc(CP_VERIFY_MAX_LEN, GFP_KERNEL);
	v->got = kvzalloc(CP_VERIFY_MAX_LEN, GFP_KERNEL);
	if (!v->in || !v->want || !v->got)
		return -ENOMEM;
	return cp_verify_reference(v, extack);
}

/* Whether the cases may go on: 0, or why not. */
static int cp_verify_may_go_on(struct cp_verify *v,
			       struct netlink_ext_ack *extack)
{
	if (cp_command_caller_gone())
		return -EPIPE;
	if (ktime_after(ktime_get(), v->end)) {
		NL_SET_ERR_MSG(extack, "the cases took longer than 60 s");
		return -ETIME;
	}
	return 0;
}

/* Case @i alone: 0 (see res), an error, or CP_RUN_ABANDONED. */
static int cp_verify_alone(struct cp_verify *v, u32 i,
			   struct netlink_ext_ack *extack)
{
	struct cp_vcase c;
	int r;

	cp_case_draw(v, i, &c);
	if (v->digest)
		cp_case_steps(v, &c);
	v->res->cases = i + 1;
	r = cp_case_reference(v, &c);
	if (r) {
		NL_SET_ERR_MSG(extack, "the reference failed a case: nothing to compare with");
		return r;
	}
	return cp_case_candidate(v, &c);
}

/*
 * Case after case until one fails, the last ones in rounds together; 0,
 * an error, or CP_RUN_ABANDONED.
 */
static int cp_verify_cases(struct cp_verify *v, struct netlink_ext_ack *extack)
{
	u32 alone = v->p->cases - v->rounds * CP_TOGETHER, i;
	int r = 0;

	for (i = 0; i < v->p->cases && !r; i += i < alone ? 1 : CP_TOGETHER) {
		r = cp_verify_may_go_on(v, extack);
		if (!r && i < alone)
			r = cp_verify_alone(v, i, extack);
		else if (!r)
			r = cp_together_round(v, i, extack);
		if (v->res->verdict != CRYPTOPRIO_VERIFY_PASSED)
			break;
		cond_resched();
	}
	return r;
}

/*
 * The state of one verification is on the heap: its key, tags and IVs
 * are more than a 32-bit kernel's frame may hold (1024 bytes).
 */
int cp_verify(const struct cp_verify_params *p, struct cp_verify_result *res,
	      struct netlink_ext_ack *extack)
{
	struct cp_verify *v;
	int r;

	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v) {
		NL_SET_ERR_MSG(extack, "out of memory for the verification's buffers");
		return -ENOMEM;
	}
	v->p = p;
	v->res = res;
	res->verdict = CRYPTOPRIO_VERIFY_PASSED;
	v->end = ktime_add_ns(ktime_get(), CP_VERIFY_TIME_NS);
	r = cp_verify_prepare(v, extack);
	if (r == -ENOMEM)
		NL_SET_ERR_MSG(extack, "out of memory for the verification's buffers");
	if (!r)
		r = cp_verify_cases(v, extack);
	if (v->ref)
		cp_run_free(v->ref);
	/* a zombie's buffers are its own now */
	if (v->cand)
		cp_run_free(v->cand);
	if (v->twin)
		cp_run_free(v->twin);
	kfree_sensitive(v->state);
	cp_together_free(v);
	kvfree(v->in);
	kvfree(v->want);
	kvfree(v->got);
	kfree_sensitive(v);
	return r;
}
