# Differential verification (cryptoprioctl verify, the module's VERIFY):
# the test engine's faults of one shape (mode sgmulti, len64, key192, big)
# or that come with use (wrong_after) keep its self-test and the
# known-answer check of calibrate ok, and are
# found by verify, with a failing case its seed reproduces; a correct
# engine passes under several seeds, QEMU's virtio-crypto too; its AEADs
# (gcm, rfc4106, ccm, authenc, echainiv) pass, and gcm's faults of one
# shape are found as the cipher's, authenc's under long authentication
# keys (mode authkey) too; types not verified yet are said so;
# xts has its reference (xts(ecb(...)));
# calibrate verifies engines, and one that fails is faulty in its table,
# JSON and plan, one that passes is cached as such, one whose case never
# completes is a timeout (faulty even with Verify = no); twenty verifications
# leave free memory as it was; an engine that hangs during verify pins
# the module until it completes, then nothing is left.
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
# engine_field_all FILE EXPR: EXPR of i, the engine's entry in calibrate's FILE.
engine_field_all() {
	jget "$1" "(lambda i: ($2))([i for a in d['algorithms'] for i in a['implementations'] if i['driver'] == '$drv'][0])"
}

# QEMU's virtio-crypto, the engine every guest has: its cbc(aes) through
# the whole verification, the cases of a seed; unloaded after, once its
# self-tests (virtio-crypto-rsa's fails in QEMU, with a warning) are over.
modprobe_q virtio_pci virtio_crypto
check "virtio_crypto_aes_cbc passed its self-test" wait_for_driver virtio_crypto_aes_cbc 60
wait_before_measuring virtio_crypto
base=$(dmesg | wc -l)
for seed in 21; do
	verify "$r/virtio-$seed.json" virtio_crypto_aes_cbc --seed "$seed"
	log "virtio_crypto_aes_cbc, seed $seed: $(engine_field "$r/virtio-$seed.json" "i['verdict'], i['cases'], i.get('failure')" virtio_crypto_aes_cbc)"
	check "virtio_crypto_aes_cbc, seed $seed: passed 48 cases, exit 0" \
		test "$rc $(engine_field "$r/virtio-$seed.json" "i['verdict'], i['cases']" virtio_crypto_aes_cbc)" = \
		"0 ('passed', 48)"
done
check "rmmod virtio_crypto" wait_until 20 rmmod virtio_crypto

for seed in 1 2 3; do
	verify "$r/ok-$seed.json" "$drv" --seed "$seed"
	check "mode ok, seed $seed: passed, 48 cases against a reference, exit 0" \
		test "$rc $(engine_field "$r/ok-$seed.json" "i['verdict'], i['cases'], i['seed'], i['reference'] not in (None, '$drv')")" = \
		"0 ('passed', 48, $seed, True)"
done

# cbc(aes): the CPU's implementations pass (the reference, where listed,
# is the yardstick), sha256 (a hash) is not verified yet, the module says
# (EOPNOTSUPP); the table says so too.
verify "$r/all.json" 'cbc(aes)' sha256 --cases 8 --seed 7
jget "$r/all.json" "'\\n'.join('%s %s %s' % (i['driver'], i['verdict'], i.get('reason', '')) for i in d['implementations'])"
check "cbc(aes) and sha256: exit 0, all passed against another driver, sha256 not verified" \
	test "$rc $(jget "$r/all.json" "(all(i['verdict'] == 'reference' or (i['verdict'] == 'passed' and i['reference'] not in (None, i['driver'])) for i in d['implementations'] if i['type'] == 'skcipher'), all(i['verdict'] == 'not-verified' and 'skcipher and aead only for now' in i['reason'] for i in d['implementations'] if i['type'] != 'skcipher'), any(i['type'] == 'hash' for i in d['implementations']))")" = \
	"0 (True, True, True)"
"$ctl" verify cp_test_engine_sha256 "$drv" --cases 4 --seed 9 >"$r/table.txt" || true
cat "$r/table.txt"
check "the table: the engine passed with its seed, sha256 not verified" \
	sh -c "grep -Eq '^$drv +passed +4 +9 ' '$r/table.txt' && grep -q 'not-verified.*type hash: not verified: skcipher and aead only for now' '$r/table.txt'"
rc=0
"$ctl" verify "$drv" --cases 1025 2>"$r/bad-cases.err" || rc=$?
check "--cases 1025 refused (exit 2), and why" \
	sh -c "test $rc = 2 && grep -q \"bad --cases '1025' (1..1024)\" '$r/bad-cases.err'"

