# The CPU's composites at boot, under systemd: cp_caam_engine (native
# authenc(hmac(sha256),cbc(aes)) and its echainiv at 3000, which every
# IPsec SA gets while they are the only ones registered) is loaded by
# systemd-modules-load; cryptoprio.service creates the CPU's echainiv above
# it before the first SA, says so in the journal and in its status; after
# a reset, the engine's module loaded again gets the same treatment.
#
# The daemon's part depends only on cryptoprio (the module's composites on
# 6.1 are apply-composites'): by rotation.
svc=cryptoprio.service
r=$CP_RESULTS
E='echainiv(authenc(hmac(sha256),cbc(aes)))'
eng_e=echainiv-authenc-hmac-sha256-cbc-aes-cp-caam

# created_of NAME: the driver the state file lists as created for NAME
created_of() {
	jget "$state" "''.join(c['driver'] for c in d.get('created', []) if c['algorithm'] == '$1')" 2>/dev/null
}
# cpu_first: the daemon created the CPU's E and the kernel hands it out
cpu_first() {
	local d
	d=$(created_of "$E")
	[[ -n $d && $(first_of "$E") == "$d" ]]
}

modprobe_q xfrm_user esp4
check "cp_caam_engine loaded at boot" test -d /sys/module/cp_caam_engine
check "cryptoprio.service is active (running)" \
	test "$(unit_prop $svc ActiveState)/$(unit_prop $svc SubState)" = active/running
# The engine's self-tests may end after the daemon's first run (>= 6.12):
# it looks again until they have.
check "the daemon created the CPU's $E, first" wait_until 90 cpu_first
cpu_e=$(created_of "$E")
log "created: $cpu_e; StatusText: $(unit_prop $svc StatusText)"
check "the first SA is built on the CPU's $E" sa_on "$cpu_e" 0x300
"$ctl" status >"$r/status.txt" 2>&1 || true
check "status lists $cpu_e as created" grep -qF "$cpu_e" "$r/status.txt"
journalctl -b -u $svc --no-pager >"$r/journal.txt" 2>&1 || true
check "the journal says $cpu_e was created" grep -qF "$cpu_e ($E): created at priority" "$r/journal.txt"
# (on >= 6.12 a later run, once the engine's last self-tests end, may
# create nothing: the status text is the last run's)
check "a run's status counts what it created" grep -qE 'Policy applied \([a-z]+\): .*, [1-9][0-9]* created, ' "$r/journal.txt"

# reset: the engine first again; its module loaded anew, the daemon
# creates the CPU's again
ip xfrm state flush
check "the SA let go of $cpu_e" wait_until 20 test "$(refcnt "$cpu_e")" -le 1
check "reset exits 0" sh -c "'$ctl' reset >'$r/reset.txt' 2>&1"
check "after reset: the engine's $E is handed out" test "$(first_of "$E")" = $eng_e
check "after reset: nothing listed as created" test -z "$(created_of "$E")"
check "rmmod cp_caam_engine" wait_until 20 rmmod cp_caam_engine
check "modprobe cp_caam_engine" modprobe cp_caam_engine
check "the engine's module loaded again: the daemon creates the CPU's $E, first" \
	wait_until 90 cpu_first
check "and a new SA is built on it" sa_on "$(created_of "$E")" 0x301
ip xfrm state flush

