# shellcheck shell=bash
# Helpers for VM scenarios. Sourced (by guest-run.sh) before the scenario's
# test.sh, which runs as root under "bash -eu" inside the VM with the CP_*
# variables tests/vm/guest-env lists for it (what each holds is said there)
# and CP_SCENARIO_DIR, the scenario's directory. CP_SRC, the repository, is
# on the read-only lower layer: writes there go to a tmpfs and are lost.

CP_CHECKS_FAILED=0
CP_CHECKS_PASSED=0
# When lib.sh was sourced, for the seconds each check line carries.
CP_CHECKS_T0=${EPOCHREALTIME/./}

# What the scenarios run and look at: the programs of the build under test,
# the state file, the appliers' lock and the calibration cache. $ctl runs
# the build's cryptoprioctl through tests/vm/ctl-keep-json, which keeps each
# document it prints with --json in $CP_RESULTS/json/VERB.PID.json for the
# host to check against the schema (tests/vm/run).
ctl=${CP_SRC:-.}/tests/vm/ctl-keep-json
# Writable by all: the documents of $ctl run as nobody are kept too.
if [[ -n ${CP_RESULTS:-} ]] && mkdir -p "$CP_RESULTS/json" 2>/dev/null; then
	chmod 1777 "$CP_RESULTS/json" 2>/dev/null || true
fi
daemon=${CP_BUILD:-}/daemon/cryptoprio-daemon
state=/run/cryptoprio/state.json
lock=/run/cryptoprio/lock
cache=/var/lib/cryptoprio/calibration.json

# The CPU's AES of the guest's architecture, for the scenarios to name
# instead of one architecture's drivers: the module that registers it
# (cpu_aes_module), its drivers of each mode (cpu_cbc, cpu_ecb, cpu_ctr,
# cpu_xts) and its AES-GCM (cpu_gcm, from cpu_gcm_module). x86_64: AES-NI
# (aesni_intel); arm64: the ARMv8 Crypto Extensions (aes-ce-blk, ghash-ce);
# armhf, a CPU without AES instructions (QEMU's Cortex-A15, as a
# Cortex-A7): NEON's bit-sliced AES (aes-arm-bs), whose modes are
# asynchronous wrappers (simd) of internal drivers, and the GCM that the
# kernel's template builds on its CTR and on NEON's GHASH (ghash-arm-ce,
# whose vmull.p8 code needs no Crypto Extensions): an instance of the gcm
# module's template, registered only once a user asks for gcm(aes) (the
# name is 6.1's; 7.2's gcm takes GHASH from the kernel's library:
# gcm_base(ctr-aes-neonbs,ghash-lib), and its ghash-arm-ce module is a
# gcm(aes) of the Crypto Extensions, which this CPU lacks: it does not
# load): where an engine serves gcm(aes), the plan creates it from its
# parts, whose modules cpu_gcm_parts names (none elsewhere).
cpu_gcm_parts=
case $(uname -m) in
aarch64)
	cpu_aes_module=aes_ce_blk cpu_aes=ce
	cpu_gcm_module=ghash_ce cpu_gcm=gcm-aes-ce
	;;
armv7*)
	cpu_aes_module=aes_arm_bs cpu_aes=neonbs
	cpu_gcm_module=gcm cpu_gcm='gcm_base(ctr-aes-neonbs,cryptd(ghash-ce-sync))'
	cpu_gcm_parts=ghash_arm_ce
	;;
*)
	cpu_aes_module=aesni_intel cpu_aes=aesni
	cpu_gcm_module=aesni_intel cpu_gcm=generic-gcm-aesni
	;;
esac
cpu_cbc=cbc-aes-$cpu_aes
cpu_ecb=ecb-aes-$cpu_aes
cpu_ctr=ctr-aes-$cpu_aes
cpu_xts=xts-aes-$cpu_aes
# In the environment too, for the scenarios' Python (os.environ["cpu_cbc"]).
export cpu_aes_module cpu_cbc cpu_ecb cpu_ctr cpu_xts cpu_gcm_module cpu_gcm cpu_gcm_parts

# log MSG...: print a line to the scenario output.
log() { printf '%s\n' "$*"; }

# fail MSG: the scenario fails now.
fail() {
	printf 'FAIL: %s\n' "$*"
	exit 1
}

# skip MSG: the scenario is skipped (exit code 77).
skip() {
	printf 'SKIP: %s\n' "$*"
	CP_CHECKS_FAILED=0
	exit 77
}

# modprobe_q MOD...: load modules quietly; on failure say which one and
# return non-zero (which ends the scenario under "bash -e").
modprobe_q() {
	local m rc=0
	for m in "$@"; do
		if ! modprobe -q "$m"; then
			printf 'modprobe %s failed\n' "$m" >&2
			rc=1
		fi
	done
	return "$rc"
}

# check_time VAR: VAR = "  [S s]", the seconds since lib.sh was sourced,
# for the check lines: where a scenario spends its time, read off its log.
check_time() {
	local us=$((${EPOCHREALTIME/./} - CP_CHECKS_T0))
	printf -v "$1" '  [%d.%d s]' $((us / 1000000)) $((us / 100000 % 10))
}

# check DESC CMD...: run CMD, record "PASS: DESC" or "FAIL: DESC" (also in
# $CP_RESULTS/checks.txt). A failed check does not stop the scenario, but the
# scenario fails at its end.
check() {
	local desc=$1 rc=0 out at
	shift
	out=$("$@" 2>&1) || rc=$?
	check_time at
	if [[ $rc -eq 0 ]]; then
		CP_CHECKS_PASSED=$((CP_CHECKS_PASSED + 1))
		printf 'PASS: %s%s\n' "$desc" "$at" | tee -a "${CP_RESULTS:-/tmp}/checks.txt"
	else
		CP_CHECKS_FAILED=$((CP_CHECKS_FAILED + 1))
		printf 'FAIL: %s (exit %d)%s\n' "$desc" "$rc" "$at" |
			tee -a "${CP_RESULTS:-/tmp}/checks.txt"
		[[ -z $out ]] || printf '%s\n' "$out" | sed 's/^/    /'
	fi
	return 0
}

