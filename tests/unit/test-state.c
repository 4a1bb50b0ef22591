/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The state file: round trip, first original kept, corrupt files refused, atomic writes. */
#include <errno.h>
#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "macro.h"
#include "state.h"
#include "tap.h"

static struct cp_alg make_alg(const char *driver, uint32_t priority)
{
	struct cp_alg alg = {.priority = priority};

	snprintf(alg.driver, sizeof(alg.driver), "%s", driver);
	snprintf(alg.module, sizeof(alg.module), "mod_%s", driver);
	return alg;
}

static void test_round_trip(const char *dir)
{
	struct cp_state state, loaded;
	struct cp_alg a = make_alg("virtio_crypto_aes_cbc", 150),
		      b = make_alg("cbc-aes-aesni", 400);
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/sub/state.json", dir);
	cp_state_init(&state);
	is_int(cp_state_load(path, &state), 0, "a missing state file is an empty state");
	is_int(state.n_originals, 0, "nothing recorded");
	is_int(cp_state_record(&state, &a), 1, "first original recorded");
	a.priority = 3000;
	is_int(cp_state_record(&state, &a), 0, "a second change keeps the first original");
	is_int(cp_state_record(&state, &b), 1, "another driver recorded");
	is_int(cp_state_save(path, &state), 0, "saved (parent directory created)");
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644, "state file mode 0644");

	is_int(cp_state_load(path, &loaded), 0, "loaded back");
	is_int(loaded.n_originals, 2, "two originals");
	ok(cp_state_find(&loaded, "virtio_crypto_aes_cbc") &&
	       cp_state_find(&loaded, "virtio_crypto_aes_cbc")->priority == 150,
	   "original 150 survives the round trip");
	is_str(cp_state_find(&loaded, "cbc-aes-aesni")->module, "mod_cbc-aes-aesni", "module kept");
	is_int(cp_state_forget(&loaded, "cbc-aes-aesni"), 1, "forget one");
	is_int(cp_state_forget(&loaded, "cbc-aes-aesni"), 0, "forget twice: nothing left");
	ok(cp_state_find(&loaded, "virtio_crypto_aes_cbc") != NULL, "the other stays");
	cp_state_free(&loaded);
	cp_state_free(&state);
}

/* A document another writer started without a version (as the daemon's record did): saved with one.
 */
static void test_versioned_when_started_elsewhere(const char *dir)
{
	struct cp_state state, loaded;
	char path[512];

	snprintf(path, sizeof(path), "%s/started-elsewhere.json", dir);
	cp_state_init(&state);
	state.doc = json_object_new_object();
	json_object_object_add(state.doc, "daemon", json_object_new_object());
	is_int(cp_state_save(path, &state), 0, "a document started elsewhere: saved");
	is_int(cp_state_load(path, &loaded), 0, "and loaded back: it has its version");
	cp_state_free(&loaded);
	cp_state_free(&state);
}

static void test_unknown_keys_kept(void)
{
	struct cp_state state;
	_cleanup_free_ char *text = NULL;

	is_int(cp_state_parse("{\"version\":1,\"originals\":[],\"plan\":{\"x\":1}}", &state), 0,
	       "a document with a key from a newer version parses");
	is_int(cp_state_format(&state, &text), 0, "formatted");
	ok(text && strstr(text, "\"plan\""), "the unknown key is written back");
	cp_state_free(&state);
}

static void test_corrupt(void)
{
	static const char *const bad[] = {
	    "",
	    "{",
	    "[]",
	    "{\"version\":2,\"originals\":[]}",
	    "{\"version\":1}",
	    "{\"version\":1,\"originals\":[{\"driver\":\"a\",\"module\":\"m\"}]}",
	    "{\"version\":1,\"originals\":[{\"driver\":\"a\",\"module\":\"m\",\"priority\":-1}]}",
	    "{\"version\":1,\"originals\":[{\"driver\":\"a\",\"module\":\"m\",\"priority\":"
	    "2147483648}]}",
	    "{\"version\":1,\"originals\":[{\"driver\":\"\",\"module\":\"m\",\"priority\":1}]}",
	    "{\"version\":1,\"originals\":[{\"driver\":\"a\",\"module\":\"m\",\"priority\":1},"
	    "{\"driver\":\"a\",\"module\":\"m\",\"priority\":2}]}",
	    "{\"version\":1,\"originals\":[]} trailing",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct cp_state state;

		is_int(cp_state_parse(bad[i], &state), -EBADMSG, "corrupt state %zu refused", i);
		ok(state.n_originals == 0 && state.doc == NULL, "nothing half-trusted from %zu", i);
	}
}

