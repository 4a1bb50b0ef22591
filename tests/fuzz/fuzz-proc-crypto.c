/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /proc/crypto (the read-only fallback inventory) through cp_proc_crypto_parse, then classes. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "class.h"
#include "fuzz.h"
#include "proc-crypto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cp_inventory inv = {.source = CP_SOURCE_PROC_CRYPTO};
	struct cp_module_set none = {};
	FILE *f;
	int r;

	if (size == 0)
		return 0; /* fmemopen refuses an empty buffer */
	f = fmemopen((void *) data, size, "r");
	FUZZ_CHECK(f);
	r = cp_proc_crypto_parse(f, &inv);
	fclose(f);
	FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -ENOMEM || r == -EIO);
	for (size_t i = 0; i < inv.n_algs; i++) {
		const struct cp_alg *alg = &inv.algs[i];

		FUZZ_CHECK_STR(alg->name);
		FUZZ_CHECK_STR(alg->driver);
		FUZZ_CHECK_STR(alg->module);
		FUZZ_CHECK_STR(alg->type);
		/* a lookup's larval has no driver name, and priority -1 */
		FUZZ_CHECK(alg->name[0]);
		FUZZ_CHECK((alg->driver[0] && alg->priority != UINT32_MAX) ||
			   strcmp(alg->type, "larval") == 0);
	}
	cp_classify(&inv, &none);
	cp_inventory_sort(&inv);
	for (size_t i = 0; i < inv.n_algs; i++)
		(void) cp_inventory_winner(&inv, inv.algs[i].name);
	cp_inventory_free(&inv);
	return 0;
}
