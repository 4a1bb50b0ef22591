/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The files of one run (lib/apply-files.c), with a /proc/crypto fixture and
 * files in a temporary directory: each read once, the cache written once,
 * the state twice with steps (before the first change, after the last),
 * once without, never by a plan. The kernel's part (the steps themselves)
 * is not run: each step is taken as done.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "apply-files.h"
#include "apply.h"
#include "fileio-internal.h"
#include "macro.h"
#include "policy-fixture.h"
#include "proc-fixture.h"
#include "tap.h"

static char state_path[256], cache_path[256];

struct file_counts {
	int state_reads, state_writes, cache_reads, cache_writes;
};
static struct file_counts counted;

static void count_file(enum cp_file_op op, const char *path)
{
	if (strcmp(path, state_path) == 0)
		op == CP_FILE_READ ? counted.state_reads++ : counted.state_writes++;
	else if (strcmp(path, cache_path) == 0)
		op == CP_FILE_READ ? counted.cache_reads++ : counted.cache_writes++;
}

static void start_counting(void)
{
	counted = (struct file_counts){};
	cp_file_observer = count_file;
}

/* The counts so far, as "state R/W, cache R/W". */
static const char *counts_text(void)
{
	static char text[64];

	snprintf(text, sizeof(text), "state %d/%d, cache %d/%d", counted.state_reads,
		 counted.state_writes, counted.cache_reads, counted.cache_writes);
	return text;
}

/* The state file as the test reads it: not counted. */
static void peek_state(struct cp_state *state)
{
	cp_file_observer = NULL;
	if (cp_state_load(state_path, state) < 0)
		abort();
	cp_file_observer = count_file;
}

/* Pins for the generic drivers and aesni's: many steps without calibration. */
static struct cp_policy *pins_policy(void)
{
	return policy_from("[Policy]\nCalibrate = never\n"
			   "[Driver *-generic]\nPriority = 41\n"
			   "[Driver *aesni*]\nPriority = 43\n");
}

/* An earlier run's files: a state and a cache that both exist and parse. */
static void write_earlier_files(void)
{
	struct cp_state state;
	struct cp_cache cache = {};

	cp_state_init(&state);
	state.checked_at = 1;
	if (cp_state_save(state_path, &state) < 0 || cp_cache_save(cache_path, &cache) < 0)
		abort();
	cp_state_free(&state);
}

static size_t count_results(const struct cp_state_apply *rec, enum cp_step_result result)
{
	size_t n = 0;

	for (size_t i = 0; i < rec->n_steps; i++)
		n += rec->steps[i].result == result;
	return n;
}

/* What is on disk before the first change: the originals and the plan, every step pending. */
static void check_write_ahead(const struct cp_apply_result *res)
{
	_cleanup_(cp_state_free) struct cp_state state;
	bool originals = true;

	peek_state(&state);
	ok(state.last_apply && state.last_apply->n_steps == res->n_steps &&
	       count_results(state.last_apply, CP_STEP_PENDING) == res->n_steps &&
	       state.last_apply->finished_at == 0,
	   "on disk before the first change: the plan, every step pending, not finished");
	for (size_t i = 0; i < res->n_steps; i++)
		originals = originals && cp_state_find(&state, res->steps[i].driver);
	ok(originals, "and the original of every driver a step changes");
}

static void check_finished(const struct cp_apply_result *res)
{
	_cleanup_(cp_state_free) struct cp_state state;

	peek_state(&state);
	ok(state.last_apply && count_results(state.last_apply, CP_STEP_DONE) == res->n_steps &&
	       state.last_apply->finished_at > 0,
	   "on disk after the last step: every step done, finished");
}

/* What apply.c does around the kernel's part: each step taken as done. */
static void apply_without_kernel(struct cp_apply_files *run)
{
	for (size_t i = 0; i < run->result->n_steps; i++) {
		run->result->steps[i].applied = true;
		cp_apply_files_step_done(run, i);
	}
	cp_apply_files_steps_finished(run);
}

/* The end of cp_apply_run: the cache, then the state's last write. */
static void end_run(struct cp_apply_files *run)
{
	cp_apply_files_save_cache(run);
	cp_apply_files_record_finish(run);
}

/* A caller's part of the last write: a member, and what the run had said of the cache by then. */
struct hook_seen {
	int calls, defaults_error;
};

