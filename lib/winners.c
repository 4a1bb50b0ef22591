/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Each caller's winner of a name, and how it moved since recorded (winners.h). */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include <cryptoprio.h>

#include "macro.h"
#include "winners.h"

/* resolve sends these masks to the module as they are */
static_assert(CP_ALG_ASYNC == CRYPTOPRIO_ALG_ASYNC, "CP_ALG_ASYNC is the module's");
static_assert(CP_ALG_ALLOCATES_MEMORY == CRYPTOPRIO_ALG_ALLOCATES_MEMORY,
	      "CP_ALG_ALLOCATES_MEMORY is the module's");
static_assert(CP_ALG_KERN_DRIVER_ONLY == CRYPTOPRIO_ALG_KERN_DRIVER_ONLY,
	      "CP_ALG_KERN_DRIVER_ONLY is the module's");

static const struct {
	const char *name;
	uint32_t refuses;
	bool recorded;
} callers[_CP_CALLER_MAX] = {
    [CP_CALLER_ANY] = {"any", 0, true},
    [CP_CALLER_SYNCHRONOUS] = {"synchronous", CP_ALG_ASYNC, true},
    [CP_CALLER_NON_ALLOCATING] = {"non-allocating", CP_ALG_ALLOCATES_MEMORY, true},
    [CP_CALLER_BOTH] = {"both", CP_ALG_ASYNC | CP_ALG_ALLOCATES_MEMORY, true},
    [CP_CALLER_CPU_ONLY] = {"cpu-only",
			    CP_ALG_ASYNC | CP_ALG_ALLOCATES_MEMORY | CP_ALG_KERN_DRIVER_ONLY,
			    false},
};

const char *cp_caller_to_string(enum cp_caller caller)
{
	return (unsigned) caller < _CP_CALLER_MAX ? callers[caller].name : NULL;
}

int cp_caller_from_string(const char *s, enum cp_caller *ret)
{
	for (size_t i = 0; i < ARRAY_SIZE(callers); i++)
		if (streq(s, callers[i].name)) {
			*ret = (enum cp_caller) i;
			return 0;
		}
	return -EINVAL;
}

uint32_t cp_caller_refuses(enum cp_caller caller)
{
	return (unsigned) caller < _CP_CALLER_MAX ? callers[caller].refuses : 0;
}

bool cp_caller_recorded(enum cp_caller caller)
{
	return (unsigned) caller < _CP_CALLER_MAX && callers[caller].recorded;
}

bool cp_inventory_tells_caller(const struct cp_inventory *inv, enum cp_caller caller)
{
	return inv->source == CP_SOURCE_CRYPTO_USER ||
	       !(cp_caller_refuses(caller) & CP_ALG_ALLOCATES_MEMORY);
}

const struct cp_alg *cp_inventory_winner_for(const struct cp_inventory *inv, const char *name,
					     enum cp_caller caller)
{
	uint32_t refused = cp_caller_refuses(caller);
	const struct cp_alg *best = NULL;

	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *alg = &inv->algs[i];

		if (!streq(alg->name, name) || !cp_alg_competes(alg) || (alg->flags & refused))
			continue;
		if (!best || alg->priority > best->priority)
			best = alg;
	}
	return best;
}

bool cp_winners_of(const struct cp_inventory *inv, const char *name, struct cp_winners *ret)
{
	bool any = false;

	*ret = (struct cp_winners){};
	cp_strscpy(ret->name, sizeof(ret->name), name);
	for (size_t c = 0; c < _CP_CALLER_MAX; c++) {
		const struct cp_alg *w =
		    cp_caller_recorded((enum cp_caller) c)
			? cp_inventory_winner_for(inv, name, (enum cp_caller) c)
			: NULL;

		if (w)
			cp_strscpy(ret->driver[c], sizeof(ret->driver[c]), w->driver);
		any = any || w;
	}
	return any;
}

size_t cp_winners_drift(const struct cp_winners *recorded, size_t n, const struct cp_inventory *inv,
			struct cp_winner_drift *out)
{
	size_t n_drift = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t c = 0; c < _CP_CALLER_MAX; c++) {
			const char *planned = recorded[i].driver[c];
			const struct cp_alg *was =
			    planned[0] ? cp_inventory_find_driver(inv, planned) : NULL;
			const struct cp_alg *now;

			if (!cp_caller_recorded((enum cp_caller) c) || !was ||
			    !cp_alg_competes(was) ||
			    !cp_inventory_tells_caller(inv, (enum cp_caller) c))
				continue;
			now = cp_inventory_winner_for(inv, recorded[i].name, (enum cp_caller) c);
			if (!now || now->priority <= was->priority)
				continue;
			if (out)
				out[n_drift] = (struct cp_winner_drift){
				    recorded[i].name, (enum cp_caller) c, planned, now->driver};
			n_drift++;
		}
	return n_drift;
}
