/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Client of the companion kernel module's generic netlink family
 * "cryptoprio" (driver/uapi/cryptoprio.h, cryptoprio(4)): in-kernel
 * calibration with a known-answer check, and RESOLVE.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cryptoprio.h>

#include "inventory.h"
#include "netlink.h"
#include "types.h"

/* Enough for any request or reply of the family. */
#define CP_MOD_MSG_SIZE 1024

struct cp_mod_calib_req {
	const char *driver;	   /* NULL: attribute left out */
	enum cryptoprio_type type; /* UNSPEC: left out */
	bool decrypt;
	uint32_t key_size;  /* 0: left out (the module's default) */
	uint32_t req_size;  /* 0: left out (the module refuses that) */
	uint32_t depth;	    /* 0: left out (1) */
	uint64_t budget_ns; /* 0: left out (100 ms) */
	uint64_t grace_ns;  /* 0: left out (CRYPTOPRIO_GRACE_NS) */
};

struct cp_mod_calib_result {
	char driver[CP_NAME_MAX];
	char reference[CP_NAME_MAX]; /* "" if there is none */
	enum cryptoprio_type type;
	bool decrypt;
	uint32_t req_size;
	uint32_t depth;
	uint32_t key_size;
	uint32_t max_in_flight;
	enum cryptoprio_kat kat;
	uint32_t compressed_size; /* acomp: bytes one request compressed to; 0 otherwise */
	uint64_t budget_ns;
	uint64_t requests;
	uint64_t bytes;
	uint64_t wall_ns;
	uint64_t cpu_ns;
};

struct cp_mod_verify_req {
	const char *driver;
	enum cryptoprio_type type;
	bool has_seed; /* false: the module draws one */
	uint64_t seed;
	uint32_t cases; /* 0: left out (CRYPTOPRIO_VERIFY_CASES) */
};

/* VERIFY's reply. */
struct cp_mod_verify_result {
	char driver[CP_NAME_MAX];
	char reference[CP_NAME_MAX];
	enum cryptoprio_verdict verdict;
	uint64_t seed;
	uint32_t cases; /* run, the failing one included */
	uint32_t failed_case;
	char failure[CRYPTOPRIO_MAX_FAILURE_LEN]; /* the failing case in words; "" if passed */
};

struct cp_mod_resolve_result {
	char name[CP_NAME_MAX];
	char driver[CP_NAME_MAX];
	enum cryptoprio_type type;
	uint32_t mask;
};

/*
 * The family's id, looked up at every call: the kernel gives a reloaded
 * module a new id, and the old one may then belong to another family.
 * -ENOENT when the module is not loaded; -EPROTO if its version is older
 * than this client's.
 */
int cp_mod_family(struct cp_nl *nl, uint16_t *family);

/*
 * Run one calibration. @nl is a NETLINK_GENERIC socket. Returns 0 or a
 * negative errno; the kernel's reason is left in nl->extack.
 */
int cp_mod_calibrate(struct cp_nl *nl, const struct cp_mod_calib_req *req,
		     struct cp_mod_calib_result *res);
/* The module's reason for EBUSY when requests of an earlier run never completed (driver/run.c). */
#define CP_MOD_EXTACK_OUTSTANDING "an earlier run of this driver still has requests outstanding"
/*
 * The driver crypto_alloc_*(@name, 0, @mask) gives right now. Where no
 * implementation is registered for @mask, -ENOPKG unless @build: then the
 * kernel builds one, loading the modules its template and arguments need
 * (cp_build_would_load() says which).
 */
/*
 * VERIFY: @req's driver against its reference on the cases of a seed
 * (cryptoprio(4)); the module's refusal (-EOPNOTSUPP: a type not verified
 * yet) in nl->extack.
 */
int cp_mod_verify(struct cp_nl *nl, const struct cp_mod_verify_req *req,
		  struct cp_mod_verify_result *res);
int cp_mod_resolve(struct cp_nl *nl, const char *name, enum cryptoprio_type type, uint32_t mask,
		   bool build, struct cp_mod_resolve_result *res);

/*
 * A run the module keeps for requests an engine never completed, with its
 * memory, its transform and the engine's module (cryptoprio(4), HANGING
 * DRIVERS): listed by the module in CP_MOD_KEPT_RUNS_PATH.
 */
struct cp_mod_kept_run {
	char driver[CP_NAME_MAX];
	uint32_t outstanding; /* requests still out */
	uint64_t bytes;	      /* the run's buffers */
};
#define CP_MOD_KEPT_RUNS_PATH "/sys/module/cryptoprio/parameters/kept_runs"
#define CP_MOD_KEPT_RUNS_MAX  64
/*
 * The kept runs, at most @max: their number, 0 when the module is not
 * loaded (or is older and lists none), -EBADMSG for a line not
 * "DRIVER OUTSTANDING BYTES".
 */
int cp_mod_kept_runs(struct cp_mod_kept_run *runs, size_t max);
int cp_mod_parse_kept_runs(const char *text, struct cp_mod_kept_run *runs, size_t max);

/* Message builders and reply parsers, split out for tests on recorded messages. */
struct nlmsghdr *cp_mod_build_getfamily(void *buf);
int cp_mod_parse_getfamily(const struct nlmsghdr *nlh, uint16_t *family, uint32_t *version);
struct nlmsghdr *cp_mod_build_calibrate(void *buf, uint16_t family,
					const struct cp_mod_calib_req *req);
int cp_mod_parse_calibrate(const struct nlmsghdr *nlh, struct cp_mod_calib_result *res);
struct nlmsghdr *cp_mod_build_resolve(void *buf, uint16_t family, const char *name,
				      enum cryptoprio_type type, uint32_t mask, bool build);
int cp_mod_parse_resolve(const struct nlmsghdr *nlh, struct cp_mod_resolve_result *res);
struct nlmsghdr *cp_mod_build_verify(void *buf, uint16_t family,
				     const struct cp_mod_verify_req *req);
int cp_mod_parse_verify(const struct nlmsghdr *nlh, struct cp_mod_verify_result *res);

/* Derived figures; 0 where the divisor is 0. */
double cp_mod_mb_per_s(const struct cp_mod_calib_result *res);
/* Requests per second of wall time: an akcipher's or a kpp's operations per second. */
double cp_mod_ops_per_s(const struct cp_mod_calib_result *res);
double cp_mod_ns_per_request(const struct cp_mod_calib_result *res);
double cp_mod_cpu_ns_per_byte(const struct cp_mod_calib_result *res);
/* Uncompressed bytes per compressed byte of a compressor's run. */
double cp_mod_compression_ratio(const struct cp_mod_calib_result *res);

/* "ok", "mismatch", "unsupported". */
const char *cp_mod_kat_to_string(enum cryptoprio_kat kat);
