/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The policy (policy.h): cryptoprio.conf and its drop-ins parsed with inih,
 * every value checked, and the effective settings for a name or a driver.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* asprintf, getline */
#endif
#include <errno.h>
#include <ini.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf-files.h"
#include "macro.h"
#include "pattern.h"
#include "policy.h"
#include "units.h"

#define SECTION_BIT(kind) (1u << (kind))
#define ALL_SECTIONS	  (SECTION_BIT(CP_SECTION_POLICY) | SECTION_BIT(CP_SECTION_ALGORITHM))

struct key_info {
	const char *name;
	unsigned sections; /* SECTION_BIT()s of the sections that take it */
	/* Returns 0, or a negative errno and a reason in @why. */
	int (*parse)(const char *value, uint64_t *ret, char *why, size_t len);
};

struct word {
	const char *name;
	uint64_t value;
};

static const struct word gears_words[] = {
    {"cpu offload", CP_GEARS_CPU_OFFLOAD},
    {"offload cpu", CP_GEARS_OFFLOAD_CPU},
    {"any", CP_GEARS_ANY},
    {},
};
static const struct word rank_words[] = {
    {"throughput", CP_RANK_THROUGHPUT},
    {"latency", CP_RANK_LATENCY},
    {"cpu-cost", CP_RANK_CPU_COST},
    {"ratio", CP_RANK_RATIO},
    {},
};
static const struct word calibrate_words[] = {
    {"boot", CP_CALIBRATE_BOOT},
    {"cached", CP_CALIBRATE_CACHED},
    {"never", CP_CALIBRATE_NEVER},
    {},
};
static const struct word pin_words[] = {
    {"first", CP_PIN_FIRST},
    {"last", CP_PIN_LAST},
    {},
};
static const struct word class_words[] = {
    {"cpu", CP_CLASS_CPU},
    {"offload", CP_CLASS_OFFLOAD},
    {},
};

static const char *word_name(const struct word *words, uint64_t value)
{
	for (; words->name; words++)
		if (words->value == value)
			return words->name;
	return "?";
}

/* One of @words; blanks inside a value are normalised ("cpu   offload"). */
static int parse_word(const struct word *words, const char *value, uint64_t *ret, char *why,
		      size_t len)
{
	char norm[64], *out = norm;
	size_t used;

	for (const char *p = value; *p && out < norm + sizeof(norm) - 1; p++) {
		if ((*p == ' ' || *p == '\t') && (out == norm || out[-1] == ' '))
			continue;
		*out++ = (*p == '\t') ? ' ' : *p;
	}
	*out = '\0';
	for (const struct word *w = words; w->name; w++) {
		if (strcmp(norm, w->name) == 0) {
			*ret = w->value;
			return 0;
		}
	}
	used = (size_t) snprintf(why, len, "invalid value '%s', expected", value);
	for (const struct word *w = words; w->name && used < len; w++)
		used += (size_t) snprintf(why + used, len - used, "%s '%s'",
					  w == words ? "" : (w[1].name ? "," : " or"), w->name);
	return -EINVAL;
}

static int parse_gears(const char *v, uint64_t *ret, char *why, size_t len)
{
	return parse_word(gears_words, v, ret, why, len);
}

static int parse_rank(const char *v, uint64_t *ret, char *why, size_t len)
{
	return parse_word(rank_words, v, ret, why, len);
}

static int parse_calibrate(const char *v, uint64_t *ret, char *why, size_t len)
{
	return parse_word(calibrate_words, v, ret, why, len);
}

static int parse_pin(const char *v, uint64_t *ret, char *why, size_t len)
{
	return parse_word(pin_words, v, ret, why, len);
}

static int parse_class(const char *v, uint64_t *ret, char *why, size_t len)
{
	return parse_word(class_words, v, ret, why, len);
}

static int parse_size(const char *v, uint64_t *ret, char *why, size_t len)
{
	uint32_t bytes;
	int r = cp_parse_size(v, &bytes);

	if (r == -ERANGE)
		snprintf(why, len, "size '%s' out of range, expected 16 to 1M (1048576 bytes)", v);
	else if (r < 0)
		snprintf(why, len, "invalid size '%s', expected bytes, K, KiB, M or MiB", v);
	*ret = bytes;
	return r;
}

static int parse_in_flight(const char *v, uint64_t *ret, char *why, size_t len)
{
	int r = cp_parse_uint(v, CP_IN_FLIGHT_MIN, CP_IN_FLIGHT_MAX, ret);

	if (r < 0)
		snprintf(why, len, "invalid number of requests in flight '%s', expected 1 to 64",
			 v);
	return r;
}

