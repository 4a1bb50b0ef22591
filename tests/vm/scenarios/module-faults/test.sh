# Faulty engines on purpose (tests/kmod/cp_test_engine.ko): a wrong engine
# (cipher, hash, compressor, rsa or ecdh) is reported "mismatch", a hanging one ends the run with ETIMEDOUT within
# budget + 4 s (cryptoprio(4)), pins cryptoprio.ko while its requests are
# outstanding, does not oops or warn, and does not stop other calibrations.
#
# In CI on every kernel of x86_64 and arm64 but arm64's 6.12, and on
# armhf's 6.1 (the others the rotation's): the faults that can crash a
# kernel, a 32-bit one too.
param=/sys/module/cp_test_engine/parameters/mode
modprobe_q "$cpu_aes_module" crypto_user deflate virtio_crypto

base=$(dmesg | wc -l)
check "insmod cryptoprio.ko" insmod "$CP_KMOD/cryptoprio.ko"
# The engine's ecdh (ecdh=1) is computed by ecdh-nist-p256-generic, which
# the kernel cannot load by that name: without ecdh_generic, no load.
check "insmod cp_test_engine.ko ecdh=1 without ecdh_generic: refused, and why" \
	sh -c '! insmod "$0/cp_test_engine.ko" ecdh=1 && dmesg | grep -q "ecdh=1 needs ecdh-nist-p256-generic registered"' "$CP_KMOD"
modprobe_q ecdh_generic
check "insmod cp_test_engine.ko ecdh=1" insmod "$CP_KMOD/cp_test_engine.ko" ecdh=1
check "cp_test_engine_cbc_aes passed its self-test" wait_for_driver cp_test_engine_cbc_aes
check "cp_test_engine_sha256 passed its self-test" wait_for_driver cp_test_engine_sha256
check "cp_test_engine_deflate passed its self-test" wait_for_driver cp_test_engine_deflate
check "cp_test_engine_rsa passed its self-test" wait_for_driver cp_test_engine_rsa
check "cp_test_engine_ecdh passed its self-test" wait_for_driver cp_test_engine_ecdh
check "virtio_crypto's self-tests done (virtio-crypto-rsa's fails)" wait_for_selftests virtio_crypto

r=$CP_RESULTS
check "mode ok: cbc(aes) known answer ok" test "$(kat cp_test_engine_cbc_aes "$r/ok.json" --size 4096 --depth 4)" = ok
check "mode ok: async engine has 4 requests in flight" test "$(jget "$r/ok.json" "d['results'][0]['max_in_flight']")" = 4
check "mode ok: sha256 known answer ok" test "$(kat cp_test_engine_sha256 "$r/ok-sha.json" --size 4096)" = ok

# deflate: the engine's (an acomp, as IAA, QAT and HiSilicon's zip) and the
# CPU's, compressing and decompressing, round-tripped with the reference;
# /proc/crypto as it was (checked after mode wrong below).
priority_snapshot >"$r/deflate-before.txt"
for dir in compress decompress; do
	f=$r/ok-$dir.json
	check "mode ok: deflate $dir on the engine and the CPU" \
		sh -c "'$ctl' calibrate --raw --json deflate --size 4096 --depth 4 $([[ $dir == decompress ]] && echo --decrypt) >'$f'"
	# the rows, then: both measured with a known answer ok against another
	# driver (for the engine) and a ratio; the engine's requests in flight
	jget "$f" "'\\n'.join(['%-24s %8.2f MB/s ratio %.2f %s %s' % (r['driver'], r['mb_per_s'], r['ratio'], r['known_answer'], r['reference']) for r in d['results']] + ['%s %s' % (len(d['results']) >= 2 and any(r['driver'] == 'cp_test_engine_deflate' for r in d['results']) and all(r['type'] == 'acomp' and r['known_answer'] == 'ok' and r['requests'] > 0 and r['ratio'] > 1.2 and r['reference'] not in (None, 'cp_test_engine_deflate') for r in d['results']), ([r['max_in_flight'] for r in d['results'] if r['driver'] == 'cp_test_engine_deflate'] or [0])[0])])" >"$f.txt" || true
	head -n -1 "$f.txt"
	read -r all_ok mif < <(tail -n 1 "$f.txt") || true
	check "mode ok: deflate $dir: engine and CPU measured, known answer ok, a ratio" test "$all_ok" = True
	check "mode ok: deflate $dir: the engine had 4 requests in flight" test "$mif" = 4
