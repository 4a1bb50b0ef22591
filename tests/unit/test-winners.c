/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Each caller's winner of a name and its drift (lib/winners.c), and the
 * winners an apply records (lib/apply-record.c): cbc(aes) of a machine
 * with aesni (synchronous), an asynchronous engine that allocates memory
 * per request, and aes-generic's instance.
 */
#include <string.h>

#include "apply-record.h"
#include "macro.h"
#include "state.h"
#include "tap.h"
#include "winners.h"

#define TESTED CP_ALG_TESTED

static struct cp_alg *add(struct cp_inventory *inv, const char *name, const char *driver,
			  uint32_t priority, uint32_t flags)
{
	struct cp_alg a = {.priority = priority, .flags = flags};

	cp_strscpy(a.name, sizeof(a.name), name);
	cp_strscpy(a.driver, sizeof(a.driver), driver);
	cp_strscpy(a.type, sizeof(a.type), "skcipher");
	if (cp_inventory_add(inv, &a) < 0)
		abort();
	return &inv->algs[inv->n_algs - 1];
}

/* cbc(aes) as an apply of "the CPU first" leaves it; xts(aes) with aesni alone. */
static void machine(struct cp_inventory *inv)
{
	*inv = (struct cp_inventory){};
	add(inv, "cbc(aes)", "cbc-aes-aesni", 400, TESTED);
	add(inv, "cbc(aes)", "virtio_crypto_aes_cbc", 399,
	    TESTED | CP_ALG_ASYNC | CP_ALG_ALLOCATES_MEMORY);
	add(inv, "cbc(aes)", "cbc(aes-generic)", 100, TESTED);
	add(inv, "cbc(aes)", "__cbc-aes-aesni", 500, TESTED | CP_ALG_INTERNAL);
	add(inv, "xts(aes)", "xts-aes-aesni", 401, TESTED);
}

static struct cp_alg *find(struct cp_inventory *inv, const char *driver)
{
	return (struct cp_alg *) cp_inventory_find_driver(inv, driver);
}

static void test_callers(void)
{
	enum cp_caller c;

	for (size_t i = 0; i < _CP_CALLER_MAX; i++)
		ok(cp_caller_from_string(cp_caller_to_string((enum cp_caller) i), &c) == 0 &&
		       c == i,
		   "caller %s read back", cp_caller_to_string((enum cp_caller) i));
	ok(cp_caller_from_string("sync", &c) < 0, "an unknown caller refused");
	ok(cp_caller_to_string(_CP_CALLER_MAX) == NULL, "out of range: NULL");
	is_int(cp_caller_refuses(CP_CALLER_BOTH), CP_ALG_ASYNC | CP_ALG_ALLOCATES_MEMORY,
	       "both refuse async and allocating ones");
	is_int(cp_caller_refuses(CP_CALLER_CPU_ONLY),
	       CP_ALG_ASYNC | CP_ALG_ALLOCATES_MEMORY | CP_ALG_KERN_DRIVER_ONLY,
	       "cpu-only refuses the engines too");
	ok(cp_caller_recorded(CP_CALLER_BOTH) && !cp_caller_recorded(CP_CALLER_CPU_ONLY) &&
	       !cp_caller_recorded(_CP_CALLER_MAX),
	   "apply records all callers but cpu-only");
}

/* The callers an apply records: those status compares. */
static size_t recorded_callers(void)
{
	size_t n = 0;

	for (size_t i = 0; i < _CP_CALLER_MAX; i++)
		n += cp_caller_recorded((enum cp_caller) i);
	return n;
}

static void test_winner_for(void)
{
	_cleanup_(cp_inventory_free) struct cp_inventory inv;
	struct cp_winners w;

	machine(&inv);
	find(&inv, "virtio_crypto_aes_cbc")->priority = 3000;
	is_str(cp_inventory_winner_for(&inv, "cbc(aes)", CP_CALLER_ANY)->driver,
	       "virtio_crypto_aes_cbc", "any caller: the engine at 3000");
	is_str(cp_inventory_winner_for(&inv, "cbc(aes)", CP_CALLER_SYNCHRONOUS)->driver,
	       "cbc-aes-aesni", "a synchronous caller: not the async engine");
	is_str(cp_inventory_winner_for(&inv, "cbc(aes)", CP_CALLER_NON_ALLOCATING)->driver,
	       "cbc-aes-aesni", "dm-crypt: not the engine that allocates");
	ok(cp_inventory_winner_for(&inv, "ecb(aes)", CP_CALLER_ANY) == NULL, "no such name: none");
	ok(cp_winners_of(&inv, "cbc(aes)", &w), "cbc(aes) has winners");
	ok(streq(w.name, "cbc(aes)") && streq(w.driver[CP_CALLER_ANY], "virtio_crypto_aes_cbc") &&
	       streq(w.driver[CP_CALLER_BOTH], "cbc-aes-aesni"),
	   "each caller's, never the internal one at 500");
	ok(!w.driver[CP_CALLER_CPU_ONLY][0], "none for cpu-only, which is not recorded");
	find(&inv, "cbc-aes-aesni")->flags |= CP_ALG_ASYNC;
	find(&inv, "cbc(aes-generic)")->flags &= ~TESTED;
	ok(cp_winners_of(&inv, "cbc(aes)", &w) && !w.driver[CP_CALLER_SYNCHRONOUS][0],
	   "no synchronous one that is tested: none for that caller");
}

