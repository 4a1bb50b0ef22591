/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The chart in the terminal: for each name, MB/s against request size, both
 * on log scales, a mark per implementation, the workload point and the
 * crossovers marked below the axis and said in words; in the terminal's
 * width, UTF-8 glyphs where the locale's charset is UTF-8, ASCII otherwise.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ctl-chart.h"
#include "glyph.h"
#include "units.h"

#define N_MARKS 6

struct glyphs {
	const char *point[N_MARKS], *line[N_MARKS];
	const char *points; /* points of two curves in one cell */
	const char *y_axis, *y_tick, *x_axis, *x_tick, *corner, *crossing, *workload, *crossover;
};

static const struct glyphs utf8_glyphs = {
    .point = {"●", "○", "■", "□", "▲", "△"},
    .line = {"•", "∘", "▪", "▫", "▴", "▵"},
    .points = "◉",
    .y_axis = "│",
    .y_tick = "┤",
    .x_axis = "─",
    .x_tick = "┬",
    .corner = "└",
    .crossing = "┊",
    .workload = "W",
    .crossover = "×",
};

static const struct glyphs ascii_glyphs = {
    .point = {"A", "B", "C", "D", "E", "F"},
    .line = {"a", "b", "c", "d", "e", "f"},
    .points = "*",
    .y_axis = "|",
    .y_tick = "+",
    .x_axis = "-",
    .x_tick = "+",
    .corner = "+",
    .crossing = ":",
    .workload = "W",
    .crossover = "X",
};

/* The plot area of one name: cells of glyphs, the scales that place points in them. */
struct canvas {
	int width, height, label_width;
	int rows_per_decade;
	double top_decade; /* log10 of the MB/s at the top row */
	const char **cell;
	unsigned char *weight; /* what holds a cell: 1 a crossing line, 2 a curve, 3 a point */
	bool shared;	       /* points of two curves fell in one cell */
};

int chart_width(FILE *out)
{
	struct winsize ws;
	const char *columns = getenv("COLUMNS");
	uint64_t value;
	int width = 80;

	if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		width = ws.ws_col;
	else if (columns && cp_parse_uint(columns, 1, INT32_MAX, &value) == 0)
		width = (int) value;
	if (width < CHART_WIDTH_MIN)
		return CHART_WIDTH_MIN;
	return width > CHART_WIDTH_MAX ? CHART_WIDTH_MAX : width;
}

/* Columns @s takes: one per character (every glyph used here is one column wide). */
static int text_width(const char *s, size_t len)
{
	int n = 0;

	for (size_t i = 0; i < len && s[i]; i++)
		n += ((unsigned char) s[i] & 0xc0) != 0x80;
	return n;
}

/* @text in lines of at most @width columns, broken at blanks, the continuations indented by 2. */
static void put_wrapped(FILE *out, int width, const char *text)
{
	int indent = 0;

	while (*text) {
		const char *end = text, *cut = NULL;

		while (*end && text_width(text, (size_t) (end - text)) < width - indent) {
			if (*end == ' ')
				cut = end;
			end++;
		}
		if (!*end || text_width(text, (size_t) (end - text)) < width - indent)
			cut = end + strlen(end);
		else if (*end == ' ')
			cut = end; /* it fills the line exactly */
		else if (!cut || cut == text)
			cut = end; /* a word longer than the line: cut it */
		fprintf(out, "%*s%.*s\n", indent, "", (int) (cut - text), text);
		text = cut;
		while (*text == ' ')
			text++;
		indent = 2;
	}
}

/* "16", "4K", "1M": a size as short as the axis needs. */
static const char *short_size(char *buf, size_t size, uint32_t bytes)
{
	if (bytes >= 1048576 && bytes % 1048576 == 0)
		snprintf(buf, size, "%" PRIu32 "M", bytes / 1048576);
	else if (bytes >= 1024 && bytes % 1024 == 0)
		snprintf(buf, size, "%" PRIu32 "K", bytes / 1024);
	else
		snprintf(buf, size, "%" PRIu32, bytes);
	return buf;
}

/* The MB/s of the decade @d's label: "0.1", "10", "1000". */
static const char *decade_label(char *buf, size_t size, int d)
{
	snprintf(buf, size, "%.*f", d < 0 ? -d : 0, pow(10, d));
	return buf;
}

/* @cv for @n in @width columns: whole decades of MB/s around its points. */
static int canvas_init(struct canvas *cv, const struct chart_name *n, int width)
{
	int bottom = (int) floor(log10(n->mbps_min)), top = (int) ceil(log10(n->mbps_max));
	char label[32];

	if (top <= bottom)
		top = bottom + 1;
	/* some 16 rows, at least 3 a decade */
	*cv = (struct canvas){.rows_per_decade = 16 / (top - bottom), .top_decade = top};
	if (cv->rows_per_decade > 6)
		cv->rows_per_decade = 6;
	if (cv->rows_per_decade < 3)
		cv->rows_per_decade = 3;
	cv->height = (top - bottom) * cv->rows_per_decade + 1;
	for (int d = bottom; d <= top; d++) {
		int w = (int) strlen(decade_label(label, sizeof(label), d));

		cv->label_width = w > cv->label_width ? w : cv->label_width;
	}
	cv->width = width - cv->label_width - 2; /* the label, a blank, the axis */
	cv->cell = calloc((size_t) (cv->width * cv->height), sizeof(*cv->cell));
	cv->weight = calloc((size_t) (cv->width * cv->height), sizeof(*cv->weight));
	return cv->cell && cv->weight ? 0 : -ENOMEM;
}

