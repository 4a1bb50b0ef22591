/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The inventory's data model (inventory.h): adding, sorting, lookups, names of enums. */
#include <errno.h>
#include <string.h>

#include "inventory.h"
#include "macro.h"

const struct cp_flag_name cp_flag_names[] = {
    {CP_ALG_ASYNC, "async"},
    {CP_ALG_TESTED, "tested"},
    {CP_ALG_INTERNAL, "internal"},
    {CP_ALG_KERN_DRIVER_ONLY, "kernel-driver-only"},
    {CP_ALG_ALLOCATES_MEMORY, "allocates-memory"},
};
const size_t cp_flag_names_count = ARRAY_SIZE(cp_flag_names);

const char *cp_source_to_string(enum cp_source source)
{
	switch (source) {
	case CP_SOURCE_CRYPTO_USER:
		return "crypto_user";
	case CP_SOURCE_PROC_CRYPTO:
		return "/proc/crypto";
	case CP_SOURCE_FILE:
		return "file";
	}
	return "unknown";
}

const char *cp_class_to_string(enum cp_class class)
{
	switch (class) {
	case CP_CLASS_CPU:
		return "cpu";
	case CP_CLASS_OFFLOAD:
		return "offload";
	}
	return "unknown";
}

const char *cp_class_reason_to_string(enum cp_class_reason reason)
{
	switch (reason) {
	case CP_CLASS_REASON_DEFAULT:
		return "default";
	case CP_CLASS_REASON_KERN_DRIVER_ONLY:
		return "kernel-driver-only";
	case CP_CLASS_REASON_MODULE_PATH:
		return "drivers/crypto";
	case CP_CLASS_REASON_KNOWN_ENGINE:
		return "known-engine";
	case CP_CLASS_REASON_TEMPLATE:
		return "template-on-offload";
	case CP_CLASS_REASON_POLICY:
		return "policy";
	}
	return "unknown";
}

int cp_inventory_add(struct cp_inventory *inv, const struct cp_alg *alg)
{
	if (inv->n_algs == inv->allocated) {
		size_t allocated = inv->allocated ? inv->allocated * 2 : 256;
		struct cp_alg *algs = reallocarray(inv->algs, allocated, sizeof(*algs));

		if (!algs)
			return -ENOMEM;
		inv->algs = algs;
		inv->allocated = allocated;
	}
	inv->algs[inv->n_algs++] = *alg;
	return 0;
}

void cp_inventory_free(struct cp_inventory *inv)
{
	free(inv->algs);
	memset(inv, 0, sizeof(*inv));
}

static int compare_algs(const void *a, const void *b)
{
	const struct cp_alg *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	if (r != 0)
		return r;
	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return strcmp(x->driver, y->driver);
}

void cp_inventory_sort(struct cp_inventory *inv)
{
	if (inv->n_algs > 1)
		qsort(inv->algs, inv->n_algs, sizeof(*inv->algs), compare_algs);
}

const struct cp_alg *cp_inventory_find_driver(const struct cp_inventory *inv, const char *driver)
{
	for (size_t i = 0; i < inv->n_algs; i++)
		if (streq(inv->algs[i].driver, driver))
			return &inv->algs[i];
	return NULL;
}

bool cp_alg_competes(const struct cp_alg *alg)
{
	return (alg->flags & CP_ALG_TESTED) && !(alg->flags & CP_ALG_INTERNAL) &&
	       strcmp(alg->type, "larval") != 0;
}

bool cp_alg_compresses(const struct cp_alg *alg)
{
	return streq(alg->type, "acomp") || streq(alg->type, "scomp");
}

const struct cp_alg *cp_inventory_winner(const struct cp_inventory *inv, const char *name)
{
	const struct cp_alg *best = NULL;

	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *alg = &inv->algs[i];

		if (!streq(alg->name, name) || !cp_alg_competes(alg))
			continue;
		if (!best || alg->priority > best->priority)
			best = alg;
	}
	return best;
}