/*
 * A trailing "//" comment made json-c consume the terminating NUL too: the
 * check for nothing after the document then read past the string
 * (tests/fuzz, corpus/fuzz-state/crash-comment-past-nul). JSON has no
 * comments and the strict tokener refuses them; what lies after the NUL
 * ('x' here) must still not be read.
 */
static void test_comment_at_end(void)
{
	static const char doc[] = "{\"version\":1,\"originals\":[]}//c\0xx";
	static const char scalar[] = "0//////\0xx";
	struct cp_state state;

	is_int(cp_state_parse(doc, &state), -EBADMSG, "a comment at the end: refused");
	ok(state.doc == NULL, "nothing kept of it");
	is_int(cp_state_parse(scalar, &state), -EBADMSG, "a scalar and a comment: refused");
	ok(state.doc == NULL, "nothing kept of it");
}

/*
 * json-c's lenient tokener took "0882230400e" as a number and kept its
 * text, which formatted to something that parsed back differently
 * (tests/fuzz, corpus/fuzz-state/crash-number-text).
 */
static void test_number_not_json(void)
{
	static const char *const bad[] = {
	    "{\"version\":1,\"originals\":[],\"x\":0882230400e}",
	    "{\"version\":1,\"originals\":[],\"checked_at\":0882230400}",
	    "{\"version\":1,\"originals\":[],\"x\":1e}",
	};
	struct cp_state state;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		is_int(cp_state_parse(bad[i], &state), -EBADMSG,
		       "number %zu that JSON has not: refused", i);
}

static void test_atomic_write(const char *dir)
{
	_cleanup_free_ char *data = NULL;
	char path[512];
	size_t size;
	int fd;

	snprintf(path, sizeof(path), "%s/atomic", dir);
	is_int(cp_write_file_atomic(path, "one", 3, 0600), 0, "written");
	is_int(cp_write_file_atomic(path, "two!", 4, 0600), 0, "replaced");
	is_int(cp_read_file(path, 16, &data, &size), 0, "read back");
	ok(size == 4 && strcmp(data, "two!") == 0, "the new content whole");
	free(steal_pointer(&data));
	is_int(cp_read_file(path, 3, &data, &size), -EFBIG, "a file over the limit is refused");
	is_int(cp_read_file(path, 4, &data, &size), 0, "a file of the limit's size is read");
	free(steal_pointer(&data));
	/* /proc's files have no size to allocate by: the buffer grows as they are read. */
	is_int(cp_read_file("/proc/self/smaps", 1u << 20, &data, &size), 0,
	       "/proc/self/smaps read (more than the first 4 KiB)");
	ok(size > 4096 && strlen(data) == size && data[size - 1] == '\n',
	   "whole, to its last line");
	free(steal_pointer(&data));
	is_int(cp_read_file("/proc/self/smaps", 8, &data, &size), -EFBIG,
	       "a /proc file over the limit is refused");

	/* The directories are made when missing, only then (/run at boot). */
	snprintf(path, sizeof(path), "%s/new/deeper/atomic", dir);
	is_int(cp_write_file_atomic(path, "three", 5, 0644), 0,
	       "written into directories not there");
	is_int(cp_read_file(path, 16, &data, &size), 0, "and read back");
	ok(size == 5 && strcmp(data, "three") == 0, "whole");
	snprintf(path, sizeof(path), "%s/other/lock", dir);
	fd = cp_lock_acquire(path);
	ok(fd >= 0, "a lock taken in a directory not there: %d", fd);
	if (fd >= 0)
		close(fd);
}

static unsigned waiting_calls;

