/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The module index reader (lib/modindex.c) over indexes written here in
 * depmod's format: path-compressed nodes, child ranges, values. Then every
 * truncation and every one-byte change of a good index: a lookup answers
 * right or NULL, and reads nothing outside the buffer (the sanitizer run,
 * scripts/test-sanitizers, watches that).
 */
#include <errno.h>
#include <string.h>

#include "macro.h"
#include "modindex.h"
#include "tap.h"

#include "modindex-writer.h"

/* Sorted by key, as depmod writes them. */
static const struct kv modules[] = {
    {"aesni_intel", "kernel/arch/x86/crypto/aesni-intel.ko.xz: kernel/crypto/crypto_simd.ko.xz"},
    {"ccp_crypto",
     "kernel/drivers/crypto/ccp/ccp-crypto.ko.xz: kernel/drivers/crypto/ccp/ccp.ko.xz"},
    {"virtio_crypto", "kernel/drivers/crypto/virtio/virtio_crypto.ko.xz:"},
    {"virtio_crypto_x", "updates/virtio_crypto_x.ko:"},
    {"virtio_net", "kernel/drivers/net/virtio_net.ko.xz:"},
};

static bool lookup_is(const struct cp_modindex *idx, const char *key, const char *want)
{
	const char *got = cp_modindex_lookup(idx, key);

	return want ? got && strcmp(got, want) == 0 : !got;
}

static void damaged(const struct buf *good)
{
	static struct buf bad;
	size_t wrong = 0;

	for (size_t len = 0; len < good->n; len++) {
		struct cp_modindex idx;

		if (cp_modindex_init(&idx, good->d, len) < 0)
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(modules); k++)
			wrong += !lookup_is(&idx, modules[k].key, modules[k].value) &&
				 !lookup_is(&idx, modules[k].key, NULL);
	}
	ok(wrong == 0, "every truncation: each lookup right or nothing");
	for (size_t at = 0; at < good->n; at++)
		for (unsigned x = 1; x < 256; x <<= 1) {
			struct cp_modindex idx;

			bad = *good;
			bad.d[at] ^= (uint8_t) x;
			if (cp_modindex_init(&idx, bad.d, bad.n) < 0)
				continue;
			for (size_t k = 0; k < ARRAY_SIZE(modules); k++) {
				const char *all[4];

				(void) cp_modindex_lookup(&idx, modules[k].key);
				(void) cp_modindex_lookup_all(&idx, modules[k].key, all, 4);
			}
			(void) cp_modindex_lookup(&idx, "virtio");
		}
	ok(true, "every one-bit change of every byte looked up without a fault");
}

/* modules.alias.bin: a key with a value per module the alias names. */
static void several_values(void)
{
	static const struct kv aliases[] = {
	    {"crypto_camellia", "camellia_generic\ncamellia_x86_64\ncamellia_aesni_avx2"},
	    {"crypto_cbc", "cbc"},
	};
	static struct buf b;
	struct cp_modindex idx;
	const char *v[4] = {};

	write_index(&b, aliases, ARRAY_SIZE(aliases), 0x00020001u);
	is_int(cp_modindex_init(&idx, b.d, b.n), 0, "an alias index opens");
	is_int((int) cp_modindex_lookup_all(&idx, "crypto-camellia", v, 4), 3,
	       "every module of an alias, '-' looked up as '_'");
	ok(v[0] && v[2] && !strcmp(v[0], "camellia_generic") &&
	       !strcmp(v[2], "camellia_aesni_avx2"),
	   "in the index's order");
	is_int((int) cp_modindex_lookup_all(&idx, "crypto-camellia", v, 2), 2,
	       "no more than asked");
	is_str(cp_modindex_lookup(&idx, "crypto-camellia"), "camellia_generic",
	       "lookup: the first");
	is_int((int) cp_modindex_lookup_all(&idx, "crypto-serpent", v, 4), 0, "an alias not there");
}

int main(void)
{
	static struct buf b;
	struct cp_modindex idx;

	write_index(&b, modules, ARRAY_SIZE(modules), 0x00020001u);
	is_int(cp_modindex_init(&idx, b.d, b.n), 0, "an index of version 2.1 opens");
	for (size_t k = 0; k < ARRAY_SIZE(modules); k++)
		ok(lookup_is(&idx, modules[k].key, modules[k].value), "%s found", modules[k].key);
	ok(lookup_is(&idx, "ccp-crypto", modules[1].value), "'-' in a name looks up as '_'");
	ok(lookup_is(&idx, "virtio", NULL), "a key's prefix alone is not a key");
	ok(lookup_is(&idx, "virtio_crypto_", NULL), "nor a key's prefix that ends at a branch");
	ok(lookup_is(&idx, "virtio_cryptox", NULL), "a longer key that diverges is not found");
	ok(lookup_is(&idx, "virtio_crypto_xy", NULL), "nor one that goes past a leaf");
	ok(lookup_is(&idx, "", NULL), "the empty key is not found");
	ok(lookup_is(&idx, "zz", NULL), "a key past the root's range is not found");

	write_index(&b, modules, ARRAY_SIZE(modules), 0x00030000u);
	is_int(cp_modindex_init(&idx, b.d, b.n), -EBADMSG, "version 3 is refused");
	write_index(&b, modules, ARRAY_SIZE(modules), 0x00020001u);
	b.d[0] ^= 1;
	is_int(cp_modindex_init(&idx, b.d, b.n), -EBADMSG, "a wrong magic is refused");
	b.d[0] ^= 1;
	is_int(cp_modindex_init(&idx, b.d, 11), -EBADMSG, "a header cut short is refused");
	damaged(&b);
	several_values();
	return done_testing();
}
