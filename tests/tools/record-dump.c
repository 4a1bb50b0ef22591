/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Record a crypto_user GETALG dump as the kernel sends it, for the unit
 * tests' fixtures: each datagram as (u32 length in host order, bytes).
 * Run inside the VMs by tests/vm/scenarios/record-fixtures.
 */
#include <stdio.h>
#include <string.h>

#include "crypto-user.h"
#include "macro.h"

static int record(struct cp_nl *nl, FILE *out)
{
	char request[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = cp_cu_build_dump(request);
	int r = 1;

	nlh->nlmsg_seq = ++nl->seq;
	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0)
		return negative_errno();
	while (r > 0) {
		ssize_t len = mnl_socket_recvfrom(nl->sock, nl->buf, CP_NL_RECV_BUFFER);
		uint32_t len32 = (uint32_t) len;
		struct cp_inventory scratch = {};

		if (len < 0)
			return negative_errno();
		if (fwrite(&len32, sizeof(len32), 1, out) != 1 ||
		    fwrite(nl->buf, 1, len32, out) != len32)
			return -EIO;
		r = cp_nl_parse_buffer(nl->buf, (size_t) len, nl->seq, cp_cu_parse_alg_cb, &scratch,
				       NULL, 0);
		cp_inventory_free(&scratch);
	}
	return r;
}

int main(int argc, char **argv)
{
	_cleanup_fclose_ FILE *out = NULL;
	struct cp_nl nl;
	int r;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OUTPUT\n", argv[0]);
		return 2;
	}
	out = fopen(argv[1], "we");
	if (!out)
		return perror(argv[1]), 1;
	r = cp_cu_open(&nl);
	if (r >= 0)
		r = record(&nl, out);
	cp_nl_close(&nl);
	if (r < 0)
		fprintf(stderr, "record-dump: %s\n", strerror(-r));
	return r < 0;
}
