/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The calibration engine (calibrate.h): which names and drivers to measure,
 * in which order, at which gears, in slices of the budget, cache first.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <linux/netlink.h>

#include "afalg.h"
#include "calib-cache.h"
#include "calibrate-internal.h"
#include "calibrate.h"
#include "crypto-user.h"
#include "cpustat.h"
#include "macro.h"
#include "planner.h"
#include "types.h"

#define OVERHEAD_GUESS 5000000ull /* per run, until one was timed */

void cp_calibration_free(struct cp_calibration *cal)
{
	for (size_t i = 0; i < cal->n_measured; i++)
		free(cal->measured[i].points);
	free(cal->measured);
	free(cal->skipped);
	memset(cal, 0, sizeof(*cal));
}

const struct cp_measured *cp_calibration_find(const struct cp_calibration *cal, const char *driver)
{
	for (size_t i = 0; i < cal->n_measured; i++)
		if (streq(cal->measured[i].driver, driver))
			return &cal->measured[i];
	return NULL;
}

bool cp_measured_too_noisy(const struct cp_measured *m)
{
	for (size_t i = 0; i < m->n_points; i++)
		if (!m->points[i].cached && m->points[i].too_noisy)
			return true;
	return false;
}

const struct cp_point *cp_measured_point(const struct cp_measured *m, uint32_t size, uint32_t depth)
{
	for (size_t i = 0; i < m->n_points; i++)
		if (m->points[i].size == size && m->points[i].depth == depth)
			return &m->points[i];
	return NULL;
}

struct backend {
	enum cp_backend kind;
	struct cp_nl nl; /* the module's generic netlink socket */
};

static int backend_open(struct backend *b, enum cp_backend wanted, int *module_error)
{
	uint16_t family;
	int r;

	memset(b, 0, sizeof(*b));
	if (wanted != CP_BACKEND_AFALG) {
		r = cp_nl_open(&b->nl, NETLINK_GENERIC);
		if (r >= 0)
			r = cp_mod_family(&b->nl, &family);
		if (r >= 0) {
			b->kind = CP_BACKEND_MODULE;
			return 0;
		}
		cp_nl_close(&b->nl);
		*module_error = r;
		if (wanted == CP_BACKEND_MODULE)
			return r;
	}
	b->kind = CP_BACKEND_AFALG;
	return 0;
}

static void backend_close(struct backend *b)
{
	if (b->kind == CP_BACKEND_MODULE)
		cp_nl_close(&b->nl);
}

/* Accumulated runs of one point, before they are summarised. */
struct samples {
	unsigned n;
	double mbps[CP_STAT_MAX_RUNS], ns_per_request[CP_STAT_MAX_RUNS],
	    cpu_ns_per_byte[CP_STAT_MAX_RUNS];
};

struct engine {
	const struct cp_calibrate_options *opts;
	struct cp_calibration *cal;
	struct backend backend;
	struct samples *samples; /* n_measured x n_sizes */
	uint64_t start_ns, deadline_ns;
	uint64_t overhead_ns; /* per run beyond its slice: setup, known answer, netlink */
	size_t done, total;
	/*
	 * With a ladder, the first runs of every point share the budget
	 * (slices from all the first runs still planned), so that the ladder
	 * is measured too; without, each name has its share.
	 */
	bool ladder;
};

static void set_all_points(struct cp_measured *m, enum cp_verdict verdict, int error)
{
	for (size_t i = 0; i < m->n_points; i++) {
		if (m->points[i].cached)
			continue;
		m->points[i].verdict = verdict;
		m->points[i].error = error;
	}
}

static void summarise(struct cp_point *p, struct samples *s)
{
	double copy[CP_STAT_MAX_RUNS];

	memcpy(copy, s->mbps, sizeof(copy));
	cp_stat_compute(copy, s->n, &p->mbps);
	memcpy(copy, s->ns_per_request, sizeof(copy));
	cp_stat_compute(copy, s->n, &p->ns_per_request);
	memcpy(copy, s->cpu_ns_per_byte, sizeof(copy));
	cp_stat_compute(copy, s->n, &p->cpu_ns_per_byte);
	p->verdict = CP_VERDICT_MEASURED;
}

