# Originals survive a lost or corrupt /run/cryptoprio/state.json: apply
# records each changed driver's default in /var/lib/cryptoprio/calibration.json
# at first sight, so reset restores them from there. A corrupt state file
# is moved aside with a warning, never fatal; a corrupt cache is ignored
# with a warning. With both lost, what was changed before cannot be told
# (man cryptoprioctl, FILES): checked too, so the documented loss is real.
#
# In CI on 7.2 only: depends only on cryptoprio (the state file).
modprobe_q virtio_pci virtio_crypto "$cpu_aes_module" crypto_user
wait_for_driver virtio_crypto_aes_cbc
wait_for_driver "$cpu_cbc"

# Pins only, no measuring: the point is what is recorded, not the order.
cat >/etc/cryptoprio.conf <<CONF
[Policy]
Calibrate = never

[Driver virtio_crypto_aes_cbc]
Priority = 1234

[Driver $cpu_cbc]
Priority = 77

[Driver $cpu_ecb]
Priority = 78
CONF
chmod 0644 /etc/cryptoprio.conf

default_of() {
	python3 - "$cache" "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
print(",".join(str(d["priority"]) for m in doc["machines"] for d in m.get("defaults", [])
               if d["driver"] == sys.argv[2]))
PY
}
priority_snapshot >"$CP_RESULTS/before.txt"  # what a complete reset gives back
rm -f "$cache" "$state"

# 1. The defaults are recorded before the first change.
check "apply" "$ctl" apply
check "virtio_crypto_aes_cbc pinned to 1234" test "$(proc_crypto_prio virtio_crypto_aes_cbc)" = 1234
check "its default 150 recorded in the cache" test "$(default_of virtio_crypto_aes_cbc)" = 150
check "$cpu_cbc's default recorded as it was" \
	test "$(default_of "$cpu_cbc")" = "$(awk -v d="$cpu_cbc" '$1 == d { print $2 }' "$CP_RESULTS/before.txt")"

# 2. /run lost: reset restores every original from the recorded defaults.
rm -f "$state"
"$ctl" reset >"$CP_RESULTS/reset-lost.out" 2>"$CP_RESULTS/reset-lost.err" || true
cat "$CP_RESULTS/reset-lost.out" "$CP_RESULTS/reset-lost.err"
check "state lost: reset says where the originals came from" \
	grep -q "restoring the defaults recorded in $cache" "$CP_RESULTS/reset-lost.err"
check "state lost: every priority back to what it was" priorities_as "$CP_RESULTS/before.txt"

# 3. Apply with /run lost after a change: the original is the default, not 1234.
check "apply again" "$ctl" apply
rm -f "$state"
check "set after the loss" "$ctl" set virtio_crypto_aes_cbc 999
check "the original recorded is the default, not the 1234 it had" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
[o] = [o for o in s["originals"] if o["driver"] == "virtio_crypto_aes_cbc"]
assert o["priority"] == 150, o' "$state"
check "reset" "$ctl" reset
check "every priority back again" priorities_as "$CP_RESULTS/before.txt"

# 4. A truncated state file: moved aside with a warning; apply and reset work.
check "apply" "$ctl" apply
head -c 40 "$state" >"$state.tmp" && mv "$state.tmp" "$state"
check "status refuses the truncated file, in words" \
	expect_fail "^cryptoprioctl: status: $state is not a valid state file; the next apply, set or reset moves it aside" \
	"$ctl" status
rc=0
"$ctl" apply 2>"$CP_RESULTS/apply-corrupt.err" || rc=$?
cat "$CP_RESULTS/apply-corrupt.err"
check "corrupt state: apply succeeds" test "$rc" = 0
check "corrupt state: apply warns" grep -q "not a valid state file (moved to $state.corrupt)" \
	"$CP_RESULTS/apply-corrupt.err"
check "corrupt state: kept aside" test -s "$state.corrupt"
check "corrupt state: a valid state written again" "$ctl" status
check "reset" "$ctl" reset
check "every priority back after a corrupt state" priorities_as "$CP_RESULTS/before.txt"

# 5. A corrupt cache: ignored with a warning; the state alone still resets.
check "apply" "$ctl" apply
echo '{"version":2,"machines":[{"kernel":' >"$cache"
rc=0
"$ctl" reset >"$CP_RESULTS/reset-cache.out" 2>"$CP_RESULTS/reset-cache.err" || rc=$?
cat "$CP_RESULTS/reset-cache.out" "$CP_RESULTS/reset-cache.err"
check "corrupt cache: reset succeeds from the state" test "$rc" = 0
check "corrupt cache: reset warns" grep -q "ignoring $cache" "$CP_RESULTS/reset-cache.err"
check "every priority back with the cache corrupt" priorities_as "$CP_RESULTS/before.txt"

# 6. Both lost (the documented limit): nothing tells reset about 1234.
echo '{"version":2,"machines":[{"kernel":' >"$cache"
check "apply over a corrupt cache" "$ctl" apply
echo garbage >"$cache"
rm -f "$state"
"$ctl" reset >"$CP_RESULTS/reset-both.out" 2>&1 || true
cat "$CP_RESULTS/reset-both.out"
check "both lost: reset has nothing to restore, and says so" \
	grep -q "Nothing to reset" "$CP_RESULTS/reset-both.out"
check "both lost: the pin stays (a reboot restores it)" \
	test "$(proc_crypto_prio virtio_crypto_aes_cbc)" = 1234
