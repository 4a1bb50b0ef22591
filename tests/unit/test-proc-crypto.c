/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /proc/crypto parsing, on inline text and on real kernels' files. */
#include <errno.h>
#include <string.h>

#include "class.h"
#include "proc-crypto.h"
#include "macro.h"
#include "tap.h"

static const char sample[] = "name         : cbc(aes)\n"
			     "driver       : virtio_crypto_aes_cbc\n"
			     "module       : virtio_crypto\n"
			     "priority     : 150\n"
			     "refcnt       : 1\n"
			     "selftest     : passed\n"
			     "internal     : no\n"
			     "type         : skcipher\n"
			     "async        : yes\n"
			     "blocksize    : 16\n"
			     "\n"
			     "name         : __cbc(aes)\n"
			     "driver       : __cbc-aes-aesni\n"
			     "module       : aesni_intel\n"
			     "priority     : 400\n"
			     "refcnt       : 1\n"
			     "selftest     : unknown\n"
			     "internal     : yes\n"
			     "type         : skcipher\n"
			     "async        : no\n";

static int parse_text(const char *text, struct cp_inventory *inv)
{
	_cleanup_fclose_ FILE *f = fmemopen((void *) text, strlen(text), "r");

	return f ? cp_proc_crypto_parse(f, inv) : -errno;
}

static void test_sample(void)
{
	struct cp_inventory inv = {};

	is_int(parse_text(sample, &inv), 0, "sample parses");
	is_int(inv.n_algs, 2, "two blocks");
	is_str(inv.algs[0].driver, "virtio_crypto_aes_cbc", "driver");
	is_int(inv.algs[0].priority, 150, "priority");
	ok(inv.algs[0].flags == (CP_ALG_TESTED | CP_ALG_ASYNC), "tested and async");
	ok(cp_alg_competes(&inv.algs[0]), "a tested non-internal implementation competes");
	ok(inv.algs[1].flags == CP_ALG_INTERNAL, "internal, not tested, not async");
	ok(!cp_alg_competes(&inv.algs[1]), "an internal implementation does not compete");
	cp_inventory_free(&inv);
}

static void test_malformed(void)
{
	struct cp_inventory inv = {};

	is_int(parse_text("name : x\npriority : 12abc\n", &inv), -EBADMSG, "bad number refused");
	cp_inventory_free(&inv);
	is_int(parse_text("priority : 1\n\n", &inv), -EBADMSG, "a block without a name refused");
	cp_inventory_free(&inv);
	is_int(parse_text("name : x\nno colon here\n", &inv), -EBADMSG,
	       "a line without ':' refused");
	cp_inventory_free(&inv);
	is_int(parse_text("name : x\ndriver : y\npriority : -1\n", &inv), -EBADMSG,
	       "negative priority refused");
	cp_inventory_free(&inv);
	is_int(parse_text("name : x\ndriver : \npriority : -1\ntype : cipher\n", &inv), -EBADMSG,
	       "no driver, priority -1, not a larval: refused");
	cp_inventory_free(&inv);
}

/* A lookup building a template instance, as /proc/crypto lists it meanwhile. */
static void test_lookup_larval(void)
{
	static const char text[] = "name         : authenc(hmac(sha256),cbc(aes))\n"
				   "driver       : \n"
				   "module       : kernel\n"
				   "priority     : -1\n"
				   "refcnt       : 1\n"
				   "selftest     : unknown\n"
				   "internal     : no\n"
				   "type         : larval\n"
				   "flags        : 0x10\n"
				   "\n"
				   "name         : cbc(aes)\n"
				   "driver       : cbc-aes-aesni\n"
				   "module       : aesni_intel\n"
				   "priority     : 400\n"
				   "refcnt       : 1\n"
				   "selftest     : passed\n"
				   "internal     : no\n"
				   "type         : skcipher\n";
	struct cp_inventory inv = {};

	is_int(parse_text(text, &inv), 0, "a lookup's larval (no driver, priority -1) parses");
	is_int(inv.n_algs, 2, "both blocks kept, as crypto_user reports them");
	is_int(inv.algs[0].priority, UINT32_MAX, "the larval's priority as crypto_user's u32");
	ok(!cp_alg_competes(&inv.algs[0]), "a larval does not compete");
	ok(cp_alg_competes(&inv.algs[1]), "the block after it does");
	cp_inventory_free(&inv);
}

/*
 * The class rules on a real kernel's inventory: virtio-crypto's drivers are
 * the offload engine (known engines by name, with no module paths), and
 * everything else there,
 * the CPU's AES of the arch, its NEON and generic C code, is cpu.
 */
static void check_classes(const char *kernel, struct cp_inventory *inv)
{
	size_t engines = 0, wrong = 0;

	cp_classify(inv, NULL);
	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *alg = &inv->algs[i];
		bool engine = strcmp(alg->module, "virtio_crypto") == 0;

		engines += engine;
		if ((alg->class == CP_CLASS_OFFLOAD) != engine) {
			diag("%s: %s classified %s", kernel, alg->driver,
			     cp_class_to_string(alg->class));
			wrong++;
		}
	}
	ok(engines >= 1, "%s: %zu virtio-crypto implementations", kernel, engines);
	is_int(wrong, 0, "%s: virtio-crypto offload, everything else cpu", kernel);
}

/* @kernel: the fixture's name (6.1, arm64-7.2, armhf-6.1); @cpu_cbc: the CPU's cbc(aes) there. */
static void test_real_file(const char *kernel, const char *cpu_cbc)
{
	_cleanup_fclose_ FILE *f = NULL;
	struct cp_inventory inv = {};
	const struct cp_alg *alg;
	char path[512];

	snprintf(path, sizeof(path), "%s/proc-crypto-%s.txt", FIXTURES, kernel);
	f = fopen(path, "re");
	ok(f != NULL, "%s: fixture %s present", kernel, path);
	if (!f)
		return;
	is_int(cp_proc_crypto_parse(f, &inv), 0, "%s: /proc/crypto parses", kernel);
	ok(inv.n_algs > 30, "%s: %zu implementations", kernel, inv.n_algs);
	alg = cp_inventory_find_driver(&inv, "virtio_crypto_aes_cbc");
	ok(alg && alg->priority == 150 && (alg->flags & CP_ALG_ASYNC), "%s: virtio-crypto present",
	   kernel);
	alg = cp_inventory_find_driver(&inv, cpu_cbc);
	ok(alg && strcmp(alg->name, "cbc(aes)") == 0 && cp_alg_competes(alg),
	   "%s: %s competes for cbc(aes)", kernel, cpu_cbc);
	check_classes(kernel, &inv);
	cp_inventory_free(&inv);
}

int main(void)
{
	test_sample();
	test_malformed();
	test_lookup_larval();
	test_real_file("6.1", "cbc-aes-aesni");
	test_real_file("7.2", "cbc-aes-aesni");
	test_real_file("arm64-6.1", "cbc-aes-ce");
	test_real_file("arm64-7.2", "cbc-aes-ce");
	test_real_file("armhf-6.1", "cbc-aes-neonbs");
	return done_testing();
}
