/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Sizes, durations, booleans and bounded integers as policy files write them. */
#include <errno.h>
#include <stdint.h>

#include "macro.h"
#include "tap.h"
#include "units.h"

static void test_sizes(void)
{
	static const struct {
		const char *text;
		int r;
		uint32_t bytes;
	} cases[] = {
	    {"4096", 0, 4096},	    {"4K", 0, 4096},
	    {"4KiB", 0, 4096},	    {"4 KiB", 0, 4096},
	    {"64K", 0, 65536},	    {"1M", 0, 1048576},
	    {"1MiB", 0, 1048576},   {"16", 0, 16},
	    {"16B", 0, 16},	    {"1024K", 0, 1048576},
	    {"15", -ERANGE, 0},	    {"2M", -ERANGE, 0},
	    {"1025K", -ERANGE, 0},  {"0", -ERANGE, 0},
	    {"4k", -EINVAL, 0},	    {"4KB", -EINVAL, 0},
	    {"-4K", -EINVAL, 0},    {"", -EINVAL, 0},
	    {"K", -EINVAL, 0},	    {"4.5K", -EINVAL, 0},
	    {"4K # x", -EINVAL, 0}, {"99999999999999999999", -ERANGE, 0},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint32_t bytes = 0;
		int r = cp_parse_size(cases[i].text, &bytes);

		is_int(r, cases[i].r, "size '%s' -> %d", cases[i].text, cases[i].r);
		if (cases[i].r == 0)
			is_int(bytes, cases[i].bytes, "size '%s' = %u bytes", cases[i].text,
			       cases[i].bytes);
	}
}

/* calibrate --raw: any u32 size, the module says what it refuses. */
static void test_size_range(void)
{
	uint32_t bytes = 0;

	is_int(cp_parse_size_range("0", 0, UINT32_MAX, &bytes), 0, "range: 0 within 0..");
	is_int(bytes, 0, "range: 0 bytes");
	is_int(cp_parse_size_range("2M", 0, UINT32_MAX, &bytes), 0, "range: 2M beyond CP_SIZE_MAX");
	is_int(bytes, 2097152, "range: 2M = 2097152 bytes");
	is_int(cp_parse_size_range("4194304K", 0, UINT64_MAX, &bytes), -ERANGE,
	       "range: 4 GiB beyond u32, whatever the max");
	is_int(cp_parse_size_range("15", 16, 32, &bytes), -ERANGE, "range: below min");
	is_int(cp_parse_size_range("4k", 0, UINT32_MAX, &bytes), -EINVAL, "range: bad unit");
}

static void test_durations(void)
{
	static const struct {
		const char *text;
		int r;
		uint64_t usec;
	} cases[] = {
	    {"500ms", 0, 500000},
	    {"2s", 0, 2000000},
	    {"2", 0, 2000000},
	    {"1.5s", 0, 1500000},
	    {"60s", 0, 60000000},
	    {"1ms", 0, 1000},
	    {"2 s", 0, 2000000},
	    {"61s", -ERANGE, 0},
	    {"0", -ERANGE, 0},
	    {"0.5ms", -ERANGE, 0},
	    {"2min", -ERANGE, 0},
	    {"s", -EINVAL, 0},
	    {"1.s", -EINVAL, 0},
	    {"-1s", -EINVAL, 0},
	    /* systemd's time spans (systemd.time(7)), within the same range */
	    {"1min", 0, 60000000},
	    {"1s 500ms", 0, 1500000},
	    {"1s500ms", 0, 1500000},
	    {"0.5min", 0, 30000000},
	    {"100ms 1s", 0, 1100000},
	    {"1000us", 0, 1000},
	    {"1500usec", 0, 1500},
	    {"2 sec", 0, 2000000},
	    {"3seconds", 0, 3000000},
	    {"1 minute", 0, 60000000},
	    {"1 500ms", 0, 1500000},
	    {"2h", -ERANGE, 0},
	    {"1min 1ms", -ERANGE, 0},
	    {"999us", -ERANGE, 0},
	    {"1x", -EINVAL, 0},
	    {"1s x", -EINVAL, 0},
	    {"1s,2s", -EINVAL, 0},
	    {" ", -EINVAL, 0},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t usec = 0;
		int r = cp_parse_duration(cases[i].text, &usec);

		is_int(r, cases[i].r, "duration '%s' -> %d", cases[i].text, cases[i].r);
		if (cases[i].r == 0)
			is_int(usec, cases[i].usec, "duration '%s' = %llu us", cases[i].text,
			       (unsigned long long) cases[i].usec);
	}
}

