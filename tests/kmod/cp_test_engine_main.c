// SPDX-License-Identifier: GPL-2.0-only
/*
 * cp_test_engine: a test-only "offload engine" for cryptoprio's VM tests.
 *
 * Registers asynchronous, CRYPTO_ALG_KERN_DRIVER_ONLY implementations at
 * priority 100, the shapes a real engine (CAAM) registers natively:
 *
 *   skcipher cbc(aes)                       cp_test_engine_cbc_aes
 *   ahash    sha256                         cp_test_engine_sha256
 *   ahash    hmac(sha256)                   cp_test_engine_hmac_sha256
 *   aead     gcm(aes)                       cp_test_engine_gcm_aes
 *   aead     rfc4106(gcm(aes))              cp_test_engine_rfc4106_gcm_aes
 *   aead     ccm(aes)                       cp_test_engine_ccm_aes
 *   aead     authenc(hmac(sha256),cbc(aes))
 *                              cp_test_engine_authenc_hmac_sha256_cbc_aes
 *   aead     echainiv(authenc(hmac(sha256),cbc(aes)))
 *                     cp_test_engine_echainiv_authenc_hmac_sha256_cbc_aes
 *   acomp    deflate                        cp_test_engine_deflate
 *   akcipher rsa                            cp_test_engine_rsa (priority 50)
 *   kpp      ecdh-nist-p256                 cp_test_engine_ecdh (priority 50,
 *                                           with ecdh=1 only)
 *
 * Each request is computed by a synchronous software fallback of the same
 * name (so each needs one: CRYPTO_ALG_NEED_FALLBACK), through the engine
 * core (cp_engine_core.c), which says what the parameters mode,
 * completion, queue_len, backlog, hang_after, latency_us and burn_us do.
 * Two more, of this module only:
 *
 * offload_to (load time only; default none)
 *   a cbc(aes) driver (virtio_crypto_aes_cbc) that computes cbc(aes)
 *   requests instead of the CPU fallback when the engine's worker runs
 *   them (completion async), waited for asleep: with a device whose work
 *   is done outside the machine's CPUs, the engine costs the CPU what a
 *   DMA engine does. Sync and inline completions still use the fallback.
 *
 * ecdh (load time only; default N)
 *   Y: register cp_test_engine_ecdh too, computed by ecdh-nist-p256-generic,
 *   which must be registered first (modprobe ecdh_generic): the kernel
 *   cannot load it by that name (cp_test_engine_kpp.c)
 *
 * geometry (load time only; default honest)
 *   small: once their self-tests have passed (which they could not with
 *   these sizes), gcm(aes) claims an 8-byte IV and at most an 8-byte tag
 *   (the kernel's: 12 and 16) and sha256 a 16-byte digest (32): a driver
 *   that lies about its sizes, for cryptoprio.ko's known-answer check
 *   (cp_test_engine_aead.c, cp_test_engine_hash.c)
 *
 * A fallback of the same name is no use where the test needs the engine's
 * composites to be the only implementations of their names (allocating an
 * authenc(...) fallback instantiates the kernel's generic one):
 * cp_caam_engine.ko is that engine.
 *
 * Never installed: built only for the VM tests.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "cp_test_engine.h"

static char *geometry = "honest";
module_param(geometry, charp, 0444);
MODULE_PARM_DESC(geometry, "honest, or small: gcm(aes) and sha256 claim smaller sizes than their algorithms' after their self-tests");

/* read by cp_test_engine_aead.c and cp_test_engine_hash.c */
bool cpt_geometry_small;

static int __init cpt_init(void)
{
	int r;

	if (strcmp(geometry, "honest") && strcmp(geometry, "small")) {
		pr_err("geometry=%s: honest or small\n", geometry);
		return -EINVAL;
	}
	cpt_geometry_small = !strcmp(geometry, "small");
	r = cpt_kpp_check();
	if (r)
		return r;
	r = cpt_core_init();
	if (r)
		return r;
	r = cpt_skcipher_register();
	if (r)
		goto exit_core;
	r = cpt_hash_register();
	if (r)
		goto unregister_skcipher;
	r = cpt_aead_register();
	if (r)
		goto unregister_hash;
	r = cpt_acomp_register();
	if (r)
		goto unregister_aead;
	r = cpt_akcipher_register();
	if (r)
		goto unregister_acomp;
	r = cpt_kpp_register();
	if (r)
		goto unregister_akcipher;
	return 0;

unregister_akcipher:
	cpt_akcipher_unregister();
unregister_acomp:
	cpt_acomp_unregister();
unregister_aead:
	cpt_aead_unregister();
unregister_hash:
	cpt_hash_unregister();
unregister_skcipher:
	cpt_skcipher_unregister();
exit_core:
	cpt_core_exit();
	return r;
}

static void __exit cpt_exit(void)
{
	cpt_kpp_unregister();
	cpt_akcipher_unregister();
	cpt_acomp_unregister();
	cpt_aead_unregister();
	cpt_hash_unregister();
	cpt_skcipher_unregister();
	cpt_core_exit();
}

module_init(cpt_init);
module_exit(cpt_exit);

MODULE_DESCRIPTION("cryptoprio test-only engine: slow, wrong, hanging, failing, queued or inline on demand");
MODULE_LICENSE("GPL");
