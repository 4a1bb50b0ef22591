/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cryptoprioctl chart: a saved `calibrate --json` document drawn, in the
 * terminal or as SVG; with --json, its model (the fastest at each size and
 * the crossovers) as a document. Reads no kernel, needs no privilege.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "cryptoprioctl.h"
#include "ctl-chart.h"
#include "fileio.h"
#include "json-util.h"

/* A calibrate document is some KiB per name: 16 MiB is far beyond any. */
#define CHART_DOCUMENT_MAX (16u << 20)

/* @path ("-": standard input) as the model, or the exit code after saying what is wrong. */
static int load_model(const char *path, struct chart_model *model)
{
	_cleanup_(cp_json_putp) json_object *doc = NULL;
	_cleanup_free_ char *text = NULL;
	const char *shown = strcmp(path, "-") == 0 ? "standard input" : path;
	char why[256];
	int r;

	r = cp_read_file(strcmp(path, "-") == 0 ? "/dev/stdin" : path, CHART_DOCUMENT_MAX, &text,
			 NULL);
	if (r == -EFBIG)
		return ctl_error("chart: %s: larger than %u MiB: not a calibrate document", shown,
				 CHART_DOCUMENT_MAX >> 20);
	if (r < 0)
		return ctl_errno(r, NULL, "chart: cannot read %s", shown);
	r = cp_json_parse_versioned(text, CTL_JSON_VERSION, &doc);
	if (r == -ENOMEM)
		return ctl_errno(r, NULL, "chart");
	if (r < 0)
		return ctl_error("chart: %s: not a JSON document of cryptoprioctl --json (one "
				 "object, \"version\": %d)",
				 shown, CTL_JSON_VERSION);
	r = chart_model_from_json(doc, model, why, sizeof(why));
	if (r == -EBADMSG)
		return ctl_error("chart: %s: %s", shown, why);
	return r < 0 ? ctl_errno(r, NULL, "chart") : 0;
}

/* @model into @svg if given, else in the terminal unless @json (0 or the exit code). */
static int draw(const char *verb, const struct chart_model *model, const char *svg, bool json)
{
	int r;

	if (svg) {
		r = chart_svg_write(svg, model);
		if (r < 0)
			return ctl_errno(r, NULL, "%s: cannot write %s", verb,
					 strcmp(svg, "-") == 0 ? "standard output" : svg);
	}
	if (json) {
		ctl_json_print(chart_model_json(model));
		return 0;
	}
	if (!svg && chart_print(stdout, model, chart_width(stdout)) < 0)
		return ctl_errno(-ENOMEM, NULL, "%s", verb);
	return 0;
}

int chart_calibration(const struct ctl *ctl, json_object *doc, const char *svg)
{
	struct chart_model model;
	char why[256];
	int r = chart_model_from_calibration(doc, &model, why, sizeof(why));

	if (r == -EBADMSG)
		return ctl_error("calibrate: --chart: %s", why);
	if (r < 0)
		return ctl_errno(r, NULL, "calibrate: --chart");
	if (!svg && !ctl->json)
		putchar('\n'); /* after the table */
	r = draw("calibrate: --chart", &model, svg, false);
	chart_model_free(&model);
	return r;
}

int verb_chart(struct ctl *ctl, int argc, char **argv)
{
	static const struct option options[] = {
	    {"svg", required_argument, NULL, 's'},
	    {},
	};
	struct chart_model model;
	const char *svg = NULL;
	int c, r;

	while ((c = getopt_long(argc, argv, ":s:", options, NULL)) >= 0) {
		if (c != 's')
			return ctl_option_error("chart", c);
		svg = optarg;
	}
	if (argc - optind != 1)
		return ctl_usage_error("chart: %s DOCUMENT (a calibrate --json document, or - to "
				       "read it from standard input)",
				       argc == optind ? "missing" : "one");
	if (svg && ctl->json && strcmp(svg, "-") == 0)
		return ctl_usage_error("chart: --svg - and --json would both write to standard "
				       "output: give --svg a FILE");
	r = load_model(argv[optind], &model);
	if (r != 0)
		return r;
	r = draw("chart", &model, svg, ctl->json != CTL_JSON_OFF);
	chart_model_free(&model);
	return r;
}
