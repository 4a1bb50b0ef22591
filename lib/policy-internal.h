/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the policy's files share: each key's name, sections and value parser
 * (policy.c), for the reader of the files (policy-parse.c).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"

#define SECTION_BIT(kind) (1u << (kind))

struct key_info {
	const char *name;
	unsigned sections; /* SECTION_BIT()s of the sections that take it */
	/* Returns 0, or a negative errno and a reason in @why. */
	int (*parse)(const char *value, uint64_t *ret, char *why, size_t len);
};

extern const struct key_info cp_policy_keys[_CP_KEY_MAX];

static inline bool is_placement_key(int k)
{
	return k == CP_KEY_PIN || k == CP_KEY_EXCLUDE || k == CP_KEY_PRIORITY;
}
