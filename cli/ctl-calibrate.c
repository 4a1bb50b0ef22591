/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cryptoprioctl calibrate: the calibration engine (lib/calibrate.h) at the
 * policy's workload point and a ladder of sizes around it, one table per
 * algorithm; --raw hands over to the module probe (ctl-calibrate-raw.c).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "calibrate.h"
#include "cryptoprioctl.h"
#include "ctl-calibrate-args.h"
#include "ctl-chart.h"
#include "ctl-table.h"
#include "fileio.h"
#include "glyph.h"
#include "inventory-load.h"
#include "json-util.h"
#include "paths.h"
#include "policy.h"
#include "units.h"

static const uint32_t default_ladder[] = {16, 256, 4096, 65536};

static bool wants_raw(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--raw") == 0)
			return true;
	return false;
}

/* The workload point, budget and depth from the policy unless given on the command line. */
static int apply_policy_defaults(struct ctl *ctl, struct calibrate_args *a)
{
	struct cp_policy *policy = NULL;
	struct cp_settings settings;
	int r;

	r = cp_policy_load("/", ctl->config, &policy);
	if (r < 0 && r != -EBADMSG)
		return ctl_errno(r, NULL, "calibrate: cannot read the policy");
	if (r == -EBADMSG) {
		cp_policy_free(policy);
		return ctl_error(
		    "calibrate: the policy is invalid (see cryptoprioctl check-policy)");
	}
	cp_policy_global(policy, &settings);
	cp_policy_free(policy);
	a->workload_size = settings.request_size;
	if (!a->depth_set)
		a->depth = settings.in_flight;
	if (!a->budget_set)
		a->budget_ns = settings.calibration_budget_usec * 1000;
	if (a->n_sizes == 0)
		for (size_t i = 0; i < ARRAY_SIZE(default_ladder); i++)
			(void) calibrate_add_size(a, default_ladder[i]);
	return calibrate_add_size(a, a->workload_size) < 0
		   ? ctl_usage_error("calibrate: too many sizes")
		   : 0;
}

static void show_progress(const struct cp_progress *p, void *userdata)
{
	fprintf(stderr, "\r\033[Kcalibrating %zu/%zu: %s at %" PRIu32 " bytes", p->done + 1,
		p->total, p->driver, p->size);
}

static const struct cp_point *workload_point(const struct cp_measured *m,
					     const struct calibrate_args *a)
{
	return cp_measured_point(m, a->workload_size, a->depth);
}

/* The fastest implementation of @name at the workload point, or NULL. */
static const struct cp_measured *winner(const struct cp_calibration *cal, const char *name,
					const struct calibrate_args *a)
{
	const struct cp_measured *best = NULL;

	for (size_t i = 0; i < cal->n_measured; i++) {
		const struct cp_measured *m = &cal->measured[i];
		const struct cp_point *p = workload_point(m, a);

		if (strcmp(m->name, name) != 0 || !p || p->verdict != CP_VERDICT_MEASURED)
			continue;
		if (!best || p->mbps.median > workload_point(best, a)->mbps.median)
			best = m;
	}
	return best;
}

static json_object *stat_json(const struct cp_stat *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "median", json_object_new_double(s->median));
	json_object_object_add(o, "min", json_object_new_double(s->min));
	json_object_object_add(o, "max", json_object_new_double(s->max));
	json_object_object_add(o, "mad", json_object_new_double(s->mad));
	json_object_object_add(o, "runs", json_object_new_int((int) s->n));
	return o;
}

/* @mbps of @m as operations per second where the algorithm fixes the request (rsa); 0 otherwise. */
static double ops_per_s(const struct cp_measured *m, double mbps)
{
	uint32_t request = cp_mod_request_size(m->type, m->name);

	return request ? mbps * 1e6 / request : 0;
}

