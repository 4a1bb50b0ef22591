// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: RESOLVE, the driver a new user of a name gets right now.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/string.h>

#include "cryptoprio.h"

int cp_resolve(const char *name, enum cryptoprio_type type, u32 mask,
	       char *driver, size_t len, struct netlink_ext_ack *extack)
{
	const struct cp_type_ops *ops = cp_type_ops(type);
	struct cp_tfm t = { .type = type };
	int r;

	/* what is registered now: nothing is loaded to answer */
	r = ops->alloc(&t, name, 0, mask | CRYPTO_NOLOAD);
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
