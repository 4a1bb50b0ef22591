/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a build of a name would load (lib/modload.c): the aliases a
 * template's build asks modprobe for, given what is registered; the
 * modules those name in a module index written here, with their
 * dependencies, less those loaded; and /proc/modules before and after.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "modload.h"
#include "tap.h"

#include "modindex-writer.h"

/* A machine where aes (a single-block cipher), sha256 and ctr(aes) are registered. */
static bool registered(const char *name, bool cipher, void *data)
{
	static const char *const names[] = {"sha256", "ctr(aes)", "ctr-aes-aesni", "ghash"};

	(void) data;
	if (streq(name, "aes"))
		return cipher;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (streq(names[i], name))
			return true;
	return false;
}

/* A kernel without pcbc (7.2). */
static bool exists(const char *tmpl, void *data)
{
	(void) data;
	return !streq(tmpl, "pcbc");
}

/* The aliases of @name, space-separated, or "error N"; @lskcipher: Linux 6.7 or later. */
static const char *aliases_on(const char *name, bool lskcipher)
{
	static char out[1024];
	struct cp_build_lookup l = {
	    .registered = registered, .template_exists = exists, .lskcipher = lskcipher};
	char **v = NULL;
	size_t n = 0;
	int r = cp_build_aliases(name, &l, &v, &n);

	if (r < 0) {
		snprintf(out, sizeof(out), "error %d", r);
		return out;
	}
	out[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", i ? " " : "", v[i]);
	cp_strv_free(v, n);
	return out;
}

static const char *aliases_of(const char *name)
{
	return aliases_on(name, true);
}

static void test_aliases(void)
{
	is_str(aliases_of("camellia"), "", "a name without a template needs no build");
	is_str(aliases_of("cbc(camellia)"), "crypto-cbc crypto-camellia crypto-camellia-all",
	       "the template, then the argument not registered; not the name itself");
	is_str(aliases_of("hmac(sha256)"), "crypto-hmac", "a registered argument asks for nothing");
	is_str(aliases_of("cbc(aes)"), "crypto-cbc crypto-aes crypto-aes-all",
	       "6.7's cbc looks aes up as an lskcipher: asks for it");
	is_str(aliases_on("cbc(aes)", false), "crypto-cbc",
	       "before 6.7, cbc finds aes registered as a cipher");
	is_str(
	    aliases_on("ctr(aes)", true), "crypto-ctr",
	    "the name itself is built: its template asked for, registered for another mask or not");
	is_str(aliases_on("pcbc(aes)", true), "crypto-pcbc",
	       "pcbc finds aes as a cipher, even since 6.7");
	is_str(aliases_of("xts(serpent)"),
	       "crypto-xts crypto-serpent crypto-serpent-all crypto-ecb(serpent) "
	       "crypto-ecb(serpent)-all crypto-ecb",
	       "xts builds on ecb(ARG)");
	is_str(aliases_of("gcm(aes)"), "crypto-gcm",
	       "gcm: ctr(aes) and ghash registered, aes as a cipher: nothing more");
	is_str(aliases_of("xts(cbc(aes))"),
	       "crypto-xts crypto-cbc(aes) crypto-cbc(aes)-all crypto-cbc crypto-aes "
	       "crypto-aes-all crypto-ecb(cbc(aes)) crypto-ecb(cbc(aes))-all crypto-ecb",
	       "nested: each level once");
	is_str(aliases_of("authenc(hmac(sha256),cbc(aes))"),
	       "crypto-authenc crypto-hmac(sha256) crypto-hmac(sha256)-all crypto-hmac "
	       "crypto-cbc(aes) crypto-cbc(aes)-all crypto-cbc crypto-aes crypto-aes-all",
	       "two arguments");
	is_str(aliases_of("cbc(ctr(aes))"), "crypto-cbc",
	       "a registered template instance: nothing below");
	is_str(aliases_of("pcbc(twofish)"), "crypto-pcbc",
	       "a template no module has: its arguments are never asked for");
	is_str(aliases_of("xts(pcbc(twofish))"),
	       "crypto-xts crypto-pcbc(twofish) crypto-pcbc(twofish)-all crypto-pcbc "
	       "crypto-ecb(pcbc(twofish)) crypto-ecb(pcbc(twofish))-all crypto-ecb",
	       "nor below it where it is an argument");
	is_str(aliases_of("cbc(aes"), "error -22", "unbalanced: refused");
	is_str(aliases_of("cbc()"), "error -22", "an empty argument: refused");
	is_str(aliases_of("(aes)"), "error -22", "no template name: refused");
	is_str(aliases_of("a(b(c(d(e(f(g(h(i(j(k))))))))))"), "error -22", "too deep: refused");
}

/* The modules of @aliases not in @live, space-separated. */
static const char *modules_of(const struct cp_modindex *alias, const struct cp_modindex *dep,
			      char **aliases, size_t n_aliases, char **live, size_t n_live)
{
	static char out[1024];
	char **v = NULL;
	size_t n = 0;
	int r = cp_alias_modules(alias, dep, aliases, n_aliases, live, n_live, &v, &n);

	if (r < 0)
		return "error";
	out[0] = '\0';
	for (size_t i = 0; i < n; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", i ? " " : "", v[i]);
	cp_strv_free(v, n);
	return out;
}

static void test_modules(void)
{
	static const struct kv aliases[] = {
	    {"crypto_camellia", "camellia_generic\ncamellia_x86_64\ncamellia_aesni_avx2"},
	    {"crypto_cbc", "cbc"},
	    {"crypto_xts", "xts"},
	};
	static const struct kv deps[] = {
	    {"camellia_aesni_avx2", "kernel/arch/x86/crypto/camellia-aesni-avx2.ko.xz: "
				    "kernel/arch/x86/crypto/camellia-x86_64.ko.xz "
				    "kernel/crypto/crypto_simd.ko.xz kernel/crypto/cryptd.ko.xz"},
	    {"camellia_generic", "kernel/crypto/camellia_generic.ko.xz:"},
	    {"camellia_x86_64", "kernel/arch/x86/crypto/camellia-x86_64.ko.xz:"},
	};
	static struct buf a, d;
	struct cp_modindex alias_idx, dep_idx;
	char *want[] = {"crypto-cbc", "crypto-camellia", "crypto-camellia-all"};
	char *live[] = {"cbc", "cryptd"};
	char *xts[] = {"crypto-xts"};

	write_index(&a, aliases, ARRAY_SIZE(aliases), 0x00020001u);
	write_index(&d, deps, ARRAY_SIZE(deps), 0x00020001u);
	if (!ok(cp_modindex_init(&alias_idx, a.d, a.n) == 0 &&
		    cp_modindex_init(&dep_idx, d.d, d.n) == 0,
		"the indexes written here open"))
		return;
	is_str(modules_of(&alias_idx, &dep_idx, want, ARRAY_SIZE(want), live, ARRAY_SIZE(live)),
	       "camellia_aesni_avx2 camellia_generic camellia_x86_64 crypto_simd",
	       "every module of the aliases and their dependencies, less those loaded, sorted");
	is_str(modules_of(&alias_idx, &dep_idx, xts, 1, NULL, 0), "xts",
	       "nothing loaded: the template");
	is_str(modules_of(&alias_idx, &dep_idx, want, 1, live, ARRAY_SIZE(live)), "",
	       "a loaded template: nothing");
}

static void test_live(void)
{
	char path[] = "/tmp/test-modload-XXXXXX";
	int fd = mkstemp(path);
	static const char before_text[] = "virtio_crypto 28672 0 - Live 0x0000000000000000\n"
					  "aesni_intel 362496 0 - Live 0x0000000000000000\n"
					  "cryptd 28672 1 aesni_intel, Live 0x0000000000000000\n";
	char **before = NULL, **after = NULL, **gained = NULL;
	size_t n_before = 0, n_after = 0, n_gained = 0;

	if (!ok(fd >= 0 && write(fd, before_text, sizeof(before_text) - 1) > 0,
		"a /proc/modules written"))
		return;
	close(fd);
	is_int(cp_modules_live(path, &before, &n_before), 0, "a /proc/modules read");
	ok(n_before == 3 && streq(before[0], "aesni_intel") && streq(before[2], "virtio_crypto"),
	   "its names, sorted");
	fd = open(path, O_WRONLY | O_APPEND);
	ok(fd >= 0 && write(fd, "camellia_generic 40960 0 - Live 0x0\n", 36) == 36,
	   "a module appended");
	if (fd >= 0)
		close(fd);
	is_int(cp_modules_live(path, &after, &n_after), 0, "read again");
	is_int(cp_modules_gained(before, n_before, after, n_after, &gained, &n_gained), 0,
	       "compared");
	ok(n_gained == 1 && streq(gained[0], "camellia_generic"), "the module loaded meanwhile");
	cp_strv_free(gained, n_gained);
	is_int(cp_modules_gained(after, n_after, before, n_before, &gained, &n_gained), 0,
	       "compared the other way");
	is_int((int) n_gained, 0, "a module gone is none gained");
	cp_strv_free(gained, n_gained);
	cp_strv_free(before, n_before);
	cp_strv_free(after, n_after);
	unlink(path);
}

int main(void)
{
	test_aliases();
	test_modules();
	test_live();
	return done_testing();
}