static void count_waiting(const char *path)
{
	(void) path;
	waiting_calls++;
}

static uint64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

/* --wait: a lock another holder keeps is given up after the time span, said once. */
static void test_lock_timeout(const char *dir)
{
	char path[256];
	uint64_t start, waited;
	int holder, fd;

	snprintf(path, sizeof(path), "%s/timed/lock", dir);
	holder = cp_lock_acquire(path);
	ok(holder >= 0, "a first holder takes the lock: %d", holder);
	start = monotonic_ms();
	fd = cp_lock_acquire_timeout(path, count_waiting, 200 * 1000);
	waited = monotonic_ms() - start;
	is_int(fd, -ETIMEDOUT, "a second writer gives up while it is held");
	ok(waited >= 200 && waited < 2000, "after the time span (%llu ms)",
	   (unsigned long long) waited);
	is_int((int) waiting_calls, 1, "having said once that it waits");
	close(holder);
	fd = cp_lock_acquire_timeout(path, count_waiting, 200 * 1000);
	ok(fd >= 0, "taken once free: %d", fd);
	is_int((int) waiting_calls, 1, "without saying it waits");
	if (fd >= 0)
		close(fd);
	is_int(cp_check_dir_writable(path), 0, "the lock's directory is writable");
	snprintf(path, sizeof(path), "/proc/self/cryptoprio/lock");
	ok(cp_check_dir_writable(path) < 0, "a directory that cannot be made is not");
	snprintf(path, sizeof(path), "%s/not/yet/lock", dir);
	is_int(cp_check_dir_writable(path), 0, "missing directories that can be made: writable");
	ok(access(path, F_OK) < 0 && errno == ENOENT, "and not made by the check");
}

static struct cp_state_apply *make_apply(void)
{
	struct cp_state_apply *a = cp_state_apply_new();
	struct cp_state_step step = {
	    .driver = "virtio_crypto_aes_cbc",
	    .name = "cbc(aes)",
	    .action = CP_STEP_SET,
	    .old_priority = 3000,
	    .new_priority = 399,
	    .why = "second gear (offload)",
	    .result = CP_STEP_DONE,
	};

	a->started_at = 1700000000;
	a->finished_at = 1700000001;
	a->pid = 1234;
	snprintf(a->agent, sizeof(a->agent), "cryptoprio-daemon");
	snprintf(a->backend, sizeof(a->backend), "module");
	(void) cp_state_apply_add_policy_file(a, "/etc/cryptoprio.conf");
	(void) cp_state_apply_add_step(a, &step);
	step = (struct cp_state_step){.driver = "cbc-aes-aesni",
				      .name = "cbc(aes)",
				      .action = CP_STEP_TOUCH,
				      .old_priority = 400,
				      .new_priority = 400,
				      .result = CP_STEP_FAILED,
				      .error = -EPERM,
				      .message = "denied"};
	(void) cp_state_apply_add_step(a, &step);
	step = (struct cp_state_step){.driver = "authenc(hmac(sha256-ce),cbc-aes-ce)",
				      .name = "authenc(hmac(sha256),cbc(aes))",
				      .action = CP_STEP_CREATE,
				      .new_priority = 3001,
				      .result = CP_STEP_FAILED,
				      .error = -EOPNOTSUPP};
	(void) cp_state_apply_add_step(a, &step);
	(void) cp_state_apply_add_left_out(a, "sha224");
	(void) cp_state_apply_add_left_out(a, "sha256");
	return a;
}

