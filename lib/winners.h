/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which implementation a new user of a name gets, for each kind of caller
 * cryptoprioctl resolve names: those that take any, those that cannot wait
 * for an asynchronous one, those that must not have one allocate memory
 * per request (dm-crypt), both, and those that take the CPU's only
 * (fscrypt since 6.17, AF_ALG since 7.2). An apply records the first
 * four's winners for the names it planned; status compares the kernel's
 * now (drift).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inventory.h"

enum cp_caller {
	CP_CALLER_ANY,
	CP_CALLER_SYNCHRONOUS,	  /* refuses CP_ALG_ASYNC */
	CP_CALLER_NON_ALLOCATING, /* refuses CP_ALG_ALLOCATES_MEMORY */
	CP_CALLER_BOTH,		  /* refuses both */
	CP_CALLER_CPU_ONLY,	  /* refuses both and CP_ALG_KERN_DRIVER_ONLY */
	_CP_CALLER_MAX,
};

/*
 * "any", "synchronous", "non-allocating", "both", "cpu-only" (resolve's
 * words); NULL if out of range.
 */
const char *cp_caller_to_string(enum cp_caller caller);
int cp_caller_from_string(const char *s, enum cp_caller *ret);
/*
 * The flags a lookup of @caller masks out: CP_ALG_*, the same bits as the
 * module's CRYPTOPRIO_ALG_* (its RESOLVE's mask).
 */
uint32_t cp_caller_refuses(enum cp_caller caller);
/*
 * Whether an apply records @caller's winner of each name, and status
 * compares it (drift): all but cpu-only, which resolve alone asks for.
 */
bool cp_caller_recorded(enum cp_caller caller);

/*
 * Whether @inv's flags tell @caller's winners: crypto_user's carry every
 * flag, /proc/crypto's not CP_ALG_ALLOCATES_MEMORY.
 */
bool cp_inventory_tells_caller(const struct cp_inventory *inv, enum cp_caller caller);

/*
 * What a lookup of @name by @caller returns now: the highest priority among
 * the implementations of that name that compete and carry none of the
 * flags @caller refuses (ties: the first in @inv). NULL if none.
 */
const struct cp_alg *cp_inventory_winner_for(const struct cp_inventory *inv, const char *name,
					     enum cp_caller caller);

/*
 * The winners of one name, a driver per caller; "" where none is
 * registered, or the caller is not recorded.
 */
struct cp_winners {
	char name[CP_NAME_MAX];
	char driver[_CP_CALLER_MAX][CP_NAME_MAX];
};

/* @name's winners in @inv into @ret: true if there is one for any recorded caller. */
bool cp_winners_of(const struct cp_inventory *inv, const char *name, struct cp_winners *ret);

/* A caller of a name that a lookup now gives another implementation than recorded. */
struct cp_winner_drift {
	const char *name;
	enum cp_caller caller;
	const char *planned; /* the driver recorded */
	const char *now;     /* the one that wins now */
};

/*
 * The callers of @recorded's names (@n) that @inv now hands another
 * implementation: one registered above the driver recorded, which still
 * competes. A driver no longer registered is not drift (its module was
 * removed: the next apply plans without it), nor is a caller @inv cannot
 * tell, nor one that had no winner recorded, nor one at the recorded
 * driver's priority (the kernel's order of registration decides; plans
 * keep priorities apart). Each into @out, which has room for
 * n * _CP_CALLER_MAX (NULL: counted only); returns how many.
 */
size_t cp_winners_drift(const struct cp_winners *recorded, size_t n, const struct cp_inventory *inv,
			struct cp_winner_drift *out);