# shape_ok MODE FAILURE: the failing case is of MODE's shape, seed 42's
# (an AEAD's: the text's length, a layout over its AD and text).
shape_ok() {
	python3 - "$1" "$2" <<'PY'
import re, sys
mode, text = sys.argv[1], sys.argv[2]
m = re.search(r"^case \d+ of seed 42: (encrypt|decrypt) (\d+) bytes, (\d+)-byte key, "
              r"(?:\d+-byte authentication key, )?(?:AD (\d+), tag \d+, )?(?:bit \d+ flipped, )?"
              r"(in place|out of place), src (.*): output differs", text)
if not m:
    sys.exit("not a case of seed 42 whose output differs: " + text)
n, key, layout = int(m.group(2)), int(m.group(3)), m.group(6)
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

# wrong_after: right for its first requests, wrong from the N-th on (a
# fault that comes with use). The known answer, of the first requests, is
# right; verify's case 20, the engine's 21st request, is the first to fail.
echo 8 >"$p/wrong_after"
check "wrong_after 8: calibrate's known answer ok (4 KiB)" \
	test "$(kat "$drv" "$r/kat-late.json" --size 4096)" = ok
echo ok >"$p/mode"
echo 21 >"$p/wrong_after"
verify "$r/late.json" "$drv" --seed 42 --cases 256
log "wrong_after 21: $(engine_field "$r/late.json" "i['failure']")"
check "wrong_after 21: verify finds the engine faulty at its 21st request (case 20)" \
	test "$rc $(engine_field "$r/late.json" "i['verdict'], i['failed_case']")" = "4 ('failed', 20)"
echo 0 >"$p/wrong_after"
echo ok >"$p/mode"

# AEADs, as CAAM registers them natively: each passes against its
# reference (gcm's and ccm's base templates over the generic parts,
# authenc's, echainiv's by the reference's decryption of its answers);
# gcm(aes) in a mode of one shape keeps its known answer (1 KiB of text,
# its buffer one page: 4 KiB and its AD and tag take two) and is found.
aead=cp_test_engine_gcm_aes
aeads="$aead cp_test_engine_rfc4106_gcm_aes cp_test_engine_ccm_aes
	cp_test_engine_authenc_hmac_sha256_cbc_aes cp_test_engine_echainiv_authenc_hmac_sha256_cbc_aes"
for a in $aeads; do check "$a passed its self-test" wait_for_driver "$a"; done
# shellcheck disable=SC2086 # (the five drivers)
verify "$r/aead-ok.json" $aeads --seed 5
jget "$r/aead-ok.json" "'\\n'.join('%s %s %s %s' % (i['driver'], i['verdict'], i['reference'], i.get('failure', i.get('reason', ''))) for i in d['implementations'])"
check "AEADs, mode ok: the five passed 48 cases, each against a reference, exit 0" \
	test "$rc $(jget "$r/aead-ok.json" "len(d['implementations']), set((i['verdict'], i['cases'], i['reference'] not in (None, i['driver'])) for i in d['implementations'])")" = \
	"0 (5, {('passed', 48, True)})"
for mode in sgmulti len64 key192 big; do
	echo "$mode" >"$p/mode"
	check "gcm(aes), mode $mode: calibrate's known answer ok (1 KiB)" \
		test "$(kat "$aead" "$r/kat-aead-$mode.json" --type aead --size 1024)" = ok
	verify "$r/aead-$mode.json" "$aead" --seed 42 --cases 256
	failure=$(engine_field "$r/aead-$mode.json" "i['failure']" "$aead") || failure=
	log "gcm(aes), mode $mode: $failure"
	check "gcm(aes), mode $mode: verify finds it faulty (exit 4)" \
		test "$rc $(engine_field "$r/aead-$mode.json" "i['verdict']" "$aead")" = "4 failed"
	check "gcm(aes), mode $mode: the failing case is of the mode's shape, with its seed" \
		shape_ok "$mode" "$failure"
done
# authenc wrong under an authentication key longer than SHA-256's block
# (hmac hashes it first): the known answer (a 32-byte key) is right,
# VERIFY's key lengths find it; gcm(aes), which has no such key, passes.
authenc=cp_test_engine_authenc_hmac_sha256_cbc_aes
echo authkey >"$p/mode"
check "authenc, mode authkey: calibrate's known answer ok (1 KiB)" \
	test "$(kat "$authenc" "$r/kat-authkey.json" --type aead --size 1024)" = ok
verify "$r/authkey.json" "$authenc" "$aead" --seed 42 --cases 64
failure=$(engine_field "$r/authkey.json" "i['failure']" "$authenc") || failure=
log "authenc, mode authkey: $failure"
n=0
[[ $failure =~ ([0-9]+)-byte\ authentication\ key ]] && n=${BASH_REMATCH[1]}
check "authenc, mode authkey: faulty (exit 4), under a key longer than 64 bytes ($n)" \
	test "$rc $(engine_field "$r/authkey.json" "i['verdict']" "$authenc") $((n > 64))" = "4 failed 1"
check "gcm(aes), mode authkey: passed" \
	test "$(engine_field "$r/authkey.json" "i['verdict']" "$aead")" = passed
echo ok >"$p/mode"

# An AEAD that never answers: a failure that says so, its request kept
# until the engine completes it, then released.
released_before=$(late_releases)
echo hang >"$p/mode"
verify "$r/aead-hang.json" "$aead" --seed 3 --cases 4
check "gcm(aes), mode hang: faulty, no answer within the grace period (exit 4)" \
	test "$rc $(engine_field "$r/aead-hang.json" "i['verdict'], 'no answer within the grace period' in i['failure']" "$aead")" = \
	"4 ('failed', True)"
echo ok >"$p/mode"
check "gcm(aes): the engine completes, the hung case's memory released" \
	wait_until 10 released_since "$released_before"

# xts(aes) of the CAAM-like engine (its own ciphertext stealing) against
# the reference the module builds, xts(ecb(aes-generic)) (xts names its
# instances after the ecb it takes): partial blocks and its three key
# sizes pass; in mode len64 a length not a multiple of 64 is found.
check "insmod cp_caam_engine.ko" insmod "$CP_KMOD/cp_caam_engine.ko"
check "xts-aes-cp-caam passed its self-test" wait_for_driver xts-aes-cp-caam
xts=xts-aes-cp-caam
verify "$r/xts.json" "$xts" --seed 11 --cases 24
check "xts-aes-cp-caam: passed 24 cases against xts(ecb(...)), exit 0" \
	test "$rc $(engine_field "$r/xts.json" "i['verdict'], i['cases'], i['reference'].startswith('xts(ecb(')" "$xts")" = \
	"0 ('passed', 24, True)"
echo len64 >/sys/module/cp_caam_engine/parameters/mode
verify "$r/xts-len64.json" "$xts" --seed 11 --cases 24
failure=$(engine_field "$r/xts-len64.json" "i['failure']" "$xts") || failure=
log "xts mode len64: $failure"
n=0
[[ $failure =~ crypt\ ([0-9]+)\ bytes ]] && n=${BASH_REMATCH[1]}
check "xts-aes-cp-caam mode len64: faulty (exit 4), of a length not a multiple of 64 ($n)" \
	test "$rc $((n % 64 != 0))" = "4 1"
echo ok >/sys/module/cp_caam_engine/parameters/mode
check "rmmod cp_caam_engine" wait_until 20 rmmod cp_caam_engine

# The calibration verifies engines (cryptoprio.conf(5)): under a policy
# that prefers them, an engine whose known answer is right but which fails
# verification is faulty and placed last, in calibrate's table and JSON,
# the plan's reason; once it answers right it passes, keeps its place,
# and the pass is kept in the cache for the next calibration.
mkdir -p /run/cp-test
pol=/run/cp-test/offload-first.conf
printf '[Policy]\nGears = offload cpu\nCalibrationBudget = 30s\n' >$pol
# The plans: from what calibrate left in the cache, or (a failure is not
# cached) verifying again, cbc(aes) measured within a short budget: the
# other names the engine serves are not the subject.
plan_pol=/run/cp-test/plan-offload-first.conf cached_pol=/run/cp-test/cached-offload-first.conf
printf '[Policy]\nGears = offload cpu\nCalibrationBudget = 5s\n' >$plan_pol
printf '[Policy]\nGears = offload cpu\nCalibrate = cached\n' >$cached_pol
chmod 0644 $pol $plan_pol $cached_pol
# verification FILE EXPR: EXPR of the engine's "verification" in FILE.
verification() {
	jget "$1" "(lambda v: ($2))([i for a in d['algorithms'] for i in a['implementations'] if i['driver'] == '$drv'][0]['verification'])"
}
# place_of FILE: the engine's "reason why" in FILE's plan of cbc(aes), and
# whether it comes last.
place_of() {
	jget "$1" "(lambda p: '%s %s' % ([x['reason'] for x in p if x['driver'] == '$drv'][0], p[-1]['driver'] == '$drv'))([a for a in d['algorithms'] if a['name'] == 'cbc(aes)'][0]['places'])"
}
echo key192 >"$p/mode"
"$ctl" -c $pol calibrate --json --force --size 4K 'cbc(aes)' >"$r/calibrate-key192.json" || true
"$ctl" -c $pol calibrate --force --size 4K 'cbc(aes)' >"$r/calibrate-key192.txt" || true
cat "$r/calibrate-key192.txt"
check "mode key192: calibrate verifies the engine: failed, a case of its seed" \
	test "$(verification "$r/calibrate-key192.json" "v['verdict'], v['cached'], bool(__import__('re').match(r'case [0-9]+ of seed %d: ' % v['seed'], v['failure']))")" = \
	"('failed', False, True)"
check "mode key192: its known answer ok, its points faulty" \
	test "$(engine_field_all "$r/calibrate-key192.json" "i['known_answer'], set(p['verdict'] for p in i['points'])")" = \
	"('ok', {'faulty'})"
check "mode key192: the table says verification failed, faulty" \
	grep -q "^$drv: verification against .* failed, case [0-9]* of seed [0-9]*: .*: faulty\.$" "$r/calibrate-key192.txt"
"$ctl" -c $plan_pol plan --json >"$r/plan-key192.json" || true
check "mode key192: the plan puts the engine last, faulty, for the failed verification" \
	test "$(place_of "$r/plan-key192.json")" = "faulty True"
check "mode key192: the plan's why names the failing case" \
	test "$(jget "$r/plan-key192.json" "[x for a in d['algorithms'] for x in a['places'] if x['driver'] == '$drv'][0]['why'].startswith('verification failed: never preferred (case ')")" = True
echo ok >"$p/mode"
"$ctl" -c $pol calibrate --json --force --size 4K 'cbc(aes)' >"$r/calibrate-ok.json" || true
check "mode ok: calibrate verifies the engine: passed" \
	test "$(verification "$r/calibrate-ok.json" "v['verdict'], v['cached'], v['cases'], v['failure']")" = "('passed', False, 48, None)"
"$ctl" -c $pol calibrate --json --size 4K 'cbc(aes)' >"$r/calibrate-cached.json" || true
check "mode ok, again: the pass from the cache, with its seed" \
	test "$(verification "$r/calibrate-cached.json" "v['verdict'], v['cached'], v['seed']")" = \
	"$(verification "$r/calibrate-ok.json" "v['verdict'], True, v['seed']")"
"$ctl" -c $cached_pol plan --json >"$r/plan-ok.json" || true
check "mode ok: the plan puts the verified engine first (Gears = offload cpu)" \
	test "$(jget "$r/plan-ok.json" "[a for a in d['algorithms'] if a['name'] == 'cbc(aes)'][0]['places'][0]['driver']")" = "$drv"

# A case that never completes in the calibration's verification is a
# timeout, as a request of its measurements would be: faulty even with
# Verify = no, which uses a wrong answer's figures as they are (the
# planner's part: test-planner). The figures come from the cache (mode
# ok's); the pass recorded with them is made another build's, so the
# calibration verifies again, and the engine's first request from now on
# hangs.
released_before=$(late_releases)
py '
c = json.load(open(sys.argv[1]))
for m in c["machines"]:
    for e in m["entries"]:
        if e["driver"] == sys.argv[2] and "verified_by" in e:
            e["verified_by"] = "another-build"
json.dump(c, open(sys.argv[1], "w"))' "$cache" "$drv"
echo 1 >"$p/hang_after"
"$ctl" -c $pol calibrate --json --size 4K 'cbc(aes)' >"$r/calibrate-hang.json" || true
log "a case hangs in the calibration's verification: $(verification "$r/calibrate-hang.json" "v['verdict'], v['failure']")"
check "a case hangs in the calibration's verification: failed, no answer" \
	test "$(verification "$r/calibrate-hang.json" "v['verdict'], 'no answer within the grace period' in v['failure']")" = \
	"('failed', True)"
check "its points are timeouts, not faulty answers" \
	test "$(engine_field_all "$r/calibrate-hang.json" "set(p['verdict'] for p in i['points'])")" = "{'timeout'}"
echo ok >"$p/mode"
check "the engine completes: the hung case's memory released" \
	wait_until 10 released_since "$released_before"
released_before=$(late_releases)

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
	wait_until 10 released_since "$released_before"
check "rmmod cryptoprio works once released" wait_until 10 rmmod cryptoprio
check "rmmod cp_test_engine works" rmmod cp_test_engine
dmesg | tail -n +"$((base + 1))" >"$r/dmesg.txt"
check "kernel log since the first verification: no oops, BUG or warning" \
	kernel_log_clean "$r/dmesg.txt"
