/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * /var/lib/cryptoprio/calibration.json: measurements kept across boots,
 * each keyed by what would change it: the kernel release and build, the
 * driver, its module and the module's srcversion, and the CPU model.
 * Also each driver's default priority as first seen for that kernel and
 * module build (the same at every boot): the originals `reset` restores
 * when /run/cryptoprio/state.json is lost.
 */
#pragma once

#include <time.h>

#include "calib-point.h"
#include "class.h"
#include "cpmod.h"
#include "inventory.h"

#define CP_CACHE_VERSION     2 /* the file's layout: lib/calib-cache-json.c */
#define CP_CACHE_MAX_SIZE    (8u << 20)
#define CP_CACHE_MAX_ENTRIES 20000

/* What a cached figure is only valid for. */
struct cp_cache_key {
	char kernel[128];    /* uname -r */
	char build[32];	     /* digest of /proc/version: the same release rebuilt differs */
	char cpu_model[128]; /* /proc/cpuinfo "model name" */
	char driver[CP_NAME_MAX];
	char module[CP_NAME_MAX];
	char srcversion[64]; /* /sys/module/MODULE/srcversion; "" for built-in code */
};

/*
 * A passed verification, kept with each point of the driver's figures:
 * valid while the module that verified is the same build ("" in by: not
 * verified).
 */
struct cp_cache_verified {
	uint64_t seed;
	uint32_t cases;
	char by[33]; /* the cryptoprio module's srcversion */
};

struct cp_cache_entry {
	struct cp_cache_key key;
	enum cp_backend backend;
	enum cryptoprio_kat kat;
	time_t measured_at;
	struct cp_point point;
	struct cp_cache_verified verified;
};

/* The priority a driver had before cryptoprio changed it; the key's cpu_model is "". */
struct cp_cache_default {
	struct cp_cache_key key;
	uint32_t priority;
	time_t seen_at;
};

struct cp_cache {
	struct cp_cache_entry *entries;
	size_t n_entries;
	struct cp_cache_default *defaults;
	size_t n_defaults;
	struct cp_module_memo modules; /* the running kernel's module index, as last asked */
};

void cp_cache_free(struct cp_cache *cache);
/*
 * -EBADMSG for anything malformed or foreign: the whole file is then
 * ignored. A file of version 1 parses as empty.
 */
int cp_cache_parse(const char *text, struct cp_cache *cache);
int cp_cache_format(const struct cp_cache *cache, char **ret_text);
/* A missing file is an empty cache. */
int cp_cache_load(const char *path, struct cp_cache *cache);
int cp_cache_save(const char *path, const struct cp_cache *cache);

const struct cp_cache_entry *cp_cache_find(const struct cp_cache *cache,
					   const struct cp_cache_key *key, uint32_t size,
					   uint32_t depth);
/* Insert or replace the entry with the same key and point. */
int cp_cache_put(struct cp_cache *cache, const struct cp_cache_entry *entry);

const struct cp_cache_default *cp_cache_find_default(const struct cp_cache *cache,
						     const struct cp_cache_key *key);
/* Record @def unless a default is known for its key (the first sight wins): 1 if added. */
int cp_cache_put_default(struct cp_cache *cache, const struct cp_cache_default *def);

/* A module's build, as its key holds it. */
struct cp_module_version {
	char module[CP_NAME_MAX];
	char srcversion[64]; /* "" for built-in code */
};

/*
 * The key of @alg on the running machine (reads uname, /proc, /sys). The
 * kernel's and the CPU's parts are read once per process, each module's
 * srcversion once until cp_cache_keys_forget(), which a run calls first: a
 * module reloaded since may be another build.
 */
int cp_cache_key_for(const struct cp_alg *alg, struct cp_cache_key *key);
/* @module's srcversion, as keys hold it (the assumed machine's, if any); "" if unknown. */
void cp_cache_module_srcversion(const char *module, char srcversion[static 64]);
void cp_cache_keys_forget(void);

/*
 * Key as another machine would, from then on in this process: its kernel,
 * build and CPU in @machine, its modules' builds in @modules (a module not
 * listed has none), nothing read from this one. For planning a machine
 * from its export (plan --from); the arrays must outlive their use.
 */
void cp_cache_keys_assume(const struct cp_cache_key *machine,
			  const struct cp_module_version *modules, size_t n_modules);
