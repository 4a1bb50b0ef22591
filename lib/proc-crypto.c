/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /proc/crypto: the read-only fallback when crypto_user cannot be reached. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proc-crypto.h"
#include "macro.h"

#define LARVAL_PRIORITY UINT32_MAX

static char *strip(char *s)
{
	char *end;

	s += strspn(s, " \t");
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n'))
		*--end = '\0';
	return s;
}

static int parse_u32(const char *s, uint32_t *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > UINT32_MAX || *s == '-')
		return -EINVAL;
	*out = (uint32_t) v;
	return 0;
}

static void copy_field(char dst[CP_NAME_MAX], const char *value)
{
	cp_strscpy(dst, CP_NAME_MAX, value);
}

/* One "key : value" line into @alg. Unknown keys (block size, ivsize...) are ignored. */
static int parse_line(struct cp_alg *alg, const char *key, const char *value)
{
	if (strcmp(key, "name") == 0)
		copy_field(alg->name, value);
	else if (strcmp(key, "driver") == 0)
		copy_field(alg->driver, value);
	else if (strcmp(key, "module") == 0)
		copy_field(alg->module, value);
	else if (strcmp(key, "type") == 0)
		copy_field(alg->type, value);
	else if (strcmp(key, "priority") == 0 && strcmp(value, "-1") == 0)
		alg->priority = LARVAL_PRIORITY; /* a larval's, checked with its type */
	else if (strcmp(key, "priority") == 0)
		return parse_u32(value, &alg->priority);
	else if (strcmp(key, "refcnt") == 0)
		return parse_u32(value, &alg->refcnt);
	else if (strcmp(key, "selftest") == 0 && strcmp(value, "passed") == 0)
		alg->flags |= CP_ALG_TESTED;
	else if (strcmp(key, "internal") == 0 && strcmp(value, "yes") == 0)
		alg->flags |= CP_ALG_INTERNAL;
	else if (strcmp(key, "async") == 0 && strcmp(value, "yes") == 0)
		alg->flags |= CP_ALG_ASYNC;
	return 0;
}

/*
 * A block without its identity is malformed, but for a larval: a lookup
 * that is building a template instance lists the name it waits for with
 * no driver name and priority -1 (as crypto_user reports it, UINT32_MAX).
 */
static bool block_valid(const struct cp_alg *alg)
{
	if (strcmp(alg->type, "larval") == 0)
		return alg->name[0];
	return alg->name[0] && alg->driver[0] && alg->priority != LARVAL_PRIORITY;
}

static int finish_block(struct cp_inventory *inv, struct cp_alg *alg, bool *in_block)
{
	int r = 0;

	if (*in_block) {
		if (!block_valid(alg))
			return -EBADMSG;
		r = cp_inventory_add(inv, alg);
	}
	memset(alg, 0, sizeof(*alg));
	*in_block = false;
	return r;
}

int cp_proc_crypto_parse(FILE *f, struct cp_inventory *inv)
{
	_cleanup_free_ char *line = NULL;
	struct cp_alg alg = {};
	bool in_block = false;
	size_t size = 0;
	int r;

	while (getline(&line, &size, f) >= 0) {
		char *colon, *key;

		if (line[0] == '#')
			continue; /* a comment of a saved listing; /proc/crypto has none */
		if (*strip(line) == '\0') {
			r = finish_block(inv, &alg, &in_block);
			if (r < 0)
				return r;
			continue;
		}
		colon = strchr(line, ':');
		if (!colon)
			return -EBADMSG;
		*colon = '\0';
		key = strip(line);
		if (strcmp(key, "name") == 0 && in_block) {
			/* A new block without a blank line in between. */
			r = finish_block(inv, &alg, &in_block);
			if (r < 0)
				return r;
		}
		in_block = true;
		r = parse_line(&alg, key, strip(colon + 1));
		if (r < 0)
			return -EBADMSG;
	}
	if (ferror(f))
		return -EIO;
	return finish_block(inv, &alg, &in_block);
}
