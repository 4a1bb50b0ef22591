/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cpu or offload: which side of the machine computes an implementation. */
#pragma once

#include <stdio.h>

#include "inventory.h"

/* Module names (normalised: '-' as '_') whose files live under kernel/drivers/crypto/. */
struct cp_module_set {
	char **names;
	size_t n_names;
};

/* Largest modules.dep read (Debian's amd64 one is under 1 MiB). */
#define CP_MODULES_DEP_MAX_SIZE (16u << 20)

/* Read modules.dep (the kernel's module list with paths; @len bytes of @text) into @set. */
int cp_module_set_from_modules_dep(const char *text, size_t len, struct cp_module_set *set);
/* The same for the running kernel: /lib/modules/$(uname -r)/modules.dep; absent is not an error. */
int cp_module_set_load_running(struct cp_module_set *set);
void cp_module_set_free(struct cp_module_set *set);
bool cp_module_set_contains(const struct cp_module_set *set, const char *module);

/* Whether @driver is the name of a known offload engine's implementation. */
bool cp_driver_is_known_engine(const char *driver);

/*
 * Set class and class_reason of every implementation: first the plain
 * ones (flags, module path, known engine names), then template instances,
 * which inherit offload from any offload part named in their driver name.
 */
void cp_classify(struct cp_inventory *inv, const struct cp_module_set *offload_modules);
