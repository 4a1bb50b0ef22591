/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cryptoprio module's netlink client: requests built, replies parsed. */
#include <errno.h>
#include <string.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "cpmod.h"
#include "macro.h"
#include "netlink.h"
#include "tap.h"

#define FAMILY 0x1d

/* The attribute of @type in a generic netlink message, or NULL. */
static const struct nlattr *find_attr(const struct nlmsghdr *nlh, int type)
{
	const struct nlattr *attr;

	mnl_attr_for_each (attr, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) == type)
			return attr;
	}
	return NULL;
}

static int count_attrs(const struct nlmsghdr *nlh)
{
	const struct nlattr *attr;
	int n = 0;

	mnl_attr_for_each (attr, nlh, sizeof(struct genlmsghdr)) {
		n++;
	}
	return n;
}

static void test_build_calibrate(void)
{
	char buf[CP_MOD_MSG_SIZE];
	struct cp_mod_calib_req req = {
	    .driver = "virtio_crypto_aes_cbc",
	    .type = CRYPTOPRIO_TYPE_SKCIPHER,
	    .decrypt = true,
	    .req_size = 65536,
	    .depth = 8,
	    .budget_ns = 250000000,
	};
	struct nlmsghdr *nlh = cp_mod_build_calibrate(buf, FAMILY, &req);
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;

	is_int(nlh->nlmsg_type, FAMILY, "addressed to the family id");
	ok(nlh->nlmsg_flags & NLM_F_REQUEST, "a request");
	is_int(genl->cmd, CRYPTOPRIO_CMD_CALIBRATE, "command CALIBRATE");
	is_int(genl->version, CRYPTOPRIO_GENL_VERSION, "family version");
	a = find_attr(nlh, CRYPTOPRIO_ATTR_DRIVER);
	ok(a && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0,
	   "driver is a NUL-terminated string");
	is_str(a ? mnl_attr_get_str(a) : NULL, "virtio_crypto_aes_cbc", "driver name");
	a = find_attr(nlh, CRYPTOPRIO_ATTR_TYPE);
	is_int(a ? mnl_attr_get_u32(a) : 0, CRYPTOPRIO_TYPE_SKCIPHER, "type skcipher");
	a = find_attr(nlh, CRYPTOPRIO_ATTR_DECRYPT);
	ok(a && mnl_attr_get_payload_len(a) == 0, "decrypt is an empty flag");
	a = find_attr(nlh, CRYPTOPRIO_ATTR_REQ_SIZE);
	is_int(a ? mnl_attr_get_u32(a) : 0, 65536, "request size");
	a = find_attr(nlh, CRYPTOPRIO_ATTR_DEPTH);
	is_int(a ? mnl_attr_get_u32(a) : 0, 8, "depth");
	a = find_attr(nlh, CRYPTOPRIO_ATTR_BUDGET_NS);
	ok(a && mnl_attr_get_payload_len(a) == 8, "budget is a u64");
	ok(a && mnl_attr_get_u64(a) == 250000000, "budget value");
	ok(find_attr(nlh, CRYPTOPRIO_ATTR_KEY_SIZE) == NULL, "key size 0 is left out");
	is_int(count_attrs(nlh), 6, "nothing else in the message");

	/* An empty request carries no attribute: the module says what is missing. */
	struct cp_mod_calib_req empty = {0};

	nlh = cp_mod_build_calibrate(buf, FAMILY, &empty);
	is_int(count_attrs(nlh), 0, "unset fields are all left out");
}

static void test_build_resolve(void)
{
	char buf[CP_MOD_MSG_SIZE];
	struct nlmsghdr *nlh =
	    cp_mod_build_resolve(buf, FAMILY, "cbc(aes)", CRYPTOPRIO_TYPE_SKCIPHER,
				 CRYPTOPRIO_ALG_ALLOCATES_MEMORY, false);
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;

	is_int(genl->cmd, CRYPTOPRIO_CMD_RESOLVE, "command RESOLVE");
	a = find_attr(nlh, CRYPTOPRIO_ATTR_NAME);
	is_str(a ? mnl_attr_get_str(a) : NULL, "cbc(aes)", "algorithm name");
	a = find_attr(nlh, CRYPTOPRIO_ATTR_MASK);
	is_int(a ? mnl_attr_get_u32(a) : 0, 0x10000, "mask ALLOCATES_MEMORY");
	ok(!find_attr(nlh, CRYPTOPRIO_ATTR_BUILD), "no BUILD unless asked");
	nlh = cp_mod_build_resolve(buf, FAMILY, "cbc(aes)", CRYPTOPRIO_TYPE_SKCIPHER, 0, true);
	a = find_attr(nlh, CRYPTOPRIO_ATTR_MASK);
	ok(a && mnl_attr_get_u32(a) == 0, "mask 0 is sent, not left out");
	a = find_attr(nlh, CRYPTOPRIO_ATTR_BUILD);
	ok(a && mnl_attr_get_payload_len(a) == 0, "BUILD: a flag, sent when asked");
}