static void canvas_free(struct canvas *cv)
{
	free(cv->cell);
	free(cv->weight);
}

/* The column of @size on @n's log scale of sizes; -1 outside it. */
static int column_of(const struct canvas *cv, const struct chart_name *n, uint32_t size)
{
	double first = log2(n->sizes[0]), last = log2(n->sizes[n->n_sizes - 1]);

	if (size < n->sizes[0] || size > n->sizes[n->n_sizes - 1])
		return -1;
	if (n->n_sizes == 1)
		return cv->width / 2;
	return (int) lround((log2(size) - first) / (last - first) * (cv->width - 1));
}

/* @glyph at @row, @col unless something weightier is there; two curves' points: g->points. */
static void put(struct canvas *cv, int row, int col, const char *glyph, unsigned char weight,
		const struct glyphs *g)
{
	size_t i;

	if (row < 0 || row >= cv->height || col < 0 || col >= cv->width)
		return;
	i = (size_t) (row * cv->width + col);
	if (weight == 3 && cv->weight[i] == 3 && cv->cell[i] != glyph) {
		glyph = g->points;
		cv->shared = true;
	}
	if (weight >= cv->weight[i]) {
		cv->cell[i] = glyph;
		cv->weight[i] = weight;
	}
}

/* The row of log10(MB/s) @lg. */
static int row_of(const struct canvas *cv, double lg)
{
	return (int) lround((cv->top_decade - lg) * cv->rows_per_decade);
}

/* Curve @c: its points, and a line between each two measured in a row. */
static void draw_curve(struct canvas *cv, const struct chart_name *n, size_t c,
		       const struct glyphs *g)
{
	const struct chart_curve *curve = &n->curves[c];
	int last_col = -1;
	double last_lg = 0;

	for (size_t s = 0; s < n->n_sizes; s++) {
		int col = column_of(cv, n, n->sizes[s]);
		double lg;

		if (curve->mbps[s] <= 0)
			continue;
		lg = log10(curve->mbps[s]);
		for (int x = last_col + 1; last_col >= 0 && x < col; x++)
			put(cv,
			    row_of(cv,
				   last_lg + (lg - last_lg) * (x - last_col) / (col - last_col)),
			    x, g->line[c % N_MARKS], 2, g);
		put(cv, row_of(cv, lg), col, g->point[c % N_MARKS], 3, g);
		last_col = col;
		last_lg = lg;
	}
}

/* The plot's rows: a label at each decade, the axis, the cells (trailing blanks left out). */
static void print_rows(FILE *out, const struct canvas *cv, const struct glyphs *g)
{
	char label[32];

	for (int row = 0; row < cv->height; row++) {
		const char **cells = &cv->cell[row * cv->width];
		bool decade = row % cv->rows_per_decade == 0;
		int end = cv->width;

		while (end > 0 && !cells[end - 1])
			end--;
		fprintf(out, "%*s %s", cv->label_width,
			decade ? decade_label(label, sizeof(label),
					      (int) cv->top_decade - row / cv->rows_per_decade)
			       : "",
			decade ? g->y_tick : g->y_axis);
		for (int col = 0; col < end; col++)
			fputs(cells[col] ?: " ", out);
		fputc('\n', out);
	}
}

/* A row under the plot: @cells (NULL: blank) after the labels' margin, trailing blanks left out. */
static void print_under(FILE *out, const struct canvas *cv, const char *first, const char **cells)
{
	int end = cv->width;

	while (end > 0 && !cells[end - 1])
		end--;
	if (end == 0 && strcmp(first, " ") == 0) {
		fputc('\n', out);
		return;
	}
	fprintf(out, "%*s%s", cv->label_width + 1, "", first);
	for (int col = 0; col < end; col++)
		fputs(cells[col] ?: " ", out);
	fputc('\n', out);
}

/* The axis of sizes: a tick at each size measured, its label under it where there is room. */
static void print_x_axis(FILE *out, const struct canvas *cv, const struct chart_name *n,
			 const struct glyphs *g, const char **row)
{
	char *labels = malloc((size_t) cv->width + 1);
	int free_from = 0, end = 0;

	for (int col = 0; col < cv->width; col++)
		row[col] = g->x_axis;
	for (size_t s = 0; s < n->n_sizes; s++)
		row[column_of(cv, n, n->sizes[s])] = g->x_tick;
	print_under(out, cv, g->corner, row);
	if (!labels)
		return;
	memset(labels, ' ', (size_t) cv->width);
	for (size_t s = 0; s < n->n_sizes; s++) {
		char label[16];
		int len = (int) strlen(short_size(label, sizeof(label), n->sizes[s]));
		int start = column_of(cv, n, n->sizes[s]) - (len - 1) / 2;

		start = start + len > cv->width ? cv->width - len : start;
		start = start < 0 ? 0 : start;
		if (start < free_from || start + len > cv->width)
			continue;
		memcpy(labels + start, label, (size_t) len);
		free_from = start + len + 1;
		end = start + len;
	}
	fprintf(out, "%*s%.*s\n", cv->label_width + 2, "", end, labels);
	free(labels);
}

