/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the kernel's template lookups ask modprobe for, from the code of
 * crypto/algapi.c and the templates (6.1 to 7.2): crypto_lookup_template()
 * asks for "crypto-T" unless T is registered; a spawn's lookup of an
 * argument that no registered implementation serves for the template's
 * type asks for "crypto-ARG" and "crypto-ARG-all", and the larval it adds
 * then has that argument built the same way. An argument serves by name
 * or driver name. A single-block cipher ("aes", "camellia") is not found
 * by every template that takes one: xts and lrw look it up as an skcipher
 * first, cbc and ecb since 6.7 as an lskcipher, and so ask for its alias
 * although it is registered: under those it counts as not registered.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "fileio.h"
#include "macro.h"
#include "modload.h"

#define MAX_DEPTH 8

/*
 * Names a template looks up beside its arguments; "%s" is its argument.
 * (gcm_base, ccm_base and hctr2_base are the same modules' templates.)
 */
static const struct {
	const char *tmpl;
	const char *needs[2];
} builds_on[] = {
    {"xts", {"ecb(%s)"}},
    {"lrw", {"ecb(%s)"}},
    {"gcm", {"ctr(%s)", "ghash"}},
    {"ccm", {"ctr(%s)", "cbcmac(%s)"}},
    {"hctr2", {"xctr(%s)", "polyval"}},
};

struct walk {
	const struct cp_build_lookup *l;
	char **aliases;
	size_t n;
};

static bool word_is(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && !memcmp(s, word, len);
}

/* Whether template @tmpl (of @len) finds a single-block cipher argument registered as such. */
static bool takes_cipher(const struct walk *w, const char *tmpl, size_t len)
{
	if (word_is(tmpl, len, "xts") || word_is(tmpl, len, "lrw"))
		return false;
	return !(w->l->lskcipher && (word_is(tmpl, len, "cbc") || word_is(tmpl, len, "ecb")));
}

static int add_alias(struct walk *w, const char *name, size_t len, const char *suffix)
{
	char alias[256];

	if ((size_t) snprintf(alias, sizeof(alias), "crypto-%.*s%s", (int) len, name, suffix) >=
	    sizeof(alias))
		return -ENAMETOOLONG;
	for (size_t i = 0; i < w->n; i++)
		if (streq(w->aliases[i], alias))
			return 0;
	return cp_strv_push(&w->aliases, &w->n, alias);
}

static int walk_name(struct walk *w, const char *name, size_t len, int depth, bool cipher);