# not CMD...: true if CMD fails, for a negative check ("check DESC not grep
# -q X FILE"). Its output goes where check puts CMD's.
not() { ! "$@"; }

# kernel_log_clean FILE [ERE]: FILE (a part of the kernel log) has no oops,
# BUG, warning, call trace, refcount or use-after-free report, nor a line
# matching ERE; the lines that do are printed.
kernel_log_clean() {
	not grep -E "Oops|BUG:|WARNING:|Call Trace|refcount_t|use-after-free${2:+|$2}" "$1"
}

# proc_crypto_field DRIVER FIELD: print FIELD (e.g. priority, selftest,
# name, type, refcnt) of DRIVER's entry in /proc/crypto, wherever the field
# stands in it; non-zero if DRIVER has none. A test larval of the same
# driver name, still listed for a moment after its self-test (seen on
# 6.12), is not the entry.
proc_crypto_field() {
	awk -v RS= -v drv="$1" -v fld="$2" '{
		delete f
		n = split($0, l, "\n")
		for (i = 1; i <= n; i++) { k = l[i]; sub(/ *:.*/, "", k); v = l[i]; sub(/^[^:]*: */, "", v); f[k] = v }
		if (f["driver"] == drv && f["type"] != "larval" && (fld in f)) { print f[fld]; found = 1; exit }
	} END { exit !found }' /proc/crypto
}

# proc_crypto_prio DRIVER: print the priority of DRIVER from /proc/crypto.
proc_crypto_prio() { proc_crypto_field "$1" priority; }

# crypto_user_set DRIVER PRIORITY: set DRIVER's priority with a raw
# CRYPTO_MSG_UPDATEALG of crypto_user, as a tool other than cryptoprio's
# would; false (the kernel's errno said) if the kernel refuses it.
crypto_user_set() {
	python3 - "$1" "$2" <<'PY'
import socket, struct, sys
CRYPTO_MSG_UPDATEALG, CRYPTOCFGA_PRIORITY_VAL = 0x12, 1
body = struct.pack("64s64s64sIIII", b"", sys.argv[1].encode(), b"", 0, 0, 0, 0)
body += struct.pack("HHI", 8, CRYPTOCFGA_PRIORITY_VAL, int(sys.argv[2]))
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 21)  # NETLINK_CRYPTO
s.send(struct.pack("IHHII", 16 + len(body), CRYPTO_MSG_UPDATEALG, 1 | 4, 1, 0) + body)
error = struct.unpack_from("i", s.recv(65536), 16)[0]
print(f"UPDATEALG {sys.argv[1]} {sys.argv[2]}: {error}")
sys.exit(error != 0)
PY
}

# has_driver DRIVER: true if DRIVER is in /proc/crypto.
has_driver() { proc_crypto_field "$1" driver >/dev/null; }

# lacks_driver DRIVER: true if DRIVER is not in /proc/crypto.
lacks_driver() { ! has_driver "$1"; }

# first_of NAME: as the kernel chooses, the driver a new user of NAME gets (highest priority, tested).
first_of() {
	awk -v n="$1" '
		function val(l) { sub(/^[^:]*:[ \t]*/, "", l); return l }
		/^$/ { if (name == n && st == "passed" && intl != "yes" && prio > best) { best = prio; drv = d }
		       name = d = st = intl = ""; prio = -1; next }
		$1 == "name" { name = val($0) } $1 == "driver" { d = val($0) }
		$1 == "priority" { prio = val($0) + 0 } $1 == "selftest" { st = val($0) }
		$1 == "internal" { intl = val($0) }
		END { print drv }' /proc/crypto
}

# wait_for_driver DRIVER [TIMEOUT]: wait (default 60 s) until DRIVER is
# registered in /proc/crypto with its self-test passed. 6.12 and 7.2 test
# after registration, in the background, and under TCG on a loaded machine
# a self-test can take tens of seconds: 60 s, as the scenarios that load
# the engine themselves already chose.
wait_for_driver() {
	local drv=$1 timeout=${2:-60} end
	end=$((SECONDS + timeout))
	while :; do
		[[ $(proc_crypto_field "$drv" selftest 2>/dev/null) == passed ]] && return 0
		((SECONDS < end)) || break
		sleep 0.2
	done
	printf 'driver %s not registered (or self-test not passed) after %s s\n' "$drv" "$timeout" >&2
	return 1
}

# late_releases: how many runs' memory cryptoprio.ko released late so far
# (a kept run's requests completed: "DRIVER: late requests completed,
# memory released"); released_since N: more than N.
late_releases() { dmesg | grep -c "late requests completed, memory released" || true; }
released_since() { [[ $(late_releases) -gt $1 ]]; }

# wait_until SECS CMD...: run CMD every 0.2 s until it succeeds, for SECS
# at most (for what becomes true a little after the event a scenario waits
# for: a line in the journal, a status systemd has not processed yet).
# Prints the output of the last try; its status is CMD's last one.
wait_until() {
	local secs=$1 end=$((SECONDS + $1)) out rc
	shift
	while :; do
		rc=0
		out=$("$@" 2>&1) || rc=$?
		((rc != 0 && SECONDS < end)) || break
		sleep 0.2
	done
	[[ -z $out ]] || printf '%s\n' "$out"
	((rc == 0)) || printf '(still failing after %s s)\n' "$secs" >&2
	return "$rc"
}

# module_drivers MODULE: the driver names MODULE has in /proc/crypto.
module_drivers() {
	awk -v m="$1" '$1 == "driver" { d = $3 } $1 == "module" && $3 == m { print d }' /proc/crypto |
		sort -u
}