static void test_getfamily(void)
{
	char buf[CP_MOD_MSG_SIZE];
	struct nlmsghdr *nlh = cp_mod_build_getfamily(buf);
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a = find_attr(nlh, CTRL_ATTR_FAMILY_NAME);
	uint16_t family = 0;
	uint32_t version = 0;

	is_int(nlh->nlmsg_type, GENL_ID_CTRL, "GETFAMILY goes to the controller");
	is_int(genl->cmd, CTRL_CMD_GETFAMILY, "command GETFAMILY");
	is_str(a ? mnl_attr_get_str(a) : NULL, "cryptoprio", "family name");

	/* The controller's answer, as the kernel lays it out. */
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	((struct genlmsghdr *) genl)->cmd = CTRL_CMD_NEWFAMILY;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, "cryptoprio");
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, 0x22);
	mnl_attr_put_u32(nlh, CTRL_ATTR_VERSION, 1);
	mnl_attr_put_u32(nlh, CTRL_ATTR_HDRSIZE, 0);
	mnl_attr_put_u32(nlh, CTRL_ATTR_MAXATTR, CRYPTOPRIO_ATTR_MAX);
	is_int(cp_mod_parse_getfamily(nlh, &family, &version), 0, "NEWFAMILY parsed");
	is_int(family, 0x22, "family id");
	is_int(version, 1, "family version");

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, "cryptoprio");
	is_int(cp_mod_parse_getfamily(nlh, &family, &version), -EBADMSG, "no id: malformed");
}

/* A CALIBRATE reply as the module builds it (core.c), PAD attribute included. */
static struct nlmsghdr *put_reply(char *buf, bool with_kat, uint32_t kat)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = FAMILY;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = CRYPTOPRIO_CMD_CALIBRATE;
	genl->version = 1;
	mnl_attr_put_strz(nlh, CRYPTOPRIO_ATTR_DRIVER, "cbc-aes-aesni");
	mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_TYPE, CRYPTOPRIO_TYPE_SKCIPHER);
	mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_REQ_SIZE, 4096);
	mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_DEPTH, 8);
	mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_USED_KEY_SIZE, 16);
	mnl_attr_put(nlh, CRYPTOPRIO_ATTR_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, CRYPTOPRIO_ATTR_BUDGET_NS, 100000000);
	mnl_attr_put_u64(nlh, CRYPTOPRIO_ATTR_REQUESTS, 1000);
	mnl_attr_put_u64(nlh, CRYPTOPRIO_ATTR_BYTES, 4096000);
	mnl_attr_put_u64(nlh, CRYPTOPRIO_ATTR_WALL_NS, 100000000);
	mnl_attr_put_u64(nlh, CRYPTOPRIO_ATTR_CPU_NS, 204800000);
	if (with_kat)
		mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_KAT, kat);
	mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_MAX_IN_FLIGHT, 1);
	mnl_attr_put_strz(nlh, CRYPTOPRIO_ATTR_REFERENCE, "cbc(aes-generic)");
	mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_MAX + 5, 7); /* from a newer module: ignored */
	return nlh;
}

