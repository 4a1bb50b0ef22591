/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The AF_ALG calibration backend (afalg.h) over libkcapi: one bound
 * transform and thread per request in flight, checked against a reference.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>
#include <pthread.h>
#include <kcapi.h>

#include "afalg.h"
#include "cpustat.h"
#include "macro.h"

#define AEAD_ASSOC_LEN 16
#define AEAD_TAG_LEN   16
#define HMAC_KEY_LEN   32
#define MAX_KEY_BLOB   128
#define MAX_OUT_EXTRA  (AEAD_ASSOC_LEN + AEAD_TAG_LEN + 64)

/* One bound AF_ALG transform and the buffers of one request. */
struct afalg {
	struct kcapi_handle *handle;
	enum cp_afalg_iface iface; /* of the request's type (types.c) */
	bool decrypt;
	uint32_t req_size;
	uint8_t iv[64];
	uint8_t *in, *out; /* in_len / out_len bytes */
	size_t in_len, out_len;
};

static void afalg_close(struct afalg *a)
{
	if (a->handle && a->iface == CP_AFALG_SKCIPHER)
		kcapi_cipher_destroy(a->handle);
	else if (a->handle && a->iface == CP_AFALG_AEAD)
		kcapi_aead_destroy(a->handle);
	else if (a->handle)
		kcapi_md_destroy(a->handle);
	free(a->in);
	free(a->out);
	memset(a, 0, sizeof(*a));
}

static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/*
 * AEAD keys as the kernel wants them (cryptoprio(4)): authenc in its rtattr
 * format with an HMAC_KEY_LEN authentication key, salted nonce modes with
 * their salt after the key. @name is the algorithm's name.
 */
static size_t aead_key(const char *name, const uint8_t *random, uint32_t key_size, uint8_t *blob)
{
	if (has_prefix(name, "authenc(") || has_prefix(name, "authencesn(")) {
		/* struct rtattr { u16 len; u16 type = CRYPTO_AUTHENC_KEYA_PARAM; } + be32 */
		uint16_t rta[2] = {8, 1};
		uint32_t enckeylen = htobe32(key_size);

		memcpy(blob, rta, 4);
		memcpy(blob + 4, &enckeylen, 4);
		memcpy(blob + 8, random + key_size, HMAC_KEY_LEN);
		memcpy(blob + 8 + HMAC_KEY_LEN, random, key_size);
		return 8 + HMAC_KEY_LEN + key_size;
	}
	memcpy(blob, random, key_size);
	if (has_prefix(name, "rfc4106(") || has_prefix(name, "rfc4543("))
		return key_size + 4;
	if (has_prefix(name, "rfc4309("))
		return key_size + 3;
	return key_size;
}

static int set_key(struct afalg *a, const char *name, const uint8_t *random, uint32_t key_size)
{
	uint8_t blob[MAX_KEY_BLOB];

	if (a->iface == CP_AFALG_SKCIPHER)
		return kcapi_cipher_setkey(a->handle, random, key_size);
	if (a->iface == CP_AFALG_AEAD)
		return kcapi_aead_setkey(a->handle, blob,
					 (uint32_t) aead_key(name, random, key_size, blob));
	return kcapi_md_setkey(a->handle, random, key_size);
}

static int bind_driver(struct afalg *a, const char *driver)
{
	int r;

	if (a->iface == CP_AFALG_SKCIPHER)
		r = kcapi_cipher_init(&a->handle, driver, 0);
	else if (a->iface == CP_AFALG_AEAD)
		r = kcapi_aead_init(&a->handle, driver, 0);
	else
		r = kcapi_md_init(&a->handle, driver, 0);
	return r < 0 ? r : 0;
}

static int alloc_buffers(struct afalg *a, size_t out_len)
{
	a->in_len = a->req_size;
	a->out_len = out_len;
	if (a->iface == CP_AFALG_AEAD) {
		kcapi_aead_setassoclen(a->handle, AEAD_ASSOC_LEN);
		if (kcapi_aead_settaglen(a->handle, AEAD_TAG_LEN) < 0)
			return -EINVAL;
		a->in_len = AEAD_ASSOC_LEN + a->req_size;
		a->out_len = AEAD_ASSOC_LEN + a->req_size + AEAD_TAG_LEN;
	}
	a->in = calloc(1, a->in_len);
	a->out = calloc(1, a->out_len);
	if (!a->in || !a->out)
		return -ENOMEM;
	if (getrandom(a->in, a->in_len, 0) < 0 || getrandom(a->iv, sizeof(a->iv), 0) < 0)
		return negative_errno();
	a->iv[0] = 3; /* CCM: L' = 3; any IV for the others */
	return 0;
}

