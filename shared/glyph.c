/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Glyphs in UTF-8 or ASCII, by the locale's character set (glyph.h). */
#include <langinfo.h>
#include <strings.h>

#include "glyph.h"
#include "macro.h"

bool cp_locale_is_utf8(void)
{
	const char *codeset = nl_langinfo(CODESET);

	return codeset && (strcasecmp(codeset, "UTF-8") == 0 || strcasecmp(codeset, "utf8") == 0);
}

const char *cp_glyph(enum cp_glyph glyph)
{
	static const char *const glyphs[_CP_GLYPH_MAX][2] = {
	    [CP_GLYPH_PLUS_MINUS] = {"+-", "\u00b1"},
	};

	if ((unsigned) glyph >= ARRAY_SIZE(glyphs))
		return "";
	return glyphs[glyph][cp_locale_is_utf8()];
}