static void test_parse_calibrate(void)
{
	char buf[CP_MOD_MSG_SIZE];
	struct cp_mod_calib_result res;
	struct nlmsghdr *nlh = put_reply(buf, true, CRYPTOPRIO_KAT_OK);

	is_int(cp_mod_parse_calibrate(nlh, &res), 0, "reply parsed");
	is_str(res.driver, "cbc-aes-aesni", "driver");
	is_str(res.reference, "cbc(aes-generic)", "reference");
	is_int(res.type, CRYPTOPRIO_TYPE_SKCIPHER, "type");
	is_int(res.req_size, 4096, "size");
	is_int(res.depth, 8, "depth");
	is_int(res.key_size, 16, "key size");
	is_int(res.requests, 1000, "requests");
	is_int(res.bytes, 4096000, "bytes");
	is_int(res.wall_ns, 100000000, "wall ns");
	is_int(res.cpu_ns, 204800000, "cpu ns");
	is_int(res.max_in_flight, 1, "max in flight");
	is_int(res.kat, CRYPTOPRIO_KAT_OK, "known answer");
	ok(!res.decrypt, "encrypt");
	ok(cp_mod_mb_per_s(&res) > 40.95 && cp_mod_mb_per_s(&res) < 40.97, "40.96 MB/s");
	ok(cp_mod_ns_per_request(&res) == 100000.0, "100 us per request");
	ok(cp_mod_ops_per_s(&res) == 10000.0, "10000 requests per second");
	ok(cp_mod_cpu_ns_per_byte(&res) == 50.0, "50 CPU ns per byte");

	nlh = put_reply(buf, false, 0);
	is_int(cp_mod_parse_calibrate(nlh, &res), -EBADMSG, "no known-answer result: malformed");
	nlh = put_reply(buf, true, 9);
	is_int(cp_mod_parse_calibrate(nlh, &res), -EBADMSG,
	       "unknown known-answer value: malformed");

	/* A u32 where a u64 belongs. */
	nlh = put_reply(buf, true, CRYPTOPRIO_KAT_MISMATCH);
	struct nlattr *a = (struct nlattr *) find_attr(nlh, CRYPTOPRIO_ATTR_REQUESTS);
	a->nla_len = 8;
	/* the shortened attribute leaves 4 bytes that parse as garbage: any error will do */
	ok(cp_mod_parse_calibrate(nlh, &res) < 0, "short u64 refused");

	struct cp_mod_calib_result zero = {0};
	ok(cp_mod_mb_per_s(&zero) == 0 && cp_mod_ns_per_request(&zero) == 0 &&
	       cp_mod_cpu_ns_per_byte(&zero) == 0 && cp_mod_compression_ratio(&zero) == 0 &&
	       cp_mod_ops_per_s(&zero) == 0,
	   "no division by zero");
}

/* A compressor's reply carries the size of its compressed request. */
static void test_parse_calibrate_acomp(void)
{
	char buf[CP_MOD_MSG_SIZE];
	struct cp_mod_calib_result res;
	struct nlmsghdr *nlh = put_reply(buf, true, CRYPTOPRIO_KAT_OK);

	is_int(cp_mod_parse_calibrate(nlh, &res), 0, "reply without COMPRESSED_SIZE parsed");
	is_int(res.compressed_size, 0, "no compressed size for a cipher");
	mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_COMPRESSED_SIZE, 1638);
	is_int(cp_mod_parse_calibrate(nlh, &res), 0, "reply with COMPRESSED_SIZE parsed");
	is_int(res.compressed_size, 1638, "compressed size");
	ok(cp_mod_compression_ratio(&res) > 2.49 && cp_mod_compression_ratio(&res) < 2.51,
	   "4096 bytes to 1638: ratio 2.5");
}

static void test_parse_resolve(void)
{
	char buf[CP_MOD_MSG_SIZE];
	struct cp_mod_resolve_result res;
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = FAMILY;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = CRYPTOPRIO_CMD_RESOLVE;
	mnl_attr_put_strz(nlh, CRYPTOPRIO_ATTR_NAME, "cbc(aes)");
	mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_TYPE, CRYPTOPRIO_TYPE_SKCIPHER);
	mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_MASK, CRYPTOPRIO_ALG_ASYNC);
	mnl_attr_put_strz(nlh, CRYPTOPRIO_ATTR_RESOLVED_DRIVER, "cbc(aes-aesni)");
	is_int(cp_mod_parse_resolve(nlh, &res), 0, "resolve reply parsed");
	is_str(res.driver, "cbc(aes-aesni)", "resolved driver");
	is_str(res.name, "cbc(aes)", "name echoed");
	is_int(res.mask, CRYPTOPRIO_ALG_ASYNC, "mask echoed");

	genl->cmd = CRYPTOPRIO_CMD_CALIBRATE;
	is_int(cp_mod_parse_resolve(nlh, &res), -EBADMSG, "wrong command refused");
}

