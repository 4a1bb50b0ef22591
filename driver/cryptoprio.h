/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cryptoprio: in-kernel calibration of crypto implementations.
 *
 * Locking:
 * - cp_run_mutex (core.c) serialises CALIBRATE: one run at a time, taken
 *   with mutex_trylock so a second caller gets -EBUSY at once. RESOLVE
 *   allocates one transform and frees it at once: it needs no turn.
 * - cp_run.lock protects cp_run.zombie and orders the last completion of a
 *   run against its owner giving up on it (see run.c).
 * - cp_zombie_lock (run.c) protects cp_zombies, the runs whose requests an
 *   engine still holds after their owner gave up on them.
 *
 * Lifetime: every command holds a reference on this module while it runs
 * (core.c), and every zombie one more until its last request comes back,
 * so rmmod answers "in use" instead of freeing code a callback may enter.
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
#include <linux/workqueue.h>

#include "uapi/cryptoprio.h"
#include "compat.h"
#include "shape.h"

#define CP_DEFAULT_BUDGET_NS	(100 * NSEC_PER_MSEC)
#define CP_AEAD_ASSOC_LEN	16
#define CP_AEAD_TAG_LEN		16
#define CP_MAX_IV_SIZE		32
/* akcipher.c's one key: RSA, 2048 bits */
#define CP_RSA_KEY_BYTES	256
/* kpp.c's groups, in struct cp_geometry's kpp */
enum cp_kpp_id {
	CP_KPP_NONE,
	CP_KPP_P256,		/* ecdh-nist-p256 */
	CP_KPP_FFDHE2048,	/* dh over RFC 7919's ffdhe2048 */
};

/* The buffers of one run, and of all zombie runs together (cryptoprio(4)). */
#define CP_MAX_RUN_BYTES	(64UL << 20)
#define CP_MAX_ZOMBIE_BYTES	(64UL << 20)

/*
 * A transform of one of the types (types.c). @handle is the type's own
 * (struct crypto_skcipher * for a skcipher...): only its file reads it.
 */
struct cp_tfm {
	enum cryptoprio_type type;
	void *handle;
};

/*
 * A data buffer made of order-0 pages, so sizes up to 1 MiB never need
 * contiguous memory; or, for compression (@order > 0 or @linear), one
 * entry over contiguous pages: the kernel's software compressors take
 * nothing else since 6.15 (acomp.c).
 */
struct cp_buf {
	struct sg_table sgt;
	unsigned int len;
	unsigned int order;
	bool linear;
};

/* Sizes of one calibration's requests, filled by the type's geometry(). */
struct cp_geometry {
	unsigned int ivsize;
	unsigned int blocksize;
	unsigned int key_default;	/* bytes, 0 for a keyless hash */
	unsigned int out_extra;		/* AEAD tag bytes appended on encrypt */
	unsigned int digestsize;	/* hash */
	unsigned int assoclen;		/* AEAD associated data */
	unsigned int iv_in_data;	/* geniv: IV bytes between AD and text */
	bool acomp;			/* linear src and dst, dst twice src */
	bool rsa;			/* akcipher: raw RSA, the one measured */
	enum cp_kpp_id kpp;		/* kpp: the group measured, NONE if none */
	struct cp_shape shape;
};

struct cp_run;

/* The call a hash's request makes: a digest, or a step of verify.c's case. */
enum cp_hash_step {
	CP_STEP_DIGEST,
	CP_STEP_INIT,
	CP_STEP_UPDATE,
	CP_STEP_FINAL,
	CP_STEP_FINUP,
};

/* One request slot: its request, buffers and IV, reused for every resubmission. */
struct cp_slot {
	struct cp_run *run;
	void *req;
	struct cp_buf src;
	struct cp_buf dst;		/* AEAD decrypt, acomp; otherwise in place */
	unsigned int clen;		/* acomp: compressed bytes in dst */
	u8 *iv;
	u8 *out;			/* hash digest */
	/* continues submitting in process context (run.c) */
	struct work_struct work;
	atomic_t in_submit;		/* inside the driver's encrypt/digest */
	int err;			/* the last request's result */
	bool pointed;			/* by verify.c at a case (cp_run_point) */
	enum cp_hash_step step;		/* a hash's: digest but in verify.c */
	/* verify.c: a case's lists over src's and dst's pages, freed with the run */
	struct sg_table layout[2];
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
	u32 compressed_size;		/* acomp: of one request */
	char reference[CRYPTO_MAX_ALG_NAME];
};