static void test_drift(void)
{
	_cleanup_(cp_inventory_free) struct cp_inventory inv = {};
	struct cp_winner_drift d[2 * _CP_CALLER_MAX];
	struct cp_winners w[2];

	machine(&inv);
	ok(cp_winners_of(&inv, "cbc(aes)", &w[0]) && cp_winners_of(&inv, "xts(aes)", &w[1]),
	   "winners recorded");
	is_int(cp_winners_drift(w, 2, &inv, d), 0, "the kernel as recorded: no drift");

	find(&inv, "virtio_crypto_aes_cbc")->priority = 123;
	find(&inv, "cbc(aes-generic)")->priority = 300;
	is_int(cp_winners_drift(w, 2, &inv, d), 0,
	       "priorities of others moved, none above a winner: no drift");

	find(&inv, "cbc-aes-aesni")->priority = 123;
	is_int(cp_winners_drift(w, 2, &inv, d), recorded_callers(),
	       "another tool lowered aesni below aes-generic: every caller moved");
	ok(d[0].caller == CP_CALLER_ANY && streq(d[0].name, "cbc(aes)") &&
	       streq(d[0].planned, "cbc-aes-aesni") && streq(d[0].now, "cbc(aes-generic)"),
	   "the line: name, caller, planned, now");

	find(&inv, "cbc(aes-generic)")->priority = 100;
	find(&inv, "virtio_crypto_aes_cbc")->priority = 399;
	is_int(cp_winners_drift(w, 2, &inv, d), 1,
	       "aesni at 123 under the engine at 399: only the callers that take it moved");
	ok(d[0].caller == CP_CALLER_ANY && streq(d[0].now, "virtio_crypto_aes_cbc"),
	   "any caller gets the engine now");
	is_int(cp_winners_drift(w, 2, &inv, NULL), 1, "counted without the lines");

	inv.source = CP_SOURCE_PROC_CRYPTO;
	find(&inv, "virtio_crypto_aes_cbc")->priority = 100;
	find(&inv, "cbc(aes-generic)")->priority = 124;
	is_int(cp_winners_drift(w, 2, &inv, d), 2,
	       "from /proc/crypto: the callers that refuse allocating ones are not told");
	inv.source = CP_SOURCE_CRYPTO_USER;

	find(&inv, "cbc(aes-generic)")->priority = 123;
	is_int(cp_winners_drift(w, 2, &inv, d), 0, "at the winner's priority: not told, no drift");

	find(&inv, "cbc(aes-generic)")->priority = 900;
	cp_strscpy(find(&inv, "cbc-aes-aesni")->driver, CP_NAME_MAX, "cbc-aes-aesni-gone");
	is_int(cp_winners_drift(w, 2, &inv, d), 0,
	       "the driver recorded no longer registered: no drift");
}

static void test_record_and_carry(void)
{
	_cleanup_(cp_inventory_free) struct cp_inventory inv = {};
	_cleanup_(cp_state_apply_freep) struct cp_state_apply *old = cp_state_apply_new();
	_cleanup_(cp_state_apply_freep) struct cp_state_apply *rec = cp_state_apply_new();
	char *cbc[] = {"cbc(aes)"}, *both[] = {"cbc(aes)", "xts(aes)"}, *none[] = {"ecb(aes)"};

	machine(&inv);
	is_int(cp_apply_record_winners(old, &inv, both, 2), 0, "an apply recorded two names");
	ok(old->winners_recorded && old->n_winners == 2, "both recorded");
	find(&inv, "cbc-aes-aesni")->priority = 1;
	is_int(cp_apply_carry_winners(rec, old, cbc, 1), 0, "a run planning cbc(aes) only");
	ok(rec->winners_recorded && rec->n_winners == 1 &&
	       cp_state_apply_find_winners(rec, "xts(aes)"),
	   "keeps xts(aes)'s, not cbc(aes)'s");
	is_int(cp_apply_record_winners(rec, &inv, cbc, 1), 0, "then records cbc(aes)'s");
	is_str(cp_state_apply_find_winners(rec, "cbc(aes)")->driver[CP_CALLER_ANY],
	       "virtio_crypto_aes_cbc", "as the kernel has them now");
	is_int(cp_apply_record_winners(rec, &inv, none, 1), 0, "a name with no winner");
	is_int(rec->n_winners, 2, "is not recorded");
	is_int(cp_state_apply_forget_winners(rec, "cbc(aes)"), 1, "a name forgotten (reset)");
	ok(!cp_state_apply_find_winners(rec, "cbc(aes)") && rec->n_winners == 1, "gone");
}

int main(void)
{
	test_callers();
	test_winner_for();
	test_drift();
	test_record_and_carry();
	return done_testing();
}
