# No false positive: every correct engine passes the differential
# verification under four seeds, drawn for the run (logged, so that a
# failure is replayed with `cryptoprioctl verify --seed`); twenty seeds are
# five runs: `tests/vm/run --repeat 5 module-verify-seeds`. The engines:
# the test engine's ciphers, AEADs, hashes, deflate, rsa and ecdh, the CAAM-like engine's
# (its own xts, authenc, gcm and hmac), QEMU's virtio-crypto. A verdict
# of faulty on any of them would hold a good engine after the CPU.
#
# Slow (each seed verifies every engine: 20 to 60 s a seed under TCG
# beside another VM) and kernel-independent in what it checks beyond
# module-verify*: by rotation.
n_seeds=4
r=$CP_RESULTS
test_engine_ecdh=1 load_test_engine cp_test_engine_cbc_aes cp_test_engine_gcm_aes \
	cp_test_engine_sha256 cp_test_engine_ecdh
check "insmod cp_caam_engine.ko" insmod "$CP_KMOD/cp_caam_engine.ko"
check "authenc-hmac-sha256-cbc-aes-cp-caam passed its self-test" \
	wait_for_driver authenc-hmac-sha256-cbc-aes-cp-caam
modprobe_q virtio_pci virtio_crypto
check "virtio_crypto_aes_cbc passed its self-test" wait_for_driver virtio_crypto_aes_cbc 60
wait_before_measuring cp_caam_engine virtio_crypto
base=$(dmesg | wc -l)

engines=('cp_test_engine_*' '*-cp-caam' virtio_crypto_aes_cbc)
first=$(( (RANDOM << 15 | RANDOM) + 1 ))
log "seeds $first to $((first + n_seeds - 1))"
for seed in $(seq "$first" "$((first + n_seeds - 1))"); do
	verify_json "$r/seed-$seed.json" "${engines[@]}" --seed "$seed"
	jget "$r/seed-$seed.json" "'\\n'.join('seed %d: %s %s' % ($seed, i['driver'], i['failure']) for i in d['implementations'] if i['verdict'] != 'passed' and i['type'] in ('skcipher', 'aead', 'hash', 'acomp', 'akcipher', 'kpp'))"
done
# verified: DRIVER VERDICT CASES, a line per verification of each seed
verified() {
	python3 -c '
import json, sys
for f in sys.argv[1:]:
    for i in json.load(open(f))["implementations"]:
        if i["type"] in ("skcipher", "aead", "hash", "acomp", "akcipher", "kpp"):
            print(i["driver"], i["verdict"], i["cases"])' "$r"/seed-*.json
}
verified >"$r/verified.txt"
log "$(sort "$r/verified.txt" | uniq -c)"
# What verifying each engine takes (48 cases), the slowest of its runs.
log "$(python3 -c '
import json, sys
took = {}
for f in sys.argv[1:]:
    for i in json.load(open(f))["implementations"]:
        took[i["driver"]] = max(took.get(i["driver"], 0), i["elapsed_ns"])
for d in sorted(took):
    print("%-52s %6d ms" % (d, took[d] // 10**6))' "$r"/seed-*.json)"
check "$n_seeds seeds: each engine verified $n_seeds times" \
	test "$(cut -d' ' -f1 "$r/verified.txt" | sort | uniq -c | awk -v n="$n_seeds" '$1 != n' | wc -l)" = 0
check "... at least ten engines" \
	test "$(cut -d' ' -f1 "$r/verified.txt" | sort -u | wc -l)" -ge 10
check "... every verification passed its 48 cases" \
	test "$(grep -cv ' passed 48$' "$r/verified.txt")" = 0

check "rmmod virtio_crypto" wait_until 20 rmmod virtio_crypto
check "rmmod cp_caam_engine" wait_until 20 rmmod cp_caam_engine
unload_verifier_clean "$base"
