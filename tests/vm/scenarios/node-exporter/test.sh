# Monitoring a fleet: the daemon writes its metrics to MetricsFile= after
# its run, and Debian's node_exporter (unpacked from its package by
# tests/vm/fetch-packages) serves them with its textfile collector over
# HTTP on the loopback, as Prometheus scrapes them: every cryptoprio_*
# sample of the file, parsed by Prometheus' own parser, with the winner
# the run made and the figures the cache holds. Then a priority set behind
# cryptoprio's back shows as drift, and the export's calibration serves as
# a cache shared by a fleet.
#
# Depends only on cryptoprio (its metrics): not in CI's matrix, by rotation.
[[ $(uname -m) == x86_64 ]] ||
	skip "tests/vm/fetch-packages unpacks the host's node_exporter (x86_64) only"
ne=$CP_PACKAGES/prometheus-node-exporter/usr/bin/prometheus-node-exporter
dir=/var/lib/prometheus/node-exporter
[[ -x $ne ]] || fail "no node_exporter at $ne (tests/vm/fetch-packages)"
engine_ready
insmod "$CP_KMOD/cryptoprio.ko"

# Figures for the metrics, measured once; the daemon takes them from the
# cache. A budget well beyond the 3 runs of 2 points: a second or two on
# 6.1 and 7.2, but 13 s on 6.12, whose virtio-crypto took 3.9 ms a 4 KiB
# request under TCG (15 s cut virtio's runs short there: not cached). The
# runs stop once the two are apart (3 to 5 times), long before 60 s.
"$ctl" --json calibrate 'cbc(aes)' --size 4096 --budget 60s >"$CP_RESULTS/calibrate.json"
check "the calibration's points all measured, none cut short (so cached)" \
	test "$(jget "$CP_RESULTS/calibrate.json" "d['points_measured'], d['points_cut_short']")" = "(2, 0)"
mkdir -p "$dir"
cat >/etc/cryptoprio.conf <<CONF
[Policy]
Calibrate = cached
MetricsFile = $dir/cryptoprio.prom
[Driver virtio_crypto_aes_cbc]
Pin = first
CONF
check "the daemon's run: exit 0" "$daemon" --once
cp "$dir/cryptoprio.prom" "$CP_RESULTS/cryptoprio.prom"
"$ctl" metrics >"$CP_RESULTS/metrics.txt"
check "MetricsFile= is what cryptoprioctl metrics prints" \
	diff "$CP_RESULTS/metrics.txt" "$CP_RESULTS/cryptoprio.prom"
prio=$(proc_crypto_prio virtio_crypto_aes_cbc)
check "the metrics parse, with the run's result and winner" \
	"$CP_SRC/tests/tools/check-metrics" "$CP_RESULTS/cryptoprio.prom" \
	'cryptoprio_last_run_success 1' 'cryptoprio_last_apply_steps_failed 0' \
	'cryptoprio_drifted_implementations 0' \
	"cryptoprio_winner_priority{name=\"cbc(aes)\",driver=\"virtio_crypto_aes_cbc\",class=\"offload\"} $prio"
check "the figures of both cbc(aes) at 4 KiB" test "$(grep -c \
	'^cryptoprio_calibration_throughput_bytes_per_second{name="cbc(aes)",.*request_size="4096",in_flight="1"}' \
	"$CP_RESULTS/cryptoprio.prom")" = 2

ip link set lo up
"$ne" --collector.disable-defaults --collector.textfile --collector.textfile.directory="$dir" \
	--web.listen-address=127.0.0.1:9100 >"$CP_RESULTS/node-exporter.log" 2>&1 &
ne_pid=$!
# scrape: node_exporter's page, once it listens (up to 30 s).
scrape() {
	/usr/bin/python3 - "$CP_RESULTS/scrape.txt" <<'PY'
import sys, time, urllib.request
for _ in range(60):
    try:
        page = urllib.request.urlopen("http://127.0.0.1:9100/metrics", timeout=5).read()
        open(sys.argv[1], "wb").write(page)
        sys.exit(0)
    except OSError:
        time.sleep(0.5)
sys.exit(1)
PY
}
check "node_exporter answers on the loopback" scrape
check "its textfile collector read the file" grep -qx 'node_textfile_scrape_error 0' "$CP_RESULTS/scrape.txt"
# same: the cryptoprio_* samples of the page are those of the file, parsed alike.
same() {
	/usr/bin/python3 - "$CP_RESULTS/cryptoprio.prom" "$CP_RESULTS/scrape.txt" <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families as parse
def ours(path):
    return sorted((s.name, sorted(s.labels.items()), s.value)
                  for f in parse(open(path).read()) if f.name.startswith("cryptoprio_")
                  for s in f.samples)
file, page = ours(sys.argv[1]), ours(sys.argv[2])
print(f"{len(file)} samples in the file, {len(page)} cryptoprio_* on the page")
sys.exit(0 if file and file == page else 1)
PY
}
check "node_exporter serves every cryptoprio_* sample of the file, as it is" same
kill "$ne_pid"
wait "$ne_pid" 2>/dev/null || true

# The driver the run's step set (Pin = first lowers aesni below the engine).
stepped=$(jget "$state" "d['last_apply']['steps'][0]['driver']")
"$ctl" set "$stepped" 300 >/dev/null
"$ctl" metrics >"$CP_RESULTS/metrics-drift.txt"
check "a priority set since ($stepped): drift" "$CP_SRC/tests/tools/check-metrics" \
	"$CP_RESULTS/metrics-drift.txt" 'cryptoprio_drifted_implementations 1'

# The export's calibration installed as the cache (as configuration
# management would on an identical machine) is used as it is, nothing
# measured. (Between two boots, and with another kernel: calibrate-shared.)
"$ctl" --json export >"$CP_RESULTS/export.json"
py 'json.dump(json.load(open(sys.argv[1]))["calibration"], open(sys.argv[2], "w"))' \
	"$CP_RESULTS/export.json" "$cache"
printf '[Policy]\nCalibrate = cached\n[Algorithm cbc(aes)]\nGears = any\n' >/etc/cryptoprio.conf
"$ctl" --json plan >"$CP_RESULTS/plan-shared.json"
check "the export's calibration as the cache: its cbc(aes) figures used, nothing measured" test "$(jget \
	"$CP_RESULTS/plan-shared.json" "d['calibration']['points_from_cache'] >= 2, d['calibration']['points_measured']")" = "(True, 0)"
