# MACsec, a real client of the crypto API, gets the gcm(aes) the plan puts
# first. MACsec allocates its AEAD by name for each secure association
# (drivers/net/macsec.c, macsec_alloc_tfm: crypto_alloc_aead("gcm(aes)",
# 0, 0), asynchronous implementations allowed again since the revert of
# "net: macsec: preserve ingress frame ordering" in 6.6, taken by 6.1's
# stable series) and keeps it while the SA exists. The CAAM-shaped engine
# registers gcm-aes-cp-caam at 3000; the kernel's own gcm(aes) is the
# CPU's (as in ktls: generic-gcm-aesni on 6.1's x86_64,
# generic-gcm-aesni-avx on 7.2's under QEMU's -cpu max, gcm-aes-ce on
# arm64), which the plan must put above it. Two network namespaces joined by a veth pair, a
# macsec device on each end (encrypt on), a transmit SA and a receive SA
# on each (4 transforms), are made
#   - before apply: served by the engine;
#   - after apply under the default policy: by the CPU;
#   - under "Gears = offload cpu", not verified: by the CPU (the plan
#     holds the engine); with Verify = no, by the engine;
#   - after reset: by the engine (the kernel's own choice again), every
#     priority as before cryptoprio ran.
# Each time 1 MiB goes over TCP through the macsec devices and comes back
# intact (frames that fail decryption are dropped: validation is strict),
# and each side's SA counts the frames it encrypted or validated.
# Which implementation the SAs got is read from /proc/crypto's refcnt
# (held_by).
#
# By rotation only: the path from gcm(aes)'s priorities to a client is
# ktls's, which CI runs on 7.2; what is MACsec's own (its mask, which
# changed between kernels, and its SAs) changes seldom.
r=$CP_RESULTS
eng=gcm-aes-cp-caam
modprobe -q macsec || skip "no macsec module for $(uname -r)"
modprobe -q veth || skip "no veth module for $(uname -r)"
ip link help macsec 2>&1 | grep -q 'encrypt' || skip "this ip (iproute2) has no macsec"
modprobe_q "$cpu_aes_module" "$cpu_gcm_module" crypto_user authenc
# shellcheck disable=SC2086 # (cpu_gcm_parts: none, or module names)
for m in ecb cbc ctr gcm crypto-sha256 crypto-hmac $cpu_gcm_parts; do
	modprobe -q "$m" || log "modprobe $m failed (built in?)"
done
# (armhf: a template's instance, not registered before a user asks)
[[ $cpu_gcm_module == gcm ]] || check "$cpu_gcm passed its self-test" wait_for_driver "$cpu_gcm" 120
caam_gcm_over_cpu

