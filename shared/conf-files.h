/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The policy search path, with systemd's rules for configuration files. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define CP_CONF_MAIN_FILE "/etc/cryptoprio.conf"
#define CP_CONF_DROPIN	  "cryptoprio.conf.d"

/* Drop-in directories, highest precedence first (a name here masks the same name below). */
extern const char *const cp_conf_dropin_dirs[];
extern const size_t cp_conf_dropin_dirs_count;

enum cp_conf_kind {
	CP_CONF_FILE,	  /* read it */
	CP_CONF_MASK,	  /* a symlink to /dev/null: hides the same name in lower directories */
	CP_CONF_SHADOWED, /* same name in a higher directory: not read */
};

struct cp_conf_entry {
	char *path;	  /* with the root prefix */
	const char *name; /* points into path: the file name */
	enum cp_conf_kind kind;
};

struct cp_conf_files {
	/*
	 * In order of increasing precedence: the main file first, then drop-ins
	 * sorted by file name across directories. Masks and shadowed files keep
	 * their place so --verbose can show them; only CP_CONF_FILE is read.
	 */
	struct cp_conf_entry *entries;
	size_t n_entries;
	/* Drop-in directories that exist (with the root prefix), to check who can write them. */
	char **dirs;
	size_t n_dirs;
};

/*
 * List the policy files under @root ("" or NULL for /; tests pass a
 * temporary directory). Missing directories and a missing main file are
 * not errors. Returns 0 or a negative errno (-ENOMEM, or a directory that
 * exists but cannot be read).
 */
int cp_conf_files_list(const char *root, struct cp_conf_files *ret);
void cp_conf_files_done(struct cp_conf_files *files);

/* Whether @path is a symlink to /dev/null (a mask, not a file). */
bool cp_conf_is_mask(const char *path);

const char *cp_conf_kind_to_string(enum cp_conf_kind kind);
