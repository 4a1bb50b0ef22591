# Differential verification (cryptoprioctl verify, the module's VERIFY):
# the test engine's faults of one shape (mode sgmulti, len64, key192, big)
# keep its self-test and the known-answer check of calibrate ok, and are
# found by verify, with a failing case its seed reproduces; a correct
# engine passes under several seeds; types not verified yet are said so;
# an engine that hangs during verify pins the module until it completes,
# then nothing is left.
#
# In CI on 7.2.
p=/sys/module/cp_test_engine/parameters
r=$CP_RESULTS
drv=cp_test_engine_cbc_aes
modprobe_q "$cpu_aes_module" crypto_user

check "insmod cryptoprio.ko" insmod "$CP_KMOD/cryptoprio.ko"
check "insmod cp_test_engine.ko" insmod "$CP_KMOD/cp_test_engine.ko"
check "$drv passed its self-test" wait_for_driver "$drv"
check "cp_test_engine_sha256 passed its self-test" wait_for_driver cp_test_engine_sha256
wait_before_measuring cp_test_engine "$cpu_aes_module"
base=$(dmesg | wc -l)

# verify FILE ARGS...: `cryptoprioctl verify --json ARGS` into FILE, its
# exit status in $rc.
verify() {
	local f=$1
	shift
	rc=0
	"$ctl" verify --json "$@" >"$f" 2>"$f.err" || rc=$?
}
# engine_field FILE EXPR [DRIVER]: EXPR of i, DRIVER's entry (default the
# engine's) in FILE.
engine_field() {
	jget "$1" "(lambda i: ($2))([i for i in d['implementations'] if i['driver'] == '${3:-$drv}'][0])"
}

for seed in 1 2 3 4 5; do
	verify "$r/ok-$seed.json" "$drv" --seed "$seed"
	check "mode ok, seed $seed: passed, 48 cases against a reference, exit 0" \
		test "$rc $(engine_field "$r/ok-$seed.json" "i['verdict'], i['cases'], i['seed'], i['reference'] not in (None, '$drv')")" = \
		"0 ('passed', 48, $seed, True)"
done

# cbc(aes): the CPU's implementations pass (the reference, where listed,
# is the yardstick), sha256 (a hash) is not verified yet; the table says
# so too.
verify "$r/all.json" 'cbc(aes)' sha256 --cases 8 --seed 7
jget "$r/all.json" "'\\n'.join('%s %s %s' % (i['driver'], i['verdict'], i.get('reason', '')) for i in d['implementations'])"
check "cbc(aes) and sha256: exit 0, all passed against another driver, sha256 not verified" \
	test "$rc $(jget "$r/all.json" "(all(i['verdict'] == 'reference' or (i['verdict'] == 'passed' and i['reference'] not in (None, i['driver'])) for i in d['implementations'] if i['type'] == 'skcipher'), all(i['verdict'] == 'not-verified' and 'skcipher only for now' in i['reason'] for i in d['implementations'] if i['type'] != 'skcipher'), any(i['type'] == 'hash' for i in d['implementations']))")" = \
	"0 (True, True, True)"
"$ctl" verify cp_test_engine_sha256 "$drv" --cases 4 --seed 9 >"$r/table.txt" || true
cat "$r/table.txt"
check "the table: the engine passed with its seed, sha256 not verified" \
	sh -c "grep -Eq '^$drv +passed +4 +9 ' '$r/table.txt' && grep -q 'not-verified.*type hash: skcipher only for now' '$r/table.txt'"
rc=0
"$ctl" verify "$drv" --cases 1025 2>"$r/bad-cases.err" || rc=$?
check "--cases 1025 refused (exit 2), and why" \
	sh -c "test $rc = 2 && grep -q \"bad --cases '1025' (1..1024)\" '$r/bad-cases.err'"

