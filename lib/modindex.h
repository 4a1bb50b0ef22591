/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The module index depmod(8) writes beside modules.dep, modules.dep.bin:
 * a trie from module name to its modules.dep line, looked up without
 * reading the rest of the file.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct cp_modindex {
	const uint8_t *data;
	size_t size;
	uint32_t root;
	void *map; /* what cp_modindex_open mapped, or NULL */
};

/* Over @size bytes at @data (kept by the caller): -EBADMSG unless an index of version 2. */
int cp_modindex_init(struct cp_modindex *idx, const void *data, size_t size);
/* The running kernel's: /lib/modules/$(uname -r)/modules.dep.bin, mapped. */
int cp_modindex_open_running(struct cp_modindex *idx);
/* Another index of the running kernel's: "modules.alias.bin". */
int cp_modindex_open_running_file(struct cp_modindex *idx, const char *file);

/* Which file that is, without opening it: uname -r, its size and modification time. */
struct cp_modindex_id {
	char kernel[128];
	uint64_t size;
	int64_t mtime_ns;
};
int cp_modindex_id_running(struct cp_modindex_id *id);
void cp_modindex_close(struct cp_modindex *idx);

/*
 * The first value of @key (a module name, '-' and '_' alike): for
 * modules.dep.bin, the module's line "PATH: DEPENDENCIES", NUL-terminated
 * inside the index. NULL when the index has no such key or is damaged
 * where the search goes.
 */
const char *cp_modindex_lookup(const struct cp_modindex *idx, const char *key);
/*
 * Every value of @key, up to @max into @values (pointers into the index),
 * their number returned: modules.alias.bin has one per module an alias
 * names ("crypto-camellia": camellia_generic, camellia_x86_64...).
 */
size_t cp_modindex_lookup_all(const struct cp_modindex *idx, const char *key, const char **values,
			      size_t max);
