/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /proc/crypto's text into an inventory: the fallback source, and what tests read. */
#pragma once

#include <stdio.h>

#include "inventory.h"

/*
 * Appends what @f lists to @inv ('#' lines, which /proc/crypto never has,
 * are comments); 0, or -EBADMSG (malformed) or -ENOMEM.
 */
int cp_proc_crypto_parse(FILE *f, struct cp_inventory *inv);