static void test_last_apply(const char *dir)
{
	struct cp_state state, loaded;
	const struct cp_state_apply *a;
	char path[512];

	snprintf(path, sizeof(path), "%s/apply/state.json", dir);
	cp_state_init(&state);
	cp_state_set_last_apply(&state, make_apply());
	state.checked_at = 1700000005;
	is_int(cp_state_save(path, &state), 0, "state with a plan saved");
	is_int(cp_state_load(path, &loaded), 0, "and loaded back");
	a = loaded.last_apply;
	ok(a != NULL, "the plan is there");
	if (!a)
		return;
	is_int(loaded.checked_at, 1700000005, "checked_at kept");
	ok(a->started_at == 1700000000 && a->finished_at == 1700000001 && a->pid == 1234,
	   "times and pid kept");
	is_str(a->agent, "cryptoprio-daemon", "agent kept");
	is_str(a->backend, "module", "backend kept");
	ok(a->n_policy_files == 1 && strcmp(a->policy_files[0], "/etc/cryptoprio.conf") == 0,
	   "policy files kept");
	ok(a->n_left_out == 2 && strcmp(a->left_out[0], "sha224") == 0 &&
	       strcmp(a->left_out[1], "sha256") == 0,
	   "the names left out kept");
	is_int(a->n_steps, 3, "every step");
	ok(a->steps[0].action == CP_STEP_SET && a->steps[0].old_priority == 3000 &&
	       a->steps[0].new_priority == 399 && a->steps[0].result == CP_STEP_DONE,
	   "first step whole");
	is_str(a->steps[0].why, "second gear (offload)", "why kept");
	ok(a->steps[1].action == CP_STEP_TOUCH && a->steps[1].result == CP_STEP_FAILED &&
	       a->steps[1].error == -EPERM,
	   "failed touch with its errno");
	is_str(a->steps[1].message, "denied", "kernel message kept");
	ok(a->steps[2].action == CP_STEP_CREATE && a->steps[2].new_priority == 3001 &&
	       a->steps[2].error == -EOPNOTSUPP,
	   "a create refused, read back as a create");

	cp_state_set_last_apply(&loaded, NULL);
	loaded.checked_at = 0;
	{
		_cleanup_free_ char *text = NULL;

		is_int(cp_state_format(&loaded, &text), 0, "formatted without a plan");
		ok(text && !strstr(text, "last_apply") && !strstr(text, "checked_at"),
		   "a plan forgotten is not written back from the old document");
	}
	cp_state_free(&loaded);
	cp_state_free(&state);
}

/*
 * The winners an apply recorded: each caller's driver, a caller without
 * one left out; a file without them (an older cryptoprio's) loads with
 * none recorded, and is written back without.
 */
static void test_winners(void)
{
	struct cp_winners w = {.name = "cbc(aes)",
			       .driver = {[CP_CALLER_ANY] = "virtio_crypto_aes_cbc",
					  [CP_CALLER_SYNCHRONOUS] = "cbc-aes-aesni"}};
	_cleanup_(cp_state_free) struct cp_state state = {}, loaded = {}, old = {};
	_cleanup_free_ char *text = NULL, *again = NULL;
	const struct cp_winners *back;

	cp_state_set_last_apply(&state, make_apply());
	is_int(cp_state_apply_set_winners(state.last_apply, &w), 0, "winners set");
	state.last_apply->winners_recorded = true;
	is_int(cp_state_format(&state, &text), 0, "formatted");
	ok(strstr(text, "\"synchronous\":\"cbc-aes-aesni\"") ||
	       strstr(text, "\"synchronous\": \"cbc-aes-aesni\""),
	   "a caller's driver written");
	ok(!strstr(text, "\"both\""), "a caller without one left out");
	is_int(cp_state_parse(text, &loaded), 0, "parsed back");
	back = cp_state_apply_find_winners(loaded.last_apply, "cbc(aes)");
	ok(loaded.last_apply->winners_recorded && back &&
	       streq(back->driver[CP_CALLER_ANY], "virtio_crypto_aes_cbc") &&
	       streq(back->driver[CP_CALLER_SYNCHRONOUS], "cbc-aes-aesni") &&
	       !back->driver[CP_CALLER_BOTH][0],
	   "each caller's driver read back, none where none was");
	ok(cp_state_drift_by_winners(&loaded), "drift told by winners");
	{
		_cleanup_(cp_state_free) struct cp_state cpu_only = {};
		char *key = strstr(text, "\"synchronous\"");

		/* "synchronous" and "cpu-only\" " have as many bytes */
		memcpy(key, "\"cpu-only\"   ", strlen("\"synchronous\""));
		is_int(cp_state_parse(text, &cpu_only), -EBADMSG,
		       "a winner of cpu-only, which apply never records: refused");
	}

	cp_state_set_last_apply(&state, make_apply());
	free(steal_pointer(&text));
	is_int(cp_state_format(&state, &text), 0, "a record without winners formatted");
	ok(!strstr(text, "winners"), "written without them");
	is_int(cp_state_parse(text, &old), 0, "an older cryptoprio's file loads");
	ok(old.last_apply && !old.last_apply->winners_recorded && !cp_state_drift_by_winners(&old),
	   "with no winners: drift told by priorities");
	is_int(cp_state_format(&old, &again), 0, "and is written back");
	ok(!strstr(again, "winners"), "still without winners");
}

