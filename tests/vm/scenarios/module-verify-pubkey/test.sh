# Differential verification of public-key operations (cryptoprioctl
# verify, the module's VERIFY). rsa (akcipher): the test engine's passes
# against rsa-generic under several seeds, on each of the module's three
# public keys (1024, 2048 and 4096 bits), messages of 1 byte to a modulus
# in any layout, each answer compared as an integer; a fault from the
# engine's N-th request on names the key of case N - 1. ecdh-nist-p256
# (kpp): the engine's public keys of random private keys and its shared
# secrets with peer keys the reference made, half of them a bit off
# (refused by both, or agreed on), pass against ecdh-nist-p256-generic; a
# fault names a case of each kind; an engine that takes a point off the
# curve (mode lax) is found. For both, faults of one shape (mode
# sgmulti, rsa's len64) keep calibrate's known answer ok and are found, a
# case its seed reproduces; crosstalk only by the cases together; a
# request that never answers is kept until it does. Ciphers:
# module-verify; compressors: module-verify-acomp.
#
# In CI on 7.2.
p=/sys/module/cp_test_engine/parameters
r=$CP_RESULTS
rsa=cp_test_engine_rsa
ecdh=cp_test_engine_ecdh
test_engine_ecdh=1 load_test_engine $rsa $ecdh
base=$(dmesg | wc -l)

for seed in 1 2 3; do
	verify_json "$r/ok-$seed.json" $rsa $ecdh --seed "$seed"
	log "seed $seed: $(jget "$r/ok-$seed.json" "[(i['driver'], i['verdict'], i['reference'], i.get('failure')) for i in d['implementations']]")"
	check "mode ok, seed $seed: rsa passed 48 cases against rsa-generic, exit 0" \
		test "$rc $(impl_field "$r/ok-$seed.json" "i['verdict'], i['cases'], i['reference']" $rsa)" = \
		"0 ('passed', 48, 'rsa-generic')"
	check "mode ok, seed $seed: ecdh passed 48 cases against ecdh-nist-p256-generic" \
		test "$(impl_field "$r/ok-$seed.json" "i['verdict'], i['cases'], i['reference']" $ecdh)" = \
		"('passed', 48, 'ecdh-nist-p256-generic')"
done

# wrong_after N: right for the engine's first N - 1 requests, wrong from
# the N-th on. rsa: seed 5's case N - 1 fails, under the 1024-, 2048- or
# 4096-bit key (128, 256 or 512 bytes of modulus): every key is used.
# ecdh: seed 6's case 0 is a shared secret (its peer key whole), case 1 a
# public key; each fails in turn.
wrong_from() {
	local n=$1 drv=$2 seed=$3 f=$r/wrong-$2-$1.json
	echo "$n" >"$p/wrong_after"
	verify_json "$f" "$drv" --seed "$seed" --cases "$n"
	echo 0 >"$p/wrong_after"
	echo ok >"$p/mode"
	failure=$(impl_field "$f" "i.get('failure')" "$drv")
	log "$drv, wrong_after $n: $failure"
}
keys=(128 256 512)
for n in 1 2 3; do
	wrong_from $n $rsa 5
	check "rsa, wrong_after $n: case $((n - 1)) fails, its ${keys[n - 1]}-byte key said (exit 4)" \
		test "$rc $(grep -Ec "^case $((n - 1)) of seed 5: encrypt [0-9]+ bytes, ${keys[n - 1]}-byte key, out of place, src .*, dst .*: output differs from the reference's integer$" <(printf '%s\n' "$failure"))" = "4 1"
done
kinds=('shared secret, 64-byte peer key, 32-byte key' 'public key, 32-byte key')
for n in 1 2; do
	wrong_from $n $ecdh 6
	check "ecdh, wrong_after $n: case $((n - 1)), a ${kinds[n - 1]%%,*}, fails (exit 4)" \
		test "$rc $(grep -Ec "^case $((n - 1)) of seed 6: ${kinds[n - 1]}, out of place, src .*, dst .*: output differs from the reference's integer$" <(printf '%s\n' "$failure"))" = "4 1"
done

mkdir -p "$r/rsa" "$r/ecdh"
verify_kat_size=256
for mode in sgmulti len64; do
	echo "$mode" >"$p/mode"
	verify_finds_shape "$r/rsa" "$mode" $rsa
done
verify_kat_size=64
echo sgmulti >"$p/mode"
verify_finds_shape "$r/ecdh" sgmulti $ecdh \
	"^case [0-9]+ of seed 42: (public key|shared secret, 64-byte peer key), 32-byte key, out of place, src .*entries.*: output differs from the reference's integer$"
# lax: the engine computes with a peer key off the curve (the way in of
# an invalid-curve attack); the known answer's point is valid, a flipped
# one finds it.
echo lax >"$p/mode"
verify_finds_shape "$r/ecdh" lax $ecdh \
	"^case [0-9]+ of seed 42: shared secret, 64-byte peer key, 32-byte key, bit [0-9]+ flipped, .*: accepted a peer key the reference refused \(-22\)$"
echo ok >"$p/mode"

# crosstalk: 12 cases alone pass, the default 48's last 12, in rounds of
# four transforms (each its key) with 2 ms requests, find it.
verify_crosstalk $rsa
verify_crosstalk $ecdh

# An engine that never answers: the second request, kept until the engine
# answers, then released.
verify_hangs $rsa 2 5 '^case 1 of seed 5: encrypt [0-9]+ bytes, 256-byte key, '
verify_hangs $ecdh 2 6 '^case 1 of seed 6: public key, '

unload_verifier_clean "$base"
