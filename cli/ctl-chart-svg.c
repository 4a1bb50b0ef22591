/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The chart as SVG, written by hand: a panel per name with its axes (log
 * scales, a tick and label at each size measured and each decade of MB/s),
 * a polyline per implementation, the workload point and the crossovers
 * marked, a legend; into a file atomically, or to standard output.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-chart.h"
#include "fileio.h"
#include "macro.h"
#include "units.h"

#define SVG_WIDTH     900
#define PLOT_LEFT     80
#define PLOT_RIGHT    870
#define PLOT_TOP      50
#define PLOT_BOTTOM   330
#define LEGEND_TOP    385
#define LEGEND_LINE   20
#define PANEL_PADDING 30

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c",
				      "#ff7f0e", "#9467bd", "#8c564b"};

/* The scales of one panel: sizes and MB/s, both log, to its pixels. */
struct scales {
	double size_first, size_last; /* log2 */
	int decade_bottom, decade_top;
};

static int panel_height(const struct chart_name *n)
{
	size_t lines = n->n_curves + 1 + (n->n_crossovers ? n->n_crossovers : 1);

	return LEGEND_TOP + (int) lines * LEGEND_LINE + PANEL_PADDING;
}

/* @s with XML's five escaped. */
static void put_text(FILE *out, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		default:
			fputc(*s, out);
		}
}

static double x_of(const struct scales *sc, uint32_t size)
{
	if (sc->size_last <= sc->size_first)
		return (PLOT_LEFT + PLOT_RIGHT) / 2.0;
	return PLOT_LEFT + (log2(size) - sc->size_first) / (sc->size_last - sc->size_first) *
			       (PLOT_RIGHT - PLOT_LEFT);
}

static double y_of(const struct scales *sc, double mbps)
{
	return PLOT_BOTTOM - (log10(mbps) - sc->decade_bottom) /
				 (sc->decade_top - sc->decade_bottom) * (PLOT_BOTTOM - PLOT_TOP);
}

/* The axes: a grid line and label at each decade of MB/s and each size measured. */
static void svg_axes(FILE *out, const struct chart_name *n, const struct scales *sc)
{
	char label[32];

	fprintf(
	    out,
	    "<g class=\"axes\" stroke=\"#000\">\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n"
	    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n</g>\n",
	    PLOT_LEFT, PLOT_TOP, PLOT_LEFT, PLOT_BOTTOM, PLOT_LEFT, PLOT_BOTTOM, PLOT_RIGHT,
	    PLOT_BOTTOM);
	for (int d = sc->decade_bottom; d <= sc->decade_top; d++) {
		double y = y_of(sc, pow(10, d));

		fprintf(out,
			"<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"#ddd\"/>\n<text x=\"%d\" y=\"%.1f\" "
			"text-anchor=\"end\">%.*f</text>\n",
			PLOT_LEFT - 6, y, PLOT_RIGHT, y, PLOT_LEFT - 10, y + 4, d < 0 ? -d : 0,
			pow(10, d));
	}
	for (size_t s = 0; s < n->n_sizes; s++) {
		double x = x_of(sc, n->sizes[s]);

		fprintf(out,
			"<line class=\"tick\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"stroke=\"#000\"/>\n<text x=\"%.1f\" y=\"%d\" "
			"text-anchor=\"middle\">%s</text>\n",
			x, PLOT_BOTTOM, x, PLOT_BOTTOM + 6, x, PLOT_BOTTOM + 22,
			cp_format_size(label, sizeof(label), n->sizes[s]));
	}
	fprintf(out,
		"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">request size (log)</text>\n"
		"<text transform=\"translate(20 %d) rotate(-90)\" text-anchor=\"middle\">MB/s "
		"(log)</text>\n",
		(PLOT_LEFT + PLOT_RIGHT) / 2, PLOT_BOTTOM + 44, (PLOT_TOP + PLOT_BOTTOM) / 2);
}

/* Curve @c: a polyline through its measured points, a dot at each. */
static void svg_curve(FILE *out, const struct chart_name *n, size_t c, const struct scales *sc)
{
	const char *colour = colours[c % ARRAY_SIZE(colours)];

	fprintf(out,
		"<g class=\"curve\">\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
		"points=\"",
		colour);
	for (size_t s = 0; s < n->n_sizes; s++)
		if (n->curves[c].mbps[s] > 0)
			fprintf(out, "%.1f,%.1f ", x_of(sc, n->sizes[s]),
				y_of(sc, n->curves[c].mbps[s]));
	fputs("\"/>\n", out);
	for (size_t s = 0; s < n->n_sizes; s++)
		if (n->curves[c].mbps[s] > 0)
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n",
				x_of(sc, n->sizes[s]), y_of(sc, n->curves[c].mbps[s]), colour);
	fputs("</g>\n", out);
}