done

# calibrate_one NAME FILE: what `calibrate` (the ranked figures, cached)
# made of NAME at 4 KiB, as "DRIVER VERDICT KNOWN_ANSWER MB/S RATIO OPS/S
# REQUEST_SIZE" lines, then "skipped DRIVER REASON" lines.
calibrate_one() {
	"$ctl" --json calibrate "$1" --size 4096 --budget 3s --force >"$2" || true
	python3 - "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for alg in doc["algorithms"]:
    for impl in alg["implementations"]:
        p = impl["points"][0]
        print(impl["driver"], p["verdict"], impl["known_answer"],
              "%.2f" % p.get("mb_per_s", {}).get("median", 0), "%.2f" % p.get("ratio", 0),
              "%.0f" % p.get("ops_per_s", 0), p.get("request_size", 0))
for s in doc["not_calibrated"]:
    print("skipped", s["driver"], s["reason"])
PY
}

calibrate_one deflate "$r/calibrate-deflate.json" >"$r/calibrate-deflate.txt"
cat "$r/calibrate-deflate.txt"
check "calibrate deflate: the engine measured, known answer ok, a ratio" \
	awk '$1 == "cp_test_engine_deflate" && $2 == "measured" && $3 == "ok" && $4 > 0 && $5 > 1.2 { f = 1 } END { exit !f }' "$r/calibrate-deflate.txt"
check "calibrate deflate: the CPU's measured, known answer ok, a ratio" \
	awk '$1 ~ /^deflate-/ && $2 == "measured" && $3 == "ok" && $4 > 0 && $5 > 1.2 { f = 1 } END { exit !f }' "$r/calibrate-deflate.txt"

# calibrate rsa: the engine's and the CPU's public-key operation, one
# modulus per request whatever the workload's size, in operations per
# second; an rsa whose self-test failed (QEMU's virtio-crypto-rsa) skipped.
calibrate_one rsa "$r/calibrate-rsa.json" >"$r/calibrate-rsa.txt"
cat "$r/calibrate-rsa.txt"
for drv in cp_test_engine_rsa rsa-generic; do
	check "calibrate rsa: $drv measured at 256 bytes, known answer ok, ops/s" \
		awk -v d=$drv '$1 == d && $2 == "measured" && $3 == "ok" && $6 > 0 && $7 == 256 { f = 1 } END { exit !f }' "$r/calibrate-rsa.txt"
done
check "calibrate rsa: virtio-crypto-rsa skipped: failed the kernel's self-test" \
	grep -q "^skipped virtio-crypto-rsa not tested, or failed the kernel's self-test" "$r/calibrate-rsa.txt"

# rsa: the engine's public-key operation, 4 in flight, against rsa-generic
kat cp_test_engine_rsa "$r/ok-rsa.json" --depth 4 >/dev/null
check "mode ok: rsa known answer ok against rsa-generic, 4 requests in flight" \
	test "$(jget "$r/ok-rsa.json" "' '.join(str(x) for x in [(q['known_answer'], q['reference'], q['max_in_flight'], q['size'], q['requests'] > 0) for q in d['results']][0])")" = "ok rsa-generic 4 256 True"

# ecdh-nist-p256: the engine's shared-secret step (a 64-byte peer key per
# request), 4 in flight, against ecdh-nist-p256-generic; then both through
# calibrate, in operations per second
kat cp_test_engine_ecdh "$r/ok-ecdh.json" --depth 4 >/dev/null
check "mode ok: ecdh known answer ok against ecdh-nist-p256-generic, 4 requests in flight" \
	test "$(jget "$r/ok-ecdh.json" "' '.join(str(x) for x in [(q['known_answer'], q['reference'], q['max_in_flight'], q['size'], q['requests'] > 0) for q in d['results']][0])")" = "ok ecdh-nist-p256-generic 4 64 True"
