# plan works without privileges: the same diff as root would apply, from
# the cache and AF_ALG (the module's netlink needs CAP_NET_ADMIN), saying
# so, and changes nothing. apply without privileges refuses before doing
# anything. apply --dry-run as root shows the same steps as plan.
# shellcheck source=../apply-default/apply-common.sh
#
# Depends only on cryptoprio (plan): not in CI's matrix, by rotation.
. "$CP_SCENARIO_DIR/../apply-default/apply-common.sh"
log "calibration backend (root): $(load_cpmod)"
check "set virtio_crypto_aes_cbc 3000" "$ctl" set virtio_crypto_aes_cbc 3000
printf '[Policy]\nCalibrationBudget = 10s\n' >/etc/cryptoprio.conf
chmod 0644 /etc/cryptoprio.conf
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

priority_snapshot >"$CP_RESULTS/before.txt"
rc=0
nobody "$ctl" plan >"$CP_RESULTS/plan.txt" 2>&1 || rc=$?
cat "$CP_RESULTS/plan.txt"
check "plan as nobody exits 0" test "$rc" = 0
check "plan shows the diff: virtio_crypto_aes_cbc 3000 -> lower" \
	grep -qE "^cbc\\(aes\\) +virtio_crypto_aes_cbc +offload +3000 -> [0-9]+ +set +.*$cpu_cbc" "$CP_RESULTS/plan.txt"
check "plan says it measured through AF_ALG only" grep -q 'without CAP_NET_ADMIN: measured through AF_ALG only' "$CP_RESULTS/plan.txt"
nobody "$ctl" --json plan >"$CP_RESULTS/plan.json"
check "plan --json: unprivileged, af_alg or cache, numbers as numbers" test "$(jget "$CP_RESULTS/plan.json" \
	"d['calibration']['unprivileged'] and d['calibration']['backend'] in ('af_alg', 'none') and any(s['driver'] == 'virtio_crypto_aes_cbc' and s['old_priority'] == 3000 and type(s['new_priority']) is int for s in d['steps'])")" = True
check "plan changed nothing" priorities_as "$CP_RESULTS/before.txt"
check "plan wrote no plan into the state" not grep -q last_apply "$state"

rc=0
err=$(nobody "$ctl" apply 2>&1) || rc=$?
printf '%s\n' "$err"
check "apply as nobody: exit 1" test "$rc" = 1
check "apply as nobody names CAP_NET_ADMIN" grep -q CAP_NET_ADMIN <<<"$err"
check "still nothing changed" priorities_as "$CP_RESULTS/before.txt"

"$ctl" --json apply --dry-run >"$CP_RESULTS/dry-run.json"
check "apply --dry-run as root: the same drivers and new priorities as plan" python3 - \
	"$CP_RESULTS/plan.json" "$CP_RESULTS/dry-run.json" <<'PY'
import json, sys
p, d = (json.load(open(f)) for f in sys.argv[1:])
cbc = lambda doc: [(s["driver"], s["new_priority"]) for s in doc["steps"] if s["algorithm"] == "cbc(aes)"]
assert d["dry_run"] is True and all(s["result"] == "planned" for s in d["steps"]), d["steps"]
assert cbc(p) == cbc(d) and cbc(p), (cbc(p), cbc(d))
PY
check "dry run changed nothing" priorities_as "$CP_RESULTS/before.txt"

# status and check-policy read only world-readable files: they work as nobody.
rc=0
nobody "$ctl" status >"$CP_RESULTS/status-nobody.txt" 2>&1 || rc=$?
cat "$CP_RESULTS/status-nobody.txt"
check "status as nobody exits 0" test "$rc" = 0
check "status as nobody shows the original recorded by set" grep -q "Original priorities recorded: 1" "$CP_RESULTS/status-nobody.txt"
rc=0
nobody "$ctl" check-policy --verbose >"$CP_RESULTS/check-policy-nobody.txt" 2>&1 || rc=$?
cat "$CP_RESULTS/check-policy-nobody.txt"
check "check-policy as nobody exits 0" test "$rc" = 0
check "check-policy as nobody names the file it read" grep -q /etc/cryptoprio.conf "$CP_RESULTS/check-policy-nobody.txt"

# apply --dry-run fails where apply would: without CAP_NET_ADMIN, and where
# the lock and the state file's directory cannot be written.
rc=0
err=$(nobody "$ctl" apply --dry-run 2>&1) || rc=$?
printf '%s\n' "$err"
check "apply --dry-run as nobody: exit 1 naming CAP_NET_ADMIN, as apply" \
	test "$rc $(grep -c CAP_NET_ADMIN <<<"$err")" = "1 1"
mount -t tmpfs -o ro,size=1m cp-ro /run/cryptoprio
rc=0
err=$("$ctl" apply --dry-run 2>&1) || rc=$?
printf '%s\n' "$err"
check "apply --dry-run with /run/cryptoprio read-only: exit 1" test "$rc" = 1
check "apply --dry-run names the lock it cannot create" \
	grep -q "cannot use /run/cryptoprio/lock; nothing changed" <<<"$err"
rc=0
err=$("$ctl" apply 2>&1) || rc=$?
printf '%s\n' "$err"
check "apply there: exit 1, the same words" test "$rc $(grep -c 'cannot use /run/cryptoprio/lock' <<<"$err")" = "1 1"
umount /run/cryptoprio
check "still nothing changed after both" priorities_as "$CP_RESULTS/before.txt"
