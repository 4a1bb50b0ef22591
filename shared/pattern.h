/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Name patterns (fnmatch(3), no flags), as the command line and the policy take them. */
#pragma once

#include <stdbool.h>

/* Whether @pattern has none of fnmatch's special characters: it matches itself alone. */
bool cp_pattern_is_literal(const char *pattern);
/* fnmatch(@pattern, @s, 0) == 0; a literal pattern compared as a string, much cheaper. */
bool cp_pattern_match(const char *pattern, const char *s);
