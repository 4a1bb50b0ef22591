/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The transform types cryptoprio calibrates, one row each (types.c): what
 * the companion module calls each (enum cryptoprio_type), what the
 * inventory calls its implementations, what a request of it can be asked
 * and whether AF_ALG serves it. cpmod, afalg, the calibration and
 * cryptoprioctl ask the row; the cp_mod_type_*() functions are its words
 * as the module's client speaks them (cpmod.h includes this header).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cryptoprio.h>

/* Which of AF_ALG's interfaces serves a type (afalg.c, through libkcapi). */
enum cp_afalg_iface {
	CP_AFALG_NONE, /* AF_ALG does not serve it: the module alone measures it */
	CP_AFALG_SKCIPHER,
	CP_AFALG_AEAD,
	CP_AFALG_HASH,
};

/* An algorithm whose request the module fixes: its key's size, say. */
struct cp_fixed_request {
	const char *name;
	uint32_t size; /* bytes */
};

struct cp_type_info {
	const char *name; /* --type's word, the JSON's "type" */
	/* the inventory's type of its implementations (/proc/crypto's, crypto_user's) */
	const char *alg_types[3];
	/* no inverse: --decrypt is left out of its requests (a hash) */
	bool one_way;
	/* a compressor: its figures have a compressed size and a ratio */
	bool compresses;
	/*
	 * The only algorithms of the type the module measures, each at one
	 * request size, up to a row without a name; NULL: any algorithm, at
	 * the workload's size.
	 */
	const struct cp_fixed_request *fixed;
	const char *unmeasured; /* with @fixed: why no other algorithm is measured */
	enum cp_afalg_iface afalg;
	/* calibrations verify its engines (calibrate.h), held until they pass */
	bool verified;
};

/* @type's row; NULL for CRYPTOPRIO_TYPE_UNSPEC and out of range. */
const struct cp_type_info *cp_type_info(enum cryptoprio_type type);
/* The types' names joined by ", " into @buf ("skcipher, aead, ..."): @buf. */
const char *cp_type_names(char *buf, size_t size);
/*
 * What the module calibrates, its names joined by ", " and " and " into
 * @buf: each type's name, or where the type fixes its algorithms, theirs
 * ("skcipher, ..., acomp, rsa, ... and dh"): @buf.
 */
const char *cp_type_calibrated_names(char *buf, size_t size);

/*
 * The request size the module measures algorithm @name of @type at where
 * the algorithm fixes it (rsa: one message of the module's 2048-bit
 * modulus, 256 bytes; ecdh-nist-p256: one peer public key, x || y, 64
 * bytes; dh: one peer public key of ffdhe2048, 256 bytes); 0 where the
 * workload's size is taken, or where the module measures no such kpp.
 */
uint32_t cp_mod_request_size(enum cryptoprio_type type, const char *name);
/*
 * Why the module measures no algorithm @name of @type (an akcipher other
 * than rsa, a kpp other than ecdh-nist-p256 and dh); NULL where it may.
 */
const char *cp_mod_unmeasured(enum cryptoprio_type type, const char *name);

/* "skcipher", "aead", "hash", "acomp", "akcipher", "kpp"; NULL for UNSPEC. */
const char *cp_mod_type_to_string(enum cryptoprio_type type);
/*
 * From an inventory type ("skcipher", "aead", "shash", "ahash", "acomp",
 * "scomp", "akcipher", "kpp"); UNSPEC otherwise.
 */
enum cryptoprio_type cp_mod_type_from_alg_type(const char *alg_type);
/*
 * "skcipher", "aead", "hash", "acomp", "akcipher", "kpp"
 * (cp_mod_type_to_string()'s words); -EINVAL for others.
 */
int cp_mod_type_from_string(const char *s, enum cryptoprio_type *ret);
