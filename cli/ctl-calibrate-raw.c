/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cryptoprioctl calibrate --raw: the probe. Each matching implementation is
 * measured once per request size by the companion module (cryptoprio(4)),
 * which also checks its answer against the kernel's reference software;
 * the figures are printed as the module returns them, nothing is cached.
 * An implementation the kernel would not hand out (not tested, or failed
 * its self-test) is skipped with a note unless named by its driver name:
 * then the module is asked, and says why it refuses.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "cpmod.h"
#include "cryptoprioctl.h"
#include "ctl-calibrate-args.h"
#include "fileio.h"
#include "inventory-load.h"
#include "pattern.h"
#include "types.h"

#define DEFAULT_BUDGET_MS 100u
#define DEFAULT_SIZE	  4096u

struct target {
	char driver[CP_NAME_MAX];
	char name[CP_NAME_MAX]; /* "" if unknown */
	enum cryptoprio_type type;
};

/* Why the module would not measure @a, said before asking it; NULL if it would. */
static const char *not_measured(const struct cp_alg *a, enum cryptoprio_type type)
{
	if (!(a->flags & CP_ALG_TESTED))
		return "not tested, or failed the kernel's self-test";
	return cp_mod_unmeasured(type, a->name);
}

static bool named_as_driver(const struct cp_alg *a, char **patterns, int n_patterns)
{
	for (int p = 0; p < n_patterns; p++)
		if (streq(patterns[p], a->driver))
			return true;
	return false;
}

/* Collect the implementations to measure, in inventory order, each once. */
static int select_targets(const struct cp_inventory *inv, char **patterns, int n_patterns,
			  enum cryptoprio_type fallback_type, struct target **ret, size_t *ret_n)
{
	_cleanup_free_ struct target *t = calloc(inv->n_algs + (size_t) n_patterns + 1, sizeof(*t));
	size_t n = 0;

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *a = &inv->algs[i];
		enum cryptoprio_type type = cp_mod_type_from_alg_type(a->type);
		bool match = n_patterns == 0;

		if (type == CRYPTOPRIO_TYPE_UNSPEC || (a->flags & CP_ALG_INTERNAL))
			continue;
		for (int p = 0; p < n_patterns && !match; p++)
			match = cp_pattern_match(patterns[p], a->name) ||
				cp_pattern_match(patterns[p], a->driver);
		if (!match)
			continue;
		const char *why = not_measured(a, type);

		if (why && !named_as_driver(a, patterns, n_patterns)) {
			fprintf(stderr, "calibrate: skipping %s (%s): %s\n", a->driver, a->name,
				why);
			continue;
		}
		snprintf(t[n].driver, sizeof(t[n].driver), "%s", a->driver);
		snprintf(t[n].name, sizeof(t[n].name), "%s", a->name);
		t[n].type = type;
		n++;
	}
	/*
	 * A literal name the inventory does not list goes to the module as a
	 * driver name: it may be a template instance made on demand
	 * ("cbc(aes-generic)"), and otherwise the module says it does not exist.
	 */
	for (int p = 0; p < n_patterns; p++) {
		bool seen = false;

		if (!cp_pattern_is_literal(patterns[p]))
			continue;
		for (size_t i = 0; i < inv->n_algs && !seen; i++)
			seen = !strcmp(inv->algs[i].name, patterns[p]) ||
			       !strcmp(inv->algs[i].driver, patterns[p]);
		if (seen)
			continue;
		snprintf(t[n].driver, sizeof(t[n].driver), "%s", patterns[p]);
		t[n].type = fallback_type;
		n++;
	}
	*ret = steal_pointer(&t);
	*ret_n = n;
	return 0;
}

/* A compressor's figures have a compressed size and a ratio. */
static bool compresses(enum cryptoprio_type type)
{
	const struct cp_type_info *info = cp_type_info(type);

	return info && info->compresses;
}

