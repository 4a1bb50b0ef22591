# The companion module as a boot would meet it: calibrating every name, the
# AEAD shapes engines register, resolving and unloading at any moment must
# not oops, must check every shape for real, and must leave the kernel's
# list of implementations exactly as it found it (cryptoprio(4), "LEAVING
# NO TRACE").
#
# In CI on 7.2: a boot's calibration of every name with rmmod races; the
# other kernels, where races differ, by rotation.
param=/sys/module/cp_test_engine/parameters/mode
r=$CP_RESULTS

# What a machine with an engine has at boot: the CPU's drivers, the
# templates' generic parts, the engines. Loaded before the snapshot.
# (Which of the generic parts are modules differs: 7.2 builds sha256 and
# ghash as libraries.)
modprobe_q "$cpu_aes_module" crypto_user virtio_pci virtio_crypto
for m in ghash_generic gcm ccm ctr cbc authenc echainiv seqiv hmac sha256_generic \
	ecdh_generic; do
	modprobe -q "$m" || log "$m: not a module of this kernel"
done
check "insmod cryptoprio.ko" insmod "$CP_KMOD/cryptoprio.ko"
check "insmod cp_test_engine.ko" insmod "$CP_KMOD/cp_test_engine.ko"
wait_for_driver virtio_crypto_aes_cbc 60
wait_for_driver cp_test_engine_cbc_aes
wait_for_driver cp_test_engine_sha256

# stable_snapshot FILE: /proc/crypto's drivers and priorities once no
# larval is listed and two looks a second apart agree (self-tests of late
# modules run on, and build the instances the test engine's fallbacks need).
stable_snapshot() {
	local prev now
	prev=$(priority_snapshot)
	for _ in $(seq 60); do
		sleep 1
		now=$(priority_snapshot)
		[[ $now == "$prev" ]] && ! larvals_present && break
		prev=$now
	done
	larvals_present && log "still a larval after 60 s: $(grep -B3 -A3 'larval' /proc/crypto | tr '\n' ' ')"
	printf '%s\n' "$now" >"$1"
}
wait_before_measuring "$cpu_aes_module" virtio_crypto cp_test_engine
# The kernel's own instance of IPsec's name, as an SA at boot builds it
# (on 7.2 over hmac-sha256-lib, a native implementation at sha256-lib's
# priority: a reference built as the template's twin, hmac(sha256-lib),
# retired it once).
modprobe_q af_alg algif_aead
ipsec='authenc(hmac(sha256),cbc(aes))'
check "the kernel builds its $ipsec" python3 -c \
	'import socket, sys; socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0).bind(("aead", sys.argv[1]))' \
	"$ipsec"
stable_snapshot "$r/before.txt"
log "$(wc -l <"$r/before.txt") implementations registered"

# 1. Every name, default sizes (16 B included: a digest longer than the
# request is the case that overflowed once), then the AEAD shapes by name.
rc=0
"$ctl" calibrate --json >"$r/all.json" 2>"$r/all.err" || rc=$?
log "calibrate (every name): exit $rc"
check "calibrate every name: not killed by a signal" test "$rc" -lt 128
check "calibrate every name: points measured" \
	test "$(jget "$r/all.json" "len(d['algorithms']) > 0 and d['points_measured'] > 0")" = True
rc=0
"$ctl" calibrate --raw --json --size 16,4096 sha256 >"$r/hash.json" 2>"$r/hash.err" || rc=$?
check "hash drivers at 16 B and 4 KiB: exit 0" test "$rc" = 0
check "hash drivers: every known answer ok" \
	test "$(jget "$r/hash.json" "all(x['known_answer'] == 'ok' for x in d['results']) and len(d['results']) > 0")" = True

# (x86 has no CPU driver of ccm(aes): the pattern is matched by engines only)
aead="gcm(aes) rfc4106(gcm(aes)) ccm(aes)"
# shellcheck disable=SC2086
"$ctl" calibrate --raw --json --size 4096 --depth 4 $aead >"$r/aead.json" 2>"$r/aead.err" || true
"$ctl" calibrate --raw --size 4096 --depth 4 $aead >"$r/aead.txt" || true
cat "$r/aead.txt"
# Long names (ccm_base(ctr(aes-aesni),cbcmac(aes-aesni))): SIZE ends at the
# same column on every line.
check "calibrate --raw: the table's columns line up" awk \
	'match($0, /^[^ ]+ +[^ ]+/) { w[RLENGTH] = 1 } END { exit length(w) != 1 || NR < 2 }' "$r/aead.txt"
