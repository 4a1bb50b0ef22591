/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cryptoprio: in-kernel calibration of crypto implementations.
 *
 * Locking:
 * - cp_run_mutex (core.c) serialises CALIBRATE: one run at a time, taken
 *   with mutex_trylock so a second caller gets -EBUSY at once.
 * - cp_run.lock protects cp_run.zombie and orders the last completion of a
 *   run against its owner giving up on it (see run.c).
 * - cp_zombie_lock (run.c) protects cp_zombies, the runs whose requests an
 *   engine still holds after their owner returned -ETIMEDOUT.
 */
#ifndef CRYPTOPRIO_H
#define CRYPTOPRIO_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/netlink.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "uapi/cryptoprio.h"
#include "compat.h"

#define CP_DEFAULT_BUDGET_NS	(100 * NSEC_PER_MSEC)
#define CP_AEAD_ASSOC_LEN	16
#define CP_AEAD_TAG_LEN		16
#define CP_HMAC_KEY_LEN		32

struct crypto_skcipher;
struct crypto_aead;
struct crypto_ahash;

/* A transform of one of the three types. */
struct cp_tfm {
	enum cryptoprio_type type;
	union {
		struct crypto_skcipher *skcipher;
		struct crypto_aead *aead;
		struct crypto_ahash *ahash;
		void *any;
	};
};

/* A data buffer made of order-0 pages, so sizes up to 1 MiB never need contiguous memory. */
struct cp_buf {
	struct sg_table sgt;
	unsigned int len;
};

/* Sizes of one calibration's requests, filled by the type's geometry(). */
struct cp_geometry {
	unsigned int ivsize;
	unsigned int blocksize;
	unsigned int key_default;	/* bytes, 0 for a keyless hash */
	unsigned int out_extra;		/* AEAD tag bytes appended on encrypt */
	unsigned int digestsize;	/* hash */
	unsigned int assoclen;		/* AEAD associated data */
};

struct cp_run;

/* One request slot: its request, buffers and IV, reused for every resubmission. */
struct cp_slot {
	struct cp_run *run;
	void *req;
	struct cp_buf src;
	struct cp_buf dst;		/* AEAD decrypt only; otherwise in place */
	u8 *iv;
	u8 *out;			/* hash digest */
};

struct cp_params {
	const char *driver;
	enum cryptoprio_type type;
	bool decrypt;
	u32 key_size;			/* 0: default */
	u32 req_size;
	u32 depth;
	u64 budget_ns;
	u64 grace_ns;			/* after the budget, for stragglers */
};

struct cp_result {
	u64 requests;
	u64 bytes;
	u64 wall_ns;
	u64 cpu_ns;
	u32 max_in_flight;
	u32 key_size;
	enum cryptoprio_kat kat;
	char reference[CRYPTO_MAX_ALG_NAME];
};

/* Operations of one transform type (skcipher.c, aead.c, hash.c). */
struct cp_type_ops {
	int (*alloc)(struct cp_tfm *t, const char *name, u32 type, u32 mask);
	void (*free)(struct cp_tfm *t);
	const char *(*driver_name)(struct cp_tfm *t);
	const char *(*alg_name)(struct cp_tfm *t);
	void (*geometry)(struct cp_tfm *t, struct cp_geometry *g);
	/* Build the key blob for @key_size (authenc format for authenc) and set it. */
	int (*setkey)(struct cp_tfm *t, const u8 *key, unsigned int key_size);
	void *(*req_alloc)(struct cp_tfm *t);
	void (*req_free)(void *req);
	/* Point @slot's request at its buffers; @cb gets @data on completion. */
	void (*req_prepare)(struct cp_tfm *t, struct cp_slot *slot, u32 req_size,
			    const struct cp_geometry *g, bool decrypt,
			    crypto_completion_t cb, void *data);
	int (*submit)(void *req, bool decrypt);
};

extern const struct cp_type_ops cp_skcipher_ops;
extern const struct cp_type_ops cp_aead_ops;
extern const struct cp_type_ops cp_hash_ops;
const struct cp_type_ops *cp_type_ops(enum cryptoprio_type type);

/* A calibration run: @depth slots and the counters they share. */
struct cp_run {
	struct cp_tfm tfm;
	const struct cp_type_ops *ops;
	struct cp_geometry geo;
	u32 req_size;
	u32 depth;
	bool decrypt;
	bool once;			/* one request on slot 0, no resubmission */
	ktime_t deadline;

	spinlock_t lock;		/* zombie, and the last slot's completion */
	bool zombie;
	struct list_head zombie_node;	/* on cp_zombies */

	atomic_t active;		/* slots still submitting, +1 while starting */
	atomic_t outstanding;		/* requests handed to the driver, not back */
	atomic_t max_outstanding;
	atomic64_t requests;
	atomic_t error;			/* first error, 0 if none */
	struct completion done;
	ktime_t last_completion;

	struct cp_slot slots[];
};

/* run.c */
int cp_buf_alloc(struct cp_buf *b, unsigned int len);
void cp_buf_free(struct cp_buf *b);
struct cp_run *cp_run_alloc(struct cp_tfm *t, const struct cp_geometry *g,
			    u32 req_size, u32 depth, bool decrypt);
/* Frees @run and its transform (never while requests are outstanding). */
void cp_run_free(struct cp_run *run);
/*
 * Send one request on slot 0 (@once) or keep @run->depth requests in flight
 * for @budget_ns. Returns 0, a driver's error, or -ETIMEDOUT: then @run
 * belongs to the zombie list and the caller must forget it.
 */
int cp_run_go(struct cp_run *run, bool once, u64 budget_ns, u64 grace_ns,
	      u64 *wall_ns);
u64 cp_cpu_busy_ns(void);
void cp_zombies_exit(void);

/* kat.c */
int cp_reference_driver(const char *name, char *out, size_t len);
int cp_calibrate(const struct cp_params *p, struct cp_result *res,
		 struct netlink_ext_ack *extack);

/* resolve.c */
int cp_resolve(const char *name, enum cryptoprio_type type, u32 mask,
	       char *driver, size_t len, struct netlink_ext_ack *extack);

#endif /* CRYPTOPRIO_H */
