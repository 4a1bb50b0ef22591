/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The daemon's messages: to the journal with structured fields when stderr
 * is connected to it ($JOURNAL_STREAM), else to stderr as
 * "cryptoprio-daemon: MESSAGE".
 */
#pragma once

#include <stdbool.h>
#include <syslog.h>

#include "apply.h"
#include "macro.h"
#include "policy.h"

/* MESSAGE_ID of the entry for each priority changed (cryptoprio-daemon(8)). */
#define CP_MESSAGE_PRIORITY_CHANGED "586bd842bd7f465a8361b31da7661804"
/* MESSAGE_ID of the entry for each step that failed. */
#define CP_MESSAGE_PRIORITY_FAILED "44a59ac69d3442afa201a8ba43acd67c"

/* Decide where messages go; @max_level: LOG_INFO, or LOG_DEBUG with --verbose. */
void cp_log_open(int max_level);
bool cp_log_to_journal(void);

void cp_log(int level, const char *fmt, ...) _printf_(2, 3);
/* Log with ": strerror(-err)" appended; returns @err. */
int cp_log_errno(int level, int err, const char *fmt, ...) _printf_(3, 4);

/* One entry per step: changed (info), touched (debug), failed (error), with the fields. */
void cp_log_step(const struct cp_apply_step_result *s, const char *trigger);
/* Every error of an invalid policy, one entry each, as FILE:LINE: REASON. */
void cp_log_policy_errors(const struct cp_policy *p);

/* The last error or warning logged (for the state file), or "". */
const char *cp_log_last_error(void);
