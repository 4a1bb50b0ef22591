/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* crypto_user (NETLINK_CRYPTO): the inventory dump and priority updates. */
#pragma once

#include <stdint.h>
#include <linux/netlink.h>

#include "inventory.h"
#include "netlink.h"

#define CP_PRIORITY_MAX 0x7fffffffu /* the kernel stores the u32 in an int */

/* Build a CRYPTO_MSG_GETALG dump request in @buf (MNL_SOCKET_BUFFER_SIZE bytes). */
struct nlmsghdr *cp_cu_build_dump(void *buf);

/*
 * Build a CRYPTO_MSG_UPDATEALG request setting @driver's priority.
 * Returns NULL with errno EINVAL/ENAMETOOLONG/ERANGE for input the
 * interface cannot carry (nothing must be sent then).
 */
struct nlmsghdr *cp_cu_build_update(void *buf, const char *driver, uint64_t priority);

/*
 * Build a CRYPTO_MSG_NEWALG request: the kernel instantiates the template
 * instance @driver (its driver name, "authenc(hmac(sha256-ce),cbc-aes-ce)")
 * and sets its priority to @priority. @name, the algorithm name, may be
 * NULL; the kernel looks the instance up by driver name. Any type (type and
 * mask 0). Returns NULL with errno as cp_cu_build_update().
 */
struct nlmsghdr *cp_cu_build_create(void *buf, const char *driver, const char *name,
				    uint64_t priority);

/*
 * Build a CRYPTO_MSG_DELALG request removing the template instance @driver
 * (the kernel refuses anything else). Returns NULL with errno EINVAL or
 * ENAMETOOLONG for a name it cannot carry.
 */
struct nlmsghdr *cp_cu_build_delete(void *buf, const char *driver);

/* mnl callback: parse one GETALG reply into a struct cp_alg appended to the inventory @data. */
int cp_cu_parse_alg_cb(const struct nlmsghdr *nlh, void *data);

/* Validate what cp_cu_build_update would refuse: 0 or negative errno. */
int cp_cu_check_update(const char *driver, uint64_t priority);

/* Open @nl on NETLINK_CRYPTO: a negative errno, -EPROTONOSUPPORT without crypto_user. */
int cp_cu_open(struct cp_nl *nl);
/* Dump all implementations into @inv over an open NETLINK_CRYPTO socket. */
int cp_cu_dump(struct cp_nl *nl, struct cp_inventory *inv);

/* Set @driver's priority; acked. On error nl->extack may hold the kernel's reason. */
int cp_cu_set_priority(struct cp_nl *nl, const char *driver, uint64_t priority);

/*
 * Create the template instance @driver at @priority; acked. -EEXIST when an
 * implementation with that driver name is registered already (its priority
 * unchanged). As cp_cu_set_priority() otherwise.
 */
int cp_cu_create(struct cp_nl *nl, const char *driver, const char *name, uint64_t priority);

/*
 * Remove the template instance @driver; acked. -EBUSY while someone holds
 * it, -ENOENT when it is not registered, -EINVAL when it is not a template
 * instance. As cp_cu_set_priority() otherwise.
 */
int cp_cu_delete(struct cp_nl *nl, const char *driver);
