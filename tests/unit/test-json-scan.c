/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* shared/json-scan.c: RFC 8259 read strictly, each value where the caller wants it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-scan.h"
#include "tap.h"

/* Any value, then nothing: what a reader that skips everything accepts. */
static bool valid_n(const char *text, size_t len)
{
	struct cp_jscan s;

	cp_jscan_init(&s, text, len);
	return cp_jscan_skip(&s) == 0 && cp_jscan_end(&s) == 0;
}

static bool valid(const char *text)
{
	return valid_n(text, strlen(text));
}

static void test_syntax(void)
{
	static const char *const good[] = {
	    "{}",
	    "[]",
	    " {\"a\" : [1, -2.5e3, 0, 0.25, true, false, null, \"x\"]}\n",
	    "{\"a\":{\"b\":{}},\"c\":[[],{}]}",
	    "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\"",
	    "-0",
	    "1E+2",
	    "[\"\xc3\xa9\"]"};
	static const char *const bad[] = {"",
					  " ",
					  "{",
					  "}",
					  "{]",
					  "[}",
					  "{\"a\"}",
					  "{\"a\":}",
					  "{\"a\":1,}",
					  "[1,]",
					  "[,1]",
					  "{,\"a\":1}",
					  "[1 2]",
					  "{\"a\":1 \"b\":2}",
					  "{} {}",
					  "{}x",
					  "[01]",
					  "[1.]",
					  "[.5]",
					  "[1e]",
					  "[+1]",
					  "[-]",
					  "[1e999]",
					  "[tru]",
					  "[nul]",
					  "[True]",
					  "\"a",
					  "\"\\x\"",
					  "\"\\u12\"",
					  "\"\\u0000\"",
					  "\"\\ud83d\"",
					  "\"\\ude00\"",
					  "\"\\ud83d\\u0041\"",
					  "\"\t\"",
					  "{'a':1}",
					  "[1]//",
					  "/* */[]",
					  "[NaN]",
					  "[Infinity]"};

	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		ok(valid(good[i]), "valid: %s", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ok(!valid(bad[i]), "refused: %s", bad[i]);
	ok(!valid_n("[1]\0[2]", 7), "a NUL is no white space");
}

static void test_depth(void)
{
	char deep[2 * CP_JSCAN_MAX_DEPTH + 3];
	size_t n = CP_JSCAN_MAX_DEPTH;

	memset(deep, '[', n);
	memset(deep + n, ']', n);
	deep[2 * n] = '\0';
	ok(valid(deep), "%zu arrays deep: read", n);
	memset(deep, '[', n + 1);
	memset(deep + n + 1, ']', n + 1);
	deep[2 * n + 2] = '\0';
	ok(!valid(deep), "%zu: refused, not recursed into", n + 1);
}

static void test_values(void)
{
	const char *text =
	    "{\"name\":\"cbc(aes)\",\"n\":16,\"x\":1.5e-3,\"ok\":true,"
	    "\"long_key_that_no_reader_knows_of_at_all\":[1],\"big\":9223372036854775808}";
	struct cp_jscan s;
	char key[16], value[16];
	int64_t n;
	double x;
	bool b;

	cp_jscan_init(&s, text, strlen(text));
	ok(cp_jscan_object(&s) == 0 && cp_jscan_key(&s, key, sizeof(key)) == 1 &&
	       strcmp(key, "name") == 0 && cp_jscan_string(&s, value, sizeof(value)) == 0 &&
	       strcmp(value, "cbc(aes)") == 0,
	   "a key and its string");
	ok(cp_jscan_key(&s, key, sizeof(key)) == 1 && cp_jscan_int(&s, 1, 16, &n) == 0 && n == 16,
	   "an integer within its range");
	ok(cp_jscan_key(&s, key, sizeof(key)) == 1 && cp_jscan_double(&s, &x) == 0 && x == 1.5e-3,
	   "a number with fraction and exponent");
	ok(cp_jscan_key(&s, key, sizeof(key)) == 1 && cp_jscan_bool(&s, &b) == 0 && b, "a boolean");
	ok(cp_jscan_key(&s, key, sizeof(key)) == 1 && key[0] == '\0' && cp_jscan_skip(&s) == 0,
	   "a key too long for the buffer reads as \"\" (unknown), its value skipped");
	ok(cp_jscan_key(&s, key, sizeof(key)) == 1 &&
	       cp_jscan_int(&s, 0, INT64_MAX, &n) == -EBADMSG,
	   "an integer beyond int64: refused");
	ok(cp_jscan_key(&s, key, sizeof(key)) == -EBADMSG, "and the scanner stays failed");

	cp_jscan_init(&s, "[1.0, 17, \"toolongvalue\"]", 25);
	ok(cp_jscan_array(&s) == 0 && cp_jscan_item(&s) == 1 &&
	       cp_jscan_int(&s, 0, 10, &n) == -EBADMSG,
	   "1.0 is no integer");
	cp_jscan_init(&s, "[17]", 4);
	ok(cp_jscan_array(&s) == 0 && cp_jscan_item(&s) == 1 &&
	       cp_jscan_int(&s, 0, 16, &n) == -EBADMSG,
	   "an integer out of range: refused");
	cp_jscan_init(&s, "[\"toolong\"]", 11);
	ok(cp_jscan_array(&s) == 0 && cp_jscan_item(&s) == 1 &&
	       cp_jscan_string(&s, value, 7) == -EBADMSG,
	   "a string too long for its buffer: refused");
	cp_jscan_init(&s, "[\"exactly\"]", 11);
	ok(cp_jscan_array(&s) == 0 && cp_jscan_item(&s) == 1 &&
	       cp_jscan_string(&s, value, 8) == 0 && strcmp(value, "exactly") == 0 &&
	       cp_jscan_item(&s) == 0 && cp_jscan_end(&s) == 0,
	   "one that fits with its NUL: read");
}

/* Numbers read as strtod() reads them, bit for bit, short ones by a faster path. */
static void test_numbers_exact(void)
{
	static const char *const fixed[] = {"0",
					    "-0",
					    "0.1",
					    "95.6059",
					    "42842.5",
					    "1e-3",
					    "123456789012345",
					    "1234567890123456",
					    "0.000123",
					    "-7.5",
					    "3.14159265358979",
					    "2.5e+10",
					    "0.30000000000000004"};
	unsigned seed = 12345, mismatches = 0;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(*fixed); i++) {
		struct cp_jscan s;
		double v = -1;

		cp_jscan_init(&s, fixed[i], strlen(fixed[i]));
		ok(cp_jscan_double(&s, &v) == 0 &&
		       memcmp(&v, &(double){strtod(fixed[i], NULL)}, sizeof(v)) == 0,
		   "%s read as strtod() reads it", fixed[i]);
	}
	for (int i = 0; i < 100000; i++) {
		char text[64];
		struct cp_jscan s;
		double v = -1, want;

		seed = seed * 1103515245 + 12345;
		want = (double) seed / (1u << (seed % 31)) * ((seed >> 7) % 1000);
		snprintf(text, sizeof(text), i % 2 ? "%.6g" : "%.15g", want);
		if (strchr(text, 'e'))
			continue;
		cp_jscan_init(&s, text, strlen(text));
		want = strtod(text, NULL);
		mismatches += cp_jscan_double(&s, &v) != 0 || memcmp(&v, &want, sizeof(v)) != 0;
	}
	ok(mismatches == 0, "100000 numbers of 6 and 15 digits: %u differ from strtod()",
	   mismatches);
}

/* Every prefix of a valid document is refused, and read within its length. */
static void test_prefixes(void)
{
	const char *text = "{\"a\":[1,2.5,\"\\u00e9x\",true,null],\"b\":{\"c\":false}}";
	size_t len = strlen(text);
	bool all = true;

	for (size_t i = 0; i < len; i++) {
		char copy[64];
		struct cp_jscan s;

		/* No NUL after the prefix: the scanner must keep to the length. */
		memcpy(copy, text, len);
		cp_jscan_init(&s, copy, i);
		all &= cp_jscan_skip(&s) < 0 || cp_jscan_end(&s) < 0;
	}
	ok(all, "every one of the %zu prefixes refused", len);
}

int main(void)
{
	test_syntax();
	test_depth();
	test_values();
	test_numbers_exact();
	test_prefixes();
	return done_testing();
}
