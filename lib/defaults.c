/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's own priorities (defaults.h): noted in the cache at the first
 * change, recovered from it into a lost state file.
 */
#include <errno.h>
#include <string.h>

#include "defaults.h"

bool cp_default_priority(const struct cp_cache *cache, const struct cp_alg *alg, uint32_t *ret)
{
	const struct cp_cache_default *def;
	struct cp_cache_key key;

	if (cp_cache_key_for(alg, &key) < 0)
		return false;
	def = cp_cache_find_default(cache, &key);
	if (!def)
		return false;
	*ret = def->priority;
	return true;
}

int cp_state_record_default(struct cp_state *state, const struct cp_alg *alg,
			    const struct cp_cache *cache)
{
	uint32_t priority = alg->priority;

	(void) cp_default_priority(cache, alg, &priority);
	return cp_state_record_priority(state, alg, priority);
}

int cp_defaults_note(struct cp_cache *cache, const struct cp_state *state,
		     const struct cp_inventory *inv, time_t now)
{
	int n = 0, r;

	for (size_t i = 0; i < state->n_originals; i++) {
		const struct cp_original *orig = &state->originals[i];
		const struct cp_alg *alg = cp_inventory_find_driver(inv, orig->driver);
		struct cp_cache_default def = {.priority = orig->priority, .seen_at = now};

		/* Another module of the same driver name since: not this one's default. */
		if (!alg || strcmp(alg->module, orig->module) != 0)
			continue;
		r = cp_cache_key_for(alg, &def.key);
		if (r < 0)
			return r;
		r = cp_cache_put_default(cache, &def);
		if (r < 0)
			return r;
		n += r;
	}
	return n;
}

int cp_defaults_recover(struct cp_state *state, const struct cp_inventory *inv,
			const struct cp_cache *cache)
{
	int n = 0, r;

	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *alg = &inv->algs[i];
		uint32_t priority;

		if (cp_state_find(state, alg->driver) ||
		    !cp_default_priority(cache, alg, &priority) || priority == alg->priority)
			continue;
		r = cp_state_record_priority(state, alg, priority);
		if (r < 0)
			return r;
		n += r;
	}
	return n;
}
