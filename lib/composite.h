/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The CPU's candidate for a name an engine serves natively. A lookup hands
 * out the highest-priority registered implementation of a name and builds a
 * template instance only when none is registered, so while an engine's
 * "authenc(hmac(sha256),cbc(aes))" is the only one, the CPU never competes.
 * Its candidate is the template instance built from the CPU winners of the
 * parts, spelled as the kernel spells that instance's driver name, so that
 * CRYPTO_MSG_NEWALG can create it by that name.
 */
#pragma once

#include "inventory.h"

/* The competing implementation of class cpu with the highest priority of @name, or NULL. */
const struct cp_alg *cp_cpu_winner(const struct cp_inventory *inv, const char *name);

/*
 * Spell the CPU's candidate for @name into @driver: for
 * "echainiv(authenc(hmac(sha256),cbc(aes)))" on arm64
 * "echainiv(authenc(hmac(sha256-ce),cbc-aes-ce))". A part is the CPU winner
 * of its name or, where no CPU implementation of it is registered, built
 * the same way ("hmac(sha256-ce)" above). Templates that instantiate under
 * other parts are followed: gcm(X) is gcm_base(ctr(X),ghash) (ghash-lib where
 * @inv->ghash_library), ccm(X) is
 * ccm_base(ctr(X),cbcmac(X)), xts(X) and lrw(X) wrap ecb(X).
 *
 * Returns 0, or:
 *   -EEXIST        a CPU implementation of @name is registered: rank it instead;
 *                  or the candidate itself is, not self-tested yet;
 *   -ENOENT        a part that is not a template has no CPU implementation
 *                  registered (@name itself, if it is no template): @driver
 *                  then holds that part's name ("md5");
 *   -ENAMETOOLONG  the candidate, or one of its parts, would be CP_NAME_MAX
 *                  bytes or longer: the kernel cannot address it;
 *   -EINVAL        @name is not NAME or TEMPLATE(PART,...) with balanced parentheses.
 */
int cp_composite_candidate(const struct cp_inventory *inv, const char *name,
			   char driver[static CP_NAME_MAX]);