/* One request, synchronously: AF_ALG's own sendmsg + read. */
static ssize_t run_once(struct afalg *a)
{
	if (a->iface == CP_AFALG_HASH)
		return kcapi_md_digest(a->handle, a->in, a->in_len, a->out, a->out_len);
	if (a->iface == CP_AFALG_AEAD)
		return kcapi_aead_encrypt(a->handle, a->in, a->in_len, a->iv, a->out, a->out_len,
					  KCAPI_ACCESS_HEURISTIC);
	if (a->decrypt)
		return kcapi_cipher_decrypt(a->handle, a->in, a->in_len, a->iv, a->out, a->out_len,
					    KCAPI_ACCESS_HEURISTIC);
	return kcapi_cipher_encrypt(a->handle, a->in, a->in_len, a->iv, a->out, a->out_len,
				    KCAPI_ACCESS_HEURISTIC);
}

static const uint32_t skcipher_key_sizes[] = {16, 32, 24, 8, 64};

/* Bind @driver, set a key from @random, allocate buffers: ready for run_once(). */
static int afalg_open(struct afalg *a, const struct cp_mod_calib_req *req, const char *driver,
		      const char *name, const uint8_t *random, uint32_t *key_size)
{
	int r;

	a->iface = cp_type_info(req->type)->afalg;
	a->decrypt = req->decrypt && a->iface == CP_AFALG_SKCIPHER;
	a->req_size = req->req_size;
	r = bind_driver(a, driver);
	if (r < 0)
		return r;
	if (*key_size) {
		r = set_key(a, name, random, *key_size);
	} else if (a->iface == CP_AFALG_SKCIPHER) {
		r = -EINVAL;
		for (size_t i = 0; r < 0 && i < ARRAY_SIZE(skcipher_key_sizes); i++)
			if ((r = set_key(a, name, random, skcipher_key_sizes[i])) >= 0)
				*key_size = skcipher_key_sizes[i];
	} else if (a->iface == CP_AFALG_AEAD) {
		*key_size = strstr(name, "chacha") ? 32 : 16;
		r = set_key(a, name, random, *key_size);
	}
	if (r < 0)
		return r;
	r = alloc_buffers(a,
			  a->iface == CP_AFALG_HASH ? kcapi_md_digestsize(a->handle) : a->req_size);
	if (r < 0)
		return r;
	if (a->iface == CP_AFALG_HASH && run_once(a) == -ENOKEY) {
		/* A keyed hash (hmac, cmac) says so at its first use. */
		*key_size = HMAC_KEY_LEN;
		r = set_key(a, name, random, *key_size);
	}
	return r < 0 ? r : 0;
}

/* Same key, IV and input through @reference: does @a produce the same bytes? */
static enum cryptoprio_kat known_answer(struct afalg *a, const struct cp_mod_calib_req *req,
					const char *name, const char *reference,
					const uint8_t *random, uint32_t key_size)
{
	struct cp_mod_calib_req one = *req;
	struct afalg ref = {};
	enum cryptoprio_kat kat = CRYPTOPRIO_KAT_UNSUPPORTED;
	ssize_t got, want;

	one.depth = 1;
	if (!reference || afalg_open(&ref, &one, reference, name, random, &key_size) < 0)
		goto out;
	memcpy(ref.in, a->in, ref.in_len);
	memcpy(ref.iv, a->iv, sizeof(ref.iv));
	want = run_once(&ref);
	got = run_once(a);
	if (want < 0)
		goto out;
	kat = got == want && memcmp(a->out, ref.out, (size_t) want) == 0 ? CRYPTOPRIO_KAT_OK
									 : CRYPTOPRIO_KAT_MISMATCH;
out:
	afalg_close(&ref);
	return kat;
}

/*
 * Depth through AF_ALG: one transform per request in flight, each driven
 * by its own thread, as that many synchronous users would (libkcapi's AIO
 * path hung on 6.1 and 7.2 kernels, and is not used).
 */
