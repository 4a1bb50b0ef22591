/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's registered crypto implementations: the data model. Loaded
 * by inventory-load.h (crypto_user, or proc-crypto.h), classified by
 * class.h.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CP_NAME_MAX 64 /* CRYPTO_MAX_NAME: names of 64 bytes or more cannot be addressed */

/* cru_flags bits (the kernel's internal CRYPTO_ALG_* values). */
#define CP_ALG_ASYNC		0x00000080u
#define CP_ALG_TESTED		0x00000400u
#define CP_ALG_KERN_DRIVER_ONLY 0x00001000u
#define CP_ALG_INTERNAL		0x00002000u
#define CP_ALG_ALLOCATES_MEMORY 0x00010000u

enum cp_source {
	CP_SOURCE_CRYPTO_USER,
	CP_SOURCE_PROC_CRYPTO,
	CP_SOURCE_FILE, /* /proc/crypto's text from a file (cryptoprioctl --inventory) */
};

enum cp_class {
	CP_CLASS_CPU,
	CP_CLASS_OFFLOAD,
};

/* Why an implementation got its class: shown by `list` and documented in cryptoprioctl(8). */
enum cp_class_reason {
	CP_CLASS_REASON_DEFAULT,	  /* nothing says offload */
	CP_CLASS_REASON_KERN_DRIVER_ONLY, /* flag set by the driver */
	CP_CLASS_REASON_MODULE_PATH,	  /* module lives under drivers/crypto/ */
	CP_CLASS_REASON_KNOWN_ENGINE,	  /* driver name of a known engine */
	CP_CLASS_REASON_TEMPLATE,	  /* a template instance built on an offload engine */
	CP_CLASS_REASON_POLICY,		  /* Class= in the policy */
};

struct cp_alg {
	char name[CP_NAME_MAX];	  /* cra_name, e.g. "cbc(aes)" */
	char driver[CP_NAME_MAX]; /* cra_driver_name, unique */
	char module[CP_NAME_MAX]; /* "kernel" for built-in */
	char type[CP_NAME_MAX];	  /* "skcipher", "aead", "shash", "ahash", "cipher", ... */
	uint32_t priority;
	uint32_t refcnt;
	uint32_t flags; /* CP_ALG_*; from /proc/crypto only TESTED, INTERNAL, ASYNC */
	enum cp_class class;
	enum cp_class_reason class_reason;
};

struct cp_inventory {
	enum cp_source source;
	int crypto_user_error; /* why crypto_user was not used (negative errno), or 0 */
	struct cp_alg *algs;
	size_t n_algs;
	size_t allocated;
	/*
	 * The kernel's gcm template computes GHASH with its library (crypto/gcm.c
	 * since the kernel dropped "ghash" from the hash API, in 7.x): no
	 * implementation of "ghash" registers or can be loaded, and an instance
	 * is named gcm_base(CTR,ghash-lib). Known of the running kernel only.
	 */
	bool ghash_library;
};

void cp_inventory_free(struct cp_inventory *inv);

/* Append a copy of @alg; returns 0 or -ENOMEM. */
int cp_inventory_add(struct cp_inventory *inv, const struct cp_alg *alg);

/* Sort by algorithm name, then priority (highest first), then driver. */
void cp_inventory_sort(struct cp_inventory *inv);

const struct cp_alg *cp_inventory_find_driver(const struct cp_inventory *inv, const char *driver);

/*
 * The implementation a new user of @alg->name gets right now: the highest
 * priority among those of the same name that are tested and not internal
 * (ties: the kernel keeps the one registered first; we cannot see that
 * order, so the first in the inventory). NULL if none.
 */
const struct cp_alg *cp_inventory_winner(const struct cp_inventory *inv, const char *name);

/* Whether this implementation competes for its name: tested, not internal, not a larval. */
bool cp_alg_competes(const struct cp_alg *alg);

/* Whether it is a compressor: acomp, or scomp (which the kernel serves as an acomp). */
bool cp_alg_compresses(const struct cp_alg *alg);

const char *cp_source_to_string(enum cp_source source);
const char *cp_class_to_string(enum cp_class class);
const char *cp_class_reason_to_string(enum cp_class_reason reason);

/* Flag names in a fixed order, for tables and JSON: "async", "tested", ... */
struct cp_flag_name {
	uint32_t bit;
	const char *name;
};
extern const struct cp_flag_name cp_flag_names[];
extern const size_t cp_flag_names_count;
