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
 * "ccm(aes)" "ccm_base(ctr(aes-generic),cbcmac(aes-generic))", and xts
 * and lrw take ecb, so "xts(aes)" becomes "xts(ecb(aes-generic))": the
 * driver name the instance registers with, which is what a lookup must
 * ask for.
 * Where the kernel registers no ghash (7.2), the gcm template is asked to
 * build gcm(aes-lib) and its instance's name is taken.
 *
 * A template's name has a native reference instead where the kernel
 * registers an implementation of it that no template built, usable as a
 * leaf's must be, at no more than the priority of the leaves' references
 * below it: a library at the same level (7.2's "hmac-sha256-lib", at
 * sha256-lib's 300), not an architecture's driver (7.2's synchronous
 * "cbc-aes-aesni", 400 over aes-lib's 100). Building the template's twin
 * instead would register it at that same priority, and the kernel then
 * retires every instance built on the native one (crypto_alg_finish_
 * registration takes a new implementation of a name to replace those at
 * or below its priority): the kernel's own authenc over hmac-sha256-lib
 * would be gone after a calibration.
 *
 * Only registered leaves are used: a leaf that is not registered means no
 * reference, and no module is asked for one. A template's module may still
 * be loaded: a reference over a template is an instance the kernel builds
 * (CRYPTO_NOLOAD spares a module for the name looked up only), and the
 * build loads the template ("crypto-cbc") if it is not registered yet,
 * which a calibration may do (cryptoprioctl says what it loaded). No
 * driver name is written in this module.
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

/*
 * The lowest-priority usable implementation registered under @name (@n
 * bytes) whose type matches @type in the bits of @type_mask; with @native,
 * one no template built, at @max_prio at most. Its driver name into @out,
 * its priority into *@prio.
 */
static int cp_lowest_typed(const char *name, size_t n, u32 type, u32 type_mask,
			   bool native, unsigned int max_prio, char *out,
			   size_t len, unsigned int *prio)
{
	u32 exclude = CP_REF_EXCLUDE | (native ? CRYPTO_ALG_INSTANCE : 0);
	struct crypto_alg *alg, *best = NULL;
	int r = -ENOENT;

	down_read(&crypto_alg_sem);
	list_for_each_entry(alg, &crypto_alg_list, cra_list) {
		if (strlen(alg->cra_name) != n || memcmp(alg->cra_name, name, n))
			continue;
		if (alg->cra_flags & exclude)
			continue;
		if ((alg->cra_flags ^ type) & type_mask)
			continue;
		if (!(alg->cra_flags & CRYPTO_ALG_TESTED))
			continue;
		if (native && alg->cra_priority > max_prio)
			continue;
		/* the list has the newest first: <= keeps the oldest on ties */
		if (!best || alg->cra_priority <= best->cra_priority)
			best = alg;
	}
	/* @out untouched unless the name fits */
	if (best && strlen(best->cra_driver_name) < len) {
		strscpy(out, best->cra_driver_name, len);
		*prio = best->cra_priority;
		r = 0;
	}
	up_read(&crypto_alg_sem);
	return r;
}

/* Any type: a cipher or hash name is registered for one family of types. */
static int cp_lowest(const char *name, size_t n, bool native, unsigned int max_prio,
		     char *out, size_t len, unsigned int *prio)
{
	return cp_lowest_typed(name, n, 0, 0, native, max_prio, out, len, prio);
}

static int cp_leaf_reference(const char *leaf, char *out, size_t len, unsigned int *prio)
{
	return cp_lowest(leaf, strlen(leaf), false, 0, out, len, prio);
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
		      size_t *pos, int depth, unsigned int *prio);

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
			   size_t len, size_t *pos, int depth, unsigned int *prio)
{
	char ref[CRYPTO_MAX_ALG_NAME], ghash[CRYPTO_MAX_ALG_NAME];
	unsigned int ghash_prio = 0;
	size_t ref_len = 0;
	int r;

	r = cp_rewrite(x, n, ref, sizeof(ref), &ref_len, depth + 1, prio);
	if (r)
		return r;
	if (gcm && cp_leaf_reference("ghash", ghash, sizeof(ghash), &ghash_prio)) {
		/* a ghash of a driver only (clmulni): not the library's case */
		if (cp_any_registered("ghash"))
			return -ENOENT;
		r = cp_gcm_registered(ref, ghash, sizeof(ghash));
		return r ? r : cp_append_str(out, len, pos, ghash);
	}
	*prio = max(*prio, ghash_prio);
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

/*
 * xts(X) and lrw(X) of a block cipher X, as their instances register: the
 * template takes ecb(X) and names its instance after ecb(X)'s driver, so
 * "xts(aes)" is "xts(ecb(aes-generic))", and a lookup of
 * "xts(aes-generic)" finds nothing. @x is X, one argument, not ecb(...).
 */
static noinline int cp_rewrite_ecb(const char *tmpl, const char *x, size_t n,
				   char *out, size_t len, size_t *pos,
				   int depth, unsigned int *prio)
{
	char ecb[CRYPTO_MAX_ALG_NAME];
	int k, r;

	k = snprintf(ecb, sizeof(ecb), "ecb(%.*s)", (int)n, x);
	if ((size_t)k >= sizeof(ecb))
		return -ENAMETOOLONG;
	r = cp_append_str(out, len, pos, tmpl);
	if (!r)
		r = cp_append(out, len, pos, "(", 1);
	if (!r)
		r = cp_rewrite(ecb, k, out, len, pos, depth + 1, prio);
	return r ? r : cp_append(out, len, pos, ")", 1);
}

/* Whether name[0..n) is xts(X) or lrw(X), X one argument and not ecb(...). */
static bool cp_takes_ecb(const char *name, size_t n, size_t start)
{
	const char *x = name + start;
	size_t xn = n - 1 - start;

	if (!cp_word(name, start - 1, "xts") && !cp_word(name, start - 1, "lrw"))
		return false;
	return !memchr(x, ',', xn) && !(xn > 4 && !memcmp(x, "ecb(", 4));
}

/* Rewrite the arguments name[start..n-1) of a template, then its ")". */
static int cp_rewrite_args(const char *name, size_t n, size_t start,
			   char *out, size_t len, size_t *pos, int depth,
			   unsigned int *prio)
{
	unsigned int arg_prio;
	size_t i, level = 0;
	int r;

	*prio = 0;
	for (i = start; i < n - 1; i++) {
		if (name[i] == '(') {
			level++;
		} else if (name[i] == ')') {
			if (!level)
				return -EINVAL;
			level--;
		} else if (name[i] == ',' && !level) {
			r = cp_rewrite(name + start, i - start, out, len, pos,
				       depth + 1, &arg_prio);
			if (!r)
				r = cp_append(out, len, pos, ",", 1);
			if (r)
				return r;
			*prio = max(*prio, arg_prio);
			start = i + 1;
		}
	}
	if (level)
		return -EINVAL;
	r = cp_rewrite(name + start, n - 1 - start, out, len, pos, depth + 1,
		       &arg_prio);
	if (r)
		return r;
	*prio = max(*prio, arg_prio);
	return cp_append(out, len, pos, ")", 1);
}

static noinline int cp_rewrite_leaf(const char *name, size_t n, char *out,
				    size_t len, size_t *pos, unsigned int *prio)
{
	char leaf[CRYPTO_MAX_ALG_NAME], ref[CRYPTO_MAX_ALG_NAME];
	int r;

	if (n >= sizeof(leaf))
		return -EINVAL;
	memcpy(leaf, name, n);
	leaf[n] = '\0';
	r = cp_leaf_reference(leaf, ref, sizeof(ref), prio);
	if (r)
		return r;
	return cp_append_str(out, len, pos, ref);
}

/*
 * Rewrite name[0..n) into @out at *@pos; @depth bounds the recursion. *@prio:
 * the highest priority of the leaves' references used (or of the native
 * reference taken).
 */
static int cp_rewrite(const char *name, size_t n, char *out, size_t len,
		      size_t *pos, int depth, unsigned int *prio)
{
	const char *open = memchr(name, '(', n);
	char tmpl[CRYPTO_MAX_ALG_NAME];
	size_t start, tmpl_pos = 0;
	int r;

	if (depth > 8 || n == 0)
		return -EINVAL;
	if (!open)
		return cp_rewrite_leaf(name, n, out, len, pos, prio);
	if (name[n - 1] != ')')
		return -EINVAL;
	start = open - name + 1;
	tmpl[0] = '\0';
	if ((cp_word(name, start - 1, "gcm") || cp_word(name, start - 1, "ccm")) &&
	    !memchr(name + start, ',', n - 1 - start)) {
		r = cp_rewrite_base(name[0] == 'g', name + start, n - 1 - start,
				    tmpl, sizeof(tmpl), &tmpl_pos, depth, prio);
	} else if (cp_takes_ecb(name, n, start)) {
		r = cp_rewrite_ecb(name[0] == 'x' ? "xts" : "lrw", name + start,
				   n - 1 - start, tmpl, sizeof(tmpl), &tmpl_pos,
				   depth, prio);
	} else {
		r = cp_append(tmpl, sizeof(tmpl), &tmpl_pos, name, start);
		if (!r)
			r = cp_rewrite_args(name, n, start, tmpl, sizeof(tmpl),
					    &tmpl_pos, depth, prio);
	}
	if (r)
		return r;
	if (!cp_lowest(name, n, true, *prio, tmpl, sizeof(tmpl), prio))
		pr_debug("%.*s: native reference %s\n", (int)n, name, tmpl);
	return cp_append_str(out, len, pos, tmpl);
}

/* The reference driver (or template over references) for algorithm @name. */
int cp_reference_driver(const char *name, char *out, size_t len)
{
	unsigned int prio;
	size_t pos = 0;

	out[0] = '\0';
	return cp_rewrite(name, strlen(name), out, len, &pos, 0, &prio);
}

/*
 * The reference of a compressor: the same rule, among implementations an
 * acomp transform can use (acomp and scomp). A compression name is a leaf,
 * and it needs the type: 6.1's deflate registers "deflate-generic" as the
 * old compression type beside "deflate-scomp", both at priority 0.
 */
int cp_reference_acomp(const char *name, char *out, size_t len)
{
	return cp_reference_typed(name, CRYPTO_ALG_TYPE_ACOMPRESS,
				  CRYPTO_ALG_TYPE_ACOMPRESS_MASK, out, len);
}

/*
 * The same rule for a leaf of one type only: a compressor (above), rsa,
 * whose CPU implementation is rsa-generic.
 */
int cp_reference_typed(const char *name, u32 type, u32 type_mask, char *out,
		       size_t len)
{
	unsigned int prio;

	out[0] = '\0';
	if (strchr(name, '('))
		return -ENOENT;
	return cp_lowest_typed(name, strlen(name), type, type_mask, false, 0,
			       out, len, &prio);
}
