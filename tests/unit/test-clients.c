/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The table of the kernel's crypto API users: who asks with which mask on which kernel. */
#include <cryptoprio.h>
#include <errno.h>
#include <string.h>

#include "clients.h"
#include "macro.h"
#include "tap.h"

#define ASYNC	  CRYPTOPRIO_ALG_ASYNC
#define ALLOCATES CRYPTOPRIO_ALG_ALLOCATES_MEMORY
#define CPU_ONLY  (ASYNC | ALLOCATES | CRYPTOPRIO_ALG_KERN_DRIVER_ONLY)

/* The names of the clients asking with @mask on @kernel, "A, B", into @buf. */
static const char *asking(uint32_t kernel, uint32_t mask, char *buf, size_t size)
{
	size_t n;
	const struct cp_client *c = cp_clients(&n);

	buf[0] = 0;
	for (size_t i = 0; i < n; i++)
		if (c[i].mask == mask && cp_client_on(&c[i], kernel)) {
			if (buf[0])
				strncat(buf, ", ", size - strlen(buf) - 1);
			strncat(buf, c[i].name, size - strlen(buf) - 1);
		}
	return buf;
}

static void test_versions(void)
{
	static const struct {
		const char *release;
		int r;
		uint32_t version;
	} cases[] = {
	    {"6.1.0-57-amd64", 0, CP_KERNEL(6, 1)},
	    {"6.12.48+deb12-arm64", 0, CP_KERNEL(6, 12)},
	    {"7.2.13+deb14-amd64", 0, CP_KERNEL(7, 2)},
	    {"6.17", 0, CP_KERNEL(6, 17)},
	    {"6", -EINVAL, 0},
	    {"", -EINVAL, 0},
	    {"x.1", -EINVAL, 0},
	    {"6.256.1", -EINVAL, 0},
	};
	uint32_t v = 0;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int r = cp_kernel_version(cases[i].release, &v);

		is_int(r, cases[i].r, "kernel release '%s' -> %d", cases[i].release, cases[i].r);
		if (cases[i].r == 0)
			is_int(v, cases[i].version, "'%s' is %u.%u", cases[i].release,
			       cases[i].version >> 8, cases[i].version & 0xff);
	}
	is_int(cp_kernel_version(NULL, &v), -EINVAL, "no release");
	ok(cp_kernel_version_running(&v) == 0 && v >= CP_KERNEL(3, 0),
	   "the running kernel's version is read (%u.%u)", v >> 8, v & 0xff);
}

static void test_masks_by_kernel(void)
{
	static const struct {
		uint32_t kernel, mask;
		const char *clients;
	} cases[] = {
	    {CP_KERNEL(6, 1), 0, "IPsec, kTLS, MACsec, zswap, fscrypt, AF_ALG"},
	    {CP_KERNEL(6, 1), ASYNC, ""},
	    {CP_KERNEL(6, 1), ALLOCATES, "dm-crypt"},
	    {CP_KERNEL(6, 1), ASYNC | ALLOCATES, ""},
	    {CP_KERNEL(6, 1), CPU_ONLY, ""},
	    {CP_KERNEL(6, 12), 0, "IPsec, kTLS, MACsec, zswap, fscrypt, AF_ALG"},
	    {CP_KERNEL(6, 15), 0, "IPsec, kTLS, MACsec, zswap, fscrypt, krb5, AF_ALG"},
	    {CP_KERNEL(6, 17), 0, "IPsec, kTLS, MACsec, zswap, krb5, AF_ALG"},
	    {CP_KERNEL(6, 17), CPU_ONLY, "fscrypt"},
	    {CP_KERNEL(7, 1), ASYNC, ""},
	    {CP_KERNEL(7, 2), 0, "IPsec, kTLS, MACsec, zswap"},
	    {CP_KERNEL(7, 2), ASYNC, "krb5"},
	    {CP_KERNEL(7, 2), ALLOCATES, "dm-crypt"},
	    {CP_KERNEL(7, 2), ASYNC | ALLOCATES, ""},
	    {CP_KERNEL(7, 2), CPU_ONLY, "fscrypt, AF_ALG"},
	};
	char buf[256];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		is_str(asking(cases[i].kernel, cases[i].mask, buf, sizeof(buf)), cases[i].clients,
		       "who asks on %u.%u with mask 0x%x", cases[i].kernel >> 8,
		       cases[i].kernel & 0xff, cases[i].mask);
}

/* On every kernel from 4.0 to 8.0, a client asks one way at most: no two rows overlap. */
static void test_one_way_each(void)
{
	size_t n;
	const struct cp_client *c = cp_clients(&n);
	int overlaps = 0, backwards = 0;

	for (size_t i = 0; i < n; i++) {
		if (c[i].until && c[i].until <= c[i].since)
			backwards++;
		for (uint32_t k = CP_KERNEL(4, 0); k <= CP_KERNEL(8, 0); k++)
			for (size_t j = i + 1; j < n; j++)
				if (streq(c[i].name, c[j].name) && cp_client_on(&c[i], k) &&
				    cp_client_on(&c[j], k))
					overlaps++;
	}
	is_int(backwards, 0, "every row's range runs forwards");
	is_int(overlaps, 0, "no client has two rows on one kernel");
}

static void test_unsteered(void)
{
	static const struct {
		uint32_t kernel;
		const char *names;
	} cases[] = {
	    {CP_KERNEL(6, 1), "callers of the crypto library (lib/crypto), WireGuard"},
	    {CP_KERNEL(6, 16), "callers of the crypto library (lib/crypto), WireGuard"},
	    {CP_KERNEL(6, 17),
	     "callers of the crypto library (lib/crypto), WireGuard, fsverity, AppArmor"},
	    {CP_KERNEL(7, 2),
	     "callers of the crypto library (lib/crypto), WireGuard, fsverity, AppArmor"},
	};
	size_t n;
	const struct cp_unsteered *u = cp_unsteered_users(&n);

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char buf[256] = "";

		for (size_t j = 0; j < n; j++)
			if (cases[i].kernel >= u[j].since) {
				if (buf[0])
					strncat(buf, ", ", sizeof(buf) - strlen(buf) - 1);
				strncat(buf, u[j].name, sizeof(buf) - strlen(buf) - 1);
			}
		is_str(buf, cases[i].names, "not steered on %u.%u", cases[i].kernel >> 8,
		       cases[i].kernel & 0xff);
	}
}

int main(void)
{
	test_versions();
	test_masks_by_kernel();
	test_one_way_each();
	test_unsteered();
	return done_testing();
}
