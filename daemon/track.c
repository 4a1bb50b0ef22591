/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>
#include <syslog.h>

#include "macro.h"
#include "planner.h"
#include "track.h"

void cp_names_clear(struct cp_names *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

bool cp_names_contains(const struct cp_names *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (streq(s->v[i], name))
			return true;
	return false;
}

static int names_push(struct cp_names *s, char *owned)
{
	char **v = reallocarray(s->v, s->n + 2, sizeof(*v));

	if (!v) {
		free(owned);
		return -ENOMEM;
	}
	s->v = v;
	v[s->n++] = owned;
	v[s->n] = NULL;
	return 1;
}

int cp_names_add(struct cp_names *s, const char *name)
{
	char *copy;

	if (cp_names_contains(s, name))
		return 0;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	return names_push(s, copy);
}

bool cp_track_relevant(const struct cp_alg *alg)
{
	return !(alg->flags & CP_ALG_INTERNAL) && !cp_driver_is_template_instance(alg->driver);
}

bool cp_track_driver_ready(const struct cp_inventory *inv, const char *driver)
{
	bool seen = false;

	/* Every entry of the name: a larval (self-test running, Linux >= 6.12) can sit beside it.
	 */
	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *alg = &inv->algs[i];

		if (!streq(alg->driver, driver))
			continue;
		if (!(alg->flags & CP_ALG_TESTED) || strcmp(alg->type, "larval") == 0)
			return false;
		seen = true;
	}
	return seen;
}

int cp_track_select(const struct cp_inventory *inv, const struct cp_names *known,
		    const struct cp_names *modules, struct cp_names *ready,
		    struct cp_names *waiting)
{
	int n = 0, r;

	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *alg = &inv->algs[i];

		if (!cp_track_relevant(alg))
			continue;
		if (cp_names_contains(known, alg->driver) &&
		    !cp_names_contains(modules, alg->module))
			continue;
		if (!cp_track_driver_ready(inv, alg->driver)) {
			r = cp_names_add(waiting, alg->driver);
		} else {
			r = cp_names_add(ready, alg->driver);
			n += r > 0;
		}
		if (r < 0)
			return r;
	}
	return n;
}

/*
 * The drivers with an entry that is not ready: untested, or a larval
 * (self-test running, Linux >= 6.12) beside the registered one. One pass:
 * asking cp_track_driver_ready() per driver was quadratic in the inventory.
 */
