/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cryptoprioctl list: every implementation, grouped by algorithm name. */
#include <getopt.h>
#include <string.h>

#include "cryptoprioctl.h"
#include "inventory-load.h"
#include "pattern.h"

static bool matches(const struct cp_alg *alg, char **patterns, int n_patterns)
{
	if (n_patterns == 0)
		return true;
	for (int i = 0; i < n_patterns; i++)
		if (cp_pattern_match(patterns[i], alg->name) ||
		    cp_pattern_match(patterns[i], alg->driver))
			return true;
	return false;
}

/* An algorithm group is shown whole if any of its implementations matches. */
static bool group_matches(const struct cp_inventory *inv, size_t first, size_t end, char **patterns,
			  int n_patterns)
{
	for (size_t i = first; i < end; i++)
		if (matches(&inv->algs[i], patterns, n_patterns))
			return true;
	return false;
}

static size_t group_end(const struct cp_inventory *inv, size_t first)
{
	size_t end = first + 1;

	while (end < inv->n_algs && strcmp(inv->algs[end].name, inv->algs[first].name) == 0)
		end++;
	return end;
}

static void format_flags(const struct cp_alg *alg, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < cp_flag_names_count; i++)
		if (alg->flags & cp_flag_names[i].bit)
			len += (size_t) snprintf(buf + len, len < size ? size - len : 0, "%s%s",
						 len ? "," : "", cp_flag_names[i].name);
	if (!buf[0])
		snprintf(buf, size, "-");
}

static json_object *flags_to_json(const struct cp_alg *alg)
{
	json_object *array = json_object_new_array();

	for (size_t i = 0; i < cp_flag_names_count; i++)
		if (alg->flags & cp_flag_names[i].bit)
			json_object_array_add(array, json_object_new_string(cp_flag_names[i].name));
	return array;
}

static json_object *alg_to_json(const struct cp_alg *alg, bool winner)
{
	json_object *obj = json_object_new_object();

	json_object_object_add(obj, "driver", json_object_new_string(alg->driver));
	json_object_object_add(obj, "module", json_object_new_string(alg->module));
	json_object_object_add(obj, "type", json_object_new_string(alg->type));
	json_object_object_add(obj, "priority", json_object_new_int64(alg->priority));
	json_object_object_add(obj, "refcnt", json_object_new_int64(alg->refcnt));
	json_object_object_add(obj, "class",
			       json_object_new_string(cp_class_to_string(alg->class)));
	json_object_object_add(
	    obj, "class_reason",
	    json_object_new_string(cp_class_reason_to_string(alg->class_reason)));
	json_object_object_add(obj, "flags", flags_to_json(alg));
	json_object_object_add(obj, "winner", json_object_new_boolean(winner));
	return obj;
}

static void print_source(const struct cp_inventory *inv)
{
	if (inv->source == CP_SOURCE_CRYPTO_USER)
		return;
	fprintf(stderr,
		"cryptoprioctl: crypto_user unavailable (%s), read-only inventory from %s\n",
		strerror(-inv->crypto_user_error), cp_source_to_string(inv->source));
}

static void print_group(const struct cp_inventory *inv, size_t first, size_t end)
{
	const struct cp_alg *winner = cp_inventory_winner(inv, inv->algs[first].name);
	char flags[128];

	printf("%s (%s)\n", inv->algs[first].name, inv->algs[first].type);
	for (size_t i = first; i < end; i++) {
		const struct cp_alg *alg = &inv->algs[i];

		format_flags(alg, flags, sizeof(flags));
		printf("  %c %-40s %-7s %10u  %-32s %s\n", alg == winner ? '*' : ' ', alg->driver,
		       cp_class_to_string(alg->class), alg->priority, flags, alg->module);
	}
}

static json_object *group_to_json(const struct cp_inventory *inv, size_t first, size_t end)
{
	const struct cp_alg *winner = cp_inventory_winner(inv, inv->algs[first].name);
	json_object *obj = json_object_new_object(), *impls = json_object_new_array();

	json_object_object_add(obj, "name", json_object_new_string(inv->algs[first].name));
	json_object_object_add(obj, "winner",
			       winner ? json_object_new_string(winner->driver) : NULL);
	for (size_t i = first; i < end; i++)
		json_object_array_add(impls, alg_to_json(&inv->algs[i], &inv->algs[i] == winner));
	json_object_object_add(obj, "implementations", impls);
	return obj;
}

static int parse_options(struct ctl *ctl, int argc, char **argv)
{
	static const struct option options[] = {
	    {"json", no_argument, NULL, 'j'},
	    {},
	};
	int c;

	while ((c = getopt_long(argc, argv, "j", options, NULL)) >= 0) {
		if (c != 'j')
			return -EINVAL;
		ctl->json = true;
	}
	return 0;
}

int verb_list(struct ctl *ctl, int argc, char **argv)
{
	struct cp_inventory inv;
	json_object *groups = NULL;
	size_t shown = 0;
	int r;

	if (parse_options(ctl, argc, argv) < 0)
		return ctl_usage_error("list: unknown option");
	r = cp_inventory_load(&inv);
	if (r < 0)
		return ctl_errno(r, NULL, "failed to read the kernel's crypto implementations");
	print_source(&inv);
	if (ctl->json)
		groups = json_object_new_array();
	else
		printf("  %-40s %-7s %10s  %-32s %s\n", "DRIVER", "CLASS", "PRIORITY", "FLAGS",
		       "MODULE");
	for (size_t first = 0, end; first < inv.n_algs; first = end) {
		end = group_end(&inv, first);
		if (!group_matches(&inv, first, end, argv + optind, argc - optind))
			continue;
		shown++;
		if (ctl->json)
			json_object_array_add(groups, group_to_json(&inv, first, end));
		else
			print_group(&inv, first, end);
	}
	if (ctl->json) {
		json_object *doc = json_object_new_object();

		json_object_object_add(doc, "inventory_source",
				       json_object_new_string(cp_source_to_string(inv.source)));
		json_object_object_add(doc, "algorithms", groups);
		ctl_json_print(doc);
	}
	cp_inventory_free(&inv);
	if (shown == 0 && optind < argc)
		return ctl_error("no implementation matches the pattern");
	return EXIT_SUCCESS;
}
