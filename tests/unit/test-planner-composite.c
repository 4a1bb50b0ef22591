/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The planner on the LX2160A inventory (CAAM job ring and QI2 beside the
 * arm64 CE drivers): the CPU's composite for each name only the engines
 * serve is created ahead of them under the default policy, and not at all
 * where it would not come first (Gears = offload cpu, Exclude = yes) or
 * where the kernel could not address it.
 */
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "composite.h"
#include "macro.h"
#include "planner.h"
#include "policy.h"
#include "proc-fixture.h"
#include "policy-fixture.h"
#include "tap.h"
#include "types.h"

#define MAX_NAMES 256

/* The authenc() every LX2160A CAAM serves and the CPU does not register. */
#define AUTHENC		  "authenc(hmac(sha256),cbc(aes))"
#define AUTHENC_CANDIDATE "authenc(hmac(sha256-ce),cbc-aes-ce)"

/*
 * A record, unmeasured, of each engine of @inv that the module verified
 * (a type the calibration verifies: skcipher, aead), into @ms (room for
 * every alg): their number. Without it, an engine of such a type is never
 * above the CPU.
 */
static size_t verified_engines(const struct cp_inventory *inv, struct cp_measurement *ms)
{
	size_t n = 0;

	for (size_t i = 0; i < inv->n_algs; i++) {
		if (inv->algs[i].class != CP_CLASS_OFFLOAD ||
		    !cp_verification_covers(cp_mod_type_from_alg_type(inv->algs[i].type)))
			continue;
		ms[n] = (struct cp_measurement){.request_size = CP_DEFAULT_REQUEST_SIZE,
						.in_flight = 1,
						.state = CP_MEASUREMENT_NOT_MEASURED,
						.verified = true};
		snprintf(ms[n].driver, sizeof(ms[n].driver), "%s", inv->algs[i].driver);
		n++;
	}
	return n;
}

/*
 * The plan of @inv under @policy_text, knowing the instances @created, its
 * engines verified unless @unverified.
 */
static struct cp_plan *plan_verified(const struct cp_inventory *inv, const char *policy_text,
				     bool unverified, char *const *created, size_t n_created)
{
	_cleanup_(cp_policy_freep) struct cp_policy *p = policy_from(policy_text);
	_cleanup_free_ struct cp_measurement *ms = calloc(inv->n_algs + 1, sizeof(*ms));
	size_t n = ms && !unverified ? verified_engines(inv, ms) : 0;
	struct cp_plan *plan = NULL;

	if (!ms || cp_plan_build_created(inv, ms, n, p, created, n_created, &plan) < 0)
		abort();
	return plan;
}

static struct cp_plan *plan_of(const struct cp_inventory *inv, const char *policy_text)
{
	return plan_verified(inv, policy_text, false, NULL, 0);
}

static bool planned_type(const char *type)
{
	return strcmp(type, "skcipher") == 0 || strcmp(type, "aead") == 0 ||
	       strcmp(type, "shash") == 0 || strcmp(type, "ahash") == 0 ||
	       strcmp(type, "cipher") == 0;
}

