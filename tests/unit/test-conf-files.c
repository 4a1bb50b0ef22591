/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The search path in a temporary root: order, masking, shadowing, drop-ins, permissions. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf-files.h"
#include "macro.h"
#include "policy.h"
#include "tap.h"

static char root[] = "/tmp/test-conf-files-XXXXXX";

static void mkdirs(const char *rel)
{
	char path[PATH_MAX], *p;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		(void) mkdir(path, 0755);
		*p = '/';
	}
	(void) mkdir(path, 0755);
}

static void write_file(const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	f = fopen(path, "we");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
	(void) chmod(path, 0644);
}

static void mask(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	if (symlink("/dev/null", path) < 0)
		abort();
}

static const char *rel(const char *path)
{
	return path + strlen(root);
}

static void build_tree(void)
{
	mkdirs("/etc/cryptoprio.conf.d");
	mkdirs("/run/cryptoprio.conf.d");
	mkdirs("/usr/local/lib/cryptoprio.conf.d");
	mkdirs("/usr/lib/cryptoprio.conf.d/dir.conf");
	write_file("/etc/cryptoprio.conf", "[Policy]\nGears = any\nRequestSize = 8K\n");
	write_file("/run/cryptoprio.conf.d/05-early.conf", "[Policy]\nRank = latency\n");
	write_file("/etc/cryptoprio.conf.d/10-a.conf", "[Policy]\nGears = offload cpu\n");
	write_file("/run/cryptoprio.conf.d/10-a.conf", "[Policy]\nRank = cpu-cost\n");
	write_file("/usr/local/lib/cryptoprio.conf.d/20-b.conf", "[Policy]\nInFlight = 4\n");
	write_file("/usr/lib/cryptoprio.conf.d/20-b.conf", "[Policy]\nInFlight = 8\n");
	write_file("/usr/lib/cryptoprio.conf.d/30-vendor.conf", "[Policy]\nVerify = no\n");
	mask("/etc/cryptoprio.conf.d/30-vendor.conf");
	write_file("/usr/lib/cryptoprio.conf.d/40-last.conf", "[Policy]\nRequestSize = 64K\n");
	write_file("/usr/lib/cryptoprio.conf.d/.hidden.conf", "garbage\n");
	write_file("/usr/lib/cryptoprio.conf.d/notes.txt", "garbage\n");
}

static void test_list(void)
{
	static const struct {
		const char *path;
		enum cp_conf_kind kind;
	} want[] = {
	    {"/etc/cryptoprio.conf", CP_CONF_FILE},
	    {"/run/cryptoprio.conf.d/05-early.conf", CP_CONF_FILE},
	    {"/etc/cryptoprio.conf.d/10-a.conf", CP_CONF_FILE},
	    {"/run/cryptoprio.conf.d/10-a.conf", CP_CONF_SHADOWED},
	    {"/usr/local/lib/cryptoprio.conf.d/20-b.conf", CP_CONF_FILE},
	    {"/usr/lib/cryptoprio.conf.d/20-b.conf", CP_CONF_SHADOWED},
	    {"/etc/cryptoprio.conf.d/30-vendor.conf", CP_CONF_MASK},
	    {"/usr/lib/cryptoprio.conf.d/30-vendor.conf", CP_CONF_SHADOWED},
	    {"/usr/lib/cryptoprio.conf.d/40-last.conf", CP_CONF_FILE},
	};
	_cleanup_(cp_conf_files_done) struct cp_conf_files files = {};

	is_int(cp_conf_files_list(root, &files), 0, "list the tree");
	is_int(files.n_entries, ARRAY_SIZE(want), "main file, drop-ins by name, masks and shadows");
	for (size_t i = 0; i < ARRAY_SIZE(want) && i < files.n_entries; i++) {
		ok(strcmp(rel(files.entries[i].path), want[i].path) == 0 &&
		       files.entries[i].kind == want[i].kind,
		   "%zu: %s (%s)", i, want[i].path, cp_conf_kind_to_string(want[i].kind));
		if (strcmp(rel(files.entries[i].path), want[i].path) != 0)
			diag("got %s (%s)", rel(files.entries[i].path),
			     cp_conf_kind_to_string(files.entries[i].kind));
	}
	is_int(files.n_dirs, 4, "four drop-in directories exist");
}

