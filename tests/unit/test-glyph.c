/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Glyphs by the locale's character set: "±" under UTF-8, "+-" under C. */
#include <locale.h>
#include <stdlib.h>

#include "glyph.h"
#include "tap.h"

/* The locale of @lc_all as cryptoprioctl's main takes it: LC_CTYPE from the environment. */
static bool take_locale(const char *lc_all)
{
	setenv("LC_ALL", lc_all, 1);
	return setlocale(LC_CTYPE, "") != NULL;
}

int main(void)
{
	ok(!cp_locale_is_utf8(), "before setlocale(): the C locale, not UTF-8");
	is_str(cp_glyph(CP_GLYPH_PLUS_MINUS), "+-", "before setlocale(): +-");

	if (ok(take_locale("C.UTF-8"), "C.UTF-8 is installed")) {
		ok(cp_locale_is_utf8(), "LC_ALL=C.UTF-8: UTF-8");
		is_str(cp_glyph(CP_GLYPH_PLUS_MINUS), "\xc2\xb1", "LC_ALL=C.UTF-8: U+00B1");
	}
	ok(take_locale("C"), "LC_ALL=C taken");
	ok(!cp_locale_is_utf8(), "LC_ALL=C: not UTF-8");
	is_str(cp_glyph(CP_GLYPH_PLUS_MINUS), "+-", "LC_ALL=C: +-");
	ok(take_locale("POSIX") && !cp_locale_is_utf8(), "LC_ALL=POSIX: not UTF-8");
	is_str(cp_glyph(_CP_GLYPH_MAX), "", "an unknown glyph: empty");
	return done_testing();
}
