# shellcheck shell=bash
# Sourced inside the VM, in the writable overlay of the root, before the
# scenario (guest-run.sh) or its systemd setup (guest-systemd-setup.sh).
# x86_64's guests run on the host's root, which is whatever the host has
# installed and configured (tests/vm/README.md, "What the guests see of
# the host"): what of it would change a scenario is put out of the way
# here, in the overlay only, so that a guest starts from the same root on
# a host where cryptoprio's packages were installed, or removed without
# being purged, as on one where they never were.
#   - cryptoprio's own files: the policy (a conffile that dpkg -r keeps),
#     its drop-ins, the calibration cache and the unit's enablement (the
#     links dpkg -r leaves, and deb-systemd-helper's record of them).
#     Scenarios write what they need.
#   - under systemd, on the host's root: udev, whose coldplug would load
#     whatever the guest's devices and CPU ask for (CPU feature modules,
#     the engine's driver), so that names compete that the scenario did
#     not load. The arm64 guests' own root has udev and keeps it.
# Once per boot: under systemd, guest-run.sh comes after the setup that
# already wrote the scenario's files.
[[ ! -e /.cp-host-state-cleared ]] || return 0
: >/.cp-host-state-cleared
rm -rf /etc/cryptoprio.conf /etc/cryptoprio.conf.d /run/cryptoprio.conf.d \
	/usr/local/lib/cryptoprio.conf.d /var/lib/cryptoprio
rm -f /etc/systemd/system/*.wants/cryptoprio.service /etc/systemd/system/cryptoprio.service
# deb-systemd-helper's record of that enablement: without the links it
# would take the unit for disabled by the administrator, and a dpkg -i here
# would not enable it again; without either, it is a first installation.
find /var/lib/systemd/deb-systemd-helper-enabled /var/lib/systemd/deb-systemd-helper-masked \
	-name 'cryptoprio.service*' -delete 2>/dev/null || true
if [[ ${CP_GUEST_SYSTEMD:-} == 1 && $(uname -m) == x86_64 ]]; then
	for u in systemd-udevd.service systemd-udevd-control.socket systemd-udevd-kernel.socket \
		systemd-udev-trigger.service systemd-udev-settle.service; do
		ln -sfn /dev/null "/etc/systemd/system/$u"
	done
fi