# selftests_running MODULE: true while the kernel self-tests one of
# MODULE's implementations: a "larval" entry of its driver name is in
# /proc/crypto (Linux >= 6.12 tests after registration, in the background;
# the larval and the test thread each hold a reference on the module), or a
# cryptomgr_test thread has not exited yet (it drops its reference last).
selftests_running() {
	local drivers
	drivers=$(module_drivers "$1")
	awk -v list="$drivers" '
		BEGIN { n = split(list, a, "\n"); for (i = 1; i <= n; i++) want[a[i]] = 1 }
		/^$/ { if ((d in want) && t == "larval") found = 1; d = t = ""; next }
		$1 == "driver" { d = $3 } $1 == "type" { t = $3 }
		END { if ((d in want) && t == "larval") found = 1; exit !found }' /proc/crypto && return 0
	grep -sqx cryptomgr_test /proc/[0-9]*/comm
}

# verdicts NAME ARGS...: `cryptoprioctl calibrate --raw --json ARGS` into
# $CP_RESULTS/NAME.json (.err), then "DRIVER=KNOWN_ANSWER" per result,
# sorted, on one line.
verdicts() {
	local name=$1
	shift
	"$CP_BUILD/cli/cryptoprioctl" calibrate --raw --json "$@" >"$CP_RESULTS/$name.json" \
		2>"$CP_RESULTS/$name.err" || true
	jget "$CP_RESULTS/$name.json" \
		"' '.join(sorted(x['driver'] + '=' + x['known_answer'] for x in d['results']))"
}

# kat DRIVER FILE [ARGS]: `cryptoprioctl calibrate --raw --json DRIVER
# ARGS` into FILE, then the known-answer result of DRIVER ("none" if it has
# no result). module-geometry, whose copy had "--budget 20ms" in it, passes
# that in ARGS.
kat() {
	local drv=$1 f=$2
	shift 2
	"$ctl" calibrate --raw --json "$drv" "$@" >"$f" || true
	jget "$f" "d['results'][0]['known_answer'] if d['results'] else 'none'"
}

# load_test_engine DRIVER...: cryptoprio.ko and cp_test_engine.ko loaded
# (the CPU's AES and crypto_user first; with test_engine_ecdh=1 set,
# ecdh_generic and the engine's ecdh too), each DRIVER past its
# self-test, then the engine's other self-tests over.
load_test_engine() {
	local d params=()
	modprobe_q "$cpu_aes_module" crypto_user
	if [[ ${test_engine_ecdh:-} == 1 ]]; then
		modprobe_q ecdh_generic
		params=(ecdh=1)
	fi
	check "insmod cryptoprio.ko" insmod "$CP_KMOD/cryptoprio.ko"
	check "insmod cp_test_engine.ko${params[*]:+ ${params[*]}}" insmod "$CP_KMOD/cp_test_engine.ko" "${params[@]}"
	for d in "$@"; do check "$d passed its self-test" wait_for_driver "$d"; done
	wait_before_measuring cp_test_engine "$cpu_aes_module"
}

# verify_json FILE ARGS...: `cryptoprioctl verify --json ARGS` into FILE
# (stderr in FILE.err), its exit status in $rc.
verify_json() {
	local f=$1
	shift
	rc=0
	"$ctl" verify --json "$@" >"$f" 2>"$f.err" || rc=$?
}

# impl_field FILE EXPR DRIVER: EXPR of i, DRIVER's entry in verify's FILE.
impl_field() {
	jget "$1" "(lambda i: ($2))([i for i in d['implementations'] if i['driver'] == '$3'][0])"
}

# case_of_shape MODE FAILURE: verify's FAILURE is a case of seed 42 whose
# output differs, of the shape the test engine's MODE is wrong on (an
# AEAD's: the text's length, a layout over its AD and text; a hash's:
# the data digested, an unkeyed one's without a key; a compressor's: its
# text's length, its output not the text).
case_of_shape() {
	python3 - "$1" "$2" <<'PY'
import re, sys
mode, text = sys.argv[1], sys.argv[2]
rt = re.search(r"^case \d+ of seed 42: (?:compress|decompress) (\d+) bytes, "
               r"(?:noise|sparse data|a repeated period|mixed data), (?:\d+ compressed, )?"
               r"(?:tight )?space \d+, src one entry at offset \d+, dst one entry at offset \d+"
               r"(?:, sent with 3 other transforms' requests)?: "
               r"(?:its output differs from the text|the reference cannot decompress its output"
               r"|the reference's decompression of its output (?:is|differs))", text)
if rt:
    n = int(rt.group(1))
    ok = {"len64": n % 64 != 0, "big": n > 16384}.get(mode, False)
    sys.exit(0 if ok else "not of the shape of mode " + mode)
m = re.search(r"^case \d+ of seed 42: (encrypt|decrypt|digest) (\d+) bytes, (?:(\d+)-byte key, )?"
              r"(?:\d+-byte authentication key, )?(?:AD (\d+), tag \d+, )?(?:bit \d+ flipped, )?"
              r"(?:(?:in place|out of place), src |data in )(.*): output differs", text)
if not m:
    sys.exit("not a case of seed 42 whose output differs: " + text)
n, key, layout = int(m.group(2)), int(m.group(3) or 0), m.group(5)
ok = {"sgmulti": "entries" in layout, "len64": n % 64 != 0, "key192": key == 24,
      "big": n > 16384}[mode]
sys.exit(0 if ok else "not of the shape of mode " + mode)
PY
}

# verify_finds_shape R MODE DRIVER [ERE]: the test engine in MODE (set),
# DRIVER's known answer at $verify_kat_size bytes (4096 unless set) ok:
# verify, seed 42 and 256 cases, finds
# it faulty (exit 4) on a case of MODE's shape (case_of_shape), or one
# whose failure matches ERE; the same seed again, the same case. Files
# R/kat-MODE.json, R/MODE.json, R/MODE-again.json; the failure in $failure.
verify_finds_shape() {
	local r=$1 mode=$2 drv=$3 ere=${4:-} size=${verify_kat_size:-4096}
	check "mode $mode: calibrate's known answer ok ($size bytes)" \
		test "$(kat "$drv" "$r/kat-$mode.json" --size "$size")" = ok
	verify_json "$r/$mode.json" "$drv" --seed 42 --cases 256
	failure=$(impl_field "$r/$mode.json" "i['failure']" "$drv") || failure=
	log "mode $mode: $failure"
	check "mode $mode: verify finds $drv faulty (exit 4)" \
		test "$rc $(impl_field "$r/$mode.json" "i['verdict']" "$drv")" = "4 failed"
	if [[ -n $ere ]]; then
		check "mode $mode: the failing case, with its seed" \
			grep -Eq "$ere" <(printf '%s\n' "$failure")
	else
		check "mode $mode: the failing case is of the mode's shape, with its seed" \
			case_of_shape "$mode" "$failure"
	fi
	verify_json "$r/$mode-again.json" "$drv" --seed 42 --cases 256
	check "mode $mode: the same seed reproduces the same case" \
		test "$(impl_field "$r/$mode-again.json" "i['failed_case'], i['failure']" "$drv")" = \
		"$(impl_field "$r/$mode.json" "i['failed_case'], i['failure']" "$drv")"
}

