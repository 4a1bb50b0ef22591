/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR LGPL-2.1-or-later */
/*
 * cryptoprio generic netlink family: in-kernel calibration of crypto
 * implementations. Shared by driver/cryptoprio.ko and lib/cpmod.c.
 * See cryptoprio(4).
 */
#ifndef _UAPI_LINUX_CRYPTOPRIO_H
#define _UAPI_LINUX_CRYPTOPRIO_H

#include <linux/types.h>

#define CRYPTOPRIO_GENL_NAME	"cryptoprio"
/*
 * 2: commands are answered when they end, by the module's worker, not by
 * the netlink handler: the reply, then an ack (NLMSG_ERROR 0) whether or
 * not the request asked for one; or the error, with its extended ack.
 * A request that asks for an ack (NLM_F_ACK) also gets one when it is
 * queued, before the answer: ask for none. A request refused before it is
 * queued (a bad attribute, EBUSY) gets its error at once, as in 1.
 */
#define CRYPTOPRIO_GENL_VERSION	2

/* Limits enforced by the module (refused with EINVAL and an extack message). */
#define CRYPTOPRIO_MAX_REQ_SIZE	(1024U * 1024)		/* bytes per request */
#define CRYPTOPRIO_MAX_DEPTH	64U			/* requests in flight */
#define CRYPTOPRIO_MAX_BUDGET_NS 1000000000ULL		/* one run: 1 s */
#define CRYPTOPRIO_MAX_KEY_SIZE	256U			/* bytes */
/*
 * Compression requests: the kernel's software compressors (scomp) took at
 * most 128 KiB per request before 6.15 and one linear buffer since.
 */
#define CRYPTOPRIO_MAX_ACOMP_REQ_SIZE (64U << 10)	/* bytes per request */
/*
 * A run ends with ETIMEDOUT when none of its requests has come back for
 * GRACE after its budget (or after the known-answer requests were sent),
 * or after the last one that did, whichever is later.
 */
#define CRYPTOPRIO_GRACE_NS	2000000000ULL		/* default and maximum */
#define CRYPTOPRIO_MIN_GRACE_NS	100000000ULL		/* 100 ms */

enum cryptoprio_cmd {
	CRYPTOPRIO_CMD_UNSPEC,
	/* DRIVER TYPE REQ_SIZE [DEPTH BUDGET_NS KEY_SIZE DECRYPT] */
	CRYPTOPRIO_CMD_CALIBRATE,
	CRYPTOPRIO_CMD_RESOLVE,		/* NAME TYPE [MASK BUILD] -> RESOLVED_DRIVER */
	/*
	 * DRIVER TYPE [SEED CASES GRACE_NS] -> VERDICT CASES SEED REFERENCE
	 * [FAILED_CASE FAILURE]: differential verification against the
	 * reference (skcipher and aead for now; other types: EOPNOTSUPP)
	 */
	CRYPTOPRIO_CMD_VERIFY,

	__CRYPTOPRIO_CMD_MAX,
};

#define CRYPTOPRIO_CMD_MAX (__CRYPTOPRIO_CMD_MAX - 1)

enum cryptoprio_type {
	CRYPTOPRIO_TYPE_UNSPEC,
	CRYPTOPRIO_TYPE_SKCIPHER,
	CRYPTOPRIO_TYPE_AEAD,
	CRYPTOPRIO_TYPE_HASH,		/* ahash or shash */
	CRYPTOPRIO_TYPE_ACOMP,		/* acomp or scomp: DECRYPT decompresses */
	/* rsa's public-key operation; REQ_SIZE: the key's bytes */
	CRYPTOPRIO_TYPE_AKCIPHER,
	/* key agreement's shared secret; REQ_SIZE: the peer key's bytes */
	CRYPTOPRIO_TYPE_KPP,

	__CRYPTOPRIO_TYPE_MAX,
};

#define CRYPTOPRIO_TYPE_MAX (__CRYPTOPRIO_TYPE_MAX - 1)

enum cryptoprio_kat {
	/* same output as the reference (acomp: round trips both ways) */
	CRYPTOPRIO_KAT_OK,
	CRYPTOPRIO_KAT_MISMATCH,	/* different output: a faulty driver */
	CRYPTOPRIO_KAT_UNSUPPORTED,	/* no reference implementation found */
};

/* VERIFY's answer */
enum cryptoprio_verdict {
	CRYPTOPRIO_VERIFY_PASSED,	/* every case as the reference's */
	/* the case FAILED_CASE differs or fails: FAILURE */
	CRYPTOPRIO_VERIFY_FAILED,
	/* the case FAILED_CASE never completed: FAILURE (its run is kept) */
	CRYPTOPRIO_VERIFY_TIMEOUT,
};

