// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: module init and exit, the generic netlink family.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "cryptoprio.h"
#include "types.h"

/*
 * Commands run in the module's own worker, one at a time and in order, not
 * in the netlink handler. genetlink holds cb_lock for reading around every
 * handler, and a calibration waits on engines for seconds: a module
 * registering or unregistering a family meanwhile (wireguard, team, a
 * Wi-Fi driver) would wait for cb_lock as a writer, and every other
 * genetlink user (nl80211, ethtool, devlink) behind it. So the handler
 * checks the request, queues it and returns; the worker answers the
 * caller's socket when the command ends, as netlink_rcv_skb() would have:
 * the reply and an ack, or the error with its extended ack. A caller that
 * closes its socket (killed) gets nothing, and its command stops waiting
 * on the engine at once (what is still out is kept: run.c).
 */
#define CP_MAX_QUEUED	8	/* commands queued or running, ~1 KiB each */

struct cp_command {
	struct work_struct work;
	u8 cmd;
	struct sk_buff *skb;		/* the request, held: netlink_ack() reads it */
	struct nlmsghdr *nlh;		/* in @skb */
	struct sock *caller;		/* held: SOCK_DEAD once closed */
	u32 portid;
	ktime_t deadline;		/* of its runs, from the first; 0: none yet */
	struct netlink_ext_ack extack;
	struct cp_params p;		/* CALIBRATE: p.driver is @name */
	struct cp_verify_params v;	/* VERIFY: v.driver is @name */
	enum cryptoprio_type type;	/* RESOLVE */
	u32 mask;			/* RESOLVE */
	bool build;			/* RESOLVE: may build what is not registered */
	char name[CRYPTO_MAX_ALG_NAME];	/* the driver, or the algorithm's name */
};

static struct workqueue_struct *cp_cmd_wq;	/* ordered: one at a time */
static DEFINE_SPINLOCK(cp_queue_lock);
static unsigned int cp_queued;		/* commands queued or running */
/* the CALIBRATE or VERIFY queued or running, 0 if none */
static u8 cp_running_cmd;
static struct cp_command *cp_current;	/* the worker's; only it reads this */

/* The caller of the command in progress closed its socket (killed). */
bool cp_command_caller_gone(void)
{
	return !cp_current || sock_flag(cp_current->caller, SOCK_DEAD);
}

/*
 * When the runs of the command in progress must have ended: its budget
 * plus CP_COMMAND_GRACES grace periods after its first run began,
 * however often a trickling engine moves a run's give-up time forward.
 */
ktime_t cp_command_deadline(void)
{
	struct cp_command *c = cp_current;

	if (!c)
		return ktime_get();
	if (!c->deadline)
		c->deadline = ktime_add_ns(ktime_get(), c->p.budget_ns +
					   CP_COMMAND_GRACES * c->p.grace_ns);
	return c->deadline;
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
	[CRYPTOPRIO_ATTR_SEED] = { .type = NLA_U64 },
	[CRYPTOPRIO_ATTR_CASES] = { .type = NLA_U32 },
};

static struct genl_family cp_family;

/*
 * NL_SET_ERR_MSG_ATTR() (or NL_SET_ERR_MSG(), @attr NULL) of a message
 * of the types' table, which is no literal.
 */
static void cp_set_type_err(struct netlink_ext_ack *extack,
			    const struct nlattr *attr, const char *msg)
{
	do_trace_netlink_extack(msg);
	if (!extack)
		return;
	extack->_msg = msg;
	if (attr)
		NL_SET_BAD_ATTR(extack, attr);
}

/*
 * Ranges are checked here rather than in the policy so that every refusal
 * names the limit in its extack message.
 */
static int cp_get_type(struct genl_info *info, enum cryptoprio_type *type)
{
	struct nlattr *a = info->attrs[CRYPTOPRIO_ATTR_TYPE];

	if (!a) {
		cp_set_type_err(info->extack, NULL, cp_type_missing_msg());
		return -EINVAL;
	}
	if (!cp_type_ops(nla_get_u32(a))) {
		cp_set_type_err(info->extack, a, cp_type_range_msg());
		return -EINVAL;
	}
	*type = nla_get_u32(a);
	return 0;
}

