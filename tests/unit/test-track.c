/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's bookkeeping: what a module event brings, untested drivers, STATUS=, patterns. */
#include <errno.h>
#include <fnmatch.h>
#include <string.h>
#include <syslog.h>

#include "daemon-state.h"
#include "tap.h"
#include "track.h"
#include "uevent.h"

static void add(struct cp_inventory *inv, const char *name, const char *driver, const char *module,
		uint32_t prio, uint32_t flags)
{
	struct cp_alg a = {.priority = prio, .flags = flags};

	snprintf(a.name, sizeof(a.name), "%s", name);
	snprintf(a.driver, sizeof(a.driver), "%s", driver);
	snprintf(a.module, sizeof(a.module), "%s", module);
	(void) cp_inventory_add(inv, &a);
}

#define T CP_ALG_TESTED

static void test_select(void)
{
	struct cp_inventory inv = {};
	struct cp_names known = {}, modules = {}, ready = {}, waiting = {};

	add(&inv, "cbc(aes)", "cbc-aes-aesni", "aesni_intel", 400, T);
	add(&inv, "cbc(aes)", "cbc(aes-generic)", "kernel", 100, T);
	add(&inv, "__cbc(aes)", "__cbc-aes-aesni", "aesni_intel", 400, T | CP_ALG_INTERNAL);
	is_int(cp_track_known(&inv, &known), 0, "known from the first run");
	is_int(known.n, 1, "internal and template instances are not tracked");
	ok(cp_names_contains(&known, "cbc-aes-aesni"), "aesni known");

	is_int(cp_track_select(&inv, &known, &modules, &ready, &waiting), 0,
	       "nothing new without events");
	add(&inv, "cbc(aes)", "virtio_crypto_aes_cbc", "virtio_crypto", 150, T | CP_ALG_ASYNC);
	add(&inv, "authenc(hmac(sha256),cbc(aes))", "authenc(hmac(sha256-avx2),cbc-aes-aesni)",
	    "authenc", 4001, T);
	is_int(cp_track_select(&inv, &known, &modules, &ready, &waiting), 1,
	       "a new implementation is selected");
	ok(ready.n == 1 && strcmp(ready.v[0], "virtio_crypto_aes_cbc") == 0, "it is virtio");
	is_int(waiting.n, 0, "nothing waits");

	/* Reloaded module: already known, but its module had an event. */
	cp_names_clear(&ready);
	(void) cp_track_known(&inv, &known);
	is_int(cp_track_select(&inv, &known, &modules, &ready, &waiting), 0,
	       "known drivers without an event: nothing");
	(void) cp_names_add(&modules, "virtio_crypto");
	is_int(cp_track_select(&inv, &known, &modules, &ready, &waiting), 1,
	       "a known driver of a reloaded module is selected again");

	/* Self-test still running: waits, not planned. */
	cp_names_clear(&ready);
	add(&inv, "ctr(aes)", "virtio_crypto_aes_ctr", "virtio_crypto", 150, CP_ALG_ASYNC);
	is_int(cp_track_select(&inv, &known, &modules, &ready, &waiting), 1,
	       "only the tested one is ready");
	ok(waiting.n == 1 && strcmp(waiting.v[0], "virtio_crypto_aes_ctr") == 0,
	   "the untested one waits");
	is_int(cp_track_untested(&inv, &waiting), 1, "untested counted");
	(void) cp_track_known(&inv, &known);
	ok(!cp_names_contains(&known, "virtio_crypto_aes_ctr"), "an untested driver is not known");
	inv.algs[inv.n_algs - 1].flags |= T;
	cp_names_clear(&ready);
	cp_names_clear(&modules);
	cp_names_clear(&waiting);
	is_int(cp_track_select(&inv, &known, &modules, &ready, &waiting), 1,
	       "once tested it is selected without a new event");
	ok(ready.n == 1 && strcmp(ready.v[0], "virtio_crypto_aes_ctr") == 0, "the ctr driver");

	/* A larval beside the registered entry (self-test running on >= 6.12): not ready. */
	add(&inv, "cbc(aes)", "virtio_crypto_aes_cbc", "virtio_crypto", 150, T);
	snprintf(inv.algs[inv.n_algs - 1].type, CP_NAME_MAX, "larval");
	ok(!cp_track_driver_ready(&inv, "virtio_crypto_aes_cbc"), "a larval makes it not ready");
	ok(cp_track_driver_ready(&inv, "cbc-aes-aesni"), "aesni ready");
	ok(!cp_track_driver_ready(&inv, "absent"), "an absent driver is not ready");
	cp_names_clear(&ready);
	cp_names_clear(&waiting);
	(void) cp_names_add(&modules, "virtio_crypto");
	(void) cp_track_select(&inv, &known, &modules, &ready, &waiting);
	ok(cp_names_contains(&waiting, "virtio_crypto_aes_cbc") &&
	       !cp_names_contains(&ready, "virtio_crypto_aes_cbc"),
	   "the larval's driver waits");

	cp_names_clear(&known);
	cp_names_clear(&modules);
	cp_names_clear(&ready);
	cp_names_clear(&waiting);
	cp_inventory_free(&inv);
}

