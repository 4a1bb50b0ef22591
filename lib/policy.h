/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The policy: /etc/cryptoprio.conf and its drop-ins (cryptoprio.conf(5)),
 * parsed with inih, validated with file:line for every error, and the
 * effective settings for an algorithm name or a driver with which file:line
 * set each of them.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "inventory.h"

enum cp_gears {
	CP_GEARS_CPU_OFFLOAD, /* CPU first gear, offload second (the default) */
	CP_GEARS_OFFLOAD_CPU,
	CP_GEARS_ANY, /* one gear for all classes: ranked by measurement alone */
};

enum cp_rank {
	CP_RANK_THROUGHPUT, /* MB/s, higher is better */
	CP_RANK_LATENCY,    /* ns per request, lower is better */
	CP_RANK_CPU_COST,   /* CPU ns per byte, lower is better */
	CP_RANK_RATIO,	    /* a compressor's compression ratio, higher is better */
};

/* The policy's Calibrate=: when the figures the planner orders by are measured. */
enum cp_calibration_mode {
	CP_CALIBRATE_BOOT,   /* use the cache if valid, else measure */
	CP_CALIBRATE_CACHED, /* never measure at boot */
	CP_CALIBRATE_NEVER,  /* order by class alone */
};

enum cp_pin {
	CP_PIN_NONE,
	CP_PIN_FIRST,
	CP_PIN_LAST,
};

enum cp_key {
	CP_KEY_GEARS,
	CP_KEY_RANK,
	CP_KEY_REQUEST_SIZE, /* bytes */
	CP_KEY_IN_FLIGHT,
	CP_KEY_VERIFY, /* 0 or 1 */
	CP_KEY_CALIBRATE,
	CP_KEY_CALIBRATION_BUDGET, /* microseconds */
	CP_KEY_PIN,
	CP_KEY_CLASS,	 /* enum cp_class */
	CP_KEY_EXCLUDE,	 /* 0 or 1 */
	CP_KEY_PRIORITY, /* 0..INT_MAX */
	_CP_KEY_MAX,
};

enum cp_section_kind {
	CP_SECTION_POLICY,
	CP_SECTION_ALGORITHM,
	CP_SECTION_DRIVER,
};

/* Where a value comes from; file == NULL: the built-in default. */
struct cp_origin {
	const char *file; /* owned by the policy (cp_policy.files) */
	unsigned line;
};

struct cp_section {
	enum cp_section_kind kind;
	char *pattern;		/* fnmatch pattern without extglob; NULL for [Policy] */
	bool exact;		/* pattern has no wildcard: beats any pattern */
	size_t file_index;	/* into cp_policy.files */
	struct cp_origin where; /* the [header] line */
	uint64_t value[_CP_KEY_MAX];
	struct cp_origin origin[_CP_KEY_MAX]; /* .file == NULL: not set in this section */
};

struct cp_policy_error {
	char *file;
	unsigned line; /* 0: about the whole file or directory */
	char *reason;
};

struct cp_policy {
	char **files; /* read, in order of increasing precedence */
	size_t n_files;
	struct cp_section *sections; /* in the order read: a later one beats an earlier one */
	size_t n_sections;
	struct cp_policy_error *errors; /* any error: the whole policy is refused */
	size_t n_errors;
	/*
	 * [Policy] MetricsFile=: where the daemon writes its metrics after
	 * every run (an absolute path), or NULL: nowhere. A path, unlike the
	 * other keys: the last file that sets it wins; empty resets it.
	 */
	char *metrics_file;
	struct cp_origin metrics_file_origin;
};

/* What applies to one algorithm name ([Policy] keys from [Algorithm] sections or [Policy]). */
struct cp_settings {
	enum cp_gears gears;
	enum cp_rank rank;
	uint32_t request_size;
	uint32_t in_flight;
	bool verify;
	enum cp_calibration_mode calibrate;
	uint64_t calibration_budget_usec;
	struct cp_origin origin[_CP_KEY_MAX]; /* .file == NULL: built-in default */
};

