/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Sizes, time spans, booleans and integers parsed and formatted (units.h). */
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

	if (whole > CP_TIMESPAN_MAX_USEC / unit_usec)
		return -ERANGE;
	usec = whole * unit_usec;
	/* Six digits at most: f * unit_usec stays within 64 bits up to weeks. */
	for (size_t i = 0; i < n_frac && div < unit_usec && div < CP_USEC_PER_SEC; i++) {
		f = f * 10 + (uint64_t) (frac[i] - '0');
		div *= 10;
	}
	*ret = usec + f * unit_usec / div;
	return 0;
}

/* systemd's time units (systemd.time(7)), in microseconds; 0 for an unknown unit. */
static uint64_t time_unit(const char *unit, size_t len)
{
	static const struct {
		const char *name;
		uint64_t usec;
	} units[] = {
	    {"us", 1},
	    {"usec", 1},
	    {"\u00b5s", 1},
	    {"\u03bcs", 1},
	    {"ms", CP_USEC_PER_MSEC},
	    {"msec", CP_USEC_PER_MSEC},
	    {"s", CP_USEC_PER_SEC},
	    {"sec", CP_USEC_PER_SEC},
	    {"second", CP_USEC_PER_SEC},
	    {"seconds", CP_USEC_PER_SEC},
	    {"m", 60 * CP_USEC_PER_SEC},
	    {"min", 60 * CP_USEC_PER_SEC},
	    {"minute", 60 * CP_USEC_PER_SEC},
	    {"minutes", 60 * CP_USEC_PER_SEC},
	    {"h", 3600 * CP_USEC_PER_SEC},
	    {"hr", 3600 * CP_USEC_PER_SEC},
	    {"hour", 3600 * CP_USEC_PER_SEC},
	    {"hours", 3600 * CP_USEC_PER_SEC},
	    {"d", 86400 * CP_USEC_PER_SEC},
	    {"day", 86400 * CP_USEC_PER_SEC},
	    {"days", 86400 * CP_USEC_PER_SEC},
	    {"w", 604800 * CP_USEC_PER_SEC},
	    {"week", 604800 * CP_USEC_PER_SEC},
	    {"weeks", 604800 * CP_USEC_PER_SEC},
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strlen(units[i].name) == len && strncmp(unit, units[i].name, len) == 0)
			return units[i].usec;
	return 0;
}

/* The unit's letters at @p: ASCII letters and the bytes of a UTF-8 'µ'. */
static size_t unit_length(const char *p)
{
	size_t n = 0;

	while (isalpha((unsigned char) p[n]) || (unsigned char) p[n] >= 0x80)
		n++;
	return n;
}

/* One "1.5s" of a time span at *@p, moved past it; its microseconds added to *@sum. */
static int parse_span_part(const char **p, uint64_t default_unit, uint64_t *sum)
{
	const char *end, *frac = NULL;
	uint64_t whole, usec, unit;
	size_t n_frac = 0, n_unit;
	int r;

	r = parse_digits(*p, &end, &whole);
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
	end = skip_blanks(end);
	n_unit = unit_length(end);
	unit = n_unit ? time_unit(end, n_unit) : default_unit;
	if (unit == 0)
		return -EINVAL;
	if (whole > CP_TIMESPAN_MAX_USEC / unit)
		return -ERANGE;
	r = scale_decimal(whole, frac, n_frac, unit, &usec);
	if (r < 0 || usec > CP_TIMESPAN_MAX_USEC - *sum)
		return -ERANGE;
	*sum += usec;
	*p = skip_blanks(end + n_unit);
	return 0;
}

int cp_parse_timespan(const char *s, uint64_t default_unit_usec, uint64_t *ret_usec)
{
	const char *p = skip_blanks(s);
	uint64_t sum = 0;
	int r;

	if (*p == '\0')
		return -EINVAL;
	while (*p) {
		r = parse_span_part(&p, default_unit_usec, &sum);
		if (r < 0)
			return r;
	}
	*ret_usec = sum;
	return 0;
}

int cp_parse_duration(const char *s, uint64_t *ret_usec)
{
	uint64_t usec;
	int r = cp_parse_timespan(s, CP_USEC_PER_SEC, &usec);

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
