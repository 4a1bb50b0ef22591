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

struct kv {
	const char *key, *value;
};

/* Sorted by key, as depmod writes them. */
static const struct kv modules[] = {
    {"aesni_intel", "kernel/arch/x86/crypto/aesni-intel.ko.xz: kernel/crypto/crypto_simd.ko.xz"},
    {"ccp_crypto",
     "kernel/drivers/crypto/ccp/ccp-crypto.ko.xz: kernel/drivers/crypto/ccp/ccp.ko.xz"},
    {"virtio_crypto", "kernel/drivers/crypto/virtio/virtio_crypto.ko.xz:"},
    {"virtio_crypto_x", "updates/virtio_crypto_x.ko:"},
    {"virtio_net", "kernel/drivers/net/virtio_net.ko.xz:"},
};

struct buf {
	uint8_t d[4096];
	size_t n;
};

static void put_u32(struct buf *b, uint32_t v)
{
	for (int shift = 24; shift >= 0; shift -= 8)
		b->d[b->n++] = (uint8_t) (v >> shift);
}

/* Keys [lo, hi) share their first @depth characters; children written first. */
static uint32_t write_node(struct buf *b, const struct kv *kv, size_t lo, size_t hi, size_t depth)
{
	uint32_t child[256] = {}, off, flags = 0;
	unsigned first = 255, last = 0;
	size_t plen = 0, at, rest;
	const char *value;

	for (;; plen++) {
		char c = kv[lo].key[depth + plen];
		bool all = c != '\0';

		for (size_t i = lo; all && i < hi; i++)
			all = kv[i].key[depth + plen] == c;
		if (!all)
			break;
	}
	at = depth + plen;
	value = kv[lo].key[at] == '\0' ? kv[lo].value : NULL;
	for (size_t i = rest = lo + (value != NULL), j; i < hi; i = j) {
		unsigned char c = (unsigned char) kv[i].key[at];

		for (j = i; j < hi && kv[j].key[at] == (char) c; j++)
			;
		child[c] = write_node(b, kv, i, j, at + 1);
		first = c < first ? c : first;
		last = c > last ? c : last;
	}
	off = (uint32_t) b->n;
	if (plen) {
		memcpy(b->d + b->n, kv[lo].key + depth, plen);
		b->n += plen;
		b->d[b->n++] = '\0';
		flags |= 0x80000000u;
	}
	if (rest < hi) {
		b->d[b->n++] = (uint8_t) first;
		b->d[b->n++] = (uint8_t) last;
		for (unsigned c = first; c <= last; c++)
			put_u32(b, child[c]);
		flags |= 0x20000000u;
	}
	if (value) {
		put_u32(b, 1);
		put_u32(b, 0);
		memcpy(b->d + b->n, value, strlen(value) + 1);
		b->n += strlen(value) + 1;
		flags |= 0x40000000u;
	}
	return off | flags;
}

static void write_index(struct buf *b, const struct kv *kv, size_t n, uint32_t version)
{
	uint32_t root;
	size_t end;

	b->n = 12; /* the header last: the root's offset is known then */
	root = write_node(b, kv, 0, n, 0);
	end = b->n;
	b->n = 0;
	put_u32(b, 0xB007F457u);
	put_u32(b, version);
	put_u32(b, root);
	b->n = end;
}

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
			for (size_t k = 0; k < ARRAY_SIZE(modules); k++)
				(void) cp_modindex_lookup(&idx, modules[k].key);
			(void) cp_modindex_lookup(&idx, "virtio");
		}
	ok(true, "every one-bit change of every byte looked up without a fault");
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
	return done_testing();
}
