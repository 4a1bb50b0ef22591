# Differential verification of skciphers (cryptoprioctl verify, the
# module's VERIFY): the test engine's faults of one shape (mode sgmulti,
# len64, key192, big), that come with use (wrong_after) or with load
# (crosstalk: two transforms' requests in the engine at once) keep its
# self-test and calibrate's known-answer check ok, and are found by
# verify (crosstalk by its cases together only), with a failing case its
# seed reproduces; a correct engine passes under several seeds, QEMU's
# virtio-crypto too; xts has its
# reference (xts(ecb(...))); twenty verifications leave free memory as it
# was; an engine that hangs during verify, alone or in a round together,
# pins the module until it completes, then nothing is left; each
# verification's time said, and on a terminal a line as each ends. AEADs:
# module-verify-aead; hashes: module-verify-hash; compressors:
# module-verify-acomp; rsa and ecdh: module-verify-pubkey;
# the calibration's verification: calibrate-verify.
#
# In CI on 7.2.
p=/sys/module/cp_test_engine/parameters
r=$CP_RESULTS
drv=cp_test_engine_cbc_aes
load_test_engine "$drv" cp_test_engine_rsa

# QEMU's virtio-crypto, the engine every guest has: its cbc(aes) through
# the whole verification, the cases of a seed; unloaded after, once its
# self-tests (virtio-crypto-rsa's fails in QEMU, with a warning) are over.
modprobe_q virtio_pci virtio_crypto
check "virtio_crypto_aes_cbc passed its self-test" wait_for_driver virtio_crypto_aes_cbc 60
wait_before_measuring virtio_crypto
base=$(dmesg | wc -l)
for seed in 21; do
	verify_json "$r/virtio-$seed.json" virtio_crypto_aes_cbc --seed "$seed"
	log "virtio_crypto_aes_cbc, seed $seed: $(impl_field "$r/virtio-$seed.json" "i['verdict'], i['cases'], i.get('failure')" virtio_crypto_aes_cbc)"
	check "virtio_crypto_aes_cbc, seed $seed: passed 48 cases, exit 0" \
		test "$rc $(impl_field "$r/virtio-$seed.json" "i['verdict'], i['cases']" virtio_crypto_aes_cbc)" = \
		"0 ('passed', 48)"
done
check "rmmod virtio_crypto" wait_until 20 rmmod virtio_crypto

for seed in 1 2 3; do
	verify_json "$r/ok-$seed.json" "$drv" --seed "$seed"
	check "mode ok, seed $seed: passed, 48 cases against a reference, exit 0" \
		test "$rc $(impl_field "$r/ok-$seed.json" "i['verdict'], i['cases'], i['seed'], i['reference'] not in (None, '$drv')" "$drv")" = \
		"0 ('passed', 48, $seed, True)"
done

# cbc(aes) and rsa: the CPU's implementations pass (the reference, where
# listed, is the yardstick), and so do the engines; the table says so too.
verify_json "$r/all.json" 'cbc(aes)' rsa --cases 8 --seed 7
jget "$r/all.json" "'\\n'.join('%s %s %s' % (i['driver'], i['verdict'], i.get('reason', '')) for i in d['implementations'])"
check "cbc(aes) and rsa: exit 0, all passed against another driver, rsa's engine too" \
	test "$rc $(jget "$r/all.json" "(all(i['verdict'] == 'reference' or (i['verdict'] == 'passed' and i['reference'] not in (None, i['driver'])) for i in d['implementations']), [i['verdict'] for i in d['implementations'] if i['driver'] == 'cp_test_engine_rsa'])")" = \
	"0 (True, ['passed'])"
"$ctl" verify cp_test_engine_rsa "$drv" --cases 4 --seed 9 >"$r/table.txt" || true
cat "$r/table.txt"
check "the table: each engine passed with its seed and its time" \
	sh -c "grep -Eq '^$drv +passed +4 +9 +[0-9]+(ms|s) +as ' '$r/table.txt' && grep -Eq '^cp_test_engine_rsa +passed +4 +9 +[0-9]+(ms|s) +as ' '$r/table.txt'"
check "JSON: each verification's time, not nothing" \
	test "$(jget "$r/all.json" "all(i['elapsed_ns'] > 0 for i in d['implementations'])")" = True