static void test_patterns(void)
{
	struct cp_names d = {}, p = {};

	(void) cp_names_add(&d, "cbc(aes-generic)");
	(void) cp_names_add(&d, "weird*[x]");
	is_int(cp_names_add(&d, "weird*[x]"), 0, "a name is added once");
	is_int(cp_track_patterns(&d, &p), 0, "patterns");
	ok(p.n == 2 && p.v[2] == NULL, "NULL-terminated");
	ok(fnmatch(p.v[1], "weird*[x]", 0) == 0, "the escaped name matches itself");
	ok(fnmatch(p.v[1], "weirdo[x]", 0) != 0 && fnmatch(p.v[1], "weird*x", 0) != 0,
	   "and nothing else");
	cp_names_clear(&d);
	cp_names_clear(&p);
}

static void test_status(void)
{
	struct cp_apply_step_result steps[] = {
	    {.driver = "virtio_crypto_aes_cbc",
	     .name = "cbc(aes)",
	     .old_priority = 3000,
	     .new_priority = 149,
	     .action = CP_STEP_SET},
	    {.driver = "cbc-aes-aesni",
	     .name = "cbc(aes)",
	     .old_priority = 400,
	     .new_priority = 400,
	     .action = CP_STEP_TOUCH},
	    {.driver = "x", .name = "y", .action = CP_STEP_SET, .error = -EPERM},
	};
	struct cp_apply_result r = {.steps = steps, .n_steps = 3, .n_changed = 1, .n_failed = 1};
	char buf[256];

	r.calibration.backend = CP_BACKEND_MODULE;
	r.calibration.n_from_cache = 7;
	cp_track_status_text(&r, "start", buf, sizeof(buf));
	ok(strcmp(buf, "Policy applied (start): 1 changed, 1 failed: virtio_crypto_aes_cbc "
		       "3000->149; calibration module, 7 from cache, 0 measured") == 0,
	   "status text: %s", buf);
	/* the engine's step found its driver gone: neither changed nor failed */
	steps[0].gone = true;
	r.n_changed = r.n_failed = 0;
	r.n_gone = 1;
	cp_track_status_text(&r, "start", buf, sizeof(buf));
	ok(strcmp(buf, "Policy applied (start): 0 changed, 0 failed, 1 gone meanwhile; "
		       "calibration module, 7 from cache, 0 measured") == 0,
	   "status text, a driver gone: %s", buf);
	r.n_gone = 0;
	r.n_steps = 0;
	cp_track_status_text(&r, "module", buf, sizeof(buf));
	ok(strncmp(buf, "Policy in force (module): nothing to change;", 44) == 0, "status: %s",
	   buf);
	cp_track_status_text(&r, "module", buf, 10);
	is_int(strlen(buf), 9, "truncated, terminated");
	/* creates and removals are changes, even with no priority set */
	r.n_created = 2;
	r.n_in_use = 1;
	cp_track_status_text(&r, "start", buf, sizeof(buf));
	ok(strcmp(buf, "Policy applied (start): 0 changed, 0 failed, 2 created, 0 removed, 1 in "
		       "use (lowered, removed once free); calibration module, 7 from cache, 0 "
		       "measured") == 0,
	   "status text, instances created and one left in use: %s", buf);
}