static json_object *point_json(const struct cp_measured *m, const struct cp_point *p)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "size", json_object_new_int64(p->size));
	json_object_object_add(o, "depth", json_object_new_int64(p->depth));
	json_object_object_add(o, "verdict",
			       json_object_new_string(cp_verdict_to_string(p->verdict)));
	json_object_object_add(o, "cached", json_object_new_boolean(p->cached));
	json_object_object_add(o, "error",
			       p->error ? json_object_new_string(strerror(-p->error)) : NULL);
	if (p->verdict != CP_VERDICT_MEASURED)
		return o;
	json_object_object_add(o, "max_in_flight", json_object_new_int64(p->max_in_flight));
	json_object_object_add(o, "mb_per_s", stat_json(&p->mbps));
	json_object_object_add(o, "ns_per_request", stat_json(&p->ns_per_request));
	json_object_object_add(o, "cpu_ns_per_byte", stat_json(&p->cpu_ns_per_byte));
	json_object_object_add(o, "decided", json_object_new_boolean(p->decided));
	if (p->compressed_size) {
		json_object_object_add(o, "compressed_size",
				       json_object_new_int64(p->compressed_size));
		json_object_object_add(
		    o, "ratio", json_object_new_double((double) p->size / p->compressed_size));
	}
	if (cp_mod_request_size(m->type, m->name)) {
		json_object_object_add(
		    o, "request_size",
		    json_object_new_int64(cp_mod_request_size(m->type, m->name)));
		json_object_object_add(o, "ops_per_s",
				       json_object_new_double(ops_per_s(m, p->mbps.median)));
	}
	return o;
}

/* The class of @m: its inventory entry's, cpu for the CPU's candidate; NULL if unknown. */
static const char *class_of(const struct cp_measured *m, const struct cp_inventory *inv)
{
	const struct cp_alg *alg = cp_inventory_find_driver(inv, m->driver);

	if (alg)
		return cp_class_to_string(alg->class);
	return m->candidate ? cp_class_to_string(CP_CLASS_CPU) : NULL;
}

/* An engine's verification: null where none was asked (the CPU's, a type not verified). */
static json_object *verification_json(const struct cp_verified *v)
{
	json_object *o;

	if (v->state == CP_VERIFICATION_NONE)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "verdict",
			       json_object_new_string(cp_verification_to_string(v->state)));
	json_object_object_add(
	    o, "seed",
	    v->state == CP_VERIFICATION_NOT_RUN ? NULL : json_object_new_int64((int64_t) v->seed));
	json_object_object_add(
	    o, "cases",
	    v->state == CP_VERIFICATION_NOT_RUN ? NULL : json_object_new_int64(v->cases));
	json_object_object_add(o, "cached", json_object_new_boolean(v->cached));
	json_object_object_add(o, "failure",
			       v->state == CP_VERIFICATION_FAILED ? json_object_new_string(v->text)
								  : NULL);
	json_object_object_add(o, "reason",
			       v->state == CP_VERIFICATION_NOT_RUN ? json_object_new_string(v->text)
								   : NULL);
	return o;
}

static json_object *measured_json(const struct cp_measured *m, const struct cp_inventory *inv)
{
	const char *class = class_of(m, inv);
	json_object *o = json_object_new_object(), *points = json_object_new_array();

	json_object_object_add(o, "driver", json_object_new_string(m->driver));
	json_object_object_add(o, "module", json_object_new_string(m->module));
	json_object_object_add(o, "class", class ? json_object_new_string(class) : NULL);
	json_object_object_add(o, "candidate", json_object_new_boolean(m->candidate));
	json_object_object_add(o, "measured_as",
			       m->measured_as[0] ? json_object_new_string(m->measured_as) : NULL);
	json_object_object_add(o, "backend",
			       json_object_new_string(cp_backend_to_string(m->backend)));
	json_object_object_add(o, "known_answer",
			       json_object_new_string(cp_mod_kat_to_string(m->kat)));
	json_object_object_add(o, "reference",
			       m->reference[0] ? json_object_new_string(m->reference) : NULL);
	json_object_object_add(o, "verification", verification_json(&m->verified));
	json_object_object_add(o, "too_noisy", json_object_new_boolean(cp_measured_too_noisy(m)));
	for (size_t i = 0; i < m->n_points; i++)
		json_object_array_add(points, point_json(m, &m->points[i]));
	json_object_object_add(o, "points", points);
	return o;
}

