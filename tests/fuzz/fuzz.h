/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the fuzz targets share: a loud failure for a broken invariant. */
#pragma once

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property that must hold for any input: abort (a crash libFuzzer records) if not. */
#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__,       \
				#cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* A fixed-size name field must be terminated inside its buffer. */
#define FUZZ_CHECK_STR(field) FUZZ_CHECK(memchr((field), '\0', sizeof(field)) != NULL)

/* @data as a NUL-terminated string (what the file readers hand to the parsers). */
static inline char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}
