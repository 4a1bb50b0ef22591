/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * set and reset (lib/set-reset.c) without a kernel: a /proc/crypto fixture
 * as the inventory, a fake crypto_user that logs each request, the state
 * and the cache in a temporary directory. What is checked: the requests
 * and their order (the originals first, then the created instances,
 * outermost first), the outcomes, what the state file keeps, and each
 * file read once and written at most once.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fileio-internal.h"
#include "macro.h"
#include "proc-fixture.h"
#include "set-reset-internal.h"
#include "tap.h"

#define VIRTIO "virtio_crypto_aes_cbc" /* priority 150 in the fixture */
#define AESNI  "cbc-aes-aesni"	       /* priority 400 */
#define INNER  "authenc(hmac(sha256-generic)," VIRTIO ")"
#define OUTER  "echainiv(" INNER ")"
#define SHORT  "ctr(aes-generic)"

static char state_path[256], cache_path[256];
static struct cp_sr_env env = {.state_path = state_path, .cache_path = cache_path};

/* ---- the files, counted ---- */

static int state_reads, state_writes, cache_reads, cache_writes;

static void count_file(enum cp_file_op op, const char *path)
{
	if (strcmp(path, state_path) == 0)
		op == CP_FILE_READ ? state_reads++ : state_writes++;
	else if (strcmp(path, cache_path) == 0)
		op == CP_FILE_READ ? cache_reads++ : cache_writes++;
}

static void start_counting(void)
{
	state_reads = state_writes = cache_reads = cache_writes = 0;
	cp_file_observer = count_file;
}

/* The counts so far, as "state R/W, cache R/W". */
static const char *counts_text(void)
{
	static char text[64];

	snprintf(text, sizeof(text), "state %d/%d, cache %d/%d", state_reads, state_writes,
		 cache_reads, cache_writes);
	return text;
}

/* The state file as the test reads and writes it: not counted. */
static void peek_state(struct cp_state *state)
{
	cp_file_observer = NULL;
	if (cp_state_load(state_path, state) < 0)
		abort();
}

static void poke_state(const struct cp_state *state)
{
	cp_file_observer = NULL;
	if (cp_state_save(state_path, state) < 0)
		abort();
}

/* ---- the kernel, faked ---- */

struct fake_kernel {
	struct cp_inventory *inv; /* a priority set is seen by the next run */
	char log[1024];		  /* "set DRIVER PRIORITY;" and "del DRIVER;" */
	const char *refuse;	  /* its UPDATEALG fails with EPERM */
	const char *busy;	  /* its DELALG fails with EBUSY */
	const char *gone;	  /* its DELALG fails with ENOENT */
};

static struct fake_kernel fake;

static void fake_log(const char *request)
{
	size_t len = strlen(fake.log);

	snprintf(fake.log + len, sizeof(fake.log) - len, "%s;", request);
}

static int fake_set_priority(void *data, const char *driver, uint32_t priority, char *extack)
{
	struct cp_alg *alg = (struct cp_alg *) cp_inventory_find_driver(fake.inv, driver);
	char request[128];

	snprintf(request, sizeof(request), "set %s %u", driver, priority);
	fake_log(request);
	if (fake.refuse && strcmp(driver, fake.refuse) == 0) {
		snprintf(extack, 256, "not allowed");
		return -EPERM;
	}
	if (alg)
		alg->priority = priority;
	extack[0] = '\0';
	return 0;
}

static int fake_remove(void *data, const char *driver, char *extack)
{
	char request[128];

	snprintf(request, sizeof(request), "del %s", driver);
	fake_log(request);
	extack[0] = '\0';
	if (fake.busy && strcmp(driver, fake.busy) == 0)
		return -EBUSY;
	if (fake.gone && strcmp(driver, fake.gone) == 0)
		return -ENOENT;
	return 0;
}

static void fake_reset(struct cp_inventory *inv)
{
	fake = (struct fake_kernel){.inv = inv};
}

/* ---- the transactions, on the fixture and the fake kernel ---- */

/* A transaction's files loaded, on @inv and the fake kernel, file accesses counted. */
static void open_run(struct cp_sr_run *run, struct cp_inventory *inv, struct cp_sr_files *files)
{
	start_counting();
	if (cp_sr_load(run, &env, files) < 0)
		abort();
	run->inv = inv;
	run->kernel = (struct cp_sr_kernel){fake_set_priority, fake_remove, NULL};
}

