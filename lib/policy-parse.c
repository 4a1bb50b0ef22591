/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cryptoprio.conf and its drop-ins read (policy.h): inih with a reader that
 * counts lines, every header, key and value checked, each error with its line.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* asprintf, getline */
#endif
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf-files.h"
#include "macro.h"
#include "pattern.h"
#include "policy-internal.h"
#include "policy.h"

/* ---- errors and files ---- */

static int policy_add_error(struct cp_policy *policy, const char *file, unsigned line,
			    const char *fmt, ...) _printf_(4, 5);

static int policy_add_error(struct cp_policy *policy, const char *file, unsigned line,
			    const char *fmt, ...)
{
	struct cp_policy_error *errors;
	char *reason, *file_copy;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&reason, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	file_copy = strdup(file);
	errors = reallocarray(policy->errors, policy->n_errors + 1, sizeof(*errors));
	if (!file_copy || !errors) {
		free(reason);
		free(file_copy);
		if (errors)
			policy->errors = errors;
		return -ENOMEM;
	}
	policy->errors = errors;
	errors[policy->n_errors++] = (struct cp_policy_error){file_copy, line, reason};
	return 0;
}

/* Remember @path; returns its index or -ENOMEM. */
static ssize_t policy_add_file(struct cp_policy *policy, const char *path)
{
	char **files, *copy;

	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	files = reallocarray(policy->files, policy->n_files + 1, sizeof(*files));
	if (!files) {
		free(copy);
		return -ENOMEM;
	}
	policy->files = files;
	files[policy->n_files] = copy;
	return (ssize_t) policy->n_files++;
}

/* ---- parsing: our reader counts lines and checks what inih would only count ---- */

enum section_state {
	NO_SECTION,  /* before the first [header] */
	IN_SECTION,  /* keys go to policy->sections[section] */
	BAD_SECTION, /* an invalid header, already reported: its keys are skipped */
};

struct parser {
	struct cp_policy *policy;
	FILE *f;
	const char *file; /* policy->files[file_index] */
	size_t file_index;
	unsigned line;
	enum section_state state;
	size_t section;
	char *buf; /* getline()'s */
	size_t buf_size;
	int error; /* -ENOMEM, reported after ini_parse_stream() */
};

static void parse_error(struct parser *ps, const char *fmt, ...) _printf_(2, 3);

static void parse_error(struct parser *ps, const char *fmt, ...)
{
	_cleanup_free_ char *reason = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&reason, fmt, ap);
	va_end(ap);
	if (r < 0 || policy_add_error(ps->policy, ps->file, ps->line, "%s", reason) < 0)
		ps->error = -ENOMEM;
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	return s;
}

static int section_kind_from_string(const char *s)
{
	for (int i = 0; i <= CP_SECTION_DRIVER; i++)
		if (strcmp(s, cp_section_kind_to_string(i)) == 0)
			return i;
	return -EINVAL;
}

static void add_section(struct parser *ps, enum cp_section_kind kind, const char *pattern)
{
	struct cp_policy *policy = ps->policy;
	struct cp_section *sections;
	char *copy = NULL;

	if (pattern && !(copy = strdup(pattern))) {
		ps->error = -ENOMEM;
		return;
	}
	sections = reallocarray(policy->sections, policy->n_sections + 1, sizeof(*sections));
	if (!sections) {
		free(copy);
		ps->error = -ENOMEM;
		return;
	}
	policy->sections = sections;
	sections[policy->n_sections] = (struct cp_section){
	    .kind = kind,
	    .pattern = copy,
	    .exact = copy && cp_pattern_is_literal(copy),
	    .file_index = ps->file_index,
	    .where = {ps->file, ps->line},
	};
	ps->section = policy->n_sections++;
	ps->state = IN_SECTION;
}

/* "[Kind PATTERN]" after the '[' and before the ']' */
static void parse_header_content(struct parser *ps, char *content)
{
	char *pattern;
	int kind;

	content = trim(content);
	pattern = content + strcspn(content, " \t");
	if (*pattern)
		*pattern++ = '\0';
	pattern = trim(pattern);
	kind = section_kind_from_string(content);
	if (kind < 0)
		return parse_error(ps,
				   "unknown section [%s], expected [Policy], "
				   "[Algorithm PATTERN] or [Driver PATTERN]",
				   content);
	if (kind == CP_SECTION_POLICY && *pattern)
		return parse_error(ps, "[Policy] takes no pattern");
	if (kind != CP_SECTION_POLICY && !*pattern)
		return parse_error(ps, "[%s] needs a pattern: [%s PATTERN]", content, content);
	if (strpbrk(pattern, " \t"))
		return parse_error(ps, "pattern '%s' contains blanks", pattern);
	if (strlen(pattern) >= CP_NAME_MAX)
		return parse_error(ps,
				   "pattern '%s' is longer than %d characters and can never match",
				   pattern, CP_NAME_MAX - 1);
	add_section(ps, (enum cp_section_kind) kind, kind == CP_SECTION_POLICY ? NULL : pattern);
}

