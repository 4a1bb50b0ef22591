/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One datagram of a crypto_user GETALG dump through cp_nl_parse_buffer and
 * cp_cu_parse_alg_cb, as cp_cu_dump reads it; then what is done with the
 * inventory before planning: classes, sort, the winner of each name.
 */
#include <errno.h>

#include "class.h"
#include "crypto-user.h"
#include "fuzz.h"
#include "netlink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cp_inventory inv = {.source = CP_SOURCE_CRYPTO_USER};
	struct cp_module_set none = {};
	char extack[256];
	int r;

	if (size > CP_NL_RECV_BUFFER)
		return 0; /* recvfrom never gives more (MSG_TRUNC is an error) */
	extack[0] = '\0';
	/* data is a heap copy of exactly @size bytes: any over-read is caught. */
	r = cp_nl_parse_buffer(data, size, 0, cp_cu_parse_alg_cb, &inv, extack, sizeof(extack));
	FUZZ_CHECK(r <= 1);
	FUZZ_CHECK(memchr(extack, '\0', sizeof(extack)) != NULL);
	FUZZ_CHECK(inv.n_algs <= inv.allocated);
	for (size_t i = 0; i < inv.n_algs; i++) {
		const struct cp_alg *alg = &inv.algs[i];

		FUZZ_CHECK_STR(alg->name);
		FUZZ_CHECK_STR(alg->driver);
		FUZZ_CHECK_STR(alg->module);
		FUZZ_CHECK_STR(alg->type);
	}
	cp_classify(&inv, &none);
	cp_inventory_sort(&inv);
	for (size_t i = 0; i < inv.n_algs; i++) {
		const struct cp_alg *w = cp_inventory_winner(&inv, inv.algs[i].name);

		FUZZ_CHECK(inv.algs[i].class <= CP_CLASS_OFFLOAD);
		FUZZ_CHECK(!w || (cp_alg_competes(w) && strcmp(w->name, inv.algs[i].name) == 0));
		FUZZ_CHECK(cp_inventory_find_driver(&inv, inv.algs[i].driver) != NULL);
	}
	cp_inventory_free(&inv);
	return 0;
}
