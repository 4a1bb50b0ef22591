/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's part of `cryptoprioctl status` (cli/ctl-daemon.c). */
#pragma once

#include <json-c/json.h>

struct cp_state;

/* "daemon" of `status --json`: the daemon's record, running, its unit. */
json_object *ctl_daemon_json(const struct cp_state *state);
/* The "Daemon:" lines of `status`. */
void ctl_daemon_print(const struct cp_state *state);
