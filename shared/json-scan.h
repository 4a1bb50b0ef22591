/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A JSON reader that builds nothing: it walks the text token by token and
 * the caller stores each value where it belongs. For the file read at
 * every start (the calibration cache), where json-c's tokenizer and the
 * object tree it builds and frees were a third of a warm start.
 *
 * Strict RFC 8259: no comments, no trailing commas, nothing after the
 * value but white space, at most CP_JSCAN_MAX_DEPTH containers deep. Every
 * call returns 0 (or 1 where it says) on success and -EBADMSG on anything
 * else; after an error the scanner stays failed.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CP_JSCAN_MAX_DEPTH 32

struct cp_jscan {
	const char *p, *end;
	unsigned depth;
	bool first; /* no value yet in the innermost open container */
	bool failed;
};

void cp_jscan_init(struct cp_jscan *s, const char *text, size_t len);

/* '{': then cp_jscan_key() until it returns 0 at '}'. */
int cp_jscan_object(struct cp_jscan *s);
/* The next key into @key (its value follows): 1; the object's end: 0. */
int cp_jscan_key(struct cp_jscan *s, char *key, size_t size);
/* '[': then cp_jscan_item() until it returns 0 at ']'. */
int cp_jscan_array(struct cp_jscan *s);
/* A value follows: 1; the array's end: 0. */
int cp_jscan_item(struct cp_jscan *s);

/* A string that fits @size with its NUL (too long: -EBADMSG). */
int cp_jscan_string(struct cp_jscan *s, char *dst, size_t size);
/* A number without fraction or exponent, within [@min, @max]. */
int cp_jscan_int(struct cp_jscan *s, int64_t min, int64_t max, int64_t *ret);
/* Any number. */
int cp_jscan_double(struct cp_jscan *s, double *ret);
int cp_jscan_bool(struct cp_jscan *s, bool *ret);
/* Any value, read and checked, then dropped. */
int cp_jscan_skip(struct cp_jscan *s);
/* Nothing but white space left. */
int cp_jscan_end(struct cp_jscan *s);
