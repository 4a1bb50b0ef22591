# The CPU's composites against an engine's own (cp_caam_engine: native
# authenc(hmac(sha256),cbc(aes)) and its echainiv at 3000, computed from
# other names only, so the kernel has no CPU instance of them). While the
# engine's is the only one registered, every IPsec SA gets it at any
# priority; the default policy (CPU first) must create the CPU's instance
# above it, through crypto_user, and leave nothing behind when told
# otherwise:
#   - plan creates nothing (it only says what apply would create);
#   - apply creates echainiv(authenc(...)) from the CPU's parts, above the
#     engine, recorded in the state file; a new SA is built on it;
#   - a second apply changes nothing;
#   - Gears = offload cpu keeps them while the engine is not verified
#     (the plan says so); with Verify = no it removes what cryptoprio
#     created, and new SAs go to the engine again;
#   - reset while an SA holds a created instance lowers it to 0 and keeps
#     it in the state file; the next reset, once free, removes it.
# Calibrate = never: the order is by gear alone, nothing is timed.
#
# In CI on 6.1, where the module's composites come from 6.1's templates,
# and on armhf's 6.1, whose CPU parts are NEON's (sha256-neon and
# cbc-aes-neonbs); the other kernels by rotation.
r=$CP_RESULTS
modprobe_q "$cpu_aes_module" crypto_user xfrm_user esp4 authenc echainiv
for m in cbc ctr ecb seqiv crypto-sha256 crypto-hmac; do
	modprobe -q "$m" || log "modprobe $m failed (built in?)"
done

E='echainiv(authenc(hmac(sha256),cbc(aes)))'
A='authenc(hmac(sha256),cbc(aes))'
eng_e=echainiv-authenc-hmac-sha256-cbc-aes-cp-caam

# mine: the drivers apply was planned to create, one per line
mine() { printf '%s\n' "${creates[@]}" | cut -d'|' -f2; }
# lowered_all: each of mine still registered has priority 0
lowered_all() {
	local d ok=0
	while read -r d; do
		has_driver "$d" || continue
		log "$d: registered, priority $(proc_crypto_prio "$d")"
		[[ $(proc_crypto_prio "$d") == 0 ]] || ok=1
	done < <(mine)
	return $ok
}
# listed_in_use: each of mine still registered is in the state file, in use
listed_in_use() {
	local d ok=0
	while read -r d; do
		has_driver "$d" || continue
		[[ $(jget "$state" "[c['in_use'] for c in d['created'] if c['driver'] == '$d']") == "[True]" ]] || ok=1
	done < <(mine)
	return $ok
}
# released_all: no user holds any of mine but the instances of mine built
# on it (one reference each, and the registration's own)
released_all() {
	local d o outer
	while read -r d; do
		has_driver "$d" || continue
		outer=0
		while read -r o; do
			[[ $o != "$d" && $o == *"$d"* ]] && has_driver "$o" && outer=$((outer + 1))
		done < <(mine)
		[[ $(refcnt "$d") -le $((1 + outer)) ]] || return 1
	done < <(mine)
}

base=$(dmesg | wc -l)
check "insmod cp_caam_engine.ko" insmod "$CP_KMOD/cp_caam_engine.ko"
check "the engine's echainiv passed its self-test" wait_for_driver $eng_e 120
wait_for_selftests cp_caam_engine 120 || true
check "the engine's echainiv is the only one" test "$(first_of "$E")" = $eng_e
# The premise: while the engine's is the only one, SAs get it.
check "before apply, an SA is built on the engine's echainiv" sa_on $eng_e 0x1ff
ip xfrm state flush
check "the SA let go of the engine's echainiv" wait_until 20 test "$(refcnt $eng_e)" -le 1
policy_uncalibrated ""

# 1. plan: creates are planned, nothing is created
drivers_now >"$r/drivers-before.txt"
priority_snapshot >"$r/prio-before.txt"
check "plan exits 0" sh -c "'$ctl' --json plan >'$r/plan.json'"
mapfile -t creates < <(jget "$r/plan.json" \
	"'\n'.join(s['algorithm'] + '|' + s['driver'] for s in d['steps'] if s['action'] == 'create')")
