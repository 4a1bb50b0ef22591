/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A calibrate document as the chart's model: per name, per implementation,
 * MB/s at each size measured at the workload's depth; the fastest at each
 * size and the sizes where that changes (the crossovers).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-chart.h"
#include "units.h"

/* The member @key of @o if it has @type, else NULL. */
static json_object *member(json_object *o, const char *key, json_type type)
{
	json_object *v;

	if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, type))
		return NULL;
	return v;
}

static int bad(char *why, size_t why_size, const char *what)
{
	snprintf(why, why_size, "%s", what);
	return -EBADMSG;
}

/* A string member copied into @dst (NULL and an absent member: ""): 0 or -EBADMSG. */
static int copy_string(json_object *o, const char *key, bool null_ok, char *dst, size_t size)
{
	json_object *v = member(o, key, json_type_string);

	dst[0] = '\0';
	if (!v)
		return null_ok && json_object_object_get_ex(o, key, &v) && !v ? 0 : -EBADMSG;
	if ((size_t) json_object_get_string_len(v) >= size)
		return -EBADMSG;
	memcpy(dst, json_object_get_string(v), (size_t) json_object_get_string_len(v) + 1);
	return 0;
}

/* The size and MB/s of @p if it was measured at @depth: 1; 0 if not; -EBADMSG. */
static int measured_point(json_object *p, uint32_t depth, uint32_t *size, double *mbps)
{
	json_object *s = member(p, "size", json_type_int), *d = member(p, "depth", json_type_int),
		    *v = member(p, "verdict", json_type_string), *fig, *median;

	if (!s || !d || !v || json_object_get_int64(s) <= 0 ||
	    json_object_get_int64(s) > UINT32_MAX)
		return -EBADMSG;
	if (strcmp(json_object_get_string(v), "measured") != 0 ||
	    json_object_get_int64(d) != (int64_t) depth)
		return 0;
	fig = member(p, "mb_per_s", json_type_object);
	median =
	    fig ? member(fig, "median", json_type_double) ?: member(fig, "median", json_type_int)
		: NULL;
	if (!median || json_object_get_double(median) < 0)
		return -EBADMSG;
	*size = (uint32_t) json_object_get_int64(s);
	*mbps = json_object_get_double(median);
	return *mbps > 0;
}

/* @size into @n's ascending sizes unless there: its index, or -E2BIG. */
static int add_size(struct chart_name *n, uint32_t size)
{
	size_t i = 0;

	while (i < n->n_sizes && n->sizes[i] < size)
		i++;
	if (i < n->n_sizes && n->sizes[i] == size)
		return (int) i;
	if (n->n_sizes == CHART_MAX_SIZES)
		return -E2BIG;
	memmove(&n->sizes[i + 1], &n->sizes[i], (n->n_sizes - i) * sizeof(n->sizes[0]));
	for (size_t c = 0; c < n->n_curves; c++)
		memmove(&n->curves[c].mbps[i + 1], &n->curves[c].mbps[i],
			(n->n_sizes - i) * sizeof(double));
	for (size_t c = 0; c < n->n_curves; c++)
		n->curves[c].mbps[i] = 0;
	n->sizes[i] = size;
	n->n_sizes++;
	return (int) i;
}

/* @points' measured figures into @c, the last of @n's curves. */
static int add_points(struct chart_name *n, struct chart_curve *c, json_object *points,
		      uint32_t depth, char *why, size_t why_size)
{
	for (size_t i = 0; i < json_object_array_length(points); i++) {
		uint32_t size;
		double mbps;
		int r = measured_point(json_object_array_get_idx(points, i), depth, &size, &mbps);

		if (r < 0)
			return bad(why, why_size, "a point without a size, depth, verdict or MB/s");
		if (r == 0)
			continue;
		r = add_size(n, size);
		if (r < 0)
			return bad(why, why_size, "more sizes than a calibration measures (17)");
		c->mbps[r] = mbps;
		c->n_measured++;
		n->mbps_min = n->mbps_min > 0 && n->mbps_min < mbps ? n->mbps_min : mbps;
		n->mbps_max = n->mbps_max > mbps ? n->mbps_max : mbps;
	}
	return 0;
}