/* A dashed vertical line at @size with @label above the plot. */
static void svg_marker(FILE *out, const struct scales *sc, const char *class, const char *colour,
		       uint32_t size, const char *label, int label_y)
{
	double x = x_of(sc, size);
	bool right = x > (PLOT_LEFT + PLOT_RIGHT) / 2.0; /* the label left of the line */

	fprintf(out,
		"<g class=\"%s\">\n<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" "
		"stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n<text x=\"%.1f\" y=\"%d\" "
		"fill=\"%s\" text-anchor=\"%s\">",
		class, x, PLOT_TOP - 4, x, PLOT_BOTTOM, colour, right ? x - 5 : x + 5, label_y,
		colour, right ? "end" : "start");
	put_text(out, label);
	fputs("</text>\n</g>\n", out);
}

/* The workload point and each crossover, marked. */
static void svg_markers(FILE *out, const struct chart_model *m, const struct chart_name *n,
			const struct scales *sc)
{
	char label[CP_NAME_MAX + 64], size[32];

	if (m->workload_size >= n->sizes[0] && m->workload_size <= n->sizes[n->n_sizes - 1]) {
		snprintf(label, sizeof(label), "workload %s",
			 cp_format_size(size, sizeof(size), m->workload_size));
		svg_marker(out, sc, "workload", "#666", m->workload_size, label, PLOT_TOP - 8);
	}
	for (size_t i = 0; i < n->n_crossovers; i++)
		svg_marker(out, sc, "crossover", "#c00", n->sizes[n->crossovers[i].at],
			   chart_crossover_words(n, &n->crossovers[i], label, sizeof(label)),
			   PLOT_TOP + 14 + 16 * (int) i);
}

/* Under the plot: a sample of each curve and its driver, the crossovers in words. */
static void svg_legend(FILE *out, const struct chart_name *n)
{
	char words[CP_NAME_MAX + 64];
	int y = LEGEND_TOP;

	for (size_t c = 0; c < n->n_curves; c++, y += LEGEND_LINE) {
		fprintf(out,
			"<g class=\"legend\">\n<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
			"stroke=\"%s\" stroke-width=\"2\"/>\n<text x=\"%d\" y=\"%d\">",
			PLOT_LEFT, y - 4, PLOT_LEFT + 30, y - 4, colours[c % ARRAY_SIZE(colours)],
			PLOT_LEFT + 40, y);
		put_text(out, n->curves[c].driver);
		if (n->curves[c].class[0])
			fprintf(out, " (%s)", n->curves[c].class);
		fputs("</text>\n</g>\n", out);
	}
	fprintf(out,
		"<text x=\"%d\" y=\"%d\" fill=\"#666\">dashed grey: the workload point%s</text>\n",
		PLOT_LEFT, y, n->n_crossovers ? "; dashed red: where the fastest changes" : "");
	y += LEGEND_LINE;
	for (size_t i = 0; i < n->n_crossovers; i++, y += LEGEND_LINE) {
		fprintf(out, "<text class=\"crossover-words\" x=\"%d\" y=\"%d\" fill=\"#c00\">",
			PLOT_LEFT, y);
		put_text(out, chart_crossover_words(n, &n->crossovers[i], words, sizeof(words)));
		fputs("</text>\n", out);
	}
	if (n->n_crossovers == 0)
		fprintf(out, "<text x=\"%d\" y=\"%d\">No crossover.</text>\n", PLOT_LEFT, y);
}

static void svg_panel(FILE *out, const struct chart_model *m, const struct chart_name *n, int top)
{
	struct scales sc = {
	    .size_first = log2(n->sizes[0]),
	    .size_last = log2(n->sizes[n->n_sizes - 1]),
	    .decade_bottom = (int) floor(log10(n->mbps_min)),
	    .decade_top = (int) ceil(log10(n->mbps_max)),
	};

	if (sc.decade_top <= sc.decade_bottom)
		sc.decade_top = sc.decade_bottom + 1;
	fprintf(out,
		"<g class=\"panel\" transform=\"translate(0 %d)\">\n<text x=\"%d\" y=\"22\" "
		"font-size=\"16\" font-weight=\"bold\">",
		top, PLOT_LEFT);
	put_text(out, n->name);
	fprintf(out, ", depth %" PRIu32 ": MB/s against request size</text>\n", m->depth);
	svg_axes(out, n, &sc);
	svg_markers(out, m, n, &sc);
	for (size_t c = 0; c < n->n_curves; c++)
		svg_curve(out, n, c, &sc);
	svg_legend(out, n);
	fputs("</g>\n", out);
}

int chart_svg(FILE *out, const struct chart_model *model)
{
	int height = 0, top = 0;

	for (size_t i = 0; i < model->n_names; i++)
		height += panel_height(&model->names[i]);
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"13\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
		SVG_WIDTH, height, SVG_WIDTH, height);
	for (size_t i = 0; i < model->n_names; i++) {
		svg_panel(out, model, &model->names[i], top);
		top += panel_height(&model->names[i]);
	}
	fputs("</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}

int chart_svg_write(const char *path, const struct chart_model *model)
{
	_cleanup_free_ char *data = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&data, &size);
	int r;

	if (!mem)
		return -ENOMEM;
	r = chart_svg(mem, model);
	if (fclose(mem) != 0 || !data)
		return -ENOMEM;
	if (r < 0)
		return r;
	if (strcmp(path, "-") == 0)
		return fwrite(data, 1, size, stdout) == size && fflush(stdout) == 0 ? 0 : -EIO;
	return cp_write_file_atomic(path, data, size, 0644);
}
