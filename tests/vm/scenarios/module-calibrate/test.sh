# The companion module measures a CPU implementation and the virtio-crypto
# engine at 16 B, 4 KiB and 64 KiB with a known-answer check, really keeps
# 8 requests in flight, and RESOLVE names the driver each kind of caller
# gets. On 7.2 AF_ALG cannot even bind the engine: only the module reaches it.
# rsa's public-key operation is measured with its known answer; the
# engine's rsa, whose self-test fails under QEMU, is not. So are the
# shared-secret step of ecdh-nist-p256 and dh (kpp), against the CPU's.
#
# The module against each kernel's crypto API (6.1's is arm64's 6.1's):
# in CI on armhf's 6.1, a 32-bit kernel whose CPU has no AES
# instructions; every other kernel by rotation.
py=/usr/bin/python3
engine_ready

check "without the module: calibrate says it is not loaded" \
	expect_fail 'cryptoprio kernel module is not loaded \(modprobe cryptoprio\)' \
	"$ctl" calibrate --raw "$cpu_cbc"
base=$(dmesg | wc -l)
check "insmod cryptoprio.ko" insmod "$CP_KMOD/cryptoprio.ko"
check "family registered" grep -q '^cryptoprio ' /proc/modules

out=$CP_RESULTS/calibrate.json
check "calibrate $cpu_cbc and virtio_crypto_aes_cbc at 16,4096,65536" \
	sh -c "'$ctl' calibrate --raw --json $cpu_cbc virtio_crypto_aes_cbc --size 16,4096,65536 >'$out'"
# The table as calibrate prints it, from the same figures (one python run
# per point below: python's start under TCG costs about as much as a check).
jget "$out" "'\\n'.join('%-24s %6d %8.2f MB/s %s' % (r['driver'], r['size'], r['mb_per_s'], r['known_answer']) for r in d['results'])" || true

for drv in "$cpu_cbc" virtio_crypto_aes_cbc; do
	for size in 16 4096 65536; do
		sel="[r for r in d['results'] if r['driver']=='$drv' and r['size']==$size]"
		# one, measured, known answer ok, reference not the driver, CPU share
		read -r one measured ref_ok not_self cpu_share < <(jget "$out" "' '.join(str(x) for x in (len($sel) == 1, $sel[0]['requests'] > 0 and $sel[0]['bytes'] == $sel[0]['requests'] * $size and $sel[0]['wall_ns'] > 0 and $sel[0]['mb_per_s'] > 0, $sel[0]['known_answer'] == 'ok', $sel[0]['reference'] not in (None, '$drv'), $sel[0]['cpu_ns'] * 4 >= $sel[0]['wall_ns'] if '$drv' == '$cpu_cbc' else $sel[0]['cpu_ns'] >= 0))" || echo False False False False False)
		check "$drv at $size: one result" test "$one" = True
		check "$drv at $size: requests and bytes measured" test "$measured" = True
		check "$drv at $size: known answer ok against a generic reference" test "$ref_ok" = True
		check "$drv at $size: reference is not the driver itself" test "$not_self" = True
		# A synchronous CPU driver keeps a CPU busy for its whole run; an
		# engine that works outside the guest's CPUs (virtio-crypto's
		# backend runs in QEMU's I/O thread) may cost less than the
		# machine's own load, which is subtracted: 0 then. The machine's
		# load is measured around the run and subtracted whole, though
		# the part of it on the run's CPU was displaced by the run: with
		# a second VM beside this one on the host (as CI runs them),
		# 7.2 counted aesni 0.56 of its wall time at 64 KiB (1.00
		# alone). So the check is that the time is counted, not exact.
		if [[ $drv == "$cpu_cbc" ]]; then
			check "$drv at $size: CPU time counted (at least a quarter of the wall time)" \
				test "$cpu_share" = True
		else
			check "$drv at $size: CPU time reported" test "$cpu_share" = True
		fi
	done
done
log "reference for cbc(aes): $(jget "$out" "d['results'][0]['reference']")"

