/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every JSON file of cryptoprio is: one object with a "version". */
#pragma once

#include <stdint.h>
#include <json-c/json.h>

/*
 * Parse @text as exactly one JSON object (nothing but white space after it)
 * whose "version" is the integer @version. Returns 0 with the object in
 * @ret (the caller's reference), -EBADMSG for anything else, -ENOMEM.
 */
int cp_json_parse_versioned(const char *text, int64_t version, json_object **ret);
