# Two IPsec tunnels on an engine that confuses two transforms when their
# requests meet (cp_caam_engine in mode crosstalk, 2 ms per request, as an
# engine that mixes two SAs' keys under load): what the verification keeps
# from a real client. Namespaces cpa and cpb, a veth pair, two ESP
# transport tunnels between two address pairs, each its own keys (8 SAs,
# each its transform of echainiv(authenc(hmac(sha256),cbc(aes))), which
# only the engine registers):
#   - one tunnel alone carries every ping (one request in flight at a
#     time, as the kernel's self-test sends them); both at once lose
#     pings: a request that met another SA's is corrupted and its peer
#     drops it;
#   - Gears = offload cpu, calibrated through cryptoprio.ko: the
#     verification finds the engine faulty in its cases together, with the
#     case and its seed; the plan keeps it after the CPU and says why,
#     apply creates the CPU's instance above it: new SAs get the CPU's,
#     and both tunnels at once carry every ping;
#   - the same engine without the fault: verified, first under Gears =
#     offload cpu, what cryptoprio created removed, new SAs on the engine,
#     both tunnels at once carry every ping.
#
# In CI on 7.2, the verification seen from a real client at each landing;
# the other kernels by rotation.
r=$CP_RESULTS
cp=/sys/module/cp_caam_engine/parameters
E='echainiv(authenc(hmac(sha256),cbc(aes)))'
eng_e=echainiv-authenc-hmac-sha256-cbc-aes-cp-caam
modprobe -q veth || skip "no veth module for $(uname -r)"
modprobe_q "$cpu_aes_module" crypto_user xfrm_user esp4 authenc echainiv
for m in cbc ecb seqiv crypto-sha256 crypto-hmac; do
	modprobe -q "$m" || log "modprobe $m failed (built in?)"
done
base=$(dmesg | wc -l)
check "insmod cryptoprio.ko" insmod "$CP_KMOD/cryptoprio.ko"
# (loaded in mode ok: on 6.12 and later the kernel tests several of its
# algorithms at once, in the background, and would meet the fault)
check "insmod cp_caam_engine.ko" insmod "$CP_KMOD/cp_caam_engine.ko"
check "$eng_e passed its self-test" wait_for_driver $eng_e 120
wait_before_measuring cp_caam_engine "$cpu_aes_module"
echo 2000 >"$cp/latency_us"
priority_snapshot >"$r/prio-before.txt"

# tunnels_up: cpa (10.78.T.1) and cpb (10.78.T.2) joined by a veth pair,
# for T 1 and 2 an ESP tunnel (transport mode) of its own keys, an SA each
# way in each namespace, and policies that send each pair's traffic
# through it
tunnels_up() {
	local ns t enc auth
	ip netns add cpa && ip netns add cpb || return 1
	ip link add cpva netns cpa type veth peer name cpvb netns cpb || return 1
	for t in 1 2; do
		ip -n cpa addr add 10.78.$t.1/24 dev cpva && ip -n cpb addr add 10.78.$t.2/24 dev cpvb ||
			return 1
	done
	ip -n cpa link set cpva up && ip -n cpb link set cpvb up || return 1
	for ns in cpa cpb; do
		for t in 1 2; do
			enc=0x$(printf '%032x' $t) auth=0x$(printf '%064x' $((t + 2)))
			ip -n $ns xfrm state add src 10.78.$t.1 dst 10.78.$t.2 proto esp spi 0x${t}01 \
				mode transport enc 'cbc(aes)' "$enc" auth 'hmac(sha256)' "$auth" &&
				ip -n $ns xfrm state add src 10.78.$t.2 dst 10.78.$t.1 proto esp spi 0x${t}02 \
					mode transport enc 'cbc(aes)' "$enc" auth 'hmac(sha256)' "$auth" ||
				return 1
		done
	done
	for t in 1 2; do
		ip -n cpa xfrm policy add src 10.78.$t.1 dst 10.78.$t.2 dir out \
			tmpl src 10.78.$t.1 dst 10.78.$t.2 proto esp mode transport &&
			ip -n cpb xfrm policy add src 10.78.$t.2 dst 10.78.$t.1 dir out \
				tmpl src 10.78.$t.2 dst 10.78.$t.1 proto esp mode transport || return 1
	done
}
tunnels_down() { ip netns del cpa; ip netns del cpb; }