# verify_crosstalk DRIVER: the test engine in mode crosstalk, 2 ms a
# request: DRIVER's 12 cases alone pass; the default 48's last 12, in
# rounds of four transforms, find it faulty (exit 4). Mode ok after.
verify_crosstalk() {
	local drv=$1 p=/sys/module/cp_test_engine/parameters f=$CP_RESULTS/crosstalk
	echo crosstalk >"$p/mode"
	echo 2000 >"$p/latency_us"
	verify_json "$f-alone.json" "$drv" --seed 42 --cases 12
	check "mode crosstalk: $drv's 12 cases alone pass (exit 0)" \
		test "$rc $(impl_field "$f-alone.json" "i['verdict'], i['cases']" "$drv")" = "0 ('passed', 12)"
	verify_json "$f.json" "$drv" --seed 42
	log "mode crosstalk: $(impl_field "$f.json" "i.get('failure')" "$drv")"
	check "mode crosstalk: $drv's 48 cases find it faulty (exit 4), in a round together (case 36-47)" \
		test "$rc $(impl_field "$f.json" "i['verdict'], 36 <= i['failed_case'] <= 47, \"sent with 3 other transforms' requests: \" in i['failure']" "$drv")" = \
		"4 ('failed', True, True)"
	echo ok >"$p/mode"
	echo 0 >"$p/latency_us"
}

# verify_hangs DRIVER N SEED WORDS: the test engine's N-th request from
# now on never answers (hang_after): DRIVER's verification under SEED
# fails on a case whose words match the regular expression WORDS and say
# no answer came, its run is kept (kept_runs) while the engine holds the
# request, and released once the engine completes it (mode ok).
verify_hangs() {
	local drv=$1 n=$2 seed=$3 words=$4 p=/sys/module/cp_test_engine/parameters
	local f=$CP_RESULTS/hang-$n-$seed.json before failure
	before=$(late_releases)
	echo "$n" >"$p/hang_after"
	verify_json "$f" "$drv" --seed "$seed"
	failure=$(impl_field "$f" "i.get('failure')" "$drv")
	log "hang_after $n, seed $seed: $failure"
	check "hang_after $n, seed $seed: no answer, on a case of its shape (exit 4)" \
		test "$rc $(printf '%s\n' "$failure" | grep -Ec "$words.*: no answer within the grace period")" = "4 1"
	check "hang_after $n, seed $seed: its run kept (kept_runs)" \
		grep -q "^$drv " /sys/module/cryptoprio/parameters/kept_runs
	echo 0 >"$p/hang_after"
	echo ok >"$p/mode"
	check "hang_after $n, seed $seed: the engine completes, the run released" \
		wait_until 10 released_since "$before"
}

# expect_verdicts VERDICT DRIVER...: the line verdicts prints when each
# DRIVER has VERDICT.
expect_verdicts() {
	local v=$1 d out=()
	shift
	for d in "$@"; do out+=("$d=$v"); done
	printf '%s\n' "${out[@]}" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'
}

# py SCRIPT ARGS...: the Python SCRIPT (json, os and sys imported) with ARGS in sys.argv[1:].
py() { python3 -c "import json, os, sys; $1" "${@:2}"; }

# policy_uncalibrated BODY: /etc/cryptoprio.conf is "[Policy]", Calibrate =
# never, then BODY (more lines of [Policy], or other sections).
policy_uncalibrated() {
	printf '[Policy]\nCalibrate = never\n%s\n' "$1" >/etc/cryptoprio.conf
	chmod 0644 /etc/cryptoprio.conf
}

# pins_policy FILE BASE: a policy of pins for many drivers, no calibration,
# so that its plan has many steps (>= 10 on every kernel): the generic C
# drivers (6.1 *-generic, 7.2 mostly *-lib) at BASE+1 and BASE+2, aesni's
# at BASE+3, 7.2's *aesni-avx* at BASE+4; on arm64 the scalar *-arm64 at
# BASE+5, NEON's at BASE+6 and BASE+7 (armhf's too), the Crypto Extensions'
# *-ce at BASE+8; on armhf the scalar *-arm (aes-arm, sha512-arm) at BASE+9
# and *-asm (sha1-asm, sha256-asm) at BASE+10 (a later section beats an
# earlier one): every pin is in BASE+1..BASE+pins_span. No two drivers of one name share
# a pin: the plan does not depend on the priorities it starts from, so a
# plan cut short (a kill) is the same plan when made again. (With one pin
# for ctr-aes-aesni and ctr-aes-aesni-avx the kernel's order broke the tie,
# and a kill between their steps reversed it.)
pins_span=10
export pins_span
pins_policy() {
	cat >"$1" <<-CONF
	[Policy]
	Calibrate = never

	[Driver *-generic]
	Priority = $(($2 + 1))

	[Driver *-lib]
	Priority = $(($2 + 2))

	[Driver *aesni*]
	Priority = $(($2 + 3))

	[Driver *aesni-avx*]
	Priority = $(($2 + 4))

	[Driver *-arm64]
	Priority = $(($2 + 5))

	[Driver *-neon]
	Priority = $(($2 + 6))

	[Driver *-neonbs]
	Priority = $(($2 + 7))

	[Driver *-ce]
	Priority = $(($2 + 8))

	[Driver *-arm]
	Priority = $(($2 + 9))

	[Driver *-asm]
	Priority = $(($2 + 10))
	CONF
	chmod 0644 "$1"
}

