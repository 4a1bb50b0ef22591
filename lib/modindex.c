/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The format (kmod's libkmod-index.c): big-endian u32 magic 0xB007F457,
 * u32 version (major 2 in the upper half), u32 offset of the root node.
 * A node offset's upper nibble says which parts the node has, in this
 * order: a NUL-terminated prefix (the label the edge into it continues
 * with); the range of child characters, first and last, and one u32
 * offset per character in it (0: none); a u32 count of values, each a u32
 * priority and a NUL-terminated string. Every read here is checked against
 * the file's end: a damaged index makes a lookup fail, nothing worse.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "macro.h"
#include "modindex.h"

#define INDEX_MAGIC	    0xB007F457u
#define INDEX_VERSION_MAJOR 2u
#define NODE_PREFIX	    0x80000000u
#define NODE_VALUES	    0x40000000u
#define NODE_CHILDS	    0x20000000u
#define NODE_OFFSET	    0x0FFFFFFFu

static bool read_u32(const struct cp_modindex *idx, size_t *pos, uint32_t *ret)
{
	const uint8_t *p;

	if (*pos > idx->size || idx->size - *pos < 4)
		return false;
	p = idx->data + *pos;
	*ret = (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
	*pos += 4;
	return true;
}

/* The NUL-terminated string at @pos, its length in @len; NULL if it runs off the end. */
static const char *read_string(const struct cp_modindex *idx, size_t pos, size_t *len)
{
	const char *s, *nul;

	if (pos >= idx->size)
		return NULL;
	s = (const char *) idx->data + pos;
	nul = memchr(s, '\0', idx->size - pos);
	if (!nul)
		return NULL;
	*len = (size_t) (nul - s);
	return s;
}

int cp_modindex_init(struct cp_modindex *idx, const void *data, size_t size)
{
	uint32_t magic, version;
	size_t pos = 0;

	*idx = (struct cp_modindex){.data = data, .size = size};
	if (!read_u32(idx, &pos, &magic) || !read_u32(idx, &pos, &version) ||
	    !read_u32(idx, &pos, &idx->root) || magic != INDEX_MAGIC ||
	    version >> 16 != INDEX_VERSION_MAJOR)
		return -EBADMSG;
	return 0;
}

static int running_path(char *path, size_t size, struct utsname *uts, const char *file)
{
	if (uname(uts) < 0)
		return negative_errno();
	snprintf(path, size, "/lib/modules/%s/%s", uts->release, file);
	return 0;
}

int cp_modindex_id_running(struct cp_modindex_id *id)
{
	struct utsname uts;
	char path[512];
	struct stat st;
	int r;

	*id = (struct cp_modindex_id){};
	r = running_path(path, sizeof(path), &uts, "modules.dep.bin");
	if (r < 0)
		return r;
	if (stat(path, &st) < 0)
		return negative_errno();
	cp_strscpy(id->kernel, sizeof(id->kernel), uts.release);
	id->size = (uint64_t) st.st_size;
	id->mtime_ns = (int64_t) st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	return 0;
}

int cp_modindex_open_running_file(struct cp_modindex *idx, const char *file)
{
	_cleanup_close_ int fd = -1;
	struct utsname uts;
	char path[512];
	struct stat st;
	void *map;
	int r;

	*idx = (struct cp_modindex){};
	r = running_path(path, sizeof(path), &uts, file);
	if (r < 0)
		return r;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		return negative_errno();
	if (st.st_size <= 0)
		return -EBADMSG;
	map = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return negative_errno();
	r = cp_modindex_init(idx, map, (size_t) st.st_size);
	idx->map = map;
	if (r < 0)
		cp_modindex_close(idx);
	return r;
}

int cp_modindex_open_running(struct cp_modindex *idx)
{
	return cp_modindex_open_running_file(idx, "modules.dep.bin");
}

void cp_modindex_close(struct cp_modindex *idx)
{
	if (idx->map)
		munmap(idx->map, idx->size);
	*idx = (struct cp_modindex){};
}

/* The node's prefix against @key from @*i on: past it on a match. */
static bool match_prefix(const struct cp_modindex *idx, size_t *pos, const char *key, size_t *i)
{
	size_t len;
	const char *prefix = read_string(idx, *pos, &len);

	/* Where @key ends first, its NUL differs from the prefix's character. */
	if (!prefix || strncmp(prefix, key + *i, len) != 0)
		return false;
	*i += len;
	*pos += len + 1;
	return true;
}

/*
 * The values at @pos: up to @max of them into @values, their count
 * returned; where one runs off the end, those before it.
 */
static size_t values_at(const struct cp_modindex *idx, size_t pos, const char **values, size_t max)
{
	uint32_t count, priority;
	size_t len, n = 0;

	if (!read_u32(idx, &pos, &count))
		return 0;
	for (; n < count && n < max; n++) {
		if (!read_u32(idx, &pos, &priority) || !(values[n] = read_string(idx, pos, &len)))
			break;
		pos += len + 1;
	}
	return n;
}

/*
 * Where the values of @key start, or 0. Each step consumes a character of
 * @key: the walk ends, whatever the file says.
 */
static size_t lookup(const struct cp_modindex *idx, const char *key)
{
	uint32_t node = idx->root;

	for (size_t i = 0;; i++) {
		size_t pos = node & NODE_OFFSET, children = 0;
		unsigned first = 1, last = 0, c;
		uint32_t child;

		if (pos == 0 || (node & NODE_PREFIX && !match_prefix(idx, &pos, key, &i)))
			return 0;
		if (node & NODE_CHILDS) {
			if (pos > idx->size || idx->size - pos < 2)
				return 0;
			first = idx->data[pos];
			last = idx->data[pos + 1];
			if (first > last)
				return 0;
			children = pos + 2;
			pos = children + 4 * (size_t) (last - first + 1);
		}
		if (key[i] == '\0')
			return node & NODE_VALUES ? pos : 0;
		c = (unsigned char) key[i];
		if (c < first || c > last)
			return 0;
		children += 4 * (size_t) (c - first);
		if (!read_u32(idx, &children, &child))
			return 0;
		node = child;
	}
}

size_t cp_modindex_lookup_all(const struct cp_modindex *idx, const char *key, const char **values,
			      size_t max)
{
	char name[256];
	size_t len = strlen(key), pos;

	if (len >= sizeof(name))
		return 0;
	/*
	 * depmod's keys have '_' where a module's file name or an alias has
	 * '-' (its alias_normalize, outside brackets, which crypto's aliases
	 * have none of).
	 */
	for (size_t i = 0; i <= len; i++)
		name[i] = key[i] == '-' ? '_' : key[i];
	pos = lookup(idx, name);
	return pos ? values_at(idx, pos, values, max) : 0;
}

const char *cp_modindex_lookup(const struct cp_modindex *idx, const char *key)
{
	const char *value;

	return cp_modindex_lookup_all(idx, key, &value, 1) ? value : NULL;
}
