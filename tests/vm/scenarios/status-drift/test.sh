# status judges drift by what new users get: after apply with the default
# policy (the engine at a vendor's 3000 lowered below the CPU), another
# tool's UPDATEALG through crypto_user that moves no winner leaves status
# at 0, whether on a driver cryptoprio did not set (the CPU's, raised) or
# on one it did (the engine's, lowered by one: listed, not drift); one that
# moves cbc(aes)'s winner (the CPU's lowered below the engine) makes status
# exit 3 and name cbc(aes), its caller, the driver planned and the one
# now, in text, JSON and the metrics; reset gives it back (status 0).
# calibrate's cells show ± under a UTF-8 locale and +- under LC_ALL=C.
# shellcheck source=../apply-default/apply-common.sh
#
# The same crypto_user and status on every kernel: the rotation.
. "$CP_SCENARIO_DIR/../apply-default/apply-common.sh"
backend=$(load_cpmod)
log "calibration backend: $backend"
printf '[Policy]\nCalibrationBudget = 30s\n' >/etc/cryptoprio.conf
# status_now: status run, its exit code in $rc, its text and JSON in
# $CP_RESULTS/status-$n.txt and .json ($n counts the runs).
n=0
status_now() {
	n=$((n + 1))
	rc=0
	"$ctl" status >"$CP_RESULTS/status-$n.txt" || rc=$?
	"$ctl" --json status >"$CP_RESULTS/status-$n.json" || true
	log "status $n: exit $rc"
	sed -n '/^Verdict/,$p' "$CP_RESULTS/status-$n.txt"
}

check "set virtio_crypto_aes_cbc 3000 (a vendor's priority)" "$ctl" set virtio_crypto_aes_cbc 3000
check "apply" "$ctl" apply
check "$cpu_cbc is the cbc(aes) winner" test "$(first_of 'cbc(aes)')" = "$cpu_cbc"
planned_engine=$(proc_crypto_prio virtio_crypto_aes_cbc)
cpu_prio=$(proc_crypto_prio "$cpu_cbc")
log "after apply: $cpu_cbc $cpu_prio, virtio_crypto_aes_cbc $planned_engine"
check "the state records cbc(aes)'s winner for any caller" test \
	"$(jget "$state" "[w.get('any') for w in d['last_apply']['winners'] if w['name'] == 'cbc(aes)']")" = "['$cpu_cbc']"
check "$cpu_cbc was not set by the plan" test \
	"$(jget "$state" "'$cpu_cbc' in [s['driver'] for s in d['last_apply']['steps']]")" = False
status_now
check "status: 0 after apply" test "$rc" = 0

# Moves no winner: the CPU's raised, the engine's lowered by one.
check "another tool raises $cpu_cbc" crypto_user_set "$cpu_cbc" $((cpu_prio + 50))
status_now
check "status: still 0" test "$rc" = 0
check "another tool lowers the engine by one" crypto_user_set virtio_crypto_aes_cbc $((planned_engine - 1))
status_now
check "status: still 0 (no winner moved)" test "$rc" = 0
check "status: the priority the plan set, listed as changed, not drift" \
	grep -qE "^Priorities changed since the last plan applied \(no winner with them: not drift\):" "$CP_RESULTS/status-$n.txt"
check "status --json: as planned, no drift, the priority changed" test "$(jget "$CP_RESULTS/status-$n.json" \
	"d['verdict'], d['drift'], [(x['driver'], x['priority']) for x in d['priorities_changed']]")" = \
	"('as-planned', [], [('virtio_crypto_aes_cbc', $((planned_engine - 1)))])"
check "metrics: no drift" grep -qx 'cryptoprio_drifted_implementations 0' <("$ctl" metrics)

# Moves cbc(aes)'s winner: the CPU's lowered below the engine, back at
# the priority the plan set (so that no priority it set has changed).
check "the engine back at $planned_engine" crypto_user_set virtio_crypto_aes_cbc "$planned_engine"
check "another tool lowers $cpu_cbc to 123" crypto_user_set "$cpu_cbc" 123
check "new users of cbc(aes) get the engine" test "$(first_of 'cbc(aes)')" = virtio_crypto_aes_cbc
status_now
check "status: exit 3" test "$rc" = 3
check "status names cbc(aes), any caller, the driver planned and the one now" \
	grep -qx "  cbc(aes), caller any: $cpu_cbc planned, virtio_crypto_aes_cbc now" "$CP_RESULTS/status-$n.txt"
check "status --json: drifted, cbc(aes)'s any caller from $cpu_cbc to the engine" test "$(jget "$CP_RESULTS/status-$n.json" \
	"d['verdict'], [(x['planned_driver'], x['driver']) for x in d['drift'] if x['algorithm'] == 'cbc(aes)' and x['caller'] == 'any']")" = \
	"('drifted', [('$cpu_cbc', 'virtio_crypto_aes_cbc')])"
lines=$(jget "$CP_RESULTS/status-$n.json" "len(d['drift'])")
check "metrics: the drift gauge counts status's lines ($lines)" \
	grep -qx "cryptoprio_drifted_implementations $lines" <("$ctl" metrics)

# reset gives cbc(aes) back: its winner moving is cryptoprio's no longer.
check "reset" "$ctl" reset
status_now
check "status after reset: 0" test "$rc" = 0

# calibrate's cells (the second from the cache the first filled): the locale's glyph.
LC_ALL=C.UTF-8 "$ctl" calibrate 'cbc(aes)' --size 4K >"$CP_RESULTS/calibrate-utf8.txt"
LC_ALL=C "$ctl" calibrate 'cbc(aes)' --size 4K >"$CP_RESULTS/calibrate-c.txt"
cat "$CP_RESULTS/calibrate-utf8.txt" "$CP_RESULTS/calibrate-c.txt"
check "calibrate under C.UTF-8: median±spread" grep -qE "^ *\*? *$cpu_cbc .* [0-9.]+±[0-9.]+" "$CP_RESULTS/calibrate-utf8.txt"
check "calibrate under LC_ALL=C: median+-spread" grep -qE "^ *\*? *$cpu_cbc .* [0-9.]+\+-[0-9.]+" "$CP_RESULTS/calibrate-c.txt"
check "calibrate under LC_ALL=C: ASCII only, nothing escaped" \
	not grep -qE '\\x|[^[:print:][:space:]]' <(LC_ALL=C cat "$CP_RESULTS/calibrate-c.txt")