static void record_sample(struct samples *s, const struct cp_mod_calib_result *res)
{
	if (s->n >= CP_STAT_MAX_RUNS || res->requests == 0 || res->wall_ns == 0)
		return;
	s->mbps[s->n] = cp_mod_mb_per_s(res);
	s->ns_per_request[s->n] = cp_mod_ns_per_request(res);
	s->cpu_ns_per_byte[s->n] = cp_mod_cpu_ns_per_byte(res);
	s->n++;
}

/*
 * How long the module waits for a request that does not come back: four
 * slices, at least CP_GRACE_MIN_NS so that a slow but working engine is not
 * taken for a hanging one, at most what is left of the budget above that
 * and never more than the module's maximum. A hanging driver so costs the
 * calibration about that much, once: it is not run again.
 */
uint64_t cp_calibration_grace(uint64_t left_ns, uint64_t slice_ns)
{
	uint64_t grace = 4 * slice_ns;

	if (grace > left_ns)
		grace = left_ns;
	if (grace < CP_GRACE_MIN_NS)
		grace = CP_GRACE_MIN_NS;
	return grace > CRYPTOPRIO_GRACE_NS ? CRYPTOPRIO_GRACE_NS : grace;
}

static uint64_t budget_left(const struct engine *e)
{
	uint64_t now = cp_now_ns();

	return e->deadline_ns > now ? e->deadline_ns - now : 0;
}

static int backend_run(struct engine *e, struct cp_measured *m, const struct cp_point *p,
		       uint64_t budget_ns, struct cp_mod_calib_result *res)
{
	char inner[CP_NAME_MAX];
	struct cp_mod_calib_req req = {
	    .driver = m->measured_as[0] ? m->measured_as : m->driver,
	    .type = m->type,
	    /* the workload's size unless the algorithm fixes it (rsa: a modulus) */
	    .req_size = cp_mod_request_size(m->type, m->name) ?: p->size,
	    .depth = p->depth,
	    .budget_ns = budget_ns,
	    .grace_ns = cp_calibration_grace(budget_left(e), budget_ns),
	};

	if (e->backend.kind == CP_BACKEND_MODULE) {
		int r = cp_mod_calibrate(&e->backend.nl, &req, res);

		/*
		 * Requests of an earlier run (another process's, or this
		 * daemon's before) never completed: the same verdict as a
		 * timeout now. Any other EBUSY is the module being busy.
		 */
		if (r == -EBUSY && strstr(e->backend.nl.extack, CP_MOD_EXTACK_OUTSTANDING))
			r = -ETIMEDOUT;
		return r;
	}
	if (!m->measured_as[0] || !cp_geniv_inner(m->name, inner))
		cp_strscpy(inner, sizeof(inner), m->name);
	return cp_afalg_calibrate(&req, inner, m->reference[0] ? m->reference : NULL, res);
}