static bool listed(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

/* Names an engine registers natively (planned types) of which the CPU registers nothing. */
static size_t engine_only_names(const struct cp_inventory *inv, const char *names[MAX_NAMES])
{
	size_t n = 0;

	for (size_t i = 0; i < inv->n_algs; i++) {
		const struct cp_alg *alg = &inv->algs[i];

		if (alg->class != CP_CLASS_OFFLOAD || !cp_alg_competes(alg) ||
		    cp_driver_is_template_instance(alg->driver) || !planned_type(alg->type) ||
		    fixture_cpu_registers(inv, alg->name) || listed(names, n, alg->name))
			continue;
		if (n == MAX_NAMES)
			abort();
		names[n++] = alg->name;
	}
	return n;
}

static size_t create_steps(const struct cp_plan *plan)
{
	size_t n = 0;

	for (size_t i = 0; i < plan->n_steps; i++)
		n += plan->steps[i].action == CP_STEP_CREATE;
	return n;
}

static const struct cp_plan_step *create_step(const struct cp_plan *plan, const char *name)
{
	for (size_t i = 0; i < plan->n_steps; i++)
		if (plan->steps[i].action == CP_STEP_CREATE &&
		    strcmp(plan->steps[i].name, name) == 0)
			return &plan->steps[i];
	return NULL;
}

static const char *created_driver(const struct cp_plan *plan, const char *name)
{
	const struct cp_plan_step *s = create_step(plan, name);

	return s ? s->driver : "(none)";
}

static bool first_is_created(const struct cp_plan *plan, const char *name)
{
	const struct cp_plan_algorithm *a = cp_plan_find_algorithm(plan, name);

	return a && a->n_places > 0 && a->places[0].create;
}

static const char *first_place(const struct cp_plan *plan, const char *name)
{
	const struct cp_plan_algorithm *a = cp_plan_find_algorithm(plan, name);

	return a && a->n_places > 0 ? a->places[0].driver : "(none)";
}

static bool has_steps(const struct cp_plan *plan, const char *name)
{
	for (size_t i = 0; i < plan->n_steps; i++)
		if (strcmp(plan->steps[i].name, name) == 0)
			return true;
	return false;
}

static size_t places_to_create(const struct cp_plan *plan)
{
	size_t n = 0;

	for (size_t a = 0; a < plan->n_algorithms; a++)
		for (size_t k = 0; k < plan->algorithms[a].n_places; k++)
			n += plan->algorithms[a].places[k].create;
	return n;
}

/*
 * The create step of @name is last among its steps (the engines are
 * touched before it, keeping their values), and the planned value puts it
 * first.
 */
static bool created_first(const struct cp_plan *plan, const char *name)
{
	const struct cp_plan_step *create = create_step(plan, name);
	const struct cp_plan_algorithm *a = cp_plan_find_algorithm(plan, name);

	if (!create || !a || a->n_places < 2)
		return false;
	for (size_t i = 0; i < plan->n_steps; i++) {
		const struct cp_plan_step *s = &plan->steps[i];

		if (strcmp(s->name, name) != 0 || s == create)
			continue;
		if (s > create || s->action != CP_STEP_TOUCH)
			return false;
	}
	for (size_t k = 1; k < a->n_places; k++)
		if (a->places[k].create || a->places[k].old_priority >= create->new_priority ||
		    !cp_plan_find_step(plan, a->places[k].driver))
			return false;
	return a->places[0].create && strcmp(a->places[0].driver, create->driver) == 0 &&
	       a->places[0].class == CP_CLASS_CPU && a->places[0].old_priority == 0 &&
	       a->places[0].new_priority == create->new_priority;
}

/*
 * A priority set makes the kernel remove the instances built on that
 * implementation: no set or touch after a create, and every create after
 * the creates of its parts (shorter driver names).
 */
static bool creates_after_sets(const struct cp_plan *plan)
{
	const struct cp_plan_step *prev_create = NULL;

	for (size_t i = 0; i < plan->n_steps; i++) {
		const struct cp_plan_step *s = &plan->steps[i];

		if (s->action == CP_STEP_SET || s->action == CP_STEP_TOUCH) {
			if (prev_create) {
				diag("%s set after %s was created", s->driver, prev_create->driver);
				return false;
			}
		} else if (s->action == CP_STEP_CREATE) {
			if (prev_create && strlen(prev_create->driver) > strlen(s->driver)) {
				diag("%s created after %s", s->driver, prev_create->driver);
				return false;
			}
			prev_create = s;
		}
	}
	return prev_create != NULL;
}

static bool why_says(const struct cp_plan_step *step, const char *text)
{
	if (step && strstr(step->why, text))
		return true;
	diag("why: %s", step ? step->why : "(no step)");
	return false;
}

static void test_default_policy(const struct cp_inventory *inv)
{
	_cleanup_(cp_plan_freep) struct cp_plan *plan = plan_of(inv, NULL);
	const char *names[MAX_NAMES];
	size_t n = engine_only_names(inv, names), first = 0, spelled = 0;

	ok(n > 0, "LX2160A: %zu names only the engines serve", n);
	is_int(create_steps(plan), n, "default policy: one create step per such name");
	is_int(places_to_create(plan), n, "and as many places marked to be created");
	for (size_t i = 0; i < n; i++) {
		const struct cp_plan_step *s = create_step(plan, names[i]);
		char candidate[CP_NAME_MAX] = "";

		if (s && cp_composite_candidate(inv, names[i], candidate) == 0 &&
		    strcmp(s->driver, candidate) == 0)
			spelled++;
		else
			diag("%s: no create step for '%s'", names[i], candidate);
		if (created_first(plan, names[i]))
			first++;
		else
			diag("%s: the candidate is not first, or an engine is not touched after it",
			     names[i]);
	}
	is_int(spelled, n, "each such name: the candidate's driver name created");
	is_int(first, n, "each candidate first, above the engines, created after their touches");
	ok(creates_after_sets(plan), "creates after every set and touch, innermost first");
	ok(why_says(create_step(plan, AUTHENC), "the CPU's composite, built from its parts") &&
	       why_says(create_step(plan, AUTHENC), "no CPU implementation of " AUTHENC),
	   "the create says why");
	ok(why_says(cp_plan_find_step(plan, "authenc-hmac-sha256-cbc-aes-caam"),
		    "lost its place to " AUTHENC_CANDIDATE),
	   "the engine's touch names the candidate");
}

/* The CPU registers gcm(aes) and rfc4106(gcm(aes)) on this board: ranked, not created. */
static void test_registered_on_cpu(const struct cp_inventory *inv)
{
	_cleanup_(cp_plan_freep) struct cp_plan *plan = plan_of(inv, NULL);
	static const char *const names[] = {"gcm(aes)", "rfc4106(gcm(aes))"};
	static const char *const cpu_drivers[] = {"gcm-aes-ce", "rfc4106-gcm-aes-ce"};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		ok(cp_inventory_find_driver(inv, cpu_drivers[i]), "fixture: %s registered",
		   cpu_drivers[i]);
		ok(!create_step(plan, names[i]), "%s: nothing created", names[i]);
		is_str(first_place(plan, names[i]), cpu_drivers[i], "%s: %s ranked first", names[i],
		       cpu_drivers[i]);
	}
	ok(create_step(plan, AUTHENC), "while " AUTHENC " is created");
}

