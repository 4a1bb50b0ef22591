# The calibration verifies engines (cryptoprio.conf(5), Verify=): under a
# policy that prefers them, an engine whose known answer is right but
# which fails verification is faulty and placed last, in calibrate's
# table and JSON, the plan's reason; once it answers right it passes,
# keeps its place, and the pass is kept in the cache for the next
# calibration; a case that never completes there is a timeout, its
# request kept until the engine completes it. The module's VERIFY itself:
# module-verify.
#
# In CI on 7.2.
p=/sys/module/cp_test_engine/parameters
r=$CP_RESULTS
drv=cp_test_engine_cbc_aes
load_test_engine "$drv"
base=$(dmesg | wc -l)

# engine_field_all FILE EXPR: EXPR of i, the engine's entry in calibrate's FILE.
engine_field_all() {
	jget "$1" "(lambda i: ($2))([i for a in d['algorithms'] for i in a['implementations'] if i['driver'] == '$drv'][0])"
}

# The calibration verifies engines (cryptoprio.conf(5)): under a policy
# that prefers them, an engine whose known answer is right but which fails
# verification is faulty and placed last, in calibrate's table and JSON,
# the plan's reason; once it answers right it passes, keeps its place,
# and the pass is kept in the cache for the next calibration.
mkdir -p /run/cp-test
pol=/run/cp-test/offload-first.conf
printf '[Policy]\nGears = offload cpu\nCalibrationBudget = 30s\n' >$pol
# The plans: from what calibrate left in the cache, or (a failure is not
# cached) verifying again, cbc(aes) measured within a short budget: the
# other names the engine serves are not the subject.
plan_pol=/run/cp-test/plan-offload-first.conf cached_pol=/run/cp-test/cached-offload-first.conf
printf '[Policy]\nGears = offload cpu\nCalibrationBudget = 5s\n' >$plan_pol
printf '[Policy]\nGears = offload cpu\nCalibrate = cached\n' >$cached_pol
chmod 0644 $pol $plan_pol $cached_pol
# verification FILE EXPR: EXPR of the engine's "verification" in FILE.
verification() {
	jget "$1" "(lambda v: ($2))([i for a in d['algorithms'] for i in a['implementations'] if i['driver'] == '$drv'][0]['verification'])"
}
# place_of FILE: the engine's "reason why" in FILE's plan of cbc(aes), and
# whether it comes last.
place_of() {
	jget "$1" "(lambda p: '%s %s' % ([x['reason'] for x in p if x['driver'] == '$drv'][0], p[-1]['driver'] == '$drv'))([a for a in d['algorithms'] if a['name'] == 'cbc(aes)'][0]['places'])"
}
echo key192 >"$p/mode"
"$ctl" -c $pol calibrate --json --force --size 4K 'cbc(aes)' >"$r/calibrate-key192.json" || true
"$ctl" -c $pol calibrate --force --size 4K 'cbc(aes)' >"$r/calibrate-key192.txt" || true
cat "$r/calibrate-key192.txt"
check "mode key192: calibrate verifies the engine: failed, a case of its seed" \
	test "$(verification "$r/calibrate-key192.json" "v['verdict'], v['cached'], bool(__import__('re').match(r'case [0-9]+ of seed %d: ' % v['seed'], v['failure']))")" = \
	"('failed', False, True)"
check "mode key192: its known answer ok, its points faulty" \
	test "$(engine_field_all "$r/calibrate-key192.json" "i['known_answer'], set(p['verdict'] for p in i['points'])")" = \
	"('ok', {'faulty'})"
check "mode key192: the table says verification failed, faulty" \
	grep -q "^$drv: verification against .* failed, case [0-9]* of seed [0-9]*: .*: faulty\.$" "$r/calibrate-key192.txt"
"$ctl" -c $plan_pol plan --json >"$r/plan-key192.json" || true
check "mode key192: the plan puts the engine last, faulty, for the failed verification" \
	test "$(place_of "$r/plan-key192.json")" = "faulty True"
check "mode key192: the plan's why names the failing case" \
	test "$(jget "$r/plan-key192.json" "[x for a in d['algorithms'] for x in a['places'] if x['driver'] == '$drv'][0]['why'].startswith('verification failed: never preferred (case ')")" = True
echo ok >"$p/mode"
"$ctl" -c $pol calibrate --json --force --size 4K 'cbc(aes)' >"$r/calibrate-ok.json" || true
check "mode ok: calibrate verifies the engine: passed" \
	test "$(verification "$r/calibrate-ok.json" "v['verdict'], v['cached'], v['cases'], v['failure']")" = "('passed', False, 48, None)"
"$ctl" -c $pol calibrate --json --size 4K 'cbc(aes)' >"$r/calibrate-cached.json" || true
check "mode ok, again: the pass from the cache, with its seed" \
	test "$(verification "$r/calibrate-cached.json" "v['verdict'], v['cached'], v['seed']")" = \
	"$(verification "$r/calibrate-ok.json" "v['verdict'], True, v['seed']")"
"$ctl" -c $cached_pol plan --json >"$r/plan-ok.json" || true
check "mode ok: the plan puts the verified engine first (Gears = offload cpu)" \
	test "$(jget "$r/plan-ok.json" "[a for a in d['algorithms'] if a['name'] == 'cbc(aes)'][0]['places'][0]['driver']")" = "$drv"

# A case that never completes in the calibration's verification is a
# timeout, as a request of its measurements would be: faulty even with
# Verify = no, which uses a wrong answer's figures as they are (the
# planner's part: test-planner). The figures come from the cache (mode
# ok's); the pass recorded with them is made another build's, so the
# calibration verifies again, and the engine's first request from now on
# hangs.
released_before=$(late_releases)
py '
c = json.load(open(sys.argv[1]))
for m in c["machines"]:
    for e in m["entries"]:
        if e["driver"] == sys.argv[2] and "verified_by" in e:
            e["verified_by"] = "another-build"
json.dump(c, open(sys.argv[1], "w"))' "$cache" "$drv"
echo 1 >"$p/hang_after"
"$ctl" -c $pol calibrate --json --size 4K 'cbc(aes)' >"$r/calibrate-hang.json" || true
log "a case hangs in the calibration's verification: $(verification "$r/calibrate-hang.json" "v['verdict'], v['failure']")"
check "a case hangs in the calibration's verification: failed, no answer" \
	test "$(verification "$r/calibrate-hang.json" "v['verdict'], 'no answer within the grace period' in v['failure']")" = \
	"('failed', True)"
check "its points are timeouts, not faulty answers" \
	test "$(engine_field_all "$r/calibrate-hang.json" "set(p['verdict'] for p in i['points'])")" = "{'timeout'}"
echo ok >"$p/mode"
check "the engine completes: the hung case's memory released" \
	wait_until 10 released_since "$released_before"

check "rmmod cryptoprio" wait_until 10 rmmod cryptoprio
check "rmmod cp_test_engine" rmmod cp_test_engine
dmesg | tail -n +"$((base + 1))" >"$r/dmesg.txt"
check "kernel log since the first calibration: no oops, BUG or warning" \
	kernel_log_clean "$r/dmesg.txt"
