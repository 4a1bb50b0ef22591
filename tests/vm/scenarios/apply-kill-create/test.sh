# apply killed (SIGKILL) after it recorded a create in the state file and
# before the NEWALG reached the kernel: the state file then lists an
# instance that does not exist. Nothing may trip over it:
#   - status still answers;
#   - the next apply forgets it, creates the CPU's instance for real,
#     records it once, and a new SA is built on it;
#   - reset removes what exists and leaves the kernel's list as before.
# To land there, apply runs under strace with every sendto() held
# DELAY_US at its entry (the request has not reached the kernel yet); the
# state file is written just before the first step, so the kill follows
# the first state file that lists a created instance.
#
# Kernel-dependent (the module creating and removing instances): every
# kernel through the rotation.
r=$CP_RESULTS
delay_us=6000000 # 2 s was overtaken with four VMs on two CPUs: the poll, then the kill
needs_strace
modprobe_q "$cpu_aes_module" crypto_user xfrm_user esp4 authenc echainiv
for m in cbc ctr ecb seqiv crypto-sha256 crypto-hmac; do
	modprobe -q "$m" || log "modprobe $m failed (built in?)"
done

E='echainiv(authenc(hmac(sha256),cbc(aes)))'
eng_e=echainiv-authenc-hmac-sha256-cbc-aes-cp-caam
printf '[Policy]\nCalibrate = never\n' >/etc/cryptoprio.conf
lists_created() { [[ -n $(state_created "$state") ]]; }

base=$(dmesg | wc -l)
check "insmod cp_caam_engine.ko" insmod "$CP_KMOD/cp_caam_engine.ko"
check "the engine's echainiv passed its self-test" wait_for_driver $eng_e 120
wait_for_selftests cp_caam_engine 120 || true
check "the engine's echainiv is the only one" test "$(first_of "$E")" = $eng_e
drivers_now >"$r/drivers-before.txt"
priority_snapshot >"$r/prio-before.txt"
"$ctl" --json plan >"$r/plan.json"
cpu_e=$(jget "$r/plan.json" "[s['driver'] for s in d['steps'] if s['action'] == 'create' and s['algorithm'] == '$E'][0]")
log "planned: create $cpu_e"
log "first step: $(jget "$r/plan.json" "d['steps'][0]['action'] + ' ' + d['steps'][0]['driver']")"

# 1. apply under strace, killed once the state file lists a create
rm -f "$state"
slow_sendto enter $delay_us "$r/strace.txt" "$ctl" apply >"$r/apply-killed.txt" 2>&1 &
tracer=$!
check "the state file lists a create before any NEWALG" wait_until 60 lists_created
# $ctl execs the build's cryptoprioctl (tests/vm/ctl-keep-json): its pid is the one to kill.
pid=$(pgrep -f "^$CP_BUILD/cli/cryptoprioctl apply" | head -n1)
check "apply is still running" test -n "$pid"
kill -KILL "$pid"
wait "$tracer" 2>/dev/null || true
cp "$state" "$r/state-killed.json"
created_killed=$(state_created "$state")
log "the state file lists as created: $created_killed"
check "the state file lists $cpu_e as created" grep -qw -- "$cpu_e" <<<"$created_killed"
check "the kernel has no $cpu_e" lacks_driver "$cpu_e"
check "the killed apply changed no priority" priorities_as "$r/prio-before.txt"

# 2. status and the next apply
rc=0
"$ctl" status >"$r/status.txt" 2>&1 || rc=$?
check "status answers: 1, the killed apply's run failed" test "$rc" = 1
check "status: the verdict says so" grep -q '^Verdict: failed' "$r/status.txt"
rc=0
"$ctl" --json apply >"$r/apply.json" || rc=$?
jget "$r/apply.json" "'\n'.join('%s %s %s %s' % (s['action'], s['driver'], s['result'], s['message']) for s in d['steps'])"
check "the next apply exits 0" test $rc = 0
check "the next apply: every step done" \
	test "$(jget "$r/apply.json" "all(s['result'] == 'done' for s in d['steps'])")" = True
check "$cpu_e is registered now" has_driver "$cpu_e"
check "$E: the kernel hands out the CPU's" test "$(first_of "$E")" = "$cpu_e"
check "the state file lists each created instance once" test \
	"$(jget "$state" "len(d['created']) == len(set(c['driver'] for c in d['created']))")" = True
check "the state file lists $cpu_e" grep -qw -- "$cpu_e" <<<"$(state_created "$state")"
check "a new SA is built on it" sa_on "$cpu_e" 0x300
ip xfrm state flush
check "the SA let go of $cpu_e" wait_until 20 test "$(refcnt "$cpu_e")" -le 1

# 3. reset: the kernel's list as before
"$ctl" reset >"$r/reset.txt" 2>&1 || true
cat "$r/reset.txt"
check "reset: the state file lists nothing created" test -z "$(state_created "$state")"
check "reset: $cpu_e is gone" lacks_driver "$cpu_e"
check "reset: every priority as before" priorities_as "$r/prio-before.txt"
check "reset: the engine's echainiv is handed out" test "$(first_of "$E")" = $eng_e
check "rmmod cp_caam_engine" wait_until 20 rmmod cp_caam_engine
dmesg | tail -n +"$((base + 1))" >"$r/dmesg.txt"
check "kernel log: no oops, BUG or warning" \
	kernel_log_clean "$r/dmesg.txt"
