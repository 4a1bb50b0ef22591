/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cryptoprioctl metrics: what the daemon writes to MetricsFile=, printed
 * now: node_exporter's textfile format, for monitoring (cryptoprioctl(8),
 * "metrics"). Reads the kernel, the state, the cache and the policy.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cryptoprioctl.h"
#include "metrics.h"
#include "paths.h"

int verb_metrics(struct ctl *ctl, int argc, char **argv)
{
	static const struct option options[] = {{}};
	_cleanup_(cp_policy_freep) struct cp_policy *policy = NULL;
	_cleanup_free_ char *text = NULL;
	int c, r;

	while ((c = getopt_long(argc, argv, ":", options, NULL)) >= 0)
		return ctl_option_error(argv[0], c);
	if (optind < argc)
		return ctl_usage_error("metrics: unexpected argument '%s'", argv[optind]);
	if (ctl->json != CTL_JSON_OFF)
		return ctl_usage_error("metrics: the text format of Prometheus only, no --json");
	r = cp_policy_load(NULL, ctl->config, &policy);
	if (r == -EBADMSG)
		return ctl_error("metrics: the policy is invalid (cryptoprioctl check-policy says "
				 "why)");
	if (r < 0)
		return ctl_errno(r, NULL, "metrics: cannot read the policy");
	r = cp_metrics_collect(policy, CP_STATE_PATH, CP_CACHE_PATH, &text);
	if (r == -EBADMSG)
		return ctl_error("metrics: %s is not a valid state file", CP_STATE_PATH);
	if (r < 0)
		return ctl_errno(r, NULL, "metrics");
	fputs(text, stdout);
	return EXIT_SUCCESS;
}
