# bench/calibration, inside the VM: figures, not pass/fail (see bench/README.md).
out=$CP_RESULTS/bench.txt
modprobe_q virtio_pci virtio_crypto aesni_intel crypto_user
wait_for_driver virtio_crypto_aes_cbc
wait_for_driver cbc-aes-aesni
insmod "$CP_KMOD/cryptoprio.ko"
drivers="cbc-aes-aesni virtio_crypto_aes_cbc"
sizes=16,4096,65536

ms() { python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["elapsed_ns"] / 1e6))' "$1"; }
{
	echo "== $(uname -r)"
	echo "-- (a) full calibration, default policy (2 s budget)"
	rm -f /var/lib/cryptoprio/calibration.json
	"$ctl" --json calibrate >"$CP_RESULTS/cold.json"
	"$ctl" --json calibrate >"$CP_RESULTS/warm.json"
	python3 - "$CP_RESULTS/cold.json" "$CP_RESULTS/warm.json" <<'PY'
import json, sys
for label, path in (("cold", sys.argv[1]), ("warm", sys.argv[2])):
    d = json.load(open(path))
    n = sum(len(a["implementations"]) for a in d["algorithms"])
    print(f"{label}: {d['elapsed_ns'] / 1e6:.0f} ms, {n} implementations of {len(d['algorithms'])} "
          f"names, {d['points_measured']} points measured, {d['points_from_cache']} from the "
          f"cache, {d['points_unmeasured']} unmeasured")
PY
	echo "-- (b) engine (2 s budget) vs a reference run 10x longer, module; and AF_ALG"
	"$ctl" --json calibrate $drivers --force --size $sizes --budget 2s >"$CP_RESULTS/short.json"
	"$ctl" --json calibrate $drivers --force --size $sizes --budget 20s >"$CP_RESULTS/long.json"
	rmmod cryptoprio
	"$ctl" --json calibrate $drivers --force --size $sizes --budget 20s \
		>"$CP_RESULTS/afalg.json" 2>/dev/null || true
	insmod "$CP_KMOD/cryptoprio.ko"
	echo "-- (c) the same calibration twice"
	"$ctl" --json calibrate $drivers --force --size $sizes --budget 2s >"$CP_RESULTS/again.json"
	python3 "$CP_SRC/bench/compare-calibrations" "$CP_RESULTS"
} 2>&1 | tee "$out"
