/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which kernel users ask the crypto API for an algorithm by name, with
 * which mask, on which kernels; and which call the library instead. Each
 * row says where in the kernel's sources it was checked; versions are
 * mainline's (a stable update may carry a change to older series, as
 * said where known).
 */
#include <errno.h>
#include <stdio.h>
#include <sys/utsname.h>

#include <cryptoprio.h>

#include "clients.h"
#include "macro.h"

#define ASYNC	    CRYPTOPRIO_ALG_ASYNC
#define ALLOCATES   CRYPTOPRIO_ALG_ALLOCATES_MEMORY
#define DRIVER_ONLY CRYPTOPRIO_ALG_KERN_DRIVER_ONLY

static const struct cp_client clients[] = {
    /*
     * net/ipv4/esp4.c, net/ipv6/esp6.c, esp_init_aead() and
     * esp_init_authenc(): crypto_alloc_aead(name, 0, 0).
     */
    {"IPsec", "echainiv(authenc(...)), seqiv(rfc4106(gcm(aes))) (esp4, esp6)", 0, 0, 0},
    /*
     * net/tls/tls_sw.c, tls_set_sw_offload(): crypto_alloc_aead(name, 0,
     * 0) for each socket and direction (6.1: cipher_name; since 6.6 the
     * cipher description's).
     */
    {"kTLS", "gcm(aes), ccm(aes), rfc7539(chacha20,poly1305) (tls)", 0, 0, 0},
    /*
     * drivers/net/macsec.c, macsec_alloc_tfm(): crypto_alloc_aead("gcm(aes)",
     * 0, 0) per SA. CRYPTO_ALG_ASYNC was masked from "net: macsec: preserve
     * ingress frame ordering" (August 2020) to its revert (6.6, September 2023),
     * which every stable series then maintained took (4.19.y included): a
     * kernel of those series older than that update asks synchronously,
     * which its version does not tell.
     */
    {"MACsec", "gcm(aes) (macsec)", 0, 0, 0},
    /*
     * drivers/md/dm-crypt.c, crypt_alloc_tfms_skcipher(): crypto_alloc_skcipher(
     * ciphermode, 0, CRYPTO_ALG_ALLOCATES_MEMORY) since 5.9, the same
     * mask for its AEADs.
     */
    {"dm-crypt", "xts(aes), cbc(aes)... (dm_crypt)", ALLOCATES, 0, 0},
    /* mm/zswap.c, zswap_cpu_comp_prepare(): crypto_alloc_acomp_node(name, 0, 0, node). */
    {"zswap", "its compressor: lzo, deflate, zstd... (acomp)", 0, 0, 0},
    /*
     * fs/crypto/keysetup.c, fscrypt_allocate_skcipher(): crypto_alloc_skcipher(
     * cipher_str, 0, 0) until "fscrypt: don't use hardware offload Crypto
     * API drivers" (6.17) set FSCRYPT_CRYPTOAPI_MASK, CRYPTO_ALG_ASYNC |
     * CRYPTO_ALG_ALLOCATES_MEMORY | CRYPTO_ALG_KERN_DRIVER_ONLY.
     */
    {"fscrypt", "xts(aes), cts(cbc(aes)), adiantum(...) (ext4, f2fs, ubifs...)", 0, 0,
     CP_KERNEL(6, 17)},
    {"fscrypt", "xts(aes), cts(cbc(aes)), adiantum(...) (ext4, f2fs, ubifs...)",
     ASYNC | ALLOCATES | DRIVER_ONLY, CP_KERNEL(6, 17), 0},
    /*
     * crypto/krb5/krb5_api.c (6.15: rxrpc's rxgk, AFS, Ceph),
     * krb5_prepare_encryption(): crypto_alloc_aead(encrypt_name, 0, 0)
     * until "crypto: krb5 - filter out async aead implementations at
     * alloc" (7.2, May 2026, for stable too) masked CRYPTO_ALG_ASYNC.
     */
    {"krb5", "krb5enc(...), authenc(...) of its enctypes (crypto/krb5)", 0, CP_KERNEL(6, 15),
     CP_KERNEL(7, 2)},
    {"krb5", "krb5enc(...), authenc(...) of its enctypes (crypto/krb5)", ASYNC, CP_KERNEL(7, 2), 0},
    /*
     * crypto/af_alg.c, alg_bind(): the type and mask user space gives
     * (CRYPTO_ALG_INTERNAL forbidden; 0 by libkcapi, cryptsetup, OpenSSL's
     * afalg) until 7.2, whose algif_*.c bind with AF_ALG_CRYPTOAPI_MASK,
     * CRYPTO_ALG_ASYNC | CRYPTO_ALG_ALLOCATES_MEMORY |
     * CRYPTO_ALG_KERN_DRIVER_ONLY, whatever the caller asks (seen in the
     * VMs: binding virtio_crypto_aes_cbc fails with ENOENT on 7.2).
     */
    {"AF_ALG", "any name user space binds (af_alg)", 0, 0, CP_KERNEL(7, 2)},
    {"AF_ALG", "any name user space binds (af_alg)", ASYNC | ALLOCATES | DRIVER_ONLY,
     CP_KERNEL(7, 2), 0},
};

static const struct cp_unsteered unsteered[] = {
    /* lib/crypto/: sha256(), aes_encrypt()... are plain functions, no lookup */
    {"callers of the crypto library (lib/crypto)", "sha256(), aes_encrypt()... directly", 0},
    /*
     * drivers/net/wireguard/noise.c, send.c, receive.c: chacha20poly1305,
     * blake2s and curve25519 of lib/crypto, since WireGuard entered (5.6).
     */
    {"WireGuard", "ChaCha20-Poly1305, BLAKE2s and Curve25519 of the library", 0},
    /*
     * "fsverity: Switch from crypto_shash to SHA-2 library" and "apparmor:
     * use SHA-256 library API instead of crypto_shash API", both of the
     * libcrypto-conversions pull for 6.17.
     */
    {"fsverity", "the SHA-2 library", CP_KERNEL(6, 17)},
    {"AppArmor", "the SHA-256 library", CP_KERNEL(6, 17)},
};

int cp_kernel_version(const char *release, uint32_t *ret)
{
	unsigned major, minor;
	int n = 0;

	if (!release || sscanf(release, "%u.%u%n", &major, &minor, &n) != 2 || n == 0 ||
	    major > 0xffffff || minor > 0xff)
		return -EINVAL;
	*ret = CP_KERNEL(major, minor);
	return 0;
}

int cp_kernel_version_running(uint32_t *ret)
{
	struct utsname u;

	if (uname(&u) < 0)
		return -errno;
	return cp_kernel_version(u.release, ret);
}

const struct cp_client *cp_clients(size_t *ret_n)
{
	*ret_n = ARRAY_SIZE(clients);
	return clients;
}

bool cp_client_on(const struct cp_client *c, uint32_t kernel)
{
	return kernel >= c->since && (!c->until || kernel < c->until);
}

const struct cp_unsteered *cp_unsteered_users(size_t *ret_n)
{
	*ret_n = ARRAY_SIZE(unsteered);
	return unsteered;
}