# jget FILE EXPR: the Python expression EXPR over the JSON document of FILE
# (bound to d), printed.
jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

# places FILE ALG FIELD: the FIELD (driver, reason, why) of each place that
# FILE, a plan or apply document of `cryptoprioctl --json`, gives algorithm
# ALG, best first, on one line separated by spaces (apply-gears-any and
# zswap each had one for their algorithm: ALG is the parameter).
places() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(p[sys.argv[3]] for a in d["algorithms"] if a["name"] == sys.argv[2] for p in a["places"]))' "$@"
}

# placed_behind FILE ALG DRIVER REASON: FILE (as places reads it) places
# DRIVER among ALG's, not first, for REASON (unverified, faulty...).
placed_behind() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
p = [p for a in d["algorithms"] if a["name"] == sys.argv[2] for p in a["places"]]
i = [i for i, q in enumerate(p) if q["driver"] == sys.argv[3]]
sys.exit(not (i and i[0] > 0 and p[i[0]]["reason"] == sys.argv[4]))' "$@"
}

# show FILE ALG: the places of ALG in FILE (as places reads it) for the
# log, one per line, best first: "  DRIVER REASON: WHY". The driver is the
# first word, so awk's $1 (rank-cpu-cost finds who is ahead of whom in it).
show() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for a in d["algorithms"]:
    if a["name"] == sys.argv[2]:
        for p in a["places"]:
            print("  %s %s: %s" % (p["driver"], p["reason"], p["why"]))' "$@"
}

# check_shapes PRIORITY TIMEOUT: for each "DRIVER|NAME|TYPE" line on
# standard input, checks that DRIVER passes its self-test within TIMEOUT s
# and is registered as NAME, of TYPE, at PRIORITY, asynchronous (but for
# an acomp, which /proc/crypto does not say it of); appends
# "DRIVER SELFTEST" to $CP_RESULTS/selftest.txt.
check_shapes() {
	local prio=$1 timeout=$2 drv name type n t
	while IFS='|' read -r drv name type; do
		check "$drv passed its self-test" wait_for_driver "$drv" "$timeout"
		n=$(proc_crypto_field "$drv" name) || n=
		t=$(proc_crypto_field "$drv" type) || t=
		check "$drv is $name ($n)" test "$n" = "$name"
		check "$drv is a $type ($t)" test "$t" = "$type"
		# /proc/crypto shows no async line for an acomp: module-faults
		# sees the engine's deflate hold 4 requests at once instead
		if [[ $type == acomp ]]; then
			check "$drv: priority $prio" test "$(proc_crypto_field "$drv" priority)" = "$prio"
		else
			check "$drv: priority $prio, async" test \
				"$(proc_crypto_field "$drv" priority) $(proc_crypto_field "$drv" async)" = "$prio yes"
		fi
		printf '%s %s\n' "$drv" "$(proc_crypto_field "$drv" selftest)" >>"$CP_RESULTS/selftest.txt"
	done
}

# traced OUT CMD...: CMD, under strace (its renames to OUT) where there is one.
traced() {
	local out=$1
	shift
	if command -v strace >/dev/null; then
		# (arm64 has renameat and renameat2 only: every rename*.)
		strace -f -qq --seccomp-bpf -e trace=/^rename -o "$out" "$@"
	else
		: >"$out"
		"$@"
	fi
}
# check_state_writes DESC OUT WANT: checks that the renames onto the state
# file in OUT are WANT (said, not checked, without strace).
check_state_writes() {
	local n
	if ! command -v strace >/dev/null; then
		log "strace not found: not checked: $1"
		return 0
	fi
	n=$(grep -c "^[0-9]* *rename[a-z0-9]*(.*, \"$state\"[,)]" "$2") || n=0
	check "$1 (written $n times)" test "$n" = "$3"
}
# daemon_state_writes ERR: the writes of the state file due from the daemon
# runs that ERR (a --once's stderr) reports: twice by a run that changes
# something (before the first change, then after the last with the
# daemon's record), once by one that has nothing to change, whatever its
# figures (too noisy to decide included). What the start's budget left is
# measured after READY, each name a run of its own.
daemon_state_writes() {
	local runs changed
	runs=$(grep -cE '^cryptoprio-daemon: Policy (in force|applied) \(' "$1") || runs=0
	changed=$(grep -cE '^cryptoprio-daemon: Policy applied \(' "$1") || changed=0
	echo $((runs + changed))
}

# needs_strace: skips the scenario (77) where strace is missing.
needs_strace() { command -v strace >/dev/null || skip "strace not found (the host's is used)"; }

# slow_sendto enter|exit DELAY_US OUT CMD... &: CMD under strace (-f),
# every sendto() held DELAY_US at its entry (the kernel has not seen the
# message yet) or its exit (it has), traced with times to OUT. "CMD" may be
# "-p PID" to slow a running process down. strace replaces the shell that
# runs this, so run it in the background: $! is then strace itself (what
# SIGSTOP must reach to freeze CMD at its next system call).
slow_sendto() {
	local when=$1 delay=$2 out=$3
	shift 3
	exec strace -f -qq -tt -e signal=none -e trace=sendto \
		-e inject=sendto:delay_"$when"="$delay" -o "$out" "$@"
}

# record FIELD: the daemon's FIELD (reloads, reload_failures, runs,
# module_events, ready_usec, last_measured...) in the state file.
record() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["daemon"][sys.argv[2]])' \
		"$state" "$1"
}