calibrate_one ecdh-nist-p256 "$r/calibrate-ecdh.json" >"$r/calibrate-ecdh.txt"
cat "$r/calibrate-ecdh.txt"
for drv in cp_test_engine_ecdh ecdh-nist-p256-generic; do
	check "calibrate ecdh-nist-p256: $drv measured at 64 bytes, known answer ok, ops/s" \
		awk -v d=$drv '$1 == d && $2 == "measured" && $3 == "ok" && $6 > 0 && $7 == 64 { f = 1 } END { exit !f }' "$r/calibrate-ecdh.txt"
done

echo wrong >"$param"
check "mode wrong: rsa mismatch" test "$(kat cp_test_engine_rsa "$r/wrong-rsa.json" --depth 2)" = mismatch
check "mode wrong: ecdh mismatch" test "$(kat cp_test_engine_ecdh "$r/wrong-ecdh.json" --depth 2)" = mismatch
calibrate_one ecdh-nist-p256 "$r/calibrate-ecdh-wrong.json" >"$r/calibrate-ecdh-wrong.txt"
cat "$r/calibrate-ecdh-wrong.txt"
check "mode wrong: calibrate ecdh-nist-p256 finds the engine faulty" \
	awk '$1 == "cp_test_engine_ecdh" && $2 == "faulty" && $3 == "mismatch" { f = 1 } END { exit !f }' "$r/calibrate-ecdh-wrong.txt"
check "mode wrong: cbc(aes) mismatch" test "$(kat cp_test_engine_cbc_aes "$r/wrong.json" --size 4096)" = mismatch
check "mode wrong: cbc(aes) decrypt mismatch" test "$(kat cp_test_engine_cbc_aes "$r/wrong-dec.json" --size 4096 --decrypt)" = mismatch
check "mode wrong: sha256 mismatch" test "$(kat cp_test_engine_sha256 "$r/wrong-sha.json" --size 4096)" = mismatch
check "mode wrong: deflate compress mismatch" test "$(kat cp_test_engine_deflate "$r/wrong-deflate.json" --size 4096 --depth 2)" = mismatch
check "mode wrong: deflate decompress mismatch" test "$(kat cp_test_engine_deflate "$r/wrong-inflate.json" --size 4096 --decrypt)" = mismatch
calibrate_one deflate "$r/calibrate-deflate-wrong.json" >"$r/calibrate-deflate-wrong.txt"
cat "$r/calibrate-deflate-wrong.txt"
check "mode wrong: calibrate deflate finds the engine faulty" \
	awk '$1 == "cp_test_engine_deflate" && $2 == "faulty" && $3 == "mismatch" { f = 1 } END { exit !f }' "$r/calibrate-deflate-wrong.txt"
check "deflate's, rsa's and ecdh's calibrations left /proc/crypto as it was, nothing added or removed" \
	cmp "$r/deflate-before.txt" <(priority_snapshot)
"$ctl" calibrate --raw cp_test_engine_cbc_aes cp_test_engine_sha256 --size 4096 || true

echo slow >"$param"
check "mode slow: still ok" test "$(kat cp_test_engine_cbc_aes "$r/slow.json" --size 16)" = ok
echo ok >"$param"
kat cp_test_engine_cbc_aes "$r/fast.json" --size 16 >/dev/null
slow_ns=$(jget "$r/slow.json" "int(d['results'][0]['ns_per_request'])")
fast_ns=$(jget "$r/fast.json" "int(d['results'][0]['ns_per_request'])")
log "ns/request at 16 B: ok $fast_ns, slow $slow_ns"
check "mode slow: at least 200 us more per request" test "$slow_ns" -ge $((fast_ns + 200000))