static void close_run(struct cp_sr_run *run)
{
	cp_sr_free(run);
	cp_file_observer = NULL;
}

static void run_set(struct cp_inventory *inv, const char *driver, uint32_t priority,
		    struct cp_set_result *res)
{
	struct cp_set_options opts = {.env = env, .driver = driver, .priority = priority};
	struct cp_sr_run run;

	*res = (struct cp_set_result){};
	open_run(&run, inv, &res->files);
	(void) cp_set_transact(&run, &opts, res);
	close_run(&run);
}

static void run_reset(struct cp_inventory *inv, char *const *drivers, size_t n,
		      struct cp_reset_result *res)
{
	struct cp_reset_options opts = {.env = env, .drivers = drivers, .n_drivers = n};
	struct cp_sr_run run;

	*res = (struct cp_reset_result){};
	open_run(&run, inv, &res->files);
	(void) cp_reset_transact(&run, &opts, res);
	close_run(&run);
}

static void add_created(struct cp_state *state, const char *driver)
{
	struct cp_created c = {.priority = 500};

	snprintf(c.driver, sizeof(c.driver), "%s", driver);
	snprintf(c.name, sizeof(c.name), "%s", driver);
	if (cp_state_add_created(state, &c) < 0)
		abort();
}

/* An apply's winners: cbc(aes)'s and INNER's, which reset gives back, and xts(aes)'s. */
static void record_winners(struct cp_state *state)
{
	struct cp_state_apply *a = cp_state_apply_new();
	struct cp_winners w[] = {
	    {.name = "cbc(aes)", .driver = {[CP_CALLER_ANY] = AESNI}},
	    {.name = INNER, .driver = {[CP_CALLER_ANY] = INNER}},
	    {.name = "xts(aes)", .driver = {[CP_CALLER_ANY] = "xts-aes-aesni"}},
	};

	for (size_t i = 0; a && i < ARRAY_SIZE(w); i++)
		if (cp_state_apply_set_winners(a, &w[i]) < 0)
			abort();
	if (!a)
		abort();
	a->winners_recorded = true;
	cp_state_set_last_apply(state, a);
}

/* ---- the tests ---- */

static void test_removal_order(void)
{
	_cleanup_(cp_state_free) struct cp_state state;
	_cleanup_free_ size_t *order = NULL;
	static const char *const drivers[] = {"cbc(aes-x)", INNER, "ctr(aes-x)", OUTER, "a(b)"};

	cp_state_init(&state);
	for (size_t i = 0; i < ARRAY_SIZE(drivers); i++)
		add_created(&state, drivers[i]);
	order = cp_reset_removal_order(&state);
	ok(order && order[0] == 3 && order[1] == 1,
	   "removal order: the outermost instance first, then the one it is built on");
	ok(order && order[2] == 0 && order[3] == 2,
	   "names of the same length in the state's order");
	ok(order && order[4] == 4, "the shortest last");
}

static void test_set_unknown(struct cp_inventory *inv)
{
	struct cp_set_result res;

	fake_reset(inv);
	run_set(inv, "no-such-driver", 3000, &res);
	is_int(res.failure, CP_SR_NO_DRIVER, "set: an unknown driver is refused");
	is_str(fake.log, "", "without a request to the kernel");
	is_str(counts_text(), "state 1/0, cache 1/0", "and without writing a file");
	is_str(res.files.state_path, state_path, "the state path used is the one given");
}

/* The first set records the original and the default; a second keeps them. */
static void test_set(struct cp_inventory *inv)
{
	_cleanup_(cp_state_free) struct cp_state state;
	_cleanup_(cp_cache_free) struct cp_cache cache = {};
	struct cp_set_result res;
	const struct cp_original *orig;

	fake_reset(inv);
	run_set(inv, VIRTIO, 3000, &res);
	ok(res.failure == CP_SR_OK && res.error == 0, "set: done");
	is_str(fake.log, "set " VIRTIO " 3000;", "one UPDATEALG");
	ok(res.old_priority == 150 && res.new_priority == 3000 && res.original_priority == 150,
	   "150 -> 3000, the original 150");
	ok(res.original_recorded, "the original recorded now");
	is_str(counts_text(), "state 1/1, cache 1/1", "each file read once and written once");
	peek_state(&state);
	orig = cp_state_find(&state, VIRTIO);
	ok(orig && orig->priority == 150 && strcmp(orig->module, "virtio_crypto") == 0,
	   "the state file holds the original with its module");
	ok(cp_cache_load(cache_path, &cache) == 0 && cache.n_defaults == 1 &&
	       cache.defaults[0].priority == 150,
	   "the cache holds its default");

	fake_reset(inv);
	run_set(inv, VIRTIO, 2000, &res);
	ok(res.old_priority == 3000 && res.original_priority == 150 && !res.original_recorded,
	   "set again: 3000 -> 2000, the first original kept");
	is_str(counts_text(), "state 1/0, cache 1/0", "set again: nothing to write");
}

