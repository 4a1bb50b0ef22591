/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The calibration and its cache (calibrate.h): the figures and
 * verifications taken from it before measuring, those put in after.
 */
#include <errno.h>
#include <string.h>

#include "calib-cache.h"
#include "calibrate-internal.h"
#include "calibrate.h"
#include "macro.h"

/*
 * A template instance is keyed by its driver name alone: its parts are in
 * the name, and the candidate and the instance created from it share it.
 */
int cp_measured_cache_key(const struct cp_measured *m, struct cp_cache_key *key)
{
	struct cp_alg alg = {};
	int r;

	memcpy(alg.driver, m->driver, sizeof(alg.driver));
	memcpy(alg.module, m->module, sizeof(alg.module));
	r = cp_cache_key_for(&alg, key);
	if (r >= 0 && strchr(m->driver, '(')) {
		memset(key->module, 0, sizeof(key->module));
		memset(key->srcversion, 0, sizeof(key->srcversion));
	}
	return r;
}

/* @entry's verification, if @by (the loaded module) made it. */
static void use_cached_verification(struct cp_measured *m, const struct cp_cache_entry *entry,
				    const char *by)
{
	if (!by[0] || !streq(entry->verified.by, by) || !entry->verified.cases)
		return;
	m->verified = (struct cp_verified){.state = CP_VERIFICATION_PASSED,
					   .cached = true,
					   .seed = entry->verified.seed,
					   .cases = entry->verified.cases};
	cp_strscpy(m->verified.by, sizeof(m->verified.by), by);
}

void cp_calibration_use_cache(struct cp_calibration *cal, const struct cp_cache *cache,
			      const char *by, bool cache_only)
{
	for (size_t mi = 0; mi < cal->n_measured; mi++) {
		struct cp_measured *m = &cal->measured[mi];
		struct cp_cache_key key;

		if (cp_measured_cache_key(m, &key) < 0)
			continue;
		for (size_t pi = 0; pi < m->n_points; pi++) {
			const struct cp_cache_entry *entry =
			    cp_cache_find(cache, &key, m->points[pi].size, m->points[pi].depth);

			if (!entry)
				continue;
			use_cached_verification(m, entry, by);
			if (entry->point.mbps.n < cp_calibration_runs_needed(cal, m) ||
			    (entry->point.too_noisy && !cache_only))
				continue;
			m->points[pi] = entry->point;
			m->backend = entry->backend;
			m->kat = entry->kat;
			cal->n_from_cache++;
			if (!cal->cache_oldest || entry->measured_at < cal->cache_oldest)
				cal->cache_oldest = entry->measured_at;
		}
	}
}

/* Whether a point of @m was measured in this run (not from the cache). */
static bool measured_now(const struct cp_measured *m)
{
	for (size_t pi = 0; pi < m->n_points; pi++)
		if (!m->points[pi].cached && m->points[pi].verdict == CP_VERDICT_MEASURED)
			return true;
	return false;
}

/*
 * Whether a point measured now goes into the cache: not when the budget cut
 * its name short, nor with fewer runs than use_cache() takes from it. One
 * too noisy to decide goes in as such (use_cache()).
 */
static bool cacheable(const struct cp_calibration *cal, const struct cp_measured *m,
		      const struct cp_point *p)
{
	return !m->pending && p->mbps.n >= cp_calibration_runs_needed(cal, m);
}

/* A passed verification, for the cache; not verified otherwise (a failure is verified again). */
void cp_measured_cache_verified(const struct cp_measured *m, struct cp_cache_verified *v)
{
	memset(v, 0, sizeof(*v));
	if (m->verified.state != CP_VERIFICATION_PASSED)
		return;
	v->seed = m->verified.seed;
	v->cases = m->verified.cases;
	cp_strscpy(v->by, sizeof(v->by), m->verified.by);
}

/* Whether @m was verified in this run: its cached points then carry the verdict anew. */
static bool verified_now(const struct cp_measured *m)
{
	return m->verified.state == CP_VERIFICATION_PASSED && !m->verified.cached;
}

int cp_calibration_cache_put(const struct cp_calibration *cal, time_t now, struct cp_cache *cache)
{
	int added = 0, r;

	for (size_t mi = 0; mi < cal->n_measured; mi++) {
		const struct cp_measured *m = &cal->measured[mi];
		struct cp_cache_entry entry = {.backend = m->backend, .kat = m->kat};
		const struct cp_cache_entry *old;

		if (m->kat == CRYPTOPRIO_KAT_MISMATCH || m->pending ||
		    (!measured_now(m) && !verified_now(m)) ||
		    cp_measured_cache_key(m, &entry.key) < 0)
			continue;
		cp_measured_cache_verified(m, &entry.verified);
		for (size_t pi = 0; pi < m->n_points; pi++) {
			if (m->points[pi].verdict != CP_VERDICT_MEASURED ||
			    (m->points[pi].cached && !verified_now(m)) ||
			    (!m->points[pi].cached && !cacheable(cal, m, &m->points[pi])))
				continue;
			old = cp_cache_find(cache, &entry.key, m->points[pi].size,
					    m->points[pi].depth);
			entry.measured_at = m->points[pi].cached && old ? old->measured_at : now;
			entry.point = m->points[pi];
			entry.point.cached = false;
			r = cp_cache_put(cache, &entry);
			if (r < 0)
				return r;
			added++;
		}
	}
	return added;
}

static void warn_cache_ignored(struct cp_calibration *cal, const char *path, int error)
{
	snprintf(cal->cache_warning, sizeof(cal->cache_warning), "ignoring %s: %s", path,
		 error == -EBADMSG ? "corrupt or from another version" : strerror(-error));
}

void cp_calibration_cache_unsaved(struct cp_calibration *cal, const char *path, int error)
{
	snprintf(cal->cache_warning, sizeof(cal->cache_warning), "cannot save %s: %s", path,
		 strerror(-error));
}

/* The cache to read and update: the caller's, or the file's loaded into @own. */
struct cp_cache *cp_calibration_open_cache(const struct cp_calibrate_options *opts,
					   struct cp_calibration *cal, struct cp_cache *own)
{
	int r;

	if (opts->cache) {
		if (opts->cache_error < 0)
			warn_cache_ignored(cal, opts->cache_path, opts->cache_error);
		return opts->cache;
	}
	r = cp_cache_load(opts->cache_path, own);
	if (r < 0)
		warn_cache_ignored(cal, opts->cache_path, r);
	return own;
}

/* Keep what was measured now: saved here unless the caller owns the cache. */
void cp_calibration_store_cache(const struct cp_calibrate_options *opts, struct cp_calibration *cal,
				struct cp_cache *cache)
{
	int r;

	if (cp_calibration_cache_put(cal, time(NULL), cache) <= 0)
		return;
	cal->cache_updated = true;
	if (opts->cache)
		return;
	r = cp_cache_save(opts->cache_path, cache);
	if (r < 0)
		cp_calibration_cache_unsaved(cal, opts->cache_path, r);
}