static int cp_parse_calibrate(struct genl_info *info, struct cp_params *p)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **tb = info->attrs;
	const struct cp_type_ops *ops;
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
	ops = cp_type_ops(p->type);
	if (p->decrypt && ops->decrypt_refused) {
		cp_set_type_err(extack, tb[CRYPTOPRIO_ATTR_DECRYPT],
				ops->decrypt_refused);
		return -EINVAL;
	}
	if (p->key_size && ops->key_size_refused) {
		cp_set_type_err(extack, tb[CRYPTOPRIO_ATTR_KEY_SIZE],
				ops->key_size_refused);
		return -EINVAL;
	}
	return 0;
}

static int cp_put_u64(struct sk_buff *msg, int type, u64 v)
{
	return nla_put_u64_64bit(msg, type, v, CRYPTOPRIO_ATTR_PAD);
}

/* The reply's message with its genetlink header; NULL without memory. */
static struct sk_buff *cp_reply_new(struct cp_command *c, void **hdr)
{
	struct sk_buff *msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);

	if (!msg)
		return NULL;
	*hdr = genlmsg_put(msg, c->portid, c->nlh->nlmsg_seq, &cp_family, 0,
			   c->cmd);
	if (!*hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static struct sk_buff *cp_calibrate_reply(struct cp_command *c,
					  const struct cp_result *res)
{
	const struct cp_params *p = &c->p;
	struct sk_buff *msg;
	void *hdr;

	msg = cp_reply_new(c, &hdr);
	if (!msg)
		return NULL;
	if (nla_put_string(msg, CRYPTOPRIO_ATTR_DRIVER, p->driver) ||
	    nla_put_u32(msg, CRYPTOPRIO_ATTR_TYPE, p->type) ||
	    nla_put_u32(msg, CRYPTOPRIO_ATTR_REQ_SIZE, p->req_size) ||
	    nla_put_u32(msg, CRYPTOPRIO_ATTR_DEPTH, p->depth) ||
	    nla_put_u32(msg, CRYPTOPRIO_ATTR_USED_KEY_SIZE, res->key_size) ||
	    cp_put_u64(msg, CRYPTOPRIO_ATTR_BUDGET_NS, p->budget_ns) ||
	    cp_put_u64(msg, CRYPTOPRIO_ATTR_REQUESTS, res->requests) ||
	    cp_put_u64(msg, CRYPTOPRIO_ATTR_BYTES, res->bytes) ||
	    cp_put_u64(msg, CRYPTOPRIO_ATTR_WALL_NS, res->wall_ns) ||
	    cp_put_u64(msg, CRYPTOPRIO_ATTR_CPU_NS, res->cpu_ns) ||
	    nla_put_u32(msg, CRYPTOPRIO_ATTR_KAT, res->kat) ||
	    nla_put_u32(msg, CRYPTOPRIO_ATTR_MAX_IN_FLIGHT,
			res->max_in_flight) ||
	    (p->decrypt && nla_put_flag(msg, CRYPTOPRIO_ATTR_DECRYPT)) ||
	    (cp_type_ops(p->type)->compressed_size &&
	     nla_put_u32(msg, CRYPTOPRIO_ATTR_COMPRESSED_SIZE,
			 res->compressed_size)) ||
	    (res->reference[0] &&
	     nla_put_string(msg, CRYPTOPRIO_ATTR_REFERENCE, res->reference))) {
		nlmsg_free(msg);
		return NULL;
	}
	genlmsg_end(msg, hdr);
	return msg;
}

/* CALIBRATE, in the worker: 0 and the reply in @msg, or an error. */
static int cp_calibrate_run(struct cp_command *c, struct sk_buff **msg)
{
	struct cp_result *res;
	struct cp_trace trace;
	int r;

	res = kzalloc(sizeof(*res), GFP_KERNEL);
	if (!res)
		return -ENOMEM;
	r = cp_trace_begin(&trace);
	if (r)
		goto out;
	r = cp_calibrate(&c->p, res, &c->extack);
	cp_trace_end(&trace, r == CP_RUN_ABANDONED);
	/*
	 * A driver's own -EINTR would read as an interrupted call of the
	 * client's (and version 1, answering from the handler, could not
	 * send it: netlink_rcv_skb() drops -EINTR, meant for a caller being
	 * killed).
	 */
	if (r == -EINTR) {
		NL_SET_ERR_MSG(&c->extack, "the driver failed a request with EINTR, which netlink cannot answer: EIO instead");
		r = -EIO;
	}
	/* given up on: the engine stopped answering, or the caller left */
	if (r == CP_RUN_ABANDONED)
		r = -ETIMEDOUT;
	if (!r) {
		*msg = cp_calibrate_reply(c, res);
		if (!*msg)
			r = -ENOMEM;
	}
out:
	kfree(res);
	return r;
}

static struct sk_buff *cp_verify_reply(struct cp_command *c,
				       const struct cp_verify_result *res)
{
	bool failed = res->verdict != CRYPTOPRIO_VERIFY_PASSED;
	struct sk_buff *msg;
	void *hdr;

	msg = cp_reply_new(c, &hdr);
	if (!msg)
		return NULL;
	if (nla_put_string(msg, CRYPTOPRIO_ATTR_DRIVER, c->v.driver) ||
	    nla_put_u32(msg, CRYPTOPRIO_ATTR_TYPE, c->v.type) ||
	    cp_put_u64(msg, CRYPTOPRIO_ATTR_SEED, c->v.seed) ||
	    nla_put_u32(msg, CRYPTOPRIO_ATTR_CASES, res->cases) ||
	    nla_put_u32(msg, CRYPTOPRIO_ATTR_VERDICT, res->verdict) ||
	    nla_put_string(msg, CRYPTOPRIO_ATTR_REFERENCE, res->reference) ||
	    (failed &&
	     (nla_put_u32(msg, CRYPTOPRIO_ATTR_FAILED_CASE, res->failed_case) ||
	      nla_put_string(msg, CRYPTOPRIO_ATTR_FAILURE, res->failure)))) {
		nlmsg_free(msg);
		return NULL;
	}
	genlmsg_end(msg, hdr);
	return msg;
}

/*
 * VERIFY, in the worker: 0 and the reply in @msg, or an error. A case the
 * engine never answered is a verdict (FAILED), its run kept as a zombie.
 */
static int cp_verify_run(struct cp_command *c, struct sk_buff **msg)
{
	struct cp_verify_result *res;
	struct cp_trace trace;
	int r;

	res = kzalloc(sizeof(*res), GFP_KERNEL);
	if (!res)
		return -ENOMEM;
	r = cp_trace_begin(&trace);
	if (r)
		goto out;
	r = cp_verify(&c->v, res, &c->extack);
	cp_trace_end(&trace, r == CP_RUN_ABANDONED);
	if (r == CP_RUN_ABANDONED)
		r = 0;
	if (!r) {
		*msg = cp_verify_reply(c, res);
		if (!*msg)
			r = -ENOMEM;
	}
out:
	kfree(res);
	return r;
}

/* RESOLVE, in the worker: 0 and the reply in @msg, or an error. */
static int cp_resolve_run(struct cp_command *c, struct sk_buff **msg)
{
	char driver[CRYPTO_MAX_ALG_NAME];
	struct cp_trace trace;
	void *hdr;
	int r;

	r = cp_trace_begin(&trace);
	if (r)
		return r;
	r = cp_resolve(c->name, c->type, c->mask, c->build, driver,
		       sizeof(driver), &c->extack);
	cp_trace_end(&trace, false);
	if (r)
		return r;
	*msg = cp_reply_new(c, &hdr);
	if (!*msg)
		return -ENOMEM;
	if (nla_put_string(*msg, CRYPTOPRIO_ATTR_NAME, c->name) ||
	    nla_put_u32(*msg, CRYPTOPRIO_ATTR_TYPE, c->type) ||
	    nla_put_u32(*msg, CRYPTOPRIO_ATTR_MASK, c->mask) ||
	    nla_put_string(*msg, CRYPTOPRIO_ATTR_RESOLVED_DRIVER, driver)) {
		nlmsg_free(*msg);
		*msg = NULL;
		return -EMSGSIZE;
	}
	genlmsg_end(*msg, hdr);
	return 0;
}

/* The reply if any, then the ack or the error: nothing to a closed socket. */
static void cp_answer(struct cp_command *c, struct sk_buff *msg, int r)
{
	if (sock_flag(c->caller, SOCK_DEAD)) {
		nlmsg_free(msg);
		return;
	}
	if (msg)
		r = nlmsg_unicast(c->skb->sk, msg, c->portid);
	netlink_ack(c->skb, c->nlh, r, &c->extack);
}

/*
 * The command has run: the next may be taken. Before the answer, which
 * lets the caller send its next calibration at once.
 */
static void cp_command_done(struct cp_command *c)
{
	spin_lock(&cp_queue_lock);
	cp_queued--;
	if (c->cmd != CRYPTOPRIO_CMD_RESOLVE)
		cp_running_cmd = 0;
	spin_unlock(&cp_queue_lock);
}

static void cp_command_free(struct cp_command *c)
{
	sock_put(c->caller);
	kfree_skb(c->skb);
	kfree(c);
	/* destroy_workqueue() in cp_exit() waits for this worker to return */
	module_put(THIS_MODULE);
}

static void cp_command_work(struct work_struct *work)
{
	struct cp_command *c = container_of(work, struct cp_command, work);
	struct sk_buff *msg = NULL;
	int r;

	cp_current = c;
	if (cp_command_caller_gone())
		r = -EPIPE;
	else if (c->cmd == CRYPTOPRIO_CMD_CALIBRATE)
		r = cp_calibrate_run(c, &msg);
	else if (c->cmd == CRYPTOPRIO_CMD_VERIFY)
		r = cp_verify_run(c, &msg);
	else
		r = cp_resolve_run(c, &msg);
	cp_current = NULL;
	cp_command_done(c);
	cp_answer(c, msg, r);
	cp_command_free(c);
}

/*
 * Take a checked request: one calibration at a time (the engines and the
 * CPU figures are shared), CP_MAX_QUEUED commands at most. Every command
 * holds a reference on this module until it has answered, so that rmmod
 * fails with EBUSY while one is queued or running.
 */
static int cp_command_queue(struct cp_command *c, struct sk_buff *skb,
			    struct genl_info *info)
{
	bool runs = c->cmd != CRYPTOPRIO_CMD_RESOLVE;
	int r = 0;

	spin_lock(&cp_queue_lock);
	if (runs && cp_running_cmd == CRYPTOPRIO_CMD_CALIBRATE) {
		NL_SET_ERR_MSG(info->extack, "another calibration is running");
		r = -EBUSY;
	} else if (runs && cp_running_cmd) {
		NL_SET_ERR_MSG(info->extack, "a verification is running");
		r = -EBUSY;
	} else if (cp_queued >= CP_MAX_QUEUED) {
		NL_SET_ERR_MSG(info->extack, "8 commands are queued already");
		r = -EBUSY;
	} else if (!try_module_get(THIS_MODULE)) {
		NL_SET_ERR_MSG(info->extack, "the module is being unloaded");
		r = -ENODEV;
	} else {
		cp_queued++;
		if (runs)
			cp_running_cmd = c->cmd;
	}
	spin_unlock(&cp_queue_lock);
	if (r) {
		kfree(c);
		return r;
	}
	c->skb = skb_get(skb);
	c->nlh = cp_genl_nlhdr(info);
	c->caller = NETLINK_CB(skb).sk;
	sock_hold(c->caller);
	c->portid = info->snd_portid;
	INIT_WORK(&c->work, cp_command_work);
	queue_work(cp_cmd_wq, &c->work);
	return 0;
}

static int cp_parse_resolve(struct genl_info *info, struct cp_command *c)
{
	struct nlattr **tb = info->attrs;
	int r;

	if (!tb[CRYPTOPRIO_ATTR_NAME]) {
		NL_SET_ERR_MSG(info->extack, "missing attribute NAME (algorithm name)");
		return -EINVAL;
	}
	r = cp_get_type(info, &c->type);
	if (r)
		return r;
	if (tb[CRYPTOPRIO_ATTR_MASK])
		c->mask = nla_get_u32(tb[CRYPTOPRIO_ATTR_MASK]);
	if (c->mask & ~CRYPTOPRIO_MASK_VALID) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[CRYPTOPRIO_ATTR_MASK],
				    "MASK takes only ASYNC, KERN_DRIVER_ONLY and ALLOCATES_MEMORY");
		return -EINVAL;
	}
	c->build = nla_get_flag(tb[CRYPTOPRIO_ATTR_BUILD]);
	strscpy(c->name, nla_data(tb[CRYPTOPRIO_ATTR_NAME]), sizeof(c->name));
	return 0;
}