/* The names template @tmpl builds on beside its argument @arg (of @len). */
static int walk_builds_on(struct walk *w, const char *tmpl, size_t tlen, const char *arg,
			  size_t len, int depth)
{
	char name[256];
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(builds_on); i++) {
		if (!word_is(tmpl, tlen, builds_on[i].tmpl))
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(builds_on[i].needs) && builds_on[i].needs[k];
		     k++) {
			const char *fmt = builds_on[i].needs[k];
			const char *at = strstr(fmt, "%s");
			int n = at ? snprintf(name, sizeof(name), "%.*s%.*s%s", (int) (at - fmt),
					      fmt, (int) len, arg, at + 2)
				   : snprintf(name, sizeof(name), "%s", fmt);

			if (n < 0 || (size_t) n >= sizeof(name))
				return -ENAMETOOLONG;
			r = walk_name(w, name, strlen(name), depth + 1, true);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* The template's arguments, name[start..len-1), each walked. */
static int walk_args(struct walk *w, const char *name, size_t len, size_t start, int depth)
{
	size_t level = 0, tlen = start - 1;
	int r;

	for (size_t i = start; i < len; i++) {
		bool end = i == len - 1;

		if (!end && name[i] == '(') {
			level++;
		} else if (!end && name[i] == ')') {
			if (level-- == 0)
				return -EINVAL;
		} else if (end || (name[i] == ',' && level == 0)) {
			if (i == start || (end && level))
				return -EINVAL;
			r = walk_name(w, name + start, i - start, depth + 1,
				      takes_cipher(w, name, tlen));
			if (r >= 0)
				r = walk_builds_on(w, name, tlen, name + start, i - start, depth);
			if (r < 0)
				return r;
			start = i + 1;
		}
	}
	return 0;
}

/*
 * @name (of @len): nothing if registered (@cipher: a single-block cipher
 * counts), else its aliases and its parts'.
 */
static int walk_name(struct walk *w, const char *name, size_t len, int depth, bool cipher)
{
	const char *open = memchr(name, '(', len);
	char copy[256];
	int r;

	if (depth > MAX_DEPTH || len == 0 || len >= sizeof(copy))
		return -EINVAL;
	memcpy(copy, name, len);
	copy[len] = '\0';
	if (depth > 0) {
		if (w->l->registered(copy, cipher, w->l->data))
			return 0;
		r = add_alias(w, name, len, "");
		if (r >= 0)
			r = add_alias(w, name, len, "-all");
		if (r < 0)
			return r;
	}
	if (!open)
		return 0;
	if (open == name || name[len - 1] != ')')
		return -EINVAL;
	r = add_alias(w, name, (size_t) (open - name), "");
	if (r < 0)
		return r;
	/* a template no module has: the build fails before asking for its arguments */
	copy[open - name] = '\0';
	if (w->l->template_exists && !w->l->template_exists(copy, w->l->data))
		return 0;
	return walk_args(w, name, len, (size_t) (open - name) + 1, depth);
}

int cp_build_aliases(const char *name, const struct cp_build_lookup *l, char ***aliases, size_t *n)
{
	struct walk w = {.l = l};
	int r = walk_name(&w, name, strlen(name), 0, true);

	if (r < 0) {
		cp_strv_free(w.aliases, w.n);
		return r;
	}
	*aliases = w.aliases;
	*n = w.n;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static bool in_sorted(char *const *v, size_t n, const char *s)
{
	return v && n && bsearch(&s, v, n, sizeof(*v), cmp_str);
}

/* Add module @name (of @len, '-' as '_') unless live or there already. */
static int add_module(char ***v, size_t *n, const char *name, size_t len, char *const *live,
		      size_t n_live)
{
	char mod[256];

	if (len == 0 || len >= sizeof(mod))
		return -EBADMSG;
	for (size_t i = 0; i < len; i++)
		mod[i] = name[i] == '-' ? '_' : name[i];
	mod[len] = '\0';
	if (in_sorted(live, n_live, mod))
		return 0;
	for (size_t i = 0; i < *n; i++)
		if (streq((*v)[i], mod))
			return 0;
	return cp_strv_push(v, n, mod);
}

/* Module @mod's dependencies from its modules.dep line "PATH: DEP-PATH...". */
static int add_dependencies(const struct cp_modindex *dep_idx, const char *mod, char ***v,
			    size_t *n, char *const *live, size_t n_live)
{
	const char *line = cp_modindex_lookup(dep_idx, mod), *p;
	int r;

	if (!line || !(p = strchr(line, ':')))
		return 0;
	for (p++; *p;) {
		size_t len = strcspn(p, " ");
		const char *base = memrchr(p, '/', len);

		base = base ? base + 1 : p;
		if (len > 0) {
			r = add_module(v, n, base, strcspn(base, ". "), live, n_live);
			if (r < 0)
				return r;
		}
		p += len + (p[len] == ' ');
	}
	return 0;
}

int cp_alias_modules(const struct cp_modindex *alias_idx, const struct cp_modindex *dep_idx,
		     char *const *aliases, size_t n_aliases, char *const *live, size_t n_live,
		     char ***modules, size_t *n)
{
	char **v = NULL;
	size_t nv = 0, named;
	int r = 0;

	for (size_t a = 0; a < n_aliases && r >= 0; a++) {
		const char *mods[64];
		size_t k = cp_modindex_lookup_all(alias_idx, aliases[a], mods, ARRAY_SIZE(mods));

		for (size_t i = 0; i < k && r >= 0; i++)
			r = add_module(&v, &nv, mods[i], strlen(mods[i]), live, n_live);
	}
	/* the dependencies of those named, which the loop may add to */
	named = nv;
	for (size_t i = 0; i < named && r >= 0; i++)
		r = add_dependencies(dep_idx, v[i], &v, &nv, live, n_live);
	if (r < 0) {
		cp_strv_free(v, nv);
		return r;
	}
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_str);
	*modules = v;
	*n = nv;
	return 0;
}

int cp_modules_live(const char *path, char ***modules, size_t *n)
{
	_cleanup_free_ char *data = NULL;
	char **v = NULL;
	size_t size, nv = 0;
	int r;

	r = cp_read_file(path ? path : "/proc/modules", 4 << 20, &data, &size);
	if (r < 0)
		return r;
	for (char *line = data, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line[strcspn(line, " ")] = '\0';
		if (*line && (r = cp_strv_push(&v, &nv, line)) < 0) {
			cp_strv_free(v, nv);
			return r;
		}
	}
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_str);
	*modules = v;
	*n = nv;
	return 0;
}

int cp_modules_gained(char *const *before, size_t n_before, char *const *after, size_t n_after,
		      char ***gained, size_t *n)
{
	char **v = NULL;
	size_t nv = 0;

	for (size_t i = 0; i < n_after; i++) {
		int r = in_sorted(before, n_before, after[i]) ? 0 : cp_strv_push(&v, &nv, after[i]);

		if (r < 0) {
			cp_strv_free(v, nv);
			return r;
		}
	}
	*gained = v;
	*n = nv;
	return 0;
}

