// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: the transform types the module calibrates, by their
 * table (types-table.h).
 *
 * A new type (say "sig") is, in the module:
 *  - driver/sig.c: its struct cp_type_ops (types.h): its name, what
 *    CALIBRATE refuses of it (DECRYPT, KEY_SIZE) and what its reply
 *    carries, its known-answer check (struct cp_kat_ops: its own hooks, or
 *    kat.c's helpers for answers that must equal the reference's; kat.c's
 *    own check, shared by skcipher, aead and hash, tells those three
 *    apart by type), its transform in struct cp_tfm's handle, and any
 *    field of struct cp_geometry its hooks need;
 *  - its row in types-table.h, CP_TYPE(CRYPTOPRIO_TYPE_SIG, cp_sig_ops):
 *    its declaration in types.h, the table below and the TYPE
 *    attribute's range and messages follow from the rows.
 * Around it: the new file's name in driver/Kbuild and driver/meson.build;
 * CRYPTOPRIO_TYPE_SIG in driver/uapi/cryptoprio.h's enum cryptoprio_type
 * (the interface); in userspace, its row in lib/types.c (names, the
 * inventory's type strings, what its requests take, whether AF_ALG serves
 * it, whether VERIFY takes it), the words of --type in cryptoprioctl's
 * --help (cli/cryptoprioctl.c), its bash completion and the JSON schema's
 * "type" enums, cryptoprio(4) and cryptoprioctl(8). Ordering the type's
 * implementations is lib/planner.c's cp_plan_orders_type(), verifying
 * them verify.c's struct cp_verify_ops: each a choice of its own.
 */
#include "types.h"

static const struct cp_type_ops *const cp_types[] = {
#define CP_TYPE(type, ops) \
	[type] = &(ops),
#include "types-table.h"
#undef CP_TYPE
};

/* Every type of the uapi has its row. */
static_assert(ARRAY_SIZE(cp_types) == __CRYPTOPRIO_TYPE_MAX);

const struct cp_type_ops *cp_type_ops(enum cryptoprio_type type)
{
	if (type >= ARRAY_SIZE(cp_types))
		return NULL;
	return cp_types[type];
}

/* Room for a dozen types of ten letters; cp_types_init() checks it. */
static char cp_type_missing[192] __ro_after_init;
static char cp_type_range[224] __ro_after_init;

/* The first type of the uapi; 0 is CRYPTOPRIO_TYPE_UNSPEC, no type. */
#define CP_TYPE_FIRST (CRYPTOPRIO_TYPE_UNSPEC + 1)

/*
 * @buf: @head, then each row's name (with its number if @numbered), the
 * last after "or", and @tail. -ENOSPC if @len does not hold it.
 */
static int __init cp_type_list(char *buf, size_t len, const char *head,
			       bool numbered, const char *tail)
{
	size_t n = snprintf(buf, len, "%s", head);
	unsigned int t;

	for (t = CP_TYPE_FIRST; t < ARRAY_SIZE(cp_types) && n < len; t++) {
		const char *sep = t == CP_TYPE_FIRST ? "" :
				  t == ARRAY_SIZE(cp_types) - 1 ? " or " : ", ";

		if (numbered)
			n += snprintf(buf + n, len - n, "%s%s (%u)", sep,
				      cp_types[t]->name, t);
		else
			n += snprintf(buf + n, len - n, "%s%s", sep,
				      cp_types[t]->name);
	}
	if (n < len)
		n += snprintf(buf + n, len - n, "%s", tail);
	return n < len ? 0 : -ENOSPC;
}

int __init cp_types_init(void)
{
	unsigned int t;

	for (t = CP_TYPE_FIRST; t < ARRAY_SIZE(cp_types); t++)
		if (WARN_ON(!cp_types[t] || !cp_types[t]->name))
			return -EINVAL;
	if (WARN_ON(cp_type_list(cp_type_missing, sizeof(cp_type_missing),
				 "missing attribute TYPE (", false, ")") ||
		    cp_type_list(cp_type_range, sizeof(cp_type_range),
				 "TYPE must be ", true, "")))
		return -ENOSPC;
	return 0;
}

const char *cp_type_missing_msg(void)
{
	return cp_type_missing;
}

const char *cp_type_range_msg(void)
{
	return cp_type_range;
}