static json_object *summary_json(const struct cp_calibration *cal, const struct calibrate_args *a)
{
	json_object *o = json_object_new_object(), *workload = json_object_new_object();

	json_object_object_add(o, "backend",
			       json_object_new_string(cp_backend_to_string(cal->backend)));
	json_object_object_add(workload, "size", json_object_new_int64(a->workload_size));
	json_object_object_add(workload, "depth", json_object_new_int64(a->depth));
	json_object_object_add(o, "workload", workload);
	json_object_object_add(o, "budget_ns", json_object_new_uint64(a->budget_ns));
	json_object_object_add(o, "elapsed_ns", json_object_new_uint64(cal->elapsed_ns));
	json_object_object_add(o, "points_measured", json_object_new_int64((int64_t) cal->n_run));
	json_object_object_add(o, "points_from_cache",
			       json_object_new_int64((int64_t) cal->n_from_cache));
	json_object_object_add(o, "points_unmeasured",
			       json_object_new_int64((int64_t) cal->n_unmeasured));
	json_object_object_add(o, "points_cut_short",
			       json_object_new_int64((int64_t) cal->n_cut_short));
	json_object_object_add(o, "names_too_noisy",
			       json_object_new_int64((int64_t) cal->n_noisy_names));
	json_object_object_add(o, "cache_measured_at",
			       cal->cache_oldest ? json_object_new_int64(cal->cache_oldest) : NULL);
	json_object_object_add(o, "cache_warning",
			       cal->cache_warning[0] ? json_object_new_string(cal->cache_warning)
						     : NULL);
	return o;
}

/* The calibrate document, less "version" and "verb" (ctl_json_print() adds them). */
static json_object *calibrate_json(const struct cp_calibration *cal, const struct cp_inventory *inv,
				   const struct calibrate_args *a, json_object *modules_loaded)
{
	json_object *doc = summary_json(cal, a), *algorithms = json_object_new_array(),
		    *skipped = json_object_new_array();

	for (size_t first = 0, end; first < cal->n_measured; first = end) {
		json_object *alg = json_object_new_object(), *impls = json_object_new_array();
		const struct cp_measured *best = winner(cal, cal->measured[first].name, a);

		end = cp_calibration_name_end(cal, first);
		json_object_object_add(alg, "name",
				       json_object_new_string(cal->measured[first].name));
		json_object_object_add(alg, "winner",
				       best ? json_object_new_string(best->driver) : NULL);
		for (size_t i = first; i < end; i++)
			json_object_array_add(impls, measured_json(&cal->measured[i], inv));
		json_object_object_add(alg, "implementations", impls);
		json_object_array_add(algorithms, alg);
	}
	for (size_t i = 0; i < cal->n_skipped; i++) {
		json_object *s = json_object_new_object();

		json_object_object_add(s, "driver", json_object_new_string(cal->skipped[i].driver));
		json_object_object_add(s, "algorithm",
				       json_object_new_string(cal->skipped[i].name));
		json_object_object_add(s, "reason", json_object_new_string(cal->skipped[i].reason));
		json_object_array_add(skipped, s);
	}
	json_object_object_add(doc, "algorithms", algorithms);
	json_object_object_add(doc, "not_calibrated", skipped);
	json_object_object_add(doc, "modules_loaded", modules_loaded);
	return doc;
}

/*
 * "44.50±1.20" in MB/s, a compressor's ratio after it ("44.50±1.20 2.24:1"),
 * an rsa's operations per second ("1520±12 ops/s"), or the verdict where
 * nothing was measured; "+-" for "±" where the locale is not UTF-8.
 */
