# dm-crypt, a real client, against an engine's xts(aes): cp_caam_engine
# registers xts-aes-cp-caam at 3000 without CRYPTO_ALG_ALLOCATES_MEMORY, as
# an engine that preallocates would, so dm-crypt (which masks that flag out)
# may get it. A mapping opened
#   - before apply is served by the engine;
#   - after apply under the default policy, by the CPU;
#   - under "Gears = offload cpu", by the CPU still while the engine was
#     never verified (Calibrate = never); by the engine again once a
#     calibration through cryptoprio.ko has verified it;
#   - after reset, by the engine, with xts(aes)'s implementations and their
#     priorities exactly as before cryptoprio ran.
# Which implementation a mapping got is read from /proc/crypto's refcnt.
# Sectors written through the engine read back the same through the CPU:
# the two agree on the cipher, not only on the order.
#
# Kernel-dependent (dm-crypt; the default policy applied where apply-default
# does not run): every kernel by rotation.
r=$CP_RESULTS
eng=xts-aes-cp-caam
modprobe_q "$cpu_aes_module" crypto_user dm_crypt loop authenc
for m in xts ecb cbc ctr gcm crypto-sha256 crypto-hmac; do
	modprobe -q "$m" || log "modprobe $m failed (built in?)"
done
base=$(dmesg | wc -l)
check "insmod cp_caam_engine.ko" insmod "$CP_KMOD/cp_caam_engine.ko"
check "$eng passed its self-test" wait_for_driver $eng 120
wait_before_measuring cp_caam_engine "$cpu_aes_module"

# xts_priorities: "DRIVER PRIORITY" for each implementation named xts(aes)
xts_priorities() {
	awk '$1 == "name" { n = $3 } $1 == "driver" { d = $3 }
	     $1 == "priority" && n == "xts(aes)" { print d, $3 }' /proc/crypto | sort -u
}

truncate -s 8M /tmp/dm-disk.img
loopdev=$(losetup -f --show /tmp/dm-disk.img)
sectors=$(blockdev --getsz "$loopdev")
key=$(printf '%064x%064x' 1 2)  # 512-bit XTS key: two AES-256 keys
head -c 1M /dev/urandom >/tmp/plain
# open_mapping: create the crypt mapping; print the xts(aes) driver whose
# refcnt it raised (dm-crypt holds its tfms while the mapping exists)
open_mapping() {
	local held
	held=$(held_by 'xts(aes)' dmsetup --noudevsync create cpx --table \
		"0 $sectors crypt aes-xts-plain64 $key 0 $loopdev 0") || return 1
	dmsetup --noudevsync mknodes cpx >&2
	printf '%s\n' "$held" | awk '{ print $1 }'
}
close_mapping() { dmsetup --noudevsync remove cpx; }
read_back() {
	dd if=/dev/mapper/cpx bs=64k count=16 iflag=direct status=none | cmp -s - /tmp/plain
}
# served_by DRIVER STEP: a mapping opened now is DRIVER's, and reads back
# what the first one wrote
served_by() {
	local got
	got=$(open_mapping)
	log "$2: dm-crypt got ${got:-nothing}"
	check "$2: dm-crypt is served by $1" test "$got" = "$1"
	check "$2: the sectors read back as written" read_back
	close_mapping
}

xts_priorities >"$r/xts-before.txt"
priority_snapshot >"$r/prio-before.txt"
policy_uncalibrated ""

# 0. the premise: the engine, at 3000, is dm-crypt's
got=$(open_mapping)
log "before apply: dm-crypt got ${got:-nothing}"
check "before apply: dm-crypt is served by the engine" test "$got" = $eng
check "write 1 MiB through the engine" \
	dd if=/tmp/plain of=/dev/mapper/cpx bs=64k oflag=direct conv=fsync status=none
check "read back through the engine" read_back
check "what reached the disk is not the plain text" \
	sh -c '! head -c 1M "$0" | cmp -s - /tmp/plain' "$loopdev"
close_mapping

# 1. the default policy: the CPU first
rc=0
"$ctl" --json apply >"$r/apply.json" || rc=$?
check "apply exits 0" test $rc = 0
first=$(first_of 'xts(aes)')
log "xts(aes) handed out first: $first"
check "apply: a CPU driver of xts(aes) is first ($first)" \
	sh -c 'test -n "$0" && test "$0" != "$1"' "$first" $eng
served_by "$first" "default policy"

# 2. Gears = offload cpu, the engine never verified (Calibrate = never):
# still after the CPU, and the plan says why
policy_uncalibrated "Gears = offload cpu"
check "offload cpu, not verified: apply exits 0" \
	sh -c "'$ctl' --json apply >'$r/apply-unverified.json'"
show "$r/apply-unverified.json" 'xts(aes)'
check "offload cpu, not verified: $eng placed as unverified" py '
d = json.load(open(sys.argv[1]))
p = [p for a in d["algorithms"] if a["name"] == "xts(aes)" for p in a["places"] if p["driver"] == sys.argv[2]][0]
assert p["reason"] == "unverified" and "not verified: after the CPU" in p["why"], p' \
	"$r/apply-unverified.json" $eng
check "offload cpu, not verified: xts(aes) still the CPU's" test "$(first_of 'xts(aes)')" != $eng

# 2b. calibrated through the module, the engine verified: first again
check "insmod cryptoprio.ko" insmod "$CP_KMOD/cryptoprio.ko"
check "calibrate xts(aes): the engine verified" sh -c \
	"'$ctl' --json calibrate 'xts(aes)' --budget 30s >'$r/calibrate.json'"
check "calibrate: $eng passed its verification" test "$(jget "$r/calibrate.json" \
	"[i['verification']['verdict'] for a in d['algorithms'] for i in a['implementations'] if i['driver'] == '$eng'][0]")" = passed
# (apply verifies again what the cache did not keep: a budget cut its
# runs short on a busy host, and the pass is kept with the figures)
printf '[Policy]\nGears = offload cpu\nCalibrationBudget = 5s\n' >/etc/cryptoprio.conf
check "offload cpu, verified: apply exits 0" sh -c "'$ctl' --json apply >'$r/apply-offload.json'"
served_by $eng "offload cpu"

# 3. reset: the engine, and xts(aes) as the kernel had it
policy_uncalibrated ""
check "default policy again: apply exits 0" sh -c "'$ctl' apply >/dev/null"
check "reset exits 0" sh -c "'$ctl' reset >'$r/reset.txt' 2>&1"
served_by $eng "after reset"
xts_priorities >"$r/xts-after.txt"
check "after reset: xts(aes)'s implementations and priorities as before" \
	diff "$r/xts-before.txt" "$r/xts-after.txt"
check "after reset: every priority as before" priorities_as "$r/prio-before.txt"

losetup -d "$loopdev"
check "rmmod cp_caam_engine" wait_until 20 rmmod cp_caam_engine
dmesg | tail -n +"$((base + 1))" >"$r/dmesg.txt"
check "kernel log: no oops, BUG or warning" \
	kernel_log_clean "$r/dmesg.txt"
