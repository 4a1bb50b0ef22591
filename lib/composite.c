/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU's candidate for a composite name an engine serves (composite.h). */
#include <errno.h>
#include <string.h>

#include "composite.h"
#include "macro.h"

/* authenc takes two parts, rfc7539 two, essiv two; none takes more. */
#define MAX_PARTS 4
/* A name shorter than CP_NAME_MAX cannot nest deeper; this bounds a malformed one. */
#define MAX_DEPTH 16

struct split {
	char template[CP_NAME_MAX];
	char parts[MAX_PARTS][CP_NAME_MAX];
	size_t n_parts;
};

const struct cp_alg *cp_cpu_winner(const struct cp_inventory *inv, const char *name)
{
	const struct cp_alg *best = NULL;

	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *alg = &inv->algs[i];

		if (alg->class != CP_CLASS_CPU || strcmp(alg->name, name) != 0 ||
		    !cp_alg_competes(alg))
			continue;
		if (!best || alg->priority > best->priority)
			best = alg;
	}
	return best;
}

static int add_part(struct split *s, const char *start, const char *end)
{
	if (end == start || s->n_parts == MAX_PARTS)
		return -EINVAL;
	snprintf(s->parts[s->n_parts++], CP_NAME_MAX, "%.*s", (int) (end - start), start);
	return 0;
}

/* "authenc(hmac(sha256),cbc(aes))" → "authenc", {"hmac(sha256)", "cbc(aes)"}; -ENOENT: no template.
 */
static int split_name(const char *name, struct split *s)
{
	const char *open = strchr(name, '('), *end, *part;
	int depth = 0, r;

	if (!open)
		return -ENOENT;
	end = name + strlen(name) - 1;
	if (open == name || *end != ')')
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	snprintf(s->template, sizeof(s->template), "%.*s", (int) (open - name), name);
	part = open + 1;
	for (const char *p = part; p < end; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && --depth < 0)
			return -EINVAL;
		else if (*p == ',' && depth == 0) {
			r = add_part(s, part, p);
			if (r < 0)
				return r;
			part = p + 1;
		}
	}
	if (depth != 0)
		return -EINVAL;
	return add_part(s, part, end);
}

/* The template and parts the kernel instantiates for a name, where they differ from it. */
static int kernel_parts(struct split *s)
{
	char cipher[CP_NAME_MAX];
	bool gcm = strcmp(s->template, "gcm") == 0, ccm = strcmp(s->template, "ccm") == 0;
	bool ecb = strcmp(s->template, "xts") == 0 || strcmp(s->template, "lrw") == 0;

	if (!gcm && !ccm && !ecb)
		return 0;
	if (s->n_parts != 1)
		return -EINVAL;
	cp_strscpy(cipher, sizeof(cipher), s->parts[0]);
	if (ecb) {
		if (!strchr(cipher, '('))
			snprintf(s->parts[0], CP_NAME_MAX, "ecb(%.*s)", CP_NAME_MAX - 6, cipher);
		return 0;
	}
	cp_strscpy(s->template, CP_NAME_MAX, gcm ? "gcm_base" : "ccm_base");
	snprintf(s->parts[0], CP_NAME_MAX, "ctr(%.*s)", CP_NAME_MAX - 6, cipher);
	if (gcm)
		snprintf(s->parts[1], CP_NAME_MAX, "ghash");
	else
		snprintf(s->parts[1], CP_NAME_MAX, "cbcmac(%.*s)", CP_NAME_MAX - 9, cipher);
	s->n_parts = 2;
	return 0;
}

/* Append @s at *len; the result must stay shorter than CP_NAME_MAX. */
static int append(char out[static CP_NAME_MAX], size_t *len, const char *s)
{
	size_t n = strlen(s);

	if (*len + n >= CP_NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(out + *len, s, n + 1);
	*len += n;
	return 0;
}

static int spell_instance(const struct cp_inventory *inv, const char *name,
			  char out[static CP_NAME_MAX], unsigned depth);

static int spell_part(const struct cp_inventory *inv, const char *name,
		      char out[static CP_NAME_MAX], unsigned depth)
{
	const struct cp_alg *winner = cp_cpu_winner(inv, name);

	if (winner) {
		cp_strscpy(out, CP_NAME_MAX, winner->driver);
		return 0;
	}
	/* crypto/gcm.c names the library's GHASH so: gcm_base(CTR,ghash-lib). */
	if (inv->ghash_library && streq(name, "ghash")) {
		cp_strscpy(out, CP_NAME_MAX, "ghash-lib");
		return 0;
	}
	return spell_instance(inv, name, out, depth + 1);
}

static int spell_instance(const struct cp_inventory *inv, const char *name,
			  char out[static CP_NAME_MAX], unsigned depth)
{
	char part[CP_NAME_MAX];
	struct split s;
	size_t len = 0;
	int r;

	if (depth > MAX_DEPTH)
		return -EINVAL;
	r = split_name(name, &s);
	if (r == -ENOENT) /* a part that is no template, not registered on the CPU */
		cp_strscpy(out, CP_NAME_MAX, name);
	if (r >= 0)
		r = kernel_parts(&s);
	if (r < 0)
		return r;
	out[0] = '\0';
	r = append(out, &len, s.template);
	for (size_t i = 0; r >= 0 && i < s.n_parts; i++) {
		r = append(out, &len, i == 0 ? "(" : ",");
		if (r >= 0)
			r = spell_part(inv, s.parts[i], part, depth);
		if (r == -ENOENT) {
			cp_strscpy(out, CP_NAME_MAX, part); /* the part the CPU lacks */
			return r;
		}
		if (r >= 0)
			r = append(out, &len, part);
	}
	return r < 0 ? r : append(out, &len, ")");
}

int cp_composite_candidate(const struct cp_inventory *inv, const char *name,
			   char driver[static CP_NAME_MAX])
{
	int r;

	if (cp_cpu_winner(inv, name))
		return -EEXIST;
	r = spell_instance(inv, name, driver, 0);
	/* Registered but not competing yet (its self-test still running): nothing to create. */
	if (r == 0 && cp_inventory_find_driver(inv, driver))
		return -EEXIST;
	return r;
}
