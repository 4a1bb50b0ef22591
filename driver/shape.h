/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cryptoprio: what an algorithm's name says about its key and its requests.
 * Pure string work on cra_name, built into the module and into the unit
 * tests (tests/unit/test-shape.c), so each row of the table is tested.
 */
#ifndef CRYPTOPRIO_SHAPE_H
#define CRYPTOPRIO_SHAPE_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#endif

/* The authentication key given to hmac(), alone or inside authenc(). */
#define CP_HMAC_KEY_LEN 32
/* The longest authenc() takes here: past sha512's block, hashed first. */
#define CP_MAX_AUTH_KEY_LEN 160

struct cp_shape {
	unsigned int key;	/* cipher (or keyed hash) key bytes, 0: none */
	unsigned int nonce;	/* salt bytes setkey() takes after the key */
	unsigned int auth_key;	/* authenc: authentication key bytes */
	bool authenc;		/* key in the kernel's authenc format */
	bool geniv;		/* echainiv/seqiv: the IV travels in the data */
	bool ccm;		/* ccm: iv[0] must hold L' in 1..7 */
	bool iv_out;		/* skcipher mode whose output IV is defined */
};

/* Fill @s from the algorithm name @name; -EINVAL if it does not parse. */
int cp_shape_of(const char *name, struct cp_shape *s);

#endif /* CRYPTOPRIO_SHAPE_H */