/* Offload first: no candidate would come first, so none is, unless pinned first. */
static void test_offload_first(const struct cp_inventory *inv)
{
	_cleanup_(cp_plan_freep) struct cp_plan *plan =
	    plan_of(inv, "[Policy]\nGears = offload cpu\n");
	_cleanup_(cp_plan_freep) struct cp_plan *pinned = NULL;

	is_int(create_steps(plan), 0, "Gears = offload cpu: nothing created");
	is_int(places_to_create(plan), 0, "Gears = offload cpu: no place to create");
	is_int(plan->n_steps, 0, "Gears = offload cpu: the engines already in order");
	pinned = plan_of(inv, "[Policy]\nGears = offload cpu\n[Driver " AUTHENC_CANDIDATE "]\n"
			      "Pin = first\n");
	is_int(create_steps(pinned), 1, "Gears = offload cpu: only a candidate pinned first");
	ok(created_first(pinned, AUTHENC), "that one first, the engines touched before it");
}

/*
 * Offload first, the engines never verified: a skcipher or AEAD engine is
 * held after the CPU, so the CPU's composite of a name only engines serve
 * comes first and is created (the CAAM's authenc() too).
 */
static void test_offload_first_unverified(const struct cp_inventory *inv)
{
	_cleanup_(cp_plan_freep) struct cp_plan *plan =
	    plan_verified(inv, "[Policy]\nGears = offload cpu\n", true, NULL, 0);
	size_t skciphers = 0, held = 0;

	for (size_t i = 0; i < plan->n_steps; i++) {
		const struct cp_plan_step *s = &plan->steps[i];
		const struct cp_alg *a = cp_inventory_find_driver(inv, s->driver);

		skciphers += s->action == CP_STEP_CREATE && !a;
		held += a && a->class == CP_CLASS_OFFLOAD && strstr(s->why, "not verified");
	}
	ok(skciphers > 0, "Gears = offload cpu, engines not verified: CPU composites created (%zu)",
	   skciphers);
	ok(held > 0, "the engines' steps say why: not verified (%zu)", held);
	ok(create_step(plan, AUTHENC), AUTHENC ": its AEAD engines held, the CPU's created");
}

/*
 * @driver measured at the default workload point at @mbps (noise 1 MB/s),
 * by a calibration that verified it.
 */
static struct cp_measurement measured_at(const char *driver, double mbps)
{
	struct cp_measurement m = {
	    .request_size = CP_DEFAULT_REQUEST_SIZE,
	    .in_flight = 1,
	    .state = CP_MEASUREMENT_MEASURED,
	    .verified = true,
	    .throughput = {mbps, 1},
	    .latency = {1e9 / mbps, 1},
	    .cpu_cost = {1000 / mbps, 0.01},
	};