check "AEAD: gcm and rfc4106 measured" \
	test "$(jget "$r/aead.json" "len([x for x in d['results'] if x['algorithm'] in ('gcm(aes)', 'rfc4106(gcm(aes))')]) >= 2")" = True
check "AEAD: every CPU driver's known answer is ok, against a reference" \
	test "$(jget "$r/aead.json" "[x['driver'] for x in d['results'] if x['known_answer'] != 'ok' or not x['reference']]")" = "[]"

# Key agreement: its CPU implementations, their references themselves
# (ecdh_generic loaded with the rest above, dh built in).
"$ctl" calibrate --raw --json ecdh-nist-p256 dh >"$r/kpp.json" 2>"$r/kpp.err" || true
check "kpp: ecdh-nist-p256 and dh measured, every known answer ok" \
	test "$(jget "$r/kpp.json" "sorted(x['algorithm'] for x in d['results'] if x['known_answer'] == 'ok' and x['reference']) == ['dh', 'ecdh-nist-p256'] and not d['errors']")" = True

# The hmac and authenc drivers, against references that retire nothing.
"$ctl" calibrate --raw --json --size 64 'hmac(sha256)' "$ipsec" >"$r/ipsec.json" \
	2>"$r/ipsec.err" || true
"$ctl" calibrate --raw --size 64 'hmac(sha256)' "$ipsec" || true
check "hmac and authenc: measured, every known answer ok, against a reference" \
	test "$(jget "$r/ipsec.json" "len(d['results']) >= 2 and all(x['known_answer'] == 'ok' and x['reference'] for x in d['results'])")" = True

# 2. resolve twice: the same answer, and nothing left behind.
for i in 1 2; do
	"$ctl" resolve --json 'cbc(aes)' >"$r/resolve$i.json"
	"$ctl" resolve --json 'gcm(aes)' >"$r/resolve-gcm$i.json"
done
check "resolve cbc(aes): the second answer is the first" cmp "$r/resolve1.json" "$r/resolve2.json"
check "resolve gcm(aes): the second answer is the first" cmp "$r/resolve-gcm1.json" "$r/resolve-gcm2.json"

stable_snapshot "$r/after.txt"
check "/proc/crypto: the same drivers and priorities as before" \
	diff "$r/before.txt" "$r/after.txt"

# 3. rmmod cryptoprio while a calibration waits on a hung engine: refused
# while it runs, never a callback into freed code.
echo hang >"$param"
"$ctl" calibrate --raw cp_test_engine_cbc_aes --size 4096 --depth 4 --budget 200 \
	>/dev/null 2>"$r/hang.err" &
pid=$!
# Tried once the run holds the module (its refcount, from the run's start):
# how long $ctl takes to get there depends on the machine.
check "the hung calibration started" \
	wait_until 30 bash -c '[[ $(cat /sys/module/cryptoprio/refcnt) -gt 0 ]]'
rc=0
out=$(rmmod cryptoprio 2>&1) || rc=$?
log "rmmod cryptoprio during the hung run: exit $rc: $out"
check "rmmod during a calibration: refused (in use)" test "$rc" -ne 0
wait "$pid" || true
check "the hung calibration ends with ETIMEDOUT" grep -q 'timed out' "$r/hang.err"
rc=0
rmmod cryptoprio 2>/dev/null || rc=$?
check "rmmod while the engine holds the requests: refused" test "$rc" -ne 0
check "the hung driver is refused while its requests are out (EBUSY)" sh -c \
	'"$0" calibrate --raw cp_test_engine_cbc_aes --size 16 2>&1 | grep -q "earlier run of this driver still has requests outstanding"' "$ctl"
echo ok >"$param"
unloaded=0
for _ in $(seq 50); do
	if rmmod cryptoprio 2>/dev/null; then
		unloaded=1
		break
	fi
	sleep 0.2
done
check "released: cryptoprio unloads" test "$unloaded" = 1
check "released: cp_test_engine unloads" rmmod cp_test_engine
