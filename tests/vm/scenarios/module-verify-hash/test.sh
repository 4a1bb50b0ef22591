# Differential verification of hashes (cryptoprioctl verify, the module's
# VERIFY): the test engine's sha256 and hmac(sha256) pass against their
# references under several seeds, digests of 0 bytes and hmac's keys past
# its block included; their faults of one shape (mode sgmulti, len64,
# big) keep the self-test and calibrate's known answer ok and are found,
# with a case its seed reproduces; crosstalk (two transforms' requests in
# the engine at once) only by the cases together; the CAAM-like engine's
# hmac, which hashes a long key itself, passes too; requests that never
# answer in a case of steps, the other transform's included, are kept
# until the engine answers. Half of the cases
# alone are steps (init, updates, final or finup, or export and import
# into another transform): the engine wrong from a step on names them,
# and mode updates (the third update on ignored) passes the kernel's
# self-test and the known answer and is found. Skciphers:
# module-verify; AEADs: module-verify-aead.
p=/sys/module/cp_test_engine/parameters
r=$CP_RESULTS
sha=cp_test_engine_sha256
hmac=cp_test_engine_hmac_sha256
load_test_engine $sha $hmac
base=$(dmesg | wc -l)

for seed in 1 2 3; do
	verify_json "$r/ok-$seed.json" $sha $hmac --seed "$seed"
	jget "$r/ok-$seed.json" "'\\n'.join('%s %s %s %s' % (i['driver'], i['verdict'], i['reference'], i.get('failure', '')) for i in d['implementations'])"
	check "mode ok, seed $seed: both passed 48 cases against a reference, exit 0" \
		test "$rc $(jget "$r/ok-$seed.json" "len(d['implementations']), set((i['verdict'], i['cases'], i['reference'] not in (None, i['driver'])) for i in d['implementations'])")" = \
		"0 (2, {('passed', 48, True)})"
done

# What the cases are: a replay of a seed's cases on a wrong engine names
# them. Mode wrong flips every digest: case 0 of each seed fails, in
# words; seed 14's digests nothing (a seed names the same cases on
# every kernel and arch).
echo wrong >"$p/mode"
for seed in 1 2 3 14; do
	"$ctl" verify --json $sha $hmac --seed "$seed" --cases 1 >"$r/case0-$seed.json" || true
done
echo ok >"$p/mode"
cases=$(for f in "$r"/case0-*.json; do jget "$f" "'\\n'.join(i['failure'] for i in d['implementations'])"; done)
printf '%s\n' "$cases" | head -4
check "mode wrong: case 0 of every seed fails, a digest in words" \
	test "$(printf '%s\n' "$cases" | grep -c '^case 0 of seed [0-9]*: digest [0-9]* bytes, .*output differs')" = 8
check "sha256's cases have no key" not grep -q "^case 0 of seed [0-9]*: digest [0-9]* bytes, [0-9]*-byte key.*$sha" <(printf '%s\n' "$cases")
check "seed 14's: 0 bytes" grep -q '^case 0 of seed 14: digest 0 bytes, ' <(printf '%s\n' "$cases")
# hmac's key takes each length its reference takes in turn (1, 16, 20,
# 24, 32, 48, 63, 64, 65...): case 8's is 65 bytes, past the block. The
# engine wrong from its 9th request on (wrong_after) fails it there.
echo 9 >"$p/wrong_after"
verify_json "$r/hmac-key.json" $hmac --seed 42
log "wrong_after 9: $(impl_field "$r/hmac-key.json" "i.get('failure')" $hmac)"
check "hmac, case 8: a 65-byte key (exit 4)" \
	test "$rc $(impl_field "$r/hmac-key.json" "i['failed_case'], ', 65-byte key, ' in i['failure']" $hmac)" = "4 (8, True)"
echo 0 >"$p/wrong_after"