static void add_member(const struct cp_apply_result *result, struct cp_state *state, void *userdata)
{
	struct hook_seen *seen = userdata;

	seen->calls++;
	seen->defaults_error = result->defaults_error;
	if (!state->doc)
		state->doc = json_object_new_object();
	json_object_object_add(state->doc, "caller", json_object_new_int(seen->calls));
}

/* A run over the earlier files, counted from its loading: planned (0) or not. */
static int counted_run(struct cp_apply_files *run, const struct cp_apply_options *opts,
		       const struct cp_policy *policy, struct cp_apply_result *res)
{
	write_earlier_files();
	start_counting();
	cp_apply_files_load(run, opts, policy, res);
	cp_apply_files_load_state(run);
	return cp_apply_files_plan(run);
}

static void test_apply(const struct cp_inventory *inv)
{
	_cleanup_(cp_policy_freep) struct cp_policy *policy = pins_policy();
	struct cp_apply_options opts = {.state_path = state_path, .cache_path = cache_path};
	struct cp_apply_result res = {.inventory = *inv};
	_cleanup_(cp_apply_files_free) struct cp_apply_files run;

	is_int(counted_run(&run, &opts, policy, &res), 0, "apply: planned");
	ok(res.n_steps >= 10, "with many steps (%zu)", res.n_steps);
	is_int(cp_apply_files_record_start(&run), 0, "recorded before the first change");
	is_str(counts_text(), "state 1/1, cache 1/0",
	       "apply: the write-ahead record, nothing else");
	check_write_ahead(&res);
	apply_without_kernel(&run);
	is_str(counts_text(), "state 1/1, cache 1/0", "the steps: nothing written between");
	end_run(&run);
	is_str(counts_text(), "state 1/2, cache 1/1",
	       "apply: each file read once, the state written before and after, the cache once");
	check_finished(&res);
	is_int(res.n_changed, res.n_steps, "every step counted as changed");
	is_int(run.cache.n_defaults, res.n_steps, "the cache took the defaults of the originals");
	is_int(res.state_error, 0, "no state error");
	res.inventory = (struct cp_inventory){};
	cp_apply_result_free(&res);
}

/* The calibration of --cached-only: aes-generic's figure missing from the cache. */
static void calibration_lacking_aes(struct cp_calibration *cal)
{
	struct cp_measured *m = calloc(1, sizeof(*m));

	if (!m || !(m->points = calloc(1, sizeof(*m->points))))
		abort();
	cp_strscpy(m->name, sizeof(m->name), "aes");
	cp_strscpy(m->driver, sizeof(m->driver), "aes-generic");
	m->n_points = 1;
	m->points[0] =
	    (struct cp_point){.size = 4096, .depth = 1, .verdict = CP_VERDICT_UNMEASURED};
	*cal = (struct cp_calibration){.measured = m, .n_measured = 1, .n_unmeasured = 1};
}

static bool has_step_of(const struct cp_apply_result *res, const char *name)
{
	for (size_t i = 0; i < res->n_steps; i++)
		if (strcmp(res->steps[i].name, name) == 0)
			return true;
	return false;
}

/*
 * apply --cached-only: a name whose figures the cache lacks keeps the
 * kernel's order, the others are applied, and the record says which was
 * left out.
 */
static void test_cached_only(const struct cp_inventory *inv)
{
	_cleanup_(cp_policy_freep) struct cp_policy *policy = pins_policy();
	struct cp_apply_options opts = {
	    .state_path = state_path, .cache_path = cache_path, .cached_only = true};
	struct cp_apply_result res = {.inventory = *inv};
	_cleanup_(cp_apply_files_free) struct cp_apply_files run;
	_cleanup_(cp_state_free) struct cp_state state;
	size_t n_all;

	write_earlier_files();
	cp_apply_files_load(&run, &(struct cp_apply_options){.dry_run = true, .cache_path = ""},
			    policy, &res);
	cp_apply_files_load_state(&run);
	if (cp_apply_files_plan(&run) < 0)
		abort();
	ok(has_step_of(&res, "aes"), "without --cached-only, aes has steps");
	n_all = res.n_steps;
	res.inventory = (struct cp_inventory){};
	cp_apply_result_free(&res);
	cp_apply_files_free(&run);

	res = (struct cp_apply_result){.inventory = *inv};
	calibration_lacking_aes(&res.calibration);
	cp_apply_files_load(&run, &opts, policy, &res);
	cp_apply_files_load_state(&run);
	is_int(cp_apply_files_plan(&run), 0, "--cached-only: planned");
	ok(res.n_left_out == 1 && strcmp(res.left_out[0], "aes") == 0, "aes left out");
	ok(!has_step_of(&res, "aes"), "none of its steps selected");
	ok(res.n_steps > 0 && res.n_steps < n_all, "the other names' steps are (%zu of %zu)",
	   res.n_steps, n_all);
	is_int(cp_apply_files_record_start(&run), 0, "recorded");
	apply_without_kernel(&run);
	end_run(&run);
	peek_state(&state);
	ok(state.last_apply && state.last_apply->n_left_out == 1 &&
	       strcmp(state.last_apply->left_out[0], "aes") == 0,
	   "the state says which name was left out");
	res.inventory = (struct cp_inventory){};
	cp_apply_result_free(&res);
}