/* CALIBRATE's attributes, into the command that keeps the driver's name. */
static int cp_parse_calibrate_command(struct genl_info *info,
				      struct cp_command *c)
{
	int r = cp_parse_calibrate(info, &c->p);

	if (r)
		return r;
	strscpy(c->name, c->p.driver, sizeof(c->name));
	c->p.driver = c->name;
	return 0;
}

/*
 * VERIFY's attributes. Its runs share the command's deadline: the cases'
 * time, plus the graces of cp_command_deadline().
 */
static int cp_parse_verify(struct genl_info *info, struct cp_command *c)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **tb = info->attrs;
	struct cp_verify_params *v = &c->v;
	int r;

	if (!tb[CRYPTOPRIO_ATTR_DRIVER]) {
		NL_SET_ERR_MSG(extack, "missing attribute DRIVER (driver name)");
		return -EINVAL;
	}
	r = cp_get_type(info, &v->type);
	if (r)
		return r;
	v->seed = tb[CRYPTOPRIO_ATTR_SEED] ?
		  nla_get_u64(tb[CRYPTOPRIO_ATTR_SEED]) : get_random_u64();
	v->cases = CRYPTOPRIO_VERIFY_CASES;
	if (tb[CRYPTOPRIO_ATTR_CASES])
		v->cases = nla_get_u32(tb[CRYPTOPRIO_ATTR_CASES]);
	if (v->cases < 1 || v->cases > CRYPTOPRIO_VERIFY_MAX_CASES) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CRYPTOPRIO_ATTR_CASES],
				    "cases must be 1..1024");
		return -EINVAL;
	}
	v->grace_ns = tb[CRYPTOPRIO_ATTR_GRACE_NS] ?
		      nla_get_u64(tb[CRYPTOPRIO_ATTR_GRACE_NS]) :
		      CRYPTOPRIO_GRACE_NS;
	if (v->grace_ns < CRYPTOPRIO_MIN_GRACE_NS ||
	    v->grace_ns > CRYPTOPRIO_GRACE_NS) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CRYPTOPRIO_ATTR_GRACE_NS],
				    "grace must be 100 ms..2 s");
		return -EINVAL;
	}
	c->p.budget_ns = CP_VERIFY_TIME_NS;
	c->p.grace_ns = v->grace_ns;
	strscpy(c->name, nla_data(tb[CRYPTOPRIO_ATTR_DRIVER]), sizeof(c->name));
	v->driver = c->name;
	return 0;
}