static void test_record(void)
{
	struct cp_daemon_record a = {.pid = 42,
				     .started_at = 1000,
				     .runs = 3,
				     .last_run_failed = true},
				b;
	char *files[] = {"/etc/cryptoprio.conf"}, *wait[] = {"virtio_crypto_aes_ctr"},
	     *pending[] = {"gcm(aes)", "xts(aes)"};
	json_object *o;

	snprintf(a.last_trigger, sizeof(a.last_trigger), "module");
	snprintf(a.backend, sizeof(a.backend), "module");
	(void) cp_daemon_record_set_files(&a, files, 1);
	(void) cp_daemon_record_set_waiting(&a, wait, 1);
	(void) cp_daemon_record_set_pending(&a, pending, 2);
	o = cp_daemon_record_to_json(&a);
	is_int(cp_daemon_record_from_json(o, &b), 0, "record round trip");
	ok(b.pid == 42 && b.runs == 3 && b.n_policy_files == 1 && b.n_waiting == 1 &&
	       strcmp(b.waiting[0], "virtio_crypto_aes_ctr") == 0 &&
	       strcmp(b.last_trigger, "module") == 0,
	   "fields kept");
	ok(b.n_pending == 2 && strcmp(b.pending[1], "xts(aes)") == 0, "the names still to measure");
	ok(b.last_run_failed, "that the last run failed");
	cp_daemon_record_free(&b);
	json_object_object_del(o, "pending");
	json_object_object_del(o, "last_run_failed");
	is_int(cp_daemon_record_from_json(o, &b), 0, "a record without them (an older daemon's)");
	is_int(b.n_pending, 0, "nothing pending");
	ok(!b.last_run_failed, "no failure known");
	json_object_object_add(o, "pid", json_object_new_string("x"));
	cp_daemon_record_free(&b);
	is_int(cp_daemon_record_from_json(o, &b), -EBADMSG, "a malformed record is refused");
	json_object_put(o);
	cp_daemon_record_free(&a);
}

static void test_uevent(void)
{
	static const char add[] = "add@/module/virtio_crypto\0ACTION=add\0DEVPATH=/module/"
				  "virtio_crypto\0SUBSYSTEM=module\0SEQNUM=1234";
	static const char rm[] = "remove@/module/aesni_intel\0ACTION=remove\0DEVPATH=/module/"
				 "aesni_intel\0SUBSYSTEM=module\0SEQNUM=1";
	static const char pci[] = "add@/devices/pci0000:00/x\0ACTION=add\0DEVPATH=/devices/"
				  "pci0000:00/x\0SUBSYSTEM=pci\0SEQNUM=2";
	static const char bind_[] = "bind@/module/x\0ACTION=bind\0DEVPATH=/module/x\0"
				    "SUBSYSTEM=module\0";
	static const char trunc[] = "add@/module/x\0ACTION=add\0SUBSYSTEM=module\0DEVPATH=/mod";
	/* As udevadm trigger makes them at boot, for a module long loaded. */
	static const char synth[] = "add@/module/virtio_crypto\0ACTION=add\0DEVPATH=/module/"
				    "virtio_crypto\0SUBSYSTEM=module\0SYNTH_UUID=0\0SEQNUM=1235";
	char name[64] = "";

	is_int(cp_uevent_parse(add, sizeof(add), name, sizeof(name)), CP_UEVENT_MODULE_ADD,
	       "module add");
	is_str(name, "virtio_crypto", "its name");
	is_int(cp_uevent_parse(rm, sizeof(rm), name, sizeof(name)), CP_UEVENT_MODULE_REMOVE,
	       "module remove");
	is_str(name, "aesni_intel", "its name");
	is_int(cp_uevent_parse(pci, sizeof(pci), name, sizeof(name)), CP_UEVENT_OTHER,
	       "another subsystem is ignored");
	is_int(cp_uevent_parse(bind_, sizeof(bind_), name, sizeof(name)), CP_UEVENT_OTHER,
	       "another action is ignored");
	is_int(cp_uevent_parse(trunc, sizeof(trunc) - 1, name, sizeof(name)), CP_UEVENT_OTHER,
	       "an unterminated field is not read");
	is_int(cp_uevent_parse(add, sizeof(add), name, 5), CP_UEVENT_OTHER,
	       "a name too long for the buffer is refused");
	is_int(cp_uevent_parse(synth, sizeof(synth), name, sizeof(name)), CP_UEVENT_OTHER,
	       "a synthetic add (coldplug) is not a module event");
}