static void format_cell(const struct cp_measured *m, const struct cp_point *p, char *buf,
			size_t size)
{
	double spread = (p->mbps.max - p->mbps.min) / 2;
	char ratio[24] = "";

	if (p->verdict != CP_VERDICT_MEASURED) {
		snprintf(buf, size, "%s", cp_verdict_to_string(p->verdict));
		return;
	}
	if (cp_mod_request_size(m->type, m->name)) {
		snprintf(buf, size, "%.0f%s%.0f%s ops/s", ops_per_s(m, p->mbps.median),
			 cp_glyph(CP_GLYPH_PLUS_MINUS), ops_per_s(m, spread), p->cached ? "c" : "");
		return;
	}
	if (p->compressed_size)
		snprintf(ratio, sizeof(ratio), " %.2f:1", (double) p->size / p->compressed_size);
	snprintf(buf, size, "%.2f%s%.2f%s%s", p->mbps.median, cp_glyph(CP_GLYPH_PLUS_MINUS), spread,
		 p->cached ? "c" : "", ratio);
}

/* The cells of @m's row: mark, driver, class, a cell per size, KAT, verification, backend. */
static int add_row(struct ctl_table *t, const struct cp_measured *m, bool best,
		   const struct cp_inventory *inv, const struct calibrate_args *a)
{
	char cells[CALIBRATE_MAX_SIZES + 1][48];
	const char *row[CALIBRATE_MAX_SIZES + 7] = {best ? "*" : NULL, m->driver,
					  m->candidate ? "cpu+" : class_of(m, inv) ?: "-"};
	size_t n = 3;

	for (size_t s = 0; s < m->n_points && s < a->n_sizes; s++) {
		format_cell(m, &m->points[s], cells[s], sizeof(cells[s]));
		row[n++] = cells[s];
	}
	n = 3 + a->n_sizes;
	row[n++] = cp_mod_kat_to_string(m->kat);
	row[n++] = cp_verification_to_string(m->verified.state) ?: "-";
	row[n] = cp_backend_to_string(m->backend);
	return ctl_table_row(t, row);
}

/* One table for every algorithm, a title each: the sizes are the same for all. */
static int print_groups(const struct ctl *ctl, const struct cp_calibration *cal,
			const struct cp_inventory *inv, const struct calibrate_args *a)
{
	struct ctl_column columns[CALIBRATE_MAX_SIZES + 7] = {{""}, {"DRIVER"}, {"CLASS"}};
	char sizes[CALIBRATE_MAX_SIZES + 1][32];
	struct ctl_table *t;
	size_t n = 3;
	int r = 0;

	for (size_t s = 0; s < a->n_sizes; s++)
		columns[n++] = (struct ctl_column){
		    cp_format_size(sizes[s], sizeof(sizes[s]), a->sizes[s]), CTL_COL_RIGHT};
	columns[n++] = (struct ctl_column){"KAT"};
	columns[n++] = (struct ctl_column){"VERIFIED"};
	columns[n++] = (struct ctl_column){"BACKEND"};
	t = ctl_table_new(ctl, columns, n, "");
	for (size_t first = 0, end; t && r >= 0 && first < cal->n_measured; first = end) {
		const struct cp_measured *best = winner(cal, cal->measured[first].name, a);

		end = cp_calibration_name_end(cal, first);
		r = ctl_table_title(t, "%s", cal->measured[first].name);
		for (size_t i = first; r >= 0 && i < end; i++)
			r = add_row(t, &cal->measured[i], &cal->measured[i] == best, inv, a);
	}
	if (t && r >= 0)
		return ctl_table_print(t);
	ctl_table_free(t);
	return -ENOMEM;
}