static int parse_bool(const char *v, uint64_t *ret, char *why, size_t len)
{
	int r = cp_parse_boolean(v);

	if (r < 0) {
		snprintf(why, len,
			 "invalid boolean '%s', expected yes, no, true, false, on, off, 1 or 0", v);
		return r;
	}
	*ret = (uint64_t) r;
	return 0;
}

static int parse_budget(const char *v, uint64_t *ret, char *why, size_t len)
{
	int r = cp_parse_duration(v, ret);

	if (r == -ERANGE)
		snprintf(why, len, "duration '%s' out of range, expected 1ms to 60s", v);
	else if (r < 0)
		snprintf(why, len, "invalid duration '%s', expected e.g. 500ms, 2s or 1s 500ms", v);
	return r;
}

static int parse_priority(const char *v, uint64_t *ret, char *why, size_t len)
{
	int r = cp_parse_uint(v, 0, INT_MAX, ret);

	if (r < 0)
		snprintf(why, len, "invalid priority '%s', expected 0 to %d", v, INT_MAX);
	return r;
}

static const struct key_info keys[_CP_KEY_MAX] = {
    [CP_KEY_GEARS] = {"Gears", ALL_SECTIONS, parse_gears},
    [CP_KEY_RANK] = {"Rank", ALL_SECTIONS, parse_rank},
    [CP_KEY_REQUEST_SIZE] = {"RequestSize", ALL_SECTIONS, parse_size},
    [CP_KEY_IN_FLIGHT] = {"InFlight", ALL_SECTIONS, parse_in_flight},
    [CP_KEY_VERIFY] = {"Verify", ALL_SECTIONS, parse_bool},
    [CP_KEY_CALIBRATE] = {"Calibrate", SECTION_BIT(CP_SECTION_POLICY), parse_calibrate},
    [CP_KEY_CALIBRATION_BUDGET] = {"CalibrationBudget", SECTION_BIT(CP_SECTION_POLICY),
				   parse_budget},
    [CP_KEY_PIN] = {"Pin", SECTION_BIT(CP_SECTION_DRIVER), parse_pin},
    [CP_KEY_CLASS] = {"Class", SECTION_BIT(CP_SECTION_DRIVER), parse_class},
    [CP_KEY_EXCLUDE] = {"Exclude", SECTION_BIT(CP_SECTION_DRIVER), parse_bool},
    [CP_KEY_PRIORITY] = {"Priority", SECTION_BIT(CP_SECTION_DRIVER), parse_priority},
};

static const uint64_t default_values[_CP_KEY_MAX] = {
    [CP_KEY_GEARS] = CP_DEFAULT_GEARS,
    [CP_KEY_RANK] = CP_DEFAULT_RANK,
    [CP_KEY_REQUEST_SIZE] = CP_DEFAULT_REQUEST_SIZE,
    [CP_KEY_IN_FLIGHT] = CP_DEFAULT_IN_FLIGHT,
    [CP_KEY_VERIFY] = CP_DEFAULT_VERIFY,
    [CP_KEY_CALIBRATE] = CP_DEFAULT_CALIBRATE,
    [CP_KEY_CALIBRATION_BUDGET] = CP_DEFAULT_CALIBRATION_BUDGET,
};

static const char *const section_names[] = {
    [CP_SECTION_POLICY] = "Policy",
    [CP_SECTION_ALGORITHM] = "Algorithm",
    [CP_SECTION_DRIVER] = "Driver",
};

const char *cp_key_to_string(enum cp_key key)
{
	return key < _CP_KEY_MAX ? keys[key].name : "?";
}

const char *cp_section_kind_to_string(enum cp_section_kind kind)
{
	return kind <= CP_SECTION_DRIVER ? section_names[kind] : "?";
}

const char *cp_gears_to_string(enum cp_gears gears)
{
	return word_name(gears_words, gears);
}

const char *cp_rank_to_string(enum cp_rank rank)
{
	return word_name(rank_words, rank);
}

const char *cp_calibration_mode_to_string(enum cp_calibration_mode calibrate)
{
	return word_name(calibrate_words, calibrate);
}

const char *cp_pin_to_string(enum cp_pin pin)
{
	return pin == CP_PIN_NONE ? "none" : word_name(pin_words, pin);
}

