/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Module indexes written in depmod's format for the tests of lib/modindex.c
 * and its users: path-compressed nodes, child ranges, values (several to a
 * key where its value string has them separated by newlines, as
 * modules.alias.bin has one per module an alias names).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct kv {
	const char *key, *value;
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
		uint32_t count = 1;

		for (const char *p = value; *p; p++)
			count += *p == '\n';
		put_u32(b, count);
		for (const char *p = value; count--; p += strcspn(p, "\n") + 1) {
			put_u32(b, 0);
			memcpy(b->d + b->n, p, strcspn(p, "\n"));
			b->n += strcspn(p, "\n");
			b->d[b->n++] = '\0';
		}
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
