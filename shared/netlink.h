/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A netlink socket with a receive buffer big enough for crypto_user dumps. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

/* crypto_user dump messages can exceed MNL_SOCKET_BUFFER_SIZE (8 KiB). */
#define CP_NL_RECV_BUFFER (64 * 1024)

struct cp_nl {
	struct mnl_socket *sock;
	uint32_t portid;
	uint32_t seq;
	char *buf;	  /* CP_NL_RECV_BUFFER bytes */
	char extack[256]; /* last extended ack message from the kernel, or "" */
};

int cp_nl_open(struct cp_nl *nl, int protocol);
void cp_nl_close(struct cp_nl *nl);

/*
 * Send @nlh (its nlmsg_seq is set here) and read replies until NLMSG_DONE
 * or the ack. @cb gets each data message; it returns MNL_CB_OK, MNL_CB_STOP
 * or MNL_CB_ERROR (with errno set). Returns 0 or a negative errno; on a
 * kernel error the extended ack text is left in nl->extack.
 */
int cp_nl_transact(struct cp_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data);

/*
 * cp_nl_transact() for a request whose answer ends with an ack of its own
 * (the cryptoprio module's commands, answered when they end): asking for
 * one would bring an early ack, when the request is queued, and end the
 * wait before the answer.
 */
int cp_nl_transact_acked(struct cp_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data);

/*
 * Walk one received buffer the way cp_nl_transact does, without a socket:
 * the parsing half, for tests on recorded replies. Returns 1 while more
 * messages are expected, 0 when done, negative errno on error.
 */
int cp_nl_parse_buffer(const void *buf, size_t len, uint32_t seq, mnl_cb_t cb, void *data,
		       char *extack, size_t extack_size);
