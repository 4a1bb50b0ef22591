/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The AF_ALG calibration backend (libkcapi), for machines without the
 * companion module. Same request and result as the module's client, so
 * the calibration engine treats both alike. Since Linux 7.2 AF_ALG binds
 * only synchronous CPU implementations: an engine answers -ENOENT there.
 */
#pragma once

#include "cpmod.h"

/*
 * Time @req->driver (an implementation of algorithm @name) for about
 * @req->budget_ns and, first, compare its output on random input with
 * @reference's (NULL: known answer unsupported). A mismatch ends the run
 * before any timing. Returns 0 or a negative errno (-ENOENT: AF_ALG cannot
 * bind the driver).
 */
int cp_afalg_calibrate(const struct cp_mod_calib_req *req, const char *name, const char *reference,
		       struct cp_mod_calib_result *res);