static json_object *result_json(const struct target *t, const struct cp_mod_calib_result *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "driver", json_object_new_string(r->driver));
	json_object_object_add(o, "algorithm", t->name[0] ? json_object_new_string(t->name) : NULL);
	json_object_object_add(o, "type",
			       json_object_new_string(cp_mod_type_to_string(r->type) ?: "unknown"));
	json_object_object_add(o, "decrypt", json_object_new_boolean(r->decrypt));
	json_object_object_add(o, "size", json_object_new_int64(r->req_size));
	json_object_object_add(o, "depth", json_object_new_int64(r->depth));
	json_object_object_add(o, "key_size", json_object_new_int64(r->key_size));
	json_object_object_add(o, "budget_ns", json_object_new_uint64(r->budget_ns));
	json_object_object_add(o, "requests", json_object_new_uint64(r->requests));
	json_object_object_add(o, "bytes", json_object_new_uint64(r->bytes));
	json_object_object_add(o, "wall_ns", json_object_new_uint64(r->wall_ns));
	json_object_object_add(o, "cpu_ns", json_object_new_uint64(r->cpu_ns));
	json_object_object_add(o, "mb_per_s", json_object_new_double(cp_mod_mb_per_s(r)));
	json_object_object_add(o, "ops_per_s", json_object_new_double(cp_mod_ops_per_s(r)));
	json_object_object_add(o, "ns_per_request",
			       json_object_new_double(cp_mod_ns_per_request(r)));
	json_object_object_add(o, "cpu_ns_per_byte",
			       json_object_new_double(cp_mod_cpu_ns_per_byte(r)));
	json_object_object_add(o, "max_in_flight", json_object_new_int64(r->max_in_flight));
	json_object_object_add(o, "known_answer",
			       json_object_new_string(cp_mod_kat_to_string(r->kat)));
	json_object_object_add(o, "reference",
			       r->reference[0] ? json_object_new_string(r->reference) : NULL);
	if (compresses(r->type)) {
		json_object_object_add(o, "compressed_size",
				       json_object_new_int64(r->compressed_size));
		json_object_object_add(o, "ratio",
				       json_object_new_double(cp_mod_compression_ratio(r)));
	}
	return o;
}

/*
 * The rows are printed as each run ends, so the driver column is as wide
 * as the longest name about to be measured, known before the first.
 */
static int driver_width(const struct target *targets, size_t n)
{
	size_t w = strlen("DRIVER");

	for (size_t i = 0; i < n; i++)
		if (strlen(targets[i].driver) > w)
			w = strlen(targets[i].driver);
	return (int) w;
}

static void print_header(int width)
{
	printf("%-*s %8s %5s %9s %12s %10s %10s %12s %9s %9s %6s %-11s %s\n", width, "DRIVER",
	       "SIZE", "DEPTH", "REQUESTS", "BYTES", "MB/S", "OPS/S", "NS/REQ", "CPU-NS/B",
	       "INFLIGHT", "RATIO", "KAT", "REFERENCE");
}

static void print_row(const struct cp_mod_calib_result *r, int width)
{
	char ratio[16] = "-";

	if (compresses(r->type))
		snprintf(ratio, sizeof(ratio), "%.2f", cp_mod_compression_ratio(r));
	printf("%-*s %8" PRIu32 " %5" PRIu32 " %9" PRIu64 " %12" PRIu64 " %10.2f %10.0f %12.0f "
	       "%9.3f %9" PRIu32 " %6s %-11s %s\n",
	       width, r->driver, r->req_size, r->depth, r->requests, r->bytes, cp_mod_mb_per_s(r),
	       cp_mod_ops_per_s(r), cp_mod_ns_per_request(r), cp_mod_cpu_ns_per_byte(r),
	       r->max_in_flight, ratio, cp_mod_kat_to_string(r->kat),
	       r->reference[0] ? r->reference : "-");
}

/* The implementations @patterns name: 0, or the exit code after saying why there are none. */
static int find_targets(char **patterns, int n_patterns, enum cryptoprio_type type,
			struct target **ret, size_t *ret_n)
{
	_cleanup_(cp_inventory_free) struct cp_inventory inv = {0};
	int r;

	r = cp_inventory_load(&inv);
	if (r < 0)
		return ctl_errno(r, NULL, "calibrate: cannot read the kernel's implementations");
	r = select_targets(&inv, patterns, n_patterns, type, ret, ret_n);
	if (r < 0)
		return ctl_errno(r, NULL, "calibrate");
	if (*ret_n == 0)
		return ctl_error("calibrate: no skcipher, aead, hash, compression, rsa or key "
				 "agreement implementation matches");
	return 0;
}

