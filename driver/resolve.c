// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: RESOLVE, the driver a new user of a name gets right now.
 *
 * CRYPTO_NOLOAD keeps the lookup from loading a module for the name itself
 * only. Where no implementation of the name is registered for the
 * caller's type and mask, the lookup adds a larval and cryptomgr builds a
 * template instance: it loads the template's module ("crypto-cbc") and
 * asks for every argument that is not registered ("crypto-camellia"),
 * modules whose algorithms stay registered. So RESOLVE first checks
 * whether the lookup will find something, and builds only when asked to
 * (CRYPTOPRIO_ATTR_BUILD): userspace, which can see the module index,
 * decides whether a build would load anything.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crypto.h>
#include <linux/list.h>
#include <linux/rwsem.h>
#include <linux/string.h>

#include "types.h"

/*
 * What a lookup of @name with @mask will find without a probe, as the
 * kernel's __crypto_alg_lookup() matches: the driver or algorithm name,
 * the frontend's type (its crypto_type's type and maskset, private to the
 * kernel: the type's ops hold them), none of the mask's flags (internal
 * ones excluded,
 * as crypto_alg_mod_lookup() excludes them), not dying. A self-test's
 * larval counts: the lookup waits for it rather than building, and one
 * that failed its test makes the lookup fail with ELIBBAD, without a
 * build. Another caller's build in progress (a larval with no driver
 * name) does not: the kernel shares it only with a lookup of the very
 * same mask, and counting it could let this one build. The
 * one found is held until the allocation has taken its own reference, so
 * that its module cannot go in between and leave the lookup to build.
 */
static struct crypto_alg *cp_registered_get(const char *name,
					    const struct cp_type_ops *ops,
					    u32 mask)
{
	struct crypto_alg *alg, *found = NULL;
	u32 t = ops->frontend_type;

	mask |= ops->frontend_mask | CRYPTO_ALG_INTERNAL;
	down_read(&crypto_alg_sem);
	list_for_each_entry(alg, &crypto_alg_list, cra_list) {
		if (alg->cra_flags & (CRYPTO_ALG_DEAD | CRYPTO_ALG_DYING))
			continue;
		if ((alg->cra_flags & CRYPTO_ALG_LARVAL) &&
		    !alg->cra_driver_name[0])
			continue;
		if ((alg->cra_flags ^ t) & mask)
			continue;
		if (strcmp(alg->cra_name, name) &&
		    strcmp(alg->cra_driver_name, name))
			continue;
		/* NULL where its module is going: the lookup skips it too */
		found = crypto_mod_get(alg);
		if (found)
			break;
	}
	up_read(&crypto_alg_sem);
	return found;
}

int cp_resolve(const char *name, enum cryptoprio_type type, u32 mask,
	       bool build, char *driver, size_t len,
	       struct netlink_ext_ack *extack)
{
	const struct cp_type_ops *ops = cp_type_ops(type);
	struct cp_tfm t = { .type = type };
	struct crypto_alg *held;
	int r;

	held = cp_registered_get(name, ops, mask);
	if (!held && !build) {
		NL_SET_ERR_MSG(extack, "not registered for this type and mask: a lookup would have the kernel build it, which may load modules (BUILD allows it)");
		return -ENOPKG;
	}
	/* NOLOAD: no module for the name itself; a build loads what it needs */
	r = ops->alloc(&t, name, 0, mask | CRYPTO_NOLOAD);
	if (held)
		crypto_mod_put(held);
	if (r) {
		if (r == -ENOENT)
			NL_SET_ERR_MSG(extack, "no implementation of this name, type and mask");
		else
			NL_SET_ERR_MSG(extack, "cannot allocate the algorithm");
		return r;
	}
	strscpy(driver, ops->driver_name(&t), len);
	ops->free(&t);
	return 0;
}
