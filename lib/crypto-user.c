/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * crypto_user (crypto-user.h): its messages built and parsed, and the dump,
 * priority updates and template instances made and removed through them.
 */
#include <errno.h>
#include <string.h>
#include <linux/cryptouser.h>

#include "crypto-user.h"
#include "macro.h"

#ifndef NETLINK_CRYPTO
#define NETLINK_CRYPTO 21
#endif

struct nlmsghdr *cp_cu_build_dump(void *buf)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct crypto_user_alg *cru;

	nlh->nlmsg_type = CRYPTO_MSG_GETALG;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	/* The kernel checks the payload length even for a dump. */
	cru = mnl_nlmsg_put_extra_header(nlh, sizeof(*cru));
	(void) cru;
	return nlh;
}

int cp_cu_check_update(const char *driver, uint64_t priority)
{
	size_t len;

	if (!driver || !*driver)
		return -EINVAL;
	len = strlen(driver);
	if (len >= CRYPTO_MAX_NAME)
		return -ENAMETOOLONG;
	if (priority > CP_PRIORITY_MAX)
		return -ERANGE;
	return 0;
}

#define NO_PRIORITY UINT64_MAX

/*
 * A request the kernel looks up by driver name (and, for NEWALG,
 * instantiates by it: exact), with the priority to give unless
 * NO_PRIORITY (DELALG); @name, when not NULL, is the algorithm's name
 * (NEWALG only). NULL with errno set when the fields do not fit.
 */
static struct nlmsghdr *put_alg_request(void *buf, uint16_t type, const char *driver,
					const char *name, uint64_t priority)
{
	struct crypto_user_alg *cru;
	struct nlmsghdr *nlh;
	int r;

	r = cp_cu_check_update(driver, priority == NO_PRIORITY ? 0 : priority);
	if (r == 0 && name && strlen(name) >= CRYPTO_MAX_NAME)
		r = -ENAMETOOLONG;
	if (r < 0) {
		errno = -r;
		return NULL;
	}
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	cru = mnl_nlmsg_put_extra_header(nlh, sizeof(*cru));
	memcpy(cru->cru_driver_name, driver, strlen(driver) + 1);
	if (name)
		memcpy(cru->cru_name, name, strlen(name) + 1);
	/* cru_type and cru_mask 0: whatever type the driver (or template) has. */
	if (priority != NO_PRIORITY)
		mnl_attr_put_u32(nlh, CRYPTOCFGA_PRIORITY_VAL, (uint32_t) priority);
	return nlh;
}

struct nlmsghdr *cp_cu_build_update(void *buf, const char *driver, uint64_t priority)
{
	return put_alg_request(buf, CRYPTO_MSG_UPDATEALG, driver, NULL, priority);
}

struct nlmsghdr *cp_cu_build_create(void *buf, const char *driver, const char *name,
				    uint64_t priority)
{
	return put_alg_request(buf, CRYPTO_MSG_NEWALG, driver, name, priority);
}

struct nlmsghdr *cp_cu_build_delete(void *buf, const char *driver)
{
	return put_alg_request(buf, CRYPTO_MSG_DELALG, driver, NULL, NO_PRIORITY);
}

/* A fixed-size kernel string: copy at most its size, always terminated. */
static void copy_name(char dst[CP_NAME_MAX], const char *src, size_t src_size)
{
	size_t n = strnlen(src, src_size < CP_NAME_MAX ? src_size : CP_NAME_MAX - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static bool is_report_attr(uint16_t type)
{
	/* Every crypto_report_* struct starts with char type[CRYPTO_MAX_NAME]. */
	if (type >= CRYPTOCFGA_REPORT_LARVAL && type <= CRYPTOCFGA_REPORT_ACOMP)
		return true;
	/* Report attributes added after the (removed) statistics ones. */
	return type > CRYPTOCFGA_STAT_ACOMP;
}

static int parse_alg_attr(const struct nlattr *attr, void *data)
{
	struct cp_alg *alg = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, UINT16_MAX) < 0)
		return MNL_CB_ERROR;
	if (type == CRYPTOCFGA_PRIORITY_VAL) {
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		alg->priority = mnl_attr_get_u32(attr);
	} else if (is_report_attr(type) && mnl_attr_get_payload_len(attr) >= CRYPTO_MAX_NAME &&
		   alg->type[0] == '\0') {
		copy_name(alg->type, mnl_attr_get_payload(attr), CRYPTO_MAX_NAME);
	}
	return MNL_CB_OK;
}

int cp_cu_parse_alg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct cp_inventory *inv = data;
	const struct crypto_user_alg *cru;
	struct cp_alg alg = {};
	int r;

	if (nlh->nlmsg_type != CRYPTO_MSG_GETALG) {
		errno = EPROTO;
		return MNL_CB_ERROR;
	}
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*cru)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	cru = mnl_nlmsg_get_payload(nlh);
	copy_name(alg.name, cru->cru_name, sizeof(cru->cru_name));
	copy_name(alg.driver, cru->cru_driver_name, sizeof(cru->cru_driver_name));
	copy_name(alg.module, cru->cru_module_name, sizeof(cru->cru_module_name));
	alg.refcnt = cru->cru_refcnt;
	alg.flags = cru->cru_flags;
	if (mnl_attr_parse(nlh, sizeof(*cru), parse_alg_attr, &alg) < 0) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	r = cp_inventory_add(inv, &alg);
	if (r < 0) {
		errno = -r;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

int cp_cu_open(struct cp_nl *nl)
{
	return cp_nl_open(nl, NETLINK_CRYPTO);
}

int cp_cu_dump(struct cp_nl *nl, struct cp_inventory *inv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	memset(buf, 0, sizeof(buf)); /* as in cpmod.c: no stack bytes to the kernel */
	return cp_nl_transact(nl, cp_cu_build_dump(buf), cp_cu_parse_alg_cb, inv);
}

int cp_cu_set_priority(struct cp_nl *nl, const char *driver, uint64_t priority)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	memset(buf, 0, sizeof(buf)); /* as in cpmod.c: no stack bytes to the kernel */
	nlh = cp_cu_build_update(buf, driver, priority);
	if (!nlh)
		return negative_errno();
	return cp_nl_transact(nl, nlh, NULL, NULL);
}

/* Send a built request (NULL: refused, errno set) and wait for the ack. */
static int transact_built(struct cp_nl *nl, struct nlmsghdr *nlh)
{
	if (!nlh)
		return negative_errno();
	return cp_nl_transact(nl, nlh, NULL, NULL);
}

int cp_cu_create(struct cp_nl *nl, const char *driver, const char *name, uint64_t priority)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	memset(buf, 0, sizeof(buf)); /* as in cpmod.c: no stack bytes to the kernel */
	return transact_built(nl, cp_cu_build_create(buf, driver, name, priority));
}

int cp_cu_delete(struct cp_nl *nl, const char *driver)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	memset(buf, 0, sizeof(buf));
	return transact_built(nl, cp_cu_build_delete(buf, driver));
}
