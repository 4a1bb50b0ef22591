/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Policy files: every validation error with its file:line, values, precedence of sections. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "policy.h"
#include "tap.h"

#define POLICY_FIXTURES FIXTURES "/policy"

/*
 * A copy of fixture @name, mode 0644, in a directory of the test's own:
 * the loader refuses files others can write, and a tree unpacked by root
 * from a git archive (a release tarball) has its files 0664.
 */
static char fixture_dir[] = "/tmp/cryptoprio-test-policy.XXXXXX";

static const char *fixture_copy(const char *name)
{
	static char path[PATH_MAX];
	char from[PATH_MAX], buf[4096];
	FILE *in, *out;
	size_t n;

	snprintf(from, sizeof(from), "%s/%s", POLICY_FIXTURES, name);
	snprintf(path, sizeof(path), "%s/%s", fixture_dir, name);
	in = fopen(from, "r");
	out = fopen(path, "w");
	if (!in || !out || fchmod(fileno(out), 0644) < 0)
		abort();
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			abort();
	if (ferror(in) || fclose(out) != 0)
		abort();
	fclose(in);
	return path;
}

static struct cp_policy *from_strings(const char *const *texts, size_t n)
{
	struct cp_policy *p = cp_policy_new();

	for (size_t i = 0; i < n; i++) {
		char name[32];
		FILE *f = fmemopen((void *) texts[i], strlen(texts[i]), "r");

		snprintf(name, sizeof(name), "%zu.conf", i);
		if (!f || cp_policy_parse_stream(p, f, name) < 0)
			abort();
		fclose(f);
	}
	return p;
}

static void test_errors(void)
{
	static const struct {
		unsigned line;
		const char *reason; /* a part of it */
	} want[] = {
	    {2, "Gears= outside of a section"},
	    {5, "Rank=: invalid value 'fastest', expected 'throughput', 'latency', 'cpu-cost' or "
		"'ratio'"},
	    {6, "RequestSize=: size '2M' out of range"},
	    {8, "InFlight=: invalid number of requests in flight '0', expected 1 to 64"},
	    {9, "Verify=: invalid boolean 'maybe'"},
	    {10, "Calibrate=: invalid value 'sometimes'"},
	    {11, "CalibrationBudget=: invalid duration '2 fortnights'"},
	    {12, "Pin= is not valid in [Policy]"},
	    {13, "unknown key 'Colour' in [Policy]"},
	    {14, "Gears= set again to a different value (first set at line 4)"},
	    {15, "('#' starts a comment only at the start of a line; use ';' inline)"},
	    {16, "expected 'Key = value', '[Section]' or a comment"},
	    {17, "[Algorithm] needs a pattern"},
	    {19, "Calibrate= is not valid in [Algorithm]"},
	    {23, "Pin= cannot be combined with Exclude= (line 22)"},
	    {25, "Priority=: invalid priority '-1', expected 0 to 2147483647"},
	    {26, "Priority=: invalid priority '2147483648'"},
	    {27, "Class=: invalid value 'gpu', expected 'cpu' or 'offload'"},
	    {28, "unknown section [Frobnicate]"},
	    {30, "section header without closing ']'"},
	    {31, "unexpected text 'trailing' after the section header"},
	    {32, "[Policy] takes no pattern"},
	    {33, "expected 'Key = value'"},
	    {34, "missing key name before '='"},
	    {36, "CalibrationBudget=: duration '0.5ms' out of range, expected 1ms to 60s"},
	    {37, "pattern 'a b' contains blanks"},
	    {38, "line too long"},
	};
	_cleanup_(cp_policy_freep) struct cp_policy *p = NULL;
	const char *path = fixture_copy("errors.conf");
	int r;

	r = cp_policy_load(NULL, path, &p);
	is_int(r, -EBADMSG, "errors.conf refused");
	is_int(p->n_errors, ARRAY_SIZE(want), "every error reported, none twice");
	for (size_t i = 0; i < ARRAY_SIZE(want) && i < p->n_errors; i++) {
		const struct cp_policy_error *e = &p->errors[i];

		ok(strcmp(e->file, path) == 0 && e->line == want[i].line &&
		       strstr(e->reason, want[i].reason),
		   "errors.conf:%u: %s", want[i].line, want[i].reason);
		if (e->line != want[i].line || !strstr(e->reason, want[i].reason))
			diag("got %s:%u: %s", e->file, e->line, e->reason);
	}
	for (size_t i = ARRAY_SIZE(want); i < p->n_errors; i++)
		diag("unexpected %s:%u: %s", p->errors[i].file, p->errors[i].line,
		     p->errors[i].reason);
}

