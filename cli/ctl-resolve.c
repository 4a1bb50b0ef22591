/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cryptoprioctl resolve NAME: which driver a new user of NAME gets right
 * now, for the five kinds of caller of cryptoprioctl(8), asked of the kernel
 * itself through the companion module, each with the kernel's users that
 * ask that way on the running kernel (lib/clients.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "clients.h"
#include "cpmod.h"
#include "cryptoprioctl.h"
#include "ctl-table.h"
#include "inventory-load.h"
#include "json-util.h"
#include "modload.h"
#include "types.h"
#include "winners.h"

static json_object *mask_json(uint32_t mask)
{
	json_object *a = json_object_new_array();

	if (mask & CRYPTOPRIO_ALG_ASYNC)
		json_object_array_add(a, json_object_new_string("async"));
	if (mask & CRYPTOPRIO_ALG_ALLOCATES_MEMORY)
		json_object_array_add(a, json_object_new_string("allocates_memory"));
	if (mask & CRYPTOPRIO_ALG_KERN_DRIVER_ONLY)
		json_object_array_add(a, json_object_new_string("kern_driver_only"));
	return a;
}

/*
 * The kernel's users that ask as @caller does on @kernel (0: not known),
 * "IPsec, kTLS, ..." into @buf, or "-".
 */
static const char *users_cell(enum cp_caller caller, uint32_t kernel, char *buf, size_t size)
{
	size_t n, len = 0;
	const struct cp_client *c = cp_clients(&n);

	buf[0] = 0;
	for (size_t i = 0; kernel && i < n; i++)
		if (c[i].mask == cp_caller_refuses(caller) && cp_client_on(&c[i], kernel))
			len += snprintf(buf + len, len < size ? size - len : 0, "%s%s",
					len ? ", " : "", c[i].name);
	return len ? buf : "-";
}

static json_object *users_json(enum cp_caller caller, uint32_t kernel)
{
	json_object *a = json_object_new_array();
	size_t n;
	const struct cp_client *c = cp_clients(&n);

	for (size_t i = 0; kernel && i < n; i++) {
		json_object *o;

		if (c[i].mask != cp_caller_refuses(caller) || !cp_client_on(&c[i], kernel))
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(c[i].name));
		json_object_object_add(o, "asks", json_object_new_string(c[i].asks));
		json_object_array_add(a, o);
	}
	return a;
}

/*
 * The users no priority steers on @kernel, with what they call as JSON, or
 * (@json NULL) their names on a line printed.
 */
static void unsteered_on(uint32_t kernel, json_object *json)
{
	size_t n;
	const struct cp_unsteered *u = cp_unsteered_users(&n);
	bool first = true;

	for (size_t i = 0; kernel && i < n; i++) {
		if (kernel < u[i].since)
			continue;
		if (json) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "name", json_object_new_string(u[i].name));
			json_object_object_add(o, "calls", json_object_new_string(u[i].why));
			json_object_array_add(json, o);
			continue;
		}
		printf("%s%s", first ? "\nNot steered by any priority on this kernel: " : ", ",
		       u[i].name);
		first = false;
	}
	if (!json && !first)
		printf(".\n");
}

/* The module type of @name from the inventory, or UNSPEC. */
static enum cryptoprio_type type_of(const struct cp_inventory *inv, const char *name)
{
	for (size_t i = 0; i < inv->n_algs; i++)
		if (!strcmp(inv->algs[i].name, name) || !strcmp(inv->algs[i].driver, name))
			return cp_mod_type_from_alg_type(inv->algs[i].type);
	return CRYPTOPRIO_TYPE_UNSPEC;
}

/*
 * Whether a template's lookup of @name finds it registered: by name or
 * driver name, not internal, and a single-block cipher only where @cipher
 * (lib/modload.c).
 */
static bool registered(const char *name, bool cipher, void *data)
{
	const struct cp_inventory *inv = data;

	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *a = &inv->algs[i];

		if ((streq(a->name, name) || streq(a->driver, name)) &&
		    !(a->flags & CP_ALG_INTERNAL) && (cipher || !streq(a->type, "cipher")))
			return true;
	}
	return false;
}