const char *cp_key_value_to_string(enum cp_key key, uint64_t value, char *buf, size_t len)
{
	switch (key) {
	case CP_KEY_GEARS:
		return word_name(gears_words, value);
	case CP_KEY_RANK:
		return word_name(rank_words, value);
	case CP_KEY_CALIBRATE:
		return word_name(calibrate_words, value);
	case CP_KEY_PIN:
		return word_name(pin_words, value);
	case CP_KEY_CLASS:
		return word_name(class_words, value);
	case CP_KEY_VERIFY:
	case CP_KEY_EXCLUDE:
		return value ? "yes" : "no";
	case CP_KEY_REQUEST_SIZE:
		if (value % 1024 == 0) {
			snprintf(buf, len, "%" PRIu64 "K", value / 1024);
			return buf;
		}
		break;
	case CP_KEY_CALIBRATION_BUDGET:
		return cp_format_duration(buf, len, value);
	case CP_KEY_IN_FLIGHT:
	case CP_KEY_PRIORITY:
	case _CP_KEY_MAX:
		break;
	}
	snprintf(buf, len, "%" PRIu64, value);
	return buf;
}

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

struct cp_policy *cp_policy_new(void)
{
	return calloc(1, sizeof(struct cp_policy));
}

void cp_policy_free(struct cp_policy *policy)
{
	if (!policy)
		return;
	for (size_t i = 0; i < policy->n_files; i++)
		free(policy->files[i]);
	free(policy->files);
	for (size_t i = 0; i < policy->n_sections; i++)
		free(policy->sections[i].pattern);
	free(policy->sections);
	for (size_t i = 0; i < policy->n_errors; i++) {
		free(policy->errors[i].file);
		free(policy->errors[i].reason);
	}
	free(policy->errors);
	free(policy->metrics_file);
	free(policy);
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
	for (size_t i = 0; i < ARRAY_SIZE(section_names); i++)
		if (strcmp(s, section_names[i]) == 0)
			return (int) i;
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
		if (strcmp(name, keys[k].name) == 0)
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

static bool is_placement_key(int k)
{
	return k == CP_KEY_PIN || k == CP_KEY_EXCLUDE || k == CP_KEY_PRIORITY;
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
				    keys[k].name, other->origin[k].line);
			return false;
		}
		for (int o = 0; is_placement_key(k) && o < _CP_KEY_MAX; o++) {
			if (o == k || !is_placement_key(o) || !other->origin[o].file)
				continue;
			parse_error(ps,
				    "%s= cannot be combined with %s= (line %u): "
				    "use one of Pin=, Exclude= or Priority= per driver",
				    keys[k].name, keys[o].name, other->origin[o].line);
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
				   section_names[sec->kind]);
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
		return parse_error(ps, "unknown key '%s' in [%s]", name, section_names[sec->kind]);
	if (!(keys[k].sections & SECTION_BIT(sec->kind)))
		return parse_error(ps, "%s= is not valid in [%s]", name, section_names[sec->kind]);
	if (*value == '\0')
		return parse_error(ps, "%s= needs a value", name);
	if (keys[k].parse(value, &v, why, sizeof(why)) < 0)
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

/* ---- the effective policy ---- */

static bool sets_any(const struct cp_section *s, unsigned key_mask)
{
	for (int k = 0; k < _CP_KEY_MAX; k++)
		if ((key_mask & (1u << k)) && s->origin[k].file)
			return true;
	return false;
}

/*
 * The section of @kind matching @name that decides the keys in @key_mask:
 * an exact name beats a pattern, a later section beats an earlier one.
 */
static const struct cp_section *best_section(const struct cp_policy *policy,
					     enum cp_section_kind kind, const char *name,
					     unsigned key_mask)
{
	const struct cp_section *best = NULL;

	for (size_t i = 0; i < policy->n_sections; i++) {
		const struct cp_section *s = &policy->sections[i];

		if (s->kind != kind || !sets_any(s, key_mask))
			continue;
		if (s->pattern && !cp_pattern_match(s->pattern, name))
			continue;
		if (!best || s->exact || !best->exact)
			best = s;
	}
	return best;
}

static void settings_set(struct cp_settings *ret, int k, uint64_t v, struct cp_origin origin)
{
	switch ((enum cp_key) k) {
	case CP_KEY_GEARS:
		ret->gears = (enum cp_gears) v;
		break;
	case CP_KEY_RANK:
		ret->rank = (enum cp_rank) v;
		break;
	case CP_KEY_REQUEST_SIZE:
		ret->request_size = (uint32_t) v;
		break;
	case CP_KEY_IN_FLIGHT:
		ret->in_flight = (uint32_t) v;
		break;
	case CP_KEY_VERIFY:
		ret->verify = v != 0;
		break;
	case CP_KEY_CALIBRATE:
		ret->calibrate = (enum cp_calibration_mode) v;
		break;
	case CP_KEY_CALIBRATION_BUDGET:
		ret->calibration_budget_usec = v;
		break;
	case CP_KEY_PIN:
	case CP_KEY_CLASS:
	case CP_KEY_EXCLUDE:
	case CP_KEY_PRIORITY:
	case _CP_KEY_MAX:
		return;
	}
	ret->origin[k] = origin;
}

