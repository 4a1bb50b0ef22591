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
#include "modindex.h"
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

/*
 * Whether the kernel's GHASH is its library's (inventory.h): "ghash" is
 * neither registered (built in, or a module loaded) nor offered by a
 * module. The module index is opened only where "ghash" is not registered.
 */
static bool ghash_is_library(const struct cp_inventory *inv)
{
	struct cp_modindex alias;
	const char *module;
	size_t n;

	for (size_t i = 0; i < inv->n_algs; i++)
		if (streq(inv->algs[i].name, "ghash"))
			return false;
	if (cp_modindex_open_running_file(&alias, "modules.alias.bin") < 0)
		return false;
	n = cp_modindex_lookup_all(&alias, "crypto-ghash", &module, 1);
	cp_modindex_close(&alias);
	return n == 0;
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
	inv->ghash_library = ghash_is_library(inv);
	return memo_changed;
}