/* Every command: checked here, run by the worker. */
static int cp_command_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct cp_command *c;
	int r;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->cmd = info->genlhdr->cmd;
	if (c->cmd == CRYPTOPRIO_CMD_CALIBRATE)
		r = cp_parse_calibrate_command(info, c);
	else if (c->cmd == CRYPTOPRIO_CMD_VERIFY)
		r = cp_parse_verify(info, c);
	else
		r = cp_parse_resolve(info, c);
	if (r) {
		kfree(c);
		return r;
	}
	return cp_command_queue(c, skb, info);
}

static const struct genl_small_ops cp_ops[] = {
	{
		.cmd = CRYPTOPRIO_CMD_CALIBRATE,
		.doit = cp_command_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = CRYPTOPRIO_CMD_RESOLVE,
		.doit = cp_command_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = CRYPTOPRIO_CMD_VERIFY,
		.doit = cp_command_doit,
		.flags = GENL_ADMIN_PERM,
	},
};

static struct genl_family cp_family __ro_after_init = {
	.name = CRYPTOPRIO_GENL_NAME,
	.version = CRYPTOPRIO_GENL_VERSION,
	.maxattr = CRYPTOPRIO_ATTR_MAX,
	.policy = cp_policy,
	/*
	 * The handlers only check and queue (cp_command_queue()): nothing
	 * waits under genl_mutex, or under cb_lock, for an engine.
	 */
	.parallel_ops = true,
	.module = THIS_MODULE,
	.small_ops = cp_ops,
	.n_small_ops = ARRAY_SIZE(cp_ops),
};

static int __init cp_init(void)
{
	int r;

	r = cp_types_init();
	if (r)
		return r;
	cp_cmd_wq = alloc_ordered_workqueue("cryptoprio_cmd", 0);
	if (!cp_cmd_wq)
		return -ENOMEM;
	r = cp_run_init();
	if (r)
		goto destroy_cmd_wq;
	r = genl_register_family(&cp_family);
	if (r) {
		pr_err("cannot register the generic netlink family: %d\n", r);
		cp_run_exit();
		goto destroy_cmd_wq;
	}
	pr_info("generic netlink family %s version %d\n",
		CRYPTOPRIO_GENL_NAME, CRYPTOPRIO_GENL_VERSION);
	return 0;

destroy_cmd_wq:
	destroy_workqueue(cp_cmd_wq);
	return r;
}

/*
 * Every queued command holds a module reference, so none is left; the
 * worker may still be returning from the last one's module_put().
 */
static void __exit cp_exit(void)
{
	genl_unregister_family(&cp_family);
	destroy_workqueue(cp_cmd_wq);
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
