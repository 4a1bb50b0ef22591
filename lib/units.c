/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "units.h"

/* Leading decimal digits as an unsigned number; no sign, no blanks. */
static int parse_digits(const char *s, const char **ret_end, uint64_t *ret)
{
	uint64_t v = 0;
	const char *p = s;

	if (!isdigit((unsigned char) *p))
		return -EINVAL;
	for (; isdigit((unsigned char) *p); p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t) (*p - '0');
	}
	*ret_end = p;
	*ret = v;
	return 0;
}

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

int cp_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
	const char *end;
	uint64_t v;
	int r;

	r = parse_digits(s, &end, &v);
	if (r < 0)
		return r;
	if (*end != '\0')
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*ret = v;
	return 0;
}

static int size_multiplier(const char *unit, uint64_t *ret)
{
	static const struct {
		const char *suffix;
		uint64_t factor;
	} table[] = {
	    {"", 1}, {"B", 1}, {"K", 1024}, {"KiB", 1024}, {"M", 1024 * 1024}, {"MiB", 1024 * 1024},
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (strcmp(unit, table[i].suffix) == 0) {
			*ret = table[i].factor;
			return 0;
		}
	}
	return -EINVAL;
}

int cp_parse_size_range(const char *s, uint64_t min, uint64_t max, uint32_t *ret_bytes)
{
	const char *end;
	uint64_t v, factor;
	int r;

	r = parse_digits(s, &end, &v);
	if (r < 0)
		return r;
	r = size_multiplier(skip_blanks(end), &factor);
	if (r < 0)
		return r;
	if (max > UINT32_MAX)
		max = UINT32_MAX;
	if (v > max || v * factor < min || v * factor > max)
		return -ERANGE;
	*ret_bytes = (uint32_t) (v * factor);
	return 0;
}

int cp_parse_size(const char *s, uint32_t *ret_bytes)
{
	return cp_parse_size_range(s, CP_SIZE_MIN, CP_SIZE_MAX, ret_bytes);
}

/* Digits with an optional fraction, scaled by @unit_usec; rounds down to whole microseconds. */
static int scale_decimal(uint64_t whole, const char *frac, size_t n_frac, uint64_t unit_usec,
			 uint64_t *ret)
{
	uint64_t usec, div = 1, f = 0;

	if (whole > CP_DURATION_MAX_USEC)
		return -ERANGE;
	usec = whole * unit_usec;
	for (size_t i = 0; i < n_frac && div < unit_usec; i++) {
		f = f * 10 + (uint64_t) (frac[i] - '0');
		div *= 10;
	}
	*ret = usec + f * unit_usec / div;
	return 0;
}

int cp_parse_duration(const char *s, uint64_t *ret_usec)
{
	const char *end, *frac = NULL, *unit;
	uint64_t whole, usec, unit_usec;
	size_t n_frac = 0;
	int r;

	r = parse_digits(s, &end, &whole);
	if (r < 0)
		return r;
	if (*end == '.') {
		frac = end + 1;
		while (isdigit((unsigned char) frac[n_frac]))
			n_frac++;
		if (n_frac == 0)
			return -EINVAL;
		end = frac + n_frac;
	}
	unit = skip_blanks(end);
	if (strcmp(unit, "ms") == 0 || strcmp(unit, "msec") == 0)
		unit_usec = CP_USEC_PER_MSEC;
	else if (strcmp(unit, "") == 0 || strcmp(unit, "s") == 0 || strcmp(unit, "sec") == 0)
		unit_usec = CP_USEC_PER_SEC;
	else
		return -EINVAL;
	r = scale_decimal(whole, frac, n_frac, unit_usec, &usec);
	if (r < 0)
		return r;
	if (usec < CP_DURATION_MIN_USEC || usec > CP_DURATION_MAX_USEC)
		return -ERANGE;
	*ret_usec = usec;
	return 0;
}

int cp_parse_boolean(const char *s)
{
	static const char *const yes[] = {"yes", "true", "on", "1"};
	static const char *const no[] = {"no", "false", "off", "0"};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcasecmp(s, yes[i]) == 0)
			return 1;
		if (strcasecmp(s, no[i]) == 0)
			return 0;
	}
	return -EINVAL;
}

const char *cp_format_size(char *buf, size_t len, uint64_t bytes)
{
	if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0)
		snprintf(buf, len, "%" PRIu64 " MiB", bytes / (1024 * 1024));
	else if (bytes >= 1024 && bytes % 1024 == 0)
		snprintf(buf, len, "%" PRIu64 " KiB", bytes / 1024);
	else
		snprintf(buf, len, "%" PRIu64 " B", bytes);
	return buf;
}

const char *cp_format_duration(char *buf, size_t len, uint64_t usec)
{
	if (usec % CP_USEC_PER_SEC == 0)
		snprintf(buf, len, "%" PRIu64 "s", usec / CP_USEC_PER_SEC);
	else if (usec % CP_USEC_PER_MSEC == 0)
		snprintf(buf, len, "%" PRIu64 "ms", usec / CP_USEC_PER_MSEC);
	else
		snprintf(buf, len, "%" PRIu64 "us", usec);
	return buf;
}