# sha256's case 1 of each seed is a case of steps (every other round of
# its one key size): init, updates, then final, finup, or another
# transform's final after export and import. The engine wrong from its
# second request on (case 1's first update; final and finup take wrong)
# fails it, named with its steps.
echo ok >"$p/mode"
for seed in 1 2 3; do
	echo 2 >"$p/wrong_after"
	verify_json "$r/steps-$seed.json" $sha --seed "$seed"
	echo 0 >"$p/wrong_after"
	echo ok >"$p/mode"
	failure=$(impl_field "$r/steps-$seed.json" "i.get('failure')" $sha)
	log "wrong_after 2, seed $seed: $failure"
	check "wrong_after 2, seed $seed: case 1 fails, its steps in words (exit 4)" \
		test "$rc $(printf '%s\n' "$failure" | grep -Ec "^case 1 of seed $seed: digest [0-9]+ bytes, data in .*, init(, updates of [0-9]+((, [0-9]+)* and [0-9]+)? bytes)?, (finup of [0-9]+|final|export, import into another transform, final): output differs")" = "4 1"
done

for mode in sgmulti len64 big; do
	echo "$mode" >"$p/mode"
	check "mode $mode: the self-test passed (/proc/crypto)" \
		test "$(proc_crypto_field $sha selftest)" = passed
	verify_finds_shape "$r" "$mode" $sha
done
echo ok >"$p/mode"

# crosstalk on hmac(sha256): its 12 cases alone pass, the default 48's
# last 12, in rounds of four transforms with 2 ms requests, find it.
verify_crosstalk $hmac

# An engine that never answers in the middle of a case of steps: seed 1's
# case 1 hangs on its second request (after case 0's digest): an update or
# finup; seed 3's case 1 (seven updates, then export and import) hangs on
# the other transform's final, its ninth. Each run is kept until the
# engine answers, then released.
verify_hangs $sha 2 1 '^case 1 of seed 1: digest [0-9]+ bytes, .*, init, '
verify_hangs $sha 9 3 '^case 1 of seed 3: .*, export, import into another transform, final'

# The CAAM-like engine's hmac(sha256): its own key schedule (a key past
# the block hashed first), against hmac(sha256-generic).
check "insmod cp_caam_engine.ko" insmod "$CP_KMOD/cp_caam_engine.ko"
check "hmac-sha256-cp-caam passed its self-test" wait_for_driver hmac-sha256-cp-caam
verify_json "$r/caam.json" hmac-sha256-cp-caam --seed 7
check "hmac-sha256-cp-caam: passed 48 cases, exit 0" \
	test "$rc $(impl_field "$r/caam.json" "i['verdict'], i['cases']" hmac-sha256-cp-caam)" = "0 ('passed', 48)"
check "rmmod cp_caam_engine" wait_until 20 rmmod cp_caam_engine

# updates: the engine's hashes ignore the third and later updates since
# init. Loaded in that mode, the engine passes the kernel's self-test
# (which splits a request in two at most) and calibrate's known answer (a
# digest); the cases of up to eight updates find it.
check "rmmod cp_test_engine" wait_until 20 rmmod cp_test_engine
check "insmod cp_test_engine.ko mode=updates" insmod "$CP_KMOD/cp_test_engine.ko" mode=updates
check "mode updates: $sha passed its self-test" wait_for_driver $sha
check "mode updates: $hmac passed its self-test" wait_for_driver $hmac
wait_before_measuring cp_test_engine
check "mode updates: the self-test passed (/proc/crypto)" \
	test "$(proc_crypto_field $sha selftest) $(proc_crypto_field $hmac selftest)" = "passed passed"
check "mode updates: calibrate's known answer ok (4 KiB)" \
	test "$(kat $sha "$r/kat-updates.json" --size 4096)" = ok
verify_json "$r/updates.json" $sha $hmac --seed 42
jget "$r/updates.json" "'\\n'.join('%s: %s' % (i['driver'], i.get('failure')) for i in d['implementations'])"
check "mode updates: both found faulty, a case of three updates or more (exit 4)" \
	test "$rc $(jget "$r/updates.json" "sorted(set((i['verdict'], bool(__import__('re').search(r', init, updates of [0-9]+, [0-9]+(, [0-9]+)* and [0-9]+ bytes, ', i['failure']))) for i in d['implementations']))")" = \
	"4 [('failed', True)]"
verify_json "$r/updates-again.json" $sha $hmac --seed 42
check "mode updates: the same seed reproduces the same cases" \
	test "$(jget "$r/updates-again.json" "[(i['failed_case'], i['failure']) for i in d['implementations']]")" = \
	"$(jget "$r/updates.json" "[(i['failed_case'], i['failure']) for i in d['implementations']]")"
echo ok >"$p/mode"

unload_verifier_clean "$base"
