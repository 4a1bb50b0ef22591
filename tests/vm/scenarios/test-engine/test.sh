# The test engine itself (tests/kmod/cp_test_engine.ko): every shape it
# registers (as CAAM does natively) passes the kernel's self-test and is
# registered with its algorithm name and type; its parameters are accepted
# and read back, and do what they say through cryptoprio.ko: latency_us
# makes each request at least that long, queue_len backlogs requests (the
# run still completes), completion=sync answers inside the call, and every
# shape's known answer is ok while the engine is right. What the companion
# module does with wrong, inline, backlogged and refused requests is
# module-shapes' part.
#
# The test engines themselves (AF_ALG differs before 7.2); the scenarios
# that use them run them too: by rotation.
py=/usr/bin/python3
params=/sys/module/cp_test_engine/parameters
r=$CP_RESULTS
modprobe_q "$cpu_aes_module" crypto_user
# the fallbacks' templates (built in on some kernels, modules on others)
for m in gcm ccm authenc echainiv; do
	modprobe -q "$m" || log "modprobe $m failed (built in?)"
done

# driver cra_name type
shapes="cp_test_engine_cbc_aes|cbc(aes)|skcipher
cp_test_engine_sha256|sha256|ahash
cp_test_engine_hmac_sha256|hmac(sha256)|ahash
cp_test_engine_gcm_aes|gcm(aes)|aead
cp_test_engine_rfc4106_gcm_aes|rfc4106(gcm(aes))|aead
cp_test_engine_ccm_aes|ccm(aes)|aead
cp_test_engine_authenc_hmac_sha256_cbc_aes|authenc(hmac(sha256),cbc(aes))|aead
cp_test_engine_echainiv_authenc_hmac_sha256_cbc_aes|echainiv(authenc(hmac(sha256),cbc(aes)))|aead
cp_test_engine_deflate|deflate|acomp"

base=$(dmesg | wc -l)
check "insmod cp_test_engine.ko" insmod "$CP_KMOD/cp_test_engine.ko"
check_shapes 100 60 <<<"$shapes"
cat "$r/selftest.txt"
cp /proc/crypto "$r/proc-crypto.txt"

# Parameters: defaults, accepted values read back, bad values refused.
check "defaults: mode ok, completion async, queue_len/latency_us/burn_us 0" \
	test "$(cat $params/mode $params/completion $params/queue_len $params/latency_us $params/burn_us | tr '\n' ' ')" = "ok async 0 0 0 "
setp() { echo "$2" >"$params/$1" && test "$(cat "$params/$1")" = "$2"; }
for v in sync inline async; do
	check "completion=$v read back" setp completion $v
done
check "queue_len=3 read back" setp queue_len 3
check "latency_us=150 read back" setp latency_us 150
check "burn_us=70 read back" setp burn_us 70
check "completion=bogus refused" sh -c "! echo bogus >$params/completion"
check "queue_len=-1 refused" sh -c "! echo -1 >$params/queue_len"
for p in queue_len latency_us burn_us; do echo 0 >"$params/$p"; done
check "parameters back at their defaults" \
	test "$(cat $params/completion $params/queue_len $params/latency_us $params/burn_us | tr '\n' ' ')" = "async 0 0 0 "

check "insmod cryptoprio.ko" insmod "$CP_KMOD/cryptoprio.ko"
# cal NAME DRIVER [ARGS]: calibrate into $r/NAME.json, then (one python
# start: slow under TCG) REQ, KA, MIF and NS of its result ("none" if none).
cal() {
	local f=$r/$1.json drv=$2
	shift 2
	"$ctl" calibrate --raw --json "$drv" "$@" >"$f" || true
	read -r REQ KA MIF NS < <("$py" - "$f" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
x = res[0] if res else {}
print(x.get("requests", "none"), x.get("known_answer", "none"),
      x.get("max_in_flight", "none"), int(x.get("ns_per_request", -1)))
PY
)
	log "$drv $*: requests $REQ, known answer $KA, max_in_flight $MIF, ns/request $NS"
}

