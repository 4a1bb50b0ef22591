/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A minimal TAP producer for meson's "tap" protocol. Header-only: one per test binary. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int tap_run, tap_failed, tap_planned = -1;

static inline void plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
}

static inline void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

static inline bool tap_vok(bool cond, const char *fmt, va_list ap)
{
	tap_run++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_run);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	return cond;
}

static inline bool ok(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_vok(cond, fmt, ap);
	va_end(ap);
	return r;
}

#define is_int(got, want, ...)                                                                     \
	({                                                                                         \
		long long _g = (long long) (got), _w = (long long) (want);                         \
		bool _r = ok(_g == _w, __VA_ARGS__);                                               \
		if (!_r)                                                                           \
			diag("got %lld, want %lld", _g, _w);                                       \
		_r;                                                                                \
	})

#define is_str(got, want, ...)                                                                     \
	({                                                                                         \
		const char *_g = (got), *_w = (want);                                              \
		bool _r = ok(_g && _w && strcmp(_g, _w) == 0, __VA_ARGS__);                        \
		if (!_r)                                                                           \
			diag("got '%s', want '%s'", _g ? _g : "(null)", _w ? _w : "(null)");       \
		_r;                                                                                \
	})

/* Ends the test: prints the plan if none was given, returns the exit code. */
static inline int done_testing(void)
{
	if (tap_planned < 0)
		printf("1..%d\n", tap_run);
	else if (tap_planned != tap_run)
		diag("planned %d tests but ran %d", tap_planned, tap_run);
	return tap_failed == 0 && (tap_planned < 0 || tap_planned == tap_run) ? 0 : 1;
}