/* NAME and --type: 0, or the exit code after saying what is wrong. */
static int parse_args(struct ctl *ctl, int argc, char **argv, const struct cp_inventory *inv,
		      const char **name, enum cryptoprio_type *type)
{
	static const struct option options[] = {
	    {"type", required_argument, NULL, 't'},
	    {"json", no_argument, NULL, 'j'},
	    {},
	};
	char names[128];
	int c;

	while ((c = getopt_long(argc, argv, ":t:j", options, NULL)) >= 0) {
		if (c == 't' && cp_mod_type_from_string(optarg, type) < 0)
			return ctl_usage_error("resolve: bad --type '%s' (%s)", optarg,
					       cp_type_names(names, sizeof(names)));
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
		*type = type_of(inv, *name);
	if (*type == CRYPTOPRIO_TYPE_UNSPEC)
		return ctl_error("resolve: the kernel lists no '%s' of a type the module serves "
				 "(%s); name its type with --type",
				 *name, cp_type_names(names, sizeof(names)));
	return 0;
}

/*
 * What a build of NAME would load, asked once for all callers that need
 * one: the modules (none: building is harmless), or why nobody can tell.
 */
struct build_plan {
	bool asked;
	int r;
	char **modules;
	size_t n;
};

/* One caller's answer: the driver, none (-ENOENT), a build not made (-ENOPKG), an error. */
struct answer {
	int r;
	struct cp_mod_resolve_result res;
	const struct build_plan *plan; /* with -ENOPKG */
};

static json_object *caller_json(enum cp_caller caller, const struct answer *a, uint32_t kernel)
{
	json_object *o = json_object_new_object();
	bool unbuilt = a->r == -ENOPKG && a->plan;

	json_object_object_add(o, "caller", json_object_new_string(cp_caller_to_string(caller)));
	json_object_object_add(o, "mask", mask_json(cp_caller_refuses(caller)));
	json_object_object_add(o, "users", users_json(caller, kernel));
	json_object_object_add(o, "driver",
			       a->r >= 0 ? json_object_new_string(a->res.driver) : NULL);
	if (unbuilt && a->plan->r >= 0)
		json_object_object_add(o, "would_load", cp_json_strv(a->plan->modules, a->plan->n));
	else if (unbuilt)
		json_object_object_add(o, "error", json_object_new_string(strerror(-a->plan->r)));
	else if (a->r < 0)
		json_object_object_add(o, "error", json_object_new_string(strerror(-a->r)));
	return o;
}

static const struct ctl_column columns[] = {{"CALLER"}, {"DRIVER"}, {"KERNEL USERS"}};

/* The table's cell of a driver not registered for the caller. */
static char *unbuilt_cell(const struct build_plan *plan)
{
	size_t len = 0;
	char *cell;

	if (plan->r < 0)
		return strdup("(not registered; cannot tell what a build would load)");
	for (size_t i = 0; i < plan->n; i++)
		len += strlen(plan->modules[i]) + 1;
	cell = malloc(len + sizeof("(would load )"));
	if (!cell)
		return NULL;
	strcpy(cell, "(would load");
	for (size_t i = 0; i < plan->n; i++)
		strcat(strcat(cell, " "), plan->modules[i]);
	return strcat(cell, ")");
}

/*
 * The table's row of @caller: its driver, "(none)", "(would load ...)" or
 * "(error)", and the kernel's users that ask so.
 */
static void add_row(struct ctl_table *t, enum cp_caller caller, const struct answer *a,
		    uint32_t kernel)
{
	_cleanup_free_ char *unbuilt = a->r == -ENOPKG && a->plan ? unbuilt_cell(a->plan) : NULL;
	char users[256];
	const char *cells[] = {cp_caller_to_string(caller),
			       a->r >= 0 ? a->res.driver
			       : unbuilt ? unbuilt
					 : (a->r == -ENOENT ? "(none)" : "(error)"),
			       users_cell(caller, kernel, users, sizeof(users))};

	if (t)
		(void) ctl_table_row(t, cells);
}

/*
 * Ask for @caller: what is registered for its mask; where nothing is, a
 * build only where the module index says it would load nothing.
 */
static void ask(struct cp_nl *nl, const char *name, enum cryptoprio_type type,
		enum cp_caller caller, struct cp_inventory *inv, struct build_plan *plan,
		struct answer *a, bool *built)
{
	*a = (struct answer){};
	a->r = cp_mod_resolve(nl, name, type, cp_caller_refuses(caller), false, &a->res);
	if (a->r != -ENOPKG)
		return;
	if (!plan->asked) {
		plan->r = cp_build_would_load(name, registered, inv, &plan->modules, &plan->n);
		plan->asked = true;
	}
	a->plan = plan;
	if (plan->r < 0 || plan->n > 0)
		return;
	a->r = cp_mod_resolve(nl, name, type, cp_caller_refuses(caller), true, &a->res);
	a->plan = NULL;
	*built = true;
}

/*
 * The modules loaded since @before: a build the module index said would
 * load nothing did (a template's lookup this does not know of). Said, and
 * a failure. The modules stay: unloading is not resolve's to do.
 */
static int check_nothing_loaded(const char *name, char **before, size_t n_before)
{
	_cleanup_free_ char *list = NULL;
	char **after = NULL, **gained = NULL;
	size_t n_after = 0, n_gained = 0, len = 0;
	int r;

	r = cp_modules_live(NULL, &after, &n_after);
	if (r >= 0)
		r = cp_modules_gained(before, n_before, after, n_after, &gained, &n_gained);
	cp_strv_free(after, n_after);
	if (r < 0)
		return ctl_errno(r, NULL, "resolve: cannot read /proc/modules after building %s",
				 name);
	for (size_t i = 0; i < n_gained; i++)
		len += strlen(gained[i]) + 1;
	list = calloc(1, len + 1);
	for (size_t i = 0; list && i < n_gained; i++)
		strcat(strcat(list, i ? " " : ""), gained[i]);
	cp_strv_free(gained, n_gained);
	if (n_gained)
		return ctl_error("resolve: building %s loaded modules the module index did not "
				 "foresee: %s",
				 name, list ? list : "(out of memory)");
	return 0;
}

/*
 * The answers of the first @n callers as a table, each with the kernel's
 * users that ask so on @kernel; below it, unless --no-legend, those that
 * no priority steers.
 */
static void print_table(const struct ctl *ctl, const struct answer *answers, size_t n,
			uint32_t kernel)
{
	struct ctl_table *table = ctl_table_new(ctl, columns, ARRAY_SIZE(columns), "");

	if (!table) {
		(void) ctl_errno(-ENOMEM, NULL, "resolve");
		return;
	}
	for (size_t i = 0; i < n; i++)
		add_row(table, (enum cp_caller) i, &answers[i], kernel);
	if (ctl_table_print(table) >= 0 && !ctl->no_legend)
		unsteered_on(kernel, NULL);
}

/* The answers of the first @n callers: a table, or the JSON document. */
static void print_answers(const struct ctl *ctl, const char *name, enum cryptoprio_type type,
			  const struct answer *answers, size_t n)
{
	json_object *doc, *arr, *unsteered;
	uint32_t kernel;

	if (cp_kernel_version_running(&kernel) < 0)
		kernel = 0;
	if (!ctl->json) {
		print_table(ctl, answers, n, kernel);
		return;
	}
	doc = json_object_new_object();
	arr = json_object_new_array();
	unsteered = json_object_new_array();
	json_object_object_add(doc, "name", json_object_new_string(name));
	json_object_object_add(doc, "type", json_object_new_string(cp_mod_type_to_string(type)));
	json_object_object_add(doc, "callers", arr);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(arr, caller_json((enum cp_caller) i, &answers[i], kernel));
	unsteered_on(kernel, unsteered);
	json_object_object_add(doc, "unsteered", unsteered);
	ctl_json_print(doc);
}

int verb_resolve(struct ctl *ctl, int argc, char **argv)
{
	_cleanup_(cp_inventory_free) struct cp_inventory inv = {0};
	_cleanup_(cp_nl_close) struct cp_nl nl = {};
	enum cryptoprio_type type = CRYPTOPRIO_TYPE_UNSPEC;
	struct answer answers[_CP_CALLER_MAX] = {};
	struct build_plan plan = {};
	char **live = NULL;
	size_t n_live = 0, n_asked = 0;
	const char *name = NULL;
	bool built = false;
	uint16_t family;
	int r, failed = 0;

	(void) cp_inventory_load(&inv);
	r = parse_args(ctl, argc, argv, &inv, &name, &type);
	if (r == 0)
		r = ctl_open_module("resolve", &nl, &family);
	if (r != 0)
		return r;
	if (cp_modules_live(NULL, &live, &n_live) < 0)
		live = NULL;
	for (; n_asked < _CP_CALLER_MAX; n_asked++) {
		struct answer *a = &answers[n_asked];

		ask(&nl, name, type, (enum cp_caller) n_asked, &inv, &plan, a, &built);
		if (a->r < 0 && a->r != -ENOENT && a->r != -ENOPKG) {
			failed = 1;
			(void) ctl_errno(a->r, nl.extack, "resolve %s for %s callers", name,
					 cp_caller_to_string((enum cp_caller) n_asked));
			if (a->r == -EPERM || a->r == -EACCES) {
				n_asked++;
				break;
			}
		}
	}
	if (plan.asked && plan.r < 0) {
		failed = 1;
		(void) ctl_errno(
		    plan.r, NULL,
		    "resolve: %s is not registered for some callers, and what a build "
		    "would load cannot be told (a name this cannot parse, or no module "
		    "index)",
		    name);
	}
	if (built && live && check_nothing_loaded(name, live, n_live) != 0)
		failed = 1;
	print_answers(ctl, name, type, answers, n_asked);
	cp_strv_free(live, n_live);
	cp_strv_free(plan.modules, plan.n);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