static int unready_drivers(const struct cp_inventory *inv, struct cp_names *ret)
{
	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *alg = &inv->algs[i];

		if ((!(alg->flags & CP_ALG_TESTED) || strcmp(alg->type, "larval") == 0) &&
		    cp_names_add(ret, alg->driver) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The relevant drivers of @inv that are ready (@ready) or not (!@ready). */
static int drivers_by_readiness(const struct cp_inventory *inv, bool ready, struct cp_names *ret)
{
	_cleanup_(cp_names_clear) struct cp_names unready = {};

	cp_names_clear(ret);
	if (unready_drivers(inv, &unready) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *alg = &inv->algs[i];

		if (cp_track_relevant(alg) && cp_names_contains(&unready, alg->driver) != ready &&
		    cp_names_add(ret, alg->driver) < 0) {
			cp_names_clear(ret);
			return -ENOMEM;
		}
	}
	return (int) ret->n;
}

int cp_track_known(const struct cp_inventory *inv, struct cp_names *known)
{
	int r = drivers_by_readiness(inv, true, known);

	return r < 0 ? r : 0;
}

int cp_track_untested(const struct cp_inventory *inv, struct cp_names *waiting)
{
	return drivers_by_readiness(inv, false, waiting);
}

int cp_track_patterns(const struct cp_names *drivers, struct cp_names *ret)
{
	cp_names_clear(ret);
	for (size_t i = 0; i < drivers->n; i++) {
		char *out = malloc(2 * strlen(drivers->v[i]) + 1), *p = out;

		if (!out) {
			cp_names_clear(ret);
			return -ENOMEM;
		}
		for (const char *s = drivers->v[i]; *s; s++) {
			if (strchr("*?[]\\", *s))
				*p++ = '\\';
			*p++ = *s;
		}
		*p = '\0';
		if (names_push(ret, out) < 0) {
			cp_names_clear(ret);
			return -ENOMEM;
		}
	}
	return 0;
}

const char *cp_track_status_text(const struct cp_apply_result *r, const char *trigger, char *buf,
				 size_t len)
{
	const struct cp_calibration *c = &r->calibration;
	size_t used = 0, shown = 0;

#define APPEND(...)                                                                                \
	do {                                                                                       \
		if (used < len) {                                                                  \
			int _n = snprintf(buf + used, len - used, __VA_ARGS__);                    \
			used += _n > 0 ? (size_t) _n : 0;                                          \
		}                                                                                  \
	} while (0)

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (r->n_changed == 0 && r->n_failed == 0 && r->n_gone == 0 && r->n_created == 0 &&
	    r->n_removed == 0 && r->n_in_use == 0)
		APPEND("Policy in force (%s): nothing to change", trigger);
	else
		APPEND("Policy applied (%s): %zu changed, %zu failed", trigger, r->n_changed,
		       r->n_failed);
	if (r->n_created || r->n_removed)
		APPEND(", %zu created, %zu removed", r->n_created, r->n_removed);
	if (r->n_in_use)
		APPEND(", %zu in use (lowered, removed once free)", r->n_in_use);
	if (r->n_gone)
		APPEND(", %zu gone meanwhile", r->n_gone);
	for (size_t i = 0; i < r->n_steps && shown < 3; i++) {
		const struct cp_apply_step_result *s = &r->steps[i];

		if (s->action != CP_STEP_SET || s->error < 0 || s->gone)
			continue;
		APPEND("%s %s %u->%u", shown ? "," : ":", s->driver, s->old_priority,
		       s->new_priority);
		shown++;
	}
	if (r->n_changed > shown)
		APPEND(", ...");
	APPEND("; calibration %s, %zu from cache, %zu measured", cp_backend_to_string(c->backend),
	       c->n_from_cache, c->n_run);
	if (c->n_pending_names)
		APPEND(", %zu %s to measure after READY", c->n_pending_names,
		       cp_plural(c->n_pending_names, "name", "names"));
	if (c->n_noisy_names)
		APPEND(", %zu %s too noisy to decide", c->n_noisy_names,
		       cp_plural(c->n_noisy_names, "name", "names"));
	if (c->n_unverified)
		APPEND(", %zu %s to verify after READY", c->n_unverified,
		       cp_plural(c->n_unverified, "engine", "engines"));
#undef APPEND
	return buf;
}

const char *cp_track_verdict_text(const struct cp_measured *m, char *buf, size_t len,
				  int *ret_level)
{
	bool faulty = false, timeout = false, unreachable = false;

	for (size_t i = 0; i < m->n_points; i++) {
		faulty |= m->points[i].verdict == CP_VERDICT_FAULTY;
		timeout |= m->points[i].verdict == CP_VERDICT_TIMEOUT;
		unreachable |= m->points[i].verdict == CP_VERDICT_UNREACHABLE;
	}
	*ret_level = LOG_WARNING;
	if (m->verified.state == CP_VERIFICATION_FAILED)
		snprintf(buf, len,
			 "%s (%s): verification against %s failed, %s: faulty, never preferred",
			 m->driver, m->name, m->reference[0] ? m->reference : "the reference",
			 m->verified.text);
	else if (faulty)
		snprintf(buf, len, "%s (%s): output differs from %s: faulty, never preferred",
			 m->driver, m->name, m->reference[0] ? m->reference : "the reference");
	else if (timeout)
		snprintf(buf, len,
			 "%s (%s): a request timed out (never completed): never preferred",
			 m->driver, m->name);
	else if (unreachable) {
		*ret_level = LOG_NOTICE;
		snprintf(buf, len, "%s (%s): unreachable through %s: placed by its class alone",
			 m->driver, m->name, cp_backend_to_string(m->backend));
	} else if (m->verified.state == CP_VERIFICATION_NOT_RUN) {
		*ret_level = LOG_NOTICE;
		snprintf(buf, len, "%s (%s): not verified: %s", m->driver, m->name,
			 m->verified.text);
	} else
		return NULL;
	return buf;
}

/* When a run of @trigger ran, in words: "at start", not the internal name. */
static const char *trigger_words(const char *trigger)
{
	static const struct {
		const char *trigger, *words;
	} words[] = {
	    {"start", "at start"},   {"module", "after a module came or went"},
	    {"reload", "at reload"}, {"background", "after measuring what READY left"},
	    {"retry", "at a retry"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (strcmp(trigger, words[i].trigger) == 0)
			return words[i].words;
	return trigger;
}

void cp_track_failure_text(const struct cp_apply_result *r, int error, const char *trigger,
			   char *buf, size_t len)
{
	const struct cp_inventory *inv = &r->inventory;
	const char *when = trigger_words(trigger);

	if (inv->source != CP_SOURCE_CRYPTO_USER && inv->crypto_user_error == -EPROTONOSUPPORT)
		snprintf(buf, len,
			 "The kernel has no crypto_user (NETLINK_CRYPTO: %s; CONFIG_CRYPTO_USER, "
			 "module crypto_user): priorities cannot be changed, nothing to do %s",
			 strerror(EPROTONOSUPPORT), when);
	else if (inv->n_algs && inv->source != CP_SOURCE_CRYPTO_USER)
		snprintf(buf, len,
			 "crypto_user unavailable (%s): read-only inventory from /proc/crypto (%zu "
			 "%s); priorities cannot be changed, nothing applied %s",
			 strerror(-(inv->crypto_user_error ?: error)), inv->n_algs,
			 cp_plural(inv->n_algs, "implementation", "implementations"), when);
	else if (error == -EPERM)
		snprintf(buf, len, "Changing priorities needs CAP_NET_ADMIN; nothing applied %s",
			 when);
	else
		snprintf(buf, len, "Failed to apply the policy %s: %s; nothing changed", when,
			 strerror(-error));
}

bool cp_track_cache_unsaved(const struct cp_apply_result *r)
{
	return strncmp(r->calibration.cache_warning, "cannot save", 11) == 0;
}

int cp_track_cache_flush(const char *path, struct cp_cache *pending)
{
	struct cp_cache cache = {};
	int r;

	r = cp_cache_load(path, &cache);
	if (r == -EBADMSG) { /* a corrupt file is replaced, as cp_calibrate() does */
		cp_cache_free(&cache);
		r = 0;
	}
	for (size_t i = 0; r >= 0 && i < pending->n_entries; i++)
		r = cp_cache_put(&cache, &pending->entries[i]);
	/* A default already in the file was seen first: it stays. */
	for (size_t i = 0; r >= 0 && i < pending->n_defaults; i++)
		r = cp_cache_put_default(&cache, &pending->defaults[i]);
	if (r >= 0)
		r = cp_cache_save(path, &cache);
	cp_cache_free(&cache);
	if (r >= 0)
		cp_cache_free(pending);
	return r;
}
