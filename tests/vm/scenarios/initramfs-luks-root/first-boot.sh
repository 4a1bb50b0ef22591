# first-boot.sh (sourced by the test.sh of initramfs-luks-root and of
# initramfs-dracut-luks-root, in the guest): what the second boot of either
# needs, whichever tool makes its initramfs:
#   - the LUKS2 root (make-root, cached by its inputs in the VM cache);
#   - the package cryptoprio from build/debs, installed as dpkg would;
#   - the policy (the default: the CPU first) and a calibration cache
#     measured here, with the modules the initramfs will have: the CPU's
#     AES and cp_caam_engine, whose xts-aes-cp-caam (3000, without
#     ALLOCATES_MEMORY) dm-crypt would get.
# Leaves in RESDIR/reboot (rb) the root, its key, the policy and the cache.
luks_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
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
key=$(cat "$luks_dir/make-root" "$luks_dir/root-init" /bin/busybox | sha256sum | cut -c1-16)
cached=$CP_VM_CACHE/luks-root/$key
if [[ -f $cached/disk.img && -f $cached/disk.key ]]; then
	log "LUKS2 root from $cached"
	cp --sparse=always "$cached/disk.img" "$cached/disk.key" "$rb/"
else
	start=$SECONDS
	mkdir -p /tmp/luks-root
	check "make the LUKS2 root" bash "$luks_dir/make-root" /tmp/luks-root
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

# 4. The policy (CPU first) and its figures, measured now into the cache:
# with the modules the initramfs has (the hook's templates, the root's file
# system) loaded, and twice, for the names that what the first measured
# loaded makes compete; up to twice more while a plan leaves points
# unmeasured (a busy machine: arm64's 6.12 beside another VM took 13 of
# 19 points in its first 60 s, 6 in the second). The cache is a superset
# of what the initramfs needs.
for m in authenc authencesn echainiv seqiv gcm ccm ghash-generic hmac cbc ctr ecb xts \
	cryptd crypto_simd ext4; do
	modprobe -q "$m" || log "modprobe $m failed (built in?)"
done
printf '[Policy]\nCalibrationBudget = 60s\n' >/etc/cryptoprio.conf
mkdir -p /var/lib/cryptoprio
check "plan measures what the order needs" sh -c "'$pctl' --json plan >'$r/plan.json'"
for i in 2 3 4; do
	last=$r/plan-$i.json
	check "plan again ($i)" sh -c "'$pctl' --json plan >'$last'"
	[[ $(jget "$last" "d['calibration']['points_unmeasured']") != 0 ]] || break
done
check "the cache is written" test -s $cache_file
planned=$(jget "$last" "[p['driver'] for a in d['algorithms'] if a['name'] == 'xts(aes)' for p in a['places']][0]")
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