# answered N SECS T...: N pings from cpa through each tunnel T, all at
# once, SECS apart; "T:RECEIVED " for each, after the last
answered() {
	local n=$1 secs=$2 t
	shift 2
	for t in "$@"; do
		ip netns exec cpa busybox ping -q -c "$n" -i "$secs" -W 2 10.78.$t.2 >"$r/ping-$t.txt" 2>&1 &
	done
	wait
	for t in "$@"; do
		printf '%s:%s ' "$t" "$(sed -n 's/.* \([0-9]*\) packets received.*/\1/p' "$r/ping-$t.txt")"
	done
}

# tunnels_held_by DRIVER STEP: new tunnels' 8 SAs hold DRIVER's $E
tunnels_held_by() {
	local held
	held=$(held_by "$E" tunnels_up) || log "$2: tunnels_up failed"
	log "$2: the SAs hold ${held:-nothing}"
	check "$2: the 8 SAs are on $1" test "$held" = "$1 +8"
}

# 0. the premise: the engine, the only one of $E, faults only when two
# SAs' requests meet
tunnels_held_by $eng_e "before apply"
echo crosstalk >"$cp/mode"
one=$(answered 20 0.2 1)
log "mode crosstalk, one tunnel, 20 pings 200 ms apart: $one"
check "mode crosstalk: one tunnel alone, every ping answered" test "$one" = "1:20 "
both=$(answered 100 0.02 1 2)
log "mode crosstalk, both tunnels at once, 100 pings 20 ms apart: $both"
check "mode crosstalk: both tunnels at once lose pings" test "$both" != "1:100 2:100 "
for ns in cpa cpb; do
	log "$ns: $(ip netns exec $ns awk '$2 > 0' /proc/net/xfrm_stat | tr -s ' \t\n' ' ')"
done
tunnels_down

# 1. Gears = offload cpu, calibrated: faulty, held after the CPU's
printf '[Policy]\nGears = offload cpu\nCalibrationBudget = 10s\n' >/etc/cryptoprio.conf
rc=0
"$ctl" --json apply >"$r/apply-faulty.json" || rc=$?
check "mode crosstalk: apply exits 0" test $rc = 0
show "$r/apply-faulty.json" "$E"
check "mode crosstalk: the engine's $E placed after the CPU's, faulty" \
	placed_behind "$r/apply-faulty.json" "$E" $eng_e faulty
why=$(jget "$r/apply-faulty.json" \
	"[p['why'] for a in d['algorithms'] if a['name'] == '$E' for p in a['places'] if p['driver'] == '$eng_e'][0]") || why=
check "mode crosstalk: the plan says why: a case sent with other transforms', its seed" \
	grep -q 'sent with 3 other transforms.*seed\|seed.*sent with 3 other transforms' <<<"$why"
cpu_e=$(first_of "$E")
check "mode crosstalk: the kernel hands out the CPU's $E ($cpu_e)" \
	test -n "$cpu_e" -a "$cpu_e" != $eng_e
tunnels_held_by "$cpu_e" "mode crosstalk, applied"
both=$(answered 100 0.02 1 2)
log "mode crosstalk, applied, both tunnels at once: $both"
check "mode crosstalk, applied: both tunnels at once, every ping answered" \
	test "$both" = "1:100 2:100 "
tunnels_down
check "the SAs let go of $cpu_e" wait_until 20 unheld "$cpu_e"

# 2. the same engine without the fault: verified, first, the SAs its own
echo ok >"$cp/mode"
rc=0
"$ctl" --json apply >"$r/apply-ok.json" || rc=$?
check "mode ok: apply exits 0" test $rc = 0
jget "$r/apply-ok.json" "'\\n'.join('%s %s %s: %s' % (s['action'], s['driver'], s['result'], s['why']) for s in d['steps'] if s['action'] == 'remove')"
check "mode ok: the kernel hands out the engine's $E" test "$(first_of "$E")" = $eng_e
check "mode ok: what cryptoprio created is removed" test -z "$(state_created "$state")"
tunnels_held_by $eng_e "mode ok, applied"
both=$(answered 100 0.02 1 2)
log "mode ok, applied, both tunnels at once: $both"
check "mode ok, applied: both tunnels at once, every ping answered" \
	test "$both" = "1:100 2:100 "
tunnels_down

check "reset exits 0" sh -c "'$ctl' reset >'$r/reset.txt' 2>&1"
check "after reset: every priority as before" priorities_as "$r/prio-before.txt"
echo 0 >"$cp/latency_us"
check "rmmod cp_caam_engine" wait_until 30 rmmod cp_caam_engine
check "rmmod cryptoprio" wait_until 10 rmmod cryptoprio
dmesg | tail -n +"$((base + 1))" >"$r/dmesg.txt"
check "kernel log: no oops, BUG or warning" kernel_log_clean "$r/dmesg.txt"
