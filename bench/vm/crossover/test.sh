# bench/crossover, inside the VM: figures, not pass/fail (see bench/README.md).
# The CPU's every cbc(aes) against virtio-crypto, encrypting and decrypting,
# through the module at depth 1; then the ranked calibration at 4 KiB and
# 64 KiB and the machine's export, for plan --from elsewhere.
out=$CP_RESULTS/bench.txt
# armhf: the scalar AES first, so that the kernel builds cbc(aes-arm), on
# which cbc-aes-neonbs encrypts (its bit-sliced code only decrypts in
# parallel), as where udev loaded it at boot.
[[ $(uname -m) != armv7* ]] || modprobe_q aes_arm
modprobe_q virtio_pci virtio_crypto "$cpu_aes_module" crypto_user
wait_for_driver virtio_crypto_aes_cbc
wait_for_driver "$cpu_cbc"
insmod "$CP_KMOD/cryptoprio.ko"
wait_before_measuring virtio_crypto "$cpu_aes_module"
sizes=16,256,4096,65536
{
	echo "== $(uname -r) ($(uname -m)), calibrate --raw 'cbc(aes)' --size $sizes --budget 1s"
	for dir in encrypt decrypt; do
		args=()
		[[ $dir == encrypt ]] || args=(--decrypt)
		"$ctl" --json calibrate --raw 'cbc(aes)' --size "$sizes" --budget 1s "${args[@]}" \
			>"$CP_RESULTS/$dir.json"
	done
	python3 - "$CP_RESULTS/encrypt.json" "$CP_RESULTS/decrypt.json" <<'PY'
import json, sys
for label, path in (("encrypt", sys.argv[1]), ("decrypt", sys.argv[2])):
    rows = json.load(open(path))["results"]
    drivers = sorted({r["driver"] for r in rows}, key=lambda d: (d.startswith("virtio"), d))
    sizes = sorted({r["size"] for r in rows})
    mbps = {(r["driver"], r["size"]): r["mb_per_s"] for r in rows}
    print(f"-- {label}: MB/s")
    print(f"{'driver':<24}" + "".join(f"{s:>10}" for s in sizes))
    for d in drivers:
        print(f"{d:<24}" + "".join(f"{mbps.get((d, s), 0):>10.2f}" for s in sizes))
    cpu = [d for d in drivers if not d.startswith("virtio")]
    line = []
    for s in sizes:
        best = max(cpu, key=lambda d: mbps.get((d, s), 0))
        v = mbps.get(("virtio_crypto_aes_cbc", s), 0)
        c = mbps.get((best, s), 0)
        line.append(f"{s}: {'virtio' if v > c else best} ({v / c if c else 0:.2f}x)")
    print("faster (virtio-crypto / the CPU's best): " + ", ".join(line))
PY
	echo "-- ranked calibration at 4 KiB and 64 KiB (the cache), then export"
	"$ctl" calibrate 'cbc(aes)' --size 4096,65536 --budget 30s --force
	"$ctl" --json export >"$CP_RESULTS/export.json"
} 2>&1 | tee "$out"
