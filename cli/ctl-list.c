/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cryptoprioctl list: every implementation, grouped by algorithm name. */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "cryptoprioctl.h"
#include "ctl-table.h"
#include "export.h"
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

static json_object *alg_to_json(const struct cp_alg *alg, bool winner)
{
	json_object *obj = cp_alg_json(alg, false);

	json_object_object_add(obj, "winner", json_object_new_boolean(winner));
	return obj;
}

static void print_source(const struct cp_inventory *inv)
{
	if (inv->source != CP_SOURCE_PROC_CRYPTO)
		return;
	fprintf(stderr, "cryptoprioctl: read-only inventory from %s: %s\n",
		cp_source_to_string(inv->source), ctl_crypto_user_reason(inv->crypto_user_error));
}

static const struct ctl_column columns[] = {
    {"", 0}, {"DRIVER", 0}, {"CLASS", 0}, {"PRIORITY", CTL_COL_RIGHT}, {"FLAGS", 0}, {"MODULE", 0},
};

/* The group's title, then a row for each implementation: 0 or -ENOMEM. */
static int add_group(struct ctl_table *t, const struct cp_inventory *inv, size_t first, size_t end)
{
	const struct cp_alg *winner = cp_inventory_winner(inv, inv->algs[first].name);
	char flags[128], priority[16];
	int r = ctl_table_title(t, "%s (%s)", inv->algs[first].name, inv->algs[first].type);

	for (size_t i = first; r >= 0 && i < end; i++) {
		const struct cp_alg *alg = &inv->algs[i];
		const char *cells[] = {alg == winner ? "*" : NULL,
				       alg->driver,
				       cp_class_to_string(alg->class),
				       priority,
				       flags,
				       alg->module};

		format_flags(alg, flags, sizeof(flags));
		snprintf(priority, sizeof(priority), "%u", alg->priority);
		r = ctl_table_row(t, cells);
	}
	return r;
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

/* --json, --inventory FILE: 0, or the exit code after saying what is wrong. */
static int parse_options(struct ctl *ctl, int argc, char **argv, const char **inventory)
{
	enum { OPT_INVENTORY = 0x100 };
	static const struct option options[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"inventory", required_argument, NULL, OPT_INVENTORY},
	    {},
	};
	int c;

	while ((c = getopt_long(argc, argv, ":j", options, NULL)) >= 0) {
		if (c == 'j')
			ctl->json = true;
		else if (c == OPT_INVENTORY)
			*inventory = optarg;
		else
			return ctl_option_error("list", c);
	}
	return 0;
}

int ctl_inventory_load(const char *verb, const char *file, struct cp_inventory *inv)
{
	int r = file ? cp_inventory_load_file(file, inv) : cp_inventory_load(inv);

	if (r == -EBADMSG)
		return ctl_error("%s: %s is not a listing in /proc/crypto's format", verb, file);
	if (r < 0 && file)
		return ctl_errno(r, NULL, "%s: cannot read %s", verb, file);
	if (r < 0)
		return ctl_errno(r, NULL, "%s: cannot read the kernel's crypto implementations",
				 verb);
	return 0;
}

static void print_json(const struct cp_inventory *inv, char **patterns, int n_patterns)
{
	json_object *doc = json_object_new_object(), *groups = json_object_new_array();

	for (size_t first = 0, end; first < inv->n_algs; first = end) {
		end = group_end(inv, first);
		if (group_matches(inv, first, end, patterns, n_patterns))
			json_object_array_add(groups, group_to_json(inv, first, end));
	}
	json_object_object_add(doc, "inventory_source",
			       json_object_new_string(cp_source_to_string(inv->source)));
	json_object_object_add(doc, "algorithms", groups);
	ctl_json_print(doc);
}

static int print_table(const struct ctl *ctl, const struct cp_inventory *inv, char **patterns,
		       int n_patterns)
{
	struct ctl_table *t = ctl_table_new(ctl, columns, ARRAY_SIZE(columns), "  ");
	int r = t ? 0 : -ENOMEM;

	for (size_t first = 0, end; r >= 0 && first < inv->n_algs; first = end) {
		end = group_end(inv, first);
		if (group_matches(inv, first, end, patterns, n_patterns))
			r = add_group(t, inv, first, end);
	}
	if (r >= 0)
		return ctl_table_print(t);
	ctl_table_free(t);
	return r;
}

static size_t count_groups(const struct cp_inventory *inv, char **patterns, int n_patterns)
{
	size_t n = 0;

	for (size_t first = 0, end; first < inv->n_algs; first = end) {
		end = group_end(inv, first);
		n += group_matches(inv, first, end, patterns, n_patterns);
	}
	return n;
}

int verb_list(struct ctl *ctl, int argc, char **argv)
{
	_cleanup_(cp_inventory_free) struct cp_inventory inv = {};
	const char *file = NULL;
	char **patterns;
	int n_patterns, r;

	r = parse_options(ctl, argc, argv, &file);
	if (r == 0)
		r = ctl_inventory_load("list", file, &inv);
	if (r != 0)
		return r;
	patterns = argv + optind;
	n_patterns = argc - optind;
	print_source(&inv);
	if (n_patterns > 0 && count_groups(&inv, patterns, n_patterns) == 0)
		return ctl_error("list: no implementation matches %s%s", patterns[0],
				 n_patterns > 1 ? " or the other patterns" : "");
	if (ctl->json)
		print_json(&inv, patterns, n_patterns);
	else if (print_table(ctl, &inv, patterns, n_patterns) < 0)
		return ctl_errno(-ENOMEM, NULL, "list");
	return EXIT_SUCCESS;
}
