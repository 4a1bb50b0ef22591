/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The calibration's verification of engines: each engine of a type the
 * module verifies answers VERIFY's cases against its reference once per
 * build of the kernel, of its driver and of the module; one that fails is
 * faulty, one that could not be verified says why.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "calibrate-internal.h"
#include "cpustat.h"
#include "calib-cache.h"
#include "macro.h"

bool cp_verification_covers(enum cryptoprio_type type)
{
	const struct cp_type_info *info = cp_type_info(type);

	return info && info->verified;
}

void cp_verifier_srcversion(char by[static 33])
{
	char srcversion[64];

	cp_cache_module_srcversion("cryptoprio", srcversion);
	cp_strscpy(by, 33, srcversion);
}

static bool failed_already(const struct cp_measured *m)
{
	for (size_t i = 0; i < m->n_points; i++)
		if (m->points[i].verdict == CP_VERDICT_FAULTY ||
		    m->points[i].verdict == CP_VERDICT_TIMEOUT)
			return true;
	return false;
}

bool cp_measured_wants_verification(const struct cp_measured *m)
{
	return cp_verification_covers(m->type) && m->class != CP_CLASS_CPU && !m->candidate &&
	       !m->cache_only && m->verified.state == CP_VERIFICATION_NONE &&
	       (!m->pending || m->verify_first) && !failed_already(m);
}

/*
 * Every point @verdict (faulty, or timeout: a case never completed), those
 * from the cache too: the verdict is newer than their figures.
 */
static void mark_failed(struct cp_measured *m, enum cp_verdict verdict)
{
	for (size_t i = 0; i < m->n_points; i++) {
		m->points[i].verdict = verdict;
		m->points[i].error = 0;
	}
}

/* A seed below 2^53; the time's if the kernel has no randomness to give. */
static uint64_t draw_seed(void)
{
	uint64_t seed;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		seed = (uint64_t) cp_now_ns();
	return seed & CP_VERIFY_SEED_MAX;
}

static void verify_one(struct cp_nl *nl, struct cp_measured *m, const char *by)
{
	struct cp_mod_verify_req req = {
	    .driver = m->driver, .type = m->type, .has_seed = true, .seed = draw_seed()};
	struct cp_mod_verify_result res;
	struct cp_verified *v = &m->verified;
	int r;

	r = cp_mod_verify(nl, &req, &res);
	v->seed = req.seed;
	if (r < 0) {
		v->state = CP_VERIFICATION_NOT_RUN;
		snprintf(v->text, sizeof(v->text), "%s", nl->extack[0] ? nl->extack : strerror(-r));
		return;
	}
	v->cases = res.cases;
	cp_strscpy(v->by, sizeof(v->by), by);
	if (res.reference[0] && !m->reference[0])
		cp_strscpy(m->reference, sizeof(m->reference), res.reference);
	if (res.verdict == CRYPTOPRIO_VERIFY_PASSED) {
		v->state = CP_VERIFICATION_PASSED;
		return;
	}
	v->state = CP_VERIFICATION_FAILED;
	cp_strscpy(v->text, sizeof(v->text), res.failure);
	mark_failed(m, res.verdict == CRYPTOPRIO_VERIFY_TIMEOUT ? CP_VERDICT_TIMEOUT
								: CP_VERDICT_FAULTY);
}

void cp_calibration_verify(struct cp_calibration *cal, struct cp_nl *nl, int module_error,
			   const char *by, bool first_only)
{
	for (size_t i = 0; i < cal->n_measured; i++) {
		struct cp_measured *m = &cal->measured[i];

		if (!cp_measured_wants_verification(m))
			continue;
		if (!nl || !by[0]) {
			m->verified.state = CP_VERIFICATION_NOT_RUN;
			snprintf(m->verified.text, sizeof(m->verified.text),
				 "the cryptoprio module is not loaded (%s)",
				 strerror(-(module_error ?: -ENOENT)));
		} else if (!first_only || m->verify_first) {
			verify_one(nl, m, by);
		}
	}
}
