# Differential verification of AEADs (cryptoprioctl verify, the module's
# VERIFY), as CAAM registers them natively: gcm, rfc4106, ccm, authenc and
# echainiv each pass against their reference; gcm's faults of one shape
# (the test engine's modes) are found as the cipher's, authenc's under
# long authentication keys (mode authkey) too, and an engine that
# confuses transforms whose requests meet (mode crosstalk; the CAAM-like
# engine's native authenc too) by the cases together; an AEAD that never
# answers is a failure that says so, its request kept until the engine
# completes it, then nothing is left. Skciphers: module-verify.
#
# In CI on 7.2.
p=/sys/module/cp_test_engine/parameters
r=$CP_RESULTS

# AEADs, as CAAM registers them natively: each passes against its
# reference (gcm's and ccm's base templates over the generic parts,
# authenc's, echainiv's by the reference's decryption of its answers);
# gcm(aes) in a mode of one shape keeps its known answer (1 KiB of text,
# its buffer one page: 4 KiB and its AD and tag take two) and is found.
aead=cp_test_engine_gcm_aes
aeads="$aead cp_test_engine_rfc4106_gcm_aes cp_test_engine_ccm_aes
	cp_test_engine_authenc_hmac_sha256_cbc_aes cp_test_engine_echainiv_authenc_hmac_sha256_cbc_aes"
# shellcheck disable=SC2086 # (the five drivers)
load_test_engine $aeads
base=$(dmesg | wc -l)
# shellcheck disable=SC2086 # (the five drivers)
verify_json "$r/aead-ok.json" $aeads --seed 5
jget "$r/aead-ok.json" "'\\n'.join('%s %s %s %s' % (i['driver'], i['verdict'], i['reference'], i.get('failure', i.get('reason', ''))) for i in d['implementations'])"
check "AEADs, mode ok: the five passed 48 cases, each against a reference, exit 0" \
	test "$rc $(jget "$r/aead-ok.json" "len(d['implementations']), set((i['verdict'], i['cases'], i['reference'] not in (None, i['driver'])) for i in d['implementations'])")" = \
	"0 (5, {('passed', 48, True)})"
for mode in sgmulti len64 key192 big; do
	echo "$mode" >"$p/mode"
	check "gcm(aes), mode $mode: calibrate's known answer ok (1 KiB)" \
		test "$(kat "$aead" "$r/kat-aead-$mode.json" --type aead --size 1024)" = ok
	verify_json "$r/aead-$mode.json" "$aead" --seed 42 --cases 256
	failure=$(impl_field "$r/aead-$mode.json" "i['failure']" "$aead") || failure=
	log "gcm(aes), mode $mode: $failure"
	check "gcm(aes), mode $mode: verify finds it faulty (exit 4)" \
		test "$rc $(impl_field "$r/aead-$mode.json" "i['verdict']" "$aead")" = "4 failed"
	check "gcm(aes), mode $mode: the failing case is of the mode's shape, with its seed" \
		case_of_shape "$mode" "$failure"
done
# authenc wrong under an authentication key longer than SHA-256's block
# (hmac hashes it first): the known answer (a 32-byte key) is right,
# VERIFY's key lengths find it; gcm(aes), which has no such key, passes.
authenc=cp_test_engine_authenc_hmac_sha256_cbc_aes
echo authkey >"$p/mode"
check "authenc, mode authkey: calibrate's known answer ok (1 KiB)" \
	test "$(kat "$authenc" "$r/kat-authkey.json" --type aead --size 1024)" = ok
verify_json "$r/authkey.json" "$authenc" "$aead" --seed 42 --cases 64
failure=$(impl_field "$r/authkey.json" "i['failure']" "$authenc") || failure=
log "authenc, mode authkey: $failure"
n=0
[[ $failure =~ ([0-9]+)-byte\ authentication\ key ]] && n=${BASH_REMATCH[1]}
check "authenc, mode authkey: faulty (exit 4), under a key longer than 64 bytes ($n)" \
	test "$rc $(impl_field "$r/authkey.json" "i['verdict']" "$authenc") $((n > 64))" = "4 failed 1"
check "gcm(aes), mode authkey: passed" \
	test "$(impl_field "$r/authkey.json" "i['verdict']" "$aead")" = passed
echo ok >"$p/mode"

# crosstalk on gcm(aes): its rounds together find it (the default 48
# cases, 2 ms per request so that a round's four meet in the engine).
echo crosstalk >"$p/mode"
echo 2000 >"$p/latency_us"
verify_json "$r/aead-crosstalk.json" "$aead" --seed 42
log "gcm(aes), mode crosstalk: $(impl_field "$r/aead-crosstalk.json" "i['failure']" "$aead")"
check "gcm(aes), mode crosstalk: faulty (exit 4), in a round together" \
	test "$rc $(impl_field "$r/aead-crosstalk.json" "i['verdict'], 'sent with 3 other transforms' in i['failure']" "$aead")" = \
	"4 ('failed', True)"
echo 0 >"$p/latency_us"
echo ok >"$p/mode"

# An AEAD that never answers: a failure that says so, its request kept
# until the engine completes it, then released.
released_before=$(late_releases)
echo hang >"$p/mode"
verify_json "$r/aead-hang.json" "$aead" --seed 3 --cases 4
check "gcm(aes), mode hang: faulty, no answer within the grace period (exit 4)" \
	test "$rc $(impl_field "$r/aead-hang.json" "i['verdict'], 'no answer within the grace period' in i['failure']" "$aead")" = \
	"4 ('failed', True)"
echo ok >"$p/mode"
check "gcm(aes): the engine completes, the hung case's memory released" \
	wait_until 10 released_since "$released_before"

# The CAAM-like engine's native authenc, as IPsec's SAs use it: passes
# alone and together; in mode crosstalk the rounds together find it.
caam=authenc-hmac-sha256-cbc-aes-cp-caam
cp=/sys/module/cp_caam_engine/parameters
check "insmod cp_caam_engine.ko" insmod "$CP_KMOD/cp_caam_engine.ko"
check "$caam passed its self-test" wait_for_driver "$caam"
wait_before_measuring cp_caam_engine
echo 2000 >"$cp/latency_us"
verify_json "$r/caam-ok.json" "$caam" --seed 42
check "$caam: passed 48 cases, 12 of them together, exit 0" \
	test "$rc $(impl_field "$r/caam-ok.json" "i['verdict'], i['cases']" "$caam")" = "0 ('passed', 48)"
echo crosstalk >"$cp/mode"
verify_json "$r/caam-crosstalk.json" "$caam" --seed 42
log "$caam, mode crosstalk: $(impl_field "$r/caam-crosstalk.json" "i['failure']" "$caam")"
check "$caam, mode crosstalk: faulty (exit 4), in a round together" \
	test "$rc $(impl_field "$r/caam-crosstalk.json" "i['verdict'], 'sent with 3 other transforms' in i['failure']" "$caam")" = \
	"4 ('failed', True)"
echo ok >"$cp/mode"
echo 0 >"$cp/latency_us"
check "rmmod cp_caam_engine" wait_until 20 rmmod cp_caam_engine

check "rmmod cryptoprio" wait_until 10 rmmod cryptoprio
check "rmmod cp_test_engine" rmmod cp_test_engine
dmesg | tail -n +"$((base + 1))" >"$r/dmesg.txt"
check "kernel log since the first verification: no oops, BUG or warning" \
	kernel_log_clean "$r/dmesg.txt"