static void test_created(const char *dir)
{
	struct cp_created c = {.driver = "authenc(hmac(sha256-ce),cbc-aes-ce)",
			       .name = "authenc(hmac(sha256),cbc(aes))",
			       .priority = 4001};
	struct cp_state state, loaded;
	_cleanup_free_ char *text = NULL;
	char path[512];

	snprintf(path, sizeof(path), "%s/created/state.json", dir);
	cp_state_init(&state);
	is_int(cp_state_add_created(&state, &c), 1, "a created instance recorded");
	c.priority = CP_IN_USE_PRIORITY;
	c.in_use = true;
	is_int(cp_state_add_created(&state, &c), 0, "recorded again: updated, not doubled");
	snprintf(c.driver, sizeof(c.driver), "echainiv(authenc(hmac(sha256-ce),cbc-aes-ce))");
	c.in_use = false;
	is_int(cp_state_add_created(&state, &c), 1, "a second one");
	cp_state_set_last_apply(&state, make_apply());
	is_int(cp_state_save(path, &state), 0, "saved");
	is_int(cp_state_load(path, &loaded), 0, "loaded back");
	is_int(loaded.n_created, 2, "both created instances");
	ok(loaded.n_created == 2 && loaded.created[0].priority == 0 && loaded.created[0].in_use &&
	       strcmp(loaded.created[0].name, "authenc(hmac(sha256),cbc(aes))") == 0,
	   "the one in use: lowered, with its algorithm");
	ok(cp_state_find_created(&loaded, "echainiv(authenc(hmac(sha256-ce),cbc-aes-ce))") &&
	       !cp_state_find_created(&loaded, "cbc-aes-ce"),
	   "found by driver name");
	ok(loaded.last_apply && loaded.last_apply->n_steps == 3, "kept beside the last plan");
	is_int(cp_state_forget_created(&loaded, "authenc(hmac(sha256-ce),cbc-aes-ce)"), 1,
	       "a removed one forgotten");
	is_int(cp_state_forget_created(&loaded, "authenc(hmac(sha256-ce),cbc-aes-ce)"), 0,
	       "forgotten twice: nothing left");
	cp_state_forget_created(&loaded, "echainiv(authenc(hmac(sha256-ce),cbc-aes-ce))");
	is_int(cp_state_format(&loaded, &text), 0, "formatted with none left");
	ok(text && !strstr(text, "\"created\""), "no list written back from the old document");
	cp_state_free(&loaded);
	cp_state_free(&state);
}

static void test_created_corrupt(void)
{
	static const char *const bad[] = {
	    "{\"version\":1,\"originals\":[],\"created\":{}}",
	    "{\"version\":1,\"originals\":[],\"created\":[{\"driver\":\"d\"}]}",
	    "{\"version\":1,\"originals\":[],\"created\":[{\"driver\":\"d\","
	    "\"algorithm\":\"n\",\"priority\":-1,\"in_use\":false}]}",
	    "{\"version\":1,\"originals\":[],\"created\":[{\"driver\":\"d\","
	    "\"algorithm\":\"n\",\"priority\":1,\"in_use\":false},{\"driver\":\"d\","
	    "\"algorithm\":\"n\",\"priority\":2,\"in_use\":false}]}",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct cp_state state;

		is_int(cp_state_parse(bad[i], &state), -EBADMSG, "corrupt created list %zu refused",
		       i);
		ok(state.created == NULL && state.n_created == 0, "nothing half-trusted from %zu",
		   i);
	}
}

