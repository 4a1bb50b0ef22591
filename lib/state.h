/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /run/cryptoprio/state.json: the priorities drivers had before cryptoprio changed them. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

#include "inventory.h"

#define CP_STATE_VERSION  1
#define CP_STATE_MAX_SIZE (4u << 20)

struct cp_original {
	char driver[CP_NAME_MAX];
	char module[CP_NAME_MAX];
	uint32_t priority;
};

struct cp_state {
	struct cp_original *originals;
	size_t n_originals;
	/* The whole document as read: keys this version does not know are kept on save. */
	json_object *doc;
};

void cp_state_init(struct cp_state *state);
void cp_state_free(struct cp_state *state);

/* Parse a state document; -EBADMSG for anything malformed (never half-trusted). */
int cp_state_parse(const char *text, struct cp_state *state);
/* Serialise; the returned string is owned by the caller. */
int cp_state_format(const struct cp_state *state, char **ret_text);

/* Load @path; a missing file is an empty state, not an error. */
int cp_state_load(const char *path, struct cp_state *state);
/* Write @path atomically (mode 0644). */
int cp_state_save(const char *path, const struct cp_state *state);

const struct cp_original *cp_state_find(const struct cp_state *state, const char *driver);
/* Record @alg's current priority unless an original is already recorded: returns 1 if added. */
int cp_state_record(struct cp_state *state, const struct cp_alg *alg);
/* Forget @driver's original (after it was restored). Returns 1 if there was one. */
int cp_state_forget(struct cp_state *state, const char *driver);