/* VERIFY: cases by default, and at most */
#define CRYPTOPRIO_VERIFY_CASES		48U
#define CRYPTOPRIO_VERIFY_MAX_CASES	1024U
/* VERIFY's FAILURE: bytes at most, its NUL included (cut to fit) */
#define CRYPTOPRIO_MAX_FAILURE_LEN	384U

/* Bits accepted in CRYPTOPRIO_ATTR_MASK (the kernel's CRYPTO_ALG_* values). */
#define CRYPTOPRIO_ALG_ASYNC			0x00000080
#define CRYPTOPRIO_ALG_KERN_DRIVER_ONLY		0x00001000
#define CRYPTOPRIO_ALG_ALLOCATES_MEMORY		0x00010000
#define CRYPTOPRIO_MASK_VALID	(CRYPTOPRIO_ALG_ASYNC | \
				 CRYPTOPRIO_ALG_KERN_DRIVER_ONLY | \
				 CRYPTOPRIO_ALG_ALLOCATES_MEMORY)

enum cryptoprio_attr {
	CRYPTOPRIO_ATTR_UNSPEC,
	CRYPTOPRIO_ATTR_PAD,
	/* requests */
	CRYPTOPRIO_ATTR_DRIVER,		/* string: cra_driver_name */
	CRYPTOPRIO_ATTR_NAME,		/* string: cra_name (RESOLVE) */
	CRYPTOPRIO_ATTR_TYPE,		/* u32: enum cryptoprio_type */
	CRYPTOPRIO_ATTR_DECRYPT,	/* flag: decrypt instead of encrypt */
	CRYPTOPRIO_ATTR_KEY_SIZE,	/* u32: bytes (0 or absent: default) */
	CRYPTOPRIO_ATTR_REQ_SIZE,	/* u32: bytes per request */
	CRYPTOPRIO_ATTR_DEPTH,		/* u32: requests in flight (default 1) */
	CRYPTOPRIO_ATTR_BUDGET_NS,	/* u64: run time (default 100 ms) */
	CRYPTOPRIO_ATTR_MASK,		/* u32: CRYPTOPRIO_ALG_* mask (RESOLVE) */
	/* results */
	CRYPTOPRIO_ATTR_REQUESTS,	/* u64: requests completed */
	CRYPTOPRIO_ATTR_BYTES,		/* u64: bytes processed */
	CRYPTOPRIO_ATTR_WALL_NS,	/* u64: first submit to last completion */
	/* u64: busy time of all CPUs meanwhile, less the idle load */
	CRYPTOPRIO_ATTR_CPU_NS,
	CRYPTOPRIO_ATTR_KAT,		/* u32: enum cryptoprio_kat */
	CRYPTOPRIO_ATTR_MAX_IN_FLIGHT,	/* u32: most requests outstanding at once */
	CRYPTOPRIO_ATTR_RESOLVED_DRIVER, /* string: driver crypto_alloc_*() gave */
	CRYPTOPRIO_ATTR_REFERENCE,	/* string: driver of the known-answer reference */
	CRYPTOPRIO_ATTR_USED_KEY_SIZE,	/* u32: key bytes actually used */
	/* u64: give up after this long without a completion (100 ms..GRACE) */
	CRYPTOPRIO_ATTR_GRACE_NS,
	CRYPTOPRIO_ATTR_COMPRESSED_SIZE, /* u32: acomp: bytes its compression of one request made */
	/*
	 * flag (RESOLVE): a NAME not registered for TYPE and MASK may be built
	 * by the kernel (a template instance), which loads the modules the
	 * template and its arguments need; without it such a NAME is refused
	 * with ENOPKG.
	 */
	CRYPTOPRIO_ATTR_BUILD,
	/* VERIFY */
	CRYPTOPRIO_ATTR_SEED,		/* u64: of the cases (default: random) */
	CRYPTOPRIO_ATTR_CASES,		/* u32: cases to run; reply: cases run */
	CRYPTOPRIO_ATTR_VERDICT,	/* u32: enum cryptoprio_verdict */
	CRYPTOPRIO_ATTR_FAILED_CASE,	/* u32: index of the failing case */
	CRYPTOPRIO_ATTR_FAILURE,	/* string: the failing case, in words */

	__CRYPTOPRIO_ATTR_MAX,
};

#define CRYPTOPRIO_ATTR_MAX (__CRYPTOPRIO_ATTR_MAX - 1)

#endif /* _UAPI_LINUX_CRYPTOPRIO_H */
