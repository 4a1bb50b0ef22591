# A driver that claims smaller sizes than its algorithm's (cp_test_engine
# geometry=small: gcm(aes) an 8-byte IV and tag, the kernel's 12 and 16;
# sha256 a 16-byte digest, not 32) is faulty: known answer "mismatch", and
# the size that differs in the kernel log (and the extack). The reference
# is never run on buffers sized by the candidate's geometry, which would
# have it write its 16-byte tag past the end of the scatterlist and its
# 32-byte digest past a 16-byte heap buffer. No oops, slab or fortify
# report; /proc/crypto as it was; both modules unload.
#
# Passed on 6.1, 6.12 and 7.2 when written; the fix it checks is the
# module's on every kernel: by rotation.
modprobe_q crypto_user

base=$(dmesg | wc -l)
check "insmod cryptoprio.ko" insmod "$CP_KMOD/cryptoprio.ko"
check "insmod cp_test_engine.ko geometry=small" \
	insmod "$CP_KMOD/cp_test_engine.ko" geometry=small
for drv in gcm_aes sha256 hmac_sha256; do
	check "cp_test_engine_$drv passed its self-test" wait_for_driver "cp_test_engine_$drv"
done
wait_before_measuring cp_test_engine
check "gcm(aes) claims an 8-byte IV" test "$(proc_crypto_field cp_test_engine_gcm_aes ivsize)" = 8
check "gcm(aes) claims an 8-byte tag at most" test "$(proc_crypto_field cp_test_engine_gcm_aes maxauthsize)" = 8
check "sha256 claims a 16-byte digest" test "$(proc_crypto_field cp_test_engine_sha256 digestsize)" = 16

r=$CP_RESULTS
priority_snapshot >"$r/crypto-before.txt"

# logged DRIVER TEXT: the module said why since insmod
logged() { dmesg | tail -n +"$((base + 1))" | grep -F "cryptoprio: $1: $2"; }

# the honest ones of the same engine still pass
check "hmac(sha256), honest: known answer ok" \
	test "$(kat cp_test_engine_hmac_sha256 "$r/hmac.json" --budget 20ms --size 4096)" = ok
check "sha256: mismatch" test "$(kat cp_test_engine_sha256 "$r/sha.json" --budget 20ms --size 4096)" = mismatch
check "sha256: the digest size that differs, logged" logged cp_test_engine_sha256 "digest size 16, the reference sha256-"
check "gcm(aes): mismatch" test "$(kat cp_test_engine_gcm_aes "$r/gcm.json" --budget 20ms --size 4096)" = mismatch
check "gcm(aes) decrypt: mismatch" \
	test "$(kat cp_test_engine_gcm_aes "$r/gcm-dec.json" --budget 20ms --size 4096 --decrypt --depth 2)" = mismatch
check "gcm(aes): the IV size that differs, logged" logged cp_test_engine_gcm_aes "IV size 8, the reference gcm"

# calibrate: faulty, not ranked. 1 s: 50 ms let the CPU's first run
# spend it beside another VM, the engine not run at all.
"$ctl" --json calibrate sha256 --size 4096 --budget 1s --force >"$r/calibrate-sha256.json" || true
jget "$r/calibrate-sha256.json" "'\\n'.join('%s %s %s' % (i['driver'], i['points'][0]['verdict'], i['known_answer']) for a in d['algorithms'] for i in a['implementations'])" >"$r/calibrate-sha256.txt" || true
cat "$r/calibrate-sha256.txt"
check "calibrate sha256: the engine faulty, known answer mismatch" \
	grep -qx "cp_test_engine_sha256 faulty mismatch" "$r/calibrate-sha256.txt"

check "/proc/crypto as it was" priorities_as "$r/crypto-before.txt"
unload_test_engine

dmesg | tail -n +"$((base + 1))" >"$r/dmesg.txt"
check "kernel log since insmod: no oops, BUG, warning, slab or fortify report" \
	kernel_log_clean "$r/dmesg.txt" "Redzone|Poison overwritten|Object padding|slab_out_of_bounds|detected buffer overflow|memcpy: detected"