/* One short run of one point; a faulty, hung or unreachable driver is not run again. */
static void run_point(struct engine *e, size_t mi, size_t pi, uint64_t slice_ns)
{
	struct cp_measured *m = &e->cal->measured[mi];
	struct cp_point *p = &m->points[pi];
	struct samples *s = &e->samples[mi * e->opts->n_sizes + pi];
	const struct cp_type_info *type = cp_type_info(m->type);
	struct cp_mod_calib_result res;
	uint64_t start, spent;
	int r;

	if (e->backend.kind == CP_BACKEND_AFALG &&
	    (m->candidate || !type || type->afalg == CP_AFALG_NONE)) {
		/*
		 * AF_ALG's bind would create the instance and leave it
		 * registered; and it has interfaces for ciphers and hashes
		 * only.
		 */
		m->backend = e->backend.kind;
		set_all_points(m, CP_VERDICT_UNREACHABLE, -EOPNOTSUPP);
		return;
	}
	start = cp_now_ns();
	r = backend_run(e, m, p, slice_ns, &res);
	spent = cp_now_ns() - start;
	/* A moving estimate of what a run costs beyond its slice. */
	e->overhead_ns = (3 * e->overhead_ns + (spent > slice_ns ? spent - slice_ns : 0)) / 4;
	m->backend = e->backend.kind;
	if (r == -ETIMEDOUT) {
		set_all_points(m, CP_VERDICT_TIMEOUT, r);
		return;
	}
	if (r == -ENOENT && e->backend.kind == CP_BACKEND_AFALG) {
		set_all_points(m, CP_VERDICT_UNREACHABLE, r);
		return;
	}
	if (r < 0) {
		p->verdict = CP_VERDICT_ERROR;
		p->error = r;
		return;
	}
	m->kat = res.kat;
	if (res.reference[0])
		cp_strscpy(m->reference, sizeof(m->reference), res.reference);
	if (res.kat == CRYPTOPRIO_KAT_MISMATCH) {
		set_all_points(m, CP_VERDICT_FAULTY, 0);
		return;
	}
	p->max_in_flight =
	    res.max_in_flight > p->max_in_flight ? res.max_in_flight : p->max_in_flight;
	p->compressed_size = res.compressed_size;
	record_sample(s, &res);
	summarise(p, s);
}

static bool runnable(const struct cp_measured *m, const struct cp_point *p)
{
	return !p->cached && !m->cache_only &&
	       (p->verdict == CP_VERDICT_UNMEASURED || p->verdict == CP_VERDICT_MEASURED);
}

static void report_progress(struct engine *e, const struct cp_measured *m, uint32_t size)
{
	struct cp_progress progress = {e->done, e->total, m->driver, size};

	if (e->opts->progress)
		e->opts->progress(&progress, e->opts->userdata);
}

static size_t workload_index(const struct cp_calibrate_options *opts)
{
	for (size_t i = 0; i < opts->n_sizes; i++)
		if (opts->sizes[i] == opts->workload_size)
			return i;
	return 0;
}

/*
 * The next run's slice: @left_ns shared among the @runs_left still
 * planned, less the overhead each run has shown, clamped; 0 when even the
 * shortest run no longer fits.
 */
uint64_t cp_calibration_slice(uint64_t left_ns, size_t runs_left, unsigned scale,
			      uint64_t overhead_ns)
{
	uint64_t slice = scale * (left_ns / (runs_left ? runs_left : 1));

	slice = slice > overhead_ns ? slice - overhead_ns : 0;
	if (slice < CP_SLICE_MIN_NS)
		slice = CP_SLICE_MIN_NS;
	if (slice > CP_SLICE_MAX_NS)
		slice = CP_SLICE_MAX_NS;
	return slice + overhead_ns > left_ns ? 0 : slice;
}

static struct samples *samples_of(const struct engine *e, size_t mi, size_t pi)
{
	return &e->samples[mi * e->opts->n_sizes + pi];
}

/* The first runs still planned at point @pi for the drivers [@first, @end). */
static size_t first_runs_left(const struct engine *e, size_t first, size_t end, size_t pi)
{
	size_t n = 0;

	for (size_t mi = first; mi < end; mi++) {
		const struct samples *s = samples_of(e, mi, pi);
		unsigned need = cp_calibration_runs_needed(e->cal, &e->cal->measured[mi]);

		if (runnable(&e->cal->measured[mi], &e->cal->measured[mi].points[pi]) &&
		    s->n < need)
			n += need - s->n;
	}
	return n;
}

/* The first runs still planned at every point. */
static size_t all_first_runs_left(const struct engine *e)
{
	size_t n = 0;

	for (size_t pi = 0; pi < e->opts->n_sizes; pi++)
		n += first_runs_left(e, 0, e->cal->n_measured, pi);
	return n;
}

