/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the daemon and cryptoprioctl ask of a parsed policy: run it all on fuzzed input. */
#pragma once

#include <errno.h>

#include "fuzz.h"
#include "policy.h"

static const char *const fuzz_names[] = {
    "cbc(aes)", "gcm(aes)", "sha256", "xts(aes)", "authenc(hmac(sha256),cbc(aes))", "",
};
static const char *const fuzz_drivers[] = {
    "cbc-aes-aesni", "virtio_crypto_aes_cbc", "gcm-aes-caam-qi2", "sha256-generic", "",
};

static void fuzz_check_settings(const struct cp_settings *s)
{
	FUZZ_CHECK(s->gears <= CP_GEARS_ANY);
	FUZZ_CHECK(s->rank <= CP_RANK_CPU_COST);
	FUZZ_CHECK(s->calibrate <= CP_CALIBRATE_NEVER);
	for (int k = 0; k < _CP_KEY_MAX; k++)
		if (s->origin[k].file)
			FUZZ_CHECK(strlen(s->origin[k].file) > 0);
}

static void fuzz_check_rule(const struct cp_driver_rule *r)
{
	FUZZ_CHECK(r->pin <= CP_PIN_LAST);
	FUZZ_CHECK(!r->has_class || r->class <= CP_CLASS_OFFLOAD);
	FUZZ_CHECK(!r->has_priority || r->priority <= 0x7fffffffu);
}

/* Every query on @policy, with the names it holds and a few fixed ones. */
static void fuzz_query_policy(const struct cp_policy *policy)
{
	struct cp_section *merged = NULL;
	struct cp_settings settings;
	struct cp_driver_rule rule;
	const char *value;
	char buf[128];
	int n;

	for (size_t i = 0; i < policy->n_errors; i++) {
		FUZZ_CHECK(policy->errors[i].file && policy->errors[i].reason);
		FUZZ_CHECK(strlen(policy->errors[i].reason) > 0);
	}
	if (!cp_policy_is_valid(policy))
		return; /* refused whole: nothing of it is used */

	cp_policy_global(policy, &settings);
	fuzz_check_settings(&settings);
	for (size_t i = 0; i < sizeof(fuzz_names) / sizeof(*fuzz_names); i++) {
		cp_policy_algorithm(policy, fuzz_names[i], &settings);
		fuzz_check_settings(&settings);
	}
	for (size_t i = 0; i < sizeof(fuzz_drivers) / sizeof(*fuzz_drivers); i++) {
		cp_policy_driver(policy, fuzz_drivers[i], &rule);
		fuzz_check_rule(&rule);
	}
	for (size_t i = 0; i < policy->n_sections; i++) {
		const struct cp_section *s = &policy->sections[i];

		FUZZ_CHECK(s->kind <= CP_SECTION_DRIVER);
		FUZZ_CHECK(s->file_index < policy->n_files);
		if (!s->pattern)
			continue;
		/* The section's own pattern as a name: matches itself when exact. */
		if (s->kind == CP_SECTION_ALGORITHM) {
			cp_policy_algorithm(policy, s->pattern, &settings);
			fuzz_check_settings(&settings);
		} else if (s->kind == CP_SECTION_DRIVER) {
			cp_policy_driver(policy, s->pattern, &rule);
			fuzz_check_rule(&rule);
		}
	}

	n = cp_policy_merged_sections(policy, &merged);
	if (n == -ENOMEM)
		return;
	FUZZ_CHECK(n >= 0 && (size_t) n <= policy->n_sections);
	for (int i = 0; i < n; i++) {
		FUZZ_CHECK(cp_section_kind_to_string(merged[i].kind) != NULL);
		for (int k = 0; k < _CP_KEY_MAX; k++) {
			if (!merged[i].origin[k].file)
				continue;
			FUZZ_CHECK(cp_key_to_string((enum cp_key) k) != NULL);
			value = cp_key_value_to_string((enum cp_key) k, merged[i].value[k], buf,
						       sizeof(buf));
			FUZZ_CHECK(value && *value);
			FUZZ_CHECK(value != buf || memchr(buf, '\0', sizeof(buf)));
		}
	}
	free(merged);
}
