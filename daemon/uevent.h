/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Module load/unload events straight from the kernel (NETLINK_KOBJECT_UEVENT,
 * the kernel's multicast group). Not sd_device_monitor: that one listens to
 * udevd's re-broadcast, which does not exist before udevd runs (the daemon
 * starts earlier) nor on systems without udevd, and adds udevd's processing
 * delay. A module event only tells "look again"; nothing in it is trusted
 * beyond that, and only the kernel (sender port 0) is listened to.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

enum cp_uevent_action {
	CP_UEVENT_OTHER,
	CP_UEVENT_MODULE_ADD,
	CP_UEVENT_MODULE_REMOVE,
};

/* A non-blocking socket bound to the kernel's uevent group; fd or negative errno. */
int cp_uevent_open(void);

/*
 * Parse one datagram ("ACTION@DEVPATH\0KEY=VALUE\0..."): a module's add or
 * remove gives its name (from DEVPATH=/module/NAME) in @name; a synthetic
 * one (SYNTH_UUID=, written to the module's uevent file) is CP_UEVENT_OTHER.
 */
enum cp_uevent_action cp_uevent_parse(const char *buf, size_t len, char *name, size_t name_len);

/*
 * Receive one datagram from @fd and parse it. Returns the action (name
 * filled for module events), CP_UEVENT_OTHER for anything else or from a
 * sender other than the kernel, -EAGAIN when there is nothing, or a
 * negative errno.
 */
int cp_uevent_receive(int fd, char *name, size_t name_len);
