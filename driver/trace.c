// SPDX-License-Identifier: GPL-2.0-only
/*
 * cryptoprio: leave the kernel's list of implementations as it was found.
 *
 * Allocating a transform can register template instances: the reference
 * ("cbc(aes-generic)"), a SIMD wrapper's inner cryptd ("cryptd(__cbc-aes-
 * aesni)"), a fallback an engine allocates, the template a lookup with a
 * narrow mask falls back to. Registered, they compete for their name from
 * then on. So every command notes the instances registered before it, and
 * once its transforms are freed unregisters each new instance nobody
 * uses, as CRYPTO_MSG_DELALG would (removing one removes the instances
 * built on it too).
 *
 * A new instance still in use when the command ends is waited for, up to
 * CP_TRACE_WAIT_MS: parts of a transform can be released a little later.
 * What is still in use then is left registered and named in the kernel
 * log: someone else started using it meanwhile (it is theirs now), or its
 * release takes longer than that (a self-test of it still running). That
 * is at most what one command registered, and a later command, which
 * finds it registered when it begins, leaves it too: calibrating the same
 * driver again adds nothing.
 *
 * A command that left a zombie run (run.c) does not wait: the zombie holds
 * its transforms, so the new instances still in use are kept on a list of
 * leftovers, by name, and each time the reaper frees a zombie it
 * unregisters those nobody uses any more. Once no zombie is left, those
 * still in use (after CP_TRACE_WAIT_MS) are someone else's: forgotten, left
 * registered, and logged. A leftover cannot be removed and registered
 * again by someone else meanwhile while its zombie holds it, so a name
 * still registered is the instance the command registered.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/algapi.h>
#include <linux/bsearch.h>
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "cryptoprio.h"

/* Instances whose parts are still being released: wait this long at most. */
#define CP_TRACE_WAIT_MS	1000
#define CP_TRACE_POLL_MS	10

/* An instance a command left registered because its zombie held it. */
struct cp_leftover {
	struct list_head node;
	char name[CRYPTO_MAX_ALG_NAME];
};

static LIST_HEAD(cp_leftovers);
static DEFINE_MUTEX(cp_leftover_lock);	/* taken before crypto_alg_sem */

static bool cp_is_instance(const struct crypto_alg *alg)
{
	return (alg->cra_flags & CRYPTO_ALG_INSTANCE) &&
	       !(alg->cra_flags & CP_ALG_UNUSABLE);
}

static int cp_name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

static unsigned int cp_count_instances(void)
{
	struct crypto_alg *alg;
	unsigned int n = 0;

	down_read(&crypto_alg_sem);
	list_for_each_entry(alg, &crypto_alg_list, cra_list)
		n += cp_is_instance(alg);
	up_read(&crypto_alg_sem);
	return n;
}

/* Copy the instances' names into @t->names (room for @cap); false if short. */
static bool cp_trace_fill(struct cp_trace *t, unsigned int cap)
{
	struct crypto_alg *alg;
	unsigned int n = 0;
	bool fits = true;

	down_read(&crypto_alg_sem);
	list_for_each_entry(alg, &crypto_alg_list, cra_list) {
		if (!cp_is_instance(alg))
			continue;
		if (n == cap) {
			fits = false;
			break;
		}
		strscpy(t->names[n++], alg->cra_driver_name, CRYPTO_MAX_ALG_NAME);
	}
	up_read(&crypto_alg_sem);
	t->n = n;
	return fits;
}

int cp_trace_begin(struct cp_trace *t)
{
	unsigned int cap = 0;

	t->names = NULL;
	/* room for a few registered meanwhile; more than that: count again */
	do {
		cap = max(cap, cp_count_instances()) + 16;
		kvfree(t->names);
		t->names = kvmalloc_array(cap, sizeof(*t->names), GFP_KERNEL);
		if (!t->names)
			return -ENOMEM;
	} while (!cp_trace_fill(t, cap));
	sort(t->names, t->n, sizeof(*t->names), cp_name_cmp, NULL);
	return 0;
}

static bool cp_trace_had(const struct cp_trace *t, const char *driver)
{
	return bsearch(driver, t->names, t->n, sizeof(*t->names), cp_name_cmp);
}

/*
 * A new instance, with a reference taken, or NULL; *@busy counts the new
 * ones still in use.
 */
static struct crypto_alg *cp_trace_find(const struct cp_trace *t, int *busy)
{
	struct crypto_alg *alg, *found = NULL;

	down_read(&crypto_alg_sem);
	list_for_each_entry(alg, &crypto_alg_list, cra_list) {
		if (!cp_is_instance(alg) || cp_trace_had(t, alg->cra_driver_name))
			continue;
		/* 1: the registration's own reference, nobody else's */
		if (refcount_read(&alg->cra_refcnt) != 1 || !crypto_mod_get(alg)) {
			(*busy)++;
			continue;
		}
		found = alg;
		break;
	}
	up_read(&crypto_alg_sem);
	return found;
}

