/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Files written atomically, read within a bound, locked (fileio.h). */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#include "fileio-internal.h"
#include "fileio.h"
#include "macro.h"

void (*cp_file_observer)(enum cp_file_op op, const char *path);

static void observe(enum cp_file_op op, const char *path)
{
	if (cp_file_observer)
		cp_file_observer(op, path);
}

int cp_mkdir_parents(const char *path)
{
	_cleanup_free_ char *copy = strdup(path);

	if (!copy)
		return -ENOMEM;
	for (char *p = strchr(copy + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(copy, 0755) < 0 && errno != EEXIST)
			return negative_errno();
		*p = '/';
	}
	return 0;
}

static int write_all(int fd, const char *data, size_t size)
{
	while (size > 0) {
		ssize_t n = write(fd, data, size);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		data += n;
		size -= (size_t) n;
	}
	return 0;
}

int cp_write_file_atomic(const char *path, const void *data, size_t size, mode_t mode)
{
	_cleanup_free_ char *tmp = NULL;
	_cleanup_close_ int fd = -1;
	int r;

	observe(CP_FILE_WRITE, path);
	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) { /* the directories made only when missing */
		r = cp_mkdir_parents(path);
		if (r < 0)
			return r;
		strcpy(tmp + strlen(path), ".XXXXXX");
		fd = mkostemp(tmp, O_CLOEXEC);
	}
	if (fd < 0)
		return negative_errno();
	r = write_all(fd, data, size);
	if (r >= 0 && fchmod(fd, mode) < 0)
		r = negative_errno();
	if (r >= 0 && fsync(fd) < 0)
		r = negative_errno();
	if (r >= 0 && rename(tmp, path) < 0)
		r = negative_errno();
	if (r < 0)
		(void) unlink(tmp);
	return r;
}

/*
 * A buffer for the file's size and a byte to see its end; /proc's files say
 * 0. @sized: the file has a size, so a short read is its end.
 */
static size_t first_allocation(int fd, size_t max, bool *sized)
{
	struct stat st;

	*sized = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
	if (*sized && (uint64_t) st.st_size < max)
		return (size_t) st.st_size + 1;
	return max < 4096 ? max + 1 : 4096;
}

int cp_read_file(const char *path, size_t max, char **ret_data, size_t *ret_size)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *data = NULL;
	size_t size = 0, allocated;
	bool sized;

	observe(CP_FILE_READ, path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	allocated = first_allocation(fd, max, &sized);
	data = malloc(allocated + 1);
	if (!data)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (size == allocated) { /* grown since fstat(), or from /proc */
			char *more;

			if (size > max)
				return -EFBIG;
			allocated = size > max / 2 ? max + 1 : 2 * size;
			more = realloc(data, allocated + 1);
			if (!more)
				return -ENOMEM;
			data = more;
		}
		n = read(fd, data + size, allocated - size);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		if (n == 0)
			break;
		size += (size_t) n;
		/* Short of the byte past its size: the end, without a read() to see it. */
		if (sized && size < allocated)
			break;
	}
	if (size > max)
		return -EFBIG;
	data[size] = '\0';
	*ret_data = steal_pointer(&data);
	if (ret_size)
		*ret_size = size;
	return 0;
}

int cp_lock_acquire(const char *path)
{
	return cp_lock_acquire_timeout(path, NULL, 0);
}

static uint64_t now_usec(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

static void on_alarm(int sig)
{
	(void) sig; /* only to interrupt flock() */
}

/*
 * Blocks in flock(LOCK_EX) on @fd (a waiter the kernel lists in
 * /proc/locks) until the lock is free, or until SIGALRM interrupts it at
 * @timeout_usec; the timer fires again every 10 ms after, so that a signal
 * that came before the call is not lost. 0: no limit, no timer.
 */
static int wait_for_lock(int fd, uint64_t timeout_usec)
{
	struct sigaction action = {.sa_handler = on_alarm}, old_action;
	struct itimerval timer = {.it_interval.tv_usec = 10000}, old_timer;
	uint64_t deadline = now_usec() + timeout_usec;
	sigset_t alarm, old_mask;
	int r = 0;

	timer.it_value.tv_sec = (time_t) (timeout_usec / 1000000);
	timer.it_value.tv_usec = (suseconds_t) (timeout_usec % 1000000);
	sigemptyset(&alarm);
	sigaddset(&alarm, SIGALRM);
	if (timeout_usec) {
		(void) sigaction(SIGALRM, &action, &old_action); /* no SA_RESTART */
		(void) sigprocmask(SIG_UNBLOCK, &alarm, &old_mask);
		(void) setitimer(ITIMER_REAL, &timer, &old_timer);
	}
	while (r == 0 && flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR)
			r = negative_errno();
		else if (timeout_usec && now_usec() >= deadline)
			r = -ETIMEDOUT;
	}
	if (timeout_usec) {
		(void) setitimer(ITIMER_REAL, &old_timer, NULL);
		(void) sigprocmask(SIG_SETMASK, &old_mask, NULL);
		(void) sigaction(SIGALRM, &old_action, NULL);
	}
	return r;
}

static int open_lock_file(const char *path)
{
	int fd, r;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 && errno == ENOENT) { /* the directories made only when missing */
		r = cp_mkdir_parents(path);
		if (r < 0)
			return r;
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	}
	return fd < 0 ? negative_errno() : fd;
}

int cp_lock_acquire_timeout(const char *path, void (*waiting)(const char *path),
			    uint64_t timeout_usec)
{
	_cleanup_close_ int fd = open_lock_file(path);
	int r;

	if (fd < 0)
		return fd;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return take_fd(fd);
	if (errno == EWOULDBLOCK && waiting)
		waiting(path); /* then block: another writer finishes its plan first */
	r = wait_for_lock(fd, timeout_usec);
	return r < 0 ? r : take_fd(fd);
}

int cp_check_dir_writable(const char *path)
{
	_cleanup_free_ char *dir = strdup(path);
	char *slash;

	if (!dir)
		return -ENOMEM;
	/* The nearest directory that exists: the missing ones would be made in it. */
	while ((slash = strrchr(dir, '/'))) {
		*(slash == dir ? slash + 1 : slash) = '\0';
		if (slash == dir || access(dir, F_OK) == 0 || errno != ENOENT)
			return access(dir, W_OK) < 0 ? negative_errno() : 0;
	}
	return access(".", W_OK) < 0 ? negative_errno() : 0;
}

bool cp_have_net_admin(void)
{
	struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

	if (syscall(SYS_capget, &header, data) < 0)
		return false;
	return data[CAP_TO_INDEX(CAP_NET_ADMIN)].effective & CAP_TO_MASK(CAP_NET_ADMIN);
}
