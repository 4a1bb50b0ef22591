/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The companion module's client: CALIBRATE, RESOLVE, VERIFY and its kept runs (cpmod.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "cpmod.h"
#include "fileio.h"
#include "macro.h"

static struct nlmsghdr *put_header(void *buf, uint16_t type, uint8_t cmd, uint8_t version)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = version;
	return nlh;
}

struct nlmsghdr *cp_mod_build_getfamily(void *buf)
{
	struct nlmsghdr *nlh = put_header(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);

	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, CRYPTOPRIO_GENL_NAME);
	return nlh;
}

/* The attributes after the genetlink header, or -EBADMSG. */
static int parse_attrs(const struct nlmsghdr *nlh, const struct nlattr **tb, int max,
		       const struct genlmsghdr **genl)
{
	const struct nlattr *attr;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr))
		return -EBADMSG;
	*genl = mnl_nlmsg_get_payload(nlh);
	memset(tb, 0, sizeof(*tb) * (size_t) (max + 1));
	mnl_attr_for_each (attr, nlh, sizeof(struct genlmsghdr)) {
		int type = mnl_attr_get_type(attr);

		if (type <= max)
			tb[type] = attr;
	}
	return 0;
}

int cp_mod_parse_getfamily(const struct nlmsghdr *nlh, uint16_t *family, uint32_t *version)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1];
	const struct genlmsghdr *genl;
	int r;

	r = parse_attrs(nlh, tb, CTRL_ATTR_MAX, &genl);
	if (r < 0)
		return r;
	if (!tb[CTRL_ATTR_FAMILY_ID] ||
	    mnl_attr_validate(tb[CTRL_ATTR_FAMILY_ID], MNL_TYPE_U16) < 0)
		return -EBADMSG;
	*family = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	*version = 0;
	if (tb[CTRL_ATTR_VERSION] && mnl_attr_validate(tb[CTRL_ATTR_VERSION], MNL_TYPE_U32) >= 0)
		*version = mnl_attr_get_u32(tb[CTRL_ATTR_VERSION]);
	return 0;
}

struct family_reply {
	uint16_t family;
	uint32_t version;
	int error;
};

static int getfamily_cb(const struct nlmsghdr *nlh, void *data)
{
	struct family_reply *f = data;

	f->error = cp_mod_parse_getfamily(nlh, &f->family, &f->version);
	return f->error < 0 ? MNL_CB_STOP : MNL_CB_OK;
}

int cp_mod_family(struct cp_nl *nl, uint16_t *family)
{
	char buf[CP_MOD_MSG_SIZE] = {0}; /* libmnl 1.0.4 leaves attribute padding as found */
	struct family_reply f = {0};
	int r;

	r = cp_nl_transact(nl, cp_mod_build_getfamily(buf), getfamily_cb, &f);
	if (r < 0)
		return r; /* -ENOENT: no such family, the module is not loaded */
	if (f.error < 0)
		return f.error;
	if (f.family == 0)
		return -EBADMSG;
	if (f.version < CRYPTOPRIO_GENL_VERSION)
		return -EPROTO;
	*family = f.family;
	return 0;
}

struct nlmsghdr *cp_mod_build_calibrate(void *buf, uint16_t family,
					const struct cp_mod_calib_req *req)
{
	struct nlmsghdr *nlh =
	    put_header(buf, family, CRYPTOPRIO_CMD_CALIBRATE, CRYPTOPRIO_GENL_VERSION);

	if (req->driver)
		mnl_attr_put_strz(nlh, CRYPTOPRIO_ATTR_DRIVER, req->driver);
	if (req->type != CRYPTOPRIO_TYPE_UNSPEC)
		mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_TYPE, req->type);
	if (req->decrypt)
		mnl_attr_put(nlh, CRYPTOPRIO_ATTR_DECRYPT, 0, NULL);
	if (req->key_size)
		mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_KEY_SIZE, req->key_size);
	if (req->req_size)
		mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_REQ_SIZE, req->req_size);
	if (req->depth)
		mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_DEPTH, req->depth);
	if (req->budget_ns)
		mnl_attr_put_u64(nlh, CRYPTOPRIO_ATTR_BUDGET_NS, req->budget_ns);
	if (req->grace_ns)
		mnl_attr_put_u64(nlh, CRYPTOPRIO_ATTR_GRACE_NS, req->grace_ns);
	return nlh;
}

