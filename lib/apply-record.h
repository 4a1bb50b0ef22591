/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A run's record in the state file, built in memory: pure, for the run's
 * files (apply-files.c), which write it, and their unit tests.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "apply-result.h"
#include "inventory.h"
#include "policy.h"
#include "state.h"

/*
 * Record each create step of @result in state->created before its NEWALG,
 * so that an instance created just before a crash is known. Returns 0 or
 * -ENOMEM.
 */
int cp_apply_note_creates(struct cp_state *state, const struct cp_apply_result *result);

/*
 * Forget the created instances @inv (from crypto_user) does not list: a
 * create that did not happen, or an instance removed by someone else (or
 * torn down with a module of its parts). Returns how many were forgotten.
 */
size_t cp_apply_forget_unregistered(struct cp_state *state, const struct cp_inventory *inv);

/*
 * The state record of a plan about to be applied: every step pending,
 * with the files of @policy (the one in force) and who applies it.
 * Returns NULL on ENOMEM.
 */
/*
 * The winners of @inv for each of the @n names a run planned, into @rec,
 * now recorded (a name with none forgotten); @previous's of the names the
 * run did not plan (a module's run plans only its names) kept, where
 * @previous is not NULL. Returns 0 or -ENOMEM.
 */
int cp_apply_record_winners(struct cp_state_apply *rec, const struct cp_inventory *inv,
			    char *const *names, size_t n);
int cp_apply_carry_winners(struct cp_state_apply *rec, const struct cp_state_apply *previous,
			   char *const *names, size_t n);

struct cp_state_apply *cp_apply_state_record(const struct cp_apply_result *result,
					     const struct cp_policy *policy, const char *agent,
					     int64_t now, int32_t pid);
