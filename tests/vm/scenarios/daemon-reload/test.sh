# `systemctl reload cryptoprio` re-reads the policy and re-applies it; a
# broken policy fails the reload (the unit runs check-policy first) and the
# daemon is not signalled; a SIGHUP with it is refused by the daemon with
# file:line; the old policy stays in force (also for later module events).
# `cryptoprioctl apply` tells the daemon to read the files it applied.
#
# Depends only on cryptoprio (reload): not in CI's matrix, by rotation.
svc=cryptoprio.service
conf=/etc/cryptoprio.conf
check "cryptoprio.service is active" test "$(unit_prop $svc ActiveState)" = active
pid=$(unit_prop $svc MainPID)
modprobe_q virtio_crypto
check "virtio_crypto_aes_cbc at 1234 (first policy)" wait_for_prio virtio_crypto_aes_cbc 1234 30

cat >$conf <<'CONF'
[Policy]
Gears = any
RequestSize = 64K

[Driver virtio_crypto_aes_cbc]
Priority = 2222
CONF
systemctl reload $svc
check "reload: the changed policy applied (2222)" wait_for_prio virtio_crypto_aes_cbc 2222 30
# The daemon logs the run and sends its STATUS= after the change, and
# journald and systemd take them in a little later: poll, with a bound.
check "reload: the daemon logged the reload and a run" wait_until 15 bash -c \
	"journalctl -b -u $svc --no-pager | grep -q 'Policy reloaded' &&
	 journalctl -b -u $svc --no-pager | grep -qE 'Policy (applied|in force) \(reload\)'"
# StatusText is the summary of the last run in the journal: the reload's, or
# one after it (where a self-test is still running, as virtio-crypto-rsa's
# for 100 s on arm64's 7.2, retries follow).
status_is_last_run() {
	local last
	last=$(journalctl -b -u $svc -o cat --no-pager | grep -E '^Policy (applied|in force) \(' | tail -n 1)
	[[ -n $last && $(unit_prop $svc StatusText) == "$last" ]]
}
check "StatusText after reload: the last run's summary" wait_until 15 status_is_last_run

cat >$conf <<'CONF'
[Policy]
Gears = any
RequestSize = 64K
Rank = fastest

[Driver virtio_crypto_aes_cbc]
Priority = 3333
CONF
rc=0
systemctl reload $svc 2>"$CP_RESULTS/reload-broken.err" || rc=$?
check "broken reload: systemctl reload fails (check-policy before the signal)" test "$rc" -ne 0
check "broken reload: check-policy's error in the journal with file:line" \
	wait_until 15 bash -c "journalctl -b -u $svc --no-pager | grep -qE '$conf:4: .*Rank'"
check "broken reload: the daemon was not signalled" \
	test "$(record reloads)" = 1
# The daemon's own check, for a SIGHUP that comes some other way: it
# answers in the state file (the refusal) and the journal, not at once.
kill -HUP "$pid"
refused() { test "$(record reload_failures)" = 1; }
check "SIGHUP with the broken policy: refused (state file)" wait_until 30 refused
check "SIGHUP with the broken policy: the daemon's error logged with file:line" \
	wait_until 15 bash -c "journalctl -b -u $svc --no-pager | grep -E '$conf:4: .*Rank' | grep -q cryptoprio-daemon"
journalctl -b -u $svc --no-pager >"$CP_RESULTS/journal.txt"
check "broken reload: the old policy stays (2222, not 3333)" \
	test "$(proc_crypto_prio virtio_crypto_aes_cbc)" = 2222
check "broken reload: the daemon keeps running, not restarted" \
	test "$(unit_prop $svc ActiveState)/$(unit_prop $svc MainPID)" = "active/$pid"
check "the kernel's self-tests of virtio_crypto end" wait_for_selftests virtio_crypto 60
check "rmmod virtio_crypto succeeds" rmmod virtio_crypto
modprobe_q virtio_crypto
check "after a module reload the policy in force is still the old one (2222)" \
	wait_for_prio virtio_crypto_aes_cbc 2222 10
"$CP_BUILD/cli/cryptoprioctl" status | tee "$CP_RESULTS/status.txt"
check "status: 2 reloads, 1 refused" grep -q 'reloads: 2 (1 refused)' "$CP_RESULTS/status.txt"

# cryptoprioctl apply by hand, as configuration management does after
# editing the files: it applies, then tells the running daemon to read the
# same files again, so that a later module event keeps the new policy.
printf '[Driver virtio_crypto_aes_cbc]\nPriority = 4444\n' >$conf
"$ctl" apply >"$CP_RESULTS/apply.out" 2>"$CP_RESULTS/apply.err"
cat "$CP_RESULTS/apply.err"
check "apply: 4444 applied" test "$(proc_crypto_prio virtio_crypto_aes_cbc)" = 4444
check "apply: says it told the daemon" \
	grep -q "told cryptoprio-daemon (pid $pid) to read the policy again" "$CP_RESULTS/apply.err"
check "the daemon read it (3 reloads)" wait_until 15 reloads_are 3 1
check "the kernel's self-tests of virtio_crypto end" wait_for_selftests virtio_crypto 60
rmmod virtio_crypto && modprobe_q virtio_crypto
check "after a module reload the applied policy holds (4444)" \
	wait_for_prio virtio_crypto_aes_cbc 4444 10
# Another file: the daemon is left alone, and apply says so.
mkdir -p /run/cp-test
printf '[Driver virtio_crypto_aes_cbc]\nPriority = 5555\n' >/run/cp-test/other.conf
chmod 0644 /run/cp-test/other.conf
"$ctl" -c /run/cp-test/other.conf apply >/dev/null 2>"$CP_RESULTS/apply-other.err"
cat "$CP_RESULTS/apply-other.err"
check "apply -c: 5555 applied" test "$(proc_crypto_prio virtio_crypto_aes_cbc)" = 5555
check "apply -c: warns that the daemon keeps its own policy" \
	grep -q "cryptoprio-daemon (pid $pid) keeps its own policy ($conf)" "$CP_RESULTS/apply-other.err"
sleep 2
check "apply -c: the daemon was not told (still 3 reloads)" reloads_are 3 1
