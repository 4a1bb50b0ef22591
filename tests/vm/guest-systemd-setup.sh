# shellcheck shell=bash source-path=SCRIPTDIR
# Runs inside the VM before switch_root into systemd (bash -eu, chrooted into
# the writable overlay of the host root; the variables tests/vm/guest-env
# lists for the systemd path: CP_* as for a scenario plus CP_SCENARIO_FILE):
# installs the runner's target and test unit, makes the target the default,
# then runs the scenario's setup.sh if it has one (to install units,
# policies... before systemd starts).
unitdir=/etc/systemd/system
scen_dir=$(dirname "$CP_SCENARIO_FILE")

# The scenario's environment under systemd: the variables of
# tests/vm/guest-env for this path (the same that initramfs-init gave this
# script), as Environment= lines.
# shellcheck source=guest-env.sh
. "$CP_SRC/tests/vm/guest-env.sh"
env_lines=$(guest_env_unit "$CP_SRC/tests/vm/guest-env")

# The test unit: after basic.target, the scenario (tests/vm/guest-systemd-test.sh).
cat >"$unitdir/cp-vm-test.service" <<UNIT
[Unit]
Description=cryptoprio VM scenario $CP_SCENARIO
After=basic.target
Requires=basic.target

[Service]
Type=simple
$env_lines
Environment=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
ExecStart=/bin/bash $CP_SRC/tests/vm/guest-systemd-test.sh
StandardOutput=journal+console
UNIT
cat >"$unitdir/cp-vm.target" <<UNIT
[Unit]
Description=cryptoprio VM scenario target
Requires=basic.target cp-vm-test.service
After=basic.target
AllowIsolate=yes
UNIT
ln -sfn cp-vm.target "$unitdir/default.target"
# Nothing of the host's that needs a network or a terminal.
for u in systemd-timesyncd.service getty@tty1.service serial-getty@ttyS0.service \
	serial-getty@ttyAMA0.service; do
	ln -sfn /dev/null "$unitdir/$u"
done

# The host's cryptoprio files and udev out of the way (guest-host-state.sh).
# shellcheck source=guest-host-state.sh
CP_GUEST_SYSTEMD=1 . "$CP_SRC/tests/vm/guest-host-state.sh"

# Debian's tmpfiles.d/tmp.conf empties /tmp at boot: keep the host's /tmp
# (a build directory there must stay visible, as in the plain mode).
echo 'd /tmp 1777 root root -' >/etc/tmpfiles.d/tmp.conf

if [[ -f $scen_dir/setup.sh ]]; then
	# shellcheck source=lib.sh
	. "$CP_SRC/tests/vm/lib.sh"
	CP_SCENARIO_DIR=$scen_dir
	export CP_SCENARIO_DIR
	# shellcheck disable=SC1091
	. "$scen_dir/setup.sh"
fi