/* Below the table: the calibration's summary and what its marks mean. */
/* Each engine's verification that failed or did not run, in words; the seed of those that ran. */
static void print_verifications(const struct cp_calibration *cal)
{
	for (size_t i = 0; i < cal->n_measured; i++) {
		const struct cp_measured *m = &cal->measured[i];
		const struct cp_verified *v = &m->verified;

		if (v->state == CP_VERIFICATION_FAILED)
			printf("%s: verification against %s failed, %s: faulty.\n", m->driver,
			       m->reference[0] ? m->reference : "the reference", v->text);
		else if (v->state == CP_VERIFICATION_NOT_RUN)
			printf("%s: not verified: %s.\n", m->driver, v->text);
		else if (v->state == CP_VERIFICATION_PASSED && !v->cached)
			printf("%s: verified, %" PRIu32 " case%s of seed %" PRIu64 " as %s's.\n",
			       m->driver, v->cases, ctl_plural(v->cases), v->seed,
			       m->reference[0] ? m->reference : "the reference");
	}
}

static void print_summary(const struct cp_calibration *cal, const struct calibrate_args *a)
{
	char size[32];

	printf("\nWorkload %s at depth %" PRIu32 "; backend %s; %zu point%s measured, %zu from the "
	       "cache, %zu not measured within the %" PRIu64 " ms budget; %.0f ms.\n",
	       cp_format_size(size, sizeof(size), a->workload_size), a->depth,
	       cal->backend == CP_BACKEND_NONE ? "none needed" : cp_backend_to_string(cal->backend),
	       cal->n_run, ctl_plural(cal->n_run), cal->n_from_cache, cal->n_unmeasured,
	       a->budget_ns / 1000000, cal->elapsed_ns / 1e6);
	if (cal->n_cut_short)
		printf("%zu of the points measured cut short by the budget before their %d runs: "
		       "shown, not cached.\n",
		       cal->n_cut_short, CP_RUNS_FIRST);
	if (cal->n_noisy_names)
		printf("%zu name%s too noisy to decide after the runs the budget allowed (a best "
		       "run over twice the median): cached as such, measured again by the next "
		       "calibration; a plan keeps the kernel's order there.\n",
		       cal->n_noisy_names, ctl_plural(cal->n_noisy_names));
	if (cal->cache_oldest)
		printf("Cached figures measured since %s", ctime(&cal->cache_oldest));
	for (size_t i = 0; i < cal->n_measured; i++)
		if (cal->measured[i].measured_as[0])
			printf("%s measured as %s: an IV generator would set up the kernel's "
			       "default RNG.\n",
			       cal->measured[i].driver, cal->measured[i].measured_as);
	print_verifications(cal);
	for (size_t i = 0; i < cal->n_measured; i++)
		if (cal->measured[i].candidate) {
			printf("cpu+: the CPU's candidate for a name only engines serve, not "
			       "registered: created for each run, then removed.\n");
			break;
		}
}

/* --no-legend: the rows alone, without the legend, the summary and what was left out. */
static void print_table(const struct ctl *ctl, const struct cp_calibration *cal,
			const struct cp_inventory *inv, const struct calibrate_args *a)
{
	if (!ctl->no_legend && cal->n_measured)
		printf("MB/s, median%shalf-range of the runs; * fastest at the workload point, c "
		       "from the cache\n\n",
		       cp_glyph(CP_GLYPH_PLUS_MINUS));
	if (cal->n_measured && print_groups(ctl, cal, inv, a) < 0)
		(void) ctl_errno(-ENOMEM, NULL, "calibrate");
	if (ctl->no_legend)
		return;
	for (size_t i = 0; i < cal->n_skipped; i++)
		printf("%snot calibrated: %s (%s): %s\n", i ? "" : "\n", cal->skipped[i].driver,
		       cal->skipped[i].name, cal->skipped[i].reason);
	print_summary(cal, a);
}

