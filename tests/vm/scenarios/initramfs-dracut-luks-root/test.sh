# The encrypted root opened by a dracut initramfs with systemd in it, with
# cryptoprio's dracut module (90cryptoprio, the package's, from
# build/debs). This VM makes what the second boot needs, as
# initramfs-luks-root's does (its first-boot.sh: the LUKS2 root, the
# package, the policy and its calibration cache); the host then makes the
# initramfs with dracut ("reboot prepare": dracut-host), boots it, and
# checks that cryptoprio-initrd.service applied the policy from the cache
# before systemd-cryptsetup opened the root, whose dm-crypt holds the
# CPU's xts(aes), not the engine's that the kernel's order would give it.
# The boot script both tools run is tested by initramfs-luks-root.
#
# x86_64 (dracut runs on the host; arm64's would need the chroot
# initramfs-luks-root's mkinitramfs runs in).
[[ $(uname -m) == x86_64 ]] || skip "dracut-host makes x86_64 initramfs images only"
. "$CP_SCENARIO_DIR/../initramfs-luks-root/first-boot.sh"
d=/usr/lib/dracut/modules.d/90cryptoprio
check "the package ships the dracut module" test -x $d/module-setup.sh
check "and its unit" test -f $d/cryptoprio-initrd.service
check "and the boot script" test -x $d/cryptoprio-apply.sh
check "the unit is ordered before cryptsetup-pre.target" \
	grep -qx 'Before=cryptsetup-pre.target' $d/cryptoprio-initrd.service