/*
 * The first short runs (cp_calibration_runs_needed()) of point @pi of the
 * drivers [@first, @end), the time until @until_ns (their share) shared
 * among them, the shortest runs once it is spent. Round by round: every
 * driver's first run before any second, so that a budget that runs short
 * (a run costs more than its slice under emulation) leaves no driver of
 * the name unmeasured while another had runs to spare. False when the
 * budget is spent first (with opts->finish, never).
 */
static bool first_runs(struct engine *e, size_t first, size_t end, size_t pi, uint64_t until_ns)
{
	for (unsigned round = 1; round <= CP_RUNS_FIRST; round++)
		for (size_t mi = first; mi < end; mi++) {
			struct cp_measured *m = &e->cal->measured[mi];
			const struct samples *s = samples_of(e, mi, pi);
			uint64_t now = cp_now_ns(), share = until_ns > now ? until_ns - now : 0;
			uint64_t slice;

			if (!runnable(m, &m->points[pi]) || s->n >= round ||
			    s->n >= cp_calibration_runs_needed(e->cal, m))
				continue;
			if (round == 1) {
				report_progress(e, m, m->points[pi].size);
				e->done++;
			}
			slice = cp_calibration_slice(e->ladder ? budget_left(e) : share,
						     e->ladder ? all_first_runs_left(e)
							       : first_runs_left(e, first, end, pi),
						     1, e->overhead_ns);
			/* The share spent: the shortest runs, while the budget lasts. */
			if (!slice)
				slice = CP_SLICE_MIN_NS;
			if (slice + e->overhead_ns > budget_left(e) && !e->opts->finish)
				return false;
			run_point(e, mi, pi, slice);
		}
	return true;
}

bool cp_calibration_order_known(size_t n, const struct cp_rank_figure *f, bool *again, bool *noisy)
{
	bool known = true;

	for (size_t i = 0; i < n; i++)
		again[i] = noisy[i] = false;
	for (size_t i = 0; i < n; i++)
		for (size_t k = i + 1; k < n; k++) {
			bool too_noisy = f[i].too_noisy || f[k].too_noisy;

			if (!f[i].measured || !f[k].measured || f[i].gear != f[k].gear ||
			    f[i].gear == CP_GEAR_NONE)
				continue;
			if (!too_noisy && fabs(f[i].value - f[k].value) > f[i].noise + f[k].noise)
				continue;
			again[i] = again[k] = true;
			noisy[i] |= too_noisy;
			noisy[k] |= too_noisy;
			known = false;
		}
	return known;
}

/*
 * The rank metric of @p: Rank = ratio orders a compressor by its
 * compression ratio, the same in every run; a name that is no compressor
 * has none and is ranked by throughput (cryptoprio.conf(5)).
 */
static void rank_figure(const struct cp_point *p, enum cp_rank rank, struct cp_rank_figure *f)
{
	const struct cp_stat *stat = &p->mbps;

	if (rank == CP_RANK_RATIO && p->compressed_size) {
		f->value = (double) p->size / p->compressed_size;
		f->noise = 0;
		f->too_noisy = false;
		f->measured = p->verdict == CP_VERDICT_MEASURED;
		return;
	}
	if (rank == CP_RANK_LATENCY)
		stat = &p->ns_per_request;
	else if (rank == CP_RANK_CPU_COST)
		stat = &p->cpu_ns_per_byte;
	f->value = stat->median;
	f->noise = cp_stat_noise(stat);
	f->too_noisy = cp_stat_too_noisy(stat, stat == &p->mbps);
	f->measured = p->verdict == CP_VERDICT_MEASURED && stat->n > 0;
}

#define NAME_MAX_IMPLS 32 /* more implementations of one name are compared as they are */

/*
 * Whether the order of the drivers [@first, @end) at point @pi is known,
 * by the policy's gears and Rank= for their name; those to run again,
 * runnable and short of CP_STAT_MAX_RUNS, in @again; those of a gear with
 * a figure too noisy to decide in @noisy.
 */
