#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Where `meson install` puts each file, for the default prefix (/usr/local)
# and for --prefix=/usr, read from `meson introspect --installed` of a
# configured (not built) tree: the README's and the man pages' paths, the
# unit under the prefix's own systemd directory (not the distribution's
# /lib/systemd/system for /usr/local), and its ExecStart= naming the
# daemon where it is installed.
#
# usage: check-layout.sh SOURCE_DIR
set -uo pipefail
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=../tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

# installed DIR: "SOURCE DESTINATION" lines
installed() {
	meson introspect "$1" --installed |
		python3 -c 'import json,sys; [print(k, v) for k, v in json.load(sys.stdin).items()]'
}

has() { grep -q " $2\$" "$1"; }

check_prefix() {
	local prefix=$1 unitdir=$2 build=$tmp/build-${1//\//_} list
	list=$build.list
	if ! meson setup "$build" "$src" --prefix="$prefix" -Dtests=disabled -Dkernel-module=disabled \
		-Dvm-tests=disabled -Dfuzz=disabled >"$build.log" 2>&1; then
		ok "$prefix: meson setup" false
		cat "$build.log" >&2
		return
	fi
	installed "$build" >"$list"
	ok "$prefix: cryptoprio-daemon in $prefix/sbin" has "$list" "$prefix/sbin/cryptoprio-daemon"
	ok "$prefix: cryptoprioctl in $prefix/sbin" has "$list" "$prefix/sbin/cryptoprioctl"
	ok "$prefix: the unit in $unitdir" has "$list" "$unitdir/cryptoprio.service"
	ok "$prefix: the unit runs $prefix/sbin/cryptoprio-daemon" \
		grep -qx "ExecStart=$prefix/sbin/cryptoprio-daemon" "$build/systemd/cryptoprio.service"
	ok "$prefix: tmpfiles.d under $prefix/lib" has "$list" "$prefix/lib/tmpfiles.d/cryptoprio.conf"
	ok "$prefix: the policy in /etc" has "$list" "/etc/cryptoprio.conf"
	ok "$prefix: the examples in $prefix/share/doc/cryptoprio/examples" \
		has "$list" "$prefix/share/doc/cryptoprio/examples/example-lx2160a.conf"
	ok "$prefix: the JSON schema in $prefix/share/cryptoprio" \
		has "$list" "$prefix/share/cryptoprio/cryptoprioctl.schema.json"
	ok "$prefix: bash completion" has "$list" "$prefix/share/bash-completion/completions/cryptoprioctl"
	if command -v scdoc >/dev/null; then
		ok "$prefix: cryptoprioctl(8)" has "$list" "$prefix/share/man/man8/cryptoprioctl.8"
		ok "$prefix: cryptoprio.conf(5)" has "$list" "$prefix/share/man/man5/cryptoprio.conf.5"
	fi
	ok "$prefix: nothing under /lib/systemd unless the prefix is /usr" \
		bash -c "[[ $prefix == /usr ]] || ! grep -q ' /lib/systemd/' '$list'"
}

# -Ddracut=true: the module where dracut looks whatever the prefix, naming
# cryptoprioctl where the prefix puts it.
check_dracut() {
	local prefix=$1 build=$tmp/build-dracut-${1//\//_} d=/usr/lib/dracut/modules.d/90cryptoprio
	if ! meson setup "$build" "$src" --prefix="$prefix" -Ddracut=true -Dtests=disabled \
		-Dkernel-module=disabled -Dvm-tests=disabled -Dfuzz=disabled >"$build.log" 2>&1; then
		ok "$prefix -Ddracut=true: meson setup" false
		cat "$build.log" >&2
		return
	fi
	installed "$build" >"$build.list"
	for f in module-setup.sh cryptoprio-initrd.service cryptoprio-apply.sh; do
		ok "$prefix -Ddracut=true: $d/$f" has "$build.list" "$d/$f"
	done
	ok "$prefix -Ddracut=true: the module takes $prefix/sbin/cryptoprioctl" \
		grep -qx "ctl=$prefix/sbin/cryptoprioctl" "$build/dracut/module-setup.sh"
	ok "without -Ddracut=true: no dracut module" bash -c "! grep -q dracut '$tmp/build-_usr.list'"
}

check_prefix /usr/local /usr/local/lib/systemd/system
# Debian's systemd.pc: units of the distribution's prefix go to /lib/systemd/system.
check_prefix /usr "$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)"
check_dracut /usr/local
done_testing