# Every shape runs through cryptoprio.ko in mode ok (one calibrate for all).
"$ctl" calibrate --raw --json $(cut -d'|' -f1 <<<"$shapes") --size 1024 --depth 4 \
	>"$r/ok.json" || true
"$py" - "$r/ok.json" >"$r/ok.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for x in d["results"]:
    print(x["driver"], x["requests"], x["known_answer"])
for e in d["errors"]:
    print(e["driver"], "error", e["error"])
PY
cat "$r/ok.txt"
while IFS='|' read -r drv name type; do
	read -r _ n ka < <(grep "^$drv " "$r/ok.txt" || echo "$drv none none")
	check "$drv calibrates ($n requests)" test "$n" -gt 0
	check "$drv: known answer ok" test "$ka" = ok
done <<<"$shapes"

# latency_us: a DMA-like engine, at least 2 ms per request at depth 1.
echo 2000 >"$params/latency_us"
cal latency cp_test_engine_cbc_aes --size 16 --depth 1
echo 0 >"$params/latency_us"
check "latency_us=2000: ns_per_request >= 2 ms ($NS)" test "$NS" -ge 2000000

# burn_us: the same wait, on the CPU.
echo 2000 >"$params/burn_us"
cal burn cp_test_engine_cbc_aes --size 16 --depth 1
echo 0 >"$params/burn_us"
check "burn_us=2000: ns_per_request >= 2 ms ($NS)" test "$NS" -ge 2000000

# queue_len: 2 in the engine, the other 6 of depth 8 backlogged (-EBUSY,
# then -EINPROGRESS when they enter the queue): the run completes.
echo 2 >"$params/queue_len"
cal queue cp_test_engine_cbc_aes --size 4096 --depth 8
check "queue_len=2, depth 8: cbc(aes) completes ($REQ requests), known answer ok" \
	test "$REQ" -gt 0 -a "$KA" = ok
check "queue_len=2, depth 8: max_in_flight reported ($MIF > 2: backlogged ones count)" \
	test "$MIF" -gt 2
cal queue-sha cp_test_engine_sha256 --size 4096 --depth 8
check "queue_len=2, depth 8: sha256 completes ($REQ requests), known answer ok" \
	test "$REQ" -gt 0 -a "$KA" = ok
echo 0 >"$params/queue_len"

# completion=sync: answered inside the call, so never more than one in flight.
echo sync >"$params/completion"
cal sync cp_test_engine_cbc_aes --size 4096 --depth 4
check "completion=sync: cbc(aes) runs ($REQ requests), known answer ok" \
	test "$REQ" -gt 0 -a "$KA" = ok
check "completion=sync: one request in flight at a time ($MIF)" test "$MIF" = 1
cal sync-dec cp_test_engine_cbc_aes --size 4096 --depth 4 --decrypt
check "completion=sync: cbc(aes) decrypt known answer ok" test "$KA" = ok
cal sync-sha cp_test_engine_sha256 --size 4096 --depth 4
check "completion=sync: sha256 known answer ok" test "$KA" = ok
echo async >"$params/completion"

# mode wrong on the new hash shape: the module's known answer catches it.
echo wrong >"$params/mode"
cal wrong-hmac cp_test_engine_hmac_sha256 --size 1024
echo ok >"$params/mode"
check "mode wrong: hmac(sha256) known answer mismatch" test "$KA" = mismatch

# Every completion (inline too) through AF_ALG, which waits for each
# request as most kernel users do: before 7.2 only, which binds engines.
if [[ $CP_KVER_ALIAS != 7.2 ]]; then
	check "AF_ALG: cbc(aes), sha256, hmac(sha256) right with completion async, sync, inline" \
		"$py" "$CP_SCENARIO_DIR/afalg.py" "$params/completion"
	check "completion back to async" test "$(cat $params/completion)" = async
fi

check "rmmod cryptoprio" rmmod cryptoprio
check "rmmod cp_test_engine" rmmod cp_test_engine
dmesg | tail -n +"$((base + 1))" >"$r/dmesg.txt"
check "kernel log since insmod: no oops, BUG or warning" \
	kernel_log_clean "$r/dmesg.txt"