/* Under the sizes: the workload point and each crossover, at their columns. */
static void print_marks(FILE *out, const struct canvas *cv, const struct chart_model *m,
			const struct chart_name *n, const struct glyphs *g, const char **row)
{
	int col = column_of(cv, n, m->workload_size);

	memset(row, 0, (size_t) cv->width * sizeof(*row));
	if (col >= 0)
		row[col] = g->workload;
	for (size_t i = 0; i < n->n_crossovers; i++) {
		col = column_of(cv, n, n->sizes[n->crossovers[i].at]);
		if (row[col] && col + 1 < cv->width)
			col++;
		row[col] = g->crossover;
	}
	print_under(out, cv, " ", row);
}

/* What the marks mean: a line per curve, the workload point, the crossovers in words. */
static void print_legend(FILE *out, int width, const struct chart_model *m,
			 const struct chart_name *n, const struct glyphs *g, bool shared)
{
	char line[512], size[32], words[CP_NAME_MAX + 64];
	int s = 0;

	for (size_t c = 0; c < n->n_curves; c++) {
		snprintf(line, sizeof(line), "%s %s%s%s%s", g->point[c % N_MARKS],
			 n->curves[c].driver, n->curves[c].class[0] ? " (" : "", n->curves[c].class,
			 n->curves[c].class[0] ? ")" : "");
		put_wrapped(out, width, line);
	}
	if (shared) {
		snprintf(line, sizeof(line), "%s points of two curves", g->points);
		put_wrapped(out, width, line);
	}
	while (s < (int) n->n_sizes && n->sizes[s] != m->workload_size)
		s++;
	cp_format_size(size, sizeof(size), m->workload_size);
	if (s == (int) n->n_sizes || n->winner[s] == CHART_NO_WINNER)
		snprintf(line, sizeof(line), "%s workload point, %s: %s", g->workload, size,
			 s == (int) n->n_sizes ? "not measured" : "nothing to compare there");
	else
		snprintf(line, sizeof(line), "%s workload point, %s: %s is the fastest there",
			 g->workload, size, n->curves[n->winner[s]].driver);
	put_wrapped(out, width, line);
	for (size_t i = 0; i < n->n_crossovers; i++) {
		/* the words alone on their line, where a script finds them */
		snprintf(line, sizeof(line), "%s %s", g->crossover,
			 chart_crossover_words(n, &n->crossovers[i], words, sizeof(words)));
		put_wrapped(out, width, line);
		snprintf(line, sizeof(line), "  (%s up to %s)",
			 n->curves[n->crossovers[i].from].driver,
			 cp_format_size(size, sizeof(size), n->sizes[n->crossovers[i].from_at]));
		put_wrapped(out, width, line);
	}
	if (n->n_crossovers == 0)
		put_wrapped(out, width,
			    n->n_curves < 2
				? "One implementation measured: nothing to compare."
				: "No crossover: the same implementation is the fastest at "
				  "every size where two were measured.");
}

static int print_name(FILE *out, const struct chart_model *m, const struct chart_name *n, int width,
		      const struct glyphs *g)
{
	struct canvas cv;
	const char **row;
	char title[CP_NAME_MAX + 96];
	int r = canvas_init(&cv, n, width);

	row = r == 0 ? calloc((size_t) cv.width, sizeof(*row)) : NULL;
	if (!row) {
		canvas_free(&cv);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n->n_crossovers; i++)
		for (int y = 0; y < cv.height; y++)
			put(&cv, y, column_of(&cv, n, n->sizes[n->crossovers[i].at]), g->crossing,
			    1, g);
	for (size_t c = 0; c < n->n_curves; c++)
		draw_curve(&cv, n, c, g);
	snprintf(title, sizeof(title),
		 "%s, depth %" PRIu32 ": MB/s against request size, log scales", n->name, m->depth);
	put_wrapped(out, width, title);
	print_rows(out, &cv, g);
	print_x_axis(out, &cv, n, g, row);
	print_marks(out, &cv, m, n, g, row);
	print_legend(out, width, m, n, g, cv.shared);
	free(row);
	canvas_free(&cv);
	return 0;
}

int chart_print(FILE *out, const struct chart_model *model, int width)
{
	const struct glyphs *g = cp_locale_is_utf8() ? &utf8_glyphs : &ascii_glyphs;
	int r = 0;

	if (width < CHART_WIDTH_MIN)
		width = CHART_WIDTH_MIN;
	for (size_t i = 0; r == 0 && i < model->n_names; i++) {
		if (i)
			fputc('\n', out);
		r = print_name(out, model, &model->names[i], width, g);
	}
	return r;
}
