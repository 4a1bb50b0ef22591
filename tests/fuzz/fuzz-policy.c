/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One policy file through cp_policy_parse_stream (the parser and the
 * validation with file:line), then every query the planner makes.
 */
#include <stdio.h>

#include "fuzz-policy-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cp_policy *policy;
	FILE *f;

	if (size == 0)
		return 0; /* fmemopen refuses an empty buffer; fuzz-policy-load covers empty files
			   */
	policy = cp_policy_new();
	FUZZ_CHECK(policy);
	f = fmemopen((void *) data, size, "r");
	FUZZ_CHECK(f);
	if (cp_policy_parse_stream(policy, f, "/etc/cryptoprio.conf") == 0)
		fuzz_query_policy(policy);
	fclose(f);
	cp_policy_free(policy);
	return 0;
}
