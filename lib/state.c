/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "fileio.h"
#include "macro.h"
#include "state.h"

void cp_state_init(struct cp_state *state)
{
	memset(state, 0, sizeof(*state));
}

void cp_state_free(struct cp_state *state)
{
	free(state->originals);
	if (state->doc)
		json_object_put(state->doc);
	cp_state_init(state);
}

static int copy_string(char dst[CP_NAME_MAX], json_object *obj, const char *key)
{
	json_object *value;
	const char *s;

	if (!json_object_object_get_ex(obj, key, &value) ||
	    !json_object_is_type(value, json_type_string))
		return -EBADMSG;
	s = json_object_get_string(value);
	if (strlen(s) >= CP_NAME_MAX)
		return -EBADMSG;
	strcpy(dst, s);
	return 0;
}

static int parse_original(json_object *obj, struct cp_original *original)
{
	json_object *value;
	int64_t priority;

	if (!json_object_is_type(obj, json_type_object))
		return -EBADMSG;
	if (copy_string(original->driver, obj, "driver") < 0 || !original->driver[0] ||
	    copy_string(original->module, obj, "module") < 0)
		return -EBADMSG;
	if (!json_object_object_get_ex(obj, "priority", &value) ||
	    !json_object_is_type(value, json_type_int))
		return -EBADMSG;
	priority = json_object_get_int64(value);
	if (priority < 0 || priority > INT_MAX)
		return -EBADMSG;
	original->priority = (uint32_t) priority;
	return 0;
}

static int parse_originals(json_object *array, struct cp_state *state)
{
	size_t n = json_object_array_length(array);

	state->originals = calloc(n ? n : 1, sizeof(*state->originals));
	if (!state->originals)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct cp_original *original = &state->originals[i];

		if (parse_original(json_object_array_get_idx(array, i), original) < 0)
			return -EBADMSG;
		if (cp_state_find(state, original->driver))
			return -EBADMSG; /* a driver twice: which original is right? */
		state->n_originals++;
	}
	return 0;
}

int cp_state_parse(const char *text, struct cp_state *state)
{
	json_object *version, *originals;
	json_tokener *tok;
	int r;

	cp_state_init(state);
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	state->doc = json_tokener_parse_ex(tok, text, (int) strlen(text) + 1);
	r = json_tokener_get_error(tok) == json_tokener_success ? 0 : -EBADMSG;
	/* One document and nothing after it but white space. */
	if (r == 0 && text[json_tokener_get_parse_end(tok) +
			   strspn(text + json_tokener_get_parse_end(tok), " \t\n")] != '\0')
		r = -EBADMSG;
	json_tokener_free(tok);
	if (r < 0 || !state->doc || !json_object_is_type(state->doc, json_type_object))
		goto bad;
	if (!json_object_object_get_ex(state->doc, "version", &version) ||
	    !json_object_is_type(version, json_type_int) ||
	    json_object_get_int64(version) != CP_STATE_VERSION)
		goto bad;
	if (!json_object_object_get_ex(state->doc, "originals", &originals) ||
	    !json_object_is_type(originals, json_type_array))
		goto bad;
	r = parse_originals(originals, state);
	if (r < 0) {
		cp_state_free(state);
		return r;
	}
	return 0;
bad:
	cp_state_free(state);
	return -EBADMSG;
}

static json_object *format_originals(const struct cp_state *state)
{
	json_object *array = json_object_new_array();

	for (size_t i = 0; array && i < state->n_originals; i++) {
		const struct cp_original *original = &state->originals[i];
		json_object *obj = json_object_new_object();

		json_object_object_add(obj, "driver", json_object_new_string(original->driver));
		json_object_object_add(obj, "module", json_object_new_string(original->module));
		json_object_object_add(obj, "priority", json_object_new_int64(original->priority));
		json_object_array_add(array, obj);
	}
	return array;
}

int cp_state_format(const struct cp_state *state, char **ret_text)
{
	json_object *doc = state->doc ? json_object_get(state->doc) : json_object_new_object();
	char *text;

	if (!doc)
		return -ENOMEM;
	json_object_object_add(doc, "version", json_object_new_int(CP_STATE_VERSION));
	json_object_object_add(doc, "originals", format_originals(state));
	text = strdup(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(doc);
	if (!text)
		return -ENOMEM;
	*ret_text = text;
	return 0;
}

int cp_state_load(const char *path, struct cp_state *state)
{
	_cleanup_free_ char *text = NULL;
	int r;

	cp_state_init(state);
	r = cp_read_file(path, CP_STATE_MAX_SIZE, &text, NULL);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	return cp_state_parse(text, state);
}

int cp_state_save(const char *path, const struct cp_state *state)
{
	_cleanup_free_ char *text = NULL;
	int r;

	r = cp_state_format(state, &text);
	if (r < 0)
		return r;
	return cp_write_file_atomic(path, text, strlen(text), 0644);
}

const struct cp_original *cp_state_find(const struct cp_state *state, const char *driver)
{
	for (size_t i = 0; i < state->n_originals; i++)
		if (strcmp(state->originals[i].driver, driver) == 0)
			return &state->originals[i];
	return NULL;
}

int cp_state_record(struct cp_state *state, const struct cp_alg *alg)
{
	struct cp_original *originals;

	if (cp_state_find(state, alg->driver))
		return 0;
	originals = reallocarray(state->originals, state->n_originals + 1, sizeof(*originals));
	if (!originals)
		return -ENOMEM;
	state->originals = originals;
	originals[state->n_originals] = (struct cp_original){.priority = alg->priority};
	snprintf(originals[state->n_originals].driver, CP_NAME_MAX, "%s", alg->driver);
	snprintf(originals[state->n_originals].module, CP_NAME_MAX, "%s", alg->module);
	state->n_originals++;
	return 1;
}

int cp_state_forget(struct cp_state *state, const char *driver)
{
	for (size_t i = 0; i < state->n_originals; i++) {
		if (strcmp(state->originals[i].driver, driver) != 0)
			continue;
		memmove(&state->originals[i], &state->originals[i + 1],
			(state->n_originals - i - 1) * sizeof(*state->originals));
		state->n_originals--;
		return 1;
	}
	return 0;
}