# On a terminal (script(1) gives one), a line on stderr as each ends;
# not without one (verify_json's stderr above).
script -qec "$ctl verify $drv cp_test_engine_rsa --cases 4 --seed 9" /dev/null >"$r/tty.txt" || true
cat "$r/tty.txt"
check "on a terminal: a line as each ends, with its cases and time" \
	sh -c "grep -Eq 'verify [12]/2: $drv: passed, 4 cases, [0-9]+(ms|s)' '$r/tty.txt' && grep -Eq 'verify [12]/2: cp_test_engine_rsa: passed, 4 cases, [0-9]+(ms|s)' '$r/tty.txt'"
check "not on a terminal: no such line" not grep -Eq 'verify [0-9]+/[0-9]+: |verifying [0-9]+/' "$r/all.json.err"
rc=0
"$ctl" verify "$drv" --cases 1025 2>"$r/bad-cases.err" || rc=$?
check "--cases 1025 refused (exit 2), and why" \
	sh -c "test $rc = 2 && grep -q \"bad --cases '1025' (1..1024)\" '$r/bad-cases.err'"

for mode in sgmulti len64 key192 big; do
	echo "$mode" >"$p/mode"
	check "mode $mode: the self-test passed (/proc/crypto)" \
		test "$(proc_crypto_field "$drv" selftest)" = passed
	verify_finds_shape "$r" "$mode" "$drv"
done
echo ok >"$p/mode"

# wrong_after: right for its first requests, wrong from the N-th on (a
# fault that comes with use). The known answer, of the first requests, is
# right; verify's case 20, the engine's 21st request, is the first to fail.
echo 8 >"$p/wrong_after"
check "wrong_after 8: calibrate's known answer ok (4 KiB)" \
	test "$(kat "$drv" "$r/kat-late.json" --size 4096)" = ok
echo ok >"$p/mode"
echo 21 >"$p/wrong_after"
verify_json "$r/late.json" "$drv" --seed 42 --cases 256
log "wrong_after 21: $(impl_field "$r/late.json" "i['failure']" "$drv")"
check "wrong_after 21: verify finds the engine faulty at its 21st request (case 20)" \
	test "$rc $(impl_field "$r/late.json" "i['verdict'], i['failed_case']" "$drv")" = "4 ('failed', 20)"
echo 0 >"$p/wrong_after"
echo ok >"$p/mode"

# crosstalk: wrong only when requests of two transforms are in flight on
# the engine together (keys confused under load). The known answer, a
# verification whose cases all run alone (12 cases: no round together)
# pass; the default 48 cases' last 12 run in rounds of four transforms,
# and one of those fails, naming its round. Each request takes 2 ms, as
# a DMA engine's: a round's four meet in the engine whatever the load.
echo crosstalk >"$p/mode"
echo 2000 >"$p/latency_us"
check "mode crosstalk: calibrate's known answer ok (4 KiB)" \
	test "$(kat "$drv" "$r/kat-crosstalk.json" --size 4096)" = ok
verify_json "$r/crosstalk-alone.json" "$drv" --seed 42 --cases 12
check "mode crosstalk: 12 cases alone pass (exit 0)" \
	test "$rc $(impl_field "$r/crosstalk-alone.json" "i['verdict'], i['cases']" "$drv")" = "0 ('passed', 12)"
verify_json "$r/crosstalk.json" "$drv" --seed 42
failure=$(impl_field "$r/crosstalk.json" "i['failure']" "$drv") || failure=
log "mode crosstalk: $failure"
check "mode crosstalk: 48 cases find it faulty (exit 4), in a round together (case 36-47)" \
	test "$rc $(impl_field "$r/crosstalk.json" "i['verdict'], 36 <= i['failed_case'] <= 47, \"sent with 3 other transforms' requests: output differs\" in i['failure']" "$drv")" = \
	"4 ('failed', True, True)"
echo ok >"$p/mode"
verify_json "$r/together-ok.json" "$drv" --seed 42
echo 0 >"$p/latency_us"
check "mode ok: the same 48 cases pass, rounds together included" \
	test "$rc $(impl_field "$r/together-ok.json" "i['verdict'], i['cases']" "$drv")" = "0 ('passed', 48)"

# A round together whose second request never answers (hang_after: the
# 14th request of 16 cases, 12 alone; those after it hang too): the
# case says so, the round's others were waited for, and once the engine
# completes, every run is released and nothing is left.
released_before=$(late_releases)
echo 14 >"$p/hang_after"
verify_json "$r/together-hang.json" "$drv" --seed 8 --cases 16
log "a round hangs: $(impl_field "$r/together-hang.json" "i['failure']" "$drv")"
check "a round together hangs: faulty, case 13, no answer (exit 4)" \
	test "$rc $(impl_field "$r/together-hang.json" "i['verdict'], i['failed_case'], 'sent with 3 other transforms' in i['failure'] and 'no answer within the grace period' in i['failure']" "$drv")" = \
	"4 ('failed', 13, True)"
