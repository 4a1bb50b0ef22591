/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The test engines: what the engine core (cp_engine_core.c) and the
 * algorithm shapes of cp_test_engine (skcipher, hash, aead, acomp, akcipher,
 * kpp) and of cp_caam_engine share. Every difference between the kernels the engines
 * build for (6.1 to 7.x) is in this file, at the top.
 */
#ifndef CP_TEST_ENGINE_H
#define CP_TEST_ENGINE_H

#include <crypto/algapi.h>
#include <linux/crypto.h>
#include <linux/list.h>
#include <linux/scatterlist.h>
#include <linux/version.h>
#include <linux/workqueue.h>

/*
 * 6.3 changed crypto_completion_t from (struct crypto_async_request *, int)
 * to (void *data, int) and added crypto_request_complete() to call it.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define cpt_base_complete(base, err) crypto_request_complete(base, err)
#else
static inline void cpt_base_complete(struct crypto_async_request *base,
				     int err)
{
	base->complete(base, err);
}
#endif

/* 6.13 added hrtimer_setup(); 7.x removed hrtimer_init(). */
#include <linux/hrtimer.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define cpt_hrtimer_setup(t, fn, clock, mode) hrtimer_setup(t, fn, clock, mode)
#else
static inline void cpt_hrtimer_setup(struct hrtimer *t,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
	hrtimer_init(t, clock, mode);
	t->function = fn;
}
#endif

/* 6.12 moved <asm/unaligned.h> to <linux/unaligned.h>. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#define CPT_PRIORITY	100
#define CPT_FLAGS	(CRYPTO_ALG_ASYNC | CRYPTO_ALG_KERN_DRIVER_ONLY | \
			 CRYPTO_ALG_NEED_FALLBACK)
/* fallbacks: synchronous, and never one of ours (they need a fallback) */
#define CPT_FALLBACK_MASK (CRYPTO_ALG_ASYNC | CRYPTO_ALG_NEED_FALLBACK)

/*
 * Per request, at the start of the outer request's context: the work item,
 * the list node (parked, backlog, or completed for the hard-IRQ timer), what
 * computes it, and the fallback's request last.
 */
struct cpt_req {
	struct work_struct work;
	struct list_head node;
	/* computes with the fallback (a byte flipped in mode wrong): 0 or -E */
	int (*run)(struct cpt_req *r);
	struct crypto_async_request *base;	/* the outer request */
	bool in_worker;		/* computed by the engine's worker: may sleep */
	bool hardirq;		/* completed from the hard-IRQ timer */
	int err;		/* the result the hard-IRQ timer completes with */
	struct list_head flight;	/* on the core's, in mode crosstalk */
	bool in_flight;		/* on it: set by the submitter, cleared computed */
	bool crossed;		/* in flight with another transform's request */
	u32 updates;		/* a hash's since init (mode updates) */
	unsigned long subreq[] __aligned(CRYPTO_MINALIGN);
};

/* cp_engine_core.c */
int cpt_core_init(void);
void cpt_core_exit(void);
int cpt_submit(struct cpt_req *r, struct crypto_async_request *base,
	       int (*run)(struct cpt_req *r));
/* The same, computed by the worker whatever the completion: @run may sleep. */
int cpt_submit_worker(struct cpt_req *r, struct crypto_async_request *base,
		      int (*run)(struct cpt_req *r));
bool cpt_wrong(void);
/* The same for a cipher's request @r: mode wrong, or crosstalk and crossed. */
bool cpt_wrong_req(const struct cpt_req *r);
/*
 * Whether a cipher's request @r of @len bytes from @src to @dst, keyed with
 * @key_size bytes (of AES: each half's for xts), is to be answered wrong;
 * its lists hold @sg_len bytes (an AEAD's associated data too).
 */
bool cpt_wrong_cipher(const struct cpt_req *r, struct scatterlist *src,
		      struct scatterlist *dst, unsigned int sg_len,
		      unsigned int len, unsigned int key_size);
/* Mode updates: a hash's third and later updates since init are ignored. */
bool cpt_updates(void);
/* Mode overrun: an output space found too short is written past. */
bool cpt_overrun(void);
/* Mode lax: a key agreement takes a peer key its fallback refuses. */
bool cpt_lax(void);
/* Whether authenc's request under an @auth_key_len-byte key is answered wrong. */
bool cpt_wrong_auth_key(unsigned int auth_key_len);
void cpt_flip(struct scatterlist *sg, unsigned int off);
/*
 * erratic_us: whether a transform allocated now is one of the two in three
 * that wait erratic_us more per request (from its init), and that wait
 * (from computing a request; @may_sleep: in the worker).
 */
bool cpt_tfm_erratic(void);
void cpt_erratic_wait(bool erratic, bool may_sleep);

/* cp_test_engine_skcipher.c */
int cpt_skcipher_register(void);
void cpt_skcipher_unregister(void);

/* cp_test_engine_hash.c */
int cpt_hash_register(void);
void cpt_hash_unregister(void);

/* cp_test_engine_aead.c */
int cpt_aead_register(void);
void cpt_aead_unregister(void);

/* cp_test_engine_acomp.c */
int cpt_acomp_register(void);
void cpt_acomp_unregister(void);

/* cp_test_engine_akcipher.c */
int cpt_akcipher_register(void);
void cpt_akcipher_unregister(void);

/* cp_test_engine_kpp.c */
int cpt_kpp_check(void);

/* cp_test_engine_main.c: geometry=small (aead and hash shrink their sizes) */
extern bool cpt_geometry_small;
int cpt_kpp_register(void);
void cpt_kpp_unregister(void);

#endif /* CP_TEST_ENGINE_H */