static bool order_known(const struct engine *e, size_t first, size_t end, size_t pi,
			bool again[static NAME_MAX_IMPLS], bool noisy[static NAME_MAX_IMPLS])
{
	const struct cp_measured *all = e->cal->measured;
	struct cp_rank_figure f[NAME_MAX_IMPLS];
	bool known;
	struct cp_settings set = {.rank = CP_RANK_THROUGHPUT};
	size_t n = end - first < NAME_MAX_IMPLS ? end - first : NAME_MAX_IMPLS;

	if (e->opts->policy)
		cp_policy_algorithm(e->opts->policy, all[first].name, &set);
	for (size_t i = 0; i < n; i++) {
		const struct cp_measured *m = &all[first + i];

		f[i].gear = m->gear;
		rank_figure(&m->points[pi], set.rank, &f[i]);
	}
	known = cp_calibration_order_known(n, f, again, noisy);
	for (size_t i = 0; i < n; i++)
		again[i] = again[i] && runnable(&all[first + i], &all[first + i].points[pi]) &&
			   samples_of(e, first + i, pi)->n < CP_STAT_MAX_RUNS;
	return known;
}

/* Whether the point is decided, the name pending, each driver's figure too noisy (@noisy: none). */
static void mark_name(struct engine *e, size_t first, size_t end, size_t pi, bool decided,
		      bool pending, const bool *noisy)
{
	for (size_t mi = first; mi < end; mi++) {
		struct cp_measured *m = &e->cal->measured[mi];

		if (m->points[pi].cached)
			continue;
		m->points[pi].decided = decided;
		m->points[pi].too_noisy = noisy && mi - first < NAME_MAX_IMPLS && noisy[mi - first];
		m->pending |= pending && runnable(m, &m->points[pi]);
	}
}

/*
 * The workload point @pi of one name, its drivers [@first, @end): the
 * first runs of each, then (@refine) more runs of those still within noise
 * of a competitor in their gear, or too noisy to decide (marked noisy if
 * they stay so), until the order is known, they have run
 * CP_STAT_MAX_RUNS times, or the name's share of the budget (what is left,
 * shared among the @names_left names still to measure) is spent. False
 * when the budget ran out before the first runs were done: the name and
 * those after it are pending.
 */
static bool measure_name(struct engine *e, size_t first, size_t end, size_t pi, size_t names_left,
			 bool refine)
{
	uint64_t until_ns = cp_now_ns() + budget_left(e) / (names_left ? names_left : 1);
	bool again[NAME_MAX_IMPLS], noisy[NAME_MAX_IMPLS], known;

	if (!first_runs(e, first, end, pi, until_ns)) {
		mark_name(e, first, end, pi, false, true, NULL);
		return false;
	}
	while (!(known = order_known(e, first, end, pi, again, noisy)) && refine) {
		size_t n_again = 0, ran = 0;

		for (size_t i = 0; i < NAME_MAX_IMPLS && first + i < end; i++)
			n_again += again[i];
		for (size_t i = 0; i < NAME_MAX_IMPLS && first + i < end; i++) {
			uint64_t now = cp_now_ns();
			uint64_t slice = cp_calibration_slice(until_ns > now ? until_ns - now : 0,
							      n_again, 2, e->overhead_ns);

			if (!again[i])
				continue;
			if (!slice || slice + e->overhead_ns > budget_left(e))
				goto out;
			run_point(e, first + i, pi, slice);
			ran++;
		}
		if (!ran)
			break;
	}
out:
	known = order_known(e, first, end, pi, again, noisy);
	mark_name(e, first, end, pi, known, false, noisy);
	return true;
}

size_t cp_calibration_name_end(const struct cp_calibration *cal, size_t first)
{
	size_t end = first + 1;

	while (end < cal->n_measured &&
	       strcmp(cal->measured[end].name, cal->measured[first].name) == 0)
		end++;
	return end;
}