static void test_verdict_text(void)
{
	struct cp_point points[2] = {{.size = 16, .depth = 1, .verdict = CP_VERDICT_MEASURED},
				     {.size = 4096, .depth = 1, .verdict = CP_VERDICT_MEASURED}};
	struct cp_measured m = {.name = "cbc(aes)",
				.driver = "cp_test_engine_cbc_aes",
				.reference = "cbc(aes-generic)",
				.backend = CP_BACKEND_AFALG,
				.points = points,
				.n_points = 2};
	char buf[256];
	int level = -1;

	ok(cp_track_verdict_text(&m, buf, sizeof(buf), &level) == NULL, "all measured: nothing");
	points[1].verdict = CP_VERDICT_UNREACHABLE;
	ok(cp_track_verdict_text(&m, buf, sizeof(buf), &level) && level == LOG_NOTICE &&
	       strcmp(buf, "cp_test_engine_cbc_aes (cbc(aes)): unreachable through af_alg: placed "
			   "by its class alone") == 0,
	   "unreachable: %s", buf);
	points[0].verdict = CP_VERDICT_TIMEOUT;
	ok(cp_track_verdict_text(&m, buf, sizeof(buf), &level) && level == LOG_WARNING &&
	       strstr(buf, "a request timed out (never completed): never preferred"),
	   "a timeout outranks unreachable: %s", buf);
	points[1].verdict = CP_VERDICT_FAULTY;
	ok(cp_track_verdict_text(&m, buf, sizeof(buf), &level) && level == LOG_WARNING &&
	       strstr(buf, "output differs from cbc(aes-generic): faulty, never preferred"),
	   "faulty says against what: %s", buf);
	m.verified =
	    (struct cp_verified){.state = CP_VERIFICATION_FAILED,
				 .text = "case 3 of seed 42: encrypt 64 bytes, 16-byte key, "
					 "in place, src one entry at offset 0: output differs "
					 "from the reference's from byte 48"};
	ok(cp_track_verdict_text(&m, buf, sizeof(buf), &level) && level == LOG_WARNING &&
	       strstr(buf, "(cbc(aes)): verification against cbc(aes-generic) failed, case 3 of "
			   "seed 42: encrypt 64 bytes") &&
	       strstr(buf, ": faulty, never preferred"),
	   "a failed verification names its case: %s", buf);
	points[0].verdict = points[1].verdict = CP_VERDICT_MEASURED;
	m.verified = (struct cp_verified){.state = CP_VERIFICATION_NOT_RUN,
					  .text = "no reference implementation to compare with"};
	ok(cp_track_verdict_text(&m, buf, sizeof(buf), &level) && level == LOG_NOTICE &&
	       strcmp(buf, "cp_test_engine_cbc_aes (cbc(aes)): not verified: no reference "
			   "implementation to compare with") == 0,
	   "one not verified says why: %s", buf);
}

