# Every shape an engine registers natively (tests/kmod/cp_test_engine.ko
# registers them as CAAM does) through the companion module: the known
# answer is ok while the engine is right and a mismatch once it is wrong,
# both ways for every cipher, the geniv wrapper included (checked by
# cross-decryption); synchronous, inline and backlogged completions, and a
# full queue without a backlog, neither loop nor recurse in a callback; the
# CPU figure counts an engine's busy worker and not its sleep.
#
# The engines' shapes on each kernel's crypto API (test-engine checks them
# too): every kernel by rotation.
py=/usr/bin/python3
params=/sys/module/cp_test_engine/parameters
r=$CP_RESULTS
modprobe_q "$cpu_aes_module" crypto_user
for m in ghash_generic gcm ccm ctr cbc authenc echainiv seqiv hmac sha256_generic; do
	modprobe -q "$m" || log "$m: not a module of this kernel"
done
check "insmod cryptoprio.ko" insmod "$CP_KMOD/cryptoprio.ko"
check "insmod cp_test_engine.ko" insmod "$CP_KMOD/cp_test_engine.ko"
ciphers=(cp_test_engine_cbc_aes cp_test_engine_gcm_aes cp_test_engine_rfc4106_gcm_aes
	cp_test_engine_ccm_aes cp_test_engine_authenc_hmac_sha256_cbc_aes
	cp_test_engine_echainiv_authenc_hmac_sha256_cbc_aes)
hashes=(cp_test_engine_sha256 cp_test_engine_hmac_sha256)
for d in "${ciphers[@]}" "${hashes[@]}"; do
	check "$d passed its self-test" wait_for_driver "$d" 60
done

check "mode ok: every shape's known answer is ok (encryption, hashes)" \
	test "$(verdicts ok-enc "${ciphers[@]}" "${hashes[@]}" --size 4096 --depth 4)" = \
	"$(expect_verdicts ok "${ciphers[@]}" "${hashes[@]}")"
check "mode ok: every cipher's known answer is ok (decryption)" \
	test "$(verdicts ok-dec "${ciphers[@]}" --size 4096 --depth 4 --decrypt)" = \
	"$(expect_verdicts ok "${ciphers[@]}")"
echo wrong >"$params/mode"
check "mode wrong: every shape is a mismatch (encryption, hashes)" \
	test "$(verdicts wrong-enc "${ciphers[@]}" "${hashes[@]}" --size 4096 --depth 4)" = \
	"$(expect_verdicts mismatch "${ciphers[@]}" "${hashes[@]}")"
check "mode wrong: every cipher is a mismatch (decryption)" \
	test "$(verdicts wrong-dec "${ciphers[@]}" --size 4096 --depth 4 --decrypt)" = \
	"$(expect_verdicts mismatch "${ciphers[@]}")"
echo ok >"$params/mode"

# point NAME DRIVER ARGS...: one calibration; prints "KAT REQUESTS MAX_IN_FLIGHT CPU_NS_PER_REQUEST"
point() {
	local name=$1
	shift
	"$ctl" calibrate --raw --json "$@" >"$r/$name.json" 2>"$r/$name.err" || true
	"$py" -c 'import json, sys
x = json.load(open(sys.argv[1]))["results"]
x = x[0] if x else {"known_answer": "none", "requests": 0, "max_in_flight": 0, "cpu_ns": 0}
print(x["known_answer"], x["requests"], x["max_in_flight"], x["cpu_ns"] // max(1, x["requests"]))' "$r/$name.json"
}
# Completions the callback must not loop or recurse on (cryptoprio(4)).
for c in sync inline; do
	echo "$c" >"$params/completion"
	for d in cp_test_engine_cbc_aes cp_test_engine_gcm_aes; do
		read -r kat n _ _ < <(point "$c-$d" "$d" --size 4096 --depth 4 --budget 300)
		log "completion $c, $d: $kat, $n requests"
		check "completion $c: $d measured, known answer ok" test "$kat $((n > 10))" = "ok 1"
	done
done
echo async >"$params/completion"
echo 2 >"$params/queue_len"
read -r kat n mif _ < <(point backlog cp_test_engine_cbc_aes --size 4096 --depth 8 --budget 300)
log "queue_len 2, backlog: $kat, $n requests, $mif in flight"
check "a backlogging queue of 2 at depth 8: measured, ok, 8 outstanding" test "$kat $((n > 10)) $mif" = "ok 1 8"
echo N >"$params/backlog"
read -r kat n mif _ < <(point nobacklog cp_test_engine_cbc_aes --size 4096 --depth 8 --budget 300)
log "queue_len 2, no backlog (ENOSPC): $kat, $n requests, $mif in flight"
check "a full queue without a backlog (ENOSPC) is retried: measured, ok" test "$kat $((n > 10))" = "ok 1"
echo Y >"$params/backlog"
echo 0 >"$params/queue_len"

# CPU time: 10 ms of sleep per request costs the CPUs little, 10 ms of
# busy waiting in the engine's worker 10 ms more per request. "Little" is
# what a sleep and a wake-up cost under QEMU TCG: 0.5 to 1.4 ms per
# request on 6.1 and 7.2 (the engine's own AES of 4 KiB included), so
# neither sleep is shorter: with 2 ms each the two came within 1 ms.
echo 10000 >"$params/latency_us"
read -r _ _ _ sleep_ns < <(point latency cp_test_engine_cbc_aes --size 4096 --budget 300)
echo 0 >"$params/latency_us"
echo 10000 >"$params/burn_us"
read -r _ _ _ burn_ns < <(point burn cp_test_engine_cbc_aes --size 4096 --budget 300)
echo 0 >"$params/burn_us"
log "CPU ns per request: sleeping engine $sleep_ns, burning engine $burn_ns"
check "CPU time: a burning worker costs at least 5 ms more per request than a sleeping one" \
	test "$burn_ns" -ge $((sleep_ns + 5000000))

check "rmmod cryptoprio" rmmod cryptoprio
check "rmmod cp_test_engine" rmmod cp_test_engine