# Depth: the module's own counter of requests outstanding at once.
d8=$CP_RESULTS/depth8.json
check "virtio_crypto_aes_cbc at depth 8" \
	sh -c "'$ctl' calibrate --raw --json virtio_crypto_aes_cbc --size 65536 --depth 8 >'$d8'"
# Whether all 8 are out at once depends on QEMU: its I/O thread completes a
# request in about the time the emulated CPU takes to submit the next (3 of
# 8 seen on arm64 with a second VM beside). Requests held by the engine
# reach the depth exactly: module-faults, with the test engine.
mif=$(jget "$d8" "d['results'][0]['max_in_flight']")
check "depth 8: more than one request in flight at once, at most 8 ($mif)" \
	test "$mif" -ge 2 -a "$mif" -le 8
d1=$CP_RESULTS/depth1.json
check "virtio_crypto_aes_cbc at depth 1" \
	sh -c "'$ctl' calibrate --raw --json virtio_crypto_aes_cbc --size 65536 --depth 1 >'$d1'"
check "depth 1: 1 request in flight" test "$(jget "$d1" "d['results'][0]['max_in_flight']")" = 1
log "virtio 64K depth 1: $(jget "$d1" "d['results'][0]['mb_per_s']") MB/s, depth 8: $(jget "$d8" "d['results'][0]['mb_per_s']") MB/s"

# AF_ALG and the engine: refused on 7.2, allowed on 6.1.
afalg() {
	"$py" -c 'import socket
s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
s.bind(("skcipher", "virtio_crypto_aes_cbc"))'
}
modprobe_q af_alg algif_skcipher
if [[ $CP_KVER_ALIAS == 7.2 ]]; then
	check "7.2: AF_ALG cannot bind virtio_crypto_aes_cbc" not "$py" -c \
		'import socket; s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0); s.bind(("skcipher", "virtio_crypto_aes_cbc"))'
	check "7.2: the module measured it all the same" \
		test "$(jget "$out" "[r['known_answer'] for r in d['results'] if r['driver']=='virtio_crypto_aes_cbc' and r['size']==65536][0]")" = ok
else
	afalg && log "$CP_KVER_ALIAS: AF_ALG binds virtio_crypto_aes_cbc" || log "$CP_KVER_ALIAS: AF_ALG bind failed"
fi

# RESOLVE: the four kinds of caller; cross-checked with /proc/crypto.
res=$CP_RESULTS/resolve.json
check "resolve cbc(aes)" sh -c "'$ctl' resolve --json 'cbc(aes)' >'$res'"
"$ctl" resolve 'cbc(aes)' || true
# resolve loads nothing: a caller whose instance needs a module not loaded
# (arm64's 7.2: aes_arm64 for a synchronous cbc(aes)) is answered with
# the modules it would load; load them and ask again
needs=$(jget "$res" "' '.join(sorted(set(m for c in d['callers'] for m in c.get('would_load') or [])))")
if [[ -n $needs ]]; then
	log "resolve would load: $needs"
	# shellcheck disable=SC2086 # one module a word
	check "load what resolve said a caller would load ($needs)" modprobe -a $needs
	check "resolve cbc(aes) again" sh -c "'$ctl' resolve --json 'cbc(aes)' >'$res'"
fi
any=$(jget "$res" "[c['driver'] for c in d['callers'] if c['caller']=='any'][0]")
sync=$(jget "$res" "[c['driver'] for c in d['callers'] if c['caller']=='synchronous'][0]")
nonalloc=$(jget "$res" "[c['driver'] for c in d['callers'] if c['caller']=='non-allocating'][0]")
both=$(jget "$res" "[c['driver'] for c in d['callers'] if c['caller']=='both'][0]")
log "any=$any synchronous=$sync non-allocating=$nonalloc both=$both"
check "any caller gets $cpu_cbc (priority $(proc_crypto_prio "$cpu_cbc") > $(proc_crypto_prio virtio_crypto_aes_cbc))" \
	test "$any" = "$cpu_cbc"
