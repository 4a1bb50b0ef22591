/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every JSON file of cryptoprio is: one object with a "version". */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

/*
 * Parse @text as exactly one JSON object (nothing but white space after it)
 * whose "version" is the integer @version. Returns 0 with the object in
 * @ret (the caller's reference), -EBADMSG for anything else, -ENOMEM.
 */
int cp_json_parse_versioned(const char *text, int64_t version, json_object **ret);
/* The same for any integer "version", which is returned in @ret_version. */
int cp_json_parse_any_version(const char *text, json_object **ret, int64_t *ret_version);

/* For _cleanup_(): drops the reference *@p holds, if any. */
static inline void cp_json_putp(json_object **p)
{
	json_object_put(*p);
}

/* A new object whose first member is "version": @version; NULL on ENOMEM. */
json_object *cp_json_new_versioned(int64_t version);

/*
 * @doc as cryptoprio's files hold it (pretty, '/' not escaped) in a new
 * string in @ret_text; the caller's reference to @doc is dropped either
 * way, so that a document being built can be handed over as it is. Returns
 * 0, or -ENOMEM (@doc NULL included).
 */
int cp_json_format(json_object *doc, char **ret_text);
/* The same on one line, without blanks. */
int cp_json_format_compact(json_object *doc, char **ret_text);

/*
 * The string member @key of @obj copied into @dst (@size bytes, NUL
 * included). -EBADMSG if it is missing, not a string, too long for @dst,
 * or empty when not @empty_ok.
 */
int cp_json_get_string(json_object *obj, const char *key, char *dst, size_t size, bool empty_ok);

/* The integer member @key of @obj in @ret: -EBADMSG if missing, not an integer or not in [@min,
 * @max]. */
int cp_json_get_int(json_object *obj, const char *key, int64_t min, int64_t max, int64_t *ret);

/* A JSON array of the @n strings of @v (NULL with 0: empty). */
json_object *cp_json_strv(char *const *v, size_t n);
