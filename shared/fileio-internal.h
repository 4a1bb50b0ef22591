/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * For unit tests only: a way to see which files cp_read_file() reads and
 * cp_write_file_atomic() replaces, so that a test can count them.
 */
#pragma once

enum cp_file_op {
	CP_FILE_READ,
	CP_FILE_WRITE,
};

/* Called with each file read or written, before the attempt; NULL (the default): nobody. */
extern void (*cp_file_observer)(enum cp_file_op op, const char *path);
