/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* json-c documents with a "version" (json-util.h): parsed strictly, formatted alike. */
#include <errno.h>
#include <string.h>

#include "json-util.h"

int cp_json_parse_any_version(const char *text, json_object **ret, int64_t *ret_version)
{
	json_tokener *tok = json_tokener_new();
	json_object *doc, *v;
	size_t len = strlen(text), end;
	int r = -EBADMSG;

	if (!tok)
		return -ENOMEM;
	/*
	 * Strict: json-c's default takes numbers such as "0882230400e" and
	 * keeps their text, which then formats differently from what it
	 * parses back to (found by fuzz-state). cryptoprio writes its files
	 * itself, so nothing it wrote is refused.
	 */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	doc = json_tokener_parse_ex(tok, text, (int) len + 1);
	/*
	 * The end can lie past the terminating NUL, which the tokener is given
	 * (the lenient tokener ran a trailing "//" comment into it): then
	 * nothing follows. The fuzzer found the read past the end this check
	 * once made.
	 */
	end = json_tokener_get_parse_end(tok);
	if (json_tokener_get_error(tok) == json_tokener_success && doc &&
	    (end >= len || text[end + strspn(text + end, " \t\n")] == '\0') &&
	    json_object_is_type(doc, json_type_object) &&
	    json_object_object_get_ex(doc, "version", &v) && json_object_is_type(v, json_type_int))
		r = 0;
	json_tokener_free(tok);
	if (r < 0) {
		json_object_put(doc);
		return r;
	}
	*ret_version = json_object_get_int64(v);
	*ret = doc;
	return 0;
}

int cp_json_parse_versioned(const char *text, int64_t version, json_object **ret)
{
	json_object *doc;
	int64_t found;
	int r = cp_json_parse_any_version(text, &doc, &found);

	if (r < 0)
		return r;
	if (found != version) {
		json_object_put(doc);
		return -EBADMSG;
	}
	*ret = doc;
	return 0;
}

json_object *cp_json_new_versioned(int64_t version)
{
	json_object *doc = json_object_new_object(), *v = json_object_new_int64(version);

	if (doc && v && json_object_object_add(doc, "version", v) == 0)
		return doc;
	json_object_put(v);
	json_object_put(doc);
	return NULL;
}

json_object *cp_json_strv(char *const *v, size_t n)
{
	json_object *array = json_object_new_array();

	for (size_t i = 0; array && i < n; i++)
		json_object_array_add(array, json_object_new_string(v[i]));
	return array;
}

static int format(json_object *doc, int flags, char **ret_text)
{
	char *text = NULL;

	if (doc)
		text = strdup(
		    json_object_to_json_string_ext(doc, flags | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(doc);
	if (!text)
		return -ENOMEM;
	*ret_text = text;
	return 0;
}

int cp_json_format(json_object *doc, char **ret_text)
{
	return format(doc, JSON_C_TO_STRING_PRETTY, ret_text);
}

int cp_json_format_compact(json_object *doc, char **ret_text)
{
	return format(doc, JSON_C_TO_STRING_PLAIN, ret_text);
}

int cp_json_get_string(json_object *obj, const char *key, char *dst, size_t size, bool empty_ok)
{
	json_object *value;
	const char *s;

	if (!json_object_object_get_ex(obj, key, &value) ||
	    !json_object_is_type(value, json_type_string))
		return -EBADMSG;
	s = json_object_get_string(value);
	if (strlen(s) >= size || (!empty_ok && !*s))
		return -EBADMSG;
	strcpy(dst, s);
	return 0;
}

int cp_json_get_int(json_object *obj, const char *key, int64_t min, int64_t max, int64_t *ret)
{
	json_object *value;

	if (!json_object_object_get_ex(obj, key, &value) ||
	    !json_object_is_type(value, json_type_int))
		return -EBADMSG;
	*ret = json_object_get_int64(value);
	return *ret >= min && *ret <= max ? 0 : -EBADMSG;
}
