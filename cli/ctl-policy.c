/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cryptoprioctl check-policy: validate policy files without applying them. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "conf-files.h"
#include "cryptoprioctl.h"
#include "policy.h"

struct check_opts {
	bool verbose;
	const char *root; /* --root: the search path under another directory */
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

static json_object *result_json(const char *file, const struct cp_policy *p)
{
	json_object *obj = json_object_new_object(), *errors = json_object_new_array();
	json_object *files = json_object_new_array(), *global = json_object_new_array();
	struct cp_settings s;

	for (size_t i = 0; i < p->n_errors; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "file", json_object_new_string(p->errors[i].file));
		json_object_object_add(
		    e, "line", p->errors[i].line ? json_object_new_int64(p->errors[i].line) : NULL);
		json_object_object_add(e, "reason", json_object_new_string(p->errors[i].reason));
		json_object_array_add(errors, e);
	}
	for (size_t i = 0; i < p->n_files; i++)
		json_object_array_add(files, json_object_new_string(p->files[i]));
	cp_policy_global(p, &s);
	for (int k = CP_KEY_GEARS; k <= CP_KEY_CALIBRATION_BUDGET; k++)
		json_object_array_add(global, setting_json((enum cp_key) k,
							   settings_value(&s, (enum cp_key) k),
							   s.origin[k]));
	json_object_object_add(obj, "file", file ? json_object_new_string(file) : NULL);
	json_object_object_add(obj, "valid", json_object_new_boolean(cp_policy_is_valid(p)));
	json_object_object_add(obj, "files", files);
	json_object_object_add(obj, "errors", errors);
	json_object_object_add(obj, "policy", global);
	json_object_object_add(obj, "sections", sections_json(p));
	return obj;
}

/* Check one file (or the search path when @file is NULL); returns the exit code. */
static int check_one(struct ctl *ctl, const struct check_opts *opts, const char *file,
		     json_object *results)
{
	_cleanup_(cp_policy_freep) struct cp_policy *p = NULL;
	const char *source = file ? file : "search path";
	int r;

	r = cp_policy_load(opts->root, file, &p);
	if (r < 0 && r != -EBADMSG)
		return ctl_errno(r, NULL, "Failed to read the policy");
	print_errors(p);
	if (results) {
		json_object_array_add(results, result_json(file, p));
	} else if (opts->verbose && r == 0) {
		if (!file)
			print_search_path(opts->root);
		printf("# %s\n", file ? file : "Effective policy");
		r = print_verbose(p);
		if (r < 0)
			return ctl_errno(r, NULL, "Failed to show the policy");
	} else if (r == 0) {
		printf("%s: valid\n", source);
	}
	return cp_policy_is_valid(p) ? EXIT_SUCCESS : EXIT_FAILURE;
}

int verb_check_policy(struct ctl *ctl, int argc, char **argv)
{
	enum { OPT_ROOT = 0x100 };
	static const struct option options[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"root", required_argument, NULL, OPT_ROOT},
	    {},
	};
	struct check_opts opts = {};
	json_object *doc = NULL, *results = NULL;
	int c, ret = EXIT_SUCCESS;

	while ((c = getopt_long(argc, argv, "jv", options, NULL)) >= 0) {
		switch (c) {
		case 'j':
			ctl->json = true;
			break;
		case 'v':
			opts.verbose = true;
			break;
		case OPT_ROOT:
			opts.root = optarg;
			break;
		default:
			return ctl_usage_error("check-policy [--verbose] [--json] [FILE...]");
		}
	}
	if (ctl->json)
		results = json_object_new_array();
	if (optind >= argc) {
		ret = check_one(ctl, &opts, ctl->config, results);
	} else {
		for (int i = optind; i < argc; i++)
			if (check_one(ctl, &opts, argv[i], results) != EXIT_SUCCESS)
				ret = EXIT_FAILURE;
	}
	if (results) {
		doc = json_object_new_object();
		json_object_object_add(doc, "valid", json_object_new_boolean(ret == EXIT_SUCCESS));
		json_object_object_add(doc, "results", results);
		ctl_json_print(doc);
	}
	return ret;
}