static void test_build_verify(void)
{
	char buf[CP_MOD_MSG_SIZE];
	struct cp_mod_verify_req req = {.driver = "cp_test_engine_cbc_aes",
					.type = CRYPTOPRIO_TYPE_SKCIPHER};
	struct nlmsghdr *nlh = cp_mod_build_verify(buf, FAMILY, &req);
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;

	is_int(genl->cmd, CRYPTOPRIO_CMD_VERIFY, "command VERIFY");
	is_int(count_attrs(nlh), 2, "driver and type only: the module's seed and cases");
	req.has_seed = true;
	req.seed = 0; /* a seed of 0 is a seed */
	req.cases = 1024;
	nlh = cp_mod_build_verify(buf, FAMILY, &req);
	a = find_attr(nlh, CRYPTOPRIO_ATTR_SEED);
	ok(a && mnl_attr_get_payload_len(a) == 8 && mnl_attr_get_u64(a) == 0, "seed 0 sent");
	a = find_attr(nlh, CRYPTOPRIO_ATTR_CASES);
	is_int(a ? mnl_attr_get_u32(a) : 0, 1024, "cases sent");
}

/* A VERIFY reply as the module builds it (core.c). */
static struct nlmsghdr *put_verify_reply(char *buf, uint32_t verdict, bool with_case)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = FAMILY;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = CRYPTOPRIO_CMD_VERIFY;
	mnl_attr_put_strz(nlh, CRYPTOPRIO_ATTR_DRIVER, "cp_test_engine_cbc_aes");
	mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_TYPE, CRYPTOPRIO_TYPE_SKCIPHER);
	mnl_attr_put(nlh, CRYPTOPRIO_ATTR_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, CRYPTOPRIO_ATTR_SEED, 42);
	mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_CASES, 3);
	mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_VERDICT, verdict);
	mnl_attr_put_strz(nlh, CRYPTOPRIO_ATTR_REFERENCE, "cbc(aes-generic)");
	if (with_case) {
		mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_FAILED_CASE, 2);
		mnl_attr_put_strz(nlh, CRYPTOPRIO_ATTR_FAILURE, "case 2 of seed 42: ...");
	}
	return nlh;
}

static void test_parse_verify(void)
{
	char buf[CP_MOD_MSG_SIZE];
	struct cp_mod_verify_result res;
	struct nlmsghdr *nlh = put_verify_reply(buf, CRYPTOPRIO_VERIFY_FAILED, true);

	is_int(cp_mod_parse_verify(nlh, &res), 0, "verify reply parsed");
	ok(res.verdict == CRYPTOPRIO_VERIFY_FAILED && res.failed_case == 2 && res.cases == 3 &&
	       res.seed == 42,
	   "verdict, failing case, cases and seed");
	is_str(res.failure, "case 2 of seed 42: ...", "the failing case in words");
	is_str(res.reference, "cbc(aes-generic)", "reference");
	nlh = put_verify_reply(buf, CRYPTOPRIO_VERIFY_PASSED, false);
	is_int(cp_mod_parse_verify(nlh, &res), 0, "a pass parsed");
	is_str(res.failure, "", "no failure");
	nlh = put_verify_reply(buf, CRYPTOPRIO_VERIFY_FAILED, false);
	is_int(cp_mod_parse_verify(nlh, &res), -EBADMSG, "failed without its case: malformed");
	nlh = put_verify_reply(buf, CRYPTOPRIO_VERIFY_TIMEOUT, true);
	ok(cp_mod_parse_verify(nlh, &res) == 0 && res.verdict == CRYPTOPRIO_VERIFY_TIMEOUT &&
	       res.failed_case == 2,
	   "a case that never completed: its own verdict, with its case");
	nlh = put_verify_reply(buf, CRYPTOPRIO_VERIFY_TIMEOUT, false);
	is_int(cp_mod_parse_verify(nlh, &res), -EBADMSG, "timed out without its case: malformed");
	nlh = put_verify_reply(buf, 7, false);
	is_int(cp_mod_parse_verify(nlh, &res), -EBADMSG, "unknown verdict refused");
}

/* The kernel's refusal with an extack message, as cp_nl_transact reads it. */
static void test_error_extack(void)
{
	char buf[CP_MOD_MSG_SIZE];
	char extack[256] = "";
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlmsgerr *err;
	const char *msg = "depth must be 1..64 requests in flight";

	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_CAPPED | NLM_F_ACK_TLVS;
	nlh->nlmsg_seq = 42;
	err = mnl_nlmsg_put_extra_header(nlh, sizeof(*err));
	err->error = -EINVAL;
	err->msg.nlmsg_len = sizeof(err->msg);
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	is_int(cp_nl_parse_buffer(buf, nlh->nlmsg_len, 42, NULL, NULL, extack, sizeof(extack)),
	       -EINVAL, "EINVAL from the module");
	is_str(extack, msg, "its extack message");
}

