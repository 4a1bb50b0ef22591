/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cryptoprioctl export: this machine's implementations, created instances,
 * calibration and kernel identity as one JSON document, for `plan --from`
 * on any other machine. Reads the kernel, the cache and the state; writes
 * nothing.
 */
#include <getopt.h>

#include "cryptoprioctl.h"
#include "export.h"
#include "paths.h"

int verb_export(struct ctl *ctl, int argc, char **argv)
{
	static const struct option options[] = {{}};
	_cleanup_(cp_export_free) struct cp_export ex = {};
	json_object *doc;
	int c, r;

	while ((c = getopt_long(argc, argv, ":", options, NULL)) >= 0)
		return ctl_option_error(argv[0], c);
	if (optind < argc)
		return ctl_usage_error("export: unexpected argument '%s'", argv[optind]);
	r = cp_export_collect(CP_CACHE_PATH, CP_STATE_PATH, &ex);
	if (r < 0)
		return ctl_errno(r, NULL, "export: cannot read the kernel's implementations");
	doc = cp_export_to_json(&ex);
	if (!doc)
		return ctl_errno(-ENOMEM, NULL, "export");
	/* A document whatever --json says: it is what the verb makes. */
	if (ctl->json == CTL_JSON_OFF)
		ctl->json = CTL_JSON_PRETTY;
	ctl_json_print(doc);
	return EXIT_SUCCESS;
}