struct worker {
	struct afalg a;
	uint64_t deadline_ns;
	uint64_t requests;
	int error;
	pthread_t thread;
};

static void *worker_run(void *userdata)
{
	struct worker *w = userdata;

	do {
		ssize_t n = run_once(&w->a);

		if (n < 0) {
			w->error = (int) n;
			break;
		}
		w->requests++;
	} while (cp_now_ns() < w->deadline_ns);
	return NULL;
}

/* Workers 1..depth-1 get transforms of their own with the same key. */
static int open_workers(struct worker *w, uint32_t depth, const struct cp_mod_calib_req *req,
			const char *name, const uint8_t *random, uint32_t key_size)
{
	struct cp_mod_calib_req one = *req;
	int r;

	one.depth = 1;
	for (uint32_t i = 1; i < depth; i++) {
		r = afalg_open(&w[i].a, &one, req->driver, name, random, &key_size);
		if (r < 0)
			return r;
	}
	return 0;
}

static int run_workers(struct worker *w, uint32_t depth, uint64_t budget_ns,
		       struct cp_mod_calib_result *res)
{
	uint64_t start = cp_now_ns(), cpu_start, cpu_end;
	uint32_t started = 0;
	int r;

	r = cp_cpustat_busy_ns(&cpu_start);
	for (uint32_t i = 0; r >= 0 && i < depth; i++) {
		w[i].deadline_ns = start + budget_ns;
		r = -pthread_create(&w[i].thread, NULL, worker_run, &w[i]);
		if (r == 0)
			started++;
	}
	for (uint32_t i = 0; i < started; i++) {
		(void) pthread_join(w[i].thread, NULL);
		res->requests += w[i].requests;
		if (w[i].error && r >= 0)
			r = w[i].error;
	}
	res->wall_ns = cp_now_ns() - start;
	res->bytes = res->requests * res->req_size;
	res->max_in_flight = started;
	if (r >= 0)
		r = cp_cpustat_busy_ns(&cpu_end);
	if (r >= 0)
		res->cpu_ns = cpu_end - cpu_start;
	return r < 0 ? r : 0;
}

static int timed_runs(struct afalg *a, const struct cp_mod_calib_req *req, const char *name,
		      const uint8_t *random, uint32_t key_size, struct cp_mod_calib_result *res)
{
	uint32_t depth = res->depth;
	struct worker *w = calloc(depth, sizeof(*w));
	int r;

	if (!w)
		return -ENOMEM;
	w[0].a = *a; /* the transform the known answer was checked on */
	r = open_workers(w, depth, req, name, random, key_size);
	if (r >= 0)
		r = run_workers(w, depth, res->budget_ns, res);
	for (uint32_t i = 1; i < depth; i++)
		afalg_close(&w[i].a);
	free(w);
	return r;
}

int cp_afalg_calibrate(const struct cp_mod_calib_req *req, const char *name, const char *reference,
		       struct cp_mod_calib_result *res)
{
	uint8_t random[MAX_KEY_BLOB];
	uint32_t key_size = req->key_size;
	struct afalg a = {};
	int r;

	if (!req->driver || !cp_type_info(req->type) || req->req_size == 0 ||
	    req->req_size > CRYPTOPRIO_MAX_REQ_SIZE || req->depth > CRYPTOPRIO_MAX_DEPTH ||
	    key_size > 64)
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	cp_strscpy(res->driver, sizeof(res->driver), req->driver);
	cp_strscpy(res->reference, sizeof(res->reference), reference ? reference : "");
	res->type = req->type;
	res->req_size = req->req_size;
	res->depth = req->depth ? req->depth : 1;
	res->decrypt = req->decrypt;
	res->budget_ns = req->budget_ns ? req->budget_ns : 100000000ull;
	if (getrandom(random, sizeof(random), 0) < 0)
		return negative_errno();
	/* Library code does not print: failures come back as errno. */
	kcapi_set_verbosity(KCAPI_LOG_NONE);
	r = afalg_open(&a, req, req->driver, name, random, &key_size);
	if (r >= 0) {
		res->key_size = key_size;
		res->kat = known_answer(&a, req, name, reference, random, key_size);
		if (res->kat != CRYPTOPRIO_KAT_MISMATCH)
			r = timed_runs(&a, req, name, random, key_size, res);
	}
	afalg_close(&a);
	return r;
}