/* An implementation of @n: a curve if it has a measured point. */
static int add_curve(struct chart_name *n, json_object *impl, uint32_t depth, char *why,
		     size_t why_size)
{
	json_object *points = member(impl, "points", json_type_array);
	struct chart_curve *c;
	int r;

	c = realloc(n->curves, (n->n_curves + 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	n->curves = c;
	c = &n->curves[n->n_curves];
	*c = (struct chart_curve){};
	if (copy_string(impl, "driver", false, c->driver, sizeof(c->driver)) < 0 || !c->driver[0])
		return bad(why, why_size, "an implementation without a driver");
	if (copy_string(impl, "class", true, c->class, sizeof(c->class)) < 0)
		return bad(why, why_size, "an implementation whose class is not a string");
	if (!points)
		return bad(why, why_size, "an implementation without points");
	n->n_curves++;
	r = add_points(n, c, points, depth, why, why_size);
	if (r == 0 && c->n_measured == 0)
		n->n_curves--;
	return r;
}

/* The fastest curve at each size where two were measured, and where that changes. */
static void find_winners(struct chart_name *n)
{
	size_t last = CHART_NO_WINNER, last_at = 0;

	for (size_t s = 0; s < n->n_sizes; s++) {
		size_t best = CHART_NO_WINNER, measured = 0;

		for (size_t c = 0; c < n->n_curves; c++) {
			if (n->curves[c].mbps[s] <= 0)
				continue;
			measured++;
			if (best == CHART_NO_WINNER ||
			    n->curves[c].mbps[s] > n->curves[best].mbps[s])
				best = c;
		}
		n->winner[s] = measured >= 2 ? best : CHART_NO_WINNER;
		if (n->winner[s] == CHART_NO_WINNER)
			continue;
		if (last != CHART_NO_WINNER && last != best)
			n->crossovers[n->n_crossovers++] = (struct chart_crossover){
			    .at = s, .from_at = last_at, .from = last, .to = best};
		last = best;
		last_at = s;
	}
}

/* One entry of "algorithms" into the model, if it has a measured point. */
static int add_name(struct chart_model *m, json_object *alg, char *why, size_t why_size)
{
	json_object *impls = member(alg, "implementations", json_type_array);
	struct chart_name *n = realloc(m->names, (m->n_names + 1) * sizeof(*n));
	int r = 0;

	if (!n)
		return -ENOMEM;
	m->names = n;
	n = &m->names[m->n_names++];
	*n = (struct chart_name){};
	if (copy_string(alg, "name", false, n->name, sizeof(n->name)) < 0 || !n->name[0])
		return bad(why, why_size, "an algorithm without a name");
	if (!impls)
		return bad(why, why_size, "an algorithm without implementations");
	for (size_t i = 0; r == 0 && i < json_object_array_length(impls); i++)
		r = add_curve(n, json_object_array_get_idx(impls, i), m->depth, why, why_size);
	if (r < 0)
		return r;
	if (n->n_curves == 0) {
		free(n->curves);
		m->n_names--;
		return 0;
	}
	find_winners(n);
	return 0;
}

static int model_from_json(json_object *doc, struct chart_model *m, char *why, size_t why_size)
{
	json_object *workload = member(doc, "workload", json_type_object),
		    *algorithms = member(doc, "algorithms", json_type_array), *size, *depth;
	int r = 0;

	size = member(workload, "size", json_type_int);
	depth = member(workload, "depth", json_type_int);
	if (!size || !depth || json_object_get_int64(size) < 0 ||
	    json_object_get_int64(size) > UINT32_MAX || json_object_get_int64(depth) < 0 ||
	    json_object_get_int64(depth) > UINT32_MAX)
		return bad(why, why_size, "no workload size and depth");
	if (!algorithms)
		return bad(why, why_size, "no algorithms");
	m->workload_size = (uint32_t) json_object_get_int64(size);
	m->depth = (uint32_t) json_object_get_int64(depth);
	for (size_t i = 0; r == 0 && i < json_object_array_length(algorithms); i++)
		r = add_name(m, json_object_array_get_idx(algorithms, i), why, why_size);
	if (r == 0 && m->n_names == 0)
		return bad(why, why_size,
			   "no point measured at the workload's depth: nothing to draw");
	return r;
}

int chart_model_from_json(json_object *doc, struct chart_model *model, char *why, size_t why_size)
{
	json_object *verb = member(doc, "verb", json_type_string);

	*model = (struct chart_model){};
	if (!verb || strcmp(json_object_get_string(verb), "calibrate") != 0) {
		snprintf(why, why_size, "not a calibrate document (its verb: %s)",
			 verb ? json_object_get_string(verb) : "none");
		return -EBADMSG;
	}
	return chart_model_from_calibration(doc, model, why, why_size);
}

int chart_model_from_calibration(json_object *doc, struct chart_model *model, char *why,
				 size_t why_size)
{
	int r;

	*model = (struct chart_model){};
	r = model_from_json(doc, model, why, why_size);
	if (r < 0)
		chart_model_free(model);
	return r;
}

void chart_model_free(struct chart_model *model)
{
	for (size_t i = 0; i < model->n_names; i++)
		free(model->names[i].curves);
	free(model->names);
	*model = (struct chart_model){};
}

const char *chart_crossover_words(const struct chart_name *n, const struct chart_crossover *c,
				  char *buf, size_t size)
{
	char at[32];

	snprintf(buf, size, "%s wins from %s", n->curves[c->to].driver,
		 cp_format_size(at, sizeof(at), n->sizes[c->at]));
	return buf;
}

static json_object *curve_json(const struct chart_name *n, const struct chart_curve *c)
{
	json_object *o = json_object_new_object(), *points = json_object_new_array();

	json_object_object_add(o, "driver", json_object_new_string(c->driver));
	json_object_object_add(o, "class", c->class[0] ? json_object_new_string(c->class) : NULL);
	for (size_t s = 0; s < n->n_sizes; s++) {
		json_object *p;

		if (c->mbps[s] <= 0)
			continue;
		p = json_object_new_object();
		json_object_object_add(p, "size", json_object_new_int64(n->sizes[s]));
		json_object_object_add(p, "mb_per_s", json_object_new_double(c->mbps[s]));
		json_object_array_add(points, p);
	}
	json_object_object_add(o, "points", points);
	return o;
}

static json_object *crossover_json(const struct chart_name *n, const struct chart_crossover *c)
{
	json_object *o = json_object_new_object();
	char words[CP_NAME_MAX + 64];

	json_object_object_add(o, "size", json_object_new_int64(n->sizes[c->at]));
	json_object_object_add(o, "previous_size", json_object_new_int64(n->sizes[c->from_at]));
	json_object_object_add(o, "from", json_object_new_string(n->curves[c->from].driver));
	json_object_object_add(o, "to", json_object_new_string(n->curves[c->to].driver));
	json_object_object_add(
	    o, "text", json_object_new_string(chart_crossover_words(n, c, words, sizeof(words))));
	return o;
}

static json_object *name_json(const struct chart_name *n)
{
	json_object *o = json_object_new_object(), *curves = json_object_new_array(),
		    *winners = json_object_new_array(), *crossovers = json_object_new_array();

	json_object_object_add(o, "name", json_object_new_string(n->name));
	for (size_t c = 0; c < n->n_curves; c++)
		json_object_array_add(curves, curve_json(n, &n->curves[c]));
	for (size_t s = 0; s < n->n_sizes; s++) {
		json_object *w = json_object_new_object();

		json_object_object_add(w, "size", json_object_new_int64(n->sizes[s]));
		json_object_object_add(
		    w, "driver",
		    n->winner[s] == CHART_NO_WINNER
			? NULL
			: json_object_new_string(n->curves[n->winner[s]].driver));
		json_object_array_add(winners, w);
	}
	for (size_t i = 0; i < n->n_crossovers; i++)
		json_object_array_add(crossovers, crossover_json(n, &n->crossovers[i]));
	json_object_object_add(o, "implementations", curves);
	json_object_object_add(o, "fastest", winners);
	json_object_object_add(o, "crossovers", crossovers);
	return o;
}

json_object *chart_model_json(const struct chart_model *model)
{
	json_object *doc = json_object_new_object(), *workload = json_object_new_object(),
		    *names = json_object_new_array();

	json_object_object_add(workload, "size", json_object_new_int64(model->workload_size));
	json_object_object_add(workload, "depth", json_object_new_int64(model->depth));
	json_object_object_add(doc, "workload", workload);
	for (size_t i = 0; i < model->n_names; i++)
		json_object_array_add(names, name_json(&model->names[i]));
	json_object_object_add(doc, "algorithms", names);
	return doc;
}
