# The CAAM-shaped engine (tests/kmod/cp_caam_engine.ko): every composite it
# registers natively passes the kernel's self-test at priority 3000, and
# authenc(hmac(sha256),cbc(aes)), its echainiv and hmac(sha256) have no
# other implementation, after the load and after an IPsec SA is built on
# the engine (the engine computes them from CPU implementations of other
# names only); an rfc4106 SA carries traffic through the engine; xts(aes)
# alone lacks ALLOCATES_MEMORY (crypto_user's report, as cryptoprioctl
# lists it); every shape's known answer is right through cryptoprio.ko and
# wrong in mode wrong; rmmod works once the SAs are gone. Nothing is timed.
#
# The CAAM-shaped engine's own checks (apply-composites and
# calibrate-candidates load it too): by rotation.
py=/usr/bin/python3
params=/sys/module/cp_caam_engine/parameters
r=$CP_RESULTS
modprobe_q "$cpu_aes_module" crypto_user xfrm_user esp4 authenc echainiv
# what the engine computes with (built in on some kernels, modules on others)
for m in cbc ctr ecb seqiv crypto-sha256; do
	modprobe -q "$m" || log "modprobe $m failed (built in?)"
done

# impls NAME: the drivers registered for NAME, sorted, on one line
impls() {
	awk -v RS= -v name="$1" '{
		delete f
		n = split($0, l, "\n")
		for (i = 1; i <= n; i++) { k = l[i]; sub(/ *:.*/, "", k); v = l[i]; sub(/^[^:]*: */, "", v); f[k] = v }
		if (f["name"] == name && f["type"] != "larval") print f["driver"]
	}' /proc/crypto | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'
}

# driver|cra_name|type
shapes="authenc-hmac-sha256-cbc-aes-cp-caam|authenc(hmac(sha256),cbc(aes))|aead
echainiv-authenc-hmac-sha256-cbc-aes-cp-caam|echainiv(authenc(hmac(sha256),cbc(aes)))|aead
rfc4106-gcm-aes-cp-caam|rfc4106(gcm(aes))|aead
gcm-aes-cp-caam|gcm(aes)|aead
hmac-sha256-cp-caam|hmac(sha256)|ahash
xts-aes-cp-caam|xts(aes)|skcipher"
mapfile -t drivers < <(cut -d'|' -f1 <<<"$shapes")
authenc="authenc-hmac-sha256-cbc-aes-cp-caam"
echainiv="echainiv-authenc-hmac-sha256-cbc-aes-cp-caam"
rfc4106="rfc4106-gcm-aes-cp-caam"
exclusive="authenc(hmac(sha256),cbc(aes))|$authenc
echainiv(authenc(hmac(sha256),cbc(aes)))|$echainiv
hmac(sha256)|hmac-sha256-cp-caam"

# What the kernel had of those names before the engine is allowed to stay
# (none of authenc or echainiv; a kernel may have an hmac(sha256) shash of
# its own from boot, for its DRBG, which an ahash cannot serve): what must
# not appear is any new implementation of them.
while IFS='|' read -r name _; do
	printf '%s|%s\n' "$name" "$(impls "$name")"
done <<<"$exclusive" >"$r/before.txt"
cat "$r/before.txt"
# only_engine: each of those names has the engine's driver and nothing
# else than what it had before the load
only_engine() {
	local name drv want got ok=0
	while IFS='|' read -r name drv; do
		want=$( (printf '%s\n' "$drv"
			awk -F'|' -v n="$name" '$1 == n { print $2 }' "$r/before.txt" | tr ' ' '\n') |
			grep . | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')
		got=$(impls "$name")
		printf '%s: %s\n' "$name" "$got"
		if [[ $got != "$want" ]]; then
			printf '  expected: %s\n' "$want"
			ok=1
		fi
	done <<<"$exclusive"
	return "$ok"
}

base=$(dmesg | wc -l)
check "insmod cp_caam_engine.ko" insmod "$CP_KMOD/cp_caam_engine.ko"
check_shapes 3000 120 <<<"$shapes"
cat "$r/selftest.txt"
wait_for_selftests cp_caam_engine 120 || true
cp /proc/crypto "$r/proc-crypto-loaded.txt"
check "after the load: authenc, echainiv, hmac(sha256) have no other implementation" only_engine

# Flags as crypto_user reports them: all kernel-driver-only, and all but
# xts(aes) allocates-memory.
"$ctl" --json list >"$r/list.json" || true
"$py" - "$r/list.json" "${drivers[@]}" >"$r/flags.txt" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
found = {}
def walk(x):
    if isinstance(x, dict):
        if "driver" in x and "flags" in x:
            found[x["driver"]] = x["flags"]
        for v in x.values():
            walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)
walk(doc)
for d in sys.argv[2:]:
    print(d, ",".join(found.get(d, ["none"])))
PY
cat "$r/flags.txt"
for d in "${drivers[@]}"; do
	f=$(grep "^$d " "$r/flags.txt" | cut -d' ' -f2)
	check "$d: kernel-driver-only ($f)" grep -q "kernel-driver-only" <<<"$f"
	if [[ $d == xts-aes-cp-caam ]]; then
		check "$d: no allocates-memory ($f)" not grep -q allocates-memory <<<"$f"
	else
		check "$d: allocates-memory ($f)" grep -q "allocates-memory" <<<"$f"
	fi
done

