/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cryptoprioctl resolve NAME: which driver a new user of NAME gets right
 * now, for the four kinds of caller of cryptoprioctl(8), asked of the kernel
 * itself through the companion module.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <linux/netlink.h>

#include "cpmod.h"
#include "cryptoprioctl.h"
#include "inventory-load.h"

static const struct caller {
	const char *name;
	const char *example;
	uint32_t mask;
} callers[] = {
    {"any", "any user", 0},
    {"synchronous", "synchronous users", CRYPTOPRIO_ALG_ASYNC},
    {"non-allocating", "dm-crypt", CRYPTOPRIO_ALG_ALLOCATES_MEMORY},
    {"both", "fscrypt", CRYPTOPRIO_ALG_ASYNC | CRYPTOPRIO_ALG_ALLOCATES_MEMORY},
};

static json_object *mask_json(uint32_t mask)
{
	json_object *a = json_object_new_array();

	if (mask & CRYPTOPRIO_ALG_ASYNC)
		json_object_array_add(a, json_object_new_string("async"));
	if (mask & CRYPTOPRIO_ALG_ALLOCATES_MEMORY)
		json_object_array_add(a, json_object_new_string("allocates_memory"));
	return a;
}

/* The module type of @name from the inventory, or UNSPEC. */
static enum cryptoprio_type type_of(const char *name)
{
	struct cp_inventory inv = {0};
	enum cryptoprio_type type = CRYPTOPRIO_TYPE_UNSPEC;

	if (cp_inventory_load(&inv) < 0)
		return type;
	for (size_t i = 0; i < inv.n_algs && type == CRYPTOPRIO_TYPE_UNSPEC; i++)
		if (!strcmp(inv.algs[i].name, name) || !strcmp(inv.algs[i].driver, name))
			type = cp_mod_type_from_alg_type(inv.algs[i].type);
	cp_inventory_free(&inv);
	return type;
}

int verb_resolve(struct ctl *ctl, int argc, char **argv)
{
	static const struct option options[] = {
	    {"type", required_argument, NULL, 't'},
	    {"json", no_argument, NULL, 'j'},
	    {},
	};
	enum cryptoprio_type type = CRYPTOPRIO_TYPE_UNSPEC;
	json_object *doc = NULL, *arr = NULL;
	const char *name;
	struct cp_nl nl;
	uint16_t family;
	int c, r, failed = 0;

	while ((c = getopt_long(argc, argv, "t:j", options, NULL)) >= 0) {
		switch (c) {
		case 't':
			for (int t = CRYPTOPRIO_TYPE_SKCIPHER; t <= CRYPTOPRIO_TYPE_MAX; t++)
				if (!strcmp(optarg,
					    cp_mod_type_to_string((enum cryptoprio_type) t)))
					type = (enum cryptoprio_type) t;
			if (type == CRYPTOPRIO_TYPE_UNSPEC)
				return ctl_usage_error(
				    "resolve: bad --type '%s' (skcipher, aead, hash)", optarg);
			break;
		case 'j':
			ctl->json = true;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 1)
		return ctl_usage_error("resolve: expected one algorithm NAME");
	name = argv[optind];
	if (strlen(name) >= CP_NAME_MAX)
		return ctl_usage_error("resolve: name is %zu bytes, at most %d can be used",
				       strlen(name), CP_NAME_MAX - 1);
	if (type == CRYPTOPRIO_TYPE_UNSPEC)
		type = type_of(name);
	if (type == CRYPTOPRIO_TYPE_UNSPEC)
		return ctl_error("resolve: '%s' is no skcipher, aead or hash the kernel lists; "
				 "name its type with --type",
				 name);

	r = cp_nl_open(&nl, NETLINK_GENERIC);
	if (r < 0)
		return ctl_errno(r, NULL, "resolve: cannot open a generic netlink socket");
	r = cp_mod_family(&nl, &family);
	if (r == -ENOENT) {
		cp_nl_close(&nl);
		return ctl_error(
		    "resolve: cryptoprio kernel module not loaded (modprobe cryptoprio)");
	}
	if (r < 0) {
		cp_nl_close(&nl);
		return ctl_errno(r, nl.extack, "resolve: cannot use the cryptoprio module");
	}

	if (ctl->json) {
		doc = json_object_new_object();
		arr = json_object_new_array();
		json_object_object_add(doc, "name", json_object_new_string(name));
		json_object_object_add(doc, "type",
				       json_object_new_string(cp_mod_type_to_string(type)));
		json_object_object_add(doc, "callers", arr);
	} else {
		printf("%-15s %-18s %s\n", "CALLER", "EXAMPLE", "DRIVER");
	}
	for (size_t i = 0; i < ARRAY_SIZE(callers); i++) {
		struct cp_mod_resolve_result res;

		r = cp_mod_resolve(&nl, name, type, callers[i].mask, &res);
		if (r < 0 && r != -ENOENT) {
			failed = 1;
			(void) ctl_errno(r, nl.extack, "resolve %s for %s callers", name,
					 callers[i].name);
			if (r == -EPERM || r == -EACCES)
				break;
		}
		if (ctl->json) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "caller",
					       json_object_new_string(callers[i].name));
			json_object_object_add(o, "mask", mask_json(callers[i].mask));
			json_object_object_add(o, "driver",
					       r >= 0 ? json_object_new_string(res.driver) : NULL);
			if (r < 0)
				json_object_object_add(o, "error",
						       json_object_new_string(strerror(-r)));
			json_object_array_add(arr, o);
		} else {
			printf("%-15s %-18s %s\n", callers[i].name, callers[i].example,
			       r >= 0 ? res.driver : (r == -ENOENT ? "(none)" : "(error)"));
		}
	}
	if (doc)
		ctl_json_print(doc);
	cp_nl_close(&nl);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
