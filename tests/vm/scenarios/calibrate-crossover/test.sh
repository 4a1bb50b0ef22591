# The calibration engine finds the crossover under TCG: aesni ahead at 16 B,
# virtio-crypto ahead at 64 KiB, in repeated runs, through the module; on 6.1
# also through AF_ALG without the module, while on 7.2 AF_ALG cannot reach
# the engine and says so. Where between the two the order turns depends on
# the path: in the kernel virtio-crypto already leads at 4 KiB, through
# AF_ALG (DESIGN.md's figures) it does not; the 4 KiB order is recorded,
# not asserted (bench/README.md).
ctl=$CP_BUILD/cli/cryptoprioctl
modprobe_q virtio_pci virtio_crypto aesni_intel crypto_user
wait_for_driver virtio_crypto_aes_cbc
wait_for_driver cbc-aes-aesni

# order FILE: "aesni-first virtio-first" ... per size 16 4096 65536, from the JSON
order() {
	python3 - "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
[alg] = [a for a in doc["algorithms"] if a["name"] == "cbc(aes)"]
impl = {i["driver"]: i for i in alg["implementations"]}
def mbps(drv, size):
    [p] = [p for p in impl[drv]["points"] if p["size"] == size]
    return p["mb_per_s"]["median"] if p["verdict"] == "measured" else p["verdict"]
out = []
for size in (16, 4096, 65536):
    a, v = mbps("cbc-aes-aesni", size), mbps("virtio_crypto_aes_cbc", size)
    print(f"{size}: aesni {a} virtio {v}", file=sys.stderr)
    out.append("aesni" if not isinstance(v, float) or (isinstance(a, float) and a > v) else "virtio")
print(" ".join(out))
PY
}

insmod "$CP_KMOD/cryptoprio.ko"
for run in 1 2; do
	"$ctl" --json calibrate 'cbc(aes)' --force --budget 10s --size 16,4096,65536 >"$CP_RESULTS/module-$run.json"
	check "module run $run: backend is the module" grep -q '"backend": "module"' "$CP_RESULTS/module-$run.json"
	o=$(order "$CP_RESULTS/module-$run.json")
	log "module run $run: faster at 16 B, 4 KiB, 64 KiB: $o"
	check "module run $run: aesni at 16 B, virtio at 64 KiB" test "${o% * *}/${o##* }" = aesni/virtio
done
winner=$(python3 -c 'import json,sys; print([a["winner"] for a in json.load(open(sys.argv[1]))["algorithms"] if a["name"] == "cbc(aes)"][0])' "$CP_RESULTS/module-2.json")
"$ctl" calibrate 'cbc(aes)' --size 16,4096,65536 | tee "$CP_RESULTS/table.txt"
check "the table marks the winner at the workload point ($winner)" grep -qE "^\* $winner " "$CP_RESULTS/table.txt"
check "the table's figures come from the cache" grep -q "6 from the cache" "$CP_RESULTS/table.txt"
rmmod cryptoprio

"$ctl" --json calibrate 'cbc(aes)' --force --budget 10s --size 16,4096,65536 >"$CP_RESULTS/afalg.json" \
	2>"$CP_RESULTS/afalg.err"
check "without the module the backend is AF_ALG" grep -q '"backend": "af_alg"' "$CP_RESULTS/afalg.json"
check "and it says why" grep -q "cryptoprio module not usable" "$CP_RESULTS/afalg.err"
if [[ $CP_KVER_ALIAS == 6.1 ]]; then
	o=$(order "$CP_RESULTS/afalg.json")
	log "AF_ALG: faster at 16 B, 4 KiB, 64 KiB: $o"
	check "AF_ALG on 6.1: aesni at 16 B, virtio at 64 KiB" test "${o% * *}/${o##* }" = aesni/virtio
else
	check "AF_ALG on 7.2: virtio-crypto is reported unreachable" \
		grep -q '"verdict": "unreachable"' "$CP_RESULTS/afalg.json"
	check "AF_ALG on 7.2: aesni still measured" python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
[a] = [a for a in doc["algorithms"] if a["name"] == "cbc(aes)"]
[i] = [i for i in a["implementations"] if i["driver"] == "cbc-aes-aesni"]
assert all(p["verdict"] == "measured" for p in i["points"]), i' "$CP_RESULTS/afalg.json"
fi
