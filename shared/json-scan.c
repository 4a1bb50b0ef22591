/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The strict JSON reader that builds nothing (json-scan.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json-scan.h"

/* The longest number read: cryptoprio writes six significant digits. */
#define NUMBER_MAX 64

static int fail(struct cp_jscan *s)
{
	s->failed = true;
	return -EBADMSG;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The next character after white space, or '\0' at the end. */
static char peek(struct cp_jscan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
	return s->p < s->end ? *s->p : '\0';
}

void cp_jscan_init(struct cp_jscan *s, const char *text, size_t len)
{
	*s = (struct cp_jscan){.p = text, .end = text + len, .first = true};
}

static int open_container(struct cp_jscan *s, char open)
{
	if (s->failed || peek(s) != open || s->depth >= CP_JSCAN_MAX_DEPTH)
		return fail(s);
	s->p++;
	s->depth++;
	s->first = true;
	return 0;
}

int cp_jscan_object(struct cp_jscan *s)
{
	return open_container(s, '{');
}

int cp_jscan_array(struct cp_jscan *s)
{
	return open_container(s, '[');
}

/* Before the innermost container's next member: 1, or 0 past its end @close. */
static int next_member(struct cp_jscan *s, char close)
{
	char c;

	if (s->failed || s->depth == 0)
		return fail(s);
	c = peek(s);
	if (c == close) {
		s->p++;
		s->depth--;
		s->first = false; /* the container was a value of its own container */
		return 0;
	}
	if (!s->first) {
		if (c != ',')
			return fail(s);
		s->p++;
	}
	s->first = false;
	return 1;
}

int cp_jscan_item(struct cp_jscan *s)
{
	return next_member(s, ']');
}

static int hex4(struct cp_jscan *s, unsigned *ret)
{
	unsigned v = 0;

	if (s->end - s->p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = *s->p++;

		v <<= 4;
		if (is_digit(c))
			v |= (unsigned) (c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned) (c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned) (c - 'A' + 10);
		else
			return -1;
	}
	*ret = v;
	return 0;
}

static size_t utf8_encode(unsigned cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char) cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char) (0xc0 | (cp >> 6));
		out[1] = (char) (0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char) (0xe0 | (cp >> 12));
		out[1] = (char) (0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char) (0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char) (0xf0 | (cp >> 18));
	out[1] = (char) (0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char) (0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char) (0x80 | (cp & 0x3f));
	return 4;
}

/* \uXXXX, a surrogate pair as one character; \u0000 would cut the string: refused. */
static int unescape_unicode(struct cp_jscan *s, char *out, size_t *len)
{
	unsigned cp, low;

	if (hex4(s, &cp) < 0 || cp == 0 || (cp >= 0xdc00 && cp < 0xe000))
		return -1;
	if (cp >= 0xd800 && cp < 0xdc00) {
		if (s->end - s->p < 2 || s->p[0] != '\\' || s->p[1] != 'u')
			return -1;
		s->p += 2;
		if (hex4(s, &low) < 0 || low < 0xdc00 || low >= 0xe000)
			return -1;
		cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
	}
	*len = utf8_encode(cp, out);
	return 0;
}

/* After a backslash: the character it stands for in @out, its length in @len. */
static int unescape(struct cp_jscan *s, char *out, size_t *len)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *at;

	if (s->p >= s->end)
		return -1;
	if (*s->p == 'u') {
		s->p++;
		return unescape_unicode(s, out, len);
	}
	at = *s->p ? strchr(from, *s->p) : NULL;
	if (!at)
		return -1;
	s->p++;
	out[0] = to[at - from];
	*len = 1;
	return 0;
}

/* @len bytes of @src after the @n of @dst; past its @size, only *@too_long is set. */
static void append(char *dst, size_t size, size_t *n, bool *too_long, const char *src, size_t len)
{
	if (*too_long || *n + len >= size) {
		*too_long = true;
		return;
	}
	memcpy(dst + *n, src, len);
	*n += len;
}

/* A string into @dst; one too long for it fails, or with @long_as_empty reads as "". */
static int read_string(struct cp_jscan *s, char *dst, size_t size, bool long_as_empty)
{
	size_t n = 0;
	bool too_long = false;

	if (s->failed || peek(s) != '"')
		return fail(s);
	s->p++;
	for (;;) {
		const char *run = s->p;
		char c[4];
		size_t len;

		/* The plain characters up to the next quote or backslash, at once. */
		while (s->p < s->end && *s->p != '"' && *s->p != '\\' &&
		       (unsigned char) *s->p >= 0x20)
			s->p++;
		append(dst, size, &n, &too_long, run, (size_t) (s->p - run));
		if (s->p >= s->end || (unsigned char) *s->p < 0x20)
			return fail(s);
		if (*s->p++ == '"')
			break;
		if (unescape(s, c, &len) < 0)
			return fail(s);
		append(dst, size, &n, &too_long, c, len);
	}
	if (too_long && !long_as_empty)
		return fail(s);
	dst[too_long ? 0 : n] = '\0';
	return 0;
}

int cp_jscan_string(struct cp_jscan *s, char *dst, size_t size)
{
	return read_string(s, dst, size, false);
}