static void explain_backend(const struct cp_calibration *cal)
{
	if (cal->backend == CP_BACKEND_AFALG && cal->module_error)
		fprintf(stderr,
			"cryptoprioctl: the cryptoprio module %s: measuring through AF_ALG, which "
			"cannot reach engines on Linux >= 7.2\n",
			ctl_module_reason(cal->module_error));
	if (cal->cache_warning[0])
		fprintf(stderr, "cryptoprioctl: %s\n", cal->cache_warning);
	if (cal->n_instances_left == SIZE_MAX)
		fprintf(stderr,
			"cryptoprioctl: cannot list or remove the template instances AF_ALG "
			"registered (crypto_user): they stay registered\n");
	else if (cal->n_instances_left)
		fprintf(stderr,
			"cryptoprioctl: %zu template instance%s AF_ALG registered %s in use: "
			"they stay registered\n",
			cal->n_instances_left, ctl_plural(cal->n_instances_left),
			cal->n_instances_left == 1 ? "is" : "are");
}

/* The table or the document, and the chart drawn from the document (--chart): the exit code. */
static int print_results(const struct ctl *ctl, const struct cp_calibration *cal,
			 const struct cp_inventory *inv, const struct calibrate_args *a,
			 json_object *modules_loaded)
{
	_cleanup_(cp_json_putp) json_object *doc = NULL;

	if (ctl->json || a->chart)
		doc = calibrate_json(cal, inv, a, modules_loaded);
	else
		json_object_put(modules_loaded);
	if (ctl->json)
		ctl_json_print(json_object_get(doc));
	else
		print_table(ctl, cal, inv, a);
	if (cal->n_measured == 0 && cal->n_skipped == 0)
		return ctl_error("calibrate: nothing to calibrate matches");
	return a->chart ? chart_calibration(ctl, doc, a->chart_svg) : EXIT_SUCCESS;
}

/* Measure @patterns' implementations (all that compete, if none) and print the figures. */
static int measure_and_print(struct ctl *ctl, char **patterns, int n_patterns,
			     const struct calibrate_args *a)
{
	struct ctl_modules modules;
	json_object *loaded;
	struct cp_calibrate_options opts;
	struct cp_calibration cal;
	struct cp_inventory inv;
	int r;

	r = cp_inventory_load(&inv);
	if (r < 0)
		return ctl_errno(r, NULL, "calibrate: cannot read the kernel's implementations");
	opts = (struct cp_calibrate_options){
	    .patterns = patterns,
	    .n_patterns = (size_t) n_patterns,
	    .sizes = a->sizes,
	    .n_sizes = a->n_sizes,
	    .workload_size = a->workload_size,
	    .depth = a->depth,
	    .budget_ns = a->budget_ns,
	    .force = a->force,
	    .cache_path = CP_CACHE_PATH,
	    .backend = a->backend,
	    .progress = isatty(STDERR_FILENO) ? show_progress : NULL,
	};
	/* the references' templates, AF_ALG's lookups: what they loaded is said after */
	ctl_modules_snapshot(&modules);
	r = cp_calibrate(&inv, &opts, &cal);
	if (opts.progress)
		fputs("\r\033[K", stderr);
	loaded = ctl_modules_loaded(ctl, "calibrate", &modules);
	if (r < 0) {
		json_object_put(loaded);
		cp_inventory_free(&inv);
		if (a->backend == CP_BACKEND_MODULE && r == cal.module_error)
			return ctl_error("calibrate: --backend module: the cryptoprio module %s",
					 ctl_module_reason(r));
		return ctl_errno(r, NULL, "calibrate");
	}
	explain_backend(&cal);
	r = print_results(ctl, &cal, &inv, a, loaded);
	cp_calibration_free(&cal);
	cp_inventory_free(&inv);
	return r;
}

int verb_calibrate(struct ctl *ctl, int argc, char **argv)
{
	struct calibrate_args a = {};
	int r;

	if (wants_raw(argc, argv))
		return calibrate_raw(ctl, argc, argv);
	r = calibrate_parse_args(ctl, argc, argv, false, &a);
	if (r == 0)
		r = apply_policy_defaults(ctl, &a);
	if (r != 0)
		return r;
	if (!cp_have_net_admin())
		return ctl_error("calibrate: measuring needs CAP_NET_ADMIN (run as root); nothing "
				 "measured, the cache left alone");
	return measure_and_print(ctl, argv + optind, argc - optind, &a);
}
