# shellcheck shell=bash disable=SC2154 # ctl, CP_* and the helpers: tests/vm/lib.sh
# bench/tcrypt, inside the VM: the kernel's own tcrypt beside cryptoprio's
# ranking at the default policy's workload point (4 KiB requests, one in
# flight). Figures, not pass/fail, except that every priority must be back
# at the end (see bench/README.md).
set -o pipefail
out=$CP_RESULTS/tcrypt.txt
logs=$CP_RESULTS/tcrypt-logs
runs=5 # tcrypt loads per driver; the table takes their median
mkdir -p "$logs"
: >"$CP_RESULTS/names.tsv"
: >"$CP_RESULTS/runs.tsv"

modprobe_q virtio_pci virtio_crypto aesni_intel crypto_user
# 6.1: SHA-224/256 in SSSE3, AVX and AVX2 beside the generic C (udev would
# load it for the CPU); 7.2 has no such module, its SHA-2 is sha256-lib.
modprobe -q sha256_ssse3 || true
wait_for_driver virtio_crypto_aes_cbc
wait_for_driver cbc-aes-aesni
wait_before_measuring aesni_intel virtio_crypto sha256_ssse3
insmod "$CP_KMOD/cryptoprio.ko"

# tcrypt counts get_cycles(), the TSC: the kernel's calibration of it turns
# cycles into time.
tsc_mhz=$(dmesg | sed -n 's/.*Refined TSC clocksource calibration: \([0-9.]*\) MHz.*/\1/p' | tail -n 1)
[[ -n $tsc_mhz ]] || tsc_mhz=$(dmesg | sed -n 's/.*tsc: Detected \([0-9.]*\) MHz.*/\1/p' | tail -n 1)
[[ -n $tsc_mhz ]] || tsc_mhz=$(awk -F': *' '/^cpu MHz/ { print $2; exit }' /proc/cpuinfo)
printf 'kernel\t%s\ntsc_mhz\t%s\nruns\t%s\n' "$(uname -r)" "$tsc_mhz" "$runs" >"$CP_RESULTS/env.tsv"

# NAME|MODE|ALG: how crypto/tcrypt.c's do_test() measures NAME. Each
# allocates by name with mask 0, as any user would (async drivers too), so it
# gets the highest priority; each prints its driver in "testing speed of".
#   500        the AES skciphers (ecb, cbc, lrw, xts, cts, ctr, rfc3686; 6.1
#              also cfb, ofb): every key size of the name, encryption then
#              decryption, 16 to 4096-byte blocks
#   211        gcm(aes) and rfc4106(gcm(aes)): 16-byte tag, 8 and 16 bytes of
#              AAD, 16 to 8192-byte blocks
#   400 alg=X  the hash X through ahash: 22 shapes, 4096 bytes in one digest
#              among them
# The first four are always in the table; the others when two or more
# implementations compete for them.
cases=(
	'cbc(aes)|500|' 'xts(aes)|500|' 'gcm(aes)|211|' 'sha256|400|sha256'
	'ctr(aes)|500|' 'ecb(aes)|500|' 'cts(cbc(aes))|500|' 'rfc4106(gcm(aes))|211|'
	'sha1|400|sha1' 'sha224|400|sha224' 'sha384|400|sha384' 'sha512|400|sha512'
)
required=4

# tag NAME: NAME as a file name.
tag() { tr '(),' '__-' <<<"$1"; }

# competitors NAME CALJSON: the drivers cryptoprio ranked for NAME (in the
# calibration's JSON), else the tested, non-internal ones /proc/crypto lists.
competitors() {
	py 'd = json.load(open(sys.argv[2]))
names = [i["driver"] for a in d.get("algorithms", []) if a["name"] == sys.argv[1]
         for i in a["implementations"]]
print(" ".join(names))' "$1" "$2" 2>/dev/null || true
}
listed() {
	{ "$ctl" --json list "$1" 2>/dev/null || true; } | py 'd = json.loads(sys.stdin.read() or "{}")
print(" ".join(i["driver"] for a in d.get("algorithms", []) if a["name"] == sys.argv[1]
               for i in a["implementations"]
               if "tested" in i["flags"] and "internal" not in i["flags"]))' "$1"
}

# calibrate NAME FILE [ARG...]: cryptoprio's ranking of NAME at the
# workload point, its JSON in $CP_RESULTS/FILE.json, its standard error in
# FILE.err.
calibrate() {
	"$ctl" --json calibrate "$1" --force --size 4096 "${@:3}" >"$CP_RESULTS/$2.json" \
		2>"$CP_RESULTS/$2.err" || true
}

# chosen NAME FILE: the plan from the figures the calibration just cached
# (the default policy), its JSON in $CP_RESULTS/FILE.json: the driver it
# makes NAME's first is what apply would choose (within each other's
# noise, two drivers keep the kernel's order).
chosen() {
	"$ctl" --json plan --all >"$CP_RESULTS/$2.json" 2>"$CP_RESULTS/$2.err" || true
}

