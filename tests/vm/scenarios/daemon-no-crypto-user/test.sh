# crypto_user unavailable at boot: priorities cannot be changed, only read
# from /proc/crypto. cryptoprio-daemon(8): there is nothing to do on such a
# kernel, which is no failure: the daemon says why in one journal line (at
# warning level: crypto_user named, with the kernel's error), signals READY
# and exits 0, so the unit ends inactive, not failed, and the system is not
# degraded by it. Nothing is changed (also not by a restart or a --once
# run), `cryptoprioctl list` reads the read-only inventory from
# /proc/crypto, and `status` shows why the daemon stopped.
#
# Depends only on cryptoprio (a kernel without crypto_user): not in CI's
# matrix, by rotation.
svc=cryptoprio.service
r=$CP_RESULTS

check "crypto_user is not loaded" test ! -d /sys/module/crypto_user
check "modprobe crypto_user is refused" not modprobe crypto_user
check "$cpu_aes_module was loaded at boot ($cpu_cbc there)" wait_for_driver "$cpu_cbc" 30
cpu_prio=$(proc_crypto_prio "$cpu_cbc")
log "$cpu_cbc at $cpu_prio"
check "nothing changed at boot: $cpu_cbc not at the policy's 1234" test "$cpu_prio" != 1234

# The unit: ended successfully, once, and not failed.
systemctl show -p ActiveState,SubState,Result,ExecMainStatus,NRestarts $svc | tee "$r/unit.txt"
check "$svc ended successfully (inactive, Result=success, status 0)" \
	test "$(unit_prop $svc ActiveState)/$(unit_prop $svc Result)/$(unit_prop $svc ExecMainStatus)" = inactive/success/0
check "$svc was not restarted" test "$(unit_prop $svc NRestarts)" = 0
check "$svc is not listed by systemctl --failed" bash -c "! systemctl --failed --no-legend | grep -q $svc"

# The boot went on: sysinit.target and basic.target (Wants only), and the
# runner's target (this scenario runs from it).
for t in sysinit.target basic.target; do
	check "$t is active" test "$(unit_prop $t ActiveState)" = active
done
check "cp-vm.target reached" bash -c \
	'for _ in $(seq 60); do [[ $(systemctl show -p ActiveState --value cp-vm.target) == active ]] && exit 0; sleep 0.5; done; exit 1'
log "system state: $(systemctl is-system-running 2>&1 || true)"

# The journal says why, once: a warning naming crypto_user, with the
# errno text; nothing else at warning level or above (systemd logs a failed
# unit at warning level).
journalctl -b -u $svc --no-pager -o with-unit | tee "$r/journal.txt"
journalctl -b -u $svc --no-pager -p warning -o cat >"$r/journal-warning.txt"
check "journal: one line at warning level or above ($(wc -l <"$r/journal-warning.txt"))" \
	test "$(wc -l <"$r/journal-warning.txt")" = 1
check "journal: it has the kernel's reason (Protocol not supported)" \
	grep -q 'Protocol not supported' "$r/journal-warning.txt"
check "journal: it names crypto_user (what is missing, not only the errno)" \
	grep -q 'no crypto_user' "$r/journal-warning.txt"
check "journal: no priority was logged as changed" bash -c \
	"! journalctl -b -u $svc --no-pager MESSAGE_ID=586bd842bd7f465a8361b31da7661804 | grep -q cryptoprio"

# cryptoprioctl: the read-only inventory from /proc/crypto, said so.
err=$("$ctl" list 'cbc(aes)' 2>&1 >"$r/list.txt") || true
cat "$r/list.txt"
log "list stderr: $err"
check "list: read-only inventory from /proc/crypto, why, and what to do" \
	grep -q '^cryptoprioctl: read-only inventory from /proc/crypto: the kernel has no crypto_user (modprobe crypto_user; CONFIG_CRYPTO_USER)$' <<<"$err"
check "list: $cpu_cbc at its live priority" grep -qE "$cpu_cbc +cpu +$cpu_prio " "$r/list.txt"
"$ctl" status | tee "$r/status.txt"
check "status: the daemon is not running and why it stopped is recorded" bash -c \
	"grep -q '^Daemon: not running' '$r/status.txt' && grep -q 'Last error: .*no crypto_user.*Protocol not supported' '$r/status.txt'"
rc=0
"$ctl" --json status >"$r/status.json" || rc=$?
check "status: exit 1, verdict failed: the daemon's last run could not apply the policy" \
	test "$rc $(jget "$r/status.json" "d['verdict'], d['daemon']['last_run_failed']")" = "1 ('failed', True)"

# Again, with the priorities compared before and after: a restart of the
# unit and a --once run change nothing and end the same way.
priority_snapshot >"$r/prio-before.txt"
systemctl restart $svc 2>/dev/null || true
check "restart: ended successfully again" \
	test "$(unit_prop $svc ActiveState)/$(unit_prop $svc Result)/$(unit_prop $svc ExecMainStatus)" = inactive/success/0
rc=0
"$daemon" --once 2>"$r/once.err" || rc=$?
cat "$r/once.err"
check "--once: exit 0 (nothing to do)" test "$rc" = 0
check "--once: says crypto_user is unavailable" grep -q 'no crypto_user' "$r/once.err"
priority_snapshot >"$r/prio-after.txt"
check "priorities identical before and after ($(wc -l <"$r/prio-after.txt") implementations)" \
	priorities_as "$r/prio-before.txt"
check "crypto_user still not loaded" test ! -d /sys/module/crypto_user