# Hang: a hung engine costs at most 2 x grace (4 s) more than a working
# one of the same shape, whose time (instantiating the reference: seconds
# under TCG, where every module request the kernel makes runs modprobe)
# is measured first; 2 s of slack for a loaded machine.
ok_ms=$(ms_of "$ctl" calibrate --raw cp_test_engine_cbc_aes --size 4096 --depth 4 --budget 200)
echo hang >"$param"
t0=$(date +%s%N)
rc=0
err=$("$ctl" calibrate --raw cp_test_engine_cbc_aes --size 4096 --depth 4 --budget 200 2>&1 >/dev/null) || rc=$?
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
log "hang: exit $rc after $ms ms (working: $ok_ms ms): $err"
check "mode hang: calibrate fails (exit 1)" test "$rc" = 1
check "mode hang: ETIMEDOUT with the module's reason" \
	grep -qE 'Connection timed out.*kernel: .*did not complete within' <<<"$err"
check "mode hang: answered within a working run's time + 4 s (+2 s slack)" \
	test "$ms" -le $((ok_ms + 6000))
check "kernel log says requests are outstanding and the module pinned" \
	sh -c 'dmesg | grep -q "cp_test_engine_cbc_aes: .* not completed .*module pinned"'
rc=0
out=$(rmmod cryptoprio 2>&1) || rc=$?
log "rmmod cryptoprio while hung: exit $rc: $out"
check "rmmod cryptoprio refused while requests are outstanding" test "$rc" -ne 0
check "rmmod says in use" grep -qi 'in use' <<<"$out"
check "cryptoprio still loaded" grep -q '^cryptoprio ' /proc/modules
check "engine module cannot be unloaded either" not rmmod cp_test_engine

# The VM and the module keep working: another driver calibrates meanwhile.
check "$cpu_cbc calibrates while the engine hangs" \
	test "$(kat "$cpu_cbc" "$r/after.json" --size 4096)" = ok
check "a second hanging run also times out" \
	not "$ctl" calibrate --raw cp_test_engine_sha256 --size 64 --budget 50
check "a hanging compressor's run times out too" \
	expect_fail 'did not complete within' \
	"$ctl" calibrate --raw cp_test_engine_deflate --size 4096 --depth 2 --budget 50
check "a hanging rsa's run times out too" \
	expect_fail 'did not complete within' \
	"$ctl" calibrate --raw cp_test_engine_rsa --depth 2 --budget 50
check "a hanging ecdh's run times out too" \
	expect_fail 'did not complete within' \
	"$ctl" calibrate --raw cp_test_engine_ecdh --depth 2 --budget 50

# A hang in the middle of the timed run, after the known answer passed:
# the engine serves the known-answer requests (one per slot) and the first
# requests of the timed run, then hangs (hang_after). A driver whose earlier
# run still has requests out is refused, so the releases of the runs hung
# above are waited for first.
wait_released() {  # wait_released N: until N runs' memory came back (10 s)
	for _ in $(seq 50); do
		[[ $(late_releases) -ge $1 ]] && return 0
		sleep 0.2
	done
	return 1
}
zombies=5	# the hung known answer, sha256's, deflate's, rsa's and ecdh's runs above
echo ok >"$param"
check "the runs hung so far are released" wait_released "$zombies"
echo 20 >/sys/module/cp_test_engine/parameters/hang_after
rc=0
"$ctl" calibrate --raw cp_test_engine_cbc_aes --size 4096 --depth 4 --budget 1000 \
	>/dev/null 2>"$r/midrun.err" || rc=$?
log "hang after 19 requests: exit $rc: $(cat "$r/midrun.err")"
zombies=6
check "hang during the timed run: ETIMEDOUT after the budget" \
	grep -q 'did not complete within the budget plus the grace period' "$r/midrun.err"

# Releasing the engine frees the zombie runs and the module reference.
echo ok >"$param"
check "late completions release every hung run's memory ($zombies)" wait_released "$zombies"
check "rmmod cryptoprio works once released" rmmod cryptoprio
check "rmmod cp_test_engine works" rmmod cp_test_engine

dmesg | tail -n +"$((base + 1))" >"$r/dmesg.txt"
check "kernel log since insmod: no oops, BUG or warning" \
	kernel_log_clean "$r/dmesg.txt"
