/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * driver/shape.c, the module's key and request layout by algorithm name:
 * one case per row of its table and per template rule.
 */
#include <errno.h>

#include "macro.h"
#include "shape.h"
#include "tap.h"

static void test_shapes(void)
{
	static const struct {
		const char *name;
		struct cp_shape want;
	} cases[] = {
	    /* leaves */
	    {"aes", {.key = 16}},
	    {"des", {.key = 8}},
	    {"des3_ede", {.key = 24}},
	    {"sm4", {.key = 16}},
	    {"chacha20", {.key = 32}},
	    {"ghash", {.key = 16}},
	    {"polyval", {.key = 16}},
	    {"sha256", {.key = 0}},
	    /* modes: the output IV of chaining modes is compared */
	    {"cbc(aes)", {.key = 16, .iv_out = true}},
	    {"ctr(aes)", {.key = 16, .iv_out = true}},
	    {"ecb(aes)", {.key = 16}},
	    {"xts(aes)", {.key = 32}},
	    {"essiv(cbc(aes),sha256)", {.key = 16}},
	    {"rfc3686(ctr(aes))", {.key = 16, .nonce = 4}},
	    /* keyed hashes */
	    {"hmac(sha256)", {.key = 32}},
	    {"cmac(aes)", {.key = 16}},
	    {"xcbc(aes)", {.key = 16}},
	    /* AEADs */
	    {"gcm(aes)", {.key = 16}},
	    {"gcm_base(ctr(aes),ghash)", {.key = 16}},
	    {"ccm(aes)", {.key = 16, .ccm = true}},
	    {"ccm_base(ctr(aes),cbcmac(aes))", {.key = 16, .ccm = true}},
	    {"rfc4106(gcm(aes))", {.key = 16, .nonce = 4}},
	    {"rfc4543(gcm(aes))", {.key = 16, .nonce = 4}},
	    {"rfc4309(ccm(aes))", {.key = 16, .nonce = 3, .ccm = true}},
	    {"rfc7539(chacha20,poly1305)", {.key = 32}},
	    {"rfc7539esp(chacha20,poly1305)", {.key = 32, .nonce = 4}},
	    {"authenc(hmac(sha256),cbc(aes))", {.key = 16, .auth_key = 32, .authenc = true}},
	    {"authenc(hmac(sha1),cbc(des3_ede))", {.key = 24, .auth_key = 32, .authenc = true}},
	    {"authencesn(hmac(sha256),cbc(aes))", {.key = 16, .auth_key = 32, .authenc = true}},
	    /* the geniv wrappers IPsec allocates */
	    {"echainiv(authenc(hmac(sha256),cbc(aes)))",
	     {.key = 16, .auth_key = 32, .authenc = true, .geniv = true}},
	    {"seqiv(rfc4106(gcm(aes)))", {.key = 16, .nonce = 4, .geniv = true}},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cp_shape s;
		int r = cp_shape_of(cases[i].name, &s);

		is_int(r, 0, "%s parses", cases[i].name);
		ok(memcmp(&s, &cases[i].want, sizeof(s)) == 0,
		   "%s: key %u nonce %u auth %u authenc %d geniv %d ccm %d iv_out %d",
		   cases[i].name, s.key, s.nonce, s.auth_key, s.authenc, s.geniv, s.ccm, s.iv_out);
	}
}

static void test_refused(void)
{
	static const char *const bad[] = {
	    "",
	    "cbc(aes",
	    "cbc()",
	    "cbc(aes))",
	    "authenc(hmac(sha256))",
	    "gcm(aes)x",
	    "a(b(c(d(e(f(g(h(i(j(k))))))))))",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct cp_shape s;

		is_int(cp_shape_of(bad[i], &s), -EINVAL, "'%s' refused", bad[i]);
	}
}

int main(void)
{
	test_shapes();
	test_refused();
	return done_testing();
}
