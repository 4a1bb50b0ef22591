/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Name patterns: a literal compared as a string, anything else by fnmatch(3). */
#include "pattern.h"
#include "tap.h"

int main(void)
{
	ok(cp_pattern_is_literal("cbc(aes)"), "parentheses are no wildcard");
	ok(!cp_pattern_is_literal("cbc-*"), "'*' is");
	ok(!cp_pattern_is_literal("sha?56"), "'?' is");
	ok(!cp_pattern_is_literal("aes-[ab]"), "'[' is");
	ok(!cp_pattern_is_literal("x\\*"), "an escape makes it a pattern");
	ok(cp_pattern_match("cbc(aes)", "cbc(aes)"), "a literal matches itself");
	ok(!cp_pattern_match("cbc(aes)", "cbc(aes)x"), "and nothing longer");
	ok(cp_pattern_match("cbc-aes-*", "cbc-aes-aesni"), "a wildcard matches");
	ok(!cp_pattern_match("cbc-aes-*", "ecb-aes-aesni"), "or not");
	ok(cp_pattern_match("x\\*", "x*"), "an escaped '*' matches itself");
	ok(!cp_pattern_match("x\\*", "xy"), "and nothing else");
	return done_testing();
}
