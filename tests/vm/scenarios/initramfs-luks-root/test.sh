# The encrypted root opened by the initramfs, with cryptoprio's
# initramfs-tools hook (the package's, from build/debs). This VM makes what
# the second boot (executable "reboot", tests/vm/README.md) needs:
#   - the LUKS2 root (make-root, cached by its inputs in the VM cache);
#   - the policy (the default: the CPU first) and a calibration cache
#     measured here, with the modules the initramfs will have: the CPU's
#     AES and cp_caam_engine, whose xts-aes-cp-caam (3000, without
#     ALLOCATES_MEMORY) dm-crypt would get.
# The host then makes the initramfs with mkinitramfs and the package's hook
# ("reboot prepare"), boots it with that cache, and on x86_64 with a stale
# one (the daemon then run on the root) and with a module loaded that this
# VM never saw, and judges each boot ("reboot check").
# Here: the package's boot script with the cache missing, then with a
# cache of another kernel, leaves xts(aes) in the kernel's order and says
# so. (Not with the good cache here: measuring loaded modules, the
# hashes', whose names compete now and were not measured; the second boot
# has the modules of the initramfs only.)
#
# In CI on 6.1 (Debian 12's, modules not compressed) and arm64's 7.2 (arm64
# programs; mkinitramfs decompresses modules).
r=$CP_RESULTS
rb=$r/reboot
eng=xts-aes-cp-caam
kver=$(uname -r)
tools=$CP_VM_CACHE/initramfs-tools/root
pctl=/usr/sbin/cryptoprioctl
cache_file=/var/lib/cryptoprio/calibration.json
mkdir -p "$rb"
deb=$(find "$CP_SRC/build/debs" -maxdepth 1 -name 'cryptoprio_*.deb' 2>/dev/null | head -n 1)
[[ -n $deb ]] || fail "no cryptoprio_*.deb in $CP_SRC/build/debs (scripts/build-debs makes it)"

# initramfs-tools and cryptsetup (host-setup unpacked them): the host's
# root lacks them; the root of arm64's guests, which do not see the VM
# cache, has cryptsetup, and its mkinitramfs runs on the host
# (mkinitramfs-host).
if [[ $(uname -m) == x86_64 ]]; then
	[[ -d $tools ]] || fail "no $tools (host-setup makes it)"
	cp -a "$tools/etc" "$tools/usr" /
fi

# 1. The LUKS2 root: from the cache, or made now (reboot-check stores it),
# through the CPU's AES: before the engine is there.
key=$(cat "$CP_SCENARIO_DIR/make-root" "$CP_SCENARIO_DIR/root-init" /bin/busybox | sha256sum | cut -c1-16)
cached=$CP_VM_CACHE/luks-root/$key
if [[ -f $cached/disk.img && -f $cached/disk.key ]]; then
	log "LUKS2 root from $cached"
	cp --sparse=always "$cached/disk.img" "$cached/disk.key" "$rb/"
else
	start=$SECONDS
	mkdir -p /tmp/luks-root
	check "make the LUKS2 root" bash "$CP_SCENARIO_DIR/make-root" /tmp/luks-root
	cp --sparse=always /tmp/luks-root/disk.img /tmp/luks-root/disk.key "$rb/"
	log "LUKS2 root made in $((SECONDS - start)) s"
	# (for reboot-check to store it there: x86_64's guests see the cache)
	[[ $(uname -m) != x86_64 ]] || echo "$key" >"$rb/made-key"
fi

# 2. The drivers the initramfs will have, and the module to measure them.
modprobe_q "$cpu_aes_module" crypto_user authenc dm_crypt
check "insmod cp_caam_engine.ko" insmod "$CP_KMOD/cp_caam_engine.ko"
check "$eng passed its self-test" wait_for_driver $eng 120
check "insmod cryptoprio.ko" insmod "$CP_KMOD/cryptoprio.ko"
wait_before_measuring cp_caam_engine "$cpu_aes_module"

# 3. The package, installed as dpkg would.
# (dpkg-deb -x would replace the links /lib and /sbin to usr/ by directories)
dpkg-deb --fsys-tarfile "$deb" | tar -C / -x --keep-directory-symlink
# Built for the host: an arm64 guest runs its own cryptoprioctl, the build's
# (mkinitramfs-host puts the same one into its initramfs).
if [[ $(dpkg-deb -f "$deb" Architecture) != "$(dpkg --print-architecture)" ]]; then
	install -m 0755 "$CP_BUILD/cli/cryptoprioctl" $pctl