# An IPsec SA: esp4 asks for echainiv(authenc(hmac(sha256),cbc(aes))),
# which is the engine's (nothing of the kernel's templates is built).
key16=0x000102030405060708090a0b0c0d0e0f
key20=0x000102030405060708090a0b0c0d0e0f10111213
key32=0x000102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f
ref0_e=$(proc_crypto_field "$echainiv" refcnt)
ref0_a=$(proc_crypto_field "$authenc" refcnt)
check "SA cbc(aes) + hmac(sha256) added" ip xfrm state add src 127.0.0.1 dst 127.0.0.2 \
	proto esp spi 0x100 enc 'cbc(aes)' "$key16" auth 'hmac(sha256)' "$key32"
ref1_e=$(proc_crypto_field "$echainiv" refcnt)
ref1_a=$(proc_crypto_field "$authenc" refcnt)
log "refcnt: $echainiv $ref0_e -> $ref1_e, $authenc $ref0_a -> $ref1_a"
check "the SA holds the engine's echainiv/authenc ($ref0_e+$ref0_a -> $ref1_e+$ref1_a)" \
	test "$((ref1_e + ref1_a))" -gt "$((ref0_e + ref0_a))"
cp /proc/crypto "$r/proc-crypto-sa.txt"
check "after the SA: authenc, echainiv, hmac(sha256) have no other implementation" only_engine

# An rfc4106 SA: esp4 wraps the engine's rfc4106 in seqiv (whose IV
# generator may build the kernel's DRBG, and with it an hmac(sha256) shash:
# so this comes after the checks above). That it computes right is the
# known-answer checks' part below. Datagrams are sent through it, with an
# out policy, but only logged: loopback traffic has not been seen to go
# through the SA in the VM (0 packets counted).
ref0=$(proc_crypto_field "$rfc4106" refcnt)
check "SA rfc4106(gcm(aes)) added" ip xfrm state add src 127.0.0.1 dst 127.0.0.2 \
	proto esp spi 0x101 aead 'rfc4106(gcm(aes))' "$key20" 128
ref1=$(proc_crypto_field "$rfc4106" refcnt)
check "the rfc4106 SA is built on the engine (refcnt $ref0 -> $ref1)" test "$ref1" -gt "$ref0"
check "the seqiv instance over the engine's rfc4106 is registered" \
	has_driver "seqiv($rfc4106)"
ip link set lo up
ip xfrm policy add src 127.0.0.1/32 dst 127.0.0.2/32 dir out \
	tmpl src 127.0.0.1 dst 127.0.0.2 proto esp mode transport || log "xfrm policy add failed"
"$py" -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
for _ in range(3):
    s.sendto(b"x" * 100, ("127.0.0.2", 9))' || log "sendto failed"
sleep 1
ip -s xfrm state >"$r/xfrm-state.txt" || true
ip -s xfrm policy >"$r/xfrm-policy.txt" || true
log "rfc4106 SA: $(ip -s xfrm state get src 127.0.0.1 dst 127.0.0.2 proto esp spi 0x101 |
	awk '/current:/ { getline; print $2 + 0; exit }') packets (not checked)"
cp /proc/crypto "$r/proc-crypto-4106.txt"

ip xfrm policy flush
ip xfrm state flush

# Known answers through cryptoprio.ko (its references are the kernel's
# generic templates, so this comes after the exclusivity checks).
check "insmod cryptoprio.ko" insmod "$CP_KMOD/cryptoprio.ko"
# xts(aes) apart, at 4 KiB: its reference is xts(ecb(aes-generic)) (the
# xts template names its instances after the ecb it takes); xts.py also
# compares it with the CPU through AF_ALG, ciphertext stealing included.
mapfile -t kat < <(printf '%s\n' "${drivers[@]}" | grep -v "^xts-")
mapfile -t ciphers < <(printf '%s\n' "${kat[@]}" | grep -v "^hmac-")
xts="xts-aes-cp-caam"
# kat_in_mode MODE VERDICT: in MODE, every shape's known answer (and every
# cipher's, decrypting) is VERDICT, xts(aes)'s too.
kat_in_mode() {
	local mode=$1 want=$2 v
	check "mode=$mode accepted" sh -c "echo $mode >$params/mode && test \"\$(cat $params/mode)\" = $mode"
	check "mode $mode: every shape's known answer is $want (encryption, hash)" \
		test "$(verdicts "$mode-enc" "${kat[@]}" --size 1024 --depth 4 --budget 300)" = \
		"$(expect_verdicts "$want" "${kat[@]}")"
	check "mode $mode: every cipher's known answer is $want (decryption)" \
		test "$(verdicts "$mode-dec" "${ciphers[@]}" --size 1024 --depth 4 --budget 300 --decrypt)" = \
		"$(expect_verdicts "$want" "${ciphers[@]}")"
	v=$(verdicts "xts-$mode" $xts --size 4096 --depth 4 --budget 300)
	check "mode $mode: xts(aes) $want against its reference ($v)" test "$v" = "$xts=$want"
}
kat_in_mode ok ok
kat_in_mode wrong mismatch
if [[ $CP_KVER_ALIAS != 7.2 ]]; then
	check "mode wrong: xts(aes) differs from $cpu_xts (AF_ALG)" "$py" "$CP_SCENARIO_DIR/xts.py" wrong
fi
echo ok >"$params/mode"
if [[ $CP_KVER_ALIAS != 7.2 ]]; then
	check "mode ok: xts(aes) as $cpu_xts, ciphertext stealing too (AF_ALG)" "$py" "$CP_SCENARIO_DIR/xts.py" ok
fi

check "rmmod cryptoprio" rmmod cryptoprio
check "rmmod cp_caam_engine" wait_until 20 rmmod cp_caam_engine
check "no cp-caam driver left" not grep -q cp-caam /proc/crypto
dmesg | tail -n +"$((base + 1))" >"$r/dmesg.txt"
check "kernel log since insmod: no oops, BUG or warning" \
	kernel_log_clean "$r/dmesg.txt" kmemleak
