# The daemon killed (SIGKILL) in the middle of a plan of many steps leaves
# nothing that cannot be undone or finished: the state file shows the plan
# half done, `cryptoprioctl reset` restores every original priority, and
# (killed again) the next `cryptoprio-daemon --once` completes the plan
# with the originals of the first run kept.
#
# To land in the middle on a real kernel, the daemon runs under strace with
# every sendto() held DELAY_US at its exit (the UPDATEALG has reached the
# kernel by then, so the kill usually lands between a change and its record
# in the state file: the nastiest point). The state file is written after
# each step, so watching it tells when to kill.
ctl=$CP_BUILD/cli/cryptoprioctl
daemon=$CP_BUILD/daemon/cryptoprio-daemon
state=/run/cryptoprio/state.json
lock=/run/cryptoprio/lock
delay_us=500000
command -v strace >/dev/null || skip "strace not found (the host's is used)"
modprobe_q aesni_intel crypto_user
wait_for_driver cbc-aes-aesni

# Many steps on both kernels without calibration (so the plan is the same
# before and after a kill): pins for the generic C drivers (6.1 *-generic,
# 7.2 mostly *-lib) and for aesni's.
cat >/etc/cryptoprio.conf <<'CONF'
[Policy]
Calibrate = never

[Driver *-generic]
Priority = 41

[Driver *-lib]
Priority = 42

[Driver *aesni*]
Priority = 43
CONF
chmod 0644 /etc/cryptoprio.conf

# py SCRIPT ARGS...: python3 with json and sys imported.
py() { python3 -c "import json, sys; $1" "${@:2}"; }


"$ctl" --json plan >"$CP_RESULTS/plan.json"
"$ctl" plan | tee "$CP_RESULTS/plan.txt"
priority_snapshot >"$CP_RESULTS/before.txt"
n_steps=$(py 'print(len(json.load(open(sys.argv[1]))["steps"]))' "$CP_RESULTS/plan.json")
log "plan: $n_steps steps"
# Fewer steps and there is no "middle" worth the name: the scenario is void.
((n_steps >= 10)) || fail "the policy plans only $n_steps steps, need >= 10"

