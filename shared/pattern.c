/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Name patterns (pattern.h): fnmatch(3), skipped for a literal. */
#include <fnmatch.h>
#include <string.h>

#include "pattern.h"

bool cp_pattern_is_literal(const char *pattern)
{
	return !strpbrk(pattern, "*?[\\");
}

bool cp_pattern_match(const char *pattern, const char *s)
{
	if (cp_pattern_is_literal(pattern))
		return strcmp(pattern, s) == 0;
	return fnmatch(pattern, s, 0) == 0;
}