	snprintf(m.driver, sizeof(m.driver), "%s", driver);
	return m;
}

static struct cp_plan *plan_measured(const struct cp_inventory *inv, double candidate_mbps)
{
	_cleanup_(cp_policy_freep) struct cp_policy *p = policy_from("[Policy]\nGears = any\n");
	const struct cp_measurement ms[] = {
	    measured_at("authenc-hmac-sha256-cbc-aes-caam", 120),
	    measured_at("authenc-hmac-sha256-cbc-aes-caam-qi2", 100),
	    measured_at(AUTHENC_CANDIDATE, candidate_mbps),
	};
	struct cp_plan *plan = NULL;

	if (cp_plan_build(inv, ms, ARRAY_SIZE(ms), p, &plan) < 0)
		abort();
	return plan;
}

/*
 * Gears = any: the candidate measured (calibrate creates it for its runs)
 * is ranked by its figures like the engines. Faster, it is created first;
 * slower, the engines keep the name and nothing is created.
 */
static void test_ranked_by_figures(const struct cp_inventory *inv)
{
	_cleanup_(cp_plan_freep) struct cp_plan *faster = plan_measured(inv, 900);
	_cleanup_(cp_plan_freep) struct cp_plan *slower = plan_measured(inv, 50);
	const struct cp_plan_algorithm *a = cp_plan_find_algorithm(faster, AUTHENC);

	ok(created_first(faster, AUTHENC),
	   "Gears = any, faster: created, the engines touched before");
	ok(a && a->n_places == 3 && a->places[0].create && a->places[0].reason == CP_PLACE_RANKED,
	   "ranked first by its figures");
	ok(a && a->n_places == 3 && strstr(a->places[0].why, "900.00 MB/s"),
	   "its place says its figure");
	a = cp_plan_find_algorithm(slower, AUTHENC);
	ok(!create_step(slower, AUTHENC), "Gears = any, slower: not created");
	ok(!has_steps(slower, AUTHENC), "the engines keep the name as they are");
	ok(a && a->n_places == 2 && !a->places[0].create && !a->places[1].create &&
	       a->places[0].reason == CP_PLACE_RANKED,
	   "the name planned as without a candidate, ranked by figures");
}

/* A [Driver] rule matches the candidate's driver name: excluded, it is not created. */
static void test_excluded(const struct cp_inventory *inv)
{
	_cleanup_(cp_plan_freep) struct cp_plan *all = plan_of(inv, NULL);
	_cleanup_(cp_plan_freep) struct cp_plan *plan =
	    plan_of(inv, "[Driver " AUTHENC_CANDIDATE "]\nExclude = yes\n");
	const struct cp_plan_algorithm *a = cp_plan_find_algorithm(plan, AUTHENC);

	ok(create_step(all, AUTHENC), "without the rule " AUTHENC_CANDIDATE " is created");
	ok(!create_step(plan, AUTHENC), "Exclude = yes: " AUTHENC_CANDIDATE " not created");
	ok(!has_steps(plan, AUTHENC), "nor are the engines of " AUTHENC " touched");
	ok(a && a->n_places == 2 && !a->places[0].create && !a->places[1].create,
	   AUTHENC ": the two engines planned as without a candidate");
	is_int(create_steps(plan), create_steps(all) - 1, "the other candidates still created");
}

/* @inv with a CPU sha512 of a long driver name winning the CPU's sha512. */
static void with_long_sha512(const struct cp_inventory *inv, struct cp_inventory *out)
{
	struct cp_alg sha512 = {
	    .name = "sha512",
	    .driver = "sha512-arm64-neon-interleaved-4way",
	    .module = "sha512_4way",
	    .type = "shash",
	    .priority = 400,
	    .flags = CP_ALG_TESTED,
	    .class = CP_CLASS_CPU,
	};

	*out = (struct cp_inventory){};
	for (size_t i = 0; i < inv->n_algs; i++)
		if (cp_inventory_add(out, &inv->algs[i]) < 0)
			abort();
	if (cp_inventory_add(out, &sha512) < 0)
		abort();
}

static bool noted(const struct cp_plan *plan, const char *a, const char *b)
{
	for (size_t i = 0; i < plan->n_notes; i++)
		if (strstr(plan->notes[i], a) && strstr(plan->notes[i], b))
			return true;
	return false;
}

