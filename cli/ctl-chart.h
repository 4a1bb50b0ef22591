/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The crossover, drawn: a calibrate document (what `calibrate --json`
 * prints) as a model of curves, throughput against request size per
 * implementation of each name, with the sizes where the fastest changes
 * (ctl-chart-model.c); drawn in the terminal (ctl-chart.c) or as SVG
 * (ctl-chart-svg.c), by `calibrate --chart` and `chart` (ctl-chart-verb.c).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

#include "cryptoprioctl.h"
#include "inventory.h"

/* The most sizes a chart draws: calibrate's ladder and its workload point. */
#define CHART_MAX_SIZES 17
#define CHART_NO_WINNER SIZE_MAX
#define CHART_WIDTH_MIN 32
#define CHART_WIDTH_MAX 1000

struct chart_curve {
	char driver[CP_NAME_MAX];
	char class[16]; /* "cpu", "offload", ...; "" where the document has none */
	/* MB/s at sizes[i] of its name, 0 where not measured */
	double mbps[CHART_MAX_SIZES];
	size_t n_measured;
};

/*
 * The fastest changes at sizes[at]: curves[to] wins there, curves[from] at
 * sizes[from_at], the size before where a winner is known.
 */
struct chart_crossover {
	size_t at, from_at, from, to;
};

struct chart_name {
	char name[CP_NAME_MAX];
	uint32_t sizes[CHART_MAX_SIZES]; /* every size measured for the name, ascending */
	size_t n_sizes;
	struct chart_curve *curves;
	size_t n_curves;
	size_t winner[CHART_MAX_SIZES]; /* the curve fastest at sizes[i], or CHART_NO_WINNER */
	struct chart_crossover crossovers[CHART_MAX_SIZES];
	size_t n_crossovers;
	double mbps_min, mbps_max; /* over every measured point */
};

struct chart_model {
	uint32_t workload_size, depth;
	struct chart_name *names; /* those with a measured point */
	size_t n_names;
};

/*
 * @doc, a calibrate document, as a model: the points at the workload's
 * depth with verdict "measured". 0; -EBADMSG with what is wrong in @why
 * (not a calibrate document, a member missing or of the wrong type, no
 * measured point); -ENOMEM.
 */
int chart_model_from_json(json_object *doc, struct chart_model *model, char *why, size_t why_size);
/* The same for calibrate's document being built: its "verb" not yet there, not checked. */
int chart_model_from_calibration(json_object *doc, struct chart_model *model, char *why,
				 size_t why_size);
void chart_model_free(struct chart_model *model);
/* "virtio_crypto_aes_cbc wins from 16 KiB" into @buf. */
const char *chart_crossover_words(const struct chart_name *n, const struct chart_crossover *c,
				  char *buf, size_t size);
/* The model's crossovers as JSON ("chart"'s document, less "version" and "verb"). */
json_object *chart_model_json(const struct chart_model *model);

/* The columns to draw in: the terminal's (TIOCGWINSZ on @out), $COLUMNS, else 80. */
int chart_width(FILE *out);
/*
 * The model drawn for a terminal @width columns wide (CHART_WIDTH_MIN at
 * least): UTF-8 glyphs where the locale's charset is UTF-8, ASCII otherwise.
 * 0 or -ENOMEM.
 */
int chart_print(FILE *out, const struct chart_model *model, int width);
/* The model as an SVG document into @out: 0 or -EIO. */
int chart_svg(FILE *out, const struct chart_model *model);
/*
 * calibrate --chart: @doc, calibrate's document (@ctl->json: printed
 * already), drawn after its table, or into @svg (--chart=svg FILE). 0 or
 * the exit code after saying what is wrong.
 */
int chart_calibration(const struct ctl *ctl, json_object *doc, const char *svg);
/* The SVG into @path atomically, or to stdout for "-": 0 or a negative errno. */
int chart_svg_write(const char *path, const struct chart_model *model);