/* The original is on disk before the kernel is asked, refused or not. */
static void test_set_refused(struct cp_inventory *inv)
{
	_cleanup_(cp_state_free) struct cp_state state;
	struct cp_set_result res;

	fake_reset(inv);
	fake.refuse = AESNI;
	run_set(inv, AESNI, 500, &res);
	ok(res.failure == CP_SR_KERNEL && res.error == -EPERM, "set refused: the kernel's error");
	is_str(res.extack, "not allowed", "and its reason");
	is_str(counts_text(), "state 1/1, cache 1/1", "the original written before the request");
	peek_state(&state);
	ok(cp_state_find(&state, AESNI) && cp_state_find(&state, AESNI)->priority == 400,
	   "the state file holds it");
}

/* A DRIVER with no original nor creation recorded: nothing done, each named. */
static void test_reset_unknown(struct cp_inventory *inv)
{
	char *drivers[] = {"ecb-aes-aesni", VIRTIO, "no-such-driver"};
	struct cp_reset_result res;

	fake_reset(inv);
	run_reset(inv, drivers, ARRAY_SIZE(drivers), &res);
	is_int(res.failure, CP_SR_NOT_CHANGED, "reset: a driver cryptoprio did not change");
	ok(res.n_unknown == 2 && strcmp(res.unknown[0], "ecb-aes-aesni") == 0 &&
	       strcmp(res.unknown[1], "no-such-driver") == 0,
	   "each such driver named");
	is_str(fake.log, "", "no request to the kernel");
	is_str(counts_text(), "state 1/0, cache 1/0", "nothing written");
	cp_reset_result_free(&res);
}

/*
 * Every original, one refused (it stays, and the next is still done), one
 * not registered (forgotten); then the created instances, outermost first:
 * one removed, one held (lowered to 0, kept), one gone.
 */
static void test_reset_all(struct cp_inventory *inv)
{
	_cleanup_(cp_state_free) struct cp_state state;
	struct cp_original lost = {
	    .driver = "unloaded-driver", .module = "unloaded", .priority = 7};
	struct cp_reset_result res;

	peek_state(&state);
	add_created(&state, INNER);
	add_created(&state, SHORT);
	add_created(&state, OUTER);
	record_winners(&state);
	state.originals = reallocarray(state.originals, state.n_originals + 1, sizeof(lost));
	state.originals[state.n_originals++] = lost;
	poke_state(&state);
	fake_reset(inv);
	fake.refuse = VIRTIO;
	fake.busy = INNER;
	fake.gone = SHORT;
	run_reset(inv, NULL, 0, &res);
	is_int(res.failure, CP_SR_OK, "reset: done");
	is_str(fake.log,
	       "set " VIRTIO " 150;set " AESNI " 400;del " OUTER ";del " INNER ";set " INNER
	       " 0;del " SHORT ";",
	       "the originals, then the instances outermost first, the held one lowered");
	ok(res.n_restores == 3 && res.restores[0].outcome == CP_RESTORE_FAILED &&
	       res.restores[1].outcome == CP_RESTORE_RESTORED &&
	       res.restores[2].outcome == CP_RESTORE_FORGOTTEN && !res.restores[2].registered,
	   "restores: failed, restored, forgotten");
	ok(res.restores[0].error == -EPERM && strcmp(res.restores[0].extack, "not allowed") == 0 &&
	       res.restores[0].old_priority == 2000,
	   "the refusal with the kernel's reason");
	ok(res.n_removals == 3 && res.removals[0].outcome == CP_REMOVAL_REMOVED &&
	       res.removals[1].outcome == CP_REMOVAL_IN_USE && res.removals[1].busy &&
	       res.removals[2].outcome == CP_REMOVAL_GONE,
	   "removals: removed, in use, gone");
	is_int(res.n_failed, 1, "one failure");
	is_str(counts_text(), "state 1/1, cache 1/0", "the state read once and written once");
	cp_state_free(&state);
	peek_state(&state);
	ok(state.n_originals == 1 && cp_state_find(&state, VIRTIO), "the refused original kept");
	ok(state.n_created == 1 && cp_state_find_created(&state, INNER) &&
	       cp_state_find_created(&state, INNER)->in_use &&
	       cp_state_find_created(&state, INNER)->priority == 0,
	   "the held instance kept, in use at priority 0");
	ok(state.last_apply && !cp_state_apply_find_winners(state.last_apply, "cbc(aes)") &&
	       !cp_state_apply_find_winners(state.last_apply, INNER) &&
	       cp_state_apply_find_winners(state.last_apply, "xts(aes)"),
	   "the winners of the names given back forgotten, not the others'");
	cp_reset_result_free(&res);
}

