# Engines that break the crypto API's expectations (tests/kmod/
# cp_test_engine.ko, cryptoprio(4) "BOUNDS"): one that completes from hard
# IRQ is calibrated without the module calling into it from hard IRQ (the
# engine queues as cryptd does, so such a call warns); one that answers
# -EBUSY for a backlogged request and drops it leaves one zombie run, logged
# once, that ends the calibration within budget + grace, refuses the
# driver's next calibration, pins cryptoprio.ko and the engine, and shows
# in cryptoprioctl status (the module's kept_runs).
#
# In CI on 7.2, and on arm64's 6.12 as its one boot of the module; the
# completion callbacks' forms differ from 6.12 on.
p=/sys/module/cp_test_engine/parameters
r=$CP_RESULTS
modprobe_q "$cpu_aes_module" crypto_user

check "insmod cryptoprio.ko" insmod "$CP_KMOD/cryptoprio.ko"
check "insmod cp_test_engine.ko" insmod "$CP_KMOD/cp_test_engine.ko"
check "cp_test_engine_cbc_aes passed its self-test" wait_for_driver cp_test_engine_cbc_aes
check "cp_test_engine_sha256 passed its self-test" wait_for_driver cp_test_engine_sha256
wait_before_measuring cp_test_engine "$cpu_aes_module"
base=$(dmesg | wc -l)
since() { dmesg | tail -n +$((base + 1)); }

# completion=hardirq: every callback from a hard-IRQ hrtimer.
echo hardirq >"$p/completion"
check "completion hardirq: cbc(aes) known answer ok" \
	test "$(kat cp_test_engine_cbc_aes "$r/hardirq.json" --size 4096 --depth 4 --budget 200)" = ok
check "completion hardirq: 4 requests in flight, requests measured" \
	test "$(jget "$r/hardirq.json" "'%d %s' % (d['results'][0]['max_in_flight'], d['results'][0]['requests'] > 4)")" = "4 True"
check "completion hardirq: sha256 known answer ok" \
	test "$(kat cp_test_engine_sha256 "$r/hardirq-sha.json" --size 4096 --depth 4 --budget 200)" = ok
since >"$r/dmesg-hardirq.txt"
check "completion hardirq: no warning in the kernel log" kernel_log_clean "$r/dmesg-hardirq.txt"
echo async >"$p/completion"

# mode=busydrop: -EBUSY, then nothing.
ok_ms=$(ms_of "$ctl" calibrate --raw cp_test_engine_cbc_aes --size 4096 --depth 4 --budget 200)
priority_snapshot >"$r/before.txt"
refs=$(cat /sys/module/cryptoprio/refcnt)
base=$(dmesg | wc -l)
echo busydrop >"$p/mode"
t0=$(date +%s%N)
rc=0
err=$("$ctl" calibrate --raw cp_test_engine_cbc_aes --size 4096 --depth 4 --budget 200 2>&1 >/dev/null) || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
log "busydrop: exit $rc after $ms ms (working: $ok_ms ms): $err"
check "mode busydrop: calibrate fails (exit 1) with ETIMEDOUT" \
	sh -c '[ "$0" = 1 ] && grep -q "Connection timed out" <<EOT
$1
EOT' "$rc" "$err"
check "mode busydrop: answered within a working run's time + 2 x grace (+2 s slack)" \
	test "$ms" -le $((ok_ms + 6000))
check "mode busydrop: the engine dropped requests" test "$(cat "$p/dropped")" -gt 0
zombie='cp_test_engine_cbc_aes: .* not completed .*module pinned'
check "mode busydrop: the zombie is logged" sh -c "dmesg | grep -q '$zombie'"
check "mode busydrop: a second calibration of the driver is refused" \
	expect_fail 'earlier run of this driver still has requests outstanding' \
	"$ctl" calibrate --raw cp_test_engine_cbc_aes --size 4096 --depth 4 --budget 200
check "mode busydrop: the zombie is logged once" \
	test "$(dmesg | grep -c "$zombie")" = 1
check "rmmod cryptoprio refused while the zombie lasts" not rmmod cryptoprio
check "cryptoprio still loaded" grep -q '^cryptoprio ' /proc/modules
check "the zombie shows in /sys/module/cryptoprio/refcnt (one more)" \
	test "$(cat /sys/module/cryptoprio/refcnt)" = $((refs + 1))
check "the engine cannot be unloaded either" not rmmod cp_test_engine
"$ctl" status >"$r/status.txt" || true
"$ctl" status --json >"$r/status.json" || true
check "status shows the kept run: 4 requests out, the engine's module pinned" \
	grep -q '^  cp_test_engine_cbc_aes: 4 requests out, .* KiB pinned' "$r/status.txt"
check "and so does status --json" \
	test "$(jget "$r/status.json" "[(k['driver'], k['outstanding']) for k in d['kept_runs']]")" \
	= "[('cp_test_engine_cbc_aes', 4)]"
check "$cpu_cbc calibrates meanwhile" \
	test "$(kat "$cpu_cbc" "$r/after.json" --size 4096 --budget 200)" = ok
check "/proc/crypto as it was" cmp "$r/before.txt" <(priority_snapshot)
since >"$r/dmesg-busydrop.txt"
check "no warning in the kernel log" kernel_log_clean "$r/dmesg-busydrop.txt"
