// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: the name of the known-answer reference.
 *
 * Rule: the reference for an algorithm name is the same name with every
 * leaf algorithm (the innermost names: "aes" in "cbc(aes)", "sha256" in
 * "hmac(sha256)") replaced by the driver name of that leaf's reference: the
 * lowest-priority registered implementation of the leaf that is tested, not
 * internal, not asynchronous and not kernel-driver-only (ties: the first
 * registered). That is the portable C implementation ("aes-generic",
 * "sha256-generic", or "*-lib" where newer kernels register the library):
 * drivers and architecture code register above it. Templates ("cbc",
 * "gcm", "hmac"...) are the kernel's generic code, so "cbc(aes)" becomes
 * "cbc(aes-generic)". gcm and ccm register under their base templates, so
 * "gcm(aes)" becomes "gcm_base(ctr(aes-generic),ghash-generic)" and
 * "ccm(aes)" "ccm_base(ctr(aes-generic),cbcmac(aes-generic))": the driver
 * name the instance registers with, which is what a lookup must ask for.
 * Where the kernel registers no ghash (7.2), the gcm template is asked to
 * build gcm(aes-lib) and its instance's name is taken.
 *
 * Only registered leaves are used: nothing is loaded for a reference, and
 * a leaf that is not registered means no reference. No driver name is
 * written in this module.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/aead.h>
#include <linux/crypto.h>
#include <linux/err.h>
#include <linux/list.h>
#include <linux/rwsem.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cryptoprio.h"

#define CP_REF_EXCLUDE (CRYPTO_ALG_ASYNC | CRYPTO_ALG_KERN_DRIVER_ONLY | \
			CRYPTO_ALG_INTERNAL | CP_ALG_UNUSABLE)

static int cp_leaf_reference(const char *leaf, char *out, size_t len)
{
	struct crypto_alg *alg, *best = NULL;
	int r = -ENOENT;

	down_read(&crypto_alg_sem);
	list_for_each_entry(alg, &crypto_alg_list, cra_list) {
		if (strcmp(alg->cra_name, leaf))
			continue;
		if (alg->cra_flags & CP_REF_EXCLUDE)
			continue;
		if (!(alg->cra_flags & CRYPTO_ALG_TESTED))
			continue;
		/* the list has the newest first: <= keeps the oldest on ties */
		if (!best || alg->cra_priority <= best->cra_priority)
			best = alg;
	}
	if (best && strscpy(out, best->cra_driver_name, len) > 0)
		r = 0;
	up_read(&crypto_alg_sem);
	return r;
}

/* Whether any implementation of @name is registered, usable or not. */
static bool cp_any_registered(const char *name)
{
	struct crypto_alg *alg;
	bool found = false;

	down_read(&crypto_alg_sem);
	list_for_each_entry(alg, &crypto_alg_list, cra_list)
		if (!strcmp(alg->cra_name, name))
			found = true;
	up_read(&crypto_alg_sem);
	return found;
}

/* Append the string @s of @n bytes to @out (of @len, holding *@pos bytes). */
static int cp_append(char *out, size_t len, size_t *pos, const char *s,
		     size_t n)
{
	if (*pos + n >= len)
		return -ENAMETOOLONG;
	memcpy(out + *pos, s, n);
	*pos += n;
	out[*pos] = '\0';
	return 0;
}

static int cp_append_str(char *out, size_t len, size_t *pos, const char *s)
{
	return cp_append(out, len, pos, s, strlen(s));
}

static int cp_rewrite(const char *name, size_t n, char *out, size_t len,
		      size_t *pos, int depth);

/*
 * Where no ghash is registered at all (7.2's gcm computes GHASH with the
 * library and names its instances "gcm_base(ctr(X),ghash-lib)"), let the template
 * build gcm(@ref) and find the instance it registered over ctr(@ref):
 * its driver name is the reference's. trace.c unregisters it afterwards.
 */
static int cp_gcm_registered(const char *ref, char *out, size_t len)
{
	char name[CRYPTO_MAX_ALG_NAME], prefix[CRYPTO_MAX_ALG_NAME];
	struct crypto_alg *alg;
	struct crypto_aead *tfm;
	int r = -ENOENT;

	if (snprintf(name, sizeof(name), "gcm(%s)", ref) >= sizeof(name) ||
	    snprintf(prefix, sizeof(prefix), "gcm_base(ctr(%s),", ref) >= sizeof(prefix))
		return -ENAMETOOLONG;
	tfm = crypto_alloc_aead(name, 0, CRYPTO_ALG_ASYNC |
				CRYPTO_ALG_KERN_DRIVER_ONLY | CRYPTO_NOLOAD);
	if (!IS_ERR(tfm))
		crypto_free_aead(tfm);
	down_read(&crypto_alg_sem);
	list_for_each_entry(alg, &crypto_alg_list, cra_list) {
		if (!(alg->cra_flags & CRYPTO_ALG_INSTANCE) ||
		    (alg->cra_flags & CP_ALG_UNUSABLE) ||
		    strncmp(alg->cra_driver_name, prefix, strlen(prefix)))
			continue;
		r = strscpy(out, alg->cra_driver_name, len) > 0 ? 0 : -ENAMETOOLONG;
		break;
	}
	up_read(&crypto_alg_sem);
	return r;
}

