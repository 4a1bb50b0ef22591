/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The configuration search path (conf-files.h): which files are read, in which order. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* asprintf */
#endif
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf-files.h"
#include "macro.h"

const char *const cp_conf_dropin_dirs[] = {
    "/etc/" CP_CONF_DROPIN,
    "/run/" CP_CONF_DROPIN,
    "/usr/local/lib/" CP_CONF_DROPIN,
    "/usr/lib/" CP_CONF_DROPIN,
};
const size_t cp_conf_dropin_dirs_count = ARRAY_SIZE(cp_conf_dropin_dirs);

static void closedirp(DIR **d)
{
	if (*d)
		(void) closedir(*d);
}

bool cp_conf_is_mask(const char *path)
{
	char target[PATH_MAX];
	ssize_t n;

	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return strcmp(target, "/dev/null") == 0;
}

const char *cp_conf_kind_to_string(enum cp_conf_kind kind)
{
	switch (kind) {
	case CP_CONF_FILE:
		return "file";
	case CP_CONF_MASK:
		return "masked";
	case CP_CONF_SHADOWED:
		return "shadowed";
	}
	return "unknown";
}

static char *path_join(const char *root, const char *dir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s%s%s%s", root, dir, name ? "/" : "", name ? name : "") < 0)
		return NULL;
	return p;
}

static int entries_add(struct cp_conf_files *files, char *path, size_t name_offset,
		       enum cp_conf_kind kind)
{
	struct cp_conf_entry *e;

	e = reallocarray(files->entries, files->n_entries + 1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	files->entries = e;
	e[files->n_entries++] = (struct cp_conf_entry){
	    .path = path,
	    .name = path + name_offset,
	    .kind = kind,
	};
	return 0;
}

/* An entry for @name already read from a higher directory (drop-ins only, index >= @first). */
static bool name_seen(const struct cp_conf_files *files, size_t first, const char *name)
{
	for (size_t i = first; i < files->n_entries; i++)
		if (files->entries[i].kind != CP_CONF_SHADOWED &&
		    strcmp(files->entries[i].name, name) == 0)
			return true;
	return false;
}

static bool is_dropin_name(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && len > 5 && strcmp(name + len - 5, ".conf") == 0;
}

/* Classify one directory entry; returns 1 to add it with *kind, 0 to skip it. */
static int classify(const struct cp_conf_files *files, size_t first, const char *path,
		    const char *name, enum cp_conf_kind *kind)
{
	struct stat st;

	if (name_seen(files, first, name)) {
		*kind = CP_CONF_SHADOWED;
		return 1;
	}
	if (cp_conf_is_mask(path)) {
		*kind = CP_CONF_MASK;
		return 1;
	}
	/* As systemd: follow symlinks, read regular files, skip the rest (and dangling links). */
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	*kind = CP_CONF_FILE;
	return 1;
}

static int add_dir(struct cp_conf_files *files, size_t first, const char *root, const char *dir)
{
	_cleanup_(closedirp) DIR *d = NULL;
	_cleanup_free_ char *dir_path = NULL;
	struct dirent *de;
	char **dirs;

	dir_path = path_join(root, dir, NULL);
	if (!dir_path)
		return -ENOMEM;
	d = opendir(dir_path);
	if (!d)
		return errno == ENOENT || errno == ENOTDIR ? 0 : negative_errno();

	dirs = reallocarray(files->dirs, files->n_dirs + 1, sizeof(*dirs));
	if (!dirs)
		return -ENOMEM;
	files->dirs = dirs;
	files->dirs[files->n_dirs++] = steal_pointer(&dir_path);

	while ((errno = 0, de = readdir(d))) {
		_cleanup_free_ char *path = NULL;
		enum cp_conf_kind kind;
		int r;

		if (!is_dropin_name(de->d_name))
			continue;
		path = path_join(root, dir, de->d_name);
		if (!path)
			return -ENOMEM;
		if (classify(files, first, path, de->d_name, &kind) == 0)
			continue;
		r = entries_add(files, path, strlen(path) - strlen(de->d_name), kind);
		if (r < 0)
			return r;
		path = NULL;
	}
	return errno > 0 ? -errno : 0;
}

/* By file name; for the same name, the one read (or masking) first, then what it shadows. */
static int entry_cmp(const void *a, const void *b)
{
	const struct cp_conf_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c != 0)
		return c;
	if ((x->kind == CP_CONF_SHADOWED) != (y->kind == CP_CONF_SHADOWED))
		return x->kind == CP_CONF_SHADOWED ? 1 : -1;
	return strcmp(x->path, y->path);
}

static int add_main_file(struct cp_conf_files *files, const char *root)
{
	_cleanup_free_ char *path = NULL;
	struct stat st;
	size_t name_offset;
	int r;

	path = path_join(root, CP_CONF_MAIN_FILE, NULL);
	if (!path)
		return -ENOMEM;
	name_offset = strlen(path) - strlen("cryptoprio.conf");
	/* One lookup where there is no file, or a plain one: a mask is a symlink. */
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : negative_errno();
	if (S_ISLNK(st.st_mode) && cp_conf_is_mask(path))
		r = entries_add(files, path, name_offset, CP_CONF_MASK);
	else
		/* Present but maybe not a regular file: the loader says why it cannot be read. */
		r = entries_add(files, path, name_offset, CP_CONF_FILE);
	if (r < 0)
		return r;
	path = NULL;
	return 0;
}

int cp_conf_files_list(const char *root, struct cp_conf_files *ret)
{
	struct cp_conf_files files = {};
	size_t first;
	int r;

	if (!root || strcmp(root, "/") == 0)
		root = "";
	r = add_main_file(&files, root);
	if (r < 0)
		goto fail;
	first = files.n_entries;
	for (size_t i = 0; i < cp_conf_dropin_dirs_count; i++) {
		r = add_dir(&files, first, root, cp_conf_dropin_dirs[i]);
		if (r < 0)
			goto fail;
	}
	/* No drop-in at all: entries may be NULL, and NULL + 0 or qsort(NULL) is undefined. */
	if (files.n_entries > first)
		qsort(files.entries + first, files.n_entries - first, sizeof(*files.entries),
		      entry_cmp);
	*ret = files;
	return 0;
fail:
	cp_conf_files_done(&files);
	return r;
}

void cp_conf_files_done(struct cp_conf_files *files)
{
	for (size_t i = 0; i < files->n_entries; i++)
		free(files->entries[i].path);
	free(files->entries);
	for (size_t i = 0; i < files->n_dirs; i++)
		free(files->dirs[i]);
	free(files->dirs);
	*files = (struct cp_conf_files){};
}
