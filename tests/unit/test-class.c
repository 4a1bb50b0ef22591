/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cpu/offload rules of cryptoprioctl(8), CLASSES. */
#include <string.h>

#include "class.h"
#include "macro.h"
#include "tap.h"

static void add(struct cp_inventory *inv, const char *name, const char *driver, const char *module,
		uint32_t flags)
{
	struct cp_alg alg = {.flags = flags | CP_ALG_TESTED, .priority = 100};

	snprintf(alg.name, sizeof(alg.name), "%s", name);
	snprintf(alg.driver, sizeof(alg.driver), "%s", driver);
	snprintf(alg.module, sizeof(alg.module), "%s", module);
	(void) cp_inventory_add(inv, &alg);
}

static void expect(const struct cp_inventory *inv, const char *driver, enum cp_class class,
		   enum cp_class_reason reason)
{
	const struct cp_alg *alg = cp_inventory_find_driver(inv, driver);

	ok(alg && alg->class == class && alg->class_reason == reason, "%s is %s (%s)", driver,
	   cp_class_to_string(class), cp_class_reason_to_string(reason));
}

int main(void)
{
	struct cp_module_set offload = {};
	struct cp_inventory inv = {};

	ok(cp_module_path_is_offload("kernel/drivers/crypto/virtio/virtio_crypto.ko.xz"),
	   "a module under drivers/crypto is offload");
	ok(cp_module_path_is_offload("/opt/modules/kernel/drivers/crypto/ccp/ccp-crypto.ko"),
	   "the same where modules.dep names it by an absolute path");
	ok(!cp_module_path_is_offload("kernel/arch/x86/crypto/aesni-intel.ko.xz"),
	   "arch/x86/crypto is not offload");
	ok(!cp_module_path_is_offload("kernel/crypto/authenc.ko.xz"), "crypto/ is not offload");
	ok(!cp_module_path_is_offload("updates/dkms/kernel/drivers/crypto2/x.ko"),
	   "a directory that only starts like it is not offload");
	is_int(cp_module_set_add(&offload, "virtio_crypto"), 0, "set: virtio_crypto");
	is_int(cp_module_set_add(&offload, "ccp-crypto"), 0, "set: ccp-crypto");
	ok(cp_module_set_contains(&offload, "ccp_crypto"), "module names compare with - as _");
	ok(!cp_module_set_contains(&offload, "aesni_intel"),
	   "a module not added is not in the set");

	add(&inv, "cbc(aes)", "cbc-aes-aesni", "aesni_intel", 0);
	add(&inv, "cbc(aes)", "virtio_crypto_aes_cbc", "virtio_crypto", CP_ALG_ASYNC);
	add(&inv, "cbc(aes)", "cp_test_engine_cbc_aes", "cp_test_engine",
	    CP_ALG_ASYNC | CP_ALG_KERN_DRIVER_ONLY);
	add(&inv, "cbc(aes)", "cbc-aes-ccp", "ccp_crypto", CP_ALG_ASYNC);
	add(&inv, "gcm(aes)", "gcm-aes-caam-qi2", "kernel", CP_ALG_ASYNC);
	add(&inv, "authenc(hmac(sha256),cbc(aes))",
	    "authenc(hmac(sha256-generic),virtio_crypto_aes_cbc)", "authenc", CP_ALG_ASYNC);
	add(&inv, "authenc(hmac(sha256),cbc(aes))", "authenc(hmac(sha256-generic),cbc-aes-aesni)",
	    "authenc", 0);
	add(&inv, "sha256", "sha256-generic", "kernel", 0);

	cp_classify(&inv, &offload);
	expect(&inv, "cbc-aes-aesni", CP_CLASS_CPU, CP_CLASS_REASON_DEFAULT);
	expect(&inv, "sha256-generic", CP_CLASS_CPU, CP_CLASS_REASON_DEFAULT);
	expect(&inv, "cp_test_engine_cbc_aes", CP_CLASS_OFFLOAD, CP_CLASS_REASON_KERN_DRIVER_ONLY);
	expect(&inv, "virtio_crypto_aes_cbc", CP_CLASS_OFFLOAD, CP_CLASS_REASON_MODULE_PATH);
	expect(&inv, "cbc-aes-ccp", CP_CLASS_OFFLOAD, CP_CLASS_REASON_MODULE_PATH);
	expect(&inv, "gcm-aes-caam-qi2", CP_CLASS_OFFLOAD, CP_CLASS_REASON_KNOWN_ENGINE);
	expect(&inv, "authenc(hmac(sha256-generic),virtio_crypto_aes_cbc)", CP_CLASS_OFFLOAD,
	       CP_CLASS_REASON_TEMPLATE);
	expect(&inv, "authenc(hmac(sha256-generic),cbc-aes-aesni)", CP_CLASS_CPU,
	       CP_CLASS_REASON_DEFAULT);

	/* Without the module index (a kernel without it installed), virtio-crypto is still known.
	 */
	cp_classify(&inv, NULL);
	expect(&inv, "virtio_crypto_aes_cbc", CP_CLASS_OFFLOAD, CP_CLASS_REASON_KNOWN_ENGINE);
	expect(&inv, "authenc(hmac(sha256-generic),virtio_crypto_aes_cbc)", CP_CLASS_OFFLOAD,
	       CP_CLASS_REASON_TEMPLATE);
	ok(!cp_driver_is_known_engine("cbc-aes-aesni"), "aesni is no engine");
	ok(!cp_driver_is_known_engine("ctr-aes-aesni"), "no pattern catches a CPU driver");
	/* armhf's, on a CPU without AES instructions: scalar, NEON, their sync twins. */
	static const char *const armhf_cpu[] = {
	    "aes-arm",	  "cbc(aes-arm)", "cbc-aes-neonbs", "ctr-aes-neonbs-sync",
	    "sha256-asm", "sha256-neon",  "sha512-arm",	    "ghash-ce-sync",
	};
	for (size_t i = 0; i < ARRAY_SIZE(armhf_cpu); i++)
		ok(!cp_driver_is_known_engine(armhf_cpu[i]), "%s (armhf) is no engine",
		   armhf_cpu[i]);
	ok(!cp_module_path_is_offload("kernel/arch/arm/crypto/aes-arm-bs.ko.xz"),
	   "arch/arm/crypto is not offload");
	ok(cp_driver_is_known_engine("virtio_crypto_aes_cbc"), "a pattern's trailing '*'");
	ok(cp_driver_is_known_engine("cbc-aes-caam"), "a leading '*'");
	ok(cp_driver_is_known_engine("authenc-hmac-sha256-cbc-aes-caam-qi2"), "'*' on both sides");
	ok(cp_driver_is_known_engine("ecb-aes-caam-caam"), "a '*' that must skip a first match");
	ok(!cp_driver_is_known_engine("cbc-aes-caamx"), "no match past the pattern's end");
	ok(!cp_driver_is_known_engine("qat"), "\"qat-*\" needs its '-'");
	ok(!cp_driver_is_known_engine(""), "the empty name is none");

	cp_inventory_free(&inv);
	cp_module_set_free(&offload);
	return done_testing();
}