# originals_back: every implementation registered before anything ran has its
# priority of then. Template instances (a "(" in the driver name) may have
# been retired by the kernel when a part changed: gone is fine for them, a
# changed priority is not.
originals_back() {
	local bad
	priority_snapshot >/tmp/cp-now.txt
	bad=$(awk 'NR == FNR { now[$1] = $2; next }
		!($1 in now) { if ($1 !~ /\(/) print $1, $2, "GONE"; next }
		now[$1] != $2 { print $1, $2, now[$1] }' /tmp/cp-now.txt "$CP_RESULTS/before.txt") || return 1
	[[ -z $bad ]] && return 0
	printf 'driver before now:\n%s\n' "$bad"
	return 1
}

# count_done TEXT: n_done = the steps recorded "done" in a state file's TEXT
# ("done" is no other value there). Builtins only, no subshell, and no
# ${x//[^...]} (quadratic: seconds under TCG): the watcher must see the
# count soon enough to kill mid-plan.
count_done() {
	local rest=$1
	n_done=0
	while [[ $rest =~ \"done\"(.*) ]]; do
		n_done=$((n_done + 1))
		rest=${BASH_REMATCH[1]}
	done
}

# kill_mid_plan TAG N DAEMON-ARG...: start the daemon slowed down by strace,
# SIGKILL it once its plan (recognised by its pid) has N steps done; sets
# killed_pid. strace's trace goes to $CP_RESULTS/strace-TAG.txt.
kill_mid_plan() {
	local tag=$1 n=$2 spid pid="" text end
	shift 2
	rm -f /tmp/cp-daemon.pid
	strace -f -qq -e signal=none -e trace=sendto -e inject=sendto:delay_exit=$delay_us \
		-o "$CP_RESULTS/strace-$tag.txt" \
		bash -c 'echo $$ >"$0"; exec "$@"' /tmp/cp-daemon.pid "$daemon" "$@" \
		2>"$CP_RESULTS/daemon-$tag.err" &
	spid=$!
	end=$((SECONDS + 120))
	while ((SECONDS < end)); do
		[[ -n $pid || ! -s /tmp/cp-daemon.pid ]] || read -r pid </tmp/cp-daemon.pid
		text=
		[[ ! -e $state ]] || read -r -d '' text <$state || true
		count_done "$text"
		if [[ -n $pid && $text =~ \"pid\":\ ?${pid}[^0-9] ]] && ((n_done >= n)); then
			kill -KILL "$pid"
			break
		fi
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.05
	done
	wait "$spid" || true
	cp $state "$CP_RESULTS/state-killed-$tag.json"
	killed_pid=$pid
	count_done "$(cat $state)"
	log "killed pid ${pid:-?} after $n_done of $n_steps steps done (waited for $n)"
	if [[ -z $pid ]] || kill -0 "$pid" 2>/dev/null; then
		fail "the daemon was not killed"
	fi
}

# killed_mid_plan FILE PID: the state FILE holds PID's plan (the steps of
# `plan`), unfinished, some steps done and the rest pending, none failed,
# done ones a prefix; every done step is in the kernel, and of the pending
# ones at most the first (its sendto was held when the kill came).
killed_mid_plan() {
	priority_snapshot >/tmp/cp-now.txt
	py '
a = json.load(open(sys.argv[1]))["last_apply"]
plan = json.load(open(sys.argv[2]))["steps"]
now = dict(l.split() for l in open(sys.argv[4]))
res = [s["result"] for s in a["steps"]]
print("pid", a["pid"], "finished_at", a.get("finished_at"), "results", res)
assert a["pid"] == int(sys.argv[3]) and a["agent"] == "cryptoprio-daemon", a
assert not a.get("finished_at"), "the plan is recorded as finished"
assert [(s["driver"], s["new_priority"]) for s in a["steps"]] == \
       [(s["driver"], s["new_priority"]) for s in plan], "not the plan of `plan`"
k = res.count("done")
assert 0 < k < len(res) and res == ["done"] * k + ["pending"] * (len(res) - k), res
for i, s in enumerate(a["steps"]):
    p = int(now[s["driver"]])
    if s["result"] == "done" or i > k:
        want = s["new_priority"] if s["result"] == "done" else s["old_priority"]
        assert p == want, (s, p)
    else:
        assert p in (s["old_priority"], s["new_priority"]), (s, p)
' "$1" "$CP_RESULTS/plan.json" "$2" /tmp/cp-now.txt
}

# ---- 1. killed, then reset ----
# The daemon as a service runs it (not --once): killed during its start.
kill_mid_plan reset 3
check "kill 1: the state file shows the plan half done" \
	killed_mid_plan "$CP_RESULTS/state-killed-reset.json" "$killed_pid"
pending=$(grep -cE '"result": ?"pending"' $state || true)
"$ctl" status | tee "$CP_RESULTS/status-killed.txt"
check "kill 1: status says the plan was interrupted ($pending pending)" \
	grep -q "^Interrupted: $pending steps not recorded as done" "$CP_RESULTS/status-killed.txt"
# flock, not a pid file: the dead holder's lock is gone with it.
check "kill 1: the lock is free" flock -n -E 99 $lock true
check "kill 1: the originals of every step are recorded" py '
s = json.load(open(sys.argv[1])); before = dict(l.split() for l in open(sys.argv[2]))
orig = {o["driver"]: o["priority"] for o in s["originals"]}
for st in s["last_apply"]["steps"]:
    assert orig.get(st["driver"]) == int(before[st["driver"]]), (st["driver"], orig.get(st["driver"]))
' $state "$CP_RESULTS/before.txt"

rc=0
"$ctl" --json reset >"$CP_RESULTS/reset.json" || rc=$?
check "reset after the kill exits 0" test "$rc" = 0
check "reset restores each step's driver" py '
r = json.load(open(sys.argv[1]))["reset"]; plan = json.load(open(sys.argv[2]))["steps"]
assert {x["driver"] for x in r if x["result"] == "restored"} >= {s["driver"] for s in plan}, r
' "$CP_RESULTS/reset.json" "$CP_RESULTS/plan.json"
check "reset after the kill: every original priority is back" originals_back
check "reset after the kill: nothing left to reset" \
	bash -c '"$1" reset | grep -q "Nothing to reset"' _ "$ctl"

# ---- 2. killed, then the next start ----
kill_mid_plan restart 5 --once
check "kill 2: the state file shows the plan half done" \
	killed_mid_plan "$CP_RESULTS/state-killed-restart.json" "$killed_pid"
rc=0
"$daemon" --once 2>"$CP_RESULTS/once.err" || rc=$?
cat "$CP_RESULTS/once.err"
cp $state "$CP_RESULTS/state-restart.json"
check "the next --once exits 0" test "$rc" = 0
check "the next --once: 0 failed" \
	grep -qE '^cryptoprio-daemon: Policy (applied \(start\): [0-9]+ changed, 0 failed|in force)' \
	"$CP_RESULTS/once.err"
priority_snapshot >/tmp/cp-now.txt
check "after the restart every driver of the plan has its planned priority" py '
plan = json.load(open(sys.argv[1]))["steps"]; now = dict(l.split() for l in open(sys.argv[2]))
bad = [(s["driver"], s["new_priority"], now.get(s["driver"])) for s in plan
       if now.get(s["driver"]) != str(s["new_priority"])]
assert not bad, bad
' "$CP_RESULTS/plan.json" /tmp/cp-now.txt
check "state: the restart finished its plan, every step done" py '
s = json.load(open(sys.argv[1])); a = s["last_apply"]
plan = {x["driver"]: x["new_priority"] for x in json.load(open(sys.argv[2]))["steps"]}
print("restart:", [(x["driver"], x["result"]) for x in a["steps"]])
assert a["agent"] == "cryptoprio-daemon" and a["pid"] != int(sys.argv[3]), a
assert a["finished_at"] >= a["started_at"] > 0, a
assert a["steps"] and all(x["result"] == "done" for x in a["steps"]), a["steps"]
assert all(plan.get(x["driver"]) == x["new_priority"] for x in a["steps"]), "a step not in the plan"
' $state "$CP_RESULTS/plan.json" "$killed_pid"
check "state: the originals are those before any run, not the half-applied ones" py '
s = json.load(open(sys.argv[1])); before = dict(l.split() for l in open(sys.argv[2]))
plan = json.load(open(sys.argv[3]))["steps"]
orig = {o["driver"]: o["priority"] for o in s["originals"]}
bad = [(p["driver"], orig.get(p["driver"]), before[p["driver"]]) for p in plan
       if orig.get(p["driver"]) != int(before[p["driver"]])]
assert not bad, bad
' $state "$CP_RESULTS/before.txt" "$CP_RESULTS/plan.json"
"$ctl" status | tee "$CP_RESULTS/status-restart.txt"
check "status: not interrupted any more" bash -c '! grep -q "^Interrupted" "$1"' _ "$CP_RESULTS/status-restart.txt"
"$ctl" --json plan >"$CP_RESULTS/plan-after.json"
check "plan after the restart: nothing left to change" \
	test "$(py 'print(len(json.load(open(sys.argv[1]))["steps"]))' "$CP_RESULTS/plan-after.json")" = 0
rc=0
"$ctl" reset >/dev/null || rc=$?
check "reset after kill + restart exits 0" test "$rc" = 0
check "reset after kill + restart: every original priority is back" originals_back