fi
log "$(basename "$deb"): $(dpkg-deb -c "$deb" | grep -c initramfs-tools/) files under initramfs-tools"
check "the package ships the hook" test -x /usr/share/initramfs-tools/hooks/cryptoprio
check "the package ships the boot script" \
	test -x /usr/share/initramfs-tools/scripts/init-premount/cryptoprio

# 4. The policy (CPU first) and its figures, measured now into the cache:
# with the modules the initramfs has (the hook's templates, the root's file
# system) loaded, and twice, for the names that what the first measured
# loaded makes compete. The cache is a superset of what the initramfs needs.
for m in authenc authencesn echainiv seqiv gcm ccm ghash-generic hmac cbc ctr ecb xts \
	cryptd crypto_simd ext4; do
	modprobe -q "$m" || log "modprobe $m failed (built in?)"
done
printf '[Policy]\nCalibrationBudget = 60s\n' >/etc/cryptoprio.conf
mkdir -p /var/lib/cryptoprio
check "plan measures what the order needs" sh -c "'$pctl' --json plan >'$r/plan.json'"
check "plan again" sh -c "'$pctl' --json plan >'$r/plan-2.json'"
check "the cache is written" test -s $cache_file
planned=$(jget "$r/plan-2.json" "[p['driver'] for a in d['algorithms'] if a['name'] == 'xts(aes)' for p in a['places']][0]")
check "the plan puts xts(aes) on the CPU ($planned)" \
	test "$(proc_crypto_field "$planned" module)" = "$cpu_aes_module"
# The hook's drop-in: the initramfs measures nothing.
dropin=/usr/lib/cryptoprio.conf.d/zz-initramfs-calibrate-cached.conf
mkdir -p "${dropin%/*}"
printf '[Policy]\nCalibrate = cached\n' >$dropin
check "from the cache alone, the plan has every figure it needs" \
	sh -c "'$pctl' --json plan >'$r/plan-cached.json'"
check "(none unmeasured)" \
	test "$(jget "$r/plan-cached.json" "d['calibration']['points_unmeasured']")" = 0
cp /etc/cryptoprio.conf "$rb/cryptoprio.conf"
cp $cache_file "$rb/calibration.json"

# 5. The boot script as the initramfs runs it (Calibrate = cached: the
# hook's drop-in), with the cache missing, then made for another kernel:
# the names that need figures, xts(aes) among them, keep the kernel's
# order and the console names them; what the policy decides without
# figures (the CPU's composites of names only the engine serves, placed by
# their gear) is applied, and reset puts it back. (The boot "stale" boots
# such an initramfs.) Its apply --cached-only's document goes with the
# others against the schema.
boot_script() {
	sh /usr/share/initramfs-tools/scripts/init-premount/cryptoprio >"$r/boot-$1.txt" 2>&1
	cat "$r/boot-$1.txt"
	mkdir -p "$r/json"
	cp /run/cryptoprio/initramfs-apply.json "$r/json/initramfs-apply-$1.json"
}
xts_left_to_the_kernel() {
	check "$1: the boot script names xts(aes) among the names left in the kernel's order" \
		grep -q "left in the kernel's order.*xts(aes)" "$r/boot-$1.txt"
	check "$1: the document lists xts(aes) in left_out" \
		test "$(jget "$r/json/initramfs-apply-$1.json" "'xts(aes)' in d['left_out']")" = True
	check "$1: $eng still first" test "$(first_of 'xts(aes)')" = $eng
	check "$1: reset" "$pctl" reset
	check "$1: every priority as before" priorities_as "$r/prio-before.txt"
}
priority_snapshot >"$r/prio-before.txt"
mv $cache_file $cache_file.good
boot_script no-cache
xts_left_to_the_kernel no-cache
sed "s/$kver/0.0.0-other/g" $cache_file.good >$cache_file
check "the other kernel's cache differs" not cmp -s $cache_file.good $cache_file
boot_script other-kernel
xts_left_to_the_kernel other-kernel
mv $cache_file.good $cache_file