# reloads_are N [REFUSED]: the daemon has recorded N reloads in the state
# file and, given REFUSED, that many refused. One for daemon-modprobe (N
# only) and daemon-reload (which read "reloads: N (1 refused)" off
# `cryptoprioctl status`: the same two counters of the same file, and
# daemon-reload checks status's line on its own).
reloads_are() {
	[[ $(record reloads) == "$1" ]] || return 1
	[[ $# -lt 2 || $(record reload_failures) == "$2" ]]
}

# state_created FILE: the drivers a state file lists as created by
# cryptoprio, sorted, on one line (nothing if it cannot be read).
state_created() {
	jget "$1" "' '.join(sorted(c['driver'] for c in d.get('created', [])))" 2>/dev/null
}

# drivers_now: every driver name /proc/crypto lists, sorted, one per line.
drivers_now() { awk '$1 == "driver" { print $3 }' /proc/crypto | sort -u; }

# expect_fail PATTERN CMD...: true if CMD exits 1 with a standard error
# matching the extended regex PATTERN; says what it got.
expect_fail() {
	local pattern=$1 rc=0 err
	shift
	err=$("$@" 2>&1 >/dev/null) || rc=$?
	printf '%s -> %d: %s\n' "$*" "$rc" "$err"
	[[ $rc -eq 1 ]] || { echo "exit $rc, want 1"; return 1; }
	grep -qE "$pattern" <<<"$err" || { echo "no match for: $pattern"; return 1; }
}

# refcnt DRIVER: its users as /proc/crypto counts them; 0 if not registered.
refcnt() { proc_crypto_field "$1" refcnt || echo 0; }

# unheld DRIVER: no user holds DRIVER, but its registration (xfrm frees
# states, and their transforms, from a work item: wait_until for it).
unheld() { (($(refcnt "$1") <= 1)); }

# name_refcnts NAME: "DRIVER REFCNT" for each implementation registered as
# NAME (a larval aside), sorted: how many transforms hold each now. Each
# crypto_alloc_*() of a kernel user takes one reference on the driver it
# got, kept until the transform is freed.
name_refcnts() {
	awk -v RS= -v name="$1" '{
		delete f
		n = split($0, l, "\n")
		for (i = 1; i <= n; i++) { k = l[i]; sub(/ *:.*/, "", k); v = l[i]; sub(/^[^:]*: */, "", v); f[k] = v }
		if (f["name"] == name && f["type"] != "larval") print f["driver"], f["refcnt"]
	}' /proc/crypto | LC_ALL=C sort -u
}

# held_since NAME BEFORE: "DRIVER +N" for each implementation of NAME whose
# refcnt rose by N since BEFORE (what name_refcnts NAME printed then; a
# driver registered since counts from 0), one per line: which
# implementation of NAME the clients set up meanwhile hold. Nothing if
# none rose.
held_since() {
	name_refcnts "$1" | awk 'NR == FNR { was[$1] = $2; next }
		$2 > was[$1] + 0 { printf "%s +%d\n", $1, $2 - was[$1] }' <(printf '%s\n' "$2") -
}

# held_by NAME CMD...: runs CMD (its output to standard error), which sets
# up a client of NAME that keeps its transforms (a dm-crypt mapping, an
# SA), then prints what held_since says that client holds; CMD's status.
# For a client that runs in the background (kTLS's sockets), call
# name_refcnts before starting it and held_since once it is ready.
held_by() {
	local name=$1 before rc=0
	shift
	before=$(name_refcnts "$name")
	"$@" >&2 || rc=$?
	held_since "$name" "$before"
	return "$rc"
}

# name_refcnts_are NAME SNAPSHOT: true if name_refcnts NAME prints
# SNAPSHOT, what it printed before a client was set up: once the client is
# gone, its transforms are freed (MACsec frees an SA's after an RCU grace
# period: wait_until name_refcnts_are ...).
name_refcnts_are() { [[ $(name_refcnts "$1") == "$2" ]]; }

# caam_gcm_over_cpu: names the kernel's own gcm(aes) in $own and checks it
# is the CPU's (what a plan must win against), sets $base to the kernel
# log's length, loads cp_caam_engine, whose gcm-aes-cp-caam ($eng) then
# comes first, records every priority in $CP_RESULTS/prio-before.txt and
# writes the default policy, uncalibrated (the clients of gcm(aes): ktls,
# macsec).
caam_gcm_over_cpu() {
	own=$(first_of 'gcm(aes)')
	log "the kernel's own gcm(aes), which the plan must win against: ${own:-none}" \
		"($(proc_crypto_field "$own" module), priority $(proc_crypto_prio "$own"))"
	if [[ $cpu_gcm_module == gcm ]]; then
		check "no gcm(aes) before a user asks for one (armhf: a template's)" test -z "$own"
	else
		check "the kernel's own gcm(aes) is the CPU's ($own of $(proc_crypto_field "$own" module))" \
			test "$(proc_crypto_field "$own" module)" = "$cpu_gcm_module"
	fi
	base=$(dmesg | wc -l)
	check "insmod cp_caam_engine.ko" insmod "$CP_KMOD/cp_caam_engine.ko"
	check "$eng passed its self-test" wait_for_driver "$eng" 120
	wait_before_measuring cp_caam_engine "$cpu_gcm_module"
	priority_snapshot >"$CP_RESULTS/prio-before.txt"
	policy_uncalibrated ""
}

# apply_puts_cpu_gcm_first: apply (its document in
# $CP_RESULTS/apply.json) puts a CPU's gcm(aes) first, named in $first
# (after caam_gcm_over_cpu: ktls, macsec).
apply_puts_cpu_gcm_first() {
	check "apply exits 0" sh -c "'$ctl' --json apply >'$CP_RESULTS/apply.json'"
	show "$CP_RESULTS/apply.json" 'gcm(aes)'
	first=$(first_of 'gcm(aes)')
	log "after apply, gcm(aes) handed out first: $first"
	check "apply: the CPU's gcm(aes) is first ($first of $(proc_crypto_field "$first" module))" \
		test "$(proc_crypto_field "$first" module)" = "$cpu_gcm_module"
}

# caam_gcm_held_unverified: under Gears = offload cpu and Calibrate = never
# the plan ($CP_RESULTS/plan-offload.json) holds the never verified
# gcm-aes-cp-caam ($eng) after the CPU's, and says why; then writes the same
# policy with Verify = no, which puts it first (ktls, macsec)
caam_gcm_held_unverified() {
	policy_uncalibrated "Gears = offload cpu"
	check "offload cpu, not verified: plan exits 0" \
		sh -c "'$ctl' --json plan >'$CP_RESULTS/plan-offload.json'"
	show "$CP_RESULTS/plan-offload.json" 'gcm(aes)'
	check "offload cpu, not verified: the engine held after the CPU's" \
		placed_behind "$CP_RESULTS/plan-offload.json" 'gcm(aes)' "$eng" unverified
	policy_uncalibrated "$(printf 'Gears = offload cpu\nVerify = no')"
}

# add_sa SPI: an IPsec ESP SA with cbc(aes) and hmac(sha256), as IPsec's
# users ask (xfrm_user and esp4 loaded): the kernel builds its
# echainiv(authenc(hmac(sha256),cbc(aes))) from what each name resolves to.
add_sa() {
	ip xfrm state add src 127.0.0.1 dst 127.0.0.2 proto esp spi "$1" \
		enc 'cbc(aes)' 0x000102030405060708090a0b0c0d0e0f \
		auth 'hmac(sha256)' 0x000102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f
}

# sa_on DRIVER SPI: a new SA (add_sa SPI) takes a reference on DRIVER.
sa_on() {
	local before after
	before=$(refcnt "$1")
	add_sa "$2" || return 1
	after=$(refcnt "$1")
	log "refcnt of $1: $before -> $after"
	[[ $after -gt $before ]]
}

# larvals_present: true while /proc/crypto lists a "larval": an
# implementation under self-test, or a lookup building a template instance
# (no driver name, priority -1). What is registered is not settled then:
# on 6.12 a self-test of cp_test_engine's authenc allocates its fallback,
# which builds and registers the CPU's authenc instance a second later.
larvals_present() {
	awk '$1 == "type" && $3 == "larval" { found = 1; exit } END { exit !found }' /proc/crypto
}

# wait_for_selftests MODULE [TIMEOUT]: wait (default 60 s) until the kernel
# has finished self-testing every implementation of MODULE, passed or
# failed: only then does nothing of the kernel's hold the module, and an
# rmmod does not fail with "in use" (virtio_crypto_aes_cbc can pass long
# before virtio-crypto-rsa fails).
wait_for_selftests() {
	local end=$((SECONDS + ${2:-60}))
	while selftests_running "$1"; do
		if ((SECONDS >= end)); then
			printf 'self-tests of %s still running after %s s\n' "$1" "${2:-60}" >&2
			module_users "$1" >&2
			return 1
		fi
		sleep 0.1
	done
}

# wait_before_measuring MODULE...: wait (up to 120 s each) until the
# kernel's self-tests of every implementation of each MODULE have ended.
# Linux >= 6.12 runs them in the background after registration; figures
# taken meanwhile carry their load: on 7.2, aesni's 64 KiB run was charged
# 44 ms of CPU for 100 ms of wall time, the tests' load, measured on the
# other CPU before the run, having been subtracted from the CPU they shared
# with it. Not a check: a test still running is reported, and the figures
# say the rest.
wait_before_measuring() {
	local m
	for m in "$@"; do
		wait_for_selftests "$m" 120 || true
	done
}

# engine_ready [MODULE...]: what most scenarios measure on: virtio-crypto
# (the engine), the CPU's AES module, crypto_user and MODULE... loaded,
# both cbc(aes) drivers through their self-tests (60 s at most), and every
# self-test of both modules ended (wait_before_measuring).
engine_ready() {
	modprobe_q virtio_pci virtio_crypto "$cpu_aes_module" crypto_user "$@"
	wait_for_driver virtio_crypto_aes_cbc 60
	wait_for_driver "$cpu_cbc"
	wait_before_measuring "$cpu_aes_module" virtio_crypto
}

# coldplug: load the modules for the devices and the CPU present, as udev
# would at boot (there is no udev in the VM). Slow under TCG: prefer
# modprobe_q of the modules a scenario needs.
coldplug() {
	find /sys/devices -name modalias -type f -print0 | xargs -0 cat 2>/dev/null |
		sort -u | xargs -r modprobe -qab 2>/dev/null || true
}

# ---- scenarios under systemd (a file "systemd" in the scenario directory) ----

# install_cryptoprio_unit [DAEMON-ARG...]: in setup.sh: the built
# cryptoprio.service into /etc/systemd/system with ExecStart= and the
# check-policy of ExecReload= pointing at the built daemon and
# cryptoprioctl, enabled (sysinit.target.wants); the cache directory as the
# package installs it.
install_cryptoprio_unit() {
	local unit=$CP_BUILD/systemd/cryptoprio.service
	[[ -f $unit ]] || fail "no $unit (build first)"
	sed -e "s|^ExecStart=.*|ExecStart=$CP_BUILD/daemon/cryptoprio-daemon${*:+ $*}|" \
		-e "s|^ExecReload=[^ ]*/cryptoprioctl |ExecReload=$CP_BUILD/cli/cryptoprioctl |" \
		"$unit" >/etc/systemd/system/cryptoprio.service
	mkdir -p /etc/systemd/system/sysinit.target.wants /var/lib/cryptoprio
	ln -sfn ../cryptoprio.service /etc/systemd/system/sysinit.target.wants/cryptoprio.service
}

# install_cryptoprio_module: in setup.sh: the cryptoprio.ko built for this
# kernel made loadable as an installed one is, without depmod (over 9p under
# TCG it takes minutes): the name "cryptoprio" resolved by an `install` line
# in modprobe.d, and each alias the module itself declares (modinfo: its
# generic netlink family's) by an `alias` line, so the kernel loads it when
# the daemon looks the family up. Non-zero if the module was not built for
# this kernel.
install_cryptoprio_module() {
	[[ -f ${CP_KMOD:-}/cryptoprio.ko ]] || return 1
	{
		echo "install cryptoprio /sbin/insmod $CP_KMOD/cryptoprio.ko"
		modinfo -F alias "$CP_KMOD/cryptoprio.ko" | sed 's/^/alias /; s/$/ cryptoprio/'
	} >/etc/modprobe.d/cp-test-cryptoprio.conf
}

# free_kb: free memory in kB once the caches are dropped: MemFree and the
# pages waiting on the per-CPU free lists, which MemFree does not count
# (/proc/zoneinfo's pagesets). Freed pages wait there: 5 MB on 6.1 after
# some verifications, 11 on 6.12 (whose lists grow with the frees they
# see), all of it free.
free_kb() {
	local page_kb=$(($(getconf PAGESIZE) / 1024))

	sync
	echo 3 >/proc/sys/vm/drop_caches
	awk -v pk="$page_kb" 'FNR == NR && $1 == "MemFree:" { free = $2 }
		FNR != NR && $1 == "count:" { pcp += $2 }
		END { print free + pcp * pk }' /proc/meminfo /proc/zoneinfo
}

# unit_prop UNIT PROPERTY: one property of UNIT (systemctl show --value).
unit_prop() { systemctl show -p "$2" --value "$1"; }

# priority_snapshot: "DRIVER PRIORITY" for every implementation, sorted.
priority_snapshot() {
	awk '$1 == "driver" { d = $3 } $1 == "priority" { print d, $3 }' /proc/crypto | sort -u
}

# priorities_as FILE: every driver both in FILE (a priority_snapshot) and
# registered now has the priority FILE says; prints the ones that do not.
# Drivers that came or went meanwhile do not count: template instances, and
# on 7.2 self-tests that finish (or fail, as virtio-crypto-rsa's in QEMU)
# after registration. A driver name can be listed twice, once per type
# (6.12's lskciphers).
priorities_as() {
	priority_snapshot | awk 'NR == FNR { now[$0] = 1; there[$1] = 1; next }
		($1 in there) && !($0 in now) { print "changed:", $0; bad = 1 }
		END { exit bad }' - "$1"
}

# wait_for_prio DRIVER PRIORITY [TIMEOUT]: wait (default 5 s) until DRIVER
# has PRIORITY in /proc/crypto; prints the seconds it took.
wait_for_prio() {
	local t0 now
	t0=$(date +%s.%N)
	while :; do
		now=$(date +%s.%N)
		if [[ $(proc_crypto_prio "$1" 2>/dev/null) == "$2" ]]; then
			awk -v a="$t0" -v b="$now" 'BEGIN { printf "%.2f\n", b - a }'
			return 0
		fi
		awk -v a="$t0" -v b="$now" -v t="${3:-5}" 'BEGIN { exit !(b - a > t) }' && break
		sleep 0.1
	done
	printf '%s: priority %s, not %s, after %s s\n' "$1" "$(proc_crypto_prio "$1" || echo -)" "$2" "${3:-5}" >&2
	return 1
}

# module_users MODULE: what may hold MODULE: its reference count and
# holders, its implementations in /proc/crypto with their self-test state
# (a "larval" entry: the kernel's self-test of that driver is running), the
# kernel's self-test threads, and where each cryptoprio process waits.
module_users() {
	local m=$1 drivers p
	printf '%s: refcnt %s, holders: %s\n' "$m" "$(cat "/sys/module/$m/refcnt" 2>/dev/null || echo -)" \
		"$(find "/sys/module/$m/holders" -mindepth 1 -printf '%f ' 2>/dev/null)"
	drivers=$(module_drivers "$m")
	awk -v list="$drivers" '
		BEGIN { n = split(list, a, "\n"); for (i = 1; i <= n; i++) want[a[i]] = 1 }
		/^$/ { if (d in want) printf "  %s: type %s, selftest %s, refcnt %s\n", d, t, st, rc
		       d = t = st = rc = ""; next }
		$1 == "driver" { d = $3 } $1 == "type" { t = $3 } $1 == "selftest" { st = $3 }
		$1 == "refcnt" { rc = $3 }' /proc/crypto
	grep -slE '^(cryptomgr_test|cryptomgr_probe|cryptoprio.*)$' /proc/[0-9]*/comm |
		while read -r p; do
			p=${p%/comm}
			printf '  pid %s %s: wchan %s\n' "${p#/proc/}" "$(cat "$p/comm" 2>/dev/null)" \
				"$(cat "$p/wchan" 2>/dev/null || echo -)"
		done
}

# At the end: failed checks make the scenario fail.
_cp_on_exit() {
	local rc=$?
	"${CP_SRC:-.}/tests/vm/ctl-keep-json" --flush-all # the --json documents written to files
	if [[ $rc -eq 0 && $CP_CHECKS_FAILED -gt 0 ]]; then
		printf 'FAIL: %d of %d checks failed\n' "$CP_CHECKS_FAILED" \
			"$((CP_CHECKS_FAILED + CP_CHECKS_PASSED))"
		exit 1
	fi
	exit "$rc"
}
trap _cp_on_exit EXIT

# ms_of CMD...: run CMD, print its wall time in ms (its status is ignored).
ms_of() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1 || true
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}

