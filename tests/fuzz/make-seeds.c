/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Seeds that are built, not copied: module and controller replies laid out
 * as the kernel sends them (with lib/cpmod.h's builders and libmnl, as in
 * tests/unit/test-cpmod.c), and state and cache documents written by
 * cp_state_format and cp_cache_format. Usage: make-seeds CORPUS_DIR
 * (tests/fuzz/corpus); the output is committed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>
#include <libmnl/libmnl.h>

#include "calib-cache.h"
#include "cpmod.h"
#include "state.h"

static const char *corpus;

static void write_seed(const char *target, const char *name, const void *data, size_t size)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", corpus, target, name);
	f = fopen(path, "we");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
		fprintf(stderr, "make-seeds: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

/* A cpmod seed: the selector byte (7: every parser), then the messages and the ack. */
static void write_cpmod(const char *name, const struct nlmsghdr *nlh)
{
	char buf[1 + 2 * CP_MOD_MSG_SIZE];
	struct nlmsghdr *ack;
	struct nlmsgerr *err;
	size_t len = nlh->nlmsg_len;

	buf[0] = 7;
	memcpy(buf + 1, nlh, len);
	ack = (struct nlmsghdr *) (buf + 1 + MNL_ALIGN(len));
	memset(ack, 0, MNL_NLMSG_HDRLEN + sizeof(*err));
	ack->nlmsg_len = MNL_NLMSG_HDRLEN + sizeof(*err);
	ack->nlmsg_type = NLMSG_ERROR;
	write_seed("fuzz-cpmod", name, buf, 1 + MNL_ALIGN(len) + ack->nlmsg_len);
}

static struct nlmsghdr *reply_header(char *buf, uint16_t type, uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	memset(buf, 0, CP_MOD_MSG_SIZE);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = 1;
	return nlh;
}

static void cpmod_seeds(void)
{
	char buf[CP_MOD_MSG_SIZE];
	struct nlmsghdr *nlh;
	struct nlmsgerr *err;
	struct cp_mod_calib_req req = {.driver = "virtio_crypto_aes_cbc",
				       .type = CRYPTOPRIO_TYPE_SKCIPHER,
				       .decrypt = true,
				       .key_size = 16,
				       .req_size = 4096,
				       .depth = 8,
				       .budget_ns = 100000000,
				       .grace_ns = 2000000000};

	/* The controller's NEWFAMILY, as in test-cpmod.c. */
	nlh = reply_header(buf, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, CRYPTOPRIO_GENL_NAME);
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, 0x22);
	mnl_attr_put_u32(nlh, CTRL_ATTR_VERSION, CRYPTOPRIO_GENL_VERSION);
	mnl_attr_put_u32(nlh, CTRL_ATTR_HDRSIZE, 0);
	mnl_attr_put_u32(nlh, CTRL_ATTR_MAXATTR, CRYPTOPRIO_ATTR_MAX);
	write_cpmod("newfamily", nlh);

	/* A CALIBRATE reply as the module's core.c lays it out (PAD included). */
	nlh = reply_header(buf, 0x22, CRYPTOPRIO_CMD_CALIBRATE);
	mnl_attr_put_strz(nlh, CRYPTOPRIO_ATTR_DRIVER, "virtio_crypto_aes_cbc");
	mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_TYPE, CRYPTOPRIO_TYPE_SKCIPHER);
	mnl_attr_put(nlh, CRYPTOPRIO_ATTR_DECRYPT, 0, NULL);
	mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_REQ_SIZE, 4096);
	mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_DEPTH, 8);
	mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_USED_KEY_SIZE, 16);
	mnl_attr_put(nlh, CRYPTOPRIO_ATTR_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, CRYPTOPRIO_ATTR_BUDGET_NS, 100000000);
	mnl_attr_put_u64(nlh, CRYPTOPRIO_ATTR_REQUESTS, 1000);
	mnl_attr_put_u64(nlh, CRYPTOPRIO_ATTR_BYTES, 4096000);
	mnl_attr_put_u64(nlh, CRYPTOPRIO_ATTR_WALL_NS, 100000000);
	mnl_attr_put_u64(nlh, CRYPTOPRIO_ATTR_CPU_NS, 204800000);
	mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_KAT, CRYPTOPRIO_KAT_OK);
	mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_MAX_IN_FLIGHT, 8);
	mnl_attr_put_strz(nlh, CRYPTOPRIO_ATTR_REFERENCE, "cbc(aes-generic)");
	write_cpmod("calibrate", nlh);

	/* A RESOLVE reply. */
	nlh = reply_header(buf, 0x22, CRYPTOPRIO_CMD_RESOLVE);
	mnl_attr_put_strz(nlh, CRYPTOPRIO_ATTR_NAME, "cbc(aes)");
	mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_TYPE, CRYPTOPRIO_TYPE_SKCIPHER);
	mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_MASK, CRYPTOPRIO_ALG_ASYNC);
	mnl_attr_put_strz(nlh, CRYPTOPRIO_ATTR_RESOLVED_DRIVER, "cbc-aes-aesni");
	write_cpmod("resolve", nlh);

	/* The requests themselves (the parsers must refuse them cleanly). */
	write_cpmod("request-calibrate", cp_mod_build_calibrate(buf, 0x22, &req));
	write_cpmod("request-resolve",
		    cp_mod_build_resolve(buf, 0x22, "gcm(aes)", CRYPTOPRIO_TYPE_AEAD, 0, false));
	write_cpmod("request-getfamily", cp_mod_build_getfamily(buf));

	/* The kernel's refusal with an extended ack message (NLM_F_CAPPED, NLM_F_ACK_TLVS). */
	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_CAPPED | NLM_F_ACK_TLVS;
	err = mnl_nlmsg_put_extra_header(nlh, sizeof(*err));
	err->error = -EINVAL;
	err->msg.nlmsg_len = MNL_NLMSG_HDRLEN + GENL_HDRLEN;
	err->msg.nlmsg_type = 0x22;
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "depth must be 1..64 requests in flight");
	mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, 20);
	buf[sizeof(buf) - 1] = 0;
	{
		char seed[1 + CP_MOD_MSG_SIZE];

		seed[0] = 7;
		memcpy(seed + 1, nlh, nlh->nlmsg_len);
		write_seed("fuzz-cpmod", "error-extack", seed, 1 + nlh->nlmsg_len);
		/* The same datagram is a crypto_user refusal too. */
		write_seed("fuzz-crypto-user", "error-extack", nlh, nlh->nlmsg_len);
	}
}