/* A candidate the kernel could not address (64 bytes or more): a note, nothing planned for it. */
static void test_too_long(const struct cp_inventory *inv)
{
	static const char long_name[] = "authenc(hmac(sha512),cbc(des3_ede))";
	_cleanup_(cp_plan_freep) struct cp_plan *plan = NULL;
	struct cp_inventory long_sha;

	with_long_sha512(inv, &long_sha);
	plan = plan_of(&long_sha, NULL);
	ok(noted(plan, long_name, "cannot be addressed by the kernel"),
	   "%s: noted as not addressable", long_name);
	ok(!has_steps(plan, long_name), "%s: no step at all", long_name);
	ok(!first_is_created(plan, long_name), "%s: no place to create", long_name);
	is_str(created_driver(plan, "hmac(sha512)"), "hmac(sha512-arm64-neon-interleaved-4way)",
	       "hmac(sha512): its shorter candidate still created");
	cp_inventory_free(&long_sha);
}

/*
 * A name only engines serve whose candidate lacks a part (md5's module not
 * loaded): a note naming the part, nothing planned for it.
 */
static void test_part_missing(const struct cp_inventory *inv)
{
	static const char name[] = "authenc(hmac(md5),cbc(aes))";
	_cleanup_(cp_plan_freep) struct cp_plan *plan = NULL;
	struct cp_inventory no_md5 = {};

	for (size_t i = 0; i < inv->n_algs; i++)
		if (strcmp(inv->algs[i].driver, "md5-generic") != 0 &&
		    cp_inventory_add(&no_md5, &inv->algs[i]) < 0)
			abort();
	plan = plan_of(&no_md5, NULL);
	ok(noted(plan, name, "no CPU implementation of md5 is registered"),
	   "%s, no md5 on the CPU: noted, md5 named", name);
	ok(!first_is_created(plan, name), "%s: no place to create", name);
	ok(!noted(plan, "hmac(sha1)", "no CPU implementation"),
	   "hmac(sha1), its parts registered: no such note");
	cp_plan_free(plan);
	plan = plan_of(inv, NULL);
	ok(!noted(plan, name, "no CPU implementation"), "%s, md5 registered: no such note", name);
	cp_inventory_free(&no_md5);
}

/* @plan carried out on @inv into @applied: creates registered as the kernel would list them. */
static size_t carry_out(const struct cp_inventory *inv, const struct cp_plan *plan,
			struct cp_inventory *applied, char *created[MAX_NAMES])
{
	size_t n = 0;

	*applied = (struct cp_inventory){};
	for (size_t i = 0; i < inv->n_algs; i++) {
		struct cp_alg alg = inv->algs[i];
		const struct cp_plan_step *s = cp_plan_find_step(plan, alg.driver);

		alg.priority = s ? s->new_priority : alg.priority;
		if (cp_inventory_add(applied, &alg) < 0)
			abort();
	}
	for (size_t i = 0; i < plan->n_steps; i++) {
		const struct cp_plan_step *s = &plan->steps[i];
		struct cp_alg alg = {.priority = s->new_priority, .flags = CP_ALG_TESTED};

		if (s->action != CP_STEP_CREATE)
			continue;
		memcpy(alg.name, s->name, sizeof(alg.name));
		memcpy(alg.driver, s->driver, sizeof(alg.driver));
		memcpy(alg.type, cp_plan_find_algorithm(plan, s->name)->type, sizeof(alg.type));
		if (cp_inventory_add(applied, &alg) < 0 || n == MAX_NAMES)
			abort();
		created[n++] = (char *) s->driver;
	}
	cp_classify(applied, NULL);
	return n;
}

static struct cp_plan *plan_created(const struct cp_inventory *inv, const char *policy_text,
				    char *const *created, size_t n_created)
{
	return plan_verified(inv, policy_text, false, created, n_created);
}

static size_t steps_of(const struct cp_plan *plan, enum cp_step_action action)
{
	size_t n = 0;

	for (size_t i = 0; i < plan->n_steps; i++)
		n += plan->steps[i].action == action;
	return n;
}

