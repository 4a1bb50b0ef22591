/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cryptoprio-daemon [-c FILE] [--once] [-v]: see cryptoprio-daemon(8). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "daemon.h"
#include "log.h"

static void help(void)
{
	printf("Usage: cryptoprio-daemon [OPTION...]\n"
	       "Apply the cryptoprio policy at boot and whenever crypto drivers come and go.\n\n"
	       "  -c, --config FILE  read only FILE as the policy (no search path)\n"
	       "      --once         apply once and exit (0: every step done, 1: otherwise)\n"
	       "  -v, --verbose      log debug messages too\n"
	       "  -h, --help         show this help\n"
	       "      --version      show the version\n");
}

int main(int argc, char **argv)
{
	enum { OPT_ONCE = 0x100, OPT_VERSION };
	static const struct option options[] = {
	    {"config", required_argument, NULL, 'c'},	 {"once", no_argument, NULL, OPT_ONCE},
	    {"verbose", no_argument, NULL, 'v'},	 {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, OPT_VERSION}, {},
	};
	_cleanup_(cp_daemon_freep) struct cp_daemon *d = NULL;
	struct cp_daemon_options o = {};
	int c, level = LOG_INFO;

	while ((c = getopt_long(argc, argv, "c:vh", options, NULL)) >= 0) {
		switch (c) {
		case 'c':
			o.config_file = optarg;
			break;
		case OPT_ONCE:
			o.once = true;
			break;
		case 'v':
			level = LOG_DEBUG;
			break;
		case 'h':
			help();
			return EXIT_SUCCESS;
		case OPT_VERSION:
			printf("cryptoprio-daemon %s\n", PACKAGE_VERSION);
			return EXIT_SUCCESS;
		default:
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cryptoprio-daemon: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	cp_log_open(level);
	if (cp_daemon_new(&o, &d) < 0) {
		cp_log(LOG_ERR, "Out of memory");
		return EXIT_FAILURE;
	}
	return cp_daemon_run(d);
}
