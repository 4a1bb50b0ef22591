/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Another machine's export (plan --from FILE): cp_export_parse, with a
 * reason for every refusal, and a round trip: what cp_export_to_json
 * writes parses again to the same machine, implementations and figures.
 */
#include <errno.h>

#include "export.h"
#include "fuzz.h"

/* @ex as cryptoprioctl export prints it, "version" and "verb" first. */
static char *document(const struct cp_export *ex)
{
	json_object *doc = json_object_new_object(), *body = cp_export_to_json(ex);
	char *text;

	FUZZ_CHECK(doc && body);
	json_object_object_add(doc, "version", json_object_new_int(CP_EXPORT_VERSION));
	json_object_object_add(doc, "verb", json_object_new_string("export"));
	json_object_object_foreach(body, key, value)
	    json_object_object_add(doc, key, json_object_get(value));
	json_object_put(body);
	text = strdup(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN));
	json_object_put(doc);
	FUZZ_CHECK(text);
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cp_export ex, again;
	char why[512], *text, *out;
	int r;

	if (size > (16u << 20))
		return 0; /* cp_export_load refuses a larger file */
	text = fuzz_strndup(data, size);
	r = cp_export_parse(text, &ex, why, sizeof(why));
	free(text);
	if (r == -ENOMEM)
		return 0;
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	if (r < 0) {
		FUZZ_CHECK(why[0] && ex.inventory.n_algs == 0 && ex.calibration.n_entries == 0);
		return 0;
	}
	FUZZ_CHECK(ex.inventory.n_algs > 0);
	FUZZ_CHECK_STR(ex.machine.kernel);
	for (size_t i = 0; i < ex.inventory.n_algs; i++)
		FUZZ_CHECK(cp_inventory_find_driver(&ex.inventory, ex.inventory.algs[i].driver) ==
			   &ex.inventory.algs[i]);

	out = document(&ex);
	r = cp_export_parse(out, &again, why, sizeof(why));
	if (r != 0)
		fprintf(stderr, "cp_export_parse refused what cp_export_to_json wrote (%s):\n%s\n",
			why, out);
	FUZZ_CHECK(r == 0);
	FUZZ_CHECK(again.inventory.n_algs == ex.inventory.n_algs);
	FUZZ_CHECK(again.n_modules == ex.n_modules && again.n_created == ex.n_created);
	FUZZ_CHECK(again.calibration.n_entries == ex.calibration.n_entries);
	FUZZ_CHECK(strcmp(again.machine.build, ex.machine.build) == 0);
	free(out);
	cp_export_free(&again);
	cp_export_free(&ex);
	return 0;
}
