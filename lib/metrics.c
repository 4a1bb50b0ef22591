/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The metrics' text (metrics.h): collected from the state file, the cache
 * and the inventory, and formatted as Prometheus' textfile collector reads.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "calibrate.h"
#include "daemon-state.h"
#include "inventory-load.h"
#include "macro.h"
#include "metrics.h"

int cp_metrics_escape(const char *value, char *out, size_t size)
{
	size_t n = 0;

	for (const char *p = value; *p; p++) {
		const char *esc = *p == '\\'   ? "\\\\"
				  : *p == '"'  ? "\\\""
				  : *p == '\n' ? "\\n"
					       : NULL;
		size_t len = esc ? 2 : 1;

		if (n + len >= size)
			return -ENAMETOOLONG;
		memcpy(out + n, esc ? esc : p, len);
		n += len;
	}
	out[n] = '\0';
	return (int) n;
}

/* Label values: at most CP_NAME_MAX bytes each, doubled when escaped. */
struct label {
	char v[2 * CP_NAME_MAX + 1];
};

static const char *label(struct label *l, const char *value)
{
	if (cp_metrics_escape(value, l->v, sizeof(l->v)) < 0)
		l->v[0] = '\0'; /* cannot happen: names are shorter */
	return l->v;
}

static void header(FILE *f, const char *metric, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", metric, help, metric);
}

static void last_apply(FILE *f, const struct cp_state *state)
{
	const struct cp_state_apply *a = state->last_apply;
	size_t counts[CP_STEP_GONE + 1] = {};
	static const char *const results[] = {"pending", "done", "failed", "gone"};

	for (size_t i = 0; a && i < a->n_steps; i++)
		counts[a->steps[i].result]++;
	header(f, "cryptoprio_last_apply_timestamp_seconds",
	       "When the last plan that changed priorities was applied (0: none since boot).");
	fprintf(f, "cryptoprio_last_apply_timestamp_seconds %" PRId64 "\n", a ? a->started_at : 0);
	header(f, "cryptoprio_last_check_timestamp_seconds",
	       "When apply or the daemon last checked the plan, even with nothing to change.");
	fprintf(f, "cryptoprio_last_check_timestamp_seconds %" PRId64 "\n", state->checked_at);
	header(f, "cryptoprio_last_run_success",
	       "1 if the last run applied every step, 0 if a step failed, the apply was "
	       "interrupted or the daemon's last run failed.");
	fprintf(f, "cryptoprio_last_run_success %d\n", !cp_state_last_run_failed(state));
	header(f, "cryptoprio_last_apply_steps", "Steps of the last plan applied, by result.");
	for (size_t r = 0; r < ARRAY_SIZE(results); r++)
		fprintf(f, "cryptoprio_last_apply_steps{result=\"%s\"} %zu\n", results[r],
			counts[r]);
	header(f, "cryptoprio_last_apply_steps_failed",
	       "Steps of the last plan applied that failed.");
	fprintf(f, "cryptoprio_last_apply_steps_failed %zu\n", counts[CP_STEP_FAILED]);
}

static void drift(FILE *f, const struct cp_state *state, const struct cp_inventory *inv)
{
	header(f, "cryptoprio_drifted_implementations",
	       "Names and callers a lookup gives another implementation than the last plan "
	       "applied left (cryptoprioctl status); by a state file without the winners, "
	       "implementations the plan set whose priority is another now.");
	fprintf(f, "cryptoprio_drifted_implementations %zu\n", cp_state_drift_count(state, inv));
}

/* Whether @inv's entry @i is the first of its name (a sorted inventory keeps them together). */
static bool first_of_name(const struct cp_inventory *inv, size_t i)
{
	return i == 0 || !streq(inv->algs[i - 1].name, inv->algs[i].name);
}

static void winners(FILE *f, const struct cp_inventory *inv)
{
	struct label name, driver;

	header(f, "cryptoprio_winner_priority",
	       "The implementation a new user of each name gets now, with its class: its "
	       "priority.");
	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *w;

		if (!first_of_name(inv, i) || !(w = cp_inventory_winner(inv, inv->algs[i].name)))
			continue;
		fprintf(f,
			"cryptoprio_winner_priority{name=\"%s\",driver=\"%s\",class=\"%s\"} "
			"%" PRIu32 "\n",
			label(&name, w->name), label(&driver, w->driver),
			cp_class_to_string(w->class), w->priority);
	}
}

static void created(FILE *f, const struct cp_state *state, const struct cp_inventory *inv)
{
	struct label name, driver;
	size_t n = 0;

	for (size_t i = 0; i < state->n_created; i++)
		n += cp_inventory_find_driver(inv, state->created[i].driver) != NULL;
	header(f, "cryptoprio_created_instances",
	       "Template instances cryptoprio created that are registered now.");
	fprintf(f, "cryptoprio_created_instances %zu\n", n);
	header(f, "cryptoprio_created_instance_in_use",
	       "Each instance cryptoprio created: 1 if a removal found it held.");
	for (size_t i = 0; i < state->n_created; i++)
		fprintf(f, "cryptoprio_created_instance_in_use{name=\"%s\",driver=\"%s\"} %d\n",
			label(&name, state->created[i].name),
			label(&driver, state->created[i].driver), state->created[i].in_use);
}

