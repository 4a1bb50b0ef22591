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
 * built on it too). An instance someone else started using meanwhile is
 * left alone, and so is one a zombie run (run.c) still holds.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/algapi.h>
#include <linux/bsearch.h>
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "cryptoprio.h"

/* Instances whose parts are still being released: wait this long at most. */
#define CP_TRACE_WAIT_MS	1000
#define CP_TRACE_POLL_MS	10

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

void cp_trace_end(struct cp_trace *t, bool wait)
{
	unsigned long until = jiffies + msecs_to_jiffies(CP_TRACE_WAIT_MS);
	struct crypto_alg *alg;
	int busy;

	for (;;) {
		busy = 0;
		alg = cp_trace_find(t, &busy);
		if (alg) {
			/* ours and the registration's: still unused */
			if (refcount_read(&alg->cra_refcnt) == 2) {
				pr_debug("unregistering %s\n", alg->cra_driver_name);
				crypto_unregister_instance((struct crypto_instance *)alg);
			}
			crypto_mod_put(alg);
			continue;
		}
		if (!busy || !wait || time_after(jiffies, until))
			break;
		msleep(CP_TRACE_POLL_MS);
	}
	if (busy)
		pr_info("%d instance(s) registered during a command are in use: left registered\n",
			busy);
	kvfree(t->names);
	t->names = NULL;
}