static void test_failure_text(void)
{
	struct cp_alg algs[3] = {};
	struct cp_apply_result r = {};
	char buf[256];

	r.inventory = (struct cp_inventory){.source = CP_SOURCE_PROC_CRYPTO,
					    .crypto_user_error = -EPROTONOSUPPORT,
					    .algs = algs,
					    .n_algs = 3};
	cp_track_failure_text(&r, -EPROTONOSUPPORT, "start", buf, sizeof(buf));
	ok(strstr(buf, "The kernel has no crypto_user (NETLINK_CRYPTO: Protocol not supported; "
		       "CONFIG_CRYPTO_USER, module crypto_user)") == buf &&
	       strstr(buf, "nothing to do at start") && !strchr(buf + strlen(buf) - 1, ')'),
	   "no crypto_user in the kernel: said as such: %s", buf);
	r.inventory.crypto_user_error = -EACCES;
	cp_track_failure_text(&r, -EACCES, "start", buf, sizeof(buf));
	ok(strstr(buf, "crypto_user unavailable (Permission denied): read-only inventory "
		       "from /proc/crypto (3 implementations)") == buf &&
	       strstr(buf, "nothing applied at start"),
	   "crypto_user refused: said as such: %s", buf);
	r.inventory = (struct cp_inventory){.source = CP_SOURCE_CRYPTO_USER};
	cp_track_failure_text(&r, -EPERM, "reload", buf, sizeof(buf));
	ok(strstr(buf, "CAP_NET_ADMIN") && strstr(buf, "nothing applied at reload"), "EPERM: %s",
	   buf);
	cp_track_failure_text(&r, -ENOSPC, "module", buf, sizeof(buf));
	ok(strcmp(buf, "Failed to apply the policy after a module came or went: No space left "
		       "on device; nothing changed") == 0,
	   "other errors: %s", buf);
	cp_track_failure_text(&r, -ENOSPC, "background", buf, sizeof(buf));
	ok(strstr(buf, "policy after measuring what READY left: ") && !strstr(buf, "(background)"),
	   "no trigger name in parentheses: %s", buf);
}

/* What the budget cut short is not cached: measured again as a whole. */
static void test_cache_entries(void)
{
	struct cp_point points[2] = {
	    {.size = 4096, .depth = 1, .verdict = CP_VERDICT_MEASURED, .mbps = {.n = 1}},
	    {.size = 4096, .depth = 1, .verdict = CP_VERDICT_MEASURED, .mbps = {.n = 3}}};
	struct cp_measured m[2] = {
	    {.name = "cbc(aes)", .driver = "cbc-aes-x", .points = &points[0], .n_points = 1},
	    {.name = "xts(aes)", .driver = "xts-aes-x", .points = &points[1], .n_points = 1}};
	struct cp_apply_result r = {.calibration = {.measured = m, .n_measured = 2}};
	struct cp_cache kept = {};

	m[0].pending = true;
	is_int(cp_calibration_cache_put(&r.calibration, 1000, &kept), 1,
	       "one entry kept for the cache");
	ok(kept.n_entries == 1 && strcmp(kept.entries[0].key.driver, "xts-aes-x") == 0,
	   "the finished name's, not the pending one's");
	cp_cache_free(&kept);
	points[1].too_noisy = true;
	is_int(cp_calibration_cache_put(&r.calibration, 1000, &kept), 1,
	       "a figure too noisy to decide is kept");
	ok(kept.n_entries == 1 && kept.entries[0].point.too_noisy, "as such");
	cp_cache_free(&kept);
	points[1].too_noisy = false;

	/* A figure from the cache, its engine verified now: put again with the pass. */
	points[1].cached = true;
	is_int(cp_calibration_cache_put(&r.calibration, 1000, &kept), 0,
	       "a cached figure, nothing verified: nothing to put");
	m[1].verified = (struct cp_verified){
	    .state = CP_VERIFICATION_PASSED, .seed = 5, .cases = 48, .by = "V1"};
	is_int(cp_calibration_cache_put(&r.calibration, 1000, &kept), 1,
	       "verified now: its cached figure put again");
	ok(kept.n_entries == 1 && kept.entries[0].verified.cases == 48 &&
	       strcmp(kept.entries[0].verified.by, "V1") == 0,
	   "with the pass");
	cp_cache_free(&kept);
	m[1].verified.cached = true;
	is_int(cp_calibration_cache_put(&r.calibration, 1000, &kept), 0,
	       "a pass from the cache is not put again");
	cp_cache_free(&kept);
}

int main(void)
{
	test_cache_entries();
	test_failure_text();
	test_verdict_text();
	test_uevent();
	test_select();
	test_patterns();
	test_status();
	test_record();
	return done_testing();
}
