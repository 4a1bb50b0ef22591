# Before systemd starts: the Debian packages that scripts/build-debs made
# (in $CP_SRC/build/debs; scripts/test builds them before the VM tests)
# installed with dpkg -i, as an administrator would; the postinst enables
# the unit. DKMS is told not to build (/etc/dkms/no-autoinstall): this
# guest runs on the host's root and headers, where scripts/test has just
# had DKMS build the module from this cryptoprio-dkms
# (tests/kmod/check-dkms --deb), the same build that takes DKMS 5-13 min
# of gcc under TCG. The module of the build dir stands in for it, loaded
# by its aliases (install_cryptoprio_module). The engine's module loaded at
# boot by modules-load.d (the host root has no udev to load it), and a
# policy with a fixed priority for it.
kver=$(uname -r)
debs=$CP_SRC/build/debs
mkdir -p /etc/dkms
: >/etc/dkms/no-autoinstall
install_cryptoprio_module || echo "cryptoprio.ko not built for $kver" >"$CP_RESULTS/no-module.txt"
# The host's state, which this root is, must not make dpkg slow here:
# man-db's trigger would index the whole host's man pages over 9p (minutes
# under TCG; it runs while /var/lib/man-db/auto-update exists, whatever
# debconf says), and where the host has initramfs-tools the package's
# update-initramfs trigger would rebuild the initramfs of every kernel in
# the host's /boot.
rm -f /var/lib/man-db/auto-update
if [[ -f /etc/initramfs-tools/update-initramfs.conf ]]; then
	sed -i 's/^update_initramfs=.*/update_initramfs=no/' /etc/initramfs-tools/update-initramfs.conf
fi
# The host root is a container image whose policy-rc.d (exit 101) forbids
# maintainer scripts to start or stop services: not so on a machine.
rm -f /usr/sbin/policy-rc.d
# dpkg's lines, each with the seconds since its start, in the setup's log
# as they come: progress for the runner's hang detector.
start=$SECONDS
DEBIAN_FRONTEND=noninteractive dpkg -i "$debs"/cryptoprio_*.deb "$debs"/cryptoprio-dkms_*.deb 2>&1 |
	while IFS= read -r line; do printf '%3d s: %s\n' $((SECONDS - start)) "$line"; done |
	tee "$CP_RESULTS/dpkg-install.txt"
rc=${PIPESTATUS[0]}
if ((rc == 0)); then
	echo "$((SECONDS - start))" >"$CP_RESULTS/dpkg-install.secs"
else
	echo "dpkg -i failed: $rc" >>"$CP_RESULTS/dpkg-install.txt"
fi
echo virtio_crypto >/etc/modules-load.d/cp-test-virtio.conf
cat >/etc/cryptoprio.conf <<'CONF'
[Driver virtio_crypto_aes_cbc]
Priority = 1234
CONF