static void test_strings(void)
{
	is_str(cp_mod_type_to_string(CRYPTOPRIO_TYPE_AEAD), "aead", "type name");
	ok(cp_mod_type_to_string(CRYPTOPRIO_TYPE_UNSPEC) == NULL, "no name for UNSPEC");
	for (int t = CRYPTOPRIO_TYPE_SKCIPHER; t <= CRYPTOPRIO_TYPE_MAX; t++) {
		enum cryptoprio_type back = CRYPTOPRIO_TYPE_UNSPEC;
		const char *name = cp_mod_type_to_string((enum cryptoprio_type) t);

		ok(cp_mod_type_from_string(name, &back) == 0 && (int) back == t,
		   "type '%s' read back", name);
	}
	{
		enum cryptoprio_type back = CRYPTOPRIO_TYPE_UNSPEC;

		is_int(cp_mod_type_from_string("shash", &back), -EINVAL,
		       "'shash' is the kernel's word, not a --type");
	}
	is_int(cp_mod_type_from_alg_type("ahash"), CRYPTOPRIO_TYPE_HASH, "ahash is a hash");
	is_int(cp_mod_type_from_alg_type("shash"), CRYPTOPRIO_TYPE_HASH, "shash is a hash");
	is_int(cp_mod_type_from_alg_type("scomp"), CRYPTOPRIO_TYPE_ACOMP,
	       "scomp is calibrated as an acomp");
	is_int(cp_mod_type_from_alg_type("acomp"), CRYPTOPRIO_TYPE_ACOMP, "acomp is an acomp");
	is_int(cp_mod_type_from_alg_type("akcipher"), CRYPTOPRIO_TYPE_AKCIPHER,
	       "rsa's type is an akcipher");
	is_int(cp_mod_type_from_alg_type("kpp"), CRYPTOPRIO_TYPE_KPP,
	       "key agreement's type is a kpp");
	is_str(cp_mod_type_to_string(CRYPTOPRIO_TYPE_KPP), "kpp", "kpp's type name");
	is_int(cp_mod_type_from_alg_type("sig"), CRYPTOPRIO_TYPE_UNSPEC,
	       "7.x's signature type is not calibrated");
	is_int(cp_mod_type_from_alg_type("compression"), CRYPTOPRIO_TYPE_UNSPEC,
	       "the old compression type has no acomp transform");
	is_int(cp_mod_type_from_alg_type("cipher"), CRYPTOPRIO_TYPE_UNSPEC,
	       "single-block cipher cannot be calibrated");
	is_str(cp_mod_kat_to_string(CRYPTOPRIO_KAT_MISMATCH), "mismatch", "kat name");
}

static void test_request_size(void)
{
	is_int(cp_mod_request_size(CRYPTOPRIO_TYPE_AKCIPHER, "rsa"), 256,
	       "rsa: one modulus of the module's key");
	is_int(cp_mod_request_size(CRYPTOPRIO_TYPE_KPP, "ecdh-nist-p256"), 64,
	       "ecdh-nist-p256: one peer key, x || y");
	is_int(cp_mod_request_size(CRYPTOPRIO_TYPE_KPP, "dh"), 256,
	       "dh: one peer key of ffdhe2048");
	is_int(cp_mod_request_size(CRYPTOPRIO_TYPE_KPP, "curve25519"), 0,
	       "a kpp the module does not measure fixes no size");
	is_int(cp_mod_request_size(CRYPTOPRIO_TYPE_KPP, NULL), 0, "nor an unknown name");
	is_int(cp_mod_request_size(CRYPTOPRIO_TYPE_SKCIPHER, "cbc(aes)"), 0,
	       "a cipher takes the workload's size");
	ok(!cp_mod_unmeasured(CRYPTOPRIO_TYPE_AKCIPHER, "rsa") &&
	       !cp_mod_unmeasured(CRYPTOPRIO_TYPE_KPP, "dh") &&
	       !cp_mod_unmeasured(CRYPTOPRIO_TYPE_SKCIPHER, "cbc(aes)"),
	   "rsa, dh and a cipher are measured");
	ok(cp_mod_unmeasured(CRYPTOPRIO_TYPE_AKCIPHER, "ecdsa-nist-p256") &&
	       cp_mod_unmeasured(CRYPTOPRIO_TYPE_KPP, "curve25519"),
	   "another akcipher or key agreement is not");
}

