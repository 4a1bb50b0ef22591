// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: module init and exit, the generic netlink family.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "cryptoprio.h"

/* One calibration at a time: the engines and the CPU figures are shared. */
static DEFINE_MUTEX(cp_run_mutex);

/*
 * Every command runs with a reference on this module, so that rmmod fails
 * with EBUSY while one is going rather than freeing the code it returns
 * to, and notes the instances registered before it (trace.c).
 */
static int cp_command_begin(struct cp_trace *trace,
			    struct netlink_ext_ack *extack)
{
	int r;

	if (!try_module_get(THIS_MODULE)) {
		NL_SET_ERR_MSG(extack, "the module is being unloaded");
		return -ENODEV;
	}
	r = cp_trace_begin(trace);
	if (r)
		module_put(THIS_MODULE);
	return r;
}

/* @zombie: a run was left to a hung engine, which holds what it uses. */
static void cp_command_end(struct cp_trace *trace, bool zombie)
{
	cp_trace_end(trace, zombie);
	module_put(THIS_MODULE);
}

static const struct nla_policy cp_policy[CRYPTOPRIO_ATTR_MAX + 1] = {
	[CRYPTOPRIO_ATTR_DRIVER] = { .type = NLA_NUL_STRING,
				     .len = CRYPTO_MAX_ALG_NAME - 1 },
	[CRYPTOPRIO_ATTR_NAME] = { .type = NLA_NUL_STRING,
				   .len = CRYPTO_MAX_ALG_NAME - 1 },
	[CRYPTOPRIO_ATTR_TYPE] = { .type = NLA_U32 },
	[CRYPTOPRIO_ATTR_DECRYPT] = { .type = NLA_FLAG },
	[CRYPTOPRIO_ATTR_KEY_SIZE] = { .type = NLA_U32 },
	[CRYPTOPRIO_ATTR_REQ_SIZE] = { .type = NLA_U32 },
	[CRYPTOPRIO_ATTR_DEPTH] = { .type = NLA_U32 },
	[CRYPTOPRIO_ATTR_BUDGET_NS] = { .type = NLA_U64 },
	[CRYPTOPRIO_ATTR_GRACE_NS] = { .type = NLA_U64 },
	[CRYPTOPRIO_ATTR_MASK] = { .type = NLA_U32 },
	[CRYPTOPRIO_ATTR_BUILD] = { .type = NLA_FLAG },
};

static struct genl_family cp_family;

/*
 * Ranges are checked here rather than in the policy so that every refusal
 * names the limit in its extack message.
 */
static int cp_get_type(struct genl_info *info, enum cryptoprio_type *type)
{
	struct nlattr *a = info->attrs[CRYPTOPRIO_ATTR_TYPE];
	u32 v;

	if (!a) {
		NL_SET_ERR_MSG(info->extack, "missing attribute TYPE (skcipher, aead, hash, acomp, akcipher or kpp)");
		return -EINVAL;
	}
	v = nla_get_u32(a);
	if (v < CRYPTOPRIO_TYPE_SKCIPHER || v > CRYPTOPRIO_TYPE_MAX) {
		NL_SET_ERR_MSG_ATTR(info->extack, a, "TYPE must be skcipher (1), aead (2), hash (3), acomp (4), akcipher (5) or kpp (6)");
		return -EINVAL;
	}
	*type = v;
	return 0;
}

