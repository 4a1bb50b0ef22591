/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The inventory from the running kernel, or from another machine's
 * /proc/crypto (inventory-load.h), each implementation classified.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "class.h"
#include "crypto-user.h"
#include "inventory-load.h"
#include "macro.h"
#include "proc-crypto.h"

static int load_crypto_user(struct cp_inventory *inv)
{
	struct cp_nl nl;
	int r;

	r = cp_cu_open(&nl);
	if (r < 0)
		return r;
	r = cp_cu_dump(&nl, inv);
	cp_nl_close(&nl);
	return r;
}

static int load_proc_crypto(struct cp_inventory *inv)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/crypto", "re");

	if (!f)
		return negative_errno();
	return cp_proc_crypto_parse(f, inv);
}

int cp_inventory_load_file(const char *path, struct cp_inventory *inv)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	int r;

	memset(inv, 0, sizeof(*inv));
	inv->source = CP_SOURCE_FILE;
	if (!f)
		return negative_errno();
	r = cp_proc_crypto_parse(f, inv);
	if (r < 0) {
		cp_inventory_free(inv);
		return r;
	}
	cp_classify(inv, NULL);
	cp_inventory_sort(inv);
	return 0;
}

int cp_inventory_load(struct cp_inventory *inv)
{
	int r = cp_inventory_load_memo(inv, NULL);

	return r < 0 ? r : 0;
}

int cp_inventory_load_memo(struct cp_inventory *inv, struct cp_module_memo *memo)
{
	struct cp_module_set offload_modules = {};
	int r, memo_changed = 0;

	memset(inv, 0, sizeof(*inv));
	r = load_crypto_user(inv);
	if (r < 0) {
		cp_inventory_free(inv);
		inv->crypto_user_error = r;
		inv->source = CP_SOURCE_PROC_CRYPTO;
		r = load_proc_crypto(inv);
		if (r < 0)
			return r;
	}
	/* Without the module index the other rules still classify. */
	if (memo)
		memo_changed = cp_module_memo_update(inv, memo) > 0;
	else
		(void) cp_module_set_load_running(inv, &offload_modules);
	cp_classify(inv, memo ? &memo->offload : &offload_modules);
	cp_module_set_free(&offload_modules);
	cp_inventory_sort(inv);
	return memo_changed;
}