static int get_u32(const struct nlattr *a, uint32_t *v)
{
	if (!a)
		return 0;
	if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
		return -EBADMSG;
	*v = mnl_attr_get_u32(a);
	return 0;
}

static int get_u64(const struct nlattr *a, uint64_t *v)
{
	if (!a)
		return 0;
	if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
		return -EBADMSG;
	*v = mnl_attr_get_u64(a);
	return 0;
}

static int get_str(const struct nlattr *a, char *s, size_t size)
{
	if (!a)
		return 0;
	if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
		return -EBADMSG;
	if (strlen(mnl_attr_get_str(a)) >= size)
		return -ENAMETOOLONG;
	strcpy(s, mnl_attr_get_str(a));
	return 0;
}

int cp_mod_parse_calibrate(const struct nlmsghdr *nlh, struct cp_mod_calib_result *res)
{
	const struct nlattr *tb[CRYPTOPRIO_ATTR_MAX + 1];
	const struct genlmsghdr *genl;
	uint32_t type = 0, kat = 0;
	int r;

	r = parse_attrs(nlh, tb, CRYPTOPRIO_ATTR_MAX, &genl);
	if (r < 0)
		return r;
	if (genl->cmd != CRYPTOPRIO_CMD_CALIBRATE)
		return -EBADMSG;
	/* Without these the reply means nothing. */
	if (!tb[CRYPTOPRIO_ATTR_DRIVER] || !tb[CRYPTOPRIO_ATTR_REQUESTS] ||
	    !tb[CRYPTOPRIO_ATTR_WALL_NS] || !tb[CRYPTOPRIO_ATTR_KAT])
		return -EBADMSG;
	memset(res, 0, sizeof(*res));
	if ((r = get_str(tb[CRYPTOPRIO_ATTR_DRIVER], res->driver, sizeof(res->driver))) < 0 ||
	    (r = get_str(tb[CRYPTOPRIO_ATTR_REFERENCE], res->reference, sizeof(res->reference))) <
		0 ||
	    (r = get_u32(tb[CRYPTOPRIO_ATTR_TYPE], &type)) < 0 ||
	    (r = get_u32(tb[CRYPTOPRIO_ATTR_REQ_SIZE], &res->req_size)) < 0 ||
	    (r = get_u32(tb[CRYPTOPRIO_ATTR_DEPTH], &res->depth)) < 0 ||
	    (r = get_u32(tb[CRYPTOPRIO_ATTR_USED_KEY_SIZE], &res->key_size)) < 0 ||
	    (r = get_u32(tb[CRYPTOPRIO_ATTR_MAX_IN_FLIGHT], &res->max_in_flight)) < 0 ||
	    (r = get_u32(tb[CRYPTOPRIO_ATTR_KAT], &kat)) < 0 ||
	    (r = get_u32(tb[CRYPTOPRIO_ATTR_COMPRESSED_SIZE], &res->compressed_size)) < 0 ||
	    (r = get_u64(tb[CRYPTOPRIO_ATTR_BUDGET_NS], &res->budget_ns)) < 0 ||
	    (r = get_u64(tb[CRYPTOPRIO_ATTR_REQUESTS], &res->requests)) < 0 ||
	    (r = get_u64(tb[CRYPTOPRIO_ATTR_BYTES], &res->bytes)) < 0 ||
	    (r = get_u64(tb[CRYPTOPRIO_ATTR_WALL_NS], &res->wall_ns)) < 0 ||
	    (r = get_u64(tb[CRYPTOPRIO_ATTR_CPU_NS], &res->cpu_ns)) < 0)
		return r;
	if (type > CRYPTOPRIO_TYPE_MAX || kat > CRYPTOPRIO_KAT_UNSUPPORTED)
		return -EBADMSG;
	res->type = (enum cryptoprio_type) type;
	res->kat = (enum cryptoprio_kat) kat;
	res->decrypt = tb[CRYPTOPRIO_ATTR_DECRYPT] != NULL;
	return 0;
}