static int cp_parse_calibrate(struct genl_info *info, struct cp_params *p)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **tb = info->attrs;
	int r;

	if (!tb[CRYPTOPRIO_ATTR_DRIVER]) {
		NL_SET_ERR_MSG(extack, "missing attribute DRIVER (driver name)");
		return -EINVAL;
	}
	p->driver = nla_data(tb[CRYPTOPRIO_ATTR_DRIVER]);
	r = cp_get_type(info, &p->type);
	if (r)
		return r;
	if (!tb[CRYPTOPRIO_ATTR_REQ_SIZE]) {
		NL_SET_ERR_MSG(extack, "missing attribute REQ_SIZE (bytes per request)");
		return -EINVAL;
	}
	p->req_size = nla_get_u32(tb[CRYPTOPRIO_ATTR_REQ_SIZE]);
	if (p->req_size < 1 || p->req_size > CRYPTOPRIO_MAX_REQ_SIZE) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CRYPTOPRIO_ATTR_REQ_SIZE],
				    "request size must be 1..1048576 bytes (1 MiB)");
		return -EINVAL;
	}
	p->depth = tb[CRYPTOPRIO_ATTR_DEPTH] ?
		   nla_get_u32(tb[CRYPTOPRIO_ATTR_DEPTH]) : 1;
	if (p->depth < 1 || p->depth > CRYPTOPRIO_MAX_DEPTH) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CRYPTOPRIO_ATTR_DEPTH],
				    "depth must be 1..64 requests in flight");
		return -EINVAL;
	}
	p->budget_ns = tb[CRYPTOPRIO_ATTR_BUDGET_NS] ?
		       nla_get_u64(tb[CRYPTOPRIO_ATTR_BUDGET_NS]) :
		       CP_DEFAULT_BUDGET_NS;
	if (p->budget_ns < 1 || p->budget_ns > CRYPTOPRIO_MAX_BUDGET_NS) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CRYPTOPRIO_ATTR_BUDGET_NS],
				    "budget must be 1 ns..1 s");
		return -EINVAL;
	}
	p->grace_ns = tb[CRYPTOPRIO_ATTR_GRACE_NS] ?
		      nla_get_u64(tb[CRYPTOPRIO_ATTR_GRACE_NS]) :
		      CRYPTOPRIO_GRACE_NS;
	if (p->grace_ns < CRYPTOPRIO_MIN_GRACE_NS ||
	    p->grace_ns > CRYPTOPRIO_GRACE_NS) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CRYPTOPRIO_ATTR_GRACE_NS],
				    "grace must be 100 ms..2 s");
		return -EINVAL;
	}
	p->key_size = tb[CRYPTOPRIO_ATTR_KEY_SIZE] ?
		      nla_get_u32(tb[CRYPTOPRIO_ATTR_KEY_SIZE]) : 0;
	if (p->key_size > CRYPTOPRIO_MAX_KEY_SIZE) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CRYPTOPRIO_ATTR_KEY_SIZE],
				    "key size must be at most 256 bytes");
		return -EINVAL;
	}
	p->decrypt = nla_get_flag(tb[CRYPTOPRIO_ATTR_DECRYPT]);
	if (p->decrypt && p->type == CRYPTOPRIO_TYPE_HASH) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CRYPTOPRIO_ATTR_DECRYPT],
				    "DECRYPT is for ciphers, not hashes");
		return -EINVAL;
	}
	if (p->decrypt && p->type == CRYPTOPRIO_TYPE_AKCIPHER) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CRYPTOPRIO_ATTR_DECRYPT],
				    "DECRYPT needs a private key: only the public-key operation is measured");
		return -EINVAL;
	}
	if (p->decrypt && p->type == CRYPTOPRIO_TYPE_KPP) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CRYPTOPRIO_ATTR_DECRYPT],
				    "DECRYPT is not for key agreement: the shared-secret step is measured");
		return -EINVAL;
	}
	if (p->key_size && p->type == CRYPTOPRIO_TYPE_KPP) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CRYPTOPRIO_ATTR_KEY_SIZE],
				    "KEY_SIZE is not for key agreement: the module's private keys are fixed");
		return -EINVAL;
	}
	if (p->key_size && p->type == CRYPTOPRIO_TYPE_ACOMP) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CRYPTOPRIO_ATTR_KEY_SIZE],
				    "KEY_SIZE is for ciphers and keyed hashes, not compressors");
		return -EINVAL;
	}
	return 0;
}

static int cp_put_u64(struct sk_buff *msg, int type, u64 v)
{
	return nla_put_u64_64bit(msg, type, v, CRYPTOPRIO_ATTR_PAD);
}

static int cp_calibrate_traced(const struct cp_params *p,
			       struct cp_result *res,
			       struct netlink_ext_ack *extack)
{
	struct cp_trace trace;
	int r;

