# crypto_user unavailable at boot: priorities cannot be changed, only read
# from /proc/crypto. cryptoprio-daemon(8): the first run fails before
# changing anything, so the daemon exits 1 and the unit fails (visible in
# systemctl --failed, not restarted in a loop); the boot goes on, since
# sysinit.target only Wants it. It says why in the journal (crypto_user
# named, with the kernel's error), nothing is changed (also not by a
# restart or a --once run), `cryptoprioctl list` reads the read-only
# inventory from /proc/crypto, and `status` shows the daemon's error.
svc=cryptoprio.service
r=$CP_RESULTS

check "crypto_user is not loaded" test ! -d /sys/module/crypto_user
check "modprobe crypto_user is refused" not modprobe crypto_user
check "$cpu_aes_module was loaded at boot ($cpu_cbc there)" wait_for_driver "$cpu_cbc" 30
cpu_prio=$(proc_crypto_prio "$cpu_cbc")
log "$cpu_cbc at $cpu_prio"
check "nothing changed at boot: $cpu_cbc not at the policy's 1234" test "$cpu_prio" != 1234

# The unit: failed with the documented exit status 1, once.
systemctl show -p ActiveState,SubState,Result,ExecMainStatus,NRestarts $svc | tee "$r/unit.txt"
check "$svc failed (Result=exit-code, status 1)" \
	test "$(unit_prop $svc ActiveState)/$(unit_prop $svc Result)/$(unit_prop $svc ExecMainStatus)" = failed/exit-code/1
check "$svc was not restarted" test "$(unit_prop $svc NRestarts)" = 0
check "$svc is listed by systemctl --failed" bash -c "systemctl --failed --no-legend | grep -q $svc"

# The boot went on: sysinit.target and basic.target (Wants only), and the
# runner's target (this scenario runs from it).
for t in sysinit.target basic.target; do
	check "$t is active" test "$(unit_prop $t ActiveState)" = active
done
check "cp-vm.target reached" bash -c \
	'for _ in $(seq 60); do [[ $(systemctl show -p ActiveState --value cp-vm.target) == active ]] && exit 0; sleep 0.5; done; exit 1'
log "system state: $(systemctl is-system-running 2>&1 || true)"

# The journal says why: an error naming crypto_user, with the errno text.
journalctl -b -u $svc --no-pager -o with-unit | tee "$r/journal.txt"
journalctl -b -u $svc --no-pager -p err -o cat >"$r/journal-err.txt"
check "journal: an error with the kernel's reason (Protocol not supported)" \
	grep -q 'Protocol not supported' "$r/journal-err.txt"
check "journal: the error names crypto_user (what is missing, not only the errno)" \
	grep -q 'crypto_user' "$r/journal-err.txt"
check "journal: no priority was logged as changed" bash -c \
	"! journalctl -b -u $svc --no-pager MESSAGE_ID=586bd842bd7f465a8361b31da7661804 | grep -q cryptoprio"

# cryptoprioctl: the read-only inventory from /proc/crypto, said so.
err=$("$ctl" list 'cbc(aes)' 2>&1 >"$r/list.txt") || true
cat "$r/list.txt"
log "list stderr: $err"
check "list: crypto_user unavailable, read-only inventory from /proc/crypto" \
	grep -q 'crypto_user unavailable (.*), read-only inventory from /proc/crypto' <<<"$err"
check "list: $cpu_cbc at its live priority" grep -qE "$cpu_cbc +cpu +$cpu_prio " "$r/list.txt"
"$ctl" status | tee "$r/status.txt"
check "status: the daemon is not running and its error is recorded" bash -c \
	"grep -q '^Daemon: not running' '$r/status.txt' && grep -q 'Last error: .*Protocol not supported' '$r/status.txt'"

# Again, with the priorities compared before and after: a restart of the
# unit and a --once run change nothing and fail the same way.
priority_snapshot >"$r/prio-before.txt"
systemctl restart $svc 2>/dev/null || true
check "restart: failed again" test "$(unit_prop $svc ActiveState)/$(unit_prop $svc ExecMainStatus)" = failed/1
rc=0
"$daemon" --once 2>"$r/once.err" || rc=$?
cat "$r/once.err"
check "--once: exit 1" test "$rc" = 1
check "--once: says crypto_user is unavailable" grep -q 'crypto_user' "$r/once.err"
priority_snapshot >"$r/prio-after.txt"
check "priorities identical before and after ($(wc -l <"$r/prio-after.txt") implementations)" \
	priorities_as "$r/prio-before.txt"
check "crypto_user still not loaded" test ! -d /sys/module/crypto_user