/* Every removal after the other steps, and an instance before the parts it is built on. */
static bool removals_in_order(const struct cp_plan *plan)
{
	for (size_t i = 0; i < plan->n_steps; i++)
		for (size_t j = i + 1; j < plan->n_steps; j++) {
			const struct cp_plan_step *a = &plan->steps[i], *b = &plan->steps[j];

			if (a->action == CP_STEP_REMOVE &&
			    (b->action != CP_STEP_REMOVE || strstr(b->driver, a->driver)))
				return false;
		}
	return true;
}

/* The plan carried out, then planned again: with the state's list of created instances, too. */
static void test_replan(const struct cp_inventory *inv)
{
	_cleanup_(cp_plan_freep) struct cp_plan *plan = plan_of(inv, NULL), *again = NULL,
						*owned = NULL;
	struct cp_inventory applied;
	const char *names[MAX_NAMES];
	char *created[MAX_NAMES];
	size_t winners = 0, n_created = carry_out(inv, plan, &applied, created);

	for (size_t i = 0; i < plan->n_steps; i++) {
		const struct cp_alg *w = cp_inventory_winner(&applied, plan->steps[i].name);

		winners += plan->steps[i].action == CP_STEP_CREATE && w &&
			   strcmp(w->driver, plan->steps[i].driver) == 0;
	}
	is_int(winners, engine_only_names(inv, names),
	       "carried out: each name's created candidate is the kernel's winner");
	again = plan_of(&applied, NULL);
	is_int(again->n_steps, 0, "planning again: nothing left to do");
	owned = plan_created(&applied, NULL, created, n_created);
	is_int(owned->n_steps, 0, "planning again knowing what was created: nothing left to do");
	ok(first_place(owned, AUTHENC) &&
	       strcmp(first_place(owned, AUTHENC), AUTHENC_CANDIDATE) == 0 &&
	       !first_is_created(owned, AUTHENC),
	   "the created instance is planned first, as registered");
	cp_inventory_free(&applied);
}

/* The policy changed: the instances created are removed where they no longer come first. */
static void test_policy_changed(const struct cp_inventory *inv)
{
	_cleanup_(cp_plan_freep) struct cp_plan *plan = plan_of(inv, NULL), *offload = NULL,
						*unknown = NULL, *excluded = NULL, *any = NULL,
						*fresh = NULL;
	const struct cp_plan_step *s;
	struct cp_inventory applied;
	char *created[MAX_NAMES];
	size_t n_created = carry_out(inv, plan, &applied, created);

	offload = plan_created(&applied, "[Policy]\nGears = offload cpu\n", created, n_created);
	is_int(steps_of(offload, CP_STEP_REMOVE), n_created,
	       "Gears = offload cpu: each created instance removed");
	unknown = plan_created(&applied, "[Policy]\nGears = offload cpu\n", NULL, 0);
	is_int(steps_of(unknown, CP_STEP_REMOVE), 0,
	       "not known as created: a template instance, left alone");
	is_int(offload->n_steps, unknown->n_steps + n_created,
	       "the other steps: those of the names planned without them");
	ok(removals_in_order(offload), "an instance removed before the instance it is built on");
	s = cp_plan_find_step(offload, AUTHENC_CANDIDATE);
	ok(s && s->action == CP_STEP_REMOVE && s->new_priority == CP_IN_USE_PRIORITY &&
	       s->old_priority == cp_inventory_find_driver(&applied, AUTHENC_CANDIDATE)->priority,
	   "the removal: from its priority, to %u while in use", CP_IN_USE_PRIORITY);
	ok(why_says(s, "created by cryptoprio, now behind authenc-hmac-sha256-cbc-aes-"),
	   "the removal says which engine comes first now");
	is_str(first_place(offload, AUTHENC), "authenc-hmac-sha256-cbc-aes-caam",
	       "the name planned without it");

	any = plan_created(&applied, "[Policy]\nGears = any\nCalibrate = never\n", created,
			   n_created);
	fresh = plan_of(inv, "[Policy]\nGears = any\nCalibrate = never\n");
	ok(steps_of(fresh, CP_STEP_CREATE) == 0 && steps_of(any, CP_STEP_REMOVE) == n_created,
	   "the kernel's order kept (Gears = any, Calibrate = never): nothing a plan would create "
	   "now, so each created instance is removed, not kept for its priority");
	excluded = plan_created(&applied, "[Driver " AUTHENC_CANDIDATE "]\nExclude = yes\n",
				created, n_created);
	is_int(excluded->n_steps, 1, "Exclude = yes on one created instance: one step");
	s = cp_plan_find_step(excluded, AUTHENC_CANDIDATE);
	ok(s && s->action == CP_STEP_REMOVE, "its removal");
	cp_inventory_free(&applied);
}

