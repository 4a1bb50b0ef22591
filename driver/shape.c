// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: key and request layout from an algorithm name.
 *
 * skcipher key sizes come from the API (min/max keysize). AEADs and keyed
 * hashes expose none, so the name decides, with one table of leaf ciphers
 * and one rule per template:
 *
 *   echainiv(X), seqiv(X)          X, the IV carried in the data (geniv)
 *   rfc4106(X), rfc4543(X),
 *   rfc7539esp(X), rfc3686(X)      X plus a 4-byte nonce after the key
 *   rfc4309(X)                     X plus a 3-byte nonce
 *   authenc(A,E), authencesn(A,E)  E's key, A's key (hmac: 32 bytes)
 *   ccm(X), ccm_base(X,...)        X's key, iv[0] = L' (3)
 *   xts(X)                         two keys of X
 *   hmac(X)                        32 bytes
 *   anything else T(X,...)         X's key (cbc, ctr, gcm, cmac, essiv...)
 *   a leaf                         the table below, 0 if not a cipher
 *
 * The outermost cbc, ctr, cfb, ofb and pcbc leave a defined IV in the
 * request (the next one of the chain), which the known-answer check
 * compares too.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#else
#include <errno.h>
#include <string.h>
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#endif

#include "shape.h"

#define CP_SHAPE_MAX_DEPTH 8

static const struct {
	const char *name;
	unsigned int key;
} cp_leaf_keys[] = {
	{ "aes", 16 },	    { "aria", 16 },	  { "blowfish", 16 },
	{ "camellia", 16 }, { "cast5", 16 },	  { "cast6", 16 },
	{ "chacha20", 32 }, { "des", 8 },	  { "des3_ede", 24 },
	{ "ghash", 16 },    { "polyval", 16 },	  { "serpent", 16 },
	{ "sm4", 16 },	    { "twofish", 16 },	  { "xchacha12", 32 },
	{ "xchacha20", 32 },
};

static bool cp_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && !memcmp(s, word, n);
}

static unsigned int cp_leaf_key(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cp_leaf_keys); i++)
		if (cp_is(name, n, cp_leaf_keys[i].name))
			return cp_leaf_keys[i].key;
	return 0;
}

static int cp_shape_parse(const char *name, size_t n, struct cp_shape *s,
			  int depth);

/* The first argument of "T(...)" is name[start..end), the second after it. */
static int cp_split(const char *name, size_t n, size_t start, size_t *end)
{
	size_t i, level = 0;

	for (i = start; i < n - 1; i++) {
		if (name[i] == '(')
			level++;
		else if (name[i] == ')' && !level--)
			return -EINVAL;
		else if (name[i] == ',' && !level)
			break;
	}
	*end = i;
	return i > start ? 0 : -EINVAL;
}

static int cp_shape_template(const char *t, size_t tn, const char *arg0,
			     size_t n0, const char *arg1, size_t n1,
			     struct cp_shape *s, int depth)
{
	struct cp_shape auth = {};
	int r;

	if (cp_is(t, tn, "hmac")) {
		s->key = CP_HMAC_KEY_LEN;
		return 0;
	}
	if (cp_is(t, tn, "authenc") || cp_is(t, tn, "authencesn")) {
		if (!arg1)
			return -EINVAL;
		r = cp_shape_parse(arg0, n0, &auth, depth + 1);
		if (r)
			return r;
		s->authenc = true;
		s->auth_key = auth.key;
		return cp_shape_parse(arg1, n1, s, depth + 1);
	}
	r = cp_shape_parse(arg0, n0, s, depth + 1);
	if (r)
		return r;
	if (!depth)
		s->iv_out = cp_is(t, tn, "cbc") || cp_is(t, tn, "ctr") ||
			    cp_is(t, tn, "cfb") || cp_is(t, tn, "ofb") ||
			    cp_is(t, tn, "pcbc");
	if (cp_is(t, tn, "echainiv") || cp_is(t, tn, "seqiv"))
		s->geniv = true;
	else if (cp_is(t, tn, "rfc4106") || cp_is(t, tn, "rfc4543") ||
		 cp_is(t, tn, "rfc7539esp") || cp_is(t, tn, "rfc3686"))
		s->nonce = 4;
	else if (cp_is(t, tn, "rfc4309"))
		s->nonce = 3;
	else if (cp_is(t, tn, "ccm") || cp_is(t, tn, "ccm_base"))
		s->ccm = true;
	else if (cp_is(t, tn, "xts"))
		s->key *= 2;
	return 0;
}

static int cp_shape_parse(const char *name, size_t n, struct cp_shape *s,
			  int depth)
{
	const char *open = memchr(name, '(', n);
	size_t start, end0, end1;
	int r;

	if (depth > CP_SHAPE_MAX_DEPTH || n == 0)
		return -EINVAL;
	if (!open) {
		s->key = cp_leaf_key(name, n);
		return 0;
	}
	if (name[n - 1] != ')')
		return -EINVAL;
	start = open - name + 1;
	r = cp_split(name, n, start, &end0);
	if (r)
		return r;
	if (end0 == n - 1)
		return cp_shape_template(name, open - name, name + start,
					 end0 - start, NULL, 0, s, depth);
	r = cp_split(name, n, end0 + 1, &end1);
	if (r)
		return r;
	return cp_shape_template(name, open - name, name + start, end0 - start,
				 name + end0 + 1, end1 - end0 - 1, s, depth);
}

int cp_shape_of(const char *name, struct cp_shape *s)
{
	memset(s, 0, sizeof(*s));
	return cp_shape_parse(name, strlen(name), s, 0);
}