void cp_policy_global(const struct cp_policy *policy, struct cp_settings *ret)
{
	*ret = (struct cp_settings){};
	for (int k = 0; k < _CP_KEY_MAX; k++) {
		const struct cp_section *s;

		if (!(keys[k].sections & SECTION_BIT(CP_SECTION_POLICY)))
			continue;
		s = best_section(policy, CP_SECTION_POLICY, NULL, 1u << k);
		if (s)
			settings_set(ret, k, s->value[k], s->origin[k]);
		else
			settings_set(ret, k, default_values[k], (struct cp_origin){});
	}
}

void cp_policy_algorithm(const struct cp_policy *policy, const char *name, struct cp_settings *ret)
{
	cp_policy_global(policy, ret);
	for (int k = 0; k < _CP_KEY_MAX; k++) {
		const struct cp_section *s;

		if (!(keys[k].sections & SECTION_BIT(CP_SECTION_ALGORITHM)))
			continue;
		s = best_section(policy, CP_SECTION_ALGORITHM, name, 1u << k);
		if (s)
			settings_set(ret, k, s->value[k], s->origin[k]);
	}
}

void cp_policy_driver(const struct cp_policy *policy, const char *driver,
		      struct cp_driver_rule *ret)
{
	const unsigned placement =
	    (1u << CP_KEY_PIN) | (1u << CP_KEY_EXCLUDE) | (1u << CP_KEY_PRIORITY);
	const struct cp_section *s;

	*ret = (struct cp_driver_rule){.pin = CP_PIN_NONE};
	s = best_section(policy, CP_SECTION_DRIVER, driver, placement);
	if (s) {
		if (s->origin[CP_KEY_PIN].file) {
			ret->pin = (enum cp_pin) s->value[CP_KEY_PIN];
			ret->placement = s->origin[CP_KEY_PIN];
		}
		if (s->origin[CP_KEY_EXCLUDE].file) {
			ret->exclude = s->value[CP_KEY_EXCLUDE] != 0;
			ret->placement = s->origin[CP_KEY_EXCLUDE];
		}
		if (s->origin[CP_KEY_PRIORITY].file) {
			ret->has_priority = true;
			ret->priority = (uint32_t) s->value[CP_KEY_PRIORITY];
			ret->placement = s->origin[CP_KEY_PRIORITY];
		}
	}
	s = best_section(policy, CP_SECTION_DRIVER, driver, 1u << CP_KEY_CLASS);
	if (s) {
		ret->has_class = true;
		ret->class = (enum cp_class) s->value[CP_KEY_CLASS];
		ret->class_origin = s->origin[CP_KEY_CLASS];
	}
}

static bool same_pattern(const struct cp_section *a, const struct cp_section *b)
{
	return a->kind == b->kind &&
	       ((!a->pattern && !b->pattern) ||
		(a->pattern && b->pattern && strcmp(a->pattern, b->pattern) == 0));
}

int cp_policy_merged_sections(const struct cp_policy *policy, struct cp_section **ret)
{
	_cleanup_free_ struct cp_section *merged = NULL;
	size_t n = 0;

	merged = calloc(policy->n_sections + 1, sizeof(*merged));
	if (!merged)
		return -ENOMEM;
	for (size_t i = 0; i < policy->n_sections; i++) {
		const struct cp_section *s = &policy->sections[i];
		size_t j;

		for (j = 0; j < n && !same_pattern(&merged[j], s); j++)
			;
		if (j == n) {
			merged[n++] = *s;
			continue;
		}
		for (int k = 0; k < _CP_KEY_MAX; k++) {
			if (!s->origin[k].file)
				continue;
			/* A new file overrides Pin/Exclude/Priority as one. */
			if (is_placement_key(k))
				for (int o = CP_KEY_PIN; o < _CP_KEY_MAX; o++)
					if (is_placement_key(o))
						merged[j].origin[o] = (struct cp_origin){};
			merged[j].value[k] = s->value[k];
			merged[j].origin[k] = s->origin[k];
		}
	}
	*ret = steal_pointer(&merged);
	return (int) n;
}