static bool name_runnable(const struct engine *e, size_t first, size_t end, size_t pi)
{
	for (size_t mi = first; mi < end; mi++)
		if (runnable(&e->cal->measured[mi], &e->cal->measured[mi].points[pi]))
			return true;
	return false;
}

/* The workload point, name by name (measure_name()); false once the budget ran out. */
static bool measure_workload(struct engine *e, size_t pi, bool refine)
{
	size_t names_left = 0;
	bool in_budget = true;

	for (size_t first = 0; first < e->cal->n_measured;
	     first = cp_calibration_name_end(e->cal, first))
		names_left += name_runnable(e, first, cp_calibration_name_end(e->cal, first), pi);
	for (size_t first = 0; first < e->cal->n_measured;
	     first = cp_calibration_name_end(e->cal, first)) {
		size_t end = cp_calibration_name_end(e->cal, first);

		if (!name_runnable(e, first, end, pi))
			continue;
		if (in_budget)
			in_budget = measure_name(e, first, end, pi, names_left--, refine);
		else
			mark_name(e, first, end, pi, false, true, NULL);
	}
	return in_budget;
}

/* The first runs of point @pi of every driver (the ladder); false once the budget is spent. */
static bool pass_over_point(struct engine *e, size_t pi)
{
	for (size_t first = 0; first < e->cal->n_measured;) {
		size_t end = cp_calibration_name_end(e->cal, first);

		if (!first_runs(e, first, end, pi, e->deadline_ns))
			return false;
		first = end;
	}
	return true;
}

static void count_points(struct cp_calibration *cal)
{
	for (size_t mi = 0; mi < cal->n_measured; mi++) {
		const struct cp_measured *m = &cal->measured[mi];
		bool first_of_name = mi == 0 || strcmp(cal->measured[mi - 1].name, m->name);

		cal->n_pending_names +=
		    m->pending && (first_of_name || !cal->measured[mi - 1].pending);
		cal->n_noisy_names +=
		    cp_measured_too_noisy(m) &&
		    (first_of_name || !cp_measured_too_noisy(&cal->measured[mi - 1]));
		cal->n_unverified += cp_measured_wants_verification(m);
		for (size_t pi = 0; pi < m->n_points; pi++) {
			const struct cp_point *p = &cal->measured[mi].points[pi];

			if (p->verdict == CP_VERDICT_UNMEASURED)
				cal->n_unmeasured++;
			else if (!p->cached) {
				cal->n_run++;
				cal->n_cut_short +=
				    m->pending || p->mbps.n < cp_calibration_runs_needed(cal, m);
			}
		}
	}
}

static int measure(struct engine *e)
{
	const struct cp_calibrate_options *opts = e->opts;
	size_t work = workload_index(opts);
	int r;

	for (size_t mi = 0; mi < e->cal->n_measured; mi++)
		for (size_t pi = 0; pi < opts->n_sizes; pi++)
			e->total +=
			    runnable(&e->cal->measured[mi], &e->cal->measured[mi].points[pi]);
	if (e->total == 0)
		return 0; /* everything from the cache: no backend needed */
	r = backend_open(&e->backend, opts->backend, &e->cal->module_error);
	if (r < 0)
		return r;
	e->cal->backend = e->backend.kind;
	e->samples = calloc(e->cal->n_measured * opts->n_sizes, sizeof(*e->samples));
	if (!e->samples)
		return -ENOMEM;
	e->overhead_ns = OVERHEAD_GUESS;
	e->ladder = opts->n_sizes > 1;
	/*
	 * The workload point first: it decides the order. With a ladder, which
	 * shows crossovers, its first runs, then the ladder's, then the further
	 * runs of the workload point with what is left.
	 */
	if (opts->n_sizes == 1)
		(void) measure_workload(e, work, true);
	else if (measure_workload(e, work, false)) {
		for (size_t pi = 0; pi < opts->n_sizes; pi++)
			if (pi != work && !pass_over_point(e, pi))
				break;
		(void) measure_workload(e, work, true);
	}
	return 0;
}