static void test_last_apply_corrupt(void)
{
	static const char *const bad[] = {
	    "{\"version\":1,\"originals\":[],\"last_apply\":[]}",
	    "{\"version\":1,\"originals\":[],\"checked_at\":\"now\"}",
	    "{\"version\":1,\"originals\":[],\"last_apply\":{\"started_at\":1,"
	    "\"finished_at\":0,\"pid\":1,\"agent\":\"a\",\"backend\":\"b\","
	    "\"policy_files\":[],\"steps\":[{\"driver\":\"d\"}]}}",
	    "{\"version\":1,\"originals\":[],\"last_apply\":{\"started_at\":1,"
	    "\"finished_at\":0,\"pid\":1,\"agent\":\"a\",\"backend\":\"b\","
	    "\"policy_files\":[],\"steps\":[{\"driver\":\"d\",\"algorithm\":\"n\","
	    "\"action\":\"jump\",\"old_priority\":1,\"new_priority\":2,\"why\":\"\","
	    "\"result\":\"done\",\"errno\":0,\"message\":\"\"}]}}",
	    "{\"version\":1,\"originals\":[],\"last_apply\":{\"started_at\":1,"
	    "\"finished_at\":0,\"pid\":1,\"agent\":\"a\",\"backend\":\"b\","
	    "\"policy_files\":[],\"steps\":[],\"left_out\":[\"sha256\",7]}}",
	    "{\"version\":1,\"originals\":[],\"last_apply\":{\"started_at\":1,"
	    "\"finished_at\":0,\"pid\":1,\"agent\":\"a\",\"backend\":\"b\","
	    "\"policy_files\":[],\"steps\":[],\"winners\":{}}}",
	    "{\"version\":1,\"originals\":[],\"last_apply\":{\"started_at\":1,"
	    "\"finished_at\":0,\"pid\":1,\"agent\":\"a\",\"backend\":\"b\","
	    "\"policy_files\":[],\"steps\":[],\"winners\":[{\"name\":\"n\",\"sync\":\"d\"}]}}",
	    "{\"version\":1,\"originals\":[],\"last_apply\":{\"started_at\":1,"
	    "\"finished_at\":0,\"pid\":1,\"agent\":\"a\",\"backend\":\"b\","
	    "\"policy_files\":[],\"steps\":[],\"winners\":[{\"name\":\"n\",\"any\":\"\"}]}}",
	    "{\"version\":1,\"originals\":[],\"last_apply\":{\"started_at\":1,"
	    "\"finished_at\":0,\"pid\":1,\"agent\":\"a\",\"backend\":\"b\","
	    "\"policy_files\":[],\"steps\":[],\"winners\":[{\"name\":\"n\",\"any\":\"d\"},"
	    "{\"name\":\"n\",\"any\":\"e\"}]}}",
	    "{\"version\":1,\"originals\":[],\"last_apply\":{\"started_at\":1,"
	    "\"finished_at\":0,\"pid\":1,\"agent\":\"a\",\"backend\":\"b\","
	    "\"policy_files\":[],\"steps\":[],\"winners\":[{\"any\":\"d\"}]}}",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct cp_state state;

		is_int(cp_state_parse(bad[i], &state), -EBADMSG, "corrupt plan record %zu refused",
		       i);
		ok(state.last_apply == NULL && state.doc == NULL, "nothing half-trusted from %zu",
		   i);
	}
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	return remove(path);
}

static void remove_tree(const char *dir)
{
	(void) nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
	char dir[] = "/tmp/cryptoprio-test-state.XXXXXX";

	if (!mkdtemp(dir))
		return 1;
	test_round_trip(dir);
	test_versioned_when_started_elsewhere(dir);
	test_unknown_keys_kept();
	test_corrupt();
	test_comment_at_end();
	test_number_not_json();
	test_atomic_write(dir);
	test_lock_timeout(dir);
	test_last_apply(dir);
	test_winners();
	test_created(dir);
	test_created_corrupt();
	test_last_apply_corrupt();
	remove_tree(dir);
	return done_testing();
}
