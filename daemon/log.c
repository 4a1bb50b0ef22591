/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-journal.h>

#include "log.h"

static int log_max = LOG_INFO;
static bool journal;
static char last_error[256];

/* $JOURNAL_STREAM is "DEV:INO" of the stream stderr is connected to (systemd.exec(5)). */
static bool stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (unsigned long long) st.st_dev == dev && (unsigned long long) st.st_ino == ino;
}

void cp_log_open(int max_level)
{
	log_max = max_level;
	journal = stderr_is_journal();
}

bool cp_log_to_journal(void)
{
	return journal;
}

const char *cp_log_last_error(void)
{
	return last_error;
}

static void remember(int level, const char *msg)
{
	size_t n = strnlen(msg, sizeof(last_error) - 1);

	if (level > LOG_WARNING)
		return;
	memcpy(last_error, msg, n);
	last_error[n] = '\0';
}

static void emit(int level, const char *msg)
{
	remember(level, msg);
	if (level > log_max)
		return;
	/*
	 * Plain messages through the stream systemd connected stderr to, with a
	 * "<N>" level prefix: unlike native entries, stream entries are always
	 * attributed to the unit, also for a process that exits right after
	 * (an invalid policy at start). Structured entries are native.
	 */
	if (journal)
		fprintf(stderr, "<%d>%s\n", level, msg);
	else
		fprintf(stderr, "cryptoprio-daemon: %s\n", msg);
}

void cp_log(int level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit(level, msg);
}

int cp_log_errno(int level, int err, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	n = strlen(msg);
	snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(err < 0 ? -err : err));
	emit(level, msg);
	return err;
}

/* The journal line of a step that did not fail. */
static void step_text(const struct cp_apply_step_result *s, char *msg, size_t len)
{
	if (s->gone && s->action == CP_STEP_REMOVE)
		snprintf(msg, len, "%s (%s): gone already, no longer recorded as created",
			 s->driver, s->name);
	else if (s->gone)
		snprintf(msg, len, "%s (%s): gone before its priority could be set to %u",
			 s->driver, s->name, s->new_priority);
	else if (s->action == CP_STEP_CREATE)
		snprintf(msg, len, "%s (%s): created at priority %u%s%s (%s)", s->driver, s->name,
			 s->new_priority, s->extack[0] ? ", " : "", s->extack, s->why);
	else if (s->in_use)
		snprintf(msg, len,
			 "%s (%s): in use, not removed: priority %u -> %u, removed once free (%s)",
			 s->driver, s->name, s->old_priority, s->new_priority, s->why);
	else if (s->action == CP_STEP_REMOVE)
		snprintf(msg, len, "%s (%s): removed (%s)", s->driver, s->name, s->why);
	else if (s->action == CP_STEP_SET)
		snprintf(msg, len, "%s (%s): priority %u -> %u (%s)", s->driver, s->name,
			 s->old_priority, s->new_priority, s->why);
	else
		snprintf(msg, len, "%s (%s): priority %u touched, templates on it retired",
			 s->driver, s->name, s->old_priority);
}

static void failure_text(const struct cp_apply_step_result *s, char *msg, size_t len)
{
	const char *sep = s->extack[0] ? ": " : "";

	if (s->action == CP_STEP_CREATE)
		snprintf(msg, len, "Failed to create %s (%s) at priority %u: %s%s%s", s->driver,
			 s->name, s->new_priority, strerror(-s->error), sep, s->extack);
	else if (s->action == CP_STEP_REMOVE)
		snprintf(msg, len, "Failed to remove %s (%s) or lower it to %u: %s%s%s", s->driver,
			 s->name, s->new_priority, strerror(-s->error), sep, s->extack);
	else
		snprintf(msg, len, "Failed to set %s (%s) priority %u -> %u: %s%s%s", s->driver,
			 s->name, s->old_priority, s->new_priority, strerror(-s->error), sep,
			 s->extack);
}

/* A step that changed which implementation new users get: said at LOG_INFO. */
static bool changes_lookups(const struct cp_apply_step_result *s)
{
	return s->action != CP_STEP_TOUCH;
}

void cp_log_step(const struct cp_apply_step_result *s, const char *trigger)
{
	int level = s->error < 0	   ? LOG_ERR
		    : s->gone || s->in_use ? LOG_NOTICE
		    : changes_lookups(s)   ? LOG_INFO
					   : LOG_DEBUG;
	char msg[1536]; /* names, extack and a step's why */

	if (s->error < 0)
		failure_text(s, msg, sizeof(msg));
	else
		step_text(s, msg, sizeof(msg));
	remember(level, msg);
	if (level > log_max)
		return;
	if (!journal) {
		fprintf(stderr, "cryptoprio-daemon: %s\n", msg);
		return;
	}
	if (s->error < 0)
		(void) sd_journal_send(
		    "MESSAGE=%s", msg, "PRIORITY=%i", level,
		    "MESSAGE_ID=" CP_MESSAGE_PRIORITY_FAILED, "CRYPTOPRIO_DRIVER=%s", s->driver,
		    "CRYPTOPRIO_ALGORITHM=%s", s->name, "CRYPTOPRIO_OLD_PRIORITY=%u",
		    s->old_priority, "CRYPTOPRIO_NEW_PRIORITY=%u", s->new_priority,
		    "CRYPTOPRIO_REASON=%s", s->why, "CRYPTOPRIO_TRIGGER=%s", trigger, "ERRNO=%i",
		    -s->error, "CRYPTOPRIO_KERNEL_MESSAGE=%s", s->extack, "CRYPTOPRIO_ACTION=%s",
		    cp_step_action_to_string(s->action), NULL);
	else if (s->gone)
		(void) sd_journal_send("MESSAGE=%s", msg, "PRIORITY=%i", level,
				       "CRYPTOPRIO_DRIVER=%s", s->driver, "CRYPTOPRIO_ALGORITHM=%s",
				       s->name, "CRYPTOPRIO_TRIGGER=%s", trigger, NULL);
	else if (changes_lookups(s))
		(void) sd_journal_send(
		    "MESSAGE=%s", msg, "PRIORITY=%i", level,
		    "MESSAGE_ID=" CP_MESSAGE_PRIORITY_CHANGED, "CRYPTOPRIO_DRIVER=%s", s->driver,
		    "CRYPTOPRIO_ALGORITHM=%s", s->name, "CRYPTOPRIO_OLD_PRIORITY=%u",
		    s->old_priority, "CRYPTOPRIO_NEW_PRIORITY=%u", s->new_priority,
		    "CRYPTOPRIO_REASON=%s", s->why, "CRYPTOPRIO_TRIGGER=%s", trigger,
		    "CRYPTOPRIO_ACTION=%s", cp_step_action_to_string(s->action), NULL);
	else
		(void) sd_journal_send("MESSAGE=%s", msg, "PRIORITY=%i", level, NULL);
}

void cp_log_policy_errors(const struct cp_policy *p)
{
	for (size_t i = 0; i < p->n_errors; i++) {
		const struct cp_policy_error *e = &p->errors[i];

		if (e->line)
			cp_log(LOG_ERR, "%s:%u: %s", e->file, e->line, e->reason);
		else
			cp_log(LOG_ERR, "%s: %s", e->file, e->reason);
	}
}
