/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Replies of the companion module's generic netlink family and of the
 * genetlink controller, through cp_nl_parse_buffer as cp_nl_transact reads
 * them: every message that reaches a callback goes to the three parsers of
 * lib/cpmod.c (the first input byte chooses which ones, so each also sees
 * input shaped for the others).
 */
#include <errno.h>
#include <stdbool.h>

#include "cpmod.h"
#include "fuzz.h"
#include "netlink.h"

static unsigned which;

static int parse_cb(const struct nlmsghdr *nlh, void *data)
{
	int r;

	if (which & 1) {
		uint16_t family = 0;
		uint32_t version = 0;

		r = cp_mod_parse_getfamily(nlh, &family, &version);
		FUZZ_CHECK(r == 0 || r == -EBADMSG);
	}
	if (which & 2) {
		struct cp_mod_calib_result res;

		r = cp_mod_parse_calibrate(nlh, &res);
		FUZZ_CHECK(r <= 0);
		if (r == 0) {
			FUZZ_CHECK_STR(res.driver);
			FUZZ_CHECK_STR(res.reference);
			FUZZ_CHECK(res.type <= CRYPTOPRIO_TYPE_MAX);
			FUZZ_CHECK(res.kat <= CRYPTOPRIO_KAT_UNSUPPORTED);
			FUZZ_CHECK(cp_mod_kat_to_string(res.kat) != NULL);
			(void) cp_mod_type_to_string(res.type);
			/* Figures from any counts: no trap, no division by zero. */
			(void) cp_mod_mb_per_s(&res);
			(void) cp_mod_ns_per_request(&res);
			(void) cp_mod_cpu_ns_per_byte(&res);
		}
	}
	if (which & 4) {
		struct cp_mod_resolve_result res;

		r = cp_mod_parse_resolve(nlh, &res);
		FUZZ_CHECK(r <= 0);
		if (r == 0) {
			FUZZ_CHECK_STR(res.name);
			FUZZ_CHECK_STR(res.driver);
		}
	}
	return MNL_CB_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char extack[256] = "";
	uint8_t *msg;
	int r;

	if (size < 1 || size - 1 > CP_NL_RECV_BUFFER)
		return 0;
	which = data[0] & 7 ? data[0] & 7 : 7;
	/* The messages after the selector byte, in a buffer of their exact size (aligned). */
	msg = malloc(size - 1 ? size - 1 : 1);
	FUZZ_CHECK(msg);
	memcpy(msg, data + 1, size - 1);
	r = cp_nl_parse_buffer(msg, size - 1, 0, parse_cb, NULL, extack, sizeof(extack));
	FUZZ_CHECK(r <= 1);
	FUZZ_CHECK(memchr(extack, '\0', sizeof(extack)) != NULL);
	free(msg);
	return 0;
}