struct cp_type_ops;

/* A calibration run: @depth slots and the counters they share. */
struct cp_run {
	struct cp_tfm tfm;
	const struct cp_type_ops *ops;
	struct cp_geometry geo;
	u32 req_size;
	u32 depth;
	bool decrypt;
	bool once;			/* one request per slot, no resubmission */
	bool stop;			/* the owner gave up: submit no more */
	ktime_t deadline;
	ktime_t hard_end;		/* give up then whatever comes back */
	u64 grace_ns;			/* give up when none came back for this long */
	size_t bytes;			/* buffer memory, for the zombie bound */

	spinlock_t lock;		/* zombie, and the last slot's completion */
	bool zombie;
	struct list_head zombie_node;	/* on cp_zombies */

	atomic_t active;		/* slots still submitting, +1 while starting */
	atomic_t outstanding;		/* requests handed to the driver, not back */
	atomic_t max_outstanding;
	atomic64_t requests;
	atomic_t error;			/* first error, 0 if none */
	struct completion done;
	ktime_t start;			/* of the last cp_run_start() */
	ktime_t last_completion;	/* READ_ONCE/WRITE_ONCE */

	struct cp_slot slots[];
};

/* run.c */
int cp_run_init(void);
void cp_run_exit(void);
/* Bytes of buffers a run of @depth slots needs. */
size_t cp_run_bytes(const struct cp_type_ops *ops, const struct cp_geometry *g,
		    u32 req_size, u32 depth, bool decrypt);
struct cp_run *cp_run_alloc(struct cp_tfm *t, const struct cp_geometry *g,
			    u32 req_size, u32 depth, bool decrypt);
/*
 * verify.c's run: one slot whose src and dst are each @len contiguous
 * bytes, its requests pointed by cp_run_point().
 */
struct cp_run *cp_run_alloc_linear(struct cp_tfm *t, const struct cp_geometry *g,
				   unsigned int len);
/*
 * Point @run's one request at @src and @dst (the same: in place),
 * @assoclen bytes of associated data (AEAD) then @len bytes.
 */
void cp_run_point(struct cp_run *run, struct scatterlist *src,
		  struct scatterlist *dst, unsigned int assoclen,
		  unsigned int len, bool decrypt);
/* The bytes of @sg's entries: a pointed request's output space. */
unsigned int cp_sg_bytes(struct scatterlist *sg);
/* Frees @run and its transform (never while requests are outstanding). */
void cp_run_free(struct cp_run *run);
/* Point every slot's request at its buffers for encryption or decryption. */
void cp_run_prepare(struct cp_run *run, bool decrypt);
/*
 * cp_run_go()'s answer when it gave up on @run with requests still out,
 * none having come back for the grace period, the command's time up or
 * its caller gone: @run belongs to the zombie list now and the caller
 * must forget it. Positive,
 * so that no driver's error can be taken for it: a driver's own -ETIMEDOUT
 * or -EINTR (mxs-dcp completes with -ETIMEDOUT after its hardware timed
 * out) is an ordinary failure, and a positive answer counts as -EIO.
 */
#define CP_RUN_ABANDONED	1

/*
 * Send one request per slot (@once; each slot's result in slot->err) or
 * keep @run->depth requests in flight for @budget_ns. Returns 0, the
 * driver's first error (not with @once), or CP_RUN_ABANDONED.
 */
int cp_run_go(struct cp_run *run, bool once, u64 budget_ns, u64 grace_ns,
	      u64 *wall_ns);
/*
 * cp_run_go() in two halves, so that several runs have their requests in
 * flight at once: start sends; finish waits (its grace from the run's
 * deadline or last completion, which for a run finished after others may
 * be past already) and returns as cp_run_go().
 */
void cp_run_start(struct cp_run *run, bool once, u64 budget_ns, u64 grace_ns);
int cp_run_finish(struct cp_run *run, u64 *wall_ns);
/* Let the reaper look at the zombies (and the instances they held) again. */
void cp_reap_soon(void);
bool cp_zombies_empty(void);
/* -EBUSY (and why, in @extack) if a new run of @driver must not start. */
int cp_zombie_check(const char *driver, size_t bytes,
		    struct netlink_ext_ack *extack);

