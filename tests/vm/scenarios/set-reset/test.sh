# set and reset change what a real kernel user gets: an IPsec SA added after
# `set virtio_crypto_aes_cbc 3000` is built on virtio-crypto, after `reset`
# on aesni again; the original is recorded once in /run/cryptoprio/state.json.
#
# In CI on 7.2: on 6.1, apply-composites changes priorities through the same
# UPDATEALG message.
modprobe_q virtio_pci virtio_crypto "$cpu_aes_module" crypto_user xfrm_user esp4
wait_for_driver virtio_crypto_aes_cbc
wait_for_driver "$cpu_cbc"
# What an SA is built from, loaded up front: autoloading these while the SA
# is created races under TCG ("unable to initialize cryptographic operations").
modprobe_q authenc echainiv
modprobe -q crypto-hmac || true
modprobe -q crypto-sha256 || true

# authenc instances built on DRIVER that are registered now
# (hmac(sha256-generic) on 6.1, hmac-sha256-lib on 7.2)
authenc_on() { grep -cE "^driver +: authenc\((hmac\([^)]*\)|[^(),]+),$1\)$" /proc/crypto || true; }

check "no SA on virtio-crypto before set" test "$(authenc_on virtio_crypto_aes_cbc)" = 0
check "set virtio_crypto_aes_cbc 3000" "$ctl" set virtio_crypto_aes_cbc 3000
check "/proc/crypto shows 3000" test "$(proc_crypto_prio virtio_crypto_aes_cbc)" = 3000
check "original 150 recorded" grep -qE '"priority": ?150' "$state"
check "set again to 2000 (--json: the change)" bash -c \
	'"$1" --json set virtio_crypto_aes_cbc 2000 | grep -q "\"new_priority\": 2000"' _ "$ctl"
check "the first original is kept" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
[o] = [o for o in s["originals"] if o["driver"] == "virtio_crypto_aes_cbc"]
assert o["priority"] == 150 and o["module"] == "virtio_crypto", o' "$state"

check "SA added after set" add_sa 0x100
check "the SA is built on virtio-crypto" test "$(authenc_on virtio_crypto_aes_cbc)" -ge 1
check "and not on $cpu_cbc" test "$(authenc_on "$cpu_cbc")" = 0

out=$("$ctl" --json reset)
printf '%s\n' "$out"
check "reset reports the restore" grep -q '"result": "restored"' <<<"$out"
check "reset brings back 150" test "$(proc_crypto_prio virtio_crypto_aes_cbc)" = 150
check "state file no longer holds the driver" \
	not grep -q virtio_crypto_aes_cbc "$state"
check "next SA added" add_sa 0x101
check "the next SA is built on $cpu_cbc" test "$(authenc_on "$cpu_cbc")" -ge 1
check "a second reset has nothing to do" bash -c '"$1" reset | grep -q "Nothing to reset"' _ "$ctl"
