/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small helpers shared by lib/, cli/ and daemon/ (after kmod's shared/macro.h). */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define _cleanup_(fn)  __attribute__((cleanup(fn)))
#define _unused_       __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))

/* Fails to build when @a is a pointer, not an array (as the kernel's and systemd's ELEMENTSOF). */
#define _is_array_(a) (!__builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0])))
#define _must_be_array_(a)                                                                         \
	(sizeof(struct {                                                                           \
		 _Static_assert(_is_array_(a), "not an array");                                    \
		 char c;                                                                           \
	 }) -                                                                                      \
	 1)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]) + _must_be_array_(a))

static inline void freep(void *p)
{
	free(*(void **) p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline void closep(int *fd)
{
	if (*fd >= 0)
		(void) close(*fd);
}
#define _cleanup_close_ _cleanup_(closep)

static inline void fclosep(FILE **f)
{
	if (*f)
		(void) fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

/*
 * strcmp() == 0 with the first bytes compared in line: in the loops over
 * the inventory most names differ there, and a start makes thousands of
 * these comparisons, each a call otherwise.
 */
static inline bool streq(const char *a, const char *b)
{
	return a[0] == b[0] && strcmp(a, b) == 0;
}

/* @one after a count of 1, @many after any other: "1 name", "0 names", "2 names". */
static inline const char *cp_plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/*
 * snprintf(dst, size, "%s", src) without printf's machinery (a start
 * copies hundreds of names): at most size - 1 bytes, always terminated.
 */
static inline void cp_strscpy(char *dst, size_t size, const char *src)
{
	size_t i = 0;

	for (; i + 1 < size && src[i]; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

/* Returns the pointer and leaves NULL behind, to hand ownership out of a cleanup scope. */
#define steal_pointer(pp)                                                                          \
	({                                                                                         \
		__typeof__(*(pp)) _p = *(pp);                                                      \
		*(pp) = NULL;                                                                      \
		_p;                                                                                \
	})

#define take_fd(fd)                                                                                \
	({                                                                                         \
		int _fd = (fd);                                                                    \
		(fd) = -1;                                                                         \
		_fd;                                                                               \
	})

/* errno as a negative value, never 0 even if errno was not set. */
static inline int negative_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}

/* A vector of @n strings and the vector itself (either may be NULL with 0). */
static inline void cp_strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/* Append a copy of @s to the @n strings of *@v. Returns 0 or -ENOMEM (*@v kept). */
static inline int cp_strv_push(char ***v, size_t *n, const char *s)
{
	char **grown = realloc(*v, (*n + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	*v = grown;
	grown[*n] = strdup(s);
	if (!grown[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}
