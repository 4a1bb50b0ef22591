/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tables of cryptoprioctl: columns as wide as their widest cell
 * (libsmartcols, as lsblk and findmnt), the header left out with
 * --no-legend, and title lines between groups of rows that do not count
 * for the widths ("cbc(aes) (skcipher)" above its implementations).
 */
#pragma once

#include <stddef.h>

#include "cryptoprioctl.h"

enum {
	CTL_COL_RIGHT = 1 << 0, /* numbers: aligned to the right */
};

struct ctl_column {
	const char *name; /* the header */
	unsigned flags;	  /* CTL_COL_* */
};

struct ctl_table;

/*
 * A table of @n_columns, each row printed after @indent; NULL when out
 * of memory. --no-legend (ctl->no_legend) leaves the header out.
 */
struct ctl_table *ctl_table_new(const struct ctl *ctl, const struct ctl_column *columns,
				size_t n_columns, const char *indent);
/* A line printed as is before the next row (or at the end); 0 or -ENOMEM. */
int ctl_table_title(struct ctl_table *t, const char *fmt, ...) _printf_(2, 3);
/* A row of as many cells as columns (NULL: empty); 0 or -ENOMEM. */
int ctl_table_row(struct ctl_table *t, const char *const *cells);
/* Print the table to stdout and free it; 0 or a negative errno. */
int ctl_table_print(struct ctl_table *t);
void ctl_table_free(struct ctl_table *t);
