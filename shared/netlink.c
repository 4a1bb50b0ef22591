/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The netlink socket (netlink.h): requests sent, replies and extended acks
 * parsed, within the receive buffer's bound.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <linux/netlink.h>

#include "macro.h"
#include "netlink.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif

int cp_nl_open(struct cp_nl *nl, int protocol)
{
	int one = 1;
	int r;

	memset(nl, 0, sizeof(*nl));
	nl->buf = malloc(CP_NL_RECV_BUFFER);
	if (!nl->buf)
		return -ENOMEM;
	nl->sock = mnl_socket_open2(protocol, SOCK_CLOEXEC);
	if (!nl->sock)
		goto fail;
	/* Best effort: kernels without extended acks still answer. */
	(void) mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0)
		goto fail;
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = (uint32_t) time(NULL);
	return 0;
fail:
	r = negative_errno();
	cp_nl_close(nl);
	return r;
}

void cp_nl_close(struct cp_nl *nl)
{
	if (nl->sock)
		(void) mnl_socket_close(nl->sock);
	free(nl->buf);
	memset(nl, 0, sizeof(*nl));
}

static void copy_extack(const struct nlmsghdr *nlh, char *extack, size_t size)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *attr;
	size_t offset = sizeof(*err);

	if (!extack || size == 0 || !(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		offset += err->msg.nlmsg_len - sizeof(err->msg);
	if (offset > mnl_nlmsg_get_payload_len(nlh))
		return;
	const void *attrs = (const char *) err + offset;

	mnl_attr_for_each_payload(attrs, mnl_nlmsg_get_payload_len(nlh) - offset)
	{
		if (mnl_attr_get_type(attr) != NLMSGERR_ATTR_MSG)
			continue;
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
			return;
		cp_strscpy(extack, size, mnl_attr_get_str(attr));
		/* Kernel messages end without a period but sometimes with "\n". */
		extack[strcspn(extack, "\n")] = '\0';
		return;
	}
}

static int parse_error(const struct nlmsghdr *nlh, char *extack, size_t size)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*err))
		return -EBADMSG;
	if (err->error == 0)
		return 0;
	copy_extack(nlh, extack, size);
	/* A positive error value is not a valid errno: treat as malformed. */
	return err->error < 0 ? err->error : -EBADMSG;
}

static int parse_done(const struct nlmsghdr *nlh)
{
	int32_t error;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(error))
		return 0;
	memcpy(&error, mnl_nlmsg_get_payload(nlh), sizeof(error));
	return error < 0 ? error : 0;
}

/*
 * mnl_nlmsg_ok() compares (int) nlmsg_len with the bytes left: a length of
 * 2 GiB or more turns negative and passes, and mnl_nlmsg_next() then jumps
 * out of the buffer (found by tests/fuzz/fuzz-cpmod). Compare unsigned, as
 * the kernel's NLMSG_OK does.
 */
static bool nlmsg_ok(const struct nlmsghdr *nlh, int left)
{
	return left >= (int) sizeof(*nlh) && nlh->nlmsg_len >= sizeof(*nlh) &&
	       nlh->nlmsg_len <= (uint32_t) left;
}

int cp_nl_parse_buffer(const void *buf, size_t len, uint32_t seq, mnl_cb_t cb, void *data,
		       char *extack, size_t extack_size)
{
	const struct nlmsghdr *nlh = buf;
	int left;

	if (len > CP_NL_RECV_BUFFER)
		return -EMSGSIZE; /* more than one datagram can hold */
	left = (int) len;
	for (; nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
		if (seq && nlh->nlmsg_seq != seq)
			continue; /* a stale reply to an earlier request */
		switch (nlh->nlmsg_type) {
		case NLMSG_NOOP:
		case NLMSG_OVERRUN:
			continue;
		case NLMSG_DONE:
			return parse_done(nlh);
		case NLMSG_ERROR:
			return parse_error(nlh, extack, extack_size);
		}
		if (nlh->nlmsg_type < NLMSG_MIN_TYPE)
			continue;
		errno = 0;
		switch (cb(nlh, data)) {
		case MNL_CB_ERROR:
			return negative_errno();
		case MNL_CB_STOP:
			return 0;
		}
	}
	if (left != 0)
		return -EBADMSG; /* a message runs past the end of the datagram */
	return 1;
}

static int transact(struct cp_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data, bool ask_ack)
{
	ssize_t len;
	int r;

	nl->extack[0] = '\0';
	nlh->nlmsg_seq = ++nl->seq;
	if (ask_ack)
		nlh->nlmsg_flags |= NLM_F_ACK; /* every request ends with an ack or an error */
	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0)
		return negative_errno();
	do {
		len = mnl_socket_recvfrom(nl->sock, nl->buf, CP_NL_RECV_BUFFER);
		if (len < 0)
			return errno == ENOSPC ? -EMSGSIZE
					       : negative_errno(); /* ENOSPC: MSG_TRUNC */
		r = cp_nl_parse_buffer(nl->buf, (size_t) len, nl->seq, cb, data, nl->extack,
				       sizeof(nl->extack));
	} while (r > 0);
	return r;
}

int cp_nl_transact(struct cp_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	return transact(nl, nlh, cb, data, !(nlh->nlmsg_flags & NLM_F_DUMP));
}

int cp_nl_transact_acked(struct cp_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	nlh->nlmsg_flags &= (uint16_t) ~NLM_F_ACK;
	return transact(nl, nlh, cb, data, false);
}
