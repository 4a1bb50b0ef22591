// SPDX-License-Identifier: GPL-2.0-only
/*
 * cp_caam_engine's own copy of the engine core: an object file cannot be
 * linked into two modules, so the source is compiled once more here.
 */
#include "cp_engine_core.c"