/* cpu.c */
struct cp_cpu_mark {
	ktime_t time;
	u64 idle_us;
	u64 task_ns;
	unsigned int cpus;
};

/* What all CPUs did since a mark, counted two ways (cpu.c says why). */
struct cp_cpu_busy {
	ktime_t end;
	u64 wall_ns;
	u64 by_idle_ns;	/* wall time x CPUs less idle and iowait time */
	u64 by_tasks_ns; /* the run time of every task */
};

void cp_cpu_mark(struct cp_cpu_mark *m);
void cp_cpu_busy_since(const struct cp_cpu_mark *m, struct cp_cpu_busy *b);

/* ref.c */
int cp_reference_driver(const char *name, char *out, size_t len);
int cp_reference_acomp(const char *name, char *out, size_t len);
/* The lowest-priority usable implementation of leaf @name and type @type. */
int cp_reference_typed(const char *name, u32 type, u32 type_mask, char *out,
		       size_t len);

/*
 * kat.c: the known-answer check of @run's type (its cp_kat_ops). 0, a
 * negative errno, or CP_RUN_ABANDONED: then @run is a zombie.
 */
int cp_known_answer(struct cp_run *run, const u8 *key, unsigned int key_size,
		    u64 grace_ns, struct cp_result *res,
		    struct netlink_ext_ack *extack);

/* calibrate.c: allocate @driver, of @type, as named (not an algorithm name) */
int cp_alloc_candidate(const char *driver, enum cryptoprio_type type,
		       struct cp_tfm *t, struct netlink_ext_ack *extack);

/* verify.c */
struct cp_verify_params {
	const char *driver;
	enum cryptoprio_type type;
	u64 seed;
	u32 cases;
	u64 grace_ns;
};

#define CP_VERIFY_FAILURE_LEN	CRYPTOPRIO_MAX_FAILURE_LEN
/* all cases of a VERIFY, at most: a slower engine ends it with ETIME */
#define CP_VERIFY_TIME_NS	(60ULL * NSEC_PER_SEC)

struct cp_verify_result {
	enum cryptoprio_verdict verdict;
	u32 cases;			/* run, the failing one included */
	u32 failed_case;		/* its index, if FAILED */
	char failure[CP_VERIFY_FAILURE_LEN];	/* the failing case, in words */
	char reference[CRYPTO_MAX_ALG_NAME];
};

/*
 * Compare @p->driver with its reference on @p->cases cases drawn from
 * @p->seed. 0 and the verdict in @res, a negative errno, or
 * CP_RUN_ABANDONED: the candidate's run is a zombie, res says which case.
 */
int cp_verify(const struct cp_verify_params *p, struct cp_verify_result *res,
	      struct netlink_ext_ack *extack);

/*
 * calibrate.c: 0, a negative errno, or CP_RUN_ABANDONED (the run left as a
 * zombie, which the command reports as -ETIMEDOUT)
 */
int cp_calibrate(const struct cp_params *p, struct cp_result *res,
		 struct netlink_ext_ack *extack);

/* trace.c: what a command registered, unregistered before it returns */
struct cp_trace {
	char (*names)[CRYPTO_MAX_ALG_NAME];
	unsigned int n;
};

int cp_trace_begin(struct cp_trace *t);
/*
 * @zombie: the command left a zombie run, which holds what it uses: what
 * is still in use is left to the reaper (cp_trace_leftovers) at once,
 * instead of being waited for.
 */
void cp_trace_end(struct cp_trace *t, bool zombie);
/* The reaper's part: unregister what zombies' commands left, once unused. */
void cp_trace_leftovers(void);
/* Module exit: forget the leftovers (no zombie is left to hold them). */
void cp_trace_exit(void);

/*
 * core.c: the command in progress, as its runs see it. Its runs end within
 * its budget plus CP_COMMAND_GRACES grace periods from the first one's
 * start (13 s at most), however an engine trickles its answers.
 */
#define CP_COMMAND_GRACES	6
bool cp_command_caller_gone(void);
ktime_t cp_command_deadline(void);

/* resolve.c */
/*
 * @build: where nothing is registered for @type and @mask, let the kernel
 * build an instance (loading what it needs); else refused with ENOPKG.
 */
int cp_resolve(const char *name, enum cryptoprio_type type, u32 mask,
	       bool build, char *driver, size_t len,
	       struct netlink_ext_ack *extack);

#endif /* CRYPTOPRIO_H */