check "a round together hangs: its runs kept (kept_runs)" \
	grep -q "^$drv " /sys/module/cryptoprio/parameters/kept_runs
echo 0 >"$p/hang_after"
echo ok >"$p/mode"
check "the engine completes: the round's runs released" \
	wait_until 10 sh -c "! grep -q '^$drv ' /sys/module/cryptoprio/parameters/kept_runs"
check "... and said so" released_since "$released_before"

# xts(aes) of the CAAM-like engine (its own ciphertext stealing) against
# the reference the module builds, xts(ecb(aes-generic)) (xts names its
# instances after the ecb it takes): partial blocks and its three key
# sizes pass; in mode len64 a length not a multiple of 64 is found.
check "insmod cp_caam_engine.ko" insmod "$CP_KMOD/cp_caam_engine.ko"
check "xts-aes-cp-caam passed its self-test" wait_for_driver xts-aes-cp-caam
xts=xts-aes-cp-caam
verify_json "$r/xts.json" "$xts" --seed 11 --cases 24
check "xts-aes-cp-caam: passed 24 cases against xts(ecb(...)), exit 0" \
	test "$rc $(impl_field "$r/xts.json" "i['verdict'], i['cases'], i['reference'].startswith('xts(ecb(')" "$xts")" = \
	"0 ('passed', 24, True)"
echo len64 >/sys/module/cp_caam_engine/parameters/mode
verify_json "$r/xts-len64.json" "$xts" --seed 11 --cases 24
failure=$(impl_field "$r/xts-len64.json" "i['failure']" "$xts") || failure=
log "xts mode len64: $failure"
n=0
[[ $failure =~ crypt\ ([0-9]+)\ bytes ]] && n=${BASH_REMATCH[1]}
check "xts-aes-cp-caam mode len64: faulty (exit 4), of a length not a multiple of 64 ($n)" \
	test "$rc $((n % 64 != 0))" = "4 1"
echo ok >/sys/module/cp_caam_engine/parameters/mode
check "rmmod cp_caam_engine" wait_until 20 rmmod cp_caam_engine

# Memory: verifications free what they take (a leak of their buffers
# would be 512 KiB each, 10 MiB over twenty). Free memory counts the
# per-CPU lists' pages (lib.sh's free_kb): without them, 6.12's "free"
# fell 11 MB over ten verifications that left nothing behind.
ten_verifications() {
	for seed in $(seq 10 19); do "$ctl" verify "$drv" --seed "$seed" --cases 4 >/dev/null || true; done
}
free_before=$(free_kb)
ten_verifications
free_warm=$(free_kb)
ten_verifications
free_after=$(free_kb)
log "free memory before ten verifications ${free_before} kB, after ${free_warm} kB, after ten more ${free_after} kB"
check "twenty verifications: less than 2 MiB of free memory gone" \
	test $((free_before - free_after)) -lt 2048
if [[ -w /sys/kernel/debug/kmemleak ]]; then
	echo scan >/sys/kernel/debug/kmemleak
	check "kmemleak: nothing of cryptoprio's" not grep -q cryptoprio /sys/kernel/debug/kmemleak
else
	log "no kmemleak in this kernel: the free-memory check above stands for it"
fi

# mode hang: the case is a failure that says so, its run kept (pinned)
# until the engine answers; then released and the module unloads.
released_before=$(late_releases)
echo hang >"$p/mode"
verify_json "$r/hang.json" "$drv" --seed 3 --cases 4
log "mode hang: $(impl_field "$r/hang.json" "i['failure']" "$drv")"
check "mode hang: verify says faulty, no answer within the grace period (exit 4)" \
	test "$rc $(impl_field "$r/hang.json" "i['verdict'], 'no answer within the grace period' in i['failure']" "$drv")" = \
	"4 ('failed', True)"
check "mode hang: its run kept (kept_runs)" grep -q "^$drv " /sys/module/cryptoprio/parameters/kept_runs
check "mode hang: rmmod cryptoprio refused while the engine holds its request" not rmmod cryptoprio
echo ok >"$p/mode"
check "the engine completes: the run's memory released" \
	wait_until 10 released_since "$released_before"
check "rmmod cryptoprio works once released" wait_until 10 rmmod cryptoprio
check "rmmod cp_test_engine works" rmmod cp_test_engine
dmesg | tail -n +"$((base + 1))" >"$r/dmesg.txt"
check "kernel log since the first verification: no oops, BUG or warning" \
	kernel_log_clean "$r/dmesg.txt"
