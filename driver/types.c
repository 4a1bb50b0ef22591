// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: the transform types the module calibrates, one row each.
 *
 * A new type (say "sig") touches:
 *  - driver/sig.c: its struct cp_type_ops (types.h), known-answer check
 *    included (struct cp_kat_ops: its own hooks, or kat.c's helpers for
 *    answers that must equal the reference's; kat.c's own check, shared
 *    by skcipher, aead and hash, tells those three apart by type);
 *  - driver/types.h: its extern line; here, its row below;
 *  - driver/Kbuild and driver/meson.build: the new file's name;
 *  - driver/cryptoprio.h: a member of struct cp_tfm's union, and any
 *    field of struct cp_geometry its hooks need;
 *  - driver/uapi/cryptoprio.h: CRYPTOPRIO_TYPE_SIG in enum cryptoprio_type;
 *  - driver/core.c, which still names types one by one: the TYPE
 *    attribute's range and its messages, the DECRYPT and KEY_SIZE
 *    attributes each type refuses, COMPRESSED_SIZE in acomp's reply;
 *  - userspace, which names each type too: lib/cpmod.c (the type's name
 *    and /proc/crypto's, the request sizes of fixed-key algorithms),
 *    lib/afalg.c where AF_ALG serves it, cryptoprioctl's --type, the
 *    bash completion, cryptoprio(4) and the JSON schema.
 */
#include "types.h"

static const struct cp_type_ops *const cp_types[] = {
	[CRYPTOPRIO_TYPE_SKCIPHER] = &cp_skcipher_ops,
	[CRYPTOPRIO_TYPE_AEAD] = &cp_aead_ops,
	[CRYPTOPRIO_TYPE_HASH] = &cp_hash_ops,
	[CRYPTOPRIO_TYPE_ACOMP] = &cp_acomp_ops,
	[CRYPTOPRIO_TYPE_AKCIPHER] = &cp_akcipher_ops,
	[CRYPTOPRIO_TYPE_KPP] = &cp_kpp_ops,
};

/* Every type of the uapi has its row. */
static_assert(ARRAY_SIZE(cp_types) == __CRYPTOPRIO_TYPE_MAX);

const struct cp_type_ops *cp_type_ops(enum cryptoprio_type type)
{
	if (type >= ARRAY_SIZE(cp_types))
		return NULL;
	return cp_types[type];
}