static json_object *error_json(const char *driver, uint32_t size, int r, const char *extack)
{
	json_object *e = json_object_new_object();

	json_object_object_add(e, "driver", json_object_new_string(driver));
	json_object_object_add(e, "size", json_object_new_int64(size));
	json_object_object_add(e, "error", json_object_new_string(strerror(-r)));
	json_object_object_add(e, "message", extack[0] ? json_object_new_string(extack) : NULL);
	return e;
}

/* Where the figures go: a table on stdout, or arrays of a JSON document. */
struct output {
	json_object *doc, *results, *errors;
	int driver_width; /* of the table */
};

static void output_start(const struct ctl *ctl, const struct target *targets, size_t n,
			 struct output *out)
{
	if (!ctl->json) {
		out->driver_width = driver_width(targets, n);
		print_header(out->driver_width);
		return;
	}
	out->doc = json_object_new_object();
	out->results = json_object_new_array();
	out->errors = json_object_new_array();
	json_object_object_add(out->doc, "backend", json_object_new_string("module"));
	json_object_object_add(out->doc, "results", out->results);
	json_object_object_add(out->doc, "errors", out->errors);
}

/* One target at one size: 0, or the negative errno the module answered (said). */
static int measure(struct cp_nl *nl, const struct calibrate_args *o, const struct target *t,
		   uint32_t size, struct output *out)
{
	const struct cp_type_info *type = cp_type_info(t->type);
	struct cp_mod_calib_req req = {
	    .driver = t->driver,
	    .type = t->type,
	    .decrypt = o->decrypt && !(type && type->one_way),
	    .key_size = o->key_size,
	    .req_size = size,
	    .depth = o->depth,
	    .budget_ns = o->budget_ns,
	};
	struct cp_mod_calib_result res;
	int r = cp_mod_calibrate(nl, &req, &res);

	if (r >= 0) {
		if (out->doc)
			json_object_array_add(out->results, result_json(t, &res));
		else
			print_row(&res, out->driver_width);
		return 0;
	}
	if (out->doc)
		json_object_array_add(out->errors, error_json(t->driver, size, r, nl->extack));
	(void) ctl_errno(r, nl->extack, "calibrate %s at %" PRIu32 " bytes", t->driver, size);
	return r;
}

int calibrate_raw(struct ctl *ctl, int argc, char **argv)
{
	struct calibrate_args o = {
	    .sizes = {DEFAULT_SIZE},
	    .n_sizes = 1,
	    .depth = 1,
	    .budget_ns = DEFAULT_BUDGET_MS * UINT64_C(1000000),
	    .type = CRYPTOPRIO_TYPE_SKCIPHER,
	};
	_cleanup_(cp_nl_close) struct cp_nl nl = {};
	_cleanup_free_ struct target *targets = NULL;
	struct ctl_modules modules;
	struct output out = {};
	json_object *loaded;
	size_t n_targets = 0;
	uint16_t family;
	int r, failed = 0;

	ctl_json_set_verb("calibrate --raw");
	r = calibrate_parse_args(ctl, argc, argv, true, &o);
	if (r == 0 && !cp_have_net_admin())
		r = ctl_error("calibrate: needs CAP_NET_ADMIN (run as root); nothing measured");
	if (r == 0)
		r = ctl_open_module("calibrate", &nl, &family);
	if (r == 0)
		r = find_targets(argv + optind, argc - optind, o.type, &targets, &n_targets);
	if (r != 0)
		return r;
	/* a driver name not registered is built, loading what it needs: said after */
	ctl_modules_snapshot(&modules);
	output_start(ctl, targets, n_targets, &out);
	for (size_t i = 0; i < n_targets; i++) {
		/*
		 * an RSA request is one modulus long, a key agreement's one peer
		 * public key, unless asked otherwise
		 */
		uint32_t fixed =
		    o.sizes_given ? 0 : cp_mod_request_size(targets[i].type, targets[i].name);
		const uint32_t *sizes = fixed ? &fixed : o.sizes;

		for (size_t s = 0; s < (fixed ? 1 : o.n_sizes); s++) {
			r = measure(&nl, &o, &targets[i], sizes[s], &out);
			failed |= r < 0;
			if (r == -EPERM || r == -EACCES)
				goto done; /* the same for every other one */
		}
	}
done:
	loaded = ctl_modules_loaded(ctl, "calibrate", &modules);
	if (out.doc) {
		json_object_object_add(out.doc, "modules_loaded", loaded);
		ctl_json_print(out.doc);
	} else {
		json_object_put(loaded);
	}
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
