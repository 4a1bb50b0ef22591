/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cryptoprioctl check-policy: validate policy files without applying them. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "conf-files.h"
#include "cryptoprioctl.h"
#include "inventory-load.h"
#include "pattern.h"
#include "policy.h"

struct check_opts {
	bool verbose;
	const char *root;      /* --root: the search path under another directory */
	const char *inventory; /* --inventory FILE: another machine's /proc/crypto */
	struct cp_inventory inv;
	bool have_inv; /* the patterns are checked against @inv */
};

static void print_errors(const struct cp_policy *p)
{
	for (size_t i = 0; i < p->n_errors; i++) {
		const struct cp_policy_error *e = &p->errors[i];

		if (e->line > 0)
			fprintf(stderr, "%s:%u: %s\n", e->file, e->line, e->reason);
		else
			fprintf(stderr, "%s: %s\n", e->file, e->reason);
	}
}

static json_object *error_json(const char *file, unsigned line, const char *reason)
{
	json_object *e = json_object_new_object();

	json_object_object_add(e, "file", json_object_new_string(file));
	json_object_object_add(e, "line", line ? json_object_new_int64(line) : NULL);
	json_object_object_add(e, "reason", json_object_new_string(reason));
	return e;
}

/* Whether @s names something in @inv: an algorithm name, or a driver for [Driver]. */
static bool section_matches(const struct cp_section *s, const struct cp_inventory *inv)
{
	for (size_t i = 0; i < inv->n_algs; i++)
		if (cp_pattern_match(s->pattern, s->kind == CP_SECTION_DRIVER ? inv->algs[i].driver
									      : inv->algs[i].name))
			return true;
	return false;
}

/*
 * The sections whose pattern matches nothing in the inventory: a warning
 * each on stderr, as file:line, and in @warnings (NULL: not asked). Their count.
 */
static size_t warn_unmatched(const struct check_opts *opts, const struct cp_policy *p,
			     json_object *warnings)
{
	size_t n = 0;

	for (size_t i = 0; opts->have_inv && i < p->n_sections; i++) {
		const struct cp_section *s = &p->sections[i];
		char reason[4608], where[4096];

		if (s->kind == CP_SECTION_POLICY || section_matches(s, &opts->inv))
			continue;
		if (opts->inventory)
			snprintf(where, sizeof(where), "in %s", opts->inventory);
		else
			snprintf(where, sizeof(where), "registered on this machine");
		snprintf(reason, sizeof(reason), "[%s %s] matches no %s %s",
			 cp_section_kind_to_string(s->kind), s->pattern,
			 s->kind == CP_SECTION_DRIVER ? "driver" : "algorithm", where);
		fprintf(stderr, "%s:%u: warning: %s\n", s->where.file, s->where.line, reason);
		if (warnings)
			json_object_array_add(warnings,
					      error_json(s->where.file, s->where.line, reason));
		n++;
	}
	return n;
}

static const char *origin_text(char *buf, size_t len, struct cp_origin o)
{
	if (!o.file)
		return "built-in default";
	snprintf(buf, len, "%s:%u", o.file, o.line);
	return buf;
}

static void print_key(enum cp_key k, uint64_t value, struct cp_origin o)
{
	char vbuf[32], obuf[4096];

	printf("%-18s = %-12s ; %s\n", cp_key_to_string(k),
	       cp_key_value_to_string(k, value, vbuf, sizeof(vbuf)),
	       origin_text(obuf, sizeof(obuf), o));
}

/* MetricsFile=, a path: not one of the keys of numbers and words. */
static void print_metrics_file(const struct cp_policy *p)
{
	char obuf[4096];

	printf("%-18s = %-12s ; %s\n", "MetricsFile", p->metrics_file ? p->metrics_file : "",
	       origin_text(obuf, sizeof(obuf), p->metrics_file_origin));
}

static uint64_t settings_value(const struct cp_settings *s, enum cp_key k)
{
	switch (k) {
	case CP_KEY_GEARS:
		return s->gears;
	case CP_KEY_RANK:
		return s->rank;
	case CP_KEY_REQUEST_SIZE:
		return s->request_size;
	case CP_KEY_IN_FLIGHT:
		return s->in_flight;
	case CP_KEY_VERIFY:
		return s->verify;
	case CP_KEY_CALIBRATE:
		return s->calibrate;
	case CP_KEY_CALIBRATION_BUDGET:
		return s->calibration_budget_usec;
	case CP_KEY_PIN:
	case CP_KEY_CLASS:
	case CP_KEY_EXCLUDE:
	case CP_KEY_PRIORITY:
	case _CP_KEY_MAX:
		break;
	}
	return 0;
}

