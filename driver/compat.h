/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cryptoprio: every kernel-version difference between 6.1 and 7.x in one place.
 */
#ifndef CRYPTOPRIO_COMPAT_H
#define CRYPTOPRIO_COMPAT_H

#include <linux/version.h>
#include <linux/crypto.h>
#include <net/netlink.h>
#include <net/genetlink.h>

/*
 * 6.3 changed crypto_completion_t from (struct crypto_async_request *, int)
 * to (void *data, int). CP_COMPLETION_PARAMS declares the parameters,
 * cp_completion_data() recovers the data pointer given to *_set_callback().
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define CP_COMPLETION_PARAMS void *cp_data, int err
#define cp_completion_data() (cp_data)
#else
#define CP_COMPLETION_PARAMS struct crypto_async_request *cp_areq, int err
#define cp_completion_data() (cp_areq->data)
#endif

/*
 * acomp (acomp.c) needs no shim: crypto_alloc_acomp(), acomp_request_alloc
 * (tfm) (an exported function on 6.1 and 6.12, which also allocates scomp's
 * per-request context; a macro with an optional gfp argument since 6.15),
 * acomp_request_set_callback(), acomp_request_set_params(), crypto_acomp_
 * compress()/decompress() and req->dlen have the same form on 6.1, 6.12
 * and 7.2. What changed is what scomp accepts: one linear src and dst
 * since 6.15, 128 KiB at most before; run.c gives compressors such buffers.
 */

/*
 * akcipher (akcipher.c) needs none either: crypto_alloc_akcipher(),
 * crypto_akcipher_set_pub_key(), crypto_akcipher_maxsize(),
 * akcipher_request_alloc(tfm, gfp), akcipher_request_set_callback(),
 * akcipher_request_set_crypt() and crypto_akcipher_encrypt() have the same
 * form on 6.1, 6.12 and 7.2. 6.13 took sign and verify out of akcipher
 * (into sig), which the module does not call; CRYPTO_ALG_TYPE_AKCIPHER is
 * 0xd on 6.1 and 0x6 since, used by its name only.
 */

/*
 * kpp (kpp.c) needs none: crypto_alloc_kpp(), crypto_kpp_set_secret(),
 * crypto_kpp_maxsize(), kpp_request_alloc(tfm, gfp), kpp_request_set_
 * callback(), kpp_request_set_input()/_output() and crypto_kpp_compute_
 * shared_secret() have the same form on 6.1, 6.12 and 7.2 (the request
 * size moved from the algorithm into the transform, inside the inlines);
 * struct kpp_secret and CRYPTO_KPP_SECRET_TYPE_* are the same, and so is
 * CRYPTO_ALG_TYPE_KPP (0x8).
 */

/*
 * genl_info's nlhdr points to const since a kernel between 6.1 and 6.12;
 * netlink_ack(), which only reads it, still takes a plain pointer on 6.1,
 * 6.12 and 7.2.
 */
static inline struct nlmsghdr *cp_genl_nlhdr(const struct genl_info *info)
{
	return (struct nlmsghdr *)info->nlhdr;
}

/* NL_SET_ERR_MSG_FMT appeared in 6.2; older kernels get the plain message. */
#ifdef NL_SET_ERR_MSG_FMT
#define CP_ERR_FMT(extack, plain, fmt, ...) \
	NL_SET_ERR_MSG_FMT(extack, fmt, ##__VA_ARGS__)
#else
#define CP_ERR_FMT(extack, plain, fmt, ...) NL_SET_ERR_MSG(extack, plain)
#endif

/*
 * The algorithm list, its semaphore and the reference helpers live in
 * crypto/internal.h, which is not installed with the headers; all are
 * EXPORT_SYMBOL_GPL since 2.6.
 */
extern struct list_head crypto_alg_list;
extern struct rw_semaphore crypto_alg_sem;
struct crypto_alg *crypto_mod_get(struct crypto_alg *alg);
void crypto_mod_put(struct crypto_alg *alg);

/* CRYPTO_ALG_DYING exists since 2.6; DEAD and LARVAL too. Kept for clarity. */
#define CP_ALG_UNUSABLE (CRYPTO_ALG_LARVAL | CRYPTO_ALG_DEAD | CRYPTO_ALG_DYING)

#endif /* CRYPTOPRIO_COMPAT_H */
