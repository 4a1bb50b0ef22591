/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* crypto_user message building and parsing, on built and on recorded kernel replies. */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <linux/cryptouser.h>

#include "crypto-user.h"
#include "macro.h"
#include "tap.h"

static void test_build_update(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = cp_cu_build_update(buf, "virtio_crypto_aes_cbc", 3000);
	const struct crypto_user_alg *cru;
	const struct nlattr *attr;

	ok(nlh != NULL, "update message built");
	is_int(nlh->nlmsg_type, CRYPTO_MSG_UPDATEALG, "type UPDATEALG");
	ok((nlh->nlmsg_flags & (NLM_F_REQUEST | NLM_F_ACK)) == (NLM_F_REQUEST | NLM_F_ACK),
	   "request asks for an ack");
	cru = mnl_nlmsg_get_payload(nlh);
	is_str(cru->cru_driver_name, "virtio_crypto_aes_cbc", "addressed by driver name");
	is_str(cru->cru_name, "", "algorithm name left empty");
	attr = (const struct nlattr *) ((const char *) cru + MNL_ALIGN(sizeof(*cru)));
	is_int(mnl_attr_get_type(attr), CRYPTOCFGA_PRIORITY_VAL, "priority attribute");
	is_int(mnl_attr_get_u32(attr), 3000, "priority value");
	is_int(nlh->nlmsg_len, MNL_ALIGN(sizeof(*nlh)) + MNL_ALIGN(sizeof(*cru)) + 8,
	       "nothing else in the message");
}

static void test_build_create(void)
{
	static const char driver[] = "authenc(hmac(sha256-ce),cbc-aes-ce)";
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	const struct crypto_user_alg *cru;
	const struct nlattr *attr;

	memset(buf, 0xa5, sizeof(buf)); /* what the builder leaves unset shows */
	nlh = cp_cu_build_create(buf, driver, "authenc(hmac(sha256),cbc(aes))", 4001);
	ok(nlh != NULL, "create message built");
	is_int(nlh->nlmsg_type, CRYPTO_MSG_NEWALG, "type NEWALG");
	is_int(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK, "a request asking for an ack");
	cru = mnl_nlmsg_get_payload(nlh);
	is_str(cru->cru_driver_name, driver, "the instance by its driver name");
	is_str(cru->cru_name, "authenc(hmac(sha256),cbc(aes))", "the algorithm name");
	ok(cru->cru_type == 0 && cru->cru_mask == 0 && cru->cru_flags == 0,
	   "type, mask and flags 0: any type");
	attr = (const struct nlattr *) ((const char *) cru + MNL_ALIGN(sizeof(*cru)));
	is_int(mnl_attr_get_type(attr), CRYPTOCFGA_PRIORITY_VAL, "priority attribute");
	is_int(mnl_attr_get_u32(attr), 4001, "priority value");
	is_int(nlh->nlmsg_len, MNL_ALIGN(sizeof(*nlh)) + MNL_ALIGN(sizeof(*cru)) + 8,
	       "nothing else in the message");

	nlh = cp_cu_build_create(buf, driver, NULL, 1);
	is_str(((const struct crypto_user_alg *) mnl_nlmsg_get_payload(nlh))->cru_name, "",
	       "no algorithm name: left empty");
	errno = 0;
	ok(cp_cu_build_create(buf, driver, NULL, (uint64_t) INT_MAX + 1) == NULL && errno == ERANGE,
	   "a priority the kernel cannot store is refused");
}

static void test_build_delete(void)
{
	static const char driver[] = "echainiv(authenc(hmac(sha256-ce),cbc-aes-ce))";
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	const struct crypto_user_alg *cru;

	memset(buf, 0xa5, sizeof(buf));
	nlh = cp_cu_build_delete(buf, driver);
	ok(nlh != NULL, "delete message built");
	is_int(nlh->nlmsg_type, CRYPTO_MSG_DELALG, "type DELALG");
	is_int(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK, "a request asking for an ack");
	cru = mnl_nlmsg_get_payload(nlh);
	is_str(cru->cru_driver_name, driver, "the instance by its driver name");
	is_str(cru->cru_name, "", "algorithm name left empty");
	ok(cru->cru_type == 0 && cru->cru_mask == 0, "type and mask 0");
	is_int(nlh->nlmsg_len, MNL_ALIGN(sizeof(*nlh)) + MNL_ALIGN(sizeof(*cru)), "no attribute");
}

