/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A policy from a string, as the planner's tests write them; errors shown as TAP comments. */
#pragma once

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "tap.h"

/* @text parsed as "test.conf" (NULL: the built-in defaults); aborts on ENOMEM. */
static inline struct cp_policy *policy_from(const char *text)
{
	struct cp_policy *p = cp_policy_new();
	FILE *f;

	if (!p)
		abort();
	if (text) {
		f = fmemopen((void *) text, strlen(text), "r");
		if (!f || cp_policy_parse_stream(p, f, "test.conf") < 0)
			abort();
		fclose(f);
	}
	for (size_t i = 0; i < p->n_errors; i++)
		diag("policy error: %s:%u: %s", p->errors[i].file, p->errors[i].line,
		     p->errors[i].reason);
	return p;
}
