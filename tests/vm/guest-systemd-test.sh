# shellcheck shell=bash
# ExecStart of cp-vm-test.service (scenarios under systemd): runs the
# scenario as guest-run.sh does in the plain mode, stores its exit code, the
# guest's dmesg and journal in the results share, and powers the VM off.
V=$CP_RESULTS/.vm
cat /proc/uptime >"$V/uptime-start"
rc=0
/bin/bash -eu "$CP_SRC/tests/vm/guest-run.sh" "$CP_SCENARIO_FILE" \
	</dev/null >"$V/output.log" 2>&1 || rc=$?
echo "$rc" >"$V/rc"
cat /proc/uptime >"$V/uptime-end"
dmesg >"$V/dmesg.txt" 2>/dev/null
journalctl -b -o short-monotonic --no-pager >"$V/journal.txt" 2>&1
systemctl list-units --failed --no-pager >"$V/failed-units.txt" 2>&1
echo "cp-vm: scenario $CP_SCENARIO exited with $rc" >/dev/console
sync
echo o >/proc/sysrq-trigger
sleep 30