static void test_dry_run(const struct cp_inventory *inv)
{
	_cleanup_(cp_policy_freep) struct cp_policy *policy = pins_policy();
	struct cp_apply_options opts = {
	    .dry_run = true, .state_path = state_path, .cache_path = cache_path};
	struct cp_apply_result res = {.inventory = *inv};
	_cleanup_(cp_apply_files_free) struct cp_apply_files run;

	is_int(counted_run(&run, &opts, policy, &res), 0, "plan: planned");
	end_run(&run);
	is_str(counts_text(), "state 1/0, cache 1/0", "plan: each file read once, nothing written");
	res.inventory = (struct cp_inventory){};
	cp_apply_result_free(&res);
}

/* Give each driver the priority the plan wants: the next plan has nothing to change. */
static void settle(struct cp_inventory *inv)
{
	_cleanup_(cp_policy_freep) struct cp_policy *policy = pins_policy();
	struct cp_apply_options opts = {
	    .dry_run = true, .state_path = state_path, .cache_path = ""};
	struct cp_apply_result res = {.inventory = *inv};
	_cleanup_(cp_apply_files_free) struct cp_apply_files run;

	cp_apply_files_load(&run, &opts, policy, &res);
	cp_apply_files_load_state(&run);
	if (cp_apply_files_plan(&run) < 0)
		abort();
	for (size_t i = 0; i < res.n_steps; i++) {
		struct cp_alg *alg =
		    (struct cp_alg *) cp_inventory_find_driver(inv, res.steps[i].driver);

		alg->priority = res.steps[i].new_priority;
	}
	res.inventory = (struct cp_inventory){};
	cp_apply_result_free(&res);
}

/* The last apply's winners, recorded by a run with nothing to change: aes-aesni at 43 wins. */
static void check_winners_recorded(void)
{
	_cleanup_(cp_state_free) struct cp_state state;
	const struct cp_winners *w;

	peek_state(&state);
	ok(state.last_apply && state.last_apply->winners_recorded,
	   "no steps: the last apply's winners recorded again");
	w = state.last_apply ? cp_state_apply_find_winners(state.last_apply, "aes") : NULL;
	ok(w && streq(w->driver[CP_CALLER_ANY], "aes-aesni"), "aes: aes-aesni (%s)",
	   w ? w->driver[CP_CALLER_ANY] : "none");
}

static void test_nothing_to_change(struct cp_inventory *inv)
{
	_cleanup_(cp_policy_freep) struct cp_policy *policy = pins_policy();
	struct cp_apply_options opts = {.state_path = state_path, .cache_path = cache_path};
	struct cp_apply_result res = {.inventory = *inv};
	_cleanup_(cp_apply_files_free) struct cp_apply_files run;

	settle(inv);
	res.inventory = *inv;
	is_int(counted_run(&run, &opts, policy, &res), 0, "settled: planned");
	is_int(res.n_steps, 0, "nothing to change");
	/* An earlier apply's record, of a cryptoprio that kept no winners. */
	cp_state_set_last_apply(&run.state, cp_state_apply_new());
	is_int(cp_apply_files_record_start(&run), 0, "recorded");
	is_str(counts_text(), "state 1/0, cache 1/0", "no steps: nothing written ahead");
	end_run(&run);
	is_str(counts_text(), "state 1/1, cache 1/0",
	       "no steps: the state written once, not the cache");
	check_winners_recorded();
	res.inventory = (struct cp_inventory){};
	cp_apply_result_free(&res);
}

/*
 * /var not writable yet: the defaults are handed back, the state written as
 * ever, with the caller's part, which knew that the cache was not written.
 */