/*
 * Verify the engines that want it through the module, whichever backend
 * measured them (opened here if none was needed or AF_ALG was); with
 * opts->verify_first_only, only those verified first.
 */
static void verify_engines(struct engine *e, const char *by)
{
	bool first_only = e->opts->verify_first_only;
	struct backend module = {};
	int module_error = 0;
	bool wanted = false;

	for (size_t i = 0; i < e->cal->n_measured && !wanted; i++) {
		const struct cp_measured *m = &e->cal->measured[i];

		wanted = cp_measured_wants_verification(m) && (!first_only || m->verify_first);
	}
	if (!wanted)
		return;
	if (e->backend.kind == CP_BACKEND_MODULE) {
		cp_calibration_verify(e->cal, &e->backend.nl, 0, by, first_only);
		return;
	}
	if (backend_open(&module, CP_BACKEND_MODULE, &module_error) < 0) {
		cp_calibration_verify(e->cal, NULL, module_error, "", false);
		return;
	}
	cp_calibration_verify(e->cal, &module.nl, 0, by, first_only);
	backend_close(&module);
}

/*
 * AF_ALG's bind registers the template instances it is asked for and
 * leaves them, unlike the module (cryptoprio(4)): the known-answer
 * references ("cbc(aes-generic)"), the instances they are built on.
 * Remove each instance registered since @inv was listed that nobody
 * holds, as the module does; count those that stay (held, or crypto_user
 * not usable: no module, no CAP_NET_ADMIN).
 */
static void sweep_instances(const struct cp_inventory *inv, struct cp_calibration *cal)
{
	struct cp_inventory now = {};
	struct cp_nl nl = {};
	int r;

	r = cp_cu_open(&nl);
	if (r >= 0)
		r = cp_cu_dump(&nl, &now);
	for (size_t i = 0; r >= 0 && i < now.n_algs; i++) {
		const char *driver = now.algs[i].driver;

		if (!strchr(driver, '(') || cp_inventory_find_driver(inv, driver))
			continue;
		r = cp_cu_delete(&nl, driver);
		/* removing one removes those built on it: ENOENT for those */
		if (r < 0 && r != -ENOENT)
			cal->n_instances_left++;
		r = 0;
	}
	if (r < 0)
		cal->n_instances_left = SIZE_MAX;
	cp_inventory_free(&now);
	cp_nl_close(&nl);
}

int cp_calibrate(const struct cp_inventory *inv, const struct cp_calibrate_options *opts,
		 struct cp_calibration *cal)
{
	struct engine e = {.opts = opts, .cal = cal, .start_ns = cp_now_ns()};
	struct cp_cache own = {}, *cache = NULL;
	char by[33];
	int r;

	memset(cal, 0, sizeof(*cal));
	if (opts->n_sizes == 0 || opts->depth == 0 || opts->depth > CRYPTOPRIO_MAX_DEPTH)
		return -EINVAL;
	e.deadline_ns = e.start_ns + opts->budget_ns;
	r = cp_calibration_select(inv, opts, cal);
	cp_verifier_srcversion(by);
	if (r >= 0 && opts->cache_path) {
		cache = cp_calibration_open_cache(opts, cal, &own);
		if (!opts->force)
			cp_calibration_use_cache(cal, cache, by, opts->cache_only);
	}
	if (r >= 0 && !opts->cache_only)
		r = measure(&e);
	if (r >= 0 && !opts->cache_only)
		verify_engines(&e, by);
	backend_close(&e.backend);
	if (e.backend.kind == CP_BACKEND_AFALG)
		sweep_instances(inv, cal);
	free(e.samples);
	count_points(cal);
	if (r >= 0 && cache)
		cp_calibration_store_cache(opts, cal, cache);
	cp_cache_free(&own);
	cal->elapsed_ns = cp_now_ns() - e.start_ns;
	return r;
}
