# The daemon killed (SIGKILL) in the middle of a plan of many steps leaves
# nothing that cannot be undone or finished: the state file shows the
# record written before the first change (the plan pending, not finished,
# with the originals) while the kernel has the first steps made,
# `cryptoprioctl reset` restores every original priority, and (killed
# again) the next `cryptoprio-daemon --once` completes the plan with the
# originals of the first run kept.
#
# To land in the middle on a real kernel, the daemon runs under strace with
# every sendto() held DELAY_US at its exit (the UPDATEALG has reached the
# kernel by then, so the kill lands after a change and before the results
# are recorded: the nastiest point). The state file is written before the
# first step and after the last, not in between: the watcher waits for the
# daemon's record in it, then counts the sendto() calls strace saw complete
# since (one per step) to tell when to kill.
#
# Depends only on cryptoprio (killed runs and the state file): not in CI's
# matrix, by rotation.
delay_us=500000
needs_strace
modprobe_q "$cpu_aes_module" crypto_user
wait_for_driver "$cpu_cbc"

# Many steps without calibration: the plan is the same before and after a kill.
pins_policy /etc/cryptoprio.conf 40


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

# count_sendto FILE: n_sent = the sendto() calls strace's output FILE shows
# completed: "PID sendto(...) = RESULT", or "PID <... sendto resumed>) =
# RESULT" after another task's call came in between; an "<unfinished ...>"
# line, or a last line strace has not finished writing, does not count.
# Builtins only, no subshell: the watcher must see the count soon enough to
# kill mid-plan.
count_sendto() {
	local line
	n_sent=0
	[[ -e $1 ]] || return 0
	while IFS= read -r line; do
		[[ $line == *sendto*') = '* ]] && n_sent=$((n_sent + 1))
	done <"$1"
}

# kill_mid_plan TAG N DAEMON-ARG...: start the daemon slowed down by strace,
# SIGKILL it once N sendto() calls (N steps) completed after its plan was
# recorded in the state file (recognised by its pid: the daemon writes its
# own record, also with its pid, only after the run); sets killed_pid.
# strace's trace goes to $CP_RESULTS/strace-TAG.txt. The sendto() calls
# before the record are the inventory's; the record is written just before
# the first step, so the count taken when the watcher sees it may already
# hold that step: the kill then comes one step later, still mid-plan.
kill_mid_plan() {
	local tag=$1 n=$2 spid pid="" text end base="" trace="$CP_RESULTS/strace-$1.txt"
	shift 2
	rm -f /tmp/cp-daemon.pid
	slow_sendto exit $delay_us "$trace" \
		bash -c 'echo $$ >"$0"; exec "$@"' /tmp/cp-daemon.pid "$daemon" "$@" \
		2>"$CP_RESULTS/daemon-$tag.err" &
	spid=$!
	end=$((SECONDS + 120))
	while ((SECONDS < end)); do
		[[ -n $pid || ! -s /tmp/cp-daemon.pid ]] || read -r pid </tmp/cp-daemon.pid
		if [[ -z $base && -n $pid && -e $state ]]; then
			text=
			read -r -d '' text <$state || true
			if [[ $text =~ \"pid\":\ ?${pid}[^0-9] ]]; then
				count_sendto "$trace"
				base=$n_sent
			fi
		fi
		if [[ -n $base ]]; then
			count_sendto "$trace"
			if ((n_sent - base >= n)); then
				kill -KILL "$pid"
				break
			fi
		fi
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.05
	done
	wait "$spid" || true
	cp $state "$CP_RESULTS/state-killed-$tag.json"
	killed_pid=$pid
	count_sendto "$trace"
	log "killed pid ${pid:-?} after $((n_sent - ${base:-0})) sendto() since its record was" \
		"written (waited for $n; $n_sent in all; $n_steps steps planned)"
	if [[ -z $pid ]] || kill -0 "$pid" 2>/dev/null; then
		fail "the daemon was not killed"
	fi
}

# recorded_before_change FILE PID: the state FILE holds PID's plan (the
# steps of `plan`) as written before its first change: unfinished, every
# step pending (the results are written once, after the last step).
recorded_before_change() {
	py '
a = json.load(open(sys.argv[1]))["last_apply"]
plan = json.load(open(sys.argv[2]))["steps"]
res = [s["result"] for s in a["steps"]]
print("pid", a["pid"], "finished_at", a.get("finished_at"), "results", res)
assert a["pid"] == int(sys.argv[3]) and a["agent"] == "cryptoprio-daemon", a
assert not a.get("finished_at"), "the plan is recorded as finished"
assert [(s["driver"], s["new_priority"]) for s in a["steps"]] == \
       [(s["driver"], s["new_priority"]) for s in plan], "not the plan of `plan`"
assert res == ["pending"] * len(res), res
' "$1" "$CP_RESULTS/plan.json" "$2"
}

# kernel_mid_plan: the kernel has the first steps of `plan` made and the
# others not: at least one made, not all, and the made ones a prefix (in
# the order of the plan). A step whose priority does not change tells
# nothing and is left out.
kernel_mid_plan() {
	priority_snapshot >/tmp/cp-now.txt
	py '
plan = json.load(open(sys.argv[1]))["steps"]
now = dict(l.split() for l in open(sys.argv[2]))
made = []
for s in plan:
    p = int(now[s["driver"]])
    assert p in (s["old_priority"], s["new_priority"]), (s, p)
    if s["old_priority"] != s["new_priority"]:
        made.append(p == s["new_priority"])
k = made.count(True)
print("kernel:", k, "of", len(made), "steps made:", made)
assert 0 < k < len(made), "the kill did not land mid-plan"
assert made == [True] * k + [False] * (len(made) - k), "the steps made are not a prefix"
' "$CP_RESULTS/plan.json" /tmp/cp-now.txt
}

# ---- 1. killed, then reset ----
# The daemon as a service runs it (not --once): killed during its start.
kill_mid_plan reset 3
check "kill 1: the kernel has the plan half done" kernel_mid_plan
check "kill 1: the state file shows the plan recorded before the first change" \
	recorded_before_change "$CP_RESULTS/state-killed-reset.json" "$killed_pid"
pending=$(grep -cE '"result": ?"pending"' $state || true)
"$ctl" status | tee "$CP_RESULTS/status-killed.txt"
check "kill 1: status says the plan was interrupted ($pending pending)" \
	grep -q "^Interrupted: $pending steps\? not recorded as done" "$CP_RESULTS/status-killed.txt"
rc=0
"$ctl" --json status >"$CP_RESULTS/status-killed.json" || rc=$?
check "kill 1: status exits 1, the last run failed (--json: verdict failed)" \
	test "$rc $(jget "$CP_RESULTS/status-killed.json" "d['verdict']")" = "1 failed"
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
check "kill 2: the kernel has the plan half done" kernel_mid_plan
check "kill 2: the state file shows the plan recorded before the first change" \
	recorded_before_change "$CP_RESULTS/state-killed-restart.json" "$killed_pid"
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
check "status: not interrupted any more" not grep -q "^Interrupted" "$CP_RESULTS/status-restart.txt"
"$ctl" --json plan >"$CP_RESULTS/plan-after.json"
check "plan after the restart: nothing left to change" \
	test "$(py 'print(len(json.load(open(sys.argv[1]))["steps"]))' "$CP_RESULTS/plan-after.json")" = 0
rc=0
"$ctl" reset >/dev/null || rc=$?
check "reset after kill + restart exits 0" test "$rc" = 0
check "reset after kill + restart: every original priority is back" originals_back