static void test_refusals(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	char name63[64], name64[65];

	memset(name63, 'a', 63);
	name63[63] = '\0';
	memset(name64, 'a', 64);
	name64[64] = '\0';
	is_int(cp_cu_check_update(name63, 1), 0, "a 63-byte name is addressable");
	is_int(cp_cu_check_update(name64, 1), -ENAMETOOLONG, "a 64-byte name is refused");
	is_int(cp_cu_check_update("", 1), -EINVAL, "an empty name is refused");
	is_int(cp_cu_check_update("x", INT_MAX), 0, "INT_MAX is a valid priority");
	is_int(cp_cu_check_update("x", (uint64_t) INT_MAX + 1), -ERANGE, "INT_MAX+1 is refused");
	errno = 0;
	ok(cp_cu_build_update(buf, name64, 1) == NULL && errno == ENAMETOOLONG,
	   "no message is built for a refused name");
	errno = 0;
	ok(cp_cu_build_create(buf, name64, NULL, 1) == NULL && errno == ENAMETOOLONG,
	   "no instance is created by a name the kernel cannot hold");
	errno = 0;
	ok(cp_cu_build_create(buf, "x", name64, 1) == NULL && errno == ENAMETOOLONG,
	   "nor with an algorithm name it cannot hold");
	errno = 0;
	ok(cp_cu_build_delete(buf, "") == NULL && errno == EINVAL,
	   "no instance is removed by an empty name");
}

/* A GETALG reply as the kernel builds it (crypto_report_alg). */
static struct nlmsghdr *put_alg(char *buf, const char *name, const char *driver, uint32_t prio,
				uint32_t flags, uint16_t report_attr, const char *type)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct crypto_user_alg *cru;
	char report[CRYPTO_MAX_NAME * 2] = {};

	nlh->nlmsg_type = CRYPTO_MSG_GETALG;
	nlh->nlmsg_flags = NLM_F_MULTI;
	nlh->nlmsg_seq = 7;
	cru = mnl_nlmsg_put_extra_header(nlh, sizeof(*cru));
	strcpy(cru->cru_name, name);
	strcpy(cru->cru_driver_name, driver);
	strcpy(cru->cru_module_name, "kernel");
	cru->cru_refcnt = 2;
	cru->cru_flags = flags;
	mnl_attr_put_u32(nlh, CRYPTOCFGA_PRIORITY_VAL, prio);
	strcpy(report, type);
	mnl_attr_put(nlh, report_attr, sizeof(report), report);
	return nlh;
}

static void test_parse_built(void)
{
	char buf[8192];
	struct cp_inventory inv = {};
	size_t len;
	struct nlmsghdr *nlh, *done;
	int r;

	nlh = put_alg(buf, "cbc(aes)", "cbc-aes-aesni", 400, CP_ALG_TESTED,
		      CRYPTOCFGA_REPORT_BLKCIPHER, "skcipher");
	len = nlh->nlmsg_len;
	nlh = put_alg(buf + len, "sha256", "sha256-test", 100, CP_ALG_TESTED | CP_ALG_ASYNC, 40,
		      "ahash");
	len += nlh->nlmsg_len;
	done = mnl_nlmsg_put_header(buf + len);
	done->nlmsg_type = NLMSG_DONE;
	done->nlmsg_seq = 7;
	*(int *) mnl_nlmsg_put_extra_header(done, sizeof(int)) = 0;
	len += done->nlmsg_len;

	r = cp_nl_parse_buffer(buf, len, 7, cp_cu_parse_alg_cb, &inv, NULL, 0);
	is_int(r, 0, "dump ends at NLMSG_DONE");
	is_int(inv.n_algs, 2, "two implementations");
	is_str(inv.algs[0].driver, "cbc-aes-aesni", "driver name");
	is_str(inv.algs[0].type, "skcipher", "type from the report attribute");
	is_int(inv.algs[0].priority, 400, "priority");
	is_int(inv.algs[0].refcnt, 2, "refcnt");
	is_str(inv.algs[1].type, "ahash", "type from a report attribute newer than this header");
	ok(inv.algs[1].flags & CP_ALG_ASYNC, "flags carried");
	cp_inventory_free(&inv);

	r = cp_nl_parse_buffer(buf, len - done->nlmsg_len, 7, cp_cu_parse_alg_cb, &inv, NULL, 0);
	is_int(r, 1, "without NLMSG_DONE more is expected");
	cp_inventory_free(&inv);
	r = cp_nl_parse_buffer(buf, len - done->nlmsg_len - 10, 7, cp_cu_parse_alg_cb, &inv, NULL,
			       0);
	is_int(r, -EBADMSG, "a message cut short is an error");
	cp_inventory_free(&inv);
}

static void test_error_with_extack(void)
{
	char buf[1024], extack[256] = "";
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlmsgerr *err;
	int r;

	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_ACK_TLVS | NLM_F_CAPPED;
	nlh->nlmsg_seq = 9;
	err = mnl_nlmsg_put_extra_header(nlh, sizeof(*err));
	err->error = -ENOENT;
	err->msg.nlmsg_len = 100; /* capped: only the header was echoed */
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "no such driver");
	r = cp_nl_parse_buffer(buf, nlh->nlmsg_len, 9, NULL, NULL, extack, sizeof(extack));
	is_int(r, -ENOENT, "kernel error returned as negative errno");
	is_str(extack, "no such driver", "extended ack message extracted");

	err->error = 0;
	r = cp_nl_parse_buffer(buf, nlh->nlmsg_len, 9, NULL, NULL, NULL, 0);
	is_int(r, 0, "an ack ends the exchange");
	r = cp_nl_parse_buffer(buf, nlh->nlmsg_len, 10, NULL, NULL, NULL, 0);
	is_int(r, 1, "a reply to another request is skipped");
}