/* The cached figures of @alg at its name's workload point, or NULL. */
static const struct cp_cache_entry *figures_of(const struct cp_metrics_input *in,
					       const struct cp_alg *alg)
{
	struct cp_measured m = {};
	struct cp_cache_key key;
	struct cp_settings s;

	cp_strscpy(m.driver, sizeof(m.driver), alg->driver);
	cp_strscpy(m.module, sizeof(m.module), alg->module);
	if (cp_measured_cache_key(&m, &key) < 0)
		return NULL;
	cp_policy_algorithm(in->policy, alg->name, &s);
	return cp_cache_find(in->cache, &key, s.request_size, s.in_flight);
}

static const char *const figure_metrics[][2] = {
    {"cryptoprio_calibration_throughput_bytes_per_second",
     "Median throughput measured at the workload point of its name (RequestSize=, InFlight=)."},
    {"cryptoprio_calibration_latency_seconds",
     "Median time per request measured at the workload point of its name."},
    {"cryptoprio_calibration_cpu_seconds_per_byte",
     "Median CPU time per byte measured at the workload point of its name."},
};

static double figure(const struct cp_cache_entry *e, size_t k)
{
	return k == 0	? e->point.mbps.median * 1e6
	       : k == 1 ? e->point.ns_per_request.median / 1e9
			: e->point.cpu_ns_per_byte.median / 1e9;
}

static void calibration(FILE *f, const struct cp_metrics_input *in)
{
	const struct cp_inventory *inv = in->inventory;
	struct label name, driver;

	for (size_t k = 0; in->cache && k < ARRAY_SIZE(figure_metrics); k++) {
		header(f, figure_metrics[k][0], figure_metrics[k][1]);
		for (size_t i = 0; i < inv->n_algs; i++) {
			const struct cp_alg *alg = &inv->algs[i];
			const struct cp_cache_entry *e;

			if (!cp_alg_competes(alg) || !(e = figures_of(in, alg)))
				continue;
			fprintf(f,
				"%s{name=\"%s\",driver=\"%s\",class=\"%s\",request_size=\"%" PRIu32
				"\",in_flight=\"%" PRIu32 "\"} %.6g\n",
				figure_metrics[k][0], label(&name, alg->name),
				label(&driver, alg->driver), cp_class_to_string(alg->class),
				e->point.size, e->point.depth, figure(e, k));
		}
	}
}

/*
 * Each engine of a type the module verifies: 1 when its figures at the
 * workload point carry a pass of the loaded cryptoprio module's build.
 */
static void verification(FILE *f, const struct cp_metrics_input *in)
{
	const struct cp_inventory *inv = in->inventory;
	struct label name, driver;
	char by[33];

	cp_verifier_srcversion(by);
	header(f, "cryptoprio_engine_verified",
	       "1 if the engine passed the module's verification with the loaded cryptoprio "
	       "module's build (calibration cache), 0 if not (yet).");
	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *alg = &inv->algs[i];
		const struct cp_cache_entry *e;

		if (!cp_alg_competes(alg) || alg->class == CP_CLASS_CPU ||
		    !cp_verification_covers(cp_mod_type_from_alg_type(alg->type)))
			continue;
		e = figures_of(in, alg);
		fprintf(f,
			"cryptoprio_engine_verified{name=\"%s\",driver=\"%s\",class=\"%s\"} %d\n",
			label(&name, alg->name), label(&driver, alg->driver),
			cp_class_to_string(alg->class), e && by[0] && streq(e->verified.by, by));
	}
}

int cp_metrics_format(const struct cp_metrics_input *in, char **ret_text)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	if (!f)
		return -ENOMEM;
	last_apply(f, in->state);
	drift(f, in->state, in->inventory);
	winners(f, in->inventory);
	created(f, in->state, in->inventory);
	calibration(f, in);
	if (in->cache)
		verification(f, in);
	if (fclose(f) != 0 || !text) {
		free(text);
		return -ENOMEM;
	}
	*ret_text = text;
	return 0;
}

int cp_metrics_collect(const struct cp_policy *policy, const char *state_path,
		       const char *cache_path, char **ret_text)
{
	_cleanup_(cp_state_free) struct cp_state state = {};
	_cleanup_(cp_cache_free) struct cp_cache cache = {};
	_cleanup_(cp_inventory_free) struct cp_inventory inv = {};
	bool figures = cache_path && cp_cache_load(cache_path, &cache) >= 0;
	int r;

	r = cp_state_load(state_path, &state);
	if (r < 0)
		return r;
	cp_cache_keys_forget(); /* modules may have been reloaded since */
	r = cp_inventory_load_memo(&inv, figures ? &cache.modules : NULL);
	if (r < 0)
		return r;
	return cp_metrics_format(&(struct cp_metrics_input){.state = &state,
							    .inventory = &inv,
							    .cache = figures ? &cache : NULL,
							    .policy = policy},
				 ret_text);
}
