/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a monitoring system watches, in the text format of Prometheus'
 * node_exporter textfile collector (no timestamps): the last apply and its
 * result, drift from the plan, each name's winner, the instances
 * cryptoprio created, and the calibration's figures at each name's
 * workload point. `cryptoprioctl metrics` prints it; the daemon writes it
 * to MetricsFile= after every run.
 */
#pragma once

#include "calib-cache.h"
#include "inventory.h"
#include "policy.h"
#include "state.h"

struct cp_metrics_input {
	const struct cp_state *state; /* the last apply, created instances, daemon's record */
	const struct cp_inventory *inventory; /* the kernel now */
	const struct cp_cache *cache;	      /* NULL: no figures */
	const struct cp_policy *policy;	      /* each name's workload point */
};

/* The metrics as text in @ret_text (the caller's). 0 or -ENOMEM. */
int cp_metrics_format(const struct cp_metrics_input *in, char **ret_text);

/*
 * A label value escaped as the text format wants it (backslash, double
 * quote and line feed as \\, \" and \n) into @out of @size bytes: the
 * escaped length, or -ENAMETOOLONG when it does not fit.
 */
int cp_metrics_escape(const char *value, char *out, size_t size);

/*
 * This machine's metrics under @policy: the kernel's implementations now,
 * the state at @state_path and the cache at @cache_path (NULL: no figures)
 * read, nothing written. A cache that cannot be read gives no figures; a
 * state that cannot be read is an error. Returns 0 with the text in
 * @ret_text, or a negative errno.
 */
int cp_metrics_collect(const struct cp_policy *policy, const char *state_path,
		       const char *cache_path, char **ret_text);