static void test_precedence(void)
{
	_cleanup_(cp_policy_freep) struct cp_policy *p = NULL;
	struct cp_settings s;
	char main_path[PATH_MAX];

	is_int(cp_policy_load(root, NULL, &p), 0, "the tree's policy is valid");
	cp_policy_global(p, &s);
	is_int(s.gears, CP_GEARS_OFFLOAD_CPU, "10-a.conf in /etc overrides the main file");
	is_str(rel(s.origin[CP_KEY_GEARS].file), "/etc/cryptoprio.conf.d/10-a.conf",
	       "Gears set by /etc/.../10-a.conf");
	is_int(s.origin[CP_KEY_GEARS].line, 2, "at line 2");
	is_int(s.rank, CP_RANK_LATENCY, "/run's 10-a.conf is shadowed by /etc's: its Rank unused");
	is_int(s.in_flight, 4, "/usr/local/lib's 20-b.conf shadows /usr/lib's");
	is_int(s.verify, true, "30-vendor.conf masked by a /dev/null symlink in /etc");
	is_int(s.request_size, 65536, "40-last.conf sorts last and wins over the main file");
	is_int(p->n_files, 5, "five files read");

	cp_policy_free(steal_pointer(&p));
	snprintf(main_path, sizeof(main_path), "%s/etc/cryptoprio.conf", root);
	is_int(cp_policy_load(root, main_path, &p), 0, "-c FILE replaces the search path");
	cp_policy_global(p, &s);
	ok(s.gears == CP_GEARS_ANY && s.request_size == 8192 && p->n_files == 1,
	   "-c FILE: only that file's values");
}

static void test_masked_main_and_permissions(void)
{
	_cleanup_(cp_policy_freep) struct cp_policy *p = NULL;
	char path[PATH_MAX];
	struct cp_settings s;

	snprintf(path, sizeof(path), "%s/etc/cryptoprio.conf", root);
	unlink(path);
	mask("/etc/cryptoprio.conf");
	is_int(cp_policy_load(root, NULL, &p), 0, "masked main file");
	cp_policy_global(p, &s);
	is_int(s.gears, CP_GEARS_OFFLOAD_CPU, "drop-ins still apply");
	is_int(s.request_size, 65536, "the main file's RequestSize is gone with it");
	cp_policy_free(steal_pointer(&p));

	snprintf(path, sizeof(path), "%s/run/cryptoprio.conf.d", root);
	(void) chmod(path, 0777);
	is_int(cp_policy_load(root, NULL, &p), -EBADMSG, "a world-writable drop-in directory");
	ok(p->n_errors == 1 && strcmp(p->errors[0].file, path) == 0 &&
	       strstr(p->errors[0].reason, "directory writable by group or others (mode 0777)"),
	   "is refused with its path");
	cp_policy_free(steal_pointer(&p));
	(void) chmod(path, 0755);

	snprintf(path, sizeof(path), "%s/usr/lib/cryptoprio.conf.d/40-last.conf", root);
	(void) chmod(path, 0646);
	is_int(cp_policy_load(root, NULL, &p), -EBADMSG, "a world-writable drop-in");
	ok(p->n_errors == 1 && strcmp(p->errors[0].file, path) == 0 && p->errors[0].line == 0,
	   "is refused with its path");
	cp_policy_free(steal_pointer(&p));
	(void) chmod(path, 0644);
}

static void test_empty_root(void)
{
	_cleanup_(cp_conf_files_done) struct cp_conf_files files = {};
	_cleanup_(cp_policy_freep) struct cp_policy *p = NULL;
	char empty[] = "/tmp/test-conf-files-empty-XXXXXX";
	struct cp_settings s;

	if (!mkdtemp(empty))
		abort();
	is_int(cp_conf_files_list(empty, &files), 0, "an empty root lists");
	is_int(files.n_entries + files.n_dirs, 0, "nothing");
	is_int(cp_policy_load(empty, NULL, &p), 0, "no file at all: valid");
	cp_policy_global(p, &s);
	ok(s.gears == CP_GEARS_CPU_OFFLOAD && s.request_size == 4096 &&
	       !s.origin[CP_KEY_GEARS].file,
	   "the built-in default");
	rmdir(empty);
}

int main(void)
{
	char cmd[PATH_MAX + 16];
	int r;

	if (!mkdtemp(root))
		return 99;
	build_tree();
	test_list();
	test_precedence();
	test_masked_main_and_permissions();
	test_empty_root();
	r = done_testing();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		diag("could not remove %s", root);
	return r;
}
