/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cp_caam_engine: what its shapes (aead, hash, skcipher) share: the
 * priority and flags of NXP CAAM's job ring, and the CPU pieces every
 * request is computed from (a sha256 shash for HMAC by hand, a linear
 * walk over scatterlists). The engine core is cp_engine_core.c, through
 * cp_test_engine.h.
 */
#ifndef CP_CAAM_ENGINE_H
#define CP_CAAM_ENGINE_H

#include <crypto/hash.h>
#include <crypto/sha2.h>

#include "cp_test_engine.h"

/* caamalg's job ring: priority and flags of its composites */
#define CPC_PRIORITY	3000
#define CPC_FLAGS	(CRYPTO_ALG_ASYNC | CRYPTO_ALG_KERN_DRIVER_ONLY | \
			 CRYPTO_ALG_ALLOCATES_MEMORY)
/* an engine that preallocates its requests' memory (dm-crypt takes it) */
#define CPC_FLAGS_PREALLOC	(CRYPTO_ALG_ASYNC | CRYPTO_ALG_KERN_DRIVER_ONLY)

/* bytes copied out of a scatterlist at once, on the stack */
#define CPC_CHUNK	256

/* HMAC-SHA256 by hand over the CPU's "sha256" shash, as RFC 2104 says */
struct cpc_hmac {
	struct crypto_shash *sha;
	u8 ipad[SHA256_BLOCK_SIZE];
	u8 opad[SHA256_BLOCK_SIZE];
};

/* cp_caam_engine_hash.c */
int cpc_hmac_init(struct cpc_hmac *h);
void cpc_hmac_exit(struct cpc_hmac *h);
int cpc_hmac_setkey(struct cpc_hmac *h, const u8 *key, unsigned int len);
int cpc_hash_sg(struct shash_desc *desc, struct scatterlist *sg,
		unsigned int off, unsigned int len);
int cpc_hmac_sg(struct cpc_hmac *h, struct scatterlist *sg, unsigned int len,
		u8 *out);
int cpc_hash_register(void);
void cpc_hash_unregister(void);

/* cp_caam_engine_aead.c */
int cpc_aead_register(void);
void cpc_aead_unregister(void);

/* cp_caam_engine_skcipher.c */
int cpc_skcipher_register(void);
void cpc_skcipher_unregister(void);

#endif /* CP_CAAM_ENGINE_H */