struct calib_reply {
	struct cp_mod_calib_result *res;
	int error;
	bool seen;
};

static int calibrate_cb(const struct nlmsghdr *nlh, void *data)
{
	struct calib_reply *c = data;

	c->error = cp_mod_parse_calibrate(nlh, c->res);
	c->seen = true;
	return c->error < 0 ? MNL_CB_STOP : MNL_CB_OK;
}

int cp_mod_calibrate(struct cp_nl *nl, const struct cp_mod_calib_req *req,
		     struct cp_mod_calib_result *res)
{
	char buf[CP_MOD_MSG_SIZE] = {0}; /* libmnl 1.0.4 leaves attribute padding as found */
	struct calib_reply c = {.res = res};
	uint16_t family;
	int r;

	r = cp_mod_family(nl, &family);
	if (r < 0)
		return r;
	r = cp_nl_transact_acked(nl, cp_mod_build_calibrate(buf, family, req), calibrate_cb, &c);
	if (r < 0)
		return r;
	if (c.error < 0)
		return c.error;
	return c.seen ? 0 : -EBADMSG;
}

struct nlmsghdr *cp_mod_build_resolve(void *buf, uint16_t family, const char *name,
				      enum cryptoprio_type type, uint32_t mask, bool build)
{
	struct nlmsghdr *nlh =
	    put_header(buf, family, CRYPTOPRIO_CMD_RESOLVE, CRYPTOPRIO_GENL_VERSION);

	if (name)
		mnl_attr_put_strz(nlh, CRYPTOPRIO_ATTR_NAME, name);
	if (type != CRYPTOPRIO_TYPE_UNSPEC)
		mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_TYPE, type);
	mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_MASK, mask);
	if (build)
		mnl_attr_put(nlh, CRYPTOPRIO_ATTR_BUILD, 0, NULL);
	return nlh;
}

int cp_mod_parse_resolve(const struct nlmsghdr *nlh, struct cp_mod_resolve_result *res)
{
	const struct nlattr *tb[CRYPTOPRIO_ATTR_MAX + 1];
	const struct genlmsghdr *genl;
	uint32_t type = 0;
	int r;

	r = parse_attrs(nlh, tb, CRYPTOPRIO_ATTR_MAX, &genl);
	if (r < 0)
		return r;
	if (genl->cmd != CRYPTOPRIO_CMD_RESOLVE || !tb[CRYPTOPRIO_ATTR_RESOLVED_DRIVER])
		return -EBADMSG;
	memset(res, 0, sizeof(*res));
	if ((r = get_str(tb[CRYPTOPRIO_ATTR_RESOLVED_DRIVER], res->driver, sizeof(res->driver))) <
		0 ||
	    (r = get_str(tb[CRYPTOPRIO_ATTR_NAME], res->name, sizeof(res->name))) < 0 ||
	    (r = get_u32(tb[CRYPTOPRIO_ATTR_TYPE], &type)) < 0 ||
	    (r = get_u32(tb[CRYPTOPRIO_ATTR_MASK], &res->mask)) < 0)
		return r;
	if (type > CRYPTOPRIO_TYPE_MAX)
		return -EBADMSG;
	res->type = (enum cryptoprio_type) type;
	return 0;
}

struct resolve_reply {
	struct cp_mod_resolve_result *res;
	int error;
	bool seen;
};

static int resolve_cb(const struct nlmsghdr *nlh, void *data)
{
	struct resolve_reply *c = data;

	c->error = cp_mod_parse_resolve(nlh, c->res);
	c->seen = true;
	return c->error < 0 ? MNL_CB_STOP : MNL_CB_OK;
}

