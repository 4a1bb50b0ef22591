# The Debian packages installed by dpkg -i (setup.sh), booted with systemd
# as PID 1: the packaged unit applied the policy before
# cryptsetup-pre.target, the module loads when calibration looks up its
# netlink family, `systemctl reload` with a broken policy fails and keeps
# the old one, `dpkg -r cryptoprio` puts the original priorities back
# (cryptoprioctl reset in its prerm), and `dpkg -r cryptoprio-dkms` takes
# its sources away. (DKMS building the module from the package:
# tests/kmod/check-dkms --deb, on the host, see setup.sh.)
#
# In CI on 6.1 only, Debian 12's kernel, whose headers the host has; DKMS's
# build is checked on the host (tests/kmod/check-dkms).
svc=cryptoprio.service
r=$CP_RESULTS
kver=$(uname -r)
cat "$r/dpkg-install.txt"
check "dpkg -i of both packages succeeded ($(cat "$r/dpkg-install.secs" 2>/dev/null) s)" \
	test -s "$r/dpkg-install.secs"
check "the module of the build dir is there for $kver" test ! -e "$r/no-module.txt"
version=$(cat "$CP_SRC/driver/VERSION")
check "cryptoprio-dkms installed the module's sources for DKMS ($version)" \
	test -f "/usr/src/cryptoprio-$version/dkms.conf" -a -f "/usr/src/cryptoprio-$version/core.c"

# The packaged unit, enabled by the postinst, ran the packaged daemon.
check "$svc is the packaged unit" test "$(unit_prop $svc FragmentPath)" = /lib/systemd/system/$svc
check "$svc runs /usr/sbin/cryptoprio-daemon" \
	grep -q 'path=/usr/sbin/cryptoprio-daemon' <<<"$(unit_prop $svc ExecStart)"
check "$svc is active (running)" test "$(unit_prop $svc ActiveState)/$(unit_prop $svc SubState)" = active/running
ours=$(unit_prop $svc ActiveEnterTimestampMonotonic)
theirs=$(unit_prop cryptsetup-pre.target ActiveEnterTimestampMonotonic)
log "$svc active at $ours us, cryptsetup-pre.target at $theirs us"
check "$svc active before cryptsetup-pre.target" test "$ours" -gt 0 -a "$theirs" -gt "$ours"
check "the policy applied: virtio_crypto_aes_cbc at 1234" wait_for_prio virtio_crypto_aes_cbc 1234 30

# The module, found by its aliases: calibration goes through it.
/usr/sbin/cryptoprioctl --json calibrate 'cbc(aes)' --budget 3s >"$r/calibrate.json" 2>"$r/calibrate.err" || true
cat "$r/calibrate.err"
check "calibrate: through the module" test "$(jget "$r/calibrate.json" "d['backend']")" = module
check "the kernel loaded it on demand" test -d /sys/module/cryptoprio

# A broken policy: systemctl reload fails (ExecReload= checks it first),
# the old policy stays.
cp /etc/cryptoprio.conf "$r/cryptoprio.conf.good"
printf '[Policy]\nRank = fastest-please\n' >/etc/cryptoprio.conf
rc=0
systemctl reload $svc 2>"$r/reload.err" || rc=$?
cat "$r/reload.err"
check "systemctl reload with a broken policy exits non-zero ($rc)" test "$rc" -ne 0
check "the daemon keeps running" test "$(unit_prop $svc ActiveState)" = active
check "the old policy stays (1234)" test "$(proc_crypto_prio virtio_crypto_aes_cbc)" = 1234
cp "$r/cryptoprio.conf.good" /etc/cryptoprio.conf

# Removal: the prerm stops the daemon and resets; the original priorities
# come back (virtio-crypto registers cbc(aes) at 150).
rc=0
dpkg -r cryptoprio >"$r/dpkg-remove.txt" 2>&1 || rc=$?
cat "$r/dpkg-remove.txt"
check "dpkg -r cryptoprio succeeded" test "$rc" = 0
check "the daemon is stopped" test "$(unit_prop $svc ActiveState)" != active
check "virtio_crypto_aes_cbc back at the driver's 150" test "$(proc_crypto_prio virtio_crypto_aes_cbc)" = 150
check "cryptoprioctl is gone" test ! -e /usr/sbin/cryptoprioctl

rc=0
dpkg -r cryptoprio-dkms >"$r/dpkg-remove-dkms.txt" 2>&1 || rc=$?
cat "$r/dpkg-remove-dkms.txt"
check "dpkg -r cryptoprio-dkms succeeded" test "$rc" = 0
check "its sources are gone" test ! -e "/usr/src/cryptoprio-$version"