	r = cp_command_begin(&trace, extack);
	if (r)
		return r;
	r = cp_calibrate(p, res, extack);
	cp_command_end(&trace, r == CP_RUN_ABANDONED);
	/*
	 * netlink_rcv_skb() sends no answer for -EINTR, which is for a caller
	 * that is being killed: a driver's own -EINTR would leave a living
	 * caller waiting forever for one.
	 */
	if (r == -EINTR) {
		NL_SET_ERR_MSG(extack, "the driver failed a request with EINTR, which netlink cannot answer: EIO instead");
		r = -EIO;
	}
	/* given up on: the caller was killed, or the engine stopped answering */
	if (r == CP_RUN_ABANDONED)
		r = fatal_signal_pending(current) ? -EINTR : -ETIMEDOUT;
	return r;
}

static int cp_calibrate_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct cp_params p = {};
	struct cp_result *res;
	struct sk_buff *msg;
	void *hdr;
	int r;

	r = cp_parse_calibrate(info, &p);
	if (r)
		return r;
	if (!mutex_trylock(&cp_run_mutex)) {
		NL_SET_ERR_MSG(info->extack, "another calibration is running");
		return -EBUSY;
	}
	res = kzalloc(sizeof(*res), GFP_KERNEL);
	if (!res) {
		r = -ENOMEM;
		goto unlock;
	}
	r = cp_calibrate_traced(&p, res, info->extack);
	if (r)
		goto free_res;

	r = -ENOMEM;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		goto free_res;
	hdr = genlmsg_put_reply(msg, info, &cp_family, 0,
				CRYPTOPRIO_CMD_CALIBRATE);
	if (!hdr)
		goto free_msg;
	if (nla_put_string(msg, CRYPTOPRIO_ATTR_DRIVER, p.driver) ||
	    nla_put_u32(msg, CRYPTOPRIO_ATTR_TYPE, p.type) ||
	    nla_put_u32(msg, CRYPTOPRIO_ATTR_REQ_SIZE, p.req_size) ||
	    nla_put_u32(msg, CRYPTOPRIO_ATTR_DEPTH, p.depth) ||
	    nla_put_u32(msg, CRYPTOPRIO_ATTR_USED_KEY_SIZE, res->key_size) ||
	    cp_put_u64(msg, CRYPTOPRIO_ATTR_BUDGET_NS, p.budget_ns) ||
	    cp_put_u64(msg, CRYPTOPRIO_ATTR_REQUESTS, res->requests) ||
	    cp_put_u64(msg, CRYPTOPRIO_ATTR_BYTES, res->bytes) ||
	    cp_put_u64(msg, CRYPTOPRIO_ATTR_WALL_NS, res->wall_ns) ||
	    cp_put_u64(msg, CRYPTOPRIO_ATTR_CPU_NS, res->cpu_ns) ||
	    nla_put_u32(msg, CRYPTOPRIO_ATTR_KAT, res->kat) ||
	    nla_put_u32(msg, CRYPTOPRIO_ATTR_MAX_IN_FLIGHT,
			res->max_in_flight) ||
	    (p.decrypt && nla_put_flag(msg, CRYPTOPRIO_ATTR_DECRYPT)) ||
	    (p.type == CRYPTOPRIO_TYPE_ACOMP &&
	     nla_put_u32(msg, CRYPTOPRIO_ATTR_COMPRESSED_SIZE,
			 res->compressed_size)) ||
	    (res->reference[0] &&
	     nla_put_string(msg, CRYPTOPRIO_ATTR_REFERENCE, res->reference)))
		goto free_msg;
	genlmsg_end(msg, hdr);
	r = genlmsg_reply(msg, info);
	goto free_res;

free_msg:
	nlmsg_free(msg);
free_res:
	kfree(res);
unlock:
	mutex_unlock(&cp_run_mutex);
	return r;
}