int cp_mod_resolve(struct cp_nl *nl, const char *name, enum cryptoprio_type type, uint32_t mask,
		   bool build, struct cp_mod_resolve_result *res)
{
	char buf[CP_MOD_MSG_SIZE] = {0}; /* libmnl 1.0.4 leaves attribute padding as found */
	struct resolve_reply c = {.res = res};
	uint16_t family;
	int r;

	r = cp_mod_family(nl, &family);
	if (r < 0)
		return r;
	r = cp_nl_transact_acked(nl, cp_mod_build_resolve(buf, family, name, type, mask, build),
				 resolve_cb, &c);
	if (r < 0)
		return r;
	if (c.error < 0)
		return c.error;
	return c.seen ? 0 : -EBADMSG;
}

struct nlmsghdr *cp_mod_build_verify(void *buf, uint16_t family,
				     const struct cp_mod_verify_req *req)
{
	struct nlmsghdr *nlh =
	    put_header(buf, family, CRYPTOPRIO_CMD_VERIFY, CRYPTOPRIO_GENL_VERSION);

	if (req->driver)
		mnl_attr_put_strz(nlh, CRYPTOPRIO_ATTR_DRIVER, req->driver);
	if (req->type != CRYPTOPRIO_TYPE_UNSPEC)
		mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_TYPE, req->type);
	if (req->has_seed)
		mnl_attr_put_u64(nlh, CRYPTOPRIO_ATTR_SEED, req->seed);
	if (req->cases)
		mnl_attr_put_u32(nlh, CRYPTOPRIO_ATTR_CASES, req->cases);
	return nlh;
}

int cp_mod_parse_verify(const struct nlmsghdr *nlh, struct cp_mod_verify_result *res)
{
	const struct nlattr *tb[CRYPTOPRIO_ATTR_MAX + 1];
	const struct genlmsghdr *genl;
	uint32_t verdict = 0;
	int r;

	r = parse_attrs(nlh, tb, CRYPTOPRIO_ATTR_MAX, &genl);
	if (r < 0)
		return r;
	if (genl->cmd != CRYPTOPRIO_CMD_VERIFY || !tb[CRYPTOPRIO_ATTR_DRIVER] ||
	    !tb[CRYPTOPRIO_ATTR_VERDICT] || !tb[CRYPTOPRIO_ATTR_SEED] || !tb[CRYPTOPRIO_ATTR_CASES])
		return -EBADMSG;
	memset(res, 0, sizeof(*res));
	if ((r = get_str(tb[CRYPTOPRIO_ATTR_DRIVER], res->driver, sizeof(res->driver))) < 0 ||
	    (r = get_str(tb[CRYPTOPRIO_ATTR_REFERENCE], res->reference, sizeof(res->reference))) <
		0 ||
	    (r = get_str(tb[CRYPTOPRIO_ATTR_FAILURE], res->failure, sizeof(res->failure))) < 0 ||
	    (r = get_u32(tb[CRYPTOPRIO_ATTR_VERDICT], &verdict)) < 0 ||
	    (r = get_u32(tb[CRYPTOPRIO_ATTR_CASES], &res->cases)) < 0 ||
	    (r = get_u32(tb[CRYPTOPRIO_ATTR_FAILED_CASE], &res->failed_case)) < 0 ||
	    (r = get_u64(tb[CRYPTOPRIO_ATTR_SEED], &res->seed)) < 0)
		return r;
	if (verdict > CRYPTOPRIO_VERIFY_TIMEOUT ||
	    (verdict != CRYPTOPRIO_VERIFY_PASSED && !tb[CRYPTOPRIO_ATTR_FAILED_CASE]))
		return -EBADMSG;
	res->verdict = (enum cryptoprio_verdict) verdict;
	return 0;
}

struct verify_reply {
	struct cp_mod_verify_result *res;
	int error;
	bool seen;
};

