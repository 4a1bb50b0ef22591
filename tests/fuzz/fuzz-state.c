/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The state file (/run/cryptoprio/state.json and its copy in /var/lib):
 * cp_state_parse, and for what it accepts a round trip: what
 * cp_state_format writes parses again, and formats to the same text.
 */
#include <errno.h>

#include "fuzz.h"
#include "state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cp_state state, again;
	char *text, *out1 = NULL, *out2 = NULL;
	int r;

	if (size > CP_STATE_MAX_SIZE)
		return 0; /* cp_state_load refuses a larger file */
	text = fuzz_strndup(data, size);
	r = cp_state_parse(text, &state);
	free(text);
	if (r == -ENOMEM)
		return 0;
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	if (r < 0)
		return 0;

	for (size_t i = 0; i < state.n_originals; i++) {
		FUZZ_CHECK_STR(state.originals[i].driver);
		FUZZ_CHECK_STR(state.originals[i].module);
		FUZZ_CHECK(cp_state_find(&state, state.originals[i].driver) != NULL);
	}
	if (state.last_apply)
		for (size_t i = 0; i < state.last_apply->n_steps; i++) {
			const struct cp_state_step *s = &state.last_apply->steps[i];

			FUZZ_CHECK_STR(s->driver);
			FUZZ_CHECK_STR(s->name);
			FUZZ_CHECK_STR(s->why);
			FUZZ_CHECK_STR(s->message);
			FUZZ_CHECK(cp_step_result_to_string(s->result) != NULL);
		}

	FUZZ_CHECK(cp_state_format(&state, &out1) == 0);
	r = cp_state_parse(out1, &again);
	if (r != 0)
		fprintf(stderr, "cp_state_parse refused what cp_state_format wrote (%d):\n%s\n", r,
			out1);
	FUZZ_CHECK(r == 0);
	FUZZ_CHECK(again.n_originals == state.n_originals);
	FUZZ_CHECK((again.last_apply == NULL) == (state.last_apply == NULL));
	FUZZ_CHECK(again.checked_at == state.checked_at);
	FUZZ_CHECK(cp_state_format(&again, &out2) == 0);
	if (strcmp(out1, out2) != 0)
		fprintf(stderr, "format is not stable:\n%s\n---\n%s\n", out1, out2);
	FUZZ_CHECK(strcmp(out1, out2) == 0);
	free(out1);
	free(out2);
	cp_state_free(&again);
	cp_state_free(&state);
	return 0;
}
