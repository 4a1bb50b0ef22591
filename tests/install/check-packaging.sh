#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The version in one place, and what the Debian packages and DKMS take from
# it: meson's project version is driver/VERSION (what the module's
# MODULE_VERSION says), debian/changelog's upstream version is the same (a
# package of another version would install its module sources under a
# different /usr/src/cryptoprio-VERSION than dkms.conf names), dkms.conf
# carries the placeholder dh_dkms -V substitutes and not a version of its
# own, and its BUILD_EXCLUSIVE_KERNEL admits the kernels driver/compat.h
# handles (6.1 on) and no older.
#
# usage: check-packaging.sh SOURCE_DIR MESON_PROJECT_VERSION
set -uo pipefail
src=$1 version=$2
# shellcheck source=../tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

same() {
	[[ $1 == "$2" ]] && return
	echo "# '$1' != '$2'"
	return 1
}

ok "driver/VERSION is meson's version" same "$(<"$src/driver/VERSION")" "$version"

# The first entry's version, without its epoch and Debian revision.
changelog=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$src/debian/changelog")
upstream=${changelog#*:}
upstream=${upstream%-*}
ok "debian/changelog's upstream version ($changelog) is meson's" same "$upstream" "$version"

ok "dkms.conf's PACKAGE_VERSION is dh_dkms's placeholder" \
	grep -qx 'PACKAGE_VERSION="#MODULE_VERSION#"' "$src/driver/dkms.conf"

# dkms sources dkms.conf and matches the kernel release with [[ =~ ]].
exclusive=$(
	kernel_source_dir=/k dkms_tree=/t
	# shellcheck source=/dev/null
	. "$src/driver/dkms.conf" && printf '%s' "${BUILD_EXCLUSIVE_KERNEL:-}"
)
builds() { [[ $1 =~ $exclusive ]]; }
skips() { ! builds "$1"; }
ok "BUILD_EXCLUSIVE_KERNEL is set" test -n "$exclusive"
for kver in 6.1.0-57-amd64 6.12.117+deb12-amd64 7.2.13+deb14-amd64 6.19.0 6.1.0-rc1 8.0.0 10.3.0-1-arm64; do
	ok "DKMS builds for $kver" builds "$kver"
done
for kver in 6.0.0-1-amd64 5.10.0-30-amd64 4.19.0-27-amd64 2.6.32 6.; do
	ok "DKMS skips $kver" skips "$kver"
done
done_testing