static void test_valid(void)
{
	_cleanup_(cp_policy_freep) struct cp_policy *p = NULL;
	struct cp_driver_rule d;
	struct cp_settings s;

	is_int(cp_policy_load(NULL, fixture_copy("valid.conf"), &p), 0, "valid.conf accepted");
	cp_policy_global(p, &s);
	is_int(s.rank, CP_RANK_LATENCY, "Rank = latency (inline ';' comment stripped)");
	is_int(s.origin[CP_KEY_RANK].line, 4, "Rank set at line 4");
	is_int(s.request_size, 16384, "RequestSize = 16KiB");
	is_int(s.in_flight, 8, "InFlight = 8");
	is_int(s.verify, false, "Verify = off");
	is_int(s.calibrate, CP_CALIBRATE_CACHED, "Calibrate = cached");
	is_int(s.calibration_budget_usec, 500000, "CalibrationBudget = 500ms");

	cp_policy_algorithm(p, "cbc(aes)", &s);
	is_int(s.request_size, 4096, "cbc(aes): the exact section beats *(aes)");
	is_int(s.origin[CP_KEY_REQUEST_SIZE].line, 16, "cbc(aes): RequestSize from line 16");
	is_int(s.gears, CP_GEARS_ANY, "cbc(aes): Gears from *(aes), the exact one does not set it");
	is_int(s.in_flight, 32, "cbc(aes): InFlight from the later *(aes)");
	is_int(s.origin[CP_KEY_IN_FLIGHT].line, 19, "cbc(aes): InFlight from line 19");
	is_int(s.rank, CP_RANK_LATENCY, "cbc(aes): Rank from [Policy]");
	cp_policy_algorithm(p, "xts(aes)", &s);
	is_int(s.request_size, 65536, "xts(aes): RequestSize from *(aes)");
	cp_policy_algorithm(p, "sha256", &s);
	is_int(s.request_size, 16384, "sha256: no [Algorithm] matches, [Policy] value");
	is_int(s.gears, CP_GEARS_CPU_OFFLOAD, "sha256: Gears from [Policy]");
	cp_policy_algorithm(p, "cbc(aes", &s);
	is_int(s.gears, CP_GEARS_CPU_OFFLOAD, "'(' is no extglob: *(aes) does not match 'cbc(aes'");

	cp_policy_driver(p, "gcm-aes-caam-qi2", &d);
	ok(d.pin == CP_PIN_LAST && !d.exclude, "exact [Driver] beats the *-caam* glob");
	ok(d.has_class && d.class == CP_CLASS_OFFLOAD, "Class = offload");
	cp_policy_driver(p, "xts-aes-caam", &d);
	ok(d.exclude && d.placement.line == 22, "*-caam* excludes xts-aes-caam (line 22)");
	cp_policy_driver(p, "stm32-cbc-aes", &d);
	ok(d.has_priority && d.priority == 0, "Priority = 0 is a valid fixed value");
	cp_policy_driver(p, "aesni", &d);
	ok(d.pin == CP_PIN_NONE && !d.exclude && !d.has_priority && !d.has_class,
	   "no [Driver] section: no rule");
}

static void test_defaults_and_override(void)
{
	static const char *const files[] = {
	    "[Policy]\nGears = any\nRequestSize = 8K\n[Driver x]\nExclude = yes\nClass = cpu\n",
	    "[Policy]\nGears = offload cpu\n[Driver x]\nPin = first\n",
	    "[Policy]\nGears = offload cpu\nGears = offload   cpu\n",
	};
	_cleanup_(cp_policy_freep) struct cp_policy *p = cp_policy_new();
	_cleanup_free_ struct cp_section *merged = NULL;
	struct cp_driver_rule d;
	struct cp_settings s;
	char buf[32];
	int n;

	cp_policy_global(p, &s);
	ok(s.gears == CP_GEARS_CPU_OFFLOAD && s.rank == CP_RANK_THROUGHPUT &&
	       s.request_size == 4096 && s.in_flight == 1 && s.verify &&
	       s.calibrate == CP_CALIBRATE_BOOT && s.calibration_budget_usec == 2000000,
	   "no file: the built-in default");
	ok(!s.origin[CP_KEY_GEARS].file, "defaults have no file");
	cp_policy_free(steal_pointer(&p));

	p = from_strings(files, ARRAY_SIZE(files));
	is_int(p->n_errors, 0, "a later file overrides, the same value twice is no conflict");
	cp_policy_global(p, &s);
	is_int(s.gears, CP_GEARS_OFFLOAD_CPU, "the later file's Gears");
	is_str(s.origin[CP_KEY_GEARS].file, "2.conf", "set by the last file");
	is_int(s.request_size, 8192, "keys the later files do not set stay");
	cp_policy_driver(p, "x", &d);
	ok(d.pin == CP_PIN_FIRST && !d.exclude, "Pin in a later file replaces Exclude");
	ok(d.has_class && d.class == CP_CLASS_CPU, "Class from the first file stays");

	n = cp_policy_merged_sections(p, &merged);
	is_int(n, 2, "merged: [Policy] and [Driver x]");
	ok(n == 2 && !merged[1].origin[CP_KEY_EXCLUDE].file && merged[1].origin[CP_KEY_PIN].file,
	   "merged [Driver x] shows Pin, not the replaced Exclude");
	is_str(cp_key_value_to_string(CP_KEY_REQUEST_SIZE, 65536, buf, sizeof(buf)), "64K",
	       "sizes print as K");
	is_str(cp_key_value_to_string(CP_KEY_CALIBRATION_BUDGET, 500000, buf, sizeof(buf)), "500ms",
	       "durations print as ms");
}