# shape_ok MODE FAILURE: the failing case is of MODE's shape, seed 42's.
shape_ok() {
	python3 - "$1" "$2" <<'PY'
import re, sys
mode, text = sys.argv[1], sys.argv[2]
m = re.search(r"^case \d+ of seed 42: (encrypt|decrypt) (\d+) bytes, (\d+)-byte key, "
              r"(in place|out of place), src (.*): output differs", text)
if not m:
    sys.exit("not a case of seed 42 whose output differs: " + text)
n, key, layout = int(m.group(2)), int(m.group(3)), m.group(5)
ok = {"sgmulti": "entries" in layout, "len64": n % 64 != 0, "key192": key == 24,
      "big": n > 16384}[mode]
sys.exit(0 if ok else "not of the shape of mode " + mode)
PY
}

for mode in sgmulti len64 key192 big; do
	echo "$mode" >"$p/mode"
	check "mode $mode: the self-test passed (/proc/crypto)" \
		test "$(proc_crypto_field "$drv" selftest)" = passed
	check "mode $mode: calibrate's known answer ok (4 KiB)" \
		test "$(kat "$drv" "$r/kat-$mode.json" --size 4096)" = ok
	verify "$r/$mode.json" "$drv" --seed 42 --cases 256
	failure=$(engine_field "$r/$mode.json" "i['failure']") || failure=
	log "mode $mode: $failure"
	check "mode $mode: verify finds the engine faulty (exit 4)" \
		test "$rc $(engine_field "$r/$mode.json" "i['verdict']")" = "4 failed"
	check "mode $mode: the failing case is of the mode's shape, with its seed" \
		shape_ok "$mode" "$failure"
	verify "$r/$mode-again.json" "$drv" --seed 42 --cases 256
	check "mode $mode: the same seed reproduces the same case" \
		test "$(engine_field "$r/$mode-again.json" "i['failed_case'], i['failure']")" = \
		"$(engine_field "$r/$mode.json" "i['failed_case'], i['failure']")"
done
echo ok >"$p/mode"

# Memory: verifications free what they take (a leak of their buffers
# would be 512 KiB each, 10 MiB over twenty). Free memory moves by some
# 3 MB either way between rounds of ten (6.12), so the twenty are judged
# together.
free_kb() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	awk '/^MemFree/ { print $2 }' /proc/meminfo
}
ten_verifications() {
	for seed in $(seq 10 19); do "$ctl" verify "$drv" --seed "$seed" --cases 4 >/dev/null || true; done
}
free_before=$(free_kb)
ten_verifications
free_warm=$(free_kb)
ten_verifications
free_after=$(free_kb)
log "MemFree before ten verifications ${free_before} kB, after ${free_warm} kB, after ten more ${free_after} kB"
check "twenty verifications: less than 4 MiB of free memory gone" \
	test $((free_before - free_after)) -lt 4096
if [[ -w /sys/kernel/debug/kmemleak ]]; then
	echo scan >/sys/kernel/debug/kmemleak
	check "kmemleak: nothing of cryptoprio's" not grep -q cryptoprio /sys/kernel/debug/kmemleak
else
	log "no kmemleak in this kernel: the free-memory check above stands for it"
fi

# mode hang: the case is a failure that says so, its run kept (pinned)
# until the engine answers; then released and the module unloads.
echo hang >"$p/mode"
verify "$r/hang.json" "$drv" --seed 3 --cases 4
log "mode hang: $(engine_field "$r/hang.json" "i['failure']")"
check "mode hang: verify says faulty, no answer within the grace period (exit 4)" \
	test "$rc $(engine_field "$r/hang.json" "i['verdict'], 'no answer within the grace period' in i['failure']")" = \
	"4 ('failed', True)"
check "mode hang: its run kept (kept_runs)" grep -q "^$drv " /sys/module/cryptoprio/parameters/kept_runs
check "mode hang: rmmod cryptoprio refused while the engine holds its request" not rmmod cryptoprio
echo ok >"$p/mode"
check "the engine completes: the run's memory released" \
	wait_until 10 sh -c "dmesg | grep -q '$drv: late requests completed, memory released'"
check "rmmod cryptoprio works once released" wait_until 10 rmmod cryptoprio
check "rmmod cp_test_engine works" rmmod cp_test_engine
dmesg | tail -n +"$((base + 1))" >"$r/dmesg.txt"
check "kernel log since the first verification: no oops, BUG or warning" \
	kernel_log_clean "$r/dmesg.txt"