# top NAME: the highest priority among NAME's implementations now.
top() {
	awk -v n="$1" '$1 == "name" { name = $3 } $1 == "priority" && name == n && $3 > best { best = $3 }
		END { print best + 0 }' /proc/crypto
}

# load NAME MODE ALG FILE: one tcrypt load (it fails by design, -EAGAIN,
# after measuring), its kernel messages into FILE; prints "T0 T1 MESSAGE".
load() {
	local t0 t1 msg
	dmesg -C
	t0=$(date +%s.%N)
	msg=$(modprobe tcrypt "mode=$2" sec=0 ${3:+"alg=$3"} 2>&1) || true
	t1=$(date +%s.%N)
	dmesg >"$4"
	printf '%s\t%s\t%s\n' "$t0" "$t1" "${msg//$'\n'/ }"
}

before=$CP_RESULTS/priorities-before.txt
priority_snapshot >"$before"

# cryptoprio first, on the priorities as they came. Per name: a cold
# calibration (the first run of each driver pays for the modules its
# known-answer reference brings, as at boot), then the one the table ranks
# by, with the default budget (2 s), warm like tcrypt's timed loads below;
# then one with 10 s, which measures what 2 s leaves out.
selected=()
for i in "${!cases[@]}"; do
	IFS='|' read -r name mode alg <<<"${cases[i]}"
	t=$(tag "$name")
	calibrate "$name" "cal-$t.cold"
	drivers=$(competitors "$name" "$CP_RESULTS/cal-$t.cold.json")
	[[ -n $drivers ]] || drivers=$(listed "$name")
	read -ra d <<<"$drivers"
	((${#d[@]} > 0)) || continue
	((i < required || ${#d[@]} > 1)) || continue
	calibrate "$name" "cal-$t"
	chosen "$name" "plan-$t"
	calibrate "$name" "cal-$t.10s" --budget 10s
	chosen "$name" "plan-$t.10s"
	selected+=("${cases[i]}|$drivers")
	printf '%s\t%s\t%s\t%s\n' "$name" "$mode" "$alg" "$drivers" >>"$CP_RESULTS/names.tsv"
done

# One untimed load of each mode first: tcrypt.ko comes in over 9p, and the
# template instances tcrypt asks for (lrw, rfc3686...) are built and
# self-tested once.
for mode in 500 211 400; do
	load - "$mode" "$([[ $mode == 400 ]] && echo sha256)" "$logs/warmup-$mode.txt" >/dev/null
done

# Then $runs passes; in each, every driver of every name in turn is made the
# kernel's choice for one load: raised above the name's highest priority,
# each above the one before, all reset at the end of the name's turn.
t_start=$SECONDS
for ((pass = 1; pass <= runs; pass++)); do
	for c in "${selected[@]}"; do
		IFS='|' read -r name mode alg drivers <<<"$c"
		t=$(tag "$name")
		prio=$(top "$name")
		read -ra order <<<"$drivers"
		# Every other pass the other way round: a slower host at one end of a
		# pass is not always charged to the same driver.
		if ((pass % 2 == 0)); then
			rev=()
			for ((j = ${#order[@]} - 1; j >= 0; j--)); do rev+=("${order[j]}"); done
			order=("${rev[@]}")
		fi
		for drv in "${order[@]}"; do
			prio=$((prio + 100))
			"$ctl" set "$drv" "$prio" >/dev/null
			first=$(first_of "$name")
			f=$logs/$t-$drv-$pass.txt
			r=$(load "$name" "$mode" "$alg" "$f")
			printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$drv" "$pass" "$first" "${f#"$CP_RESULTS"/}" "$r" \
				>>"$CP_RESULTS/runs.tsv"
		done
		# shellcheck disable=SC2086 # the list of drivers
		"$ctl" reset $drivers >/dev/null
	done
done
printf 'tcrypt_passes_s\t%s\n' "$((SECONDS - t_start))" >>"$CP_RESULTS/env.tsv"

"$ctl" --json reset >"$CP_RESULTS/reset.json"
priority_snapshot >"$CP_RESULTS/priorities-after.txt"
# Every driver registered before is still there, with its priority.
gone=$(awk 'NR == FNR { now[$1] = 1; next } !($1 in now) { print "gone:", $1 }' \
	"$CP_RESULTS/priorities-after.txt" "$before")
if changed=$(priorities_as "$before") && [[ -z $gone ]]; then
	restored=yes
else
	changed=$(printf '%s\n%s' "$changed" "$gone")
	restored="no: $(echo "$changed" | sed '/^$/d' | paste -sd ';')"
fi
printf 'restored\t%s\n' "$restored" >>"$CP_RESULTS/env.tsv"
# What came meanwhile: the template instances tcrypt asked for.
printf 'new_drivers\t%s\n' "$(awk 'NR == FNR { seen[$1] = 1; next } !($1 in seen) { print $1 }' \
	"$before" "$CP_RESULTS/priorities-after.txt" | sort -u | tr '\n' ' ')" >>"$CP_RESULTS/env.tsv"

python3 "$CP_SRC/bench/tcrypt-table" "$CP_RESULTS" | tee "$out"
check "every priority is as before the bench" test "$restored" = yes