static void test_files(void)
{
	char dir[] = "/tmp/test-policy-XXXXXX", path[PATH_MAX], link_path[PATH_MAX];
	struct cp_policy *p = NULL;
	FILE *f;

	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/open.conf", dir);
	f = fopen(path, "we");
	fputs("[Policy]\nGears = any\n", f);
	fclose(f);
	(void) chmod(path, 0664);
	is_int(cp_policy_load(NULL, path, &p), -EBADMSG, "a group-writable file is refused");
	ok(p->n_errors == 1 && p->errors[0].line == 0 &&
	       strstr(p->errors[0].reason, "writable by group or others (mode 0664)"),
	   "and says why");
	cp_policy_free(p);

	(void) chmod(path, 0644);
	is_int(cp_policy_load(NULL, path, &p), 0, "the same file 0644 is accepted");
	cp_policy_free(p);

	snprintf(link_path, sizeof(link_path), "%s/masked.conf", dir);
	(void) symlink("/dev/null", link_path);
	is_int(cp_policy_load(NULL, link_path, &p), 0, "-c on a /dev/null symlink: empty, valid");
	is_int(p->n_files, 0, "nothing read");
	cp_policy_free(p);

	is_int(cp_policy_load(NULL, dir, &p), -EBADMSG, "a directory is not a policy file");
	ok(p->n_errors == 1 && strstr(p->errors[0].reason, "not a regular file"), "and says so");
	cp_policy_free(p);

	snprintf(path, sizeof(path), "%s/missing.conf", dir);
	is_int(cp_policy_load(NULL, path, &p), -EBADMSG, "-c on a missing file is an error");
	ok(p->n_errors == 1 && strstr(p->errors[0].reason, "cannot open"), "cannot open");
	cp_policy_free(p);

	unlink(link_path);
	unlink(path);
	snprintf(path, sizeof(path), "%s/open.conf", dir);
	unlink(path);
	rmdir(dir);
}

/* MetricsFile=: a path, the last file's, "" for none; refused where not one. */
static void test_metrics_file(void)
{
	static const char *const files[] = {
	    "[Policy]\nMetricsFile = /var/lib/prometheus/node-exporter/cryptoprio.prom\n",
	    "[Policy]\nMetricsFile = /srv/metrics/cp.prom\n",
	    "[Policy]\nMetricsFile =\n",
	};
	static const char *const bad =
	    "[Policy]\nMetricsFile = metrics.prom\nMetricsFile = /a/../b\nMetricsFile = /a/\n"
	    "MetricsFile = /a/b\nMetricsFile = /a/c\n[Driver x]\nMetricsFile = /a/b\n";
	_cleanup_(cp_policy_freep) struct cp_policy *one = from_strings(files, 1);
	_cleanup_(cp_policy_freep) struct cp_policy *two = from_strings(files, 2);
	_cleanup_(cp_policy_freep) struct cp_policy *three = from_strings(files, 3);
	_cleanup_(cp_policy_freep) struct cp_policy *wrong = from_strings(&bad, 1);
	_cleanup_(cp_policy_freep) struct cp_policy *none = cp_policy_new();

	is_str(one->metrics_file, "/var/lib/prometheus/node-exporter/cryptoprio.prom",
	       "MetricsFile= read");
	is_int(one->metrics_file_origin.line, 2, "its line");
	is_str(two->metrics_file, "/srv/metrics/cp.prom", "a later file's MetricsFile= wins");
	ok(!three->metrics_file && cp_policy_is_valid(three), "an empty MetricsFile= resets it");
	ok(!none->metrics_file, "none by default");
	is_int(wrong->n_errors, 5, "five errors");
	if (wrong->n_errors != 5)
		return;
	is_int(wrong->errors[0].line, 2, "a relative path: line 2");
	ok(strstr(wrong->errors[0].reason, "invalid path 'metrics.prom'") != NULL,
	   "a relative path refused");
	ok(strstr(wrong->errors[1].reason, "invalid path '/a/../b'") != NULL,
	   "a path with .. refused");
	ok(strstr(wrong->errors[2].reason, "invalid path '/a/'") != NULL, "a directory refused");
	is_str(wrong->errors[3].reason,
	       "MetricsFile= set again to a different value (first set at line 5)",
	       "set twice in one file");
	is_str(wrong->errors[4].reason, "MetricsFile= is not valid in [Driver]",
	       "only in [Policy]");
}

static void fixtures_remove(void)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", fixture_dir,
			 i ? "valid.conf" : "errors.conf");
		(void) unlink(path);
	}
	(void) rmdir(fixture_dir);
}

int main(void)
{
	if (!mkdtemp(fixture_dir))
		return 1;
	test_errors();
	test_metrics_file();
	test_valid();
	test_defaults_and_override();
	test_files();
	fixtures_remove();
	return done_testing();
}
