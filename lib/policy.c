/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The policy (policy.h): its keys and the values each takes, the model, and
 * the effective settings for a name or a driver (read by policy-parse.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "pattern.h"
#include "policy-internal.h"
#include "policy.h"
#include "units.h"

#define ALL_SECTIONS (SECTION_BIT(CP_SECTION_POLICY) | SECTION_BIT(CP_SECTION_ALGORITHM))

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

const struct key_info cp_policy_keys[_CP_KEY_MAX] = {
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
	return key < _CP_KEY_MAX ? cp_policy_keys[key].name : "?";
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

/* ---- the model ---- */

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

		if (!(cp_policy_keys[k].sections & SECTION_BIT(CP_SECTION_POLICY)))
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

		if (!(cp_policy_keys[k].sections & SECTION_BIT(CP_SECTION_ALGORITHM)))
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
