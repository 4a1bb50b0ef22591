/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The CPU's candidates for the names an engine serves natively, on an
 * LX2160A inventory (CAAM job ring and QI2 beside the arm64 CE drivers).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "class.h"
#include "composite.h"
#include "macro.h"
#include "planner.h"
#include "proc-fixture.h"
#include "tap.h"

static bool is_engine(const struct cp_alg *alg)
{
	return strstr(alg->driver, "caam") != NULL;
}

static void test_fixture_classes(const struct cp_inventory *inv)
{
	size_t engines = 0, wrong = 0;

	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *alg = &inv->algs[i];

		engines += is_engine(alg);
		if ((alg->class == CP_CLASS_OFFLOAD) != is_engine(alg)) {
			diag("%s classified %s", alg->driver, cp_class_to_string(alg->class));
			wrong++;
		}
	}
	ok(engines > 100, "fixture: %zu CAAM implementations", engines);
	is_int(wrong, 0, "fixture: CAAM offload, everything else cpu");
}

/* Names an engine registers itself (not a template instance) that no CPU implementation has. */
static size_t derive_names(const struct cp_inventory *inv, const char *names[], size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *alg = &inv->algs[i];
		bool seen = false;

		if (alg->class != CP_CLASS_OFFLOAD || !cp_alg_competes(alg) ||
		    cp_driver_is_template_instance(alg->driver) || cp_cpu_winner(inv, alg->name))
			continue;
		for (size_t j = 0; j < n; j++)
			seen = seen || strcmp(names[j], alg->name) == 0;
		if (!seen && n < max)
			names[n++] = alg->name;
	}
	return n;
}

/* Every word of a candidate is a template (followed by '(') or a CPU driver of the inventory. */
static bool built_of_cpu_drivers(const struct cp_inventory *inv, const char *candidate)
{
	char copy[CP_NAME_MAX];
	size_t start = 0;

	snprintf(copy, sizeof(copy), "%s", candidate);
	for (size_t i = 0; i <= strlen(candidate); i++) {
		const struct cp_alg *alg;
		char c = candidate[i];

		if (c != '(' && c != ')' && c != ',' && c != '\0')
			continue;
		copy[i] = '\0';
		alg = cp_inventory_find_driver(inv, copy + start);
		if (c != '(' && i > start && (!alg || alg->class != CP_CLASS_CPU)) {
			diag("%s: '%s' is not a CPU driver", candidate, copy + start);
			return false;
		}
		start = i + 1;
	}
	return true;
}

/* Counted by hand from the fixture's tables, see test_derived(). */
#define LX2160A_DERIVED 68

static void test_derived(const struct cp_inventory *inv)
{
	const char *names[256];
	size_t n = derive_names(inv, names, ARRAY_SIZE(names)), built = 0;

	/*
	 * Both drivers: cbc(des3_ede), cbc(des), rfc3686(ctr(aes)),
	 * rfc4543(gcm(aes)), hmac() of 6 hashes, authenc() and echainiv() of
	 * 6 hashes over cbc(aes), cbc(des3_ede), cbc(des) (36), authenc() and
	 * seqiv() of 6 hashes over rfc3686(ctr(aes)) (12); the job ring adds
	 * ecb(des), ecb(des3_ede) and 6 authenc() over ecb(cipher_null), QI2
	 * rfc7539() and rfc7539esp(): 4 + 6 + 36 + 12 + 8 + 2.
	 */
	is_int(n, LX2160A_DERIVED, "LX2160A: names only the engines serve");
	for (size_t i = 0; i < n; i++) {
		char candidate[CP_NAME_MAX] = "";
		int r = cp_composite_candidate(inv, names[i], candidate);

		if (r == 0 && built_of_cpu_drivers(inv, candidate))
			built++;
		else
			diag("%s: %d '%s'", names[i], r, candidate);
	}
	is_int(built, n, "each gets a candidate built of CPU drivers");
	for (size_t i = 0; i < n; i++)
		ok(strcmp(names[i], "gcm(aes)") != 0 &&
		       strcmp(names[i], "rfc4106(gcm(aes))") != 0 &&
		       strcmp(names[i], "xts(aes)") != 0 && strcmp(names[i], "cbc(aes)") != 0,
		   "%s: not one the CPU registers", names[i]);
}