static void parse_header(struct parser *ps, char *s)
{
	char *end = strrchr(s, ']'), *rest;

	ps->state = BAD_SECTION;
	if (!end)
		return parse_error(ps, "section header without closing ']'");
	*end = '\0';
	rest = trim(end + 1);
	if (*rest && *rest != ';' && *rest != '#')
		return parse_error(ps, "unexpected text '%s' after the section header", rest);
	parse_header_content(ps, s + 1);
}

/* Whether inih should see this line; section headers are ours alone. */
static bool check_line(struct parser *ps, char *s)
{
	const char *sep;

	if (*s == '\0' || *s == ';' || *s == '#')
		return true;
	if (*s == '[') {
		parse_header(ps, s);
		return false;
	}
	sep = strpbrk(s, "=:");
	if (!sep || *sep == ':') {
		parse_error(ps, "expected 'Key = value', '[Section]' or a comment");
		return false;
	}
	if (sep == s) {
		parse_error(ps, "missing key name before '='");
		return false;
	}
	return true;
}

static char *reader(char *str, int num, void *stream)
{
	struct parser *ps = stream;
	ssize_t n;
	char *s;

	n = getline(&ps->buf, &ps->buf_size, ps->f);
	if (n < 0)
		return NULL;
	ps->line++;
	s = ps->buf;
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
	if (ps->line == 1 && strncmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3;
	/* No leading blanks: inih's multi-line continuation never applies (systemd has none). */
	while (*s == ' ' || *s == '\t')
		s++;
	str[0] = '\0';
	if (strlen(s) >= (size_t) num - 1)
		parse_error(ps, "line too long (at most %d characters)", num - 2);
	else if (check_line(ps, s))
		strcpy(str, s);
	return str;
}

static int key_from_string(const char *name)
{
	for (int k = 0; k < _CP_KEY_MAX; k++)
		if (strcmp(name, cp_policy_keys[k].name) == 0)
			return k;
	return -EINVAL;
}

static bool same_identity(const struct cp_section *a, const struct cp_section *b)
{
	if (a->kind != b->kind || a->file_index != b->file_index)
		return false;
	return (!a->pattern && !b->pattern) ||
	       (a->pattern && b->pattern && strcmp(a->pattern, b->pattern) == 0);
}

/* Same key set differently, or Pin/Exclude/Priority together, for one section in one file. */
static bool check_conflicts(struct parser *ps, const struct cp_section *sec, int k, uint64_t v)
{
	const struct cp_policy *policy = ps->policy;

	for (size_t i = 0; i < policy->n_sections; i++) {
		const struct cp_section *other = &policy->sections[i];

		if (!same_identity(other, sec))
			continue;
		if (other->origin[k].file && other->value[k] != v) {
			parse_error(ps, "%s= set again to a different value (first set at line %u)",
				    cp_policy_keys[k].name, other->origin[k].line);
			return false;
		}
		for (int o = 0; is_placement_key(k) && o < _CP_KEY_MAX; o++) {
			if (o == k || !is_placement_key(o) || !other->origin[o].file)
				continue;
			parse_error(ps,
				    "%s= cannot be combined with %s= (line %u): "
				    "use one of Pin=, Exclude= or Priority= per driver",
				    cp_policy_keys[k].name, cp_policy_keys[o].name,
				    other->origin[o].line);
			return false;
		}
	}
	return true;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && streq(s + n - k, suffix);
}

/* An absolute path, normalised, not a directory's ("" resets). */
static bool valid_metrics_path(const char *v)
{
	if (!*v)
		return true;
	return v[0] == '/' && strlen(v) < PATH_MAX && !ends_with(v, "/") && !strstr(v, "//") &&
	       !strstr(v, "/./") && !strstr(v, "/../") && !ends_with(v, "/.") &&
	       !ends_with(v, "/..");
}

static void set_metrics_file(struct parser *ps, const struct cp_section *sec, const char *value)
{
	struct cp_policy *policy = ps->policy;
	struct cp_origin *origin = &policy->metrics_file_origin;
	char *copy = NULL;

	if (sec->kind != CP_SECTION_POLICY)
		return parse_error(ps, "MetricsFile= is not valid in [%s]",
				   cp_section_kind_to_string(sec->kind));
	if (!valid_metrics_path(value))
		return parse_error(ps,
				   "MetricsFile=: invalid path '%s', expected an absolute, "
				   "normalised file name (or nothing, for none)",
				   value);
	if (origin->file == ps->file &&
	    !streq(policy->metrics_file ? policy->metrics_file : "", value))
		return parse_error(ps,
				   "MetricsFile= set again to a different value (first set at "
				   "line %u)",
				   origin->line);
	if (*value && !(copy = strdup(value))) {
		ps->error = -ENOMEM;
		return;
	}
	free(policy->metrics_file);
	policy->metrics_file = copy;
	*origin = (struct cp_origin){ps->file, ps->line};
}

static void set_key(struct parser *ps, struct cp_section *sec, const char *name, const char *value)
{
	char why[256];
	uint64_t v = 0;
	int k;

	if (streq(name, "MetricsFile"))
		return set_metrics_file(ps, sec, value);
	k = key_from_string(name);
	if (k < 0)
		return parse_error(ps, "unknown key '%s' in [%s]", name,
				   cp_section_kind_to_string(sec->kind));
	if (!(cp_policy_keys[k].sections & SECTION_BIT(sec->kind)))
		return parse_error(ps, "%s= is not valid in [%s]", name,
				   cp_section_kind_to_string(sec->kind));
	if (*value == '\0')
		return parse_error(ps, "%s= needs a value", name);
	if (cp_policy_keys[k].parse(value, &v, why, sizeof(why)) < 0)
		return parse_error(ps, "%s=: %s%s", name, why,
				   strchr(value, '#') ? " ('#' starts a comment only at the "
							"start of a line; use ';' inline)"
						      : "");
	if (!check_conflicts(ps, sec, k, v))
		return;
	sec->value[k] = v;
	sec->origin[k] = (struct cp_origin){ps->file, ps->line};
}

static int handler(void *user, _unused_ const char *section, const char *name, const char *value)
{
	struct parser *ps = user;

	switch (ps->state) {
	case NO_SECTION:
		parse_error(ps,
			    "%s= outside of a section: put it under [Policy], "
			    "[Algorithm PATTERN] or [Driver PATTERN]",
			    name);
		break;
	case BAD_SECTION:
		break;
	case IN_SECTION:
		set_key(ps, &ps->policy->sections[ps->section], name, value);
		break;
	}
	return 1; /* errors are ours; inih must go on */
}

static bool has_error_at(const struct cp_policy *policy, size_t from, unsigned line)
{
	for (size_t i = from; i < policy->n_errors; i++)
		if (policy->errors[i].line == line)
			return true;
	return false;
}

int cp_policy_parse_stream(struct cp_policy *policy, FILE *f, const char *name)
{
	size_t errors_before = policy->n_errors;
	struct parser ps;
	ssize_t idx;
	int r;

	idx = policy_add_file(policy, name);
	if (idx < 0)
		return (int) idx;
	ps = (struct parser){
	    .policy = policy,
	    .f = f,
	    .file = policy->files[idx],
	    .file_index = (size_t) idx,
	    .state = NO_SECTION,
	};
	r = ini_parse_stream(reader, &ps, handler, &ps);
	free(ps.buf);
	if (ps.error < 0)
		return ps.error;
	if (r == -2)
		return -ENOMEM;
	if (ferror(f))
		return policy_add_error(policy, name, 0, "read error");
	/* Anything inih refused that our reader let through. */
	if (r > 0 && !has_error_at(policy, errors_before, (unsigned) r))
		return policy_add_error(policy, name, (unsigned) r, "syntax error");
	return 0;
}

int cp_policy_parse_file(struct cp_policy *policy, const char *path)
{
	_cleanup_fclose_ FILE *f = NULL;
	struct stat st;
	int r;

	if (strcmp(path, "/dev/null") == 0 || cp_conf_is_mask(path))
		return 0;
	f = fopen(path, "re");
	if (!f)
		return policy_add_error(policy, path, 0, "cannot open: %s", strerror(errno));
	if (fstat(fileno(f), &st) < 0)
		return policy_add_error(policy, path, 0, "cannot stat: %s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return policy_add_error(policy, path, 0, "not a regular file");
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		r = policy_add_error(policy, path, 0,
				     "writable by group or others (mode %04o): refused",
				     (unsigned) (st.st_mode & 07777));
		if (r < 0)
			return r;
	}
	return cp_policy_parse_stream(policy, f, path);
}

static int check_dir(struct cp_policy *policy, const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0)
		return policy_add_error(policy, dir, 0, "cannot stat: %s", strerror(errno));
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return policy_add_error(
		    policy, dir, 0, "directory writable by group or others (mode %04o): refused",
		    (unsigned) (st.st_mode & 07777));
	return 0;
}

static int load_search_path(struct cp_policy *policy, const char *root)
{
	_cleanup_(cp_conf_files_done) struct cp_conf_files files = {};
	int r;

	r = cp_conf_files_list(root, &files);
	if (r < 0)
		return r;
	for (size_t i = 0; i < files.n_dirs; i++) {
		r = check_dir(policy, files.dirs[i]);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < files.n_entries; i++) {
		if (files.entries[i].kind != CP_CONF_FILE)
			continue;
		r = cp_policy_parse_file(policy, files.entries[i].path);
		if (r < 0)
			return r;
	}
	return 0;
}

int cp_policy_load(const char *root, const char *config_file, struct cp_policy **ret)
{
	_cleanup_(cp_policy_freep) struct cp_policy *policy = NULL;
	int r;

	policy = cp_policy_new();
	if (!policy)
		return -ENOMEM;
	if (config_file)
		r = cp_policy_parse_file(policy, config_file);
	else
		r = load_search_path(policy, root);
	if (r < 0)
		return r;
	r = policy->n_errors > 0 ? -EBADMSG : 0;
	*ret = steal_pointer(&policy);
	return r;
}