static int count_cb(const struct nlmsghdr *nlh, void *data)
{
	(*(unsigned *) data)++;
	return MNL_CB_OK;
}

/*
 * A message length of 2 GiB or more (tests/fuzz, crash input
 * tests/fuzz/corpus/fuzz-cpmod/crash-nlmsg-len-2g): libmnl's
 * mnl_nlmsg_ok() took it for a negative int that fits, handed the message
 * on and then stepped 3.7 GB past the buffer.
 */
static void test_huge_nlmsg_len(void)
{
	char buf[64] __attribute__((aligned(4))) = {0};
	struct nlmsghdr *nlh = (struct nlmsghdr *) buf;
	unsigned calls = 0;
	int r;

	nlh->nlmsg_len = 0xe8000048u;
	nlh->nlmsg_type = CRYPTO_MSG_GETALG;
	r = cp_nl_parse_buffer(buf, sizeof(buf), 0, count_cb, &calls, NULL, 0);
	is_int(r, -EBADMSG, "a length past the datagram (>= 2 GiB) is malformed");
	is_int(calls, 0, "and the message is not handed on");
	nlh->nlmsg_len = 0x80000000u;
	r = cp_nl_parse_buffer(buf, sizeof(buf), 0, count_cb, &calls, NULL, 0);
	is_int(r, -EBADMSG, "2 GiB exactly: malformed too");
	is_int(calls, 0, "not handed on either");
	r = cp_nl_parse_buffer(buf, (size_t) CP_NL_RECV_BUFFER + 1, 0, count_cb, &calls, NULL, 0);
	is_int(r, -EMSGSIZE, "more than a receive buffer holds is refused");
}

/*
 * Recorded dumps: each fixture is a sequence of (u32 length, datagram)
 * as received from a real kernel by tests/vm/scenarios/record-fixtures.
 */
static int parse_recording(const char *path, struct cp_inventory *inv, size_t *n_datagrams)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	static char datagram[CP_NL_RECV_BUFFER];
	uint32_t len;
	int r = 1;

	if (!f)
		return negative_errno();
	*n_datagrams = 0;
	while (r > 0 && fread(&len, sizeof(len), 1, f) == 1) {
		if (len > sizeof(datagram) || fread(datagram, 1, len, f) != len)
			return -EBADMSG;
		(*n_datagrams)++;
		r = cp_nl_parse_buffer(datagram, len, 0, cp_cu_parse_alg_cb, inv, NULL, 0);
	}
	return r;
}

/* @kernel: the fixture's name (6.1, arm64-7.2, armhf-6.1); @cpu_cbc: the CPU's cbc(aes) there. */
static void test_recording(const char *kernel, const char *cpu_cbc)
{
	struct cp_inventory inv = {};
	const struct cp_alg *cpu, *virtio;
	char path[512];
	size_t n_datagrams = 0;

	snprintf(path, sizeof(path), "%s/crypto-user-dump-%s.bin", FIXTURES, kernel);
	is_int(parse_recording(path, &inv, &n_datagrams), 0, "%s: recorded dump parses to the end",
	       kernel);
	ok(n_datagrams > 1, "%s: the dump spans %zu datagrams", kernel, n_datagrams);
	ok(inv.n_algs > 30, "%s: %zu implementations", kernel, inv.n_algs);
	cpu = cp_inventory_find_driver(&inv, cpu_cbc);
	virtio = cp_inventory_find_driver(&inv, "virtio_crypto_aes_cbc");
	ok(cpu && strcmp(cpu->name, "cbc(aes)") == 0 && strcmp(cpu->type, "skcipher") == 0,
	   "%s: %s is a cbc(aes) skcipher", kernel, cpu_cbc);
	ok(virtio && virtio->priority == 150 && (virtio->flags & CP_ALG_ASYNC) &&
	       strcmp(virtio->module, "virtio_crypto") == 0,
	   "%s: virtio_crypto_aes_cbc async at 150 from module virtio_crypto", kernel);
	cp_inventory_free(&inv);
}

int main(void)
{
	test_build_update();
	test_build_create();
	test_build_delete();
	test_refusals();
	test_parse_built();
	test_error_with_extack();
	test_huge_nlmsg_len();
	test_recording("6.1", "cbc-aes-aesni");
	test_recording("7.2", "cbc-aes-aesni");
	test_recording("arm64-6.1", "cbc-aes-ce");
	test_recording("arm64-7.2", "cbc-aes-ce");
	test_recording("armhf-6.1", "cbc-aes-neonbs");
	return done_testing();
}