static int verify_cb(const struct nlmsghdr *nlh, void *data)
{
	struct verify_reply *c = data;

	c->error = cp_mod_parse_verify(nlh, c->res);
	c->seen = true;
	return c->error < 0 ? MNL_CB_STOP : MNL_CB_OK;
}

int cp_mod_verify(struct cp_nl *nl, const struct cp_mod_verify_req *req,
		  struct cp_mod_verify_result *res)
{
	char buf[CP_MOD_MSG_SIZE] = {0}; /* libmnl 1.0.4 leaves attribute padding as found */
	struct verify_reply c = {.res = res};
	uint16_t family;
	int r;

	r = cp_mod_family(nl, &family);
	if (r < 0)
		return r;
	r = cp_nl_transact_acked(nl, cp_mod_build_verify(buf, family, req), verify_cb, &c);
	if (r < 0)
		return r;
	if (c.error < 0)
		return c.error;
	return c.seen ? 0 : -EBADMSG;
}

double cp_mod_mb_per_s(const struct cp_mod_calib_result *res)
{
	/* bytes / 1e6 per (ns / 1e9) */
	return res->wall_ns ? (double) res->bytes * 1e3 / (double) res->wall_ns : 0.0;
}

double cp_mod_ops_per_s(const struct cp_mod_calib_result *res)
{
	return res->wall_ns ? (double) res->requests * 1e9 / (double) res->wall_ns : 0.0;
}

double cp_mod_ns_per_request(const struct cp_mod_calib_result *res)
{
	return res->requests ? (double) res->wall_ns / (double) res->requests : 0.0;
}

double cp_mod_cpu_ns_per_byte(const struct cp_mod_calib_result *res)
{
	return res->bytes ? (double) res->cpu_ns / (double) res->bytes : 0.0;
}

double cp_mod_compression_ratio(const struct cp_mod_calib_result *res)
{
	return res->compressed_size ? (double) res->req_size / (double) res->compressed_size : 0.0;
}

const char *cp_mod_kat_to_string(enum cryptoprio_kat kat)
{
	switch (kat) {
	case CRYPTOPRIO_KAT_OK:
		return "ok";
	case CRYPTOPRIO_KAT_MISMATCH:
		return "mismatch";
	case CRYPTOPRIO_KAT_UNSUPPORTED:
		return "unsupported";
	}
	return "unknown";
}

/* One line "DRIVER OUTSTANDING BYTES" ending at @end: 0 or -EBADMSG. */
static int parse_kept_run(const char *line, const char *end, struct cp_mod_kept_run *run)
{
	char name[CP_NAME_MAX + 1];
	int name_end = 0, used = 0;

	/* counts are digits: sscanf would take "-1" for 4294967295 */
	if (sscanf(line, "%64s%n", name, &name_end) != 1 ||
	    line + name_end + strspn(line + name_end, " 0123456789") != end)
		return -EBADMSG;
	if (sscanf(line, "%64s %" SCNu32 " %" SCNu64 "%n", name, &run->outstanding, &run->bytes,
		   &used) != 3 ||
	    line + used != end || strlen(name) >= sizeof(run->driver))
		return -EBADMSG;
	cp_strscpy(run->driver, sizeof(run->driver), name);
	return 0;
}

int cp_mod_parse_kept_runs(const char *text, struct cp_mod_kept_run *runs, size_t max)
{
	size_t n = 0;

	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		struct cp_mod_kept_run run = {0};

		if (!end || parse_kept_run(line, end, &run) < 0)
			return -EBADMSG; /* the module ends every line */
		if (n < max)
			runs[n++] = run;
		line = end + 1;
	}
	return (int) n;
}

int cp_mod_kept_runs(struct cp_mod_kept_run *runs, size_t max)
{
	_cleanup_free_ char *text = NULL;
	size_t size;
	int r;

	r = cp_read_file(CP_MOD_KEPT_RUNS_PATH, 64 * 1024, &text, &size);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (strlen(text) != size)
		return -EBADMSG;
	return cp_mod_parse_kept_runs(text, runs, max);
}
