# cryptoprioctl list on a real kernel: the CPU's AES (cpu) and virtio-crypto (offload)
# with their live priorities, the same facts in --json, unprivileged, and the
# /proc/crypto fallback when crypto_user cannot be loaded.
#
# In CI on 7.2, both arm64 kernels and armhf's 6.1: each arch's CPU
# drivers first (x86_64's 6.1 reads arm64's 6.1's crypto_user).
modprobe_q virtio_pci virtio_crypto "$cpu_aes_module" crypto_user
wait_for_driver virtio_crypto_aes_cbc
wait_for_driver "$cpu_cbc"

cpu_prio=$(proc_crypto_prio "$cpu_cbc")
out=$("$ctl" list 'cbc(aes)')
printf '%s\n' "$out"
check "$cpu_cbc listed as cpu at its live priority" \
	grep -qE "^  [* ] $cpu_cbc +cpu +$cpu_prio " <<<"$out"
check "virtio-crypto listed as offload at 150" \
	grep -qE "^  [* ] virtio_crypto_aes_cbc +offload +150 +async" <<<"$out"
check "the winner (highest priority) is marked" \
	grep -qE "^  \* $cpu_cbc " <<<"$out"
check "only the matching group is shown" \
	not grep -q "^sha256 " <<<"$out"

"$ctl" --json list 'cbc(aes)' >"$CP_RESULTS/list.json"
check "--json carries the same facts" python3 - "$CP_RESULTS/list.json" "$cpu_cbc" "$cpu_prio" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["inventory_source"] == "crypto_user", doc["inventory_source"]
[group] = [g for g in doc["algorithms"] if g["name"] == "cbc(aes)"]
impl = {i["driver"]: i for i in group["implementations"]}
a, v = impl[sys.argv[2]], impl["virtio_crypto_aes_cbc"]
assert a["class"] == "cpu" and a["priority"] == int(sys.argv[3]), a
assert v["class"] == "offload" and v["priority"] == 150, v
# virtio-crypto sets no kernel-driver-only flag: its module's path in the
# module index (drivers/crypto/virtio/) is what tells, before its name.
assert v["class_reason"] == "drivers/crypto", v["class_reason"]
assert a["class_reason"] == "default", a["class_reason"]
assert "async" in v["flags"] and "tested" in v["flags"], v["flags"]
assert group["winner"] == sys.argv[2] and a["winner"] and not v["winner"]
PY
check "list --json after the verb works too" \
	bash -c '"$1" list --json virtio_crypto_aes_cbc | python3 -c "import json,sys; json.load(sys.stdin)"' _ "$ctl"

check "list works unprivileged" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ctl" list 'cbc(aes)'
check "a pattern that matches nothing fails" not "$ctl" list "no-such-*"

# crypto_user refused: the same listing read from /proc/crypto, and said so.
rmmod crypto_user
echo "install crypto_user /bin/false" >/etc/modprobe.d/cryptoprio-test.conf
err=$("$ctl" list 'cbc(aes)' 2>&1 >/dev/null)
check "fallback says it reads /proc/crypto" grep -q "read-only inventory from /proc/crypto" <<<"$err"
check "fallback still lists virtio-crypto as offload at 150" \
	bash -c '"$1" list "cbc(aes)" 2>/dev/null | grep -qE "virtio_crypto_aes_cbc +offload +150"' _ "$ctl"
check "fallback --json names its source" \
	bash -c '"$1" --json list 2>/dev/null | grep -q "\"inventory_source\": \"/proc/crypto\""' _ "$ctl"
