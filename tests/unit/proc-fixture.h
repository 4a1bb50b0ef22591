/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A /proc/crypto fixture as an inventory, classified as the daemon would (no module paths). */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "class.h"
#include "proc-crypto.h"
#include "macro.h"

/* /proc/crypto text after a '#' comment that says where each part comes from. */
static inline void load_fixture(const char *file, struct cp_inventory *inv)
{
	_cleanup_free_ char *text = NULL, *line = NULL;
	_cleanup_fclose_ FILE *f = NULL, *body = NULL;
	size_t text_len = 0, size = 0;
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", FIXTURES, file);
	f = fopen(path, "re");
	body = open_memstream(&text, &text_len);
	if (!f || !body)
		abort();
	while (getline(&line, &size, f) >= 0)
		if (line[0] != '#')
			fputs(line, body);
	fclose(steal_pointer(&body));
	body = fmemopen(text, text_len, "r");
	*inv = (struct cp_inventory){};
	if (!body || cp_proc_crypto_parse(body, inv) < 0)
		abort();
	cp_classify(inv, NULL);
}

/* Whether an implementation of class cpu competes for @name in @inv. */
static inline bool fixture_cpu_registers(const struct cp_inventory *inv, const char *name)
{
	for (size_t i = 0; i < inv->n_algs; i++)
		if (strcmp(inv->algs[i].name, name) == 0 && inv->algs[i].class == CP_CLASS_CPU &&
		    cp_alg_competes(&inv->algs[i]))
			return true;
	return false;
}
