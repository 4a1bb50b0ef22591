/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The calibration cache (/var/lib/cryptoprio/calibration.json):
 * cp_cache_parse, lookups of what it holds, and a round trip: what
 * cp_cache_format writes parses again to the same entries and text.
 */
#include <errno.h>

#include "calib-cache.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cp_cache cache, again, copy = {};
	char *text, *out1 = NULL, *out2 = NULL;
	int r;

	if (size > CP_CACHE_MAX_SIZE)
		return 0; /* cp_cache_load refuses a larger file */
	text = fuzz_strndup(data, size);
	r = cp_cache_parse(text, &cache);
	free(text);
	if (r == -ENOMEM)
		return 0;
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	if (r < 0) {
		FUZZ_CHECK(cache.n_entries == 0 && cache.n_defaults == 0); /* refused whole */
		return 0;
	}

	for (size_t i = 0; i < cache.n_entries; i++) {
		const struct cp_cache_entry *e = &cache.entries[i];

		FUZZ_CHECK_STR(e->key.kernel);
		FUZZ_CHECK_STR(e->key.build);
		FUZZ_CHECK_STR(e->key.cpu_model);
		FUZZ_CHECK_STR(e->key.driver);
		FUZZ_CHECK_STR(e->key.module);
		FUZZ_CHECK_STR(e->key.srcversion);
		FUZZ_CHECK(e->point.size >= 1 && e->point.depth >= 1);
		FUZZ_CHECK(cp_cache_find(&cache, &e->key, e->point.size, e->point.depth) != NULL);
		FUZZ_CHECK(cp_cache_put(&copy, e) == 0);
	}
	FUZZ_CHECK(copy.n_entries <= cache.n_entries);
	for (size_t i = 0; i < cache.n_defaults; i++) {
		const struct cp_cache_default *d = &cache.defaults[i];

		FUZZ_CHECK(!d->key.cpu_model[0] && d->priority <= 0x7fffffffu);
		FUZZ_CHECK(cp_cache_find_default(&cache, &d->key) == d); /* no duplicates */
		FUZZ_CHECK(cp_cache_put_default(&copy, d) == 1);
	}

	FUZZ_CHECK(cp_cache_format(&cache, &out1) == 0);
	r = cp_cache_parse(out1, &again);
	if (r != 0)
		fprintf(stderr, "cp_cache_parse refused what cp_cache_format wrote (%d):\n%s\n", r,
			out1);
	FUZZ_CHECK(r == 0);
	FUZZ_CHECK(again.n_entries == cache.n_entries);
	FUZZ_CHECK(again.n_defaults == cache.n_defaults);
	FUZZ_CHECK(cp_cache_format(&again, &out2) == 0);
	if (strcmp(out1, out2) != 0)
		fprintf(stderr, "format is not stable:\n%s\n---\n%s\n", out1, out2);
	FUZZ_CHECK(strcmp(out1, out2) == 0);
	free(out1);
	free(out2);
	cp_cache_free(&again);
	cp_cache_free(&copy);
	cp_cache_free(&cache);
	return 0;
}