printf 'create: %s\n' "${creates[@]}"
cpu_e=$(printf '%s\n' "${creates[@]}" | awk -F'|' -v n="$E" '$1 == n { print $2 }')
cpu_a=$(printf '%s\n' "${creates[@]}" | awk -F'|' -v n="$A" '$1 == n { print $2 }')
check "plan creates the CPU's $E ($cpu_e)" grep -qE "^echainiv\\(authenc\\(hmac[-(]sha256[^,]*,$cpu_cbc\\)\\)\$" <<<"$cpu_e"
check "plan creates the CPU's $A ($cpu_a)" test "echainiv($cpu_a)" = "$cpu_e"
check "plan created nothing" cmp -s "$r/drivers-before.txt" <(drivers_now)
check "plan changed no priority" priorities_as "$r/prio-before.txt"

# 2. apply: created above the engine, recorded, SAs built on it
rc=0
"$ctl" --json apply >"$r/apply.json" || rc=$?
check "apply exits 0" test $rc = 0
jget "$r/apply.json" "'\n'.join('%s %s %s %s' % (s['action'], s['driver'], s['result'], s['message']) for s in d['steps'])"
check "every step done" test "$(jget "$r/apply.json" "all(s['result'] == 'done' for s in d['steps'])")" = True
check "apply counts what it created" test "$(jget "$r/apply.json" "d['created']")" = "${#creates[@]}"
check "$cpu_e is registered" has_driver "$cpu_e"
check "$cpu_e above the engine's" \
	test "$(proc_crypto_prio "$cpu_e")" -gt "$(proc_crypto_prio $eng_e)"
check "$E: the kernel hands out the CPU's now" test "$(first_of "$E")" = "$cpu_e"
check "the state file lists what was created" test "$(state_created "$state")" = \
	"$(printf '%s\n' "${creates[@]}" | cut -d'|' -f2 | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
eng_refs=$(refcnt $eng_e)
check "a new SA is built on the CPU's instance" sa_on "$cpu_e" 0x200
check "and not on the engine's" test "$(refcnt $eng_e)" = "$eng_refs"
"$ctl" status >"$r/status.txt" || true
check "status lists $cpu_e as created" grep -qF "$cpu_e" "$r/status.txt"

# 3. a second apply changes nothing
priority_snapshot >"$r/prio-applied.txt"
"$ctl" --json apply >"$r/apply2.json" || true
check "second apply: nothing created, changed or removed" test \
	"$(jget "$r/apply2.json" "(d['created'], d['changed'], d['removed'], d['failed'])")" = "(0, 0, 0, 0)"
check "second apply: priorities as they were" priorities_as "$r/prio-applied.txt"

# 3b. a fixed priority on a CPU part of the created instances: that set
# makes the kernel retire every instance built on the part; the same apply
# creates them again after it
part=${cpu_a##*,}
part=${part%)}
part_prio=$(($(proc_crypto_prio "$part") + 1))
log "the cipher part of $cpu_a: $part, set to $part_prio"
policy_uncalibrated "$(printf '[Driver %s]\nPriority = %s' "$part" "$part_prio")"
rc=0
"$ctl" --json apply >"$r/apply-part.json" || rc=$?
jget "$r/apply-part.json" "'\n'.join('%s %s %s %s' % (s['action'], s['driver'], s['result'], s['message']) for s in d['steps'])"
check "part set: apply exits 0" test $rc = 0
check "part set: $part at $part_prio" test "$(proc_crypto_prio "$part")" = "$part_prio"
check "part set: every step done" test "$(jget "$r/apply-part.json" "all(s['result'] == 'done' for s in d['steps'])")" = True
check "part set: $cpu_e created again, in the same apply" has_driver "$cpu_e"
check "part set: the kernel hands out the CPU's $E" test "$(first_of "$E")" = "$cpu_e"
check "part set: the state file lists the same instances" test "$(state_created "$state")" = \
	"$(printf '%s\n' "${creates[@]}" | cut -d'|' -f2 | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
check "part set: a new SA is built on the CPU's instance" sa_on "$cpu_e" 0x204
policy_uncalibrated ""

# 4. Gears = offload cpu, the engine never verified (Calibrate = never):
# held after the CPU, whose instances stay; with Verify = no (the operator
# vouches for the engine; verification: ipsec-crosstalk) they are removed
ip xfrm state flush
check "the SA let go of $cpu_e" wait_until 20 unheld "$cpu_e"
policy_uncalibrated "Gears = offload cpu"
check "offload cpu, not verified: plan exits 0" sh -c "'$ctl' --json plan >'$r/plan-offload.json'"
show "$r/plan-offload.json" "$E"
check "offload cpu, not verified: the engine's echainiv held after the CPU's" \
	placed_behind "$r/plan-offload.json" "$E" $eng_e unverified