# is_sync DRIVER: /proc/crypto says "async : no"; an lskcipher (what a
# cbc(aes-generic) instance is since Linux 6.7) is synchronous by type and
# /proc/crypto shows no async line for it. A synchronous caller is handed a
# template instance over a synchronous cipher, which resolve made and
# unregistered again (cryptoprio(4)): then it is a template's name that is
# not registered.
is_sync() {
	if has_driver "$1"; then
		[[ $(proc_crypto_field "$1" async) == no || $(proc_crypto_field "$1" type) == lskcipher ]]
	else
		[[ $1 == cbc\(*\) ]]
	fi
}
check "synchronous caller gets a synchronous driver ($sync: $(proc_crypto_field "$sync" type))" \
	is_sync "$sync"
check "both-masks caller gets a synchronous driver" is_sync "$both"
check "non-allocating caller gets a driver" test -n "$nonalloc" -a "$nonalloc" != None
# After raising the engine, the kernel hands it to "any" but not to synchronous callers.
check "set virtio_crypto_aes_cbc 3000" "$ctl" set virtio_crypto_aes_cbc 3000
check "resolve after the change" sh -c "'$ctl' resolve --json 'cbc(aes)' >'$res.2'"
check "any caller now gets virtio_crypto_aes_cbc" \
	test "$(jget "$res.2" "[c['driver'] for c in d['callers'] if c['caller']=='any'][0]")" = virtio_crypto_aes_cbc
check "synchronous caller still does not get the engine" \
	test "$(jget "$res.2" "[c['driver'] for c in d['callers'] if c['caller']=='synchronous'][0]")" = "$sync"
"$ctl" reset virtio_crypto_aes_cbc >/dev/null 2>&1 || "$ctl" set virtio_crypto_aes_cbc 150 || true

check "hash: sha256 drivers calibrate with a known answer" \
	sh -c "'$ctl' calibrate --raw --json 'sha256' --size 4096 >'$CP_RESULTS/sha256.json'"
jget "$CP_RESULTS/sha256.json" "'\\n'.join('%-24s %8.2f MB/s %s' % (r['driver'], r['mb_per_s'], r['known_answer']) for r in d['results'])" || true
check "hash: every sha256 driver ok" \
	test "$(jget "$CP_RESULTS/sha256.json" "all(r['known_answer']=='ok' for r in d['results']) and len(d['results']) > 0")" = True

# Compressors: the CPU's deflate (an scomp before 6.15, an acomp since) and
# lzo, compressing and decompressing the module's corpus at a page and at
# the 64 KiB limit, 4 requests in flight, each round-tripped with the
# reference; neither leaves anything in /proc/crypto.
modprobe_q deflate lzo
wait_before_measuring deflate lzo
priority_snapshot >"$CP_RESULTS/acomp-before.txt"
# acomp_summary FILE: its rows, then (one python start) whether deflate and
# lzo each came at both sizes without error, all measured with a known
# answer ok against a reference, with a ratio of a corpus that is neither
# zeros (50 and more) nor noise (below 1), and the direction asked.
acomp_summary() {
	jget "$1" "'\\n'.join(['%-16s %6d %8.2f MB/s ratio %.2f %s %s' % (r['driver'], r['size'], r['mb_per_s'], r['ratio'], r['known_answer'], r['reference']) for r in d['results']] + [' '.join(str(x) for x in (sorted(r['algorithm'] for r in d['results']) == ['deflate'] * 2 + ['lzo'] * 2 and not d['errors'], all(r['type'] == 'acomp' and r['requests'] > 0 and r['bytes'] == r['requests'] * r['size'] and r['known_answer'] == 'ok' and r['reference'] for r in d['results']), all(1.2 < r['ratio'] < 10 for r in d['results']), all(r['decrypt'] == $2 for r in d['results'])))])"
}
for dir in compress decompress; do
	f=$CP_RESULTS/$dir.json
	check "compressors: deflate and lzo $dir at 4096,65536" \
		sh -c "'$ctl' calibrate --raw --json deflate lzo --size 4096,65536 --depth 4 $([[ $dir == decompress ]] && echo --decrypt) >'$f'"
	acomp_summary "$f" "$([[ $dir == decompress ]] && echo True || echo False)" >"$f.txt" || true
	head -n -1 "$f.txt"
	read -r all_there measured ratio direction < <(tail -n 1 "$f.txt") || true
	check "$dir: each compressor at both sizes, no error" test "$all_there" = True
	check "$dir: every one measured, round trip ok against a reference" test "$measured" = True
	check "$dir: compression ratio between 1.2 and 10" test "$ratio" = True
	check "$dir: reported as $dir" test "$direction" = True