/* The span alone: every unit of systemd, no range, a bare number in the caller's unit. */
static void test_timespans(void)
{
	static const struct {
		const char *text;
		uint64_t default_unit;
		int r;
		uint64_t usec;
	} cases[] = {
	    {"100us", 1000, 0, 100},
	    {"5\u00b5s", 1000, 0, 5},
	    {"2h", 1000, 0, UINT64_C(7200000000)},
	    {"1hr 30min", 1000, 0, UINT64_C(5400000000)},
	    {"1d", 1000, 0, UINT64_C(86400000000)},
	    {"1.5w", 1000, 0, UINT64_C(907200000000)},
	    {"2days 1h", 1000, 0, UINT64_C(176400000000)},
	    {"250", 1000, 0, 250000}, /* calibrate --raw --budget: milliseconds */
	    {"250", 1000000, 0, 250000000},
	    {"0", 1000, 0, 0},
	    {"1.25", 1000, 0, 1250},
	    {"2s", 1000, 0, 2000000},
	    {"1y", 1000, -EINVAL, 0},
	    {"", 1000, -EINVAL, 0},
	    {"99999999999999w", 1000, -ERANGE, 0},
	    {"9223372036854775807s", 1000, -ERANGE, 0},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t usec = 0;
		int r = cp_parse_timespan(cases[i].text, cases[i].default_unit, &usec);

		is_int(r, cases[i].r, "timespan '%s' -> %d", cases[i].text, cases[i].r);
		if (cases[i].r == 0)
			is_int(usec, cases[i].usec, "timespan '%s' = %llu us", cases[i].text,
			       (unsigned long long) cases[i].usec);
	}
}

static void test_booleans_and_numbers(void)
{
	static const char *const yes[] = {"yes", "true", "on", "1", "YES", "True"};
	static const char *const no[] = {"no", "false", "off", "0", "No"};
	uint64_t v = 0;
	char buf[32];

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++)
		is_int(cp_parse_boolean(yes[i]), 1, "boolean '%s'", yes[i]);
	for (size_t i = 0; i < ARRAY_SIZE(no); i++)
		is_int(cp_parse_boolean(no[i]), 0, "boolean '%s'", no[i]);
	is_int(cp_parse_boolean("maybe"), -EINVAL, "boolean 'maybe' refused");
	is_int(cp_parse_boolean(""), -EINVAL, "empty boolean refused");

	is_int(cp_parse_uint("64", 1, 64, &v), 0, "64 in 1..64");
	is_int(v, 64, "value 64");
	is_int(cp_parse_uint("65", 1, 64, &v), -ERANGE, "65 not in 1..64");
	is_int(cp_parse_uint("0", 1, 64, &v), -ERANGE, "0 not in 1..64");
	is_int(cp_parse_uint("-1", 0, 10, &v), -EINVAL, "no sign");
	is_int(cp_parse_uint(" 1", 0, 10, &v), -EINVAL, "no blanks");
	is_int(cp_parse_uint("2147483648", 0, 2147483647, &v), -ERANGE, "INT_MAX + 1");

	is_str(cp_format_size(buf, sizeof(buf), 4096), "4 KiB", "format 4 KiB");
	is_str(cp_format_size(buf, sizeof(buf), 1048576), "1 MiB", "format 1 MiB");
	is_str(cp_format_size(buf, sizeof(buf), 100), "100 B", "format 100 B");
	is_str(cp_format_duration(buf, sizeof(buf), 2000000), "2s", "format 2s");
	is_str(cp_format_duration(buf, sizeof(buf), 1500000), "1500ms", "format 1500ms");
}

int main(void)
{
	test_sizes();
	test_size_range();
	test_durations();
	test_timespans();
	test_booleans_and_numbers();
	return done_testing();
}
