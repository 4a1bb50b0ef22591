/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The transform types, one row each (types.h). A new type of the module
 * (driver/types.c says what it touches there) is a row here: its name,
 * the inventory's type strings, and what its requests take.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "types.h"

/* driver/akcipher.c's key and kpp.c's peer keys */
static const struct cp_fixed_request akcipher_fixed[] = {
    {"rsa", 256}, /* one message of the 2048-bit modulus */
    {},
};
static const struct cp_fixed_request kpp_fixed[] = {
    {"ecdh-nist-p256", 64}, /* the peer's x || y */
    {"dh", 256},	    /* one ffdhe2048 modulus */
    {},
};

static const struct cp_type_info types[] = {
    [CRYPTOPRIO_TYPE_SKCIPHER] = {.name = "skcipher",
				  .alg_types = {"skcipher"},
				  .afalg = CP_AFALG_SKCIPHER,
				  .verified = true},
    [CRYPTOPRIO_TYPE_AEAD] = {.name = "aead",
			      .alg_types = {"aead"},
			      .afalg = CP_AFALG_AEAD,
			      .verified = true},
    [CRYPTOPRIO_TYPE_HASH] = {.name = "hash",
			      .alg_types = {"shash", "ahash"},
			      .one_way = true,
			      .afalg = CP_AFALG_HASH,
			      .verified = true},
    /* the kernel wraps every synchronous compressor as an acomp */
    [CRYPTOPRIO_TYPE_ACOMP] = {.name = "acomp",
			       .alg_types = {"acomp", "scomp"},
			       .compresses = true,
			       .verified = true},
    [CRYPTOPRIO_TYPE_AKCIPHER] =
	{.name = "akcipher",
	 .alg_types = {"akcipher"},
	 .fixed = akcipher_fixed,
	 .unmeasured = "of the akciphers only rsa's public-key operation is measured",
	 .verified = true},
    [CRYPTOPRIO_TYPE_KPP] = {.name = "kpp",
			     .alg_types = {"kpp"},
			     .fixed = kpp_fixed,
			     .unmeasured = "of the key agreements only ecdh-nist-p256's and dh's "
					   "shared secret is measured",
			     .verified = true},
};

/* Every type of the module's uapi has its row. */
_Static_assert(ARRAY_SIZE(types) == __CRYPTOPRIO_TYPE_MAX, "a row per type");

const struct cp_type_info *cp_type_info(enum cryptoprio_type type)
{
	if (type == CRYPTOPRIO_TYPE_UNSPEC || (unsigned) type >= ARRAY_SIZE(types))
		return NULL;
	return &types[type];
}

/* @word appended to @buf, after @sep unless it is the first: the length now. */
static size_t append(char *buf, size_t size, size_t len, const char *sep, const char *word)
{
	int n = snprintf(buf + len, len < size ? size - len : 0, "%s%s", len ? sep : "", word);

	return len + (n > 0 ? (size_t) n : 0);
}

const char *cp_type_names(char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (size_t t = CRYPTOPRIO_TYPE_UNSPEC + 1; t < ARRAY_SIZE(types); t++)
		len = append(buf, size, len, ", ", types[t].name);
	return buf;
}

const char *cp_type_calibrated_names(char *buf, size_t size)
{
	const char *names[16];
	size_t n = 0, len = 0;

	for (size_t t = CRYPTOPRIO_TYPE_UNSPEC + 1; t < ARRAY_SIZE(types); t++) {
		const struct cp_fixed_request *f = types[t].fixed;

		if (!f && n < ARRAY_SIZE(names))
			names[n++] = types[t].name;
		for (; f && f->name && n < ARRAY_SIZE(names); f++)
			names[n++] = f->name;
	}
	buf[0] = 0;
	for (size_t i = 0; i < n; i++)
		len = append(buf, size, len, i == n - 1 ? " and " : ", ", names[i]);
	return buf;
}

uint32_t cp_mod_request_size(enum cryptoprio_type type, const char *name)
{
	const struct cp_type_info *info = cp_type_info(type);

	for (const struct cp_fixed_request *f = info ? info->fixed : NULL; name && f && f->name;
	     f++)
		if (streq(f->name, name))
			return f->size;
	return 0;
}

const char *cp_mod_unmeasured(enum cryptoprio_type type, const char *name)
{
	const struct cp_type_info *info = cp_type_info(type);

	if (info && info->fixed && !cp_mod_request_size(type, name))
		return info->unmeasured;
	return NULL;
}

const char *cp_mod_type_to_string(enum cryptoprio_type type)
{
	const struct cp_type_info *info = cp_type_info(type);

	return info ? info->name : NULL;
}

enum cryptoprio_type cp_mod_type_from_alg_type(const char *alg_type)
{
	for (size_t t = CRYPTOPRIO_TYPE_UNSPEC + 1; t < ARRAY_SIZE(types); t++)
		for (size_t i = 0; i < ARRAY_SIZE(types[t].alg_types) && types[t].alg_types[i]; i++)
			if (streq(alg_type, types[t].alg_types[i]))
				return (enum cryptoprio_type) t;
	return CRYPTOPRIO_TYPE_UNSPEC;
}

int cp_mod_type_from_string(const char *s, enum cryptoprio_type *ret)
{
	for (size_t t = CRYPTOPRIO_TYPE_UNSPEC + 1; t < ARRAY_SIZE(types); t++)
		if (streq(s, types[t].name)) {
			*ret = (enum cryptoprio_type) t;
			return 0;
		}
	return -EINVAL;
}
