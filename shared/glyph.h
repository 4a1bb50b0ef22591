/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The non-ASCII characters the tools print, with an ASCII stand-in where
 * the locale's character set is not UTF-8 (LANG=C, a serial console), as
 * systemd's special glyphs fall back. JSON output never needs these.
 */
#pragma once

#include <stdbool.h>

enum cp_glyph {
	CP_GLYPH_PLUS_MINUS, /* "±" or "+-": a median and its spread */
	_CP_GLYPH_MAX,
};

/* Whether LC_CTYPE's character set is UTF-8 (after setlocale(LC_CTYPE, "")). */
bool cp_locale_is_utf8(void);

/* @glyph in the locale's character set: the UTF-8 form, or its ASCII stand-in. */
const char *cp_glyph(enum cp_glyph glyph);
