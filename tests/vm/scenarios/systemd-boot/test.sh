# systemd as PID 1: cryptoprio.service starts before cryptsetup-pre.target,
# network-pre.target and sysinit.target, is active with a status text, runs
# with its sandbox, logs one journal entry with the CRYPTOPRIO_* fields per
# changed driver, and `cryptoprioctl status` reports it.
#
# In CI on 6.1, Debian 12's kernel; systemd behaves the same on 7.2 and
# arm64 (scripts/test --full): by rotation.
svc=cryptoprio.service
systemctl show "$svc" >"$CP_RESULTS/unit-properties.txt"
check "cryptoprio.service is active (running)" \
	test "$(unit_prop $svc ActiveState)/$(unit_prop $svc SubState)" = active/running
status=$(unit_prop $svc StatusText)
log "StatusText: $status"
check "StatusText says what the daemon did" grep -qE '^Policy (applied|in force) \(' <<<"$status"
check "cryptoprio.service is not in systemctl --failed" \
	bash -c "! systemctl --failed --no-legend | grep -q cryptoprio"

# Ordering: became active before the targets it must precede.
ours=$(unit_prop $svc ActiveEnterTimestampMonotonic)
for t in cryptsetup-pre.target network-pre.target sysinit.target; do
	theirs=$(unit_prop "$t" ActiveEnterTimestampMonotonic)
	log "$svc active at $ours us, $t at $theirs us"
	check "$svc active before $t" test "$ours" -gt 0 -a "$theirs" -gt "$ours"
done
check "after systemd-modules-load.service" bash -c \
	"[[ \$(systemctl show -p InactiveExitTimestampMonotonic --value $svc) -ge \
	    \$(systemctl show -p ActiveEnterTimestampMonotonic --value systemd-modules-load.service) ]]"
# The cryptoprio module is loaded by the kernel when the daemon first looks
# up its netlink family to measure (its alias, install_cryptoprio_module),
# not at boot: while the daemon has measured nothing, it is not there.
# "0 measured" at READY is not enough: a name the budget left for after
# READY, or one that a module loaded at boot made compete (udev's
# coldplug, where the root has udev), is measured later, and the module
# is loaded then, as on a real machine.
$ctl --json status >"$CP_RESULTS/status-daemon.json" || true
measured_none=$(jget "$CP_RESULTS/status-daemon.json" \
	"d['daemon']['runs'] == 1 and d['daemon']['last_measured'] == 0 and not d['daemon']['pending']")
log "the daemon's runs, measured, pending: $(jget "$CP_RESULTS/status-daemon.json" \
	"(d['daemon']['runs'], d['daemon']['last_measured'], d['daemon']['pending'])")"
if [[ -f $CP_KMOD/cryptoprio.ko && $status == *" 0 measured"* && $measured_none == True ]]; then
	check "the cryptoprio module not loaded while nothing was measured" \
		test ! -d /sys/module/cryptoprio
fi

# The sandbox is in force on the running daemon, and it worked under it.
pid=$(unit_prop $svc MainPID)
grep -E '^(CapBnd|CapEff|NoNewPrivs|Seccomp):' "/proc/$pid/status" | tee "$CP_RESULTS/daemon-status.txt"
check "capability bounding set is CAP_NET_ADMIN only" \
	grep -qE '^CapBnd:\s+0+1000$' "/proc/$pid/status"
check "no new privileges" grep -qE '^NoNewPrivs:\s+1$' "/proc/$pid/status"
check "seccomp filter on" grep -qE '^Seccomp:\s+2$' "/proc/$pid/status"
check "the daemon sees / read-only (ProtectSystem=strict)" \
	grep -qE '^[^ ]+ / [^ ]+ ro[, ]' "/proc/$pid/mounts"
# Classification reads each module's path from the module index: the
# sandbox keeps /lib/modules readable (ProtectKernelModules= would hide it).
check "the daemon can read the module index" \
	nsenter -t "$pid" -m test -r "/lib/modules/$(uname -r)/modules.dep.bin"
systemd-analyze security --no-pager $svc >"$CP_RESULTS/security.txt" 2>&1 || true
tail -n 1 "$CP_RESULTS/security.txt"
check "systemd-analyze verify of the installed unit is clean" bash -c \
	"out=\$(systemd-analyze verify --man=no /etc/systemd/system/$svc 2>&1); echo \"\$out\"; [[ -z \$out ]]"

# The engine's module loaded now (the host root has no udevd to coldplug
# it): the daemon sees the module event and applies the policy.
modprobe_q virtio_crypto
check "virtio_crypto_aes_cbc at the policy's 1234" wait_for_prio virtio_crypto_aes_cbc 1234 30
# MetricsFile=, written after that run under ProtectSystem=strict: the
# unit's ReadWritePaths= has node_exporter's directory.
metrics_after_event() {
	grep -qx 'cryptoprio_winner_priority{name="cbc(aes)",driver="virtio_crypto_aes_cbc",class="offload"} 1234' \
		/var/lib/prometheus/node-exporter/cryptoprio.prom
}
check "the daemon wrote MetricsFile= after the module event's run" wait_until 10 metrics_after_event

