/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cryptoprioctl's tables over libsmartcols (ctl-table.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libsmartcols/libsmartcols.h>

#include "ctl-table.h"

struct ctl_title {
	size_t before_row;
	char *text;
};

struct ctl_table {
	struct libscols_table *tb;
	size_t n_columns, n_rows;
	bool legend;
	const char *indent;
	struct ctl_title *titles;
	size_t n_titles;
};

void ctl_table_free(struct ctl_table *t)
{
	if (!t)
		return;
	scols_unref_table(t->tb);
	for (size_t i = 0; i < t->n_titles; i++)
		free(t->titles[i].text);
	free(t->titles);
	free(t);
}

struct ctl_table *ctl_table_new(const struct ctl *ctl, const struct ctl_column *columns,
				size_t n_columns, const char *indent)
{
	struct ctl_table *t = calloc(1, sizeof(*t));

	if (!t || !(t->tb = scols_new_table())) {
		free(t);
		return NULL;
	}
	t->n_columns = n_columns;
	t->legend = !ctl->no_legend;
	t->indent = indent;
	/* Sized to the content whatever the terminal: nothing cut, as before. */
	scols_table_set_termforce(t->tb, SCOLS_TERMFORCE_NEVER);
	scols_table_enable_noheadings(t->tb, !t->legend);
	for (size_t i = 0; i < n_columns; i++)
		if (!scols_table_new_column(t->tb, columns[i].name, 0,
					    columns[i].flags & CTL_COL_RIGHT ? SCOLS_FL_RIGHT
									     : 0)) {
			ctl_table_free(t);
			return NULL;
		}
	return t;
}

int ctl_table_title(struct ctl_table *t, const char *fmt, ...)
{
	struct ctl_title *titles = reallocarray(t->titles, t->n_titles + 1, sizeof(*titles));
	va_list ap;
	int r;

	if (!titles)
		return -ENOMEM;
	t->titles = titles;
	va_start(ap, fmt);
	r = vasprintf(&titles[t->n_titles].text, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	titles[t->n_titles++].before_row = t->n_rows;
	return 0;
}

int ctl_table_row(struct ctl_table *t, const char *const *cells)
{
	struct libscols_line *line = scols_table_new_line(t->tb, NULL);

	if (!line)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_columns; i++)
		if (cells[i] && scols_line_set_data(line, i, cells[i]) < 0)
			return -ENOMEM;
	t->n_rows++;
	return 0;
}

/* The titles that go before row @row, from *@next on. */
static void print_titles(const struct ctl_table *t, size_t row, size_t *next)
{
	for (; *next < t->n_titles && t->titles[*next].before_row == row; (*next)++)
		puts(t->titles[*next].text);
}

int ctl_table_print(struct ctl_table *t)
{
	_cleanup_free_ char *text = NULL;
	char *line, *save = NULL;
	size_t row = 0, title = 0;
	bool header = t->legend;

	if (scols_print_table_to_string(t->tb, &text) < 0) {
		ctl_table_free(t);
		return -ENOMEM;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!header)
			print_titles(t, row++, &title);
		printf("%s%s\n", t->indent, line);
		header = false;
	}
	print_titles(t, row, &title);
	ctl_table_free(t);
	return 0;
}