/*
 * gcm(X) and ccm(X) as the driver names their instances register:
 * gcm_base(ctr(X'),G') with G' the reference of ghash, ccm_base(ctr(X'),
 * cbcmac(X')). @x is X, one argument.
 */
static int cp_rewrite_base(bool gcm, const char *x, size_t n, char *out,
			   size_t len, size_t *pos, int depth)
{
	char ref[CRYPTO_MAX_ALG_NAME], ghash[CRYPTO_MAX_ALG_NAME];
	size_t ref_len = 0;
	int r;

	r = cp_rewrite(x, n, ref, sizeof(ref), &ref_len, depth + 1);
	if (r)
		return r;
	if (gcm && cp_leaf_reference("ghash", ghash, sizeof(ghash))) {
		/* a ghash of a driver only (clmulni): not the library's case */
		if (cp_any_registered("ghash"))
			return -ENOENT;
		r = cp_gcm_registered(ref, ghash, sizeof(ghash));
		return r ? r : cp_append_str(out, len, pos, ghash);
	}
	r = cp_append_str(out, len, pos, gcm ? "gcm_base(ctr(" : "ccm_base(ctr(");
	if (!r)
		r = cp_append_str(out, len, pos, ref);
	if (!r)
		r = cp_append_str(out, len, pos, gcm ? ")," : "),cbcmac(");
	if (!r)
		r = cp_append_str(out, len, pos, gcm ? ghash : ref);
	if (!r)
		r = cp_append_str(out, len, pos, gcm ? ")" : "))");
	return r;
}

static bool cp_word(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && !memcmp(s, word, n);
}

/* Rewrite the arguments name[start..n-1) of a template, then its ")". */
static int cp_rewrite_args(const char *name, size_t n, size_t start,
			   char *out, size_t len, size_t *pos, int depth)
{
	size_t i, level = 0;
	int r;

	for (i = start; i < n - 1; i++) {
		if (name[i] == '(') {
			level++;
		} else if (name[i] == ')') {
			if (!level)
				return -EINVAL;
			level--;
		} else if (name[i] == ',' && !level) {
			r = cp_rewrite(name + start, i - start, out, len, pos,
				       depth + 1);
			if (!r)
				r = cp_append(out, len, pos, ",", 1);
			if (r)
				return r;
			start = i + 1;
		}
	}
	if (level)
		return -EINVAL;
	r = cp_rewrite(name + start, n - 1 - start, out, len, pos, depth + 1);
	if (r)
		return r;
	return cp_append(out, len, pos, ")", 1);
}

/* Rewrite name[0..n) into @out at *@pos; @depth bounds the recursion. */
static int cp_rewrite(const char *name, size_t n, char *out, size_t len,
		      size_t *pos, int depth)
{
	const char *open = memchr(name, '(', n);
	char leaf[CRYPTO_MAX_ALG_NAME], ref[CRYPTO_MAX_ALG_NAME];
	size_t start;
	int r;

	if (depth > 8 || n == 0)
		return -EINVAL;
	if (!open) {
		if (n >= sizeof(leaf))
			return -EINVAL;
		memcpy(leaf, name, n);
		leaf[n] = '\0';
		r = cp_leaf_reference(leaf, ref, sizeof(ref));
		if (r)
			return r;
		return cp_append_str(out, len, pos, ref);
	}
	if (name[n - 1] != ')')
		return -EINVAL;
	start = open - name + 1;
	if ((cp_word(name, start - 1, "gcm") || cp_word(name, start - 1, "ccm")) &&
	    !memchr(name + start, ',', n - 1 - start))
		return cp_rewrite_base(name[0] == 'g', name + start,
				       n - 1 - start, out, len, pos, depth);
	r = cp_append(out, len, pos, name, start);
	if (r)
		return r;
	return cp_rewrite_args(name, n, start, out, len, pos, depth);
}

/* The reference driver (or template over references) for algorithm @name. */
int cp_reference_driver(const char *name, char *out, size_t len)
{
	size_t pos = 0;

	out[0] = '\0';
	return cp_rewrite(name, strlen(name), out, len, &pos, 0);
}