static void test_cache_unwritable(const struct cp_inventory *inv, const char *dir)
{
	_cleanup_(cp_policy_freep) struct cp_policy *policy = pins_policy();
	struct hook_seen seen = {};
	struct cp_apply_options opts = {.state_path = state_path,
					.cache_path = cache_path,
					.before_final_write = add_member,
					.userdata = &seen};
	_cleanup_(cp_state_free) struct cp_state on_disk;
	json_object *member;
	struct cp_apply_result res = {.inventory = *inv};
	_cleanup_(cp_apply_files_free) struct cp_apply_files run;
	char blocker[200];
	FILE *f;

	snprintf(blocker, sizeof(blocker), "%s/not-a-dir", dir);
	snprintf(cache_path, sizeof(cache_path), "%s/calibration.json", blocker);
	f = fopen(blocker, "we");
	if (!f)
		abort();
	fclose(f);
	unlink(state_path);
	start_counting();
	cp_apply_files_load(&run, &opts, policy, &res);
	cp_apply_files_load_state(&run);
	is_int(run.cache_error, -ENOTDIR, "unreadable cache: its error kept for the warning");
	ok(cp_apply_files_plan(&run) == 0 && cp_apply_files_record_start(&run) == 0,
	   "planned and recorded");
	apply_without_kernel(&run);
	is_int(seen.calls, 0, "the caller's hook: not before the last write");
	end_run(&run);
	is_str(counts_text(), "state 1/2, cache 1/1", "the cache tried once");
	is_int(seen.calls, 1, "the caller's hook: called once");
	is_int(seen.defaults_error, -ENOTDIR, "after the cache's write: it knew it failed");
	peek_state(&on_disk);
	ok(on_disk.doc && json_object_object_get_ex(on_disk.doc, "caller", &member) &&
	       json_object_get_int(member) == 1,
	   "what it added is in the state's last write");
	is_int(res.defaults_error, -ENOTDIR, "its error in defaults_error");
	is_int(res.defaults_unsaved.n_defaults, res.n_steps, "the defaults in defaults_unsaved");
	ok(res.calibration.cache_warning[0] == '\0', "no calibration: no cache warning");
	res.inventory = (struct cp_inventory){};
	cp_apply_result_free(&res);
	unlink(blocker);
}

/* A state that cannot be read: apply stops before writing anything. */
static void test_state_unreadable(const struct cp_inventory *inv, const char *dir)
{
	_cleanup_(cp_policy_freep) struct cp_policy *policy = pins_policy();
	struct cp_apply_options opts = {.state_path = state_path, .cache_path = ""};
	struct cp_apply_result res = {.inventory = *inv};
	_cleanup_(cp_apply_files_free) struct cp_apply_files run;
	char saved_path[sizeof(state_path)];

	memcpy(saved_path, state_path, sizeof(saved_path));
	snprintf(state_path, sizeof(state_path), "%s/state-dir", dir);
	if (mkdir(state_path, 0755) < 0)
		abort();
	start_counting();
	cp_apply_files_load(&run, &opts, policy, &res);
	cp_apply_files_load_state(&run);
	is_int(cp_apply_files_plan(&run), 0, "planned without it");
	is_int(cp_apply_files_record_start(&run), -EISDIR, "apply stops with its error");
	is_str(counts_text(), "state 1/0, cache 0/0", "nothing written");
	res.inventory = (struct cp_inventory){};
	cp_apply_result_free(&res);
	rmdir(state_path);
	memcpy(state_path, saved_path, sizeof(state_path));
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

int main(void)
{
	char dir[] = "/tmp/cryptoprio-test-apply-files.XXXXXX";
	struct cp_inventory inv;

	if (!mkdtemp(dir))
		return 1;
	snprintf(state_path, sizeof(state_path), "%s/run/state.json", dir);
	snprintf(cache_path, sizeof(cache_path), "%s/var/calibration.json", dir);
	load_fixture("proc-crypto-6.1.txt", &inv);
	test_apply(&inv);
	test_dry_run(&inv);
	test_cached_only(&inv);
	test_cache_unwritable(&inv, dir);
	test_state_unreadable(&inv, dir);
	test_nothing_to_change(&inv); /* last: it gives the drivers their planned priorities */
	cp_file_observer = NULL;
	cp_inventory_free(&inv);
	(void) nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
	return done_testing();
}