static const struct {
	const char *name, *candidate;
} lx2160a_candidates[] = {
    {"authenc(hmac(sha256),cbc(aes))", "authenc(hmac(sha256-ce),cbc-aes-ce)"},
    {"echainiv(authenc(hmac(sha256),cbc(aes)))", "echainiv(authenc(hmac(sha256-ce),cbc-aes-ce))"},
    {"echainiv(authenc(hmac(sha1),cbc(aes)))", "echainiv(authenc(hmac(sha1-ce),cbc-aes-ce))"},
    {"authenc(hmac(sha512),cbc(aes))", "authenc(hmac(sha512-arm64),cbc-aes-ce)"},
    {"authenc(hmac(md5),cbc(des3_ede))", "authenc(hmac(md5-generic),cbc(des3_ede-generic))"},
    {"echainiv(authenc(hmac(sha384),cbc(des3_ede)))",
     "echainiv(authenc(hmac(sha384-arm64),cbc(des3_ede-generic)))"},
    {"authenc(hmac(sha1),ecb(cipher_null))", "authenc(hmac(sha1-ce),ecb-cipher_null)"},
    {"seqiv(authenc(hmac(sha256),rfc3686(ctr(aes))))",
     "seqiv(authenc(hmac(sha256-ce),rfc3686(ctr-aes-ce)))"},
    {"rfc4543(gcm(aes))", "rfc4543(gcm-aes-ce)"},
    {"hmac(sha224)", "hmac(sha224-ce)"},
    {"ecb(des)", "ecb(des-generic)"},
    {"rfc7539esp(chacha20,poly1305)", "rfc7539esp(chacha20-neon,poly1305-neon)"},
};

static void test_spellings(const struct cp_inventory *inv)
{
	for (size_t i = 0; i < ARRAY_SIZE(lx2160a_candidates); i++) {
		char candidate[CP_NAME_MAX] = "";

		is_int(cp_composite_candidate(inv, lx2160a_candidates[i].name, candidate), 0, "%s",
		       lx2160a_candidates[i].name);
		is_str(candidate, lx2160a_candidates[i].candidate, "%s spelled",
		       lx2160a_candidates[i].name);
	}
}

