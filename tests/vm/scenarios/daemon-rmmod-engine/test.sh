# An administrator removes an engine's module while cryptoprio-daemon is
# measuring it. The daemon holds a transform of the engine only while it
# measures one of its drivers (cryptoprio(4): the run's reference on the
# engine's module lasts one command), so the administrator's rmmod, retried
# while it says "in use" as modprobe -r --wait does, succeeds while the
# daemon still runs; the daemon goes on with the rest: a step for a driver
# that is gone is not a failure, and it exits 0.
#
# Kernel-dependent (a module removed under the daemon): every kernel through
# the rotation.
eng=cp_test_engine_cbc_aes
r=$CP_RESULTS
modprobe_q "$cpu_aes_module" crypto_user
for m in gcm ccm authenc echainiv; do modprobe -q "$m" || true; done
wait_for_driver "$cpu_cbc"
insmod "$CP_KMOD/cryptoprio.ko"
# 2 ms per request: each of the engine's eight drivers takes a while to measure
insmod "$CP_KMOD/cp_test_engine.ko" latency_us=2000
for d in $eng cp_test_engine_sha256 cp_test_engine_echainiv_authenc_hmac_sha256_cbc_aes; do
	wait_for_driver $d 60
done
check "the kernel's self-tests of the engine end" wait_for_selftests cp_test_engine 60
check "nothing holds the engine" test "$(cat /sys/module/cp_test_engine/refcnt)" = 0

# at 3000 the engine leads cbc(aes): the default policy plans to lower it
"$CP_BUILD/cli/cryptoprioctl" set $eng 3000
printf '[Policy]\nCalibrationBudget = 20s\n' >/run/cp-rmmod.conf
chmod 0644 /run/cp-rmmod.conf
rm -f /var/lib/cryptoprio/calibration.json
"$daemon" --once -c /run/cp-rmmod.conf 2>"$r/once.err" &
dpid=$!
engine_in_use() { test "$(cat /sys/module/cp_test_engine/refcnt)" -gt 0; }
check "the daemon measures the engine" wait_until 60 engine_in_use
# Retried while "in use", as modprobe -r --wait does, but at once: the
# engine is free only between the daemon's commands, a few ms at a time,
# and once its drivers are measured the daemon is soon done (on 6.1 a
# retry every 200 ms came 1.4 s late, after the daemon had exited).
rmmod_when_free() {
	local i
	for ((i = 0; i < 1500; i++)); do
		rmmod cp_test_engine 2>/dev/null && return 0
	done
	return 1
}
t0=$(date +%s%N)
check "rmmod, retried while in use, removes the engine while the daemon runs" rmmod_when_free
log "removed after $((($(date +%s%N) - t0) / 1000000)) ms"
check "the daemon was still running then" kill -0 $dpid
check "the engine's drivers are gone" not grep -q "^driver *: cp_test_engine" /proc/crypto
rc=0
wait $dpid || rc=$?
cat "$r/once.err"
check "the daemon exits 0 (exit $rc)" test "$rc" = 0
check "no step failed" grep -qE '^cryptoprio-daemon: Policy applied \(start\): [0-9]+ changed, 0 failed' "$r/once.err"
check "the engine's step: gone, not failed" grep -qE "$eng.*gone" "$r/once.err"
check "the rest was applied: $cpu_cbc is the cbc(aes) winner" test "$(first_of 'cbc(aes)')" = "$cpu_cbc"
check "cryptoprio.ko holds nothing (refcnt 0)" test "$(cat /sys/module/cryptoprio/refcnt)" = 0
check "rmmod cryptoprio" rmmod cryptoprio
