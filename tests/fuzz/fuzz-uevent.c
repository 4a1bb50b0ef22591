/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One NETLINK_KOBJECT_UEVENT datagram through the daemon's cp_uevent_parse. */
#include <stdbool.h>

#include "fuzz.h"
#include "uevent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The daemon's buffer (CP_NAME_MAX), and a tight one: the bound must hold for any size. */
	static const size_t sizes[] = {64, 5, 1};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		char *name = malloc(sizes[i]);
		enum cp_uevent_action a;

		FUZZ_CHECK(name);
		a = cp_uevent_parse((const char *) data, size, name, sizes[i]);
		FUZZ_CHECK(a == CP_UEVENT_OTHER || a == CP_UEVENT_MODULE_ADD ||
			   a == CP_UEVENT_MODULE_REMOVE);
		if (a != CP_UEVENT_OTHER) {
			size_t n = strnlen(name, sizes[i]);

			FUZZ_CHECK(n > 0 && n < sizes[i]);
			FUZZ_CHECK(strchr(name, '/') == NULL);
		}
		free(name);
	}
	return 0;
}