static void test_ranked_directly(const struct cp_inventory *inv)
{
	static const char *const names[] = {"gcm(aes)", "rfc4106(gcm(aes))", "xts(aes)", "cbc(aes)",
					    "sha256",	"chacha20"};
	char candidate[CP_NAME_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		is_int(cp_composite_candidate(inv, names[i], candidate), -EEXIST,
		       "%s: a CPU implementation is registered, no candidate", names[i]);
}

/* @inv without the implementations of @module. */
static void without_module(const struct cp_inventory *inv, const char *module,
			   struct cp_inventory *out)
{
	*out = (struct cp_inventory){};
	for (size_t i = 0; i < inv->n_algs; i++)
		if (strcmp(inv->algs[i].module, module) != 0 &&
		    cp_inventory_add(out, &inv->algs[i]) < 0)
			abort();
}

/* @inv without the implementations of algorithm @name. */
static void without_name(const struct cp_inventory *inv, const char *name, struct cp_inventory *out)
{
	*out = (struct cp_inventory){};
	for (size_t i = 0; i < inv->n_algs; i++)
		if (strcmp(inv->algs[i].name, name) != 0 &&
		    cp_inventory_add(out, &inv->algs[i]) < 0)
			abort();
}

static void expect(const struct cp_inventory *inv, const char *name, const char *want,
		   const char *what)
{
	char candidate[CP_NAME_MAX] = "";

	is_int(cp_composite_candidate(inv, name, candidate), 0, "%s: %s has a candidate", what,
	       name);
	is_str(candidate, want, "%s: %s spelled", what, name);
}

static void test_instances_of_instances(const struct cp_inventory *inv)
{
	struct cp_inventory no_gcm, no_blk, no_modes;

	without_module(inv, "ghash_ce", &no_gcm);
	expect(&no_gcm, "gcm(aes)", "gcm_base(ctr-aes-ce,ghash-generic)", "no native gcm");
	expect(&no_gcm, "rfc4106(gcm(aes))", "rfc4106(gcm_base(ctr-aes-ce,ghash-generic))",
	       "no native gcm");
	expect(&no_gcm, "rfc4543(gcm(aes))", "rfc4543(gcm_base(ctr-aes-ce,ghash-generic))",
	       "no native gcm");

	without_module(inv, "aes_ce_blk", &no_blk);
	without_module(&no_blk, "aes_neon_bs", &no_modes);
	expect(&no_modes, "xts(aes)", "xts(ecb(aes-ce))", "no aes modes");
	expect(&no_modes, "echainiv(authenc(hmac(sha256),cbc(aes)))",
	       "echainiv(authenc(hmac(sha256-ce),cbc(aes-ce)))", "no aes modes");
	expect(&no_modes, "ccm(aes)", "ccm_base(ctr(aes-ce),cbcmac(aes-ce))", "no aes modes");
	cp_inventory_free(&no_gcm);
	cp_inventory_free(&no_blk);
	cp_inventory_free(&no_modes);
}

/* 7.x: "ghash" is no algorithm; gcm's instance names the library's GHASH. */
static void test_ghash_library(const struct cp_inventory *inv)
{
	struct cp_inventory no_gcm, no_ghash;
	char candidate[CP_NAME_MAX];

	without_module(inv, "ghash_ce", &no_gcm);
	without_name(&no_gcm, "ghash", &no_ghash);
	is_int(cp_composite_candidate(&no_ghash, "gcm(aes)", candidate), -ENOENT,
	       "no ghash registered, the hash API's kernel: no candidate (a part is missing)");
	no_ghash.ghash_library = true;
	expect(&no_ghash, "gcm(aes)", "gcm_base(ctr-aes-ce,ghash-lib)", "ghash library");
	expect(&no_ghash, "rfc4106(gcm(aes))", "rfc4106(gcm_base(ctr-aes-ce,ghash-lib))",
	       "ghash library");
	no_gcm.ghash_library = true;
	expect(&no_gcm, "gcm(aes)", "gcm_base(ctr-aes-ce,ghash-generic)",
	       "a registered ghash comes first");
	cp_inventory_free(&no_gcm);
	cp_inventory_free(&no_ghash);
}

/* A CPU sha512 with a long driver name: hmac() of it fits, the IPsec form does not. */
static void test_too_long(const struct cp_inventory *inv)
{
	struct cp_alg sha512 = {
	    .name = "sha512",
	    .driver = "sha512-arm64-neon-interleaved-4way",
	    .module = "sha512_4way",
	    .type = "shash",
	    .priority = 400,
	    .flags = CP_ALG_TESTED,
	    .class = CP_CLASS_CPU,
	};
	struct cp_inventory long_sha = {};
	char candidate[CP_NAME_MAX];

	without_module(inv, "", &long_sha);
	if (cp_inventory_add(&long_sha, &sha512) < 0)
		abort();
	expect(&long_sha, "hmac(sha512)", "hmac(sha512-arm64-neon-interleaved-4way)", "long part");
	is_int(cp_composite_candidate(&long_sha, "authenc(hmac(sha512),cbc(des3_ede))", candidate),
	       -ENAMETOOLONG, "authenc() of it: 64 bytes or more, cannot be addressed");
	is_int(cp_composite_candidate(&long_sha, "echainiv(authenc(hmac(sha512),cbc(aes)))",
				      candidate),
	       -ENAMETOOLONG, "echainiv() of it: cannot be addressed either");
	cp_inventory_free(&long_sha);
}

/* A CPU implementation of @name whose driver name is @len bytes long. */
static struct cp_alg cpu_alg_of_length(const char *name, size_t len)
{
	struct cp_alg alg = {.type = "shash", .priority = 100, .flags = CP_ALG_TESTED};

	snprintf(alg.name, sizeof(alg.name), "%s", name);
	memset(alg.driver, 'x', len);
	return alg;
}

/* hmac() adds 6 bytes: a 57-byte part makes 63, the longest name, a 58-byte part 64. */
static void test_length_boundary(void)
{
	struct cp_alg fits = cpu_alg_of_length("sha3-256", 57),
		      over = cpu_alg_of_length("sha3-512", 58);
	struct cp_inventory inv = {};
	char candidate[CP_NAME_MAX] = "";

	if (cp_inventory_add(&inv, &fits) < 0 || cp_inventory_add(&inv, &over) < 0)
		abort();
	is_int(cp_composite_candidate(&inv, "hmac(sha3-256)", candidate), 0,
	       "63 bytes: addressable");
	is_int(strlen(candidate), CP_NAME_MAX - 1, "63 bytes spelled whole");
	is_int(cp_composite_candidate(&inv, "hmac(sha3-512)", candidate), -ENAMETOOLONG,
	       "64 bytes: cannot be addressed");
	cp_inventory_free(&inv);
}

static void test_unbuildable(const struct cp_inventory *inv)
{
	char candidate[CP_NAME_MAX];

	is_int(cp_composite_candidate(inv, "cbc(twofish)", candidate), -ENOENT,
	       "a part without any CPU implementation: no candidate");
	is_int(cp_composite_candidate(inv, "sm4", candidate), -ENOENT,
	       "a primitive without a CPU implementation: no candidate");
	is_int(cp_composite_candidate(inv, "authenc(hmac(sha256),cbc(aes)", candidate), -EINVAL,
	       "unbalanced parentheses refused");
	is_int(cp_composite_candidate(inv, "(aes)", candidate), -EINVAL,
	       "no template name refused");
	is_int(cp_composite_candidate(inv, "authenc(hmac(sha256),)", candidate), -EINVAL,
	       "an empty part refused");
}

/* The candidate registered but not self-tested yet (no competitor): nothing to create. */
static void test_registered_untested(const struct cp_inventory *fixture)
{
	struct cp_alg untested = {.name = "authenc(hmac(sha256),cbc(aes))",
				  .driver = "authenc(hmac(sha256-ce),cbc-aes-ce)",
				  .module = "authenc",
				  .type = "aead",
				  .priority = 3001};
	struct cp_inventory inv = {};
	char candidate[CP_NAME_MAX];

	for (size_t i = 0; i < fixture->n_algs; i++)
		if (cp_inventory_add(&inv, &fixture->algs[i]) < 0)
			abort();
	if (cp_inventory_add(&inv, &untested) < 0)
		abort();
	is_int(cp_composite_candidate(&inv, untested.name, candidate), -EEXIST,
	       "the candidate registered, under self-test: -EEXIST");
	cp_inventory_free(&inv);
}

int main(void)
{
	struct cp_inventory inv;

	load_fixture("proc-crypto-lx2160a.txt", &inv);
	test_fixture_classes(&inv);
	test_derived(&inv);
	test_spellings(&inv);
	test_ranked_directly(&inv);
	test_instances_of_instances(&inv);
	test_ghash_library(&inv);
	test_too_long(&inv);
	test_length_boundary();
	test_unbuildable(&inv);
	test_registered_untested(&inv);
	cp_inventory_free(&inv);
	return done_testing();
}