static void print_search_path(const char *root)
{
	_cleanup_(cp_conf_files_done) struct cp_conf_files files = {};

	if (cp_conf_files_list(root, &files) < 0)
		return;
	printf("# Search path, lowest precedence first:\n");
	if (files.n_entries == 0)
		printf("#   (no file: the built-in default)\n");
	for (size_t i = 0; i < files.n_entries; i++)
		printf("#   %-8s %s\n", cp_conf_kind_to_string(files.entries[i].kind),
		       files.entries[i].path);
}

static int print_verbose(const struct cp_policy *p)
{
	_cleanup_free_ struct cp_section *sections = NULL;
	struct cp_settings global;
	int n;

	cp_policy_global(p, &global);
	printf("[Policy]\n");
	for (int k = CP_KEY_GEARS; k <= CP_KEY_CALIBRATION_BUDGET; k++)
		print_key((enum cp_key) k, settings_value(&global, (enum cp_key) k),
			  global.origin[k]);
	print_metrics_file(p);
	n = cp_policy_merged_sections(p, &sections);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		if (sections[i].kind == CP_SECTION_POLICY)
			continue;
		printf("\n[%s %s]\n", cp_section_kind_to_string(sections[i].kind),
		       sections[i].pattern);
		for (int k = 0; k < _CP_KEY_MAX; k++)
			if (sections[i].origin[k].file)
				print_key((enum cp_key) k, sections[i].value[k],
					  sections[i].origin[k]);
	}
	return 0;
}

static json_object *origin_json(struct cp_origin o)
{
	json_object *obj = json_object_new_object();

	json_object_object_add(obj, "file", o.file ? json_object_new_string(o.file) : NULL);
	json_object_object_add(obj, "line", o.line ? json_object_new_int64(o.line) : NULL);
	return obj;
}

static json_object *setting_json(enum cp_key k, uint64_t value, struct cp_origin o)
{
	json_object *obj = json_object_new_object();
	char buf[32];

	json_object_object_add(obj, "key", json_object_new_string(cp_key_to_string(k)));
	json_object_object_add(
	    obj, "value",
	    json_object_new_string(cp_key_value_to_string(k, value, buf, sizeof(buf))));
	json_object_object_add(obj, "set_by", origin_json(o));
	return obj;
}

static json_object *metrics_file_json(const struct cp_policy *p)
{
	json_object *obj = json_object_new_object();

	json_object_object_add(obj, "key", json_object_new_string("MetricsFile"));
	json_object_object_add(obj, "value",
			       json_object_new_string(p->metrics_file ? p->metrics_file : ""));
	json_object_object_add(obj, "set_by", origin_json(p->metrics_file_origin));
	return obj;
}

static json_object *sections_json(const struct cp_policy *p)
{
	_cleanup_free_ struct cp_section *sections = NULL;
	json_object *array = json_object_new_array();
	int n = cp_policy_merged_sections(p, &sections);

	for (int i = 0; i < n; i++) {
		json_object *obj = json_object_new_object(), *keys = json_object_new_array();

		if (sections[i].kind == CP_SECTION_POLICY) {
			json_object_put(keys);
			json_object_put(obj);
			continue;
		}
		json_object_object_add(
		    obj, "section",
		    json_object_new_string(cp_section_kind_to_string(sections[i].kind)));
		json_object_object_add(obj, "pattern", json_object_new_string(sections[i].pattern));
		for (int k = 0; k < _CP_KEY_MAX; k++)
			if (sections[i].origin[k].file)
				json_object_array_add(keys, setting_json((enum cp_key) k,
									 sections[i].value[k],
									 sections[i].origin[k]));
		json_object_object_add(obj, "settings", keys);
		json_object_array_add(array, obj);
	}
	return array;
}

static json_object *result_json(const char *file, const struct cp_policy *p, json_object *warnings)
{
	json_object *obj = json_object_new_object(), *errors = json_object_new_array();
	json_object *files = json_object_new_array(), *global = json_object_new_array();
	struct cp_settings s;

	for (size_t i = 0; i < p->n_errors; i++)
		json_object_array_add(
		    errors, error_json(p->errors[i].file, p->errors[i].line, p->errors[i].reason));
	for (size_t i = 0; i < p->n_files; i++)
		json_object_array_add(files, json_object_new_string(p->files[i]));
	cp_policy_global(p, &s);
	for (int k = CP_KEY_GEARS; k <= CP_KEY_CALIBRATION_BUDGET; k++)
		json_object_array_add(global, setting_json((enum cp_key) k,
							   settings_value(&s, (enum cp_key) k),
							   s.origin[k]));
	json_object_array_add(global, metrics_file_json(p));
	json_object_object_add(obj, "file", file ? json_object_new_string(file) : NULL);
	json_object_object_add(obj, "valid", json_object_new_boolean(cp_policy_is_valid(p)));
	json_object_object_add(obj, "files", files);
	json_object_object_add(obj, "errors", errors);
	json_object_object_add(obj, "warnings", warnings);
	json_object_object_add(obj, "policy", global);
	json_object_object_add(obj, "sections", sections_json(p));
	return obj;
}

