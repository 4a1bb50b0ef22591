/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's part of `cryptoprioctl status` (cli/ctl-daemon.c). */
#pragma once

#include <json-c/json.h>

struct cp_apply_result;
struct cp_policy;
struct cp_state;

/* "daemon" of `status --json`: the daemon's record, running, its unit. */
json_object *ctl_daemon_json(const struct cp_state *state);
/* The "Daemon:" lines of `status`. */
void ctl_daemon_print(const struct cp_state *state);
/*
 * cp_apply_options.before_final_write for apply: keeps in @userdata (a
 * json_object **) the daemon's record of the state file the apply writes,
 * so that ctl_daemon_after_apply() need not read the file again.
 */
void ctl_daemon_keep_record(const struct cp_apply_result *result, struct cp_state *state,
			    void *userdata);
/*
 * After a successful apply of @applied, @record what ctl_daemon_keep_record()
 * kept (NULL: no daemon recorded): a running daemon keeps the policy it
 * read and applies it again at the next module event. Reading the same files,
 * it is told to read them again (SIGHUP, as `systemctl reload` does after
 * checking them); reading others, it is left alone and a warning says so.
 */
void ctl_daemon_after_apply(const struct cp_policy *applied, json_object *record);
