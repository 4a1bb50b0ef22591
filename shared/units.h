/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Sizes, durations, booleans and bounded integers as policy files write them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CP_SIZE_MIN	     16u      /* bytes: one AES block */
#define CP_SIZE_MAX	     1048576u /* bytes: the companion module's limit (1 MiB) */
#define CP_IN_FLIGHT_MIN     1u
#define CP_IN_FLIGHT_MAX     64u		/* the companion module's limit */
#define CP_DURATION_MIN_USEC UINT64_C(1000)	/* 1 ms */
#define CP_DURATION_MAX_USEC UINT64_C(60000000) /* 60 s */
#define CP_TIMESPAN_MAX_USEC (UINT64_MAX / 2)	/* no span means more */
#define CP_USEC_PER_MSEC     UINT64_C(1000)
#define CP_USEC_PER_SEC	     UINT64_C(1000000)

/*
 * "4096", "4K", "4KiB", "1M", "1MiB" (K = 1024, M = 1024 K; blanks allowed
 * between number and unit). Returns 0, -EINVAL (not a size) or -ERANGE
 * (outside CP_SIZE_MIN..CP_SIZE_MAX).
 */
int cp_parse_size(const char *s, uint32_t *ret_bytes);
/* The same, within @min..@max bytes (at most UINT32_MAX). */
int cp_parse_size_range(const char *s, uint64_t min, uint64_t max, uint32_t *ret_bytes);

/*
 * A time span as systemd.time(7) writes them: "500ms", "2s", "1min",
 * "1s 500ms", "1.5s", "100us", "2h", each part with one of systemd's units
 * (us, ms, s, min, h, d, w and their long forms); a part without a unit is
 * in @default_unit_usec. Rounds down to whole microseconds. Returns 0,
 * -EINVAL or -ERANGE (beyond CP_TIMESPAN_MAX_USEC).
 */
int cp_parse_timespan(const char *s, uint64_t default_unit_usec, uint64_t *ret_usec);

/*
 * A time span whose bare number is seconds, as systemd's, within
 * CP_DURATION_MIN_USEC..CP_DURATION_MAX_USEC: "500ms", "2", "1min".
 * Returns 0, -EINVAL or -ERANGE (outside that range).
 */
int cp_parse_duration(const char *s, uint64_t *ret_usec);

/* yes/no, true/false, on/off, 1/0 (case-insensitive): 1, 0 or -EINVAL. */
int cp_parse_boolean(const char *s);

/* A decimal integer in min..max, no sign, no blanks around: 0, -EINVAL or -ERANGE. */
int cp_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *ret);

/* "4 KiB", "64 KiB", "1 MiB", "4095 B": exact, for messages and tables. */
const char *cp_format_size(char *buf, size_t len, uint64_t bytes);

/* "500ms", "2s", "1500ms". */
const char *cp_format_duration(char *buf, size_t len, uint64_t usec);