/*
 * Drop from @v the modules whose CPU aliases (modules.alias' "alias cpu:")
 * this CPU's modalias matches none of: modprobe tries them and their init
 * fails (padlock_aes, which crypto-aes names, on a CPU without PadLock).
 * Their dependencies stay: modprobe loads those first. Where either file
 * cannot be read, none is dropped.
 */
static void drop_other_cpus(char **v, size_t *n, const char *release)
{
	_cleanup_free_ char *cpu = NULL, *aliases = NULL;
	_cleanup_free_ bool *has = calloc(*n + 1, sizeof(bool)),
			    *fits = calloc(*n + 1, sizeof(bool));
	char path[512];
	size_t size, kept = 0;

	snprintf(path, sizeof(path), "/lib/modules/%s/modules.alias", release);
	if (*n == 0 || !has || !fits ||
	    cp_read_file("/sys/devices/system/cpu/modalias", 4096, &cpu, &size) < 0 ||
	    cp_read_file(path, 64 << 20, &aliases, &size) < 0)
		return;
	cpu[strcspn(cpu, "\n")] = '\0';
	for (char *line = aliases, *next; line && *line; line = next) {
		char *pattern, *mod;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, "alias cpu:", 10) || !(mod = strrchr(line, ' ')))
			continue;
		*mod++ = '\0';
		pattern = line + 6;
		for (size_t i = 0; i < *n; i++)
			if (streq(v[i], mod)) {
				has[i] = true;
				fits[i] |= fnmatch(pattern, cpu, 0) == 0;
			}
	}
	for (size_t i = 0; i < *n; i++) {
		if (has[i] && !fits[i])
			free(v[i]);
		else
			v[kept++] = v[i];
	}
	*n = kept;
}

/* The running kernel's indexes. */
struct machine {
	struct cp_modindex alias, dep, builtin;
	bool have_builtin;
	void *data; /* the caller's */
	bool (*registered)(const char *name, bool cipher, void *data);
};

static bool machine_registered(const char *name, bool cipher, void *data)
{
	const struct machine *m = data;

	return m->registered(name, cipher, m->data);
}

/*
 * Whether template @tmpl can be had: a module's alias or a built-in one.
 * Without modules.builtin.alias.bin (depmod before kmod 27), every one
 * can: a built-in template would otherwise be taken for none, and its
 * build's loads missed.
 */
static bool machine_template_exists(const char *tmpl, void *data)
{
	const struct machine *m = data;
	char alias[256];
	const char *v;

	if (!m->have_builtin)
		return true;
	snprintf(alias, sizeof(alias), "crypto-%s", tmpl);
	return cp_modindex_lookup_all(&m->alias, alias, &v, 1) ||
	       cp_modindex_lookup_all(&m->builtin, alias, &v, 1);
}

static void machine_close(struct machine *m)
{
	cp_modindex_close(&m->alias);
	cp_modindex_close(&m->dep);
	cp_modindex_close(&m->builtin);
}

/* Linux 6.7 or later (its lskcipher templates), from a release such as "6.12.118+deb12-amd64". */
static bool has_lskcipher(const char *release)
{
	unsigned major = 0, minor = 0;

	if (sscanf(release, "%u.%u", &major, &minor) != 2)
		return true; /* unknown: the case that asks for more */
	return major > 6 || (major == 6 && minor >= 7);
}

int cp_build_would_load(const char *name, bool (*registered)(const char *, bool, void *),
			void *data, char ***modules, size_t *n)
{
	_cleanup_(machine_close) struct machine m = {.registered = registered, .data = data};
	struct cp_build_lookup l = {.registered = machine_registered,
				    .template_exists = machine_template_exists,
				    .data = &m};
	char **aliases = NULL, **live = NULL;
	size_t n_aliases = 0, n_live = 0;
	struct utsname uts;
	int r;

	if (uname(&uts) < 0)
		return negative_errno();
	l.lskcipher = has_lskcipher(uts.release);
	r = cp_modindex_open_running_file(&m.alias, "modules.alias.bin");
	if (r >= 0)
		r = cp_modindex_open_running_file(&m.dep, "modules.dep.bin");
	if (r < 0)
		return r;
	m.have_builtin =
	    cp_modindex_open_running_file(&m.builtin, "modules.builtin.alias.bin") >= 0;
	r = cp_build_aliases(name, &l, &aliases, &n_aliases);
	if (r >= 0)
		r = cp_modules_live(NULL, &live, &n_live);
	if (r >= 0)
		r = cp_alias_modules(&m.alias, &m.dep, aliases, n_aliases, live, n_live, modules,
				     n);
	if (r >= 0)
		drop_other_cpus(*modules, n, uts.release);
	cp_strv_free(aliases, n_aliases);
	cp_strv_free(live, n_live);
	return r;
}
