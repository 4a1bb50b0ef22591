# The encrypted root opened by the initramfs, with cryptoprio's
# initramfs-tools hook (the package's, from build/debs). This VM makes what
# the second boot (executable "reboot", tests/vm/README.md) needs
# (first-boot.sh: the LUKS2 root, the package, the policy and its cache).
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
. "$CP_SCENARIO_DIR/first-boot.sh"
check "the package ships the hook" test -x /usr/share/initramfs-tools/hooks/cryptoprio
check "the package ships the boot script" \
	test -x /usr/share/initramfs-tools/scripts/init-premount/cryptoprio

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