check "offload cpu, not verified: the CPU's $E and $A kept" test \
	"$(jget "$r/plan-offload.json" "[s['driver'] for s in d['steps'] if s['action'] == 'remove' and s['driver'] in ('$cpu_e', '$cpu_a')]")" = "[]"
policy_uncalibrated "$(printf 'Gears = offload cpu\nVerify = no')"
rc=0
"$ctl" --json apply >"$r/apply-offload.json" || rc=$?
jget "$r/apply-offload.json" "'\n'.join('%s %s %s %s' % (s['action'], s['driver'], s['result'], s['message']) for s in d['steps'])"
check "offload cpu: apply exits 0" test $rc = 0
# removed, or gone already: a priority set on a CPU part (hmac-sha256-lib
# on 7.2) makes the kernel retire the instances built on it
check "offload cpu: every created instance removed (or retired by the kernel)" test \
	"$(jget "$r/apply-offload.json" "(d['removed'] + d['gone'], d['in_use'], d['failed'])")" = "(${#creates[@]}, 0, 0)"
check "offload cpu: $cpu_e is gone" lacks_driver "$cpu_e"
check "offload cpu: the state file lists nothing created" test -z "$(state_created "$state")"
check "offload cpu: the engine's echainiv is handed out" test "$(first_of "$E")" = $eng_e
check "offload cpu: a new SA is built on the engine" sa_on $eng_e 0x201
ip xfrm state flush

# 5. reset while an SA holds a created instance
policy_uncalibrated ""
check "default policy: apply creates again" sh -c "'$ctl' --json apply >'$r/apply3.json'"
check "$cpu_e registered again" has_driver "$cpu_e"
check "an SA on the CPU's instance" sa_on "$cpu_e" 0x202
"$ctl" reset >"$r/reset1.txt" 2>&1 || true
cat "$r/reset1.txt"
# Lowering an instance (UPDATEALG) makes the kernel retire the instances
# built on it: the held ones stay with their users, freed with them, and
# only the innermost stays registered, at 0, until the next reset.
check "reset while held: the engine's echainiv is handed out" test "$(first_of "$E")" = $eng_e
check "reset while held: what is still registered of it is at priority 0" lowered_all
check "reset while held: the state file lists it as in use" listed_in_use
check "reset while held: the engine has its priority back" test "$(proc_crypto_prio $eng_e)" = 3000
check "reset while held: new SAs go to the engine" sa_on $eng_e 0x203
ip xfrm state flush
check "the SAs let go of what cryptoprio created" wait_until 20 released_all
"$ctl" reset >"$r/reset2.txt" 2>&1 || true
cat "$r/reset2.txt"
drivers_now >"$r/drivers-end.txt"
# New since the start, but the kernel's default RNG (DRBGs, jitterentropy,
# the hashes they use), which the first user of a template echainiv loads
# and seeds over time: not cryptoprio's, and not the engine's either.
comm -13 "$r/drivers-before.txt" "$r/drivers-end.txt" |
	grep -vE '^(drbg_|ansi_cprng$|fips_ansi_cprng$|jitterentropy_rng$|sha3-|sha384-|sha512-|hmac\(sha512-)' \
	>"$r/drivers-new.txt" || true
cat "$r/drivers-new.txt"
check "reset once free: nothing of cryptoprio's left" \
	sh -c '! grep -q . "$0" && ! comm -23 "$1" "$2" | grep -q .' \
	"$r/drivers-new.txt" "$r/drivers-before.txt" "$r/drivers-end.txt"
while read -r d; do
	check "reset once free: $d is gone" not grep -qxF "$d" "$r/drivers-end.txt"
done < <(mine)
check "reset once free: the state file lists nothing created" test -z "$(state_created "$state")"
check "every priority as before" priorities_as "$r/prio-before.txt"

check "rmmod cp_caam_engine" wait_until 20 rmmod cp_caam_engine
dmesg | tail -n +"$((base + 1))" >"$r/dmesg.txt"
check "kernel log: no oops, BUG or warning" \
	kernel_log_clean "$r/dmesg.txt"