# before A B: true if the time A is before B, both in seconds as
# `date +%s.%N` prints them (decimals, which the shell's arithmetic lacks).
before() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }

# unload_verifier_clean BASE: cryptoprio.ko and cp_test_engine.ko
# unloaded, the kernel log since dmesg's line BASE (kept in the results'
# dmesg.txt) without an oops, BUG or warning.
unload_verifier_clean() {
	check "rmmod cryptoprio" rmmod cryptoprio
	check "rmmod cp_test_engine" rmmod cp_test_engine
	dmesg | tail -n +"$(($1 + 1))" >"$CP_RESULTS/dmesg.txt"
	check "kernel log since the first verification: no oops, BUG or warning" \
		kernel_log_clean "$CP_RESULTS/dmesg.txt"
}

# unload_test_engine: rmmod cp_test_engine, saying what holds it when
# refused, then cryptoprio: a misbehaving engine's scenario ends with
# nothing of the calibrations left holding either.
unload_test_engine() {
	local rc=0 out
	out=$(rmmod cp_test_engine 2>&1) || rc=$?
	[[ $rc == 0 ]] || module_users cp_test_engine
	check "rmmod cp_test_engine: nothing holds the engine ($out)" test "$rc" = 0
	check "rmmod cryptoprio" rmmod cryptoprio
}