/* Each type's row: what its requests take, who serves it. */
static void test_type_rows(void)
{
	char names[128];

	is_str(cp_type_names(names, sizeof(names)), "skcipher, aead, hash, acomp, akcipher, kpp",
	       "the types' names, in the module's order");
	is_str(cp_type_names(names, 12), "skcipher, a", "cut to the buffer");
	is_str(cp_type_calibrated_names(names, sizeof(names)),
	       "skcipher, aead, hash, acomp, rsa, ecdh-nist-p256 and dh",
	       "what is calibrated: the fixed algorithms in their types' place");
	ok(!cp_type_info(CRYPTOPRIO_TYPE_UNSPEC) && !cp_type_info(__CRYPTOPRIO_TYPE_MAX),
	   "no row for UNSPEC or out of range");
	ok(cp_type_info(CRYPTOPRIO_TYPE_SKCIPHER)->afalg == CP_AFALG_SKCIPHER &&
	       cp_type_info(CRYPTOPRIO_TYPE_AEAD)->afalg == CP_AFALG_AEAD &&
	       cp_type_info(CRYPTOPRIO_TYPE_HASH)->afalg == CP_AFALG_HASH,
	   "AF_ALG serves ciphers, AEADs and hashes");
	ok(cp_type_info(CRYPTOPRIO_TYPE_ACOMP)->afalg == CP_AFALG_NONE &&
	       cp_type_info(CRYPTOPRIO_TYPE_AKCIPHER)->afalg == CP_AFALG_NONE &&
	       cp_type_info(CRYPTOPRIO_TYPE_KPP)->afalg == CP_AFALG_NONE,
	   "and nothing else");
	for (int t = CRYPTOPRIO_TYPE_SKCIPHER; t <= CRYPTOPRIO_TYPE_MAX; t++) {
		const struct cp_type_info *info = cp_type_info((enum cryptoprio_type) t);

		ok(info->one_way == (t == CRYPTOPRIO_TYPE_HASH) &&
		       info->compresses == (t == CRYPTOPRIO_TYPE_ACOMP),
		   "%s: one-way only if a hash, compresses only if an acomp", info->name);
	}
	is_str(cp_mod_unmeasured(CRYPTOPRIO_TYPE_KPP, "curve25519"),
	       "of the key agreements only ecdh-nist-p256's and dh's shared secret is measured",
	       "a key agreement not measured: why, in the row's words");
	is_str(cp_mod_unmeasured(CRYPTOPRIO_TYPE_AKCIPHER, "ecdsa-nist-p256"),
	       "of the akciphers only rsa's public-key operation is measured",
	       "an akcipher not measured: why");
}

/* The module's kept_runs parameter, as driver/run.c prints it. */
static void test_kept_runs(void)
{
	struct cp_mod_kept_run runs[2];

	is_int(cp_mod_parse_kept_runs("", runs, 2), 0, "no kept run");
	is_int(cp_mod_parse_kept_runs("cp_test_engine_cbc_aes 16 1114112\n"
				      "mxs-dcp-aes 1 8192\n",
				      runs, 2),
	       2, "two kept runs");
	is_str(runs[0].driver, "cp_test_engine_cbc_aes", "the first one's driver");
	is_int(runs[0].outstanding, 16, "its requests still out");
	ok(runs[1].bytes == 8192, "the second one's bytes");
	is_int(cp_mod_parse_kept_runs("a 1 2\nb 3 4\nc 5 6\n", runs, 2), 2,
	       "more than asked for: the first ones");
	is_int(cp_mod_parse_kept_runs("a 1 2", runs, 2), -EBADMSG, "a line without its end");
	is_int(cp_mod_parse_kept_runs("a 1\n", runs, 2), -EBADMSG, "a field missing");
	is_int(cp_mod_parse_kept_runs("a 1 2 3\n", runs, 2), -EBADMSG, "a field too many");
	is_int(cp_mod_parse_kept_runs("a -1 2\n", runs, 2), -EBADMSG, "not a count");
}

int main(void)
{
	test_build_calibrate();
	test_build_resolve();
	test_getfamily();
	test_parse_calibrate();
	test_parse_calibrate_acomp();
	test_parse_resolve();
	test_build_verify();
	test_parse_verify();
	test_error_extack();
	test_strings();
	test_request_size();
	test_type_rows();
	test_kept_runs();
	return done_testing();
}
