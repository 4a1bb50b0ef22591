/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cryptoprioctl resolve NAME: which driver a new user of NAME gets right
 * now, for the four kinds of caller of cryptoprioctl(8), asked of the kernel
 * itself through the companion module.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "cpmod.h"
#include "cryptoprioctl.h"
#include "ctl-table.h"
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
	_cleanup_(cp_inventory_free) struct cp_inventory inv = {0};

	if (cp_inventory_load(&inv) < 0)
		return CRYPTOPRIO_TYPE_UNSPEC;
	for (size_t i = 0; i < inv.n_algs; i++)
		if (!strcmp(inv.algs[i].name, name) || !strcmp(inv.algs[i].driver, name))
			return cp_mod_type_from_alg_type(inv.algs[i].type);
	return CRYPTOPRIO_TYPE_UNSPEC;
}

/* NAME and --type: 0, or the exit code after saying what is wrong. */
static int parse_args(struct ctl *ctl, int argc, char **argv, const char **name,
		      enum cryptoprio_type *type)
{
	static const struct option options[] = {
	    {"type", required_argument, NULL, 't'},
	    {"json", no_argument, NULL, 'j'},
	    {},
	};
	int c;

	while ((c = getopt_long(argc, argv, ":t:j", options, NULL)) >= 0) {
		if (c == 't' && cp_mod_type_from_string(optarg, type) < 0)
			return ctl_usage_error(
			    "resolve: bad --type '%s' (skcipher, aead, hash, acomp, akcipher, kpp)",
			    optarg);
		else if (c == 'j')
			ctl->json = true;
		else if (c != 't')
			return ctl_option_error("resolve", c);
	}
	if (argc - optind != 1)
		return ctl_usage_error("resolve: expected one algorithm NAME");
	*name = argv[optind];
	if (strlen(*name) >= CP_NAME_MAX)
		return ctl_usage_error("resolve: name is %zu bytes, at most %d can be used",
				       strlen(*name), CP_NAME_MAX - 1);
	if (*type == CRYPTOPRIO_TYPE_UNSPEC)
		*type = type_of(*name);
	if (*type == CRYPTOPRIO_TYPE_UNSPEC)
		return ctl_error("resolve: '%s' is no skcipher, aead or hash the kernel lists; "
				 "name its type with --type",
				 *name);
	return 0;
}

static json_object *caller_json(const struct caller *caller, int r,
				const struct cp_mod_resolve_result *res)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "caller", json_object_new_string(caller->name));
	json_object_object_add(o, "mask", mask_json(caller->mask));
	json_object_object_add(o, "driver", r >= 0 ? json_object_new_string(res->driver) : NULL);
	if (r < 0)
		json_object_object_add(o, "error", json_object_new_string(strerror(-r)));
	return o;
}

static const struct ctl_column columns[] = {{"CALLER"}, {"EXAMPLE"}, {"DRIVER"}};

/* The table's row of @caller: its driver, "(none)" or "(error)". */
static void add_row(struct ctl_table *t, const struct caller *caller, int r,
		    const struct cp_mod_resolve_result *res)
{
	const char *cells[] = {caller->name, caller->example,
			       r >= 0 ? res->driver : (r == -ENOENT ? "(none)" : "(error)")};

	if (t)
		(void) ctl_table_row(t, cells);
}

int verb_resolve(struct ctl *ctl, int argc, char **argv)
{
	_cleanup_(cp_nl_close) struct cp_nl nl = {};
	enum cryptoprio_type type = CRYPTOPRIO_TYPE_UNSPEC;
	json_object *doc = NULL, *arr = NULL;
	struct ctl_table *table = NULL;
	const char *name = NULL;
	uint16_t family;
	int r, failed = 0;

	r = parse_args(ctl, argc, argv, &name, &type);
	if (r == 0)
		r = ctl_open_module("resolve", &nl, &family);
	if (r != 0)
		return r;
	if (ctl->json) {
		doc = json_object_new_object();
		arr = json_object_new_array();
		json_object_object_add(doc, "name", json_object_new_string(name));
		json_object_object_add(doc, "type",
				       json_object_new_string(cp_mod_type_to_string(type)));
		json_object_object_add(doc, "callers", arr);
	} else {
		table = ctl_table_new(ctl, columns, ARRAY_SIZE(columns), "");
		if (!table)
			return ctl_errno(-ENOMEM, NULL, "resolve");
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
		if (ctl->json)
			json_object_array_add(arr, caller_json(&callers[i], r, &res));
		else
			add_row(table, &callers[i], r, &res);
	}
	if (doc)
		ctl_json_print(doc);
	else
		(void) ctl_table_print(table);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
