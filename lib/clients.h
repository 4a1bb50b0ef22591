/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's users of the crypto API that ask for an algorithm by name,
 * and how each asks on a given kernel: the flags its lookups exclude (the
 * mask of crypto_alloc_*()), which decide which implementations a
 * priority can hand it. And the users that no priority steers, because
 * they call the crypto library directly. One table, for resolve to name
 * the real clients behind each kind of caller.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A kernel version as the table compares them: major and minor only. */
#define CP_KERNEL(major, minor) ((uint32_t) (major) << 8 | (uint32_t) (minor))

struct cp_client {
	const char *name; /* "IPsec" */
	const char *asks; /* the names it asks for, for people */
	uint32_t mask;	  /* CRYPTOPRIO_ALG_* its lookups exclude */
	uint32_t since;	  /* first kernel that asks so (CP_KERNEL); 0: every one */
	uint32_t until;	  /* first kernel that no longer does; 0: still does */
};

struct cp_unsteered {
	const char *name; /* "fsverity" */
	const char *why;  /* what it calls instead of the crypto API */
	uint32_t since;	  /* first kernel where it does (CP_KERNEL); 0: always */
};

/* The major and minor of a kernel release ("7.2.13+deb14-amd64"), as CP_KERNEL: 0 or -EINVAL. */
int cp_kernel_version(const char *release, uint32_t *ret);

/* The running kernel's version (uname(2)): 0 or a negative errno. */
int cp_kernel_version_running(uint32_t *ret);

/* Every row of the table, a client once per way it has asked. */
const struct cp_client *cp_clients(size_t *ret_n);

/* Whether @c is how that client asks on @kernel. */
bool cp_client_on(const struct cp_client *c, uint32_t kernel);

/* The users that no priority steers on any kernel from their @since. */
const struct cp_unsteered *cp_unsteered_users(size_t *ret_n);