/* DRIVERs: only their original or creation. */
static void test_reset_named(struct cp_inventory *inv)
{
	_cleanup_(cp_state_free) struct cp_state state;
	char *original[] = {VIRTIO}, *created[] = {INNER};
	struct cp_reset_result res;

	fake_reset(inv);
	run_reset(inv, original, 1, &res);
	is_str(fake.log, "set " VIRTIO " 150;", "reset DRIVER: its original only");
	ok(res.n_restores == 1 && res.n_removals == 0 && res.n_failed == 0, "restored");
	cp_reset_result_free(&res);
	fake_reset(inv);
	run_reset(inv, created, 1, &res);
	is_str(fake.log, "del " INNER ";", "reset INSTANCE: removed once free");
	peek_state(&state);
	ok(state.n_originals == 0 && state.n_created == 0, "the state file is empty");
	cp_reset_result_free(&res);
}

/* /run lost after a set: the default in the cache is the original. */
static void test_state_lost(struct cp_inventory *inv)
{
	struct cp_set_result set;
	struct cp_reset_result res;

	fake_reset(inv);
	run_set(inv, VIRTIO, 999, &set);
	ok(set.failure == CP_SR_OK && set.old_priority == 150, "set once more");
	unlink(state_path);
	fake_reset(inv);
	run_reset(inv, NULL, 0, &res);
	is_int(res.n_recovered, 1, "state lost: one original recovered from the cache");
	is_str(fake.log, "set " VIRTIO " 150;", "and restored to its default");
	is_str(counts_text(), "state 1/1, cache 1/0", "each file read once, the state written");
	cp_reset_result_free(&res);
}

/* A state file that does not parse: moved aside, never fatal. */
static void test_state_corrupt(struct cp_inventory *inv)
{
	struct cp_reset_result res;
	char aside[300];
	FILE *f = fopen(state_path, "we");

	if (!f)
		abort();
	fputs("{\"version\":", f);
	fclose(f);
	fake_reset(inv);
	run_reset(inv, NULL, 0, &res);
	ok(res.files.state_salvaged && res.failure == CP_SR_OK, "corrupt state: salvaged");
	snprintf(aside, sizeof(aside), "%s.corrupt", state_path);
	ok(access(aside, F_OK) == 0, "moved aside to .corrupt");
	is_str(fake.log, "", "nothing to reset");
	cp_reset_result_free(&res);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

int main(void)
{
	char dir[] = "/tmp/cryptoprio-test-set-reset.XXXXXX";
	struct cp_inventory inv;

	if (!mkdtemp(dir))
		return 1;
	snprintf(state_path, sizeof(state_path), "%s/run/state.json", dir);
	snprintf(cache_path, sizeof(cache_path), "%s/var/calibration.json", dir);
	load_fixture("proc-crypto-6.1.txt", &inv);
	test_removal_order();
	test_set_unknown(&inv);
	test_set(&inv);
	test_set_refused(&inv);
	test_reset_unknown(&inv);
	test_reset_all(&inv);
	test_reset_named(&inv);
	test_state_lost(&inv);
	test_state_corrupt(&inv);
	cp_inventory_free(&inv);
	(void) nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
	return done_testing();
}