static void state_seeds(void)
{
	struct cp_state state;
	struct cp_state_apply *apply;
	struct cp_alg a = {.name = "cbc(aes)",
			   .driver = "cbc-aes-aesni",
			   .module = "aesni_intel",
			   .priority = 400};
	struct cp_alg b = {.name = "cbc(aes)",
			   .driver = "virtio_crypto_aes_cbc",
			   .module = "virtio_crypto",
			   .priority = 150};
	struct cp_state_step s1 = {.driver = "cbc-aes-aesni",
				   .name = "cbc(aes)",
				   .action = CP_STEP_SET,
				   .old_priority = 400,
				   .new_priority = 3000,
				   .why = "cpu first gear: 44.5 MB/s at 4K",
				   .result = CP_STEP_DONE};
	struct cp_state_step s2 = {.driver = "virtio_crypto_aes_cbc",
				   .name = "cbc(aes)",
				   .action = CP_STEP_TOUCH,
				   .old_priority = 150,
				   .new_priority = 150,
				   .why = "lost its place: retire instances",
				   .result = CP_STEP_FAILED,
				   .error = -EPERM,
				   .message = "Operation not permitted"};
	struct cp_state_step s3 = {.driver = "sha256-ni",
				   .name = "sha256",
				   .action = CP_STEP_SET,
				   .old_priority = 250,
				   .new_priority = 2999,
				   .result = CP_STEP_PENDING};
	char *text;

	cp_state_init(&state);
	if (cp_state_format(&state, &text) < 0)
		exit(1);
	write_seed("fuzz-state", "empty", text, strlen(text));
	free(text);

	cp_state_record(&state, &a);
	cp_state_record(&state, &b);
	state.checked_at = 1764460800;
	if (cp_state_format(&state, &text) < 0)
		exit(1);
	write_seed("fuzz-state", "originals", text, strlen(text));
	free(text);

	apply = cp_state_apply_new();
	if (!apply)
		exit(1);
	apply->started_at = 1764460800;
	apply->finished_at = 0; /* interrupted */
	apply->pid = 4242;
	snprintf(apply->agent, sizeof(apply->agent), "cryptoprio-daemon");
	snprintf(apply->backend, sizeof(apply->backend), "module");
	cp_state_apply_add_policy_file(apply, "/etc/cryptoprio.conf");
	cp_state_apply_add_policy_file(apply, "/etc/cryptoprio.conf.d/50-bulk.conf");
	cp_state_apply_add_step(apply, &s1);
	cp_state_apply_add_step(apply, &s2);
	cp_state_apply_add_step(apply, &s3);
	cp_state_set_last_apply(&state, apply);
	if (cp_state_format(&state, &text) < 0)
		exit(1);
	write_seed("fuzz-state", "last-apply", text, strlen(text));
	free(text);
	cp_state_free(&state);
}