done
check "compressors: the table shows the ratio beside the verdict" \
	sh -c "'$ctl' calibrate --raw deflate --size 4096 | tee /dev/stderr | grep -qE ' [0-9]+\\.[0-9]{2} +ok '"
check "compressors: a 65537-byte request refused with the limit" \
	expect_fail 'compression requests are at most 65536 bytes' \
	"$ctl" calibrate --raw deflate --size 65537
check "compressors: /proc/crypto as before, nothing added or removed" \
	cmp "$CP_RESULTS/acomp-before.txt" <(priority_snapshot)

# rsa (akcipher): the CPU's rsa-generic, its public-key operation at one
# modulus per request, 2 in flight, its known answer against the reference;
# QEMU's virtio-crypto-rsa, whose self-test failed, is not calibrated:
# skipped when the name matches, refused by the module when named.
priority_snapshot >"$CP_RESULTS/rsa-before.txt"
f=$CP_RESULTS/rsa.json
check "rsa: calibrate --raw rsa" \
	sh -c "'$ctl' calibrate --raw --json rsa --depth 2 >'$f' 2>'$f.err'"
cat "$f.err"
# rows, then: rsa-generic alone, at 256 bytes (key and request), measured,
# ops/s its requests per second of wall time, known answer ok against
# rsa-generic, no error
jget "$f" "'\\n'.join(['%-20s %4d %8.1f ops/s %s %s' % (r['driver'], r['size'], r['ops_per_s'], r['known_answer'], r['reference']) for r in d['results']] + [' '.join(str(x) for x in ([r['driver'] for r in d['results']] == ['rsa-generic'] and not d['errors'], all(r['type'] == 'akcipher' and r['size'] == 256 and r['key_size'] == 256 and r['requests'] > 0 and r['bytes'] == 256 * r['requests'] and r['max_in_flight'] >= 1 for r in d['results']), all(abs(r['ops_per_s'] - r['requests'] * 1e9 / r['wall_ns']) < 0.01 for r in d['results']), all(r['known_answer'] == 'ok' and r['reference'] == 'rsa-generic' for r in d['results'])))])" >"$f.txt" || true
head -n -1 "$f.txt"
read -r only measured ops kat < <(tail -n 1 "$f.txt") || true
check "rsa: rsa-generic measured alone, no error" test "$only" = True
check "rsa: an akcipher at 256 bytes (request and key), requests counted" test "$measured" = True
check "rsa: ops/s is requests per second of wall time" test "$ops" = True
check "rsa: known answer ok against rsa-generic" test "$kat" = True
check "rsa: virtio-crypto-rsa (self-test failed) skipped, and why" \
	grep -q "skipping virtio-crypto-rsa (rsa): not tested, or failed the kernel's self-test" "$f.err"
check "rsa: virtio-crypto-rsa by driver name: the module refuses it" \
	expect_fail "failed the kernel's self-test: not calibrated" \
	"$ctl" calibrate --raw virtio-crypto-rsa
check "rsa: a request other than one modulus refused" \
	expect_fail 'REQ_SIZE must be 256' "$ctl" calibrate --raw rsa-generic --size 512
check "rsa: DECRYPT refused" \
	expect_fail 'DECRYPT needs a private key' "$ctl" calibrate --raw rsa-generic --decrypt
check "rsa: /proc/crypto as before, nothing added or removed" \
	cmp "$CP_RESULTS/rsa-before.txt" <(priority_snapshot)

