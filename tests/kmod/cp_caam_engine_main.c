// SPDX-License-Identifier: GPL-2.0-only
/*
 * cp_caam_engine: a test-only engine shaped as NXP CAAM's job ring
 * (caamalg, caamhash) for cryptoprio's VM tests. It registers, at CAAM's
 * priority 3000, asynchronous, CRYPTO_ALG_KERN_DRIVER_ONLY implementations
 * of the composite names CAAM serves natively:
 *
 *   aead     authenc(hmac(sha256),cbc(aes))
 *                                  authenc-hmac-sha256-cbc-aes-cp-caam
 *   aead     echainiv(authenc(hmac(sha256),cbc(aes)))
 *                         echainiv-authenc-hmac-sha256-cbc-aes-cp-caam
 *   aead     rfc4106(gcm(aes))     rfc4106-gcm-aes-cp-caam
 *   aead     gcm(aes)              gcm-aes-cp-caam
 *   ahash    hmac(sha256)          hmac-sha256-cp-caam
 *   skcipher xts(aes)              xts-aes-cp-caam
 *
 * all with CRYPTO_ALG_ALLOCATES_MEMORY but xts(aes) (an engine that
 * preallocates registers it so, and dm-crypt takes only such drivers).
 *
 * Unlike cp_test_engine, whose every request is computed by a fallback of
 * the same name, each request here is computed in the engine's worker from
 * CPU implementations of other names only ("cbc(aes)", "ctr(aes)" and
 * "ecb(aes)" sync skciphers, the "sha256" shash; HMAC, GCM, XTS and
 * echainiv's IVs by hand): nothing here instantiates one of the kernel's
 * templates under one of this engine's names, so while the engine is
 * loaded its composites are the only implementations of their names, as
 * on a machine with CAAM, until something (cryptoprio) creates the CPU's.
 *
 * The engine core (cp_engine_core.c) queues and completes the requests:
 * the parameters mode (ok, slow, wrong, hang, etimedout, eintr, the
 * shapes', crosstalk), completion (async, sync, inline), queue_len,
 * backlog, hang_after, latency_us and burn_us are cp_test_engine's, here
 * under /sys/module/cp_caam_engine/parameters; modes wrong and crosstalk
 * flip the same bytes (skcipher: the last; hash, wrong only: the first
 * digest byte; aead encrypt: the last ciphertext byte, decrypt: the last
 * plaintext byte once authenticated).
 *
 * Uses crypto_authenc_extractkeys(): load authenc.ko first (modprobe
 * resolves it; insmod does not).
 *
 * Never installed: built only for the VM tests.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "cp_caam_engine.h"

static int __init cpc_init(void)
{
	int r;

	r = cpt_core_init();
	if (r)
		return r;
	r = cpc_skcipher_register();
	if (r)
		goto exit_core;
	r = cpc_hash_register();
	if (r)
		goto unregister_skcipher;
	r = cpc_aead_register();
	if (r)
		goto unregister_hash;
	return 0;

unregister_hash:
	cpc_hash_unregister();
unregister_skcipher:
	cpc_skcipher_unregister();
exit_core:
	cpt_core_exit();
	return r;
}

static void __exit cpc_exit(void)
{
	cpc_aead_unregister();
	cpc_hash_unregister();
	cpc_skcipher_unregister();
	cpt_core_exit();
}

module_init(cpc_init);
module_exit(cpc_exit);

MODULE_DESCRIPTION("cryptoprio test-only engine shaped as CAAM: native composites, no CPU instance of their names");
MODULE_LICENSE("GPL");