static int cp_resolve_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	char driver[CRYPTO_MAX_ALG_NAME];
	enum cryptoprio_type type;
	struct cp_trace trace;
	struct sk_buff *msg;
	u32 mask = 0;
	void *hdr;
	int r;

	if (!tb[CRYPTOPRIO_ATTR_NAME]) {
		NL_SET_ERR_MSG(info->extack, "missing attribute NAME (algorithm name)");
		return -EINVAL;
	}
	r = cp_get_type(info, &type);
	if (r)
		return r;
	if (tb[CRYPTOPRIO_ATTR_MASK])
		mask = nla_get_u32(tb[CRYPTOPRIO_ATTR_MASK]);
	if (mask & ~CRYPTOPRIO_MASK_VALID) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[CRYPTOPRIO_ATTR_MASK],
				    "MASK takes only ASYNC, KERN_DRIVER_ONLY and ALLOCATES_MEMORY");
		return -EINVAL;
	}
	/*
	 * One traced command at a time: a resolve's cleanup would otherwise
	 * take a calibration's instances, briefly unused between its runs,
	 * for its own and remove them.
	 */
	if (mutex_lock_killable(&cp_run_mutex))
		return -EINTR;
	r = cp_command_begin(&trace, info->extack);
	if (!r) {
		r = cp_resolve(nla_data(tb[CRYPTOPRIO_ATTR_NAME]), type, mask,
			       nla_get_flag(tb[CRYPTOPRIO_ATTR_BUILD]),
			       driver, sizeof(driver), info->extack);
		cp_command_end(&trace, false);
	}
	mutex_unlock(&cp_run_mutex);
	if (r)
		return r;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &cp_family, 0,
				CRYPTOPRIO_CMD_RESOLVE);
	if (!hdr ||
	    nla_put_string(msg, CRYPTOPRIO_ATTR_NAME,
			   nla_data(tb[CRYPTOPRIO_ATTR_NAME])) ||
	    nla_put_u32(msg, CRYPTOPRIO_ATTR_TYPE, type) ||
	    nla_put_u32(msg, CRYPTOPRIO_ATTR_MASK, mask) ||
	    nla_put_string(msg, CRYPTOPRIO_ATTR_RESOLVED_DRIVER, driver)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static const struct genl_small_ops cp_ops[] = {
	{
		.cmd = CRYPTOPRIO_CMD_CALIBRATE,
		.doit = cp_calibrate_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = CRYPTOPRIO_CMD_RESOLVE,
		.doit = cp_resolve_doit,
		.flags = GENL_ADMIN_PERM,
	},
};

static struct genl_family cp_family __ro_after_init = {
	.name = CRYPTOPRIO_GENL_NAME,
	.version = CRYPTOPRIO_GENL_VERSION,
	.maxattr = CRYPTOPRIO_ATTR_MAX,
	.policy = cp_policy,
	/*
	 * A calibration sleeps for its budget (1 s at most), then for each of
	 * its runs (the known answers', the timed one) until no request has
	 * come back for the grace period (2 s at most): an engine returning
	 * one request a grace period keeps it up to depth x grace per run,
	 * and the trace's cleanup 1 s more. Do not hold genl_mutex over it.
	 */
	.parallel_ops = true,
	.module = THIS_MODULE,
	.small_ops = cp_ops,
	.n_small_ops = ARRAY_SIZE(cp_ops),
};

static int __init cp_init(void)
{
	int r;

	r = cp_run_init();
	if (r)
		return r;
	r = genl_register_family(&cp_family);
	if (r) {
		pr_err("cannot register the generic netlink family: %d\n", r);
		cp_run_exit();
		return r;
	}
	pr_info("generic netlink family %s version %d\n",
		CRYPTOPRIO_GENL_NAME, CRYPTOPRIO_GENL_VERSION);
	return 0;
}

static void __exit cp_exit(void)
{
	/* waits for commands still running (genetlink's cb_lock) */
	genl_unregister_family(&cp_family);
	cp_run_exit();
	cp_trace_exit();
}

module_init(cp_init);
module_exit(cp_exit);

MODULE_DESCRIPTION("Calibration and known-answer checks of crypto implementations");
MODULE_AUTHOR("cryptoprio authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(CRYPTOPRIO_VERSION); /* driver/VERSION, by Kbuild */
MODULE_ALIAS_GENL_FAMILY(CRYPTOPRIO_GENL_NAME);