/*
 * A created instance left in use, lowered: the policy wanting it again
 * raises it, and creates again only what that set retires.
 */
static void test_lowered_raised(const struct cp_inventory *inv)
{
	_cleanup_(cp_plan_freep) struct cp_plan *plan = plan_of(inv, NULL), *again = NULL;
	const struct cp_plan_step *s;
	struct cp_inventory applied;
	char *created[MAX_NAMES];
	size_t n_created = carry_out(inv, plan, &applied, created);

	((struct cp_alg *) cp_inventory_find_driver(&applied, AUTHENC_CANDIDATE))->priority =
	    CP_IN_USE_PRIORITY;
	again = plan_created(&applied, NULL, created, n_created);
	s = cp_plan_find_step(again, AUTHENC_CANDIDATE);
	ok(s && s->action == CP_STEP_SET && s->old_priority == CP_IN_USE_PRIORITY &&
	       s->new_priority == cp_plan_find_step(plan, AUTHENC_CANDIDATE)->new_priority,
	   "lowered while in use, wanted first again: set back to its place");
	is_int(steps_of(again, CP_STEP_REMOVE), 0, "nothing removed");
	s = cp_plan_find_step(again, "echainiv(" AUTHENC_CANDIDATE ")");
	ok(s && s->action == CP_STEP_CREATE && steps_of(again, CP_STEP_CREATE) == 1,
	   "only the echainiv built on it created again: the set retires it");
	cp_inventory_free(&applied);
}

/*
 * A part of created instances set again (a fixed Priority= on sha256-ce):
 * the kernel retires every instance built on it, so the plan creates them
 * again after the set, innermost first, at the priority they have, and
 * leaves the others alone.
 */
static void test_part_set(const struct cp_inventory *inv)
{
	_cleanup_(cp_plan_freep) struct cp_plan *plan = plan_of(inv, NULL), *again = NULL;
	struct cp_inventory applied;
	char *created[MAX_NAMES];
	size_t n_created = carry_out(inv, plan, &applied, created), on_part = 0, recreated = 0,
	       in_order = 0, kept_priority = 0;
	const struct cp_plan_step *set;

	again = plan_created(&applied, "[Driver sha256-ce]\nPriority = 250\n", created, n_created);
	set = cp_plan_find_step(again, "sha256-ce");
	ok(set && set->action == CP_STEP_SET && set->new_priority == 250, "sha256-ce set to 250");
	for (size_t i = 0; i < n_created; i++) {
		const struct cp_plan_step *s = cp_plan_find_step(again, created[i]);
		bool built_on =
		    strstr(created[i], "(sha256-ce)") || strstr(created[i], "(sha256-ce,");

		on_part += built_on;
		if (!s)
			continue;
		recreated += built_on && s->action == CP_STEP_CREATE;
		in_order += s > set;
		kept_priority +=
		    s->new_priority == cp_inventory_find_driver(&applied, created[i])->priority;
	}
	ok(on_part >= 3, "%zu created instances are built on sha256-ce (hmac, authenc, echainiv)",
	   on_part);
	is_int(recreated, on_part, "each of them created again");
	is_int(again->n_steps, 1 + on_part, "and nothing else: the others are not built on it");
	is_int(in_order, on_part, "after the set that retires them");
	is_int(kept_priority, on_part, "at the priority each has");
	ok(why_says(cp_plan_find_step(again, AUTHENC_CANDIDATE),
		    "created again: sha256-ce, one of its parts, is set before"),
	   "the create says why");
	cp_inventory_free(&applied);
}

int main(void)
{
	struct cp_inventory inv;

	load_fixture("proc-crypto-lx2160a.txt", &inv);
	test_default_policy(&inv);
	test_registered_on_cpu(&inv);
	test_offload_first(&inv);
	test_offload_first_unverified(&inv);
	test_excluded(&inv);
	test_ranked_by_figures(&inv);
	test_too_long(&inv);
	test_part_missing(&inv);
	test_replan(&inv);
	test_policy_changed(&inv);
	test_lowered_raised(&inv);
	test_part_set(&inv);
	cp_inventory_free(&inv);
	return done_testing();
}