/* "search path: valid", what it holds, and the warnings. */
static void print_valid(const char *source, const struct cp_policy *p, size_t n_warnings)
{
	printf("%s: valid", source);
	if (p->n_files == 0)
		printf(" (no policy file: the built-in default)");
	if (n_warnings)
		printf(", %zu warning%s", n_warnings, n_warnings == 1 ? "" : "s");
	printf("\n");
}

/* Check one file (or the search path when @file is NULL); returns the exit code. */
static int check_one(const struct check_opts *opts, const char *file, json_object *results)
{
	_cleanup_(cp_policy_freep) struct cp_policy *p = NULL;
	const char *source = file ? file : "search path";
	json_object *warnings = results ? json_object_new_array() : NULL;
	size_t n_warnings;
	int r;

	r = cp_policy_load(opts->root, file, &p);
	if (r < 0 && r != -EBADMSG) {
		json_object_put(warnings);
		return ctl_errno(r, NULL, "check-policy: cannot read the policy");
	}
	print_errors(p);
	n_warnings = warn_unmatched(opts, p, warnings);
	if (results) {
		json_object_array_add(results, result_json(file, p, warnings));
	} else if (opts->verbose && r == 0) {
		if (!file)
			print_search_path(opts->root);
		printf("# %s\n", file ? file : "Effective policy");
		r = print_verbose(p);
		if (r < 0)
			return ctl_errno(r, NULL, "check-policy: cannot show the policy");
	} else if (r == 0) {
		print_valid(source, p, n_warnings);
	}
	return cp_policy_is_valid(p) ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* --root must name a directory, --inventory a listing; the inventory loaded: 0 or exit code. */
static int prepare(struct check_opts *opts)
{
	struct stat st;
	int r;

	if (opts->root && stat(opts->root, &st) < 0)
		return ctl_errno(-errno, NULL, "check-policy: --root %s", opts->root);
	if (opts->root && !S_ISDIR(st.st_mode))
		return ctl_error("check-policy: --root %s is not a directory", opts->root);
	if (opts->inventory) {
		r = ctl_inventory_load("check-policy", opts->inventory, &opts->inv);
		opts->have_inv = r == 0;
		return r;
	}
	/* The machine's: unprivileged, from /proc/crypto at worst. */
	r = cp_inventory_load(&opts->inv);
	opts->have_inv = r >= 0;
	if (r < 0)
		fprintf(stderr,
			"cryptoprioctl: check-policy: warning: cannot read the kernel's "
			"implementations (%s): patterns not checked against them\n",
			strerror(-r));
	return 0;
}

static int parse_options(struct ctl *ctl, int argc, char **argv, struct check_opts *opts)
{
	enum { OPT_ROOT = 0x100, OPT_INVENTORY };
	static const struct option options[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"root", required_argument, NULL, OPT_ROOT},
	    {"inventory", required_argument, NULL, OPT_INVENTORY},
	    {},
	};
	int c;

	while ((c = getopt_long(argc, argv, ":jv", options, NULL)) >= 0) {
		switch (c) {
		case 'j':
			ctl->json = true;
			break;
		case 'v':
			opts->verbose = true;
			break;
		case OPT_ROOT:
			opts->root = optarg;
			break;
		case OPT_INVENTORY:
			opts->inventory = optarg;
			break;
		default:
			return ctl_option_error("check-policy", c);
		}
	}
	return 0;
}

int verb_check_policy(struct ctl *ctl, int argc, char **argv)
{
	struct check_opts opts = {};
	json_object *doc = NULL, *results = NULL;
	int ret;

	ret = parse_options(ctl, argc, argv, &opts);
	if (ret == 0)
		ret = prepare(&opts);
	if (ret != 0)
		return ret;
	if (ctl->json)
		results = json_object_new_array();
	if (optind >= argc)
		ret = check_one(&opts, ctl->config, results);
	for (int i = optind; i < argc; i++)
		if (check_one(&opts, argv[i], results) != EXIT_SUCCESS)
			ret = EXIT_FAILURE;
	cp_inventory_free(&opts.inv);
	if (results) {
		doc = json_object_new_object();
		json_object_object_add(doc, "valid", json_object_new_boolean(ret == EXIT_SUCCESS));
		json_object_object_add(doc, "results", results);
		ctl_json_print(doc);
	}
	return ret;
}