static void cache_seeds(void)
{
	struct cp_cache cache = {};
	struct cp_cache_entry e = {
	    .key = {.kernel = "6.1.0-28-amd64",
		    .build = "3f1c0d9e7a5b2c4d",
		    .cpu_model = "QEMU Virtual CPU version 2.5+",
		    .driver = "cbc-aes-aesni",
		    .module = "aesni_intel",
		    .srcversion = "8C2A4D0B3E6F1A7C9D5E2B1"},
	    .backend = CP_BACKEND_MODULE,
	    .kat = CRYPTOPRIO_KAT_OK,
	    .measured_at = 1764460800,
	    .point = {.size = 4096,
		      .depth = 1,
		      .verdict = CP_VERDICT_MEASURED,
		      .max_in_flight = 1,
		      .mbps = {5, 44.5, 43.9, 45.1, 0.3},
		      .ns_per_request = {5, 92045.0, 90800.5, 93300.25, 410.0},
		      .cpu_ns_per_byte = {5, 22.47, 22.2, 22.8, 0.11}},
	};
	char *text;

	if (cp_cache_format(&cache, &text) < 0)
		exit(1);
	write_seed("fuzz-cache", "empty", text, strlen(text));
	free(text);

	cp_cache_put(&cache, &e);
	e.key = (struct cp_cache_key){.kernel = "7.2.13-amd64",
				      .build = "aa01",
				      .driver = "virtio_crypto_aes_cbc",
				      .module = "virtio_crypto"};
	e.backend = CP_BACKEND_AFALG;
	e.kat = CRYPTOPRIO_KAT_UNSUPPORTED;
	e.point.size = 65536;
	e.point.depth = 32;
	e.point.max_in_flight = 32;
	e.point.mbps = (struct cp_stat){3, 111.8, 110.0, 112.5, 0.9};
	cp_cache_put(&cache, &e);
	if (cp_cache_format(&cache, &text) < 0)
		exit(1);
	write_seed("fuzz-cache", "two-entries", text, strlen(text));
	free(text);
	cp_cache_put_default(&cache, &(struct cp_cache_default){
					 .key = e.key, .priority = 150, .seen_at = 1764460800});
	e.key.srcversion[0] = 'X';
	cp_cache_put_default(&cache, &(struct cp_cache_default){.key = e.key, .priority = 4001});
	if (cp_cache_format(&cache, &text) < 0)
		exit(1);
	write_seed("fuzz-cache", "defaults", text, strlen(text));
	free(text);
	cp_cache_free(&cache);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: make-seeds CORPUS_DIR\n");
		return 2;
	}
	corpus = argv[1];
	cpmod_seeds();
	state_seeds();
	cache_seeds();
	return 0;
}
