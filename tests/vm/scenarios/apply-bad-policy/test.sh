# An invalid policy (a syntax error, an unknown key, a bad size, a negative
# priority, in the main file and a drop-in): check-policy and apply print
# every error as file:line: reason, exit 1, and change nothing, neither in
# /proc/crypto nor in the state file. With the errors fixed, apply works.
# shellcheck source=../apply-default/apply-common.sh
#
# In CI on 7.2 only: depends only on cryptoprio (the policy files).
. "$CP_SCENARIO_DIR/../apply-default/apply-common.sh"
log "calibration backend: $(load_cpmod)"
check "set virtio_crypto_aes_cbc 3000 (apply would lower it)" "$ctl" set virtio_crypto_aes_cbc 3000

mkdir -p /etc/cryptoprio.conf.d
cat >/etc/cryptoprio.conf <<'CONF'
[Policy]
Gears = cpu offload
[Algorithm cbc(aes)
RequestSize = 64K
CONF
cat >/etc/cryptoprio.conf.d/50-bad.conf <<'CONF'
[Policy]
Speed = fast
[Algorithm cbc(aes)]
RequestSize = 12 parsecs
[Driver virtio_crypto_aes_cbc]
Priority = -5
CONF
errors=(
	'/etc/cryptoprio.conf:3: '
	'/etc/cryptoprio.conf.d/50-bad.conf:2: .*Speed'
	'/etc/cryptoprio.conf.d/50-bad.conf:4: .*RequestSize'
	'/etc/cryptoprio.conf.d/50-bad.conf:6: .*Priority'
)
# expect_errors CMD...: exit 1 and every expected file:line on stderr
expect_errors() {
	local rc=0 err e
	err=$("$@" 2>&1 >/dev/null) || rc=$?
	printf '%s -> exit %d\n%s\n' "$*" "$rc" "$err"
	[[ $rc -eq 1 ]] || return 1
	for e in "${errors[@]}"; do
		grep -qE "^$e" <<<"$err" || { printf 'missing: %s\n' "$e"; return 1; }
	done
}

priority_snapshot >"$CP_RESULTS/before.txt"
state_before=$(cat "$state")
check "check-policy: every error with file:line, exit 1" expect_errors "$ctl" check-policy
check "check-policy --json: every error too, exit 1" expect_errors "$ctl" --json check-policy
check "apply: every error with file:line, exit 1" expect_errors "$ctl" apply
check "apply --json: every error too, exit 1" expect_errors "$ctl" --json apply
check "plan: refuses the policy the same way" expect_errors "$ctl" plan
check "/proc/crypto unchanged" priorities_as "$CP_RESULTS/before.txt"
check "virtio-crypto still at 3000" test "$(proc_crypto_prio virtio_crypto_aes_cbc)" = 3000
check "state file unchanged" test "$state_before" = "$(cat "$state")"

# The same policy with the errors fixed is applied.
cat >/etc/cryptoprio.conf <<'CONF'
[Policy]
Gears = cpu offload
Calibrate = never
CONF
rm /etc/cryptoprio.conf.d/50-bad.conf
check "check-policy: valid now" "$ctl" check-policy
check "apply: works now" "$ctl" apply
check "$cpu_cbc is the cbc(aes) winner" test "$(first_of 'cbc(aes)')" = "$cpu_cbc"