int cp_jscan_key(struct cp_jscan *s, char *key, size_t size)
{
	int r = next_member(s, '}');

	if (r <= 0)
		return r;
	/* A key too long to be one the caller knows is an unknown one: "". */
	if (read_string(s, key, size, true) < 0 || peek(s) != ':')
		return fail(s);
	s->p++;
	return 1;
}

static const char *digits(const char *p, const char *end)
{
	while (p < end && is_digit(*p))
		p++;
	return p;
}

/* RFC 8259's number at the scanner, copied into @buf: its length, 0 if none. */
static size_t number_text(struct cp_jscan *s, char buf[NUMBER_MAX], bool *integral)
{
	const char *p = s->p, *q = p;
	size_t len;

	if (q < s->end && *q == '-')
		q++;
	if (q >= s->end || !is_digit(*q))
		return 0;
	q = *q == '0' ? q + 1 : digits(q, s->end);
	*integral = true;
	if (q < s->end && *q == '.') {
		*integral = false;
		if (++q >= s->end || !is_digit(*q))
			return 0;
		q = digits(q, s->end);
	}
	if (q < s->end && (*q == 'e' || *q == 'E')) {
		*integral = false;
		if (++q < s->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= s->end || !is_digit(*q))
			return 0;
		q = digits(q, s->end);
	}
	len = (size_t) (q - p);
	if (len >= NUMBER_MAX)
		return 0;
	memcpy(buf, p, len);
	buf[len] = '\0';
	s->p = q;
	return len;
}

int cp_jscan_int(struct cp_jscan *s, int64_t min, int64_t max, int64_t *ret)
{
	char buf[NUMBER_MAX];
	bool integral;
	long long v;

	if (s->failed || !peek(s) || !number_text(s, buf, &integral) || !integral)
		return fail(s);
	errno = 0;
	v = strtoll(buf, NULL, 10);
	if (errno || v < min || v > max)
		return fail(s);
	*ret = v;
	return 0;
}

/*
 * "[-]DIGITS[.DIGITS]" of at most 15 digits, as the cache writes them:
 * the digits as an integer (exact below 2^53) divided by an exact power
 * of ten, one rounding, which is strtod()'s correctly rounded result
 * (Clinger's fast path) at a tenth of its cost. false for anything else.
 */
static bool decimal_fast(const char *text, double *ret)
{
	static const double powers[] = {1e0, 1e1, 1e2,	1e3,  1e4,  1e5,  1e6,	1e7,
					1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
	const char *p = text + (*text == '-');
	uint64_t digits = 0;
	int n = 0, fraction = -1;

	for (; *p; p++) {
		if (*p == '.' && fraction < 0)
			fraction = 0;
		else if (is_digit(*p) && n < 15) {
			digits = digits * 10 + (uint64_t) (*p - '0');
			n++;
			fraction += fraction >= 0;
		} else
			return false;
	}
	*ret = (double) digits / powers[fraction > 0 ? fraction : 0];
	if (*text == '-')
		*ret = -*ret;
	return true;
}

int cp_jscan_double(struct cp_jscan *s, double *ret)
{
	char buf[NUMBER_MAX];
	bool integral;
	double v;

	if (s->failed || !peek(s) || !number_text(s, buf, &integral))
		return fail(s);
	if (decimal_fast(buf, &v)) {
		*ret = v;
		return 0;
	}
	v = strtod(buf, NULL);
	if (!isfinite(v))
		return fail(s);
	*ret = v;
	return 0;
}

static bool literal(struct cp_jscan *s, const char *word)
{
	size_t len = strlen(word);

	if ((size_t) (s->end - s->p) < len || memcmp(s->p, word, len) != 0)
		return false;
	s->p += len;
	return true;
}

int cp_jscan_bool(struct cp_jscan *s, bool *ret)
{
	if (s->failed || !peek(s))
		return fail(s);
	if (literal(s, "true"))
		*ret = true;
	else if (literal(s, "false"))
		*ret = false;
	else
		return fail(s);
	return 0;
}

int cp_jscan_skip(struct cp_jscan *s)
{
	char c = s->failed ? '\0' : peek(s), word[1];
	bool b;
	double d;
	int r;

	switch (c) {
	case '{':
		if (cp_jscan_object(s) < 0)
			return -EBADMSG;
		while ((r = cp_jscan_key(s, word, sizeof(word))) > 0)
			if (cp_jscan_skip(s) < 0)
				return -EBADMSG;
		return r;
	case '[':
		if (cp_jscan_array(s) < 0)
			return -EBADMSG;
		while ((r = cp_jscan_item(s)) > 0)
			if (cp_jscan_skip(s) < 0)
				return -EBADMSG;
		return r;
	case '"':
		return read_string(s, word, sizeof(word), true);
	case 't':
	case 'f':
		return cp_jscan_bool(s, &b);
	case 'n':
		return literal(s, "null") ? 0 : fail(s);
	default:
		return cp_jscan_double(s, &d);
	}
}

int cp_jscan_end(struct cp_jscan *s)
{
	if (s->failed || s->depth > 0 || peek(s) || s->p != s->end)
		return fail(s);
	return 0;
}
