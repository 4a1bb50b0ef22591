/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>

#include "macro.h"
#include "uevent.h"

#define KERNEL_GROUP 1u /* udevd re-broadcasts on group 2 */

int cp_uevent_open(void)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = KERNEL_GROUP};
	_cleanup_close_ int fd = -1;
	int size = 1 << 20;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return negative_errno();
	/* A burst (coldplug of every module) must not overflow the queue. */
	(void) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
		return negative_errno();
	return take_fd(fd);
}

enum cp_uevent_action cp_uevent_parse(const char *buf, size_t len, char *name, size_t name_len)
{
	const char *action = NULL, *subsystem = NULL, *devpath = NULL;
	bool synthetic = false;
	size_t n;

	/* The header "ACTION@DEVPATH" first, then NUL-separated KEY=VALUE. */
	for (size_t off = strnlen(buf, len) + 1; off < len;
	     off += strnlen(buf + off, len - off) + 1) {
		const char *kv = buf + off;

		if (strnlen(kv, len - off) == len - off)
			break; /* not terminated */
		if (strncmp(kv, "ACTION=", 7) == 0)
			action = kv + 7;
		else if (strncmp(kv, "SUBSYSTEM=", 10) == 0)
			subsystem = kv + 10;
		else if (strncmp(kv, "DEVPATH=", 8) == 0)
			devpath = kv + 8;
		else if (strncmp(kv, "SYNTH_UUID=", 11) == 0)
			synthetic = true;
	}
	/*
	 * A synthetic event (written to /sys/module/NAME/uevent, as udev's
	 * coldplug does for every module at boot) says nothing new: the module
	 * was there when the daemon listed the kernel, or its real event came.
	 */
	if (!action || !subsystem || !devpath || synthetic || strcmp(subsystem, "module") != 0 ||
	    strncmp(devpath, "/module/", 8) != 0)
		return CP_UEVENT_OTHER;
	devpath += 8;
	n = strlen(devpath);
	if (n == 0 || n >= name_len || strchr(devpath, '/'))
		return CP_UEVENT_OTHER;
	memcpy(name, devpath, n + 1);
	if (strcmp(action, "add") == 0)
		return CP_UEVENT_MODULE_ADD;
	if (strcmp(action, "remove") == 0)
		return CP_UEVENT_MODULE_REMOVE;
	return CP_UEVENT_OTHER;
}

int cp_uevent_receive(int fd, char *name, size_t name_len)
{
	char buf[8192];
	struct sockaddr_nl sa = {};
	struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
	struct msghdr msg = {
	    .msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = &iov, .msg_iovlen = 1};
	ssize_t n;

	n = recvmsg(fd, &msg, MSG_DONTWAIT);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : negative_errno();
	if (sa.nl_pid != 0 || (msg.msg_flags & MSG_TRUNC))
		return CP_UEVENT_OTHER;
	return (int) cp_uevent_parse(buf, (size_t) n, name, name_len);
}
