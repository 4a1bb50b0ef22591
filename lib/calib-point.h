/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What calibration (calibrate.h) and its cache (calib-cache.h) both speak
 * of: the backends that measure, the verdicts, and one measured point.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "stats.h"

enum cp_backend {
	CP_BACKEND_NONE,
	CP_BACKEND_MODULE, /* cryptoprio.ko: every implementation, engines included */
	CP_BACKEND_AFALG,  /* libkcapi: on Linux >= 7.2 only synchronous CPU code */
};

enum cp_verdict {
	CP_VERDICT_MEASURED,
	CP_VERDICT_FAULTY,	/* its output differs from the reference: never trusted */
	CP_VERDICT_TIMEOUT,	/* a request never completed */
	CP_VERDICT_UNREACHABLE, /* the backend cannot bind it (AF_ALG on >= 7.2: engines) */
	CP_VERDICT_UNMEASURED,	/* the budget ran out first */
	CP_VERDICT_ERROR,	/* the backend failed otherwise: see error */
};

/* One implementation at one (request size, depth). */
struct cp_point {
	uint32_t size, depth;
	enum cp_verdict verdict;
	int error;   /* negative errno for CP_VERDICT_ERROR */
	bool cached; /* taken from the cache, not measured now */
	/*
	 * Measuring stopped with the order of its name known: each competitor
	 * in its gear apart beyond noise (false: still within noise when the
	 * runs or the share of the budget ran out, or cached before this was
	 * recorded).
	 */
	bool decided;
	/*
	 * Its figure, or a competitor's in its gear, stayed too noisy to decide
	 * (cp_stat_too_noisy()): cached so, measured again by the next
	 * calibration that measures, taken as it is by one from the cache only.
	 */
	bool too_noisy;
	uint32_t max_in_flight;
	/*
	 * A compressor's: the bytes one request of @size compressed to, the
	 * same in every run (the module's corpus is fixed); 0 for other types.
	 */
	uint32_t compressed_size;
	struct cp_stat mbps;		/* throughput, MB/s (10^6 bytes) */
	struct cp_stat ns_per_request;	/* wall time per request */
	struct cp_stat cpu_ns_per_byte; /* busy time of all CPUs per byte */
};

/*
 * An engine's differential verification (VERIFY, cryptoprio(4)): its
 * answers to cases of a seed against the reference's. An engine of a type
 * the module verifies is placed above the CPU only once it has passed, on
 * this kernel and with this build of the module (cryptoprio.conf(5)).
 */
enum cp_verification {
	CP_VERIFICATION_NONE, /* not asked: the CPU's, or a type the module does not verify */
	CP_VERIFICATION_PASSED,
	CP_VERIFICATION_FAILED,	 /* text: the first failing case, with its seed */
	CP_VERIFICATION_NOT_RUN, /* an engine that could not be verified: text says why */
};

/* Seeds are drawn below 2^53, exact as JSON numbers in any reader. */
#define CP_VERIFY_SEED_MAX ((INT64_C(1) << 53) - 1)

struct cp_verified {
	enum cp_verification state;
	bool cached; /* passed before, with the same build of the module */
	uint64_t seed;
	uint32_t cases;
	char by[64];	/* srcversion of the cryptoprio module that verified it */
	char text[384]; /* FAILED, NOT_RUN: in words (the module's failure: 384 at most) */
};

const char *cp_backend_to_string(enum cp_backend backend);
const char *cp_verdict_to_string(enum cp_verdict verdict);
int cp_verdict_from_string(const char *s, enum cp_verdict *verdict);
int cp_backend_from_string(const char *s, enum cp_backend *backend);
/* "passed", "failed", "not-run"; NULL for CP_VERIFICATION_NONE. */
const char *cp_verification_to_string(enum cp_verification state);