/* What applies to one driver from the [Driver] sections matching it. */
struct cp_driver_rule {
	enum cp_pin pin;
	bool exclude;
	bool has_priority;
	uint32_t priority; /* with has_priority: a fixed value, honoured as is */
	bool has_class;
	enum cp_class class; /* with has_class: overrides detection */
	/* The section that decided Pin/Exclude/Priority (one slot: the best match wins). */
	struct cp_origin placement;
	struct cp_origin class_origin;
};

/* Defaults (cryptoprio.conf(5)): CPU first, offload second, throughput at 4 KiB, depth 1. */
#define CP_DEFAULT_GEARS	      CP_GEARS_CPU_OFFLOAD
#define CP_DEFAULT_RANK		      CP_RANK_THROUGHPUT
#define CP_DEFAULT_REQUEST_SIZE	      4096u
#define CP_DEFAULT_IN_FLIGHT	      1u
#define CP_DEFAULT_VERIFY	      true
#define CP_DEFAULT_CALIBRATE	      CP_CALIBRATE_BOOT
#define CP_DEFAULT_CALIBRATION_BUDGET UINT64_C(2000000)

/* An empty policy: the built-in default. */
struct cp_policy *cp_policy_new(void);
void cp_policy_free(struct cp_policy *policy);
static inline void cp_policy_freep(struct cp_policy **p)
{
	if (*p)
		cp_policy_free(*p);
}

/*
 * Read the effective policy: the search path under @root ("" or NULL for /)
 * with systemd's precedence, or only @config_file when it is not NULL
 * (-c FILE). No file at all: the built-in default.
 *
 * Returns 0 and a valid policy; -EBADMSG when errors were found (*ret is
 * set anyway: print (*ret)->errors, then refuse it); another negative errno
 * (-ENOMEM) without a policy.
 */
int cp_policy_load(const char *root, const char *config_file, struct cp_policy **ret);

/*
 * Add one file to @policy (after what it holds already: higher precedence).
 * A symlink to /dev/null (or /dev/null itself) is empty. Errors are recorded
 * in the policy; returns 0 or -ENOMEM.
 */
int cp_policy_parse_file(struct cp_policy *policy, const char *path);

/* Parse @f as if it were the file @name (tests, fuzzing). Returns 0 or -ENOMEM. */
int cp_policy_parse_stream(struct cp_policy *policy, FILE *f, const char *name);

static inline bool cp_policy_is_valid(const struct cp_policy *policy)
{
	return policy->n_errors == 0;
}

/* Effective [Policy] settings (the base of every algorithm). */
void cp_policy_global(const struct cp_policy *policy, struct cp_settings *ret);

/* Effective settings for algorithm @name: exact [Algorithm] beats a pattern, later beats earlier,
 * per key. */
void cp_policy_algorithm(const struct cp_policy *policy, const char *name, struct cp_settings *ret);

/* Effective rule for @driver: exact [Driver] beats a pattern, later beats earlier. */
void cp_policy_driver(const struct cp_policy *policy, const char *driver,
		      struct cp_driver_rule *ret);

/*
 * Sections merged by identity (kind and pattern) in order of first
 * appearance, per key the value of the last file that set it: what
 * `check-policy --verbose` shows. The array is allocated, its patterns
 * point into @policy. Returns the count or -ENOMEM.
 */
int cp_policy_merged_sections(const struct cp_policy *policy, struct cp_section **ret);

/* Names and values as the files write them: "Gears", "cpu offload", "4K", "2s", "yes". */
const char *cp_key_to_string(enum cp_key key);
const char *cp_section_kind_to_string(enum cp_section_kind kind);
/* Formats @value of @key into @buf; returns @buf. */
const char *cp_key_value_to_string(enum cp_key key, uint64_t value, char *buf, size_t len);
const char *cp_gears_to_string(enum cp_gears gears);
const char *cp_rank_to_string(enum cp_rank rank);
const char *cp_calibration_mode_to_string(enum cp_calibration_mode calibrate);
const char *cp_pin_to_string(enum cp_pin pin);