# Key agreement (kpp): ecdh-nist-p256 (ecdh_generic, a module nothing
# loads at boot) and dh (built in), the shared secret of the module's
# private key and one peer key per request, 64 and 256 bytes, known answer
# against the CPU's implementation; the other curves of ecdh_generic are
# skipped, and refused by the module when named; a request other than one
# peer key, DECRYPT and KEY_SIZE are refused.
modprobe_q ecdh_generic
check "kpp: ecdh-nist-p256-generic registered" wait_for_driver ecdh-nist-p256-generic
priority_snapshot >"$CP_RESULTS/kpp-before.txt"
f=$CP_RESULTS/kpp.json
check "kpp: calibrate --raw ecdh-nist-p256 dh" \
	sh -c "'$ctl' calibrate --raw --json ecdh-nist-p256 dh --depth 2 >'$f' 2>'$f.err'"
cat "$f.err"
# rows, then: the two generic drivers alone, no error; each a kpp at its
# peer key's size (64, 256) with the private key's 32 bytes, requests
# counted, ops/s > 0 and its requests per second; known answer ok
# against itself, the CPU's (and only) implementation of its name
jget "$f" "'\\n'.join(['%-24s %4d %8.1f ops/s %s %s' % (r['driver'], r['size'], r['ops_per_s'], r['known_answer'], r['reference']) for r in d['results']] + [' '.join(str(x) for x in (sorted(r['driver'] for r in d['results']) == ['dh-generic', 'ecdh-nist-p256-generic'] and not d['errors'], all(r['type'] == 'kpp' and r['size'] == {'dh': 256, 'ecdh-nist-p256': 64}[r['algorithm']] and r['key_size'] == 32 and r['requests'] > 0 and r['bytes'] == r['size'] * r['requests'] and r['max_in_flight'] >= 1 for r in d['results']), all(r['ops_per_s'] > 0 and abs(r['ops_per_s'] - r['requests'] * 1e9 / r['wall_ns']) < 0.01 for r in d['results']), all(r['known_answer'] == 'ok' and r['reference'] == r['driver'] for r in d['results'])))])" >"$f.txt" || true
head -n -1 "$f.txt"
read -r only measured ops kat < <(tail -n 1 "$f.txt") || true
check "kpp: ecdh-nist-p256-generic and dh-generic measured, no error" test "$only" = True
check "kpp: at one peer key per request (64, 256 bytes), requests counted" test "$measured" = True
check "kpp: ops/s > 0, requests per second of wall time" test "$ops" = True
check "kpp: known answers ok against the CPU's implementation" test "$kat" = True
check "kpp: ecdh-nist-p384 skipped, and why" \
	expect_fail "skipping ecdh-nist-p384-generic \\(ecdh-nist-p384\\): of the key agreements only" \
	"$ctl" calibrate --raw ecdh-nist-p384
check "kpp: ecdh-nist-p384-generic by driver name: the module refuses it" \
	expect_fail 'of the key agreements only ecdh-nist-p256 and dh are measured' \
	"$ctl" calibrate --raw ecdh-nist-p384-generic
check "kpp: a request other than one peer key refused" \
	expect_fail 'REQ_SIZE must be 64 for ecdh-nist-p256, 256 for dh' \
	"$ctl" calibrate --raw dh-generic --size 64
check "kpp: DECRYPT refused" \
	expect_fail 'DECRYPT is not for key agreement' "$ctl" calibrate --raw dh-generic --decrypt
check "kpp: KEY_SIZE refused" \
	expect_fail 'KEY_SIZE is not for key agreement' \
	"$ctl" calibrate --raw ecdh-nist-p256-generic --key-size 32
check "kpp: /proc/crypto as before, nothing added or removed" \
	cmp "$CP_RESULTS/kpp-before.txt" <(priority_snapshot)

dmesg | tail -n +"$((base + 1))" >"$CP_RESULTS/dmesg.txt"
check "kernel log since insmod: no oops, BUG or warning" kernel_log_clean "$CP_RESULTS/dmesg.txt"