# Journal: one entry per changed driver, with every field. The daemon logs
# a change after making it and journald stores it a little later: the
# check is tried again for a while.
journal_entries() {
	journalctl -b -u $svc -o json --no-pager >"$CP_RESULTS/journal.json"
	python3 - "$CP_RESULTS/journal.json" <<'PY'
import json, sys, collections
entries = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
changed = [e for e in entries if e.get("MESSAGE_ID") == "586bd842bd7f465a8361b31da7661804"]
assert changed, "no priority-changed entries"
fields = ["CRYPTOPRIO_DRIVER", "CRYPTOPRIO_ALGORITHM", "CRYPTOPRIO_OLD_PRIORITY",
          "CRYPTOPRIO_NEW_PRIORITY", "CRYPTOPRIO_REASON"]
for e in changed:
    missing = [f for f in fields if not e.get(f)]
    assert not missing, (e["MESSAGE"], missing)
    assert e["CRYPTOPRIO_OLD_PRIORITY"] != e["CRYPTOPRIO_NEW_PRIORITY"], e["MESSAGE"]
# One entry per driver per run: no driver twice within the entries of one run.
runs = collections.Counter((e["_PID"], e["CRYPTOPRIO_TRIGGER"], e["__REALTIME_TIMESTAMP"][:-6],
                            e["CRYPTOPRIO_DRIVER"]) for e in changed)
assert max(runs.values()) == 1, runs
# Every entry a step that really changed a priority: the last one per driver
# is what /proc/crypto shows now.
prio = {}
drv = None
for line in open("/proc/crypto"):
    k, _, v = line.partition(":")
    k, v = k.strip(), v.strip()
    if k == "driver": drv = v
    elif k == "priority" and drv not in prio: prio[drv] = v
last = {e["CRYPTOPRIO_DRIVER"]: e for e in changed}
for d, e in last.items():
    assert prio.get(d) == e["CRYPTOPRIO_NEW_PRIORITY"], (d, prio.get(d), e["MESSAGE"])
v = last.get("virtio_crypto_aes_cbc")
assert v and v["CRYPTOPRIO_NEW_PRIORITY"] == "1234" and v["CRYPTOPRIO_ALGORITHM"] == "cbc(aes)", v
print(len(changed), "entries for", len(last), "drivers")
PY
}
check "journal: one entry per changed driver, the fields complete and current" \
	wait_until 15 journal_entries
journalctl -b -u $svc --no-pager | tee "$CP_RESULTS/journal.txt"

# cryptoprioctl status: the daemon's part.
"$ctl" status | tee "$CP_RESULTS/status.txt"
check "status: daemon running with the unit active" \
	grep -qE "^Daemon: running \(pid $pid, $svc active\)" "$CP_RESULTS/status.txt"
"$ctl" --json status >"$CP_RESULTS/status.json"
check "status --json: daemon running, pid, unit state, ready time" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["daemon"]
assert d["running"] is True and d["pid"] == int(sys.argv[2]), d
assert d["unit"]["active_state"] == "active" and d["ready_at"] > 0 and d["runs"] >= 1, d
' "$CP_RESULTS/status.json" "$pid"
cp "$state" "$CP_RESULTS/" || true

# What the budget leaves is measured after READY at SCHED_IDLE; after each
# name the daemon goes back to its normal policy, which without
# CAP_SYS_NICE takes the unit's LimitNICE=. With a 1 ms budget and a cold
# cache, the CPU's AES module loaded now brings names to measure (on 7.2
# several drivers per name; 6.1's registers one per name, so nothing may
# be left there).
pending_done() {
	py 'd = json.load(open(sys.argv[1]))["daemon"]
assert not d.get("pending"), d.get("pending")' "$state"
}
since=$(date '+%Y-%m-%d %H:%M:%S')
mkdir -p /etc/cryptoprio.conf.d
printf '[Policy]\nCalibrationBudget = 1ms\n' >/etc/cryptoprio.conf.d/90-budget.conf
chmod 0644 /etc/cryptoprio.conf.d/90-budget.conf
rm -f "$cache"
systemctl reload $svc
modprobe_q "$cpu_aes_module" "$cpu_gcm_module"
measured_after_ready() {
	journalctl -u $svc --since "$since" --no-pager >"$CP_RESULTS/journal-after.txt"
	grep -q 'Nothing left to measure' "$CP_RESULTS/journal-after.txt"
}
if [[ $CP_KVER_ALIAS == 7.2 ]]; then
	check "7.2: names measured after READY" wait_until 180 measured_after_ready
else
	wait_until 20 measured_after_ready || log "nothing was left after READY"
fi
check "nothing pending in the end" wait_until 180 pending_done
if grep -q 'Nothing left to measure' "$CP_RESULTS/journal-after.txt"; then
	if [[ -f $CP_KMOD/cryptoprio.ko ]]; then
		check "measuring loaded the cryptoprio module (the kernel, by its family's alias)" \
			test -d /sys/module/cryptoprio
		check "and calibrated through it, not AF_ALG" \
			not grep -q 'Calibrating through AF_ALG' "$CP_RESULTS/journal-after.txt"
	fi
	check "the daemon is back to SCHED_OTHER after its runs at SCHED_IDLE" \
		py 'assert os.sched_getscheduler(int(sys.argv[1])) == os.SCHED_OTHER' "$pid"
	check "no failure to leave idle priority" \
		not grep -q 'Failed to leave idle priority' "$CP_RESULTS/journal-after.txt"
fi
rm /etc/cryptoprio.conf.d/90-budget.conf

# SIGTERM: a clean exit.
systemctl stop $svc
check "stopped cleanly (Result=success)" test "$(unit_prop $svc Result)" = success
check "status: daemon no longer running" bash -c "'$ctl' status | grep -q '^Daemon: not running'"
