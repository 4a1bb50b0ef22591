/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Files as cryptoprio keeps them: written by an atomic rename (a reader sees
 * the old file or the new), read within a size bound, locked with flock(2).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Create @path's parent directories as needed (mode 0755). */
int cp_mkdir_parents(const char *path);

/*
 * Replace @path with @data atomically: a temporary file in the same
 * directory, fsync, rename. Readers see the old or the new file whole.
 */
int cp_write_file_atomic(const char *path, const void *data, size_t size, mode_t mode);

/* Read a whole file of at most @max bytes, NUL-terminated. -ENOENT if absent, -EFBIG if larger. */
int cp_read_file(const char *path, size_t max, char **ret_data, size_t *ret_size);

/*
 * Take the exclusive lock (flock on @path, created if needed); blocks until
 * it is free. Returns the fd holding it (close to release) or a negative errno.
 */
int cp_lock_acquire(const char *path);
/*
 * The same, calling @waiting (if not NULL) once first when another process
 * holds the lock (a silent hang otherwise), waiting at most @timeout_usec
 * (0: as long as it takes):
 * -ETIMEDOUT if another process still holds the lock then. With a limit,
 * SIGALRM and the ITIMER_REAL timer are borrowed while it waits (restored
 * after): not for a program that uses them.
 */
int cp_lock_acquire_timeout(const char *path, void (*waiting)(const char *path),
			    uint64_t timeout_usec);
/*
 * Whether a file can be created at @path: the nearest of its directories
 * that exists (the others would be made in it) is writable by the caller.
 * Nothing is created. 0 or a negative errno.
 */
int cp_check_dir_writable(const char *path);

/* Whether the calling process has CAP_NET_ADMIN in its effective set. */
bool cp_have_net_admin(void);
