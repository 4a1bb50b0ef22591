/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The names of calib-point.h's backends, verdicts and verifications, as files and tables spell
 * them. */
#include <errno.h>
#include <string.h>

#include "calib-point.h"
#include "macro.h"

static const char *const backend_names[] = {
    [CP_BACKEND_NONE] = "none",
    [CP_BACKEND_MODULE] = "module",
    [CP_BACKEND_AFALG] = "af_alg",
};

static const char *const verdict_names[] = {
    [CP_VERDICT_MEASURED] = "measured",	    [CP_VERDICT_FAULTY] = "faulty",
    [CP_VERDICT_TIMEOUT] = "timeout",	    [CP_VERDICT_UNREACHABLE] = "unreachable",
    [CP_VERDICT_UNMEASURED] = "unmeasured", [CP_VERDICT_ERROR] = "error",
};

const char *cp_backend_to_string(enum cp_backend backend)
{
	return backend < ARRAY_SIZE(backend_names) ? backend_names[backend] : "unknown";
}

const char *cp_verdict_to_string(enum cp_verdict verdict)
{
	return verdict < ARRAY_SIZE(verdict_names) ? verdict_names[verdict] : "unknown";
}

static int index_of(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return (int) i;
	return -EINVAL;
}

int cp_verdict_from_string(const char *s, enum cp_verdict *verdict)
{
	int i = index_of(verdict_names, ARRAY_SIZE(verdict_names), s);

	if (i < 0)
		return i;
	*verdict = (enum cp_verdict) i;
	return 0;
}

int cp_backend_from_string(const char *s, enum cp_backend *backend)
{
	int i = index_of(backend_names, ARRAY_SIZE(backend_names), s);

	if (i < 0)
		return i;
	*backend = (enum cp_backend) i;
	return 0;
}

const char *cp_verification_to_string(enum cp_verification state)
{
	static const char *const names[] = {
	    [CP_VERIFICATION_PASSED] = "passed",
	    [CP_VERIFICATION_FAILED] = "failed",
	    [CP_VERIFICATION_NOT_RUN] = "not-run",
	};

	return state < ARRAY_SIZE(names) ? names[state] : NULL;
}
