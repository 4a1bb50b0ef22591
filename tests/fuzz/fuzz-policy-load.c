/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The whole search path: the input, split at lines "%%", becomes the main
 * file and drop-ins in the four directories of a temporary root (an empty
 * piece becomes a mask, a symlink to /dev/null), read by cp_policy_load
 * with systemd's precedence; then with -c on the main file alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz-policy-common.h"

/* Where piece i goes (under the root). 10-vendor in /run shadows the one in /usr/lib. */
static const char *const layout[] = {
    "/etc/cryptoprio.conf",
    "/usr/lib/cryptoprio.conf.d/10-vendor.conf",
    "/etc/cryptoprio.conf.d/20-admin.conf",
    "/run/cryptoprio.conf.d/10-vendor.conf",
    "/usr/local/lib/cryptoprio.conf.d/30-local.conf",
};
#define N_PIECES (sizeof(layout) / sizeof(*layout))

static char root[] = "/tmp/cryptoprio-fuzz-XXXXXX";

static void make_dirs(void)
{
	static const char *const dirs[] = {
	    "/etc",
	    "/etc/cryptoprio.conf.d",
	    "/run",
	    "/run/cryptoprio.conf.d",
	    "/usr",
	    "/usr/lib",
	    "/usr/lib/cryptoprio.conf.d",
	    "/usr/local",
	    "/usr/local/lib",
	    "/usr/local/lib/cryptoprio.conf.d",
	};
	char path[PATH_MAX];

	FUZZ_CHECK(mkdtemp(root));
	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++) {
		snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
		FUZZ_CHECK(mkdir(path, 0755) == 0);
	}
}

static void remove_tree(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz-policy-load: could not remove %s\n", root);
}

static void write_piece(size_t i, const uint8_t *data, size_t size)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s%s", root, layout[i]);
	if (size == 0) {
		FUZZ_CHECK(symlink("/dev/null", path) == 0);
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(write(fd, data, size) == (ssize_t) size);
	close(fd);
}

static void clear_pieces(void)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < N_PIECES; i++) {
		snprintf(path, sizeof(path), "%s%s", root, layout[i]);
		FUZZ_CHECK(unlink(path) == 0 || errno == ENOENT);
	}
}

static void load_and_query(const char *config_file)
{
	struct cp_policy *policy = NULL;
	int r = cp_policy_load(root, config_file, &policy);

	if (r == -ENOMEM)
		return;
	FUZZ_CHECK(r == 0 || r == -EBADMSG);
	FUZZ_CHECK(policy);
	/* Returns -EBADMSG exactly when errors were recorded: nothing half-valid is used. */
	FUZZ_CHECK((r == 0) == (policy->n_errors == 0));
	fuzz_query_policy(policy);
	cp_policy_free(policy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool initialized;
	const uint8_t *p = data, *end = data + size;
	char main_file[PATH_MAX];
	size_t n = 0;

	if (!initialized) {
		make_dirs();
		atexit(remove_tree);
		initialized = true;
	}
	clear_pieces();
	/* Pieces end at a line "%%"; the last one at the end of the input. */
	while (n < N_PIECES) {
		const uint8_t *q = p;
		const uint8_t *sep = NULL;

		while (q + 3 <= end) {
			if ((q == data || q[-1] == '\n') && q[0] == '%' && q[1] == '%' &&
			    q[2] == '\n') {
				sep = q;
				break;
			}
			q++;
		}
		write_piece(n++, p, (size_t) ((sep ? sep : end) - p));
		if (!sep)
			break;
		p = sep + 3;
	}
	load_and_query(NULL);
	snprintf(main_file, sizeof(main_file), "%s%s", root, layout[0]);
	load_and_query(main_file);
	return 0;
}