# macsec_up: namespaces cpa and cpb, a veth pair between them, on each end
# macsec0 (encrypt on) with a transmit SA and a receive SA for the other
# end's SCI, 10.77.0.1 and .2
macsec_up() {
	local ns peer i mac_a mac_b
	ip netns add cpa && ip netns add cpb || return 1
	ip link add cpva netns cpa type veth peer name cpvb netns cpb || return 1
	ip -n cpa link set cpva up && ip -n cpb link set cpvb up || return 1
	mac_a=$(ip netns exec cpa cat /sys/class/net/cpva/address)
	mac_b=$(ip netns exec cpb cat /sys/class/net/cpvb/address)
	for ns in cpa cpb; do
		if [[ $ns == cpa ]]; then
			peer=$mac_b i=1
		else
			peer=$mac_a i=2
		fi
		ip -n $ns link add link cpv${ns#cp} macsec0 type macsec encrypt on &&
			ip -n $ns macsec add macsec0 tx sa 0 pn 1 on key 0$i "$(printf '%032x' $i)" &&
			ip -n $ns macsec add macsec0 rx port 1 address "$peer" &&
			ip -n $ns macsec add macsec0 rx port 1 address "$peer" sa 0 pn 1 on \
				key 0$((3 - i)) "$(printf '%032x' $((3 - i)))" &&
			ip -n $ns addr add 10.77.0.$i/24 dev macsec0 &&
			ip -n $ns link set macsec0 up || return 1
	done
}
macsec_down() { ip netns del cpa; ip netns del cpb; }

# echo_through: 1 MiB from cpa to an echo server in cpb over TCP through
# the macsec devices, read back in cpa and compared
echo_through() {
	local server rc=0
	ip netns exec cpb python3 -c 'import socket
s = socket.create_server(("10.77.0.2", 7777))
c, _ = s.accept()
while True:
    d = c.recv(65536)
    if not d:
        break
    c.sendall(d)
c.close()' &
	server=$!
	ip netns exec cpa python3 -c 'import os, socket, threading, time
for _ in range(100):
    try:
        s = socket.create_connection(("10.77.0.2", 7777), timeout=60)
        break
    except OSError:
        time.sleep(0.1)
data = os.urandom(1 << 20)
got = bytearray()
def rx():
    while len(got) < len(data):
        d = s.recv(65536)
        if not d:
            break
        got.extend(d)
t = threading.Thread(target=rx)
t.start()
s.sendall(data)
t.join()
print("1 MiB through macsec: %d bytes back, %s" % (len(got), "intact" if got == data else "CORRUPT"))
raise SystemExit(0 if got == data else 1)' || rc=1
	wait "$server" || rc=1
	return "$rc"
}

# macsec_counter NS COUNTER: the largest value `ip -s macsec show` prints
# for COUNTER in NS (a line "stats: NAME..." above a line of values)
macsec_counter() {
	ip -n "$1" -s macsec show macsec0 | awk -v want="$2" '
		hdr { for (i = 1; i <= n; i++) if (h[i] == want && $i + 0 > max) max = $i + 0; hdr = 0 }
		$1 == "stats:" { n = split(substr($0, index($0, ":") + 1), h, " "); hdr = 1; next }
		END { print max + 0 }'
}

# macsec_served_by DRIVER STEP: SAs made now hold DRIVER's gcm(aes), 4
# transforms, and carry the data intact
macsec_served_by() {
	local held before enc valid
	before=$(name_refcnts 'gcm(aes)')
	held=$(held_by 'gcm(aes)' macsec_up) || log "$2: macsec_up failed"
	log "$2: the MACsec SAs hold ${held:-nothing}"
	check "$2: MACsec is served by $1 (4 SAs)" test "$held" = "$1 +4"
	check "$2: 1 MiB through the macsec devices and back, intact" echo_through
	enc=$(macsec_counter cpa OutPktsEncrypted) valid=$(macsec_counter cpb InPktsOK)
	check "$2: cpa's SA encrypted frames ($enc), cpb's validated them ($valid)" \
		test "$enc" -gt 0 -a "$valid" -gt 0
	macsec_down
	check "$2: the SAs' transforms are freed with their devices" \
		wait_until 30 name_refcnts_are 'gcm(aes)' "$before"
}

# 0. the premise: the engine, at 3000, is MACsec's
macsec_served_by $eng "before apply"

# 1. the default policy: the CPU first
apply_puts_cpu_gcm_first
macsec_served_by "$first" "default policy"

# 2. Gears = offload cpu, the engine never verified (Calibrate = never):
# held after the CPU, the plan says why; with Verify = no (the operator
# vouches for it; verification is ipsec-crosstalk's subject) first again
caam_gcm_held_unverified
check "offload cpu, Verify = no: apply exits 0" sh -c "'$ctl' --json apply >'$r/apply-offload.json'"
macsec_served_by $eng "offload cpu"

# 3. reset: the kernel's own order, the engine first
check "reset exits 0" sh -c "'$ctl' reset >'$r/reset.txt' 2>&1"
macsec_served_by $eng "after reset"
check "after reset: every priority as before" priorities_as "$r/prio-before.txt"

# the SAs' transforms are freed with their namespaces' devices: nothing
# holds the engine
check "rmmod cp_caam_engine" wait_until 30 rmmod cp_caam_engine
dmesg | tail -n +"$((base + 1))" >"$r/dmesg.txt"
check "kernel log: no oops, BUG or warning" kernel_log_clean "$r/dmesg.txt"