/*
 * Unregister @alg, an instance we hold a reference on, if nobody else
 * uses it (ours and the registration's are its only ones); drops ours.
 */
static bool cp_unregister_unused(struct crypto_alg *alg)
{
	bool unused = refcount_read(&alg->cra_refcnt) == 2;

	if (unused) {
		pr_debug("unregistering %s\n", alg->cra_driver_name);
		crypto_unregister_instance((struct crypto_instance *)alg);
	}
	crypto_mod_put(alg);
	return unused;
}

/*
 * The new instances still in use: left to the reaper after a zombie run,
 * else left registered.
 */
static void cp_trace_leave(const struct cp_trace *t, bool zombie)
{
	struct cp_leftover *left;
	struct crypto_alg *alg;

	mutex_lock(&cp_leftover_lock);
	down_read(&crypto_alg_sem);
	list_for_each_entry(alg, &crypto_alg_list, cra_list) {
		if (!cp_is_instance(alg) || cp_trace_had(t, alg->cra_driver_name))
			continue;
		left = zombie ? kmalloc(sizeof(*left), GFP_KERNEL) : NULL;
		if (!left) {
			pr_info("%s: registered during a command, still in use: left registered\n",
				alg->cra_driver_name);
			continue;
		}
		strscpy(left->name, alg->cra_driver_name, sizeof(left->name));
		list_add_tail(&left->node, &cp_leftovers);
	}
	up_read(&crypto_alg_sem);
	mutex_unlock(&cp_leftover_lock);
	/* the zombie may be gone already: look at them now too */
	if (zombie)
		cp_reap_soon();
}

void cp_trace_end(struct cp_trace *t, bool zombie)
{
	unsigned long until = jiffies + msecs_to_jiffies(CP_TRACE_WAIT_MS);
	struct crypto_alg *alg;
	int busy;

	for (;;) {
		busy = 0;
		alg = cp_trace_find(t, &busy);
		if (alg) {
			cp_unregister_unused(alg);
			continue;
		}
		if (!busy || zombie || time_after(jiffies, until))
			break;
		msleep(CP_TRACE_POLL_MS);
	}
	if (busy)
		cp_trace_leave(t, zombie);
	kvfree(t->names);
	t->names = NULL;
}

/* The usable instance registered as @name, with a reference taken, or NULL. */
static struct crypto_alg *cp_instance_get(const char *name)
{
	struct crypto_alg *alg, *found = NULL;

	down_read(&crypto_alg_sem);
	list_for_each_entry(alg, &crypto_alg_list, cra_list) {
		if (cp_is_instance(alg) && !strcmp(alg->cra_driver_name, name)) {
			found = crypto_mod_get(alg);
			break;
		}
	}
	up_read(&crypto_alg_sem);
	return found;
}

/* Unregister the leftovers nobody uses; how many are still in use. */
static int cp_leftovers_remove_unused(void)
{
	struct cp_leftover *left, *tmp;
	struct crypto_alg *alg;
	int busy = 0;

	list_for_each_entry_safe(left, tmp, &cp_leftovers, node) {
		alg = cp_instance_get(left->name);
		if (alg && !cp_unregister_unused(alg)) {
			busy++;
			continue;
		}
		list_del(&left->node);
		kfree(left);
	}
	return busy;
}

static void cp_leftovers_forget(void)
{
	struct cp_leftover *left, *tmp;

	list_for_each_entry_safe(left, tmp, &cp_leftovers, node) {
		pr_info("%s: registered during a command, still in use after its hung run ended: left registered\n",
			left->name);
		list_del(&left->node);
		kfree(left);
	}
}

/*
 * Reaper context. While a zombie is left, one look; once none is, wait
 * for the leftovers' release as cp_trace_end() does, then forget them. A
 * new zombie's leftovers come after it is published: not forgotten here.
 */
void cp_trace_leftovers(void)
{
	unsigned long until = jiffies + msecs_to_jiffies(CP_TRACE_WAIT_MS);
	bool last;

	mutex_lock(&cp_leftover_lock);
	for (;;) {
		last = cp_zombies_empty();
		if (!cp_leftovers_remove_unused() || !last ||
		    time_after(jiffies, until))
			break;
		msleep(CP_TRACE_POLL_MS);
	}
	if (last)
		cp_leftovers_forget();
	mutex_unlock(&cp_leftover_lock);
}

void cp_trace_exit(void)
{
	mutex_lock(&cp_leftover_lock);
	cp_leftovers_forget();
	mutex_unlock(&cp_leftover_lock);
}
