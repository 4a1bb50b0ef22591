# kTLS, a real client of the crypto API, gets the gcm(aes) the plan puts
# first. The kernel's TLS allocates its AEAD by name for each socket and
# direction when the socket gets its keys (net/tls/tls_sw.c,
# tls_set_sw_offload: crypto_alloc_aead(name, 0, 0) on 6.1, 6.12 and 7.2:
# asynchronous implementations allowed) and keeps it while the socket
# lives. The CAAM-shaped engine registers gcm-aes-cp-caam at 3000, as
# CAAM does; the kernel's own gcm(aes) is the CPU's, which the plan must
# put above it: on x86_64 generic-gcm-aesni (400) on 6.1 and, under QEMU's
# -cpu max, generic-gcm-aesni-avx (500) on 7.2; gcm-aes-ce (300) on
# arm64. Sockets given their keys
#   - before apply are served by the engine;
#   - after apply under the default policy, by the CPU;
#   - under "Gears = offload cpu", not verified: by the CPU (the plan
#     holds the engine); with Verify = no, by the engine;
#   - after reset, by the engine (the kernel's own choice again), every
#     priority as before cryptoprio ran.
# Each time AES-GCM-128 and AES-GCM-256 records of 1 B to 16 KiB go both
# ways intact (tests/vm/tools/ktls). Which implementation the sockets got
# is read from /proc/crypto's refcnt (held_since). AES-CCM and
# ChaCha20-Poly1305, which the engine lacks, are run once at the end.
# cryptoprioctl resolve names kTLS among the users of the caller that gets
# the driver kTLS got, before and after apply.
#
# In CI on 7.2 (kTLS and the CPU's gcm(aes) change between kernels); the
# other targets by rotation.
r=$CP_RESULTS
eng=gcm-aes-cp-caam
ktls=$CP_SRC/tests/vm/tools/ktls
# a write to a client that died fails (EPIPE) rather than killing the scenario
trap "" PIPE
modprobe -q tls || skip "no tls module for $(uname -r)"
modprobe_q "$cpu_aes_module" "$cpu_gcm_module" crypto_user authenc
# shellcheck disable=SC2086 # (cpu_gcm_parts: none, or module names)
for m in ecb cbc ctr gcm ccm chacha20poly1305 crypto-sha256 crypto-hmac $cpu_gcm_parts; do
	modprobe -q "$m" || log "modprobe $m failed (built in?)"
done
# (armhf: a template's instance, not registered before a user asks)
[[ $cpu_gcm_module == gcm ]] || check "$cpu_gcm passed its self-test" wait_for_driver "$cpu_gcm" 120
ip link set lo up

# gcm_impls: "DRIVER PRIORITY MODULE" of each gcm(aes), best first
gcm_impls() {
	awk -v RS= '/(^|\n)name *: gcm\(aes\)\n/' /proc/crypto |
		awk '$1 == "driver" { d = $3 } $1 == "module" { m = $3 } $1 == "priority" { p = $3 }
		     $1 == "type" && $3 != "larval" { print d, p, m }' | sort -k2,2nr
}
gcm_impls | sed 's/^/  /'
caam_gcm_over_cpu

# ktls_served_by DRIVER STEP: a kTLS client started now (AES-GCM-128 and
# -256, keys both ways on both ends: 8 transforms of gcm(aes)) holds
# DRIVER's gcm(aes) while its sockets are open, and its records arrive
# intact
ktls_served_by() {
	local want=$1 step=$2 before held pid rc=0 to i out=/run/cp-ktls.out
	before=$(name_refcnts 'gcm(aes)')
	rm -f /run/cp-ktls.in "$out"
	mkfifo /run/cp-ktls.in
	"$ktls" gcm128 gcm256 </run/cp-ktls.in >"$out" 2>&1 &
	pid=$!
	exec {to}>/run/cp-ktls.in
	# ready, or gone: 120 s at most
	for ((i = 0; i < 600; i++)); do
		! grep -qx ready "$out" && kill -0 "$pid" 2>/dev/null || break
		sleep 0.2
	done
	check "$step: the kTLS client is ready" grep -qx ready "$out"
	held=$(held_since 'gcm(aes)' "$before")
	log "$step: the kTLS sockets hold ${held:-nothing}"
	check "$step: kTLS is served by $want (8 transforms)" test "$held" = "$want +8"
	echo >&"$to" || true
	exec {to}>&-
	wait "$pid" || rc=$?
	sed 's/^/  /' "$out" | tee -a "$r/ktls.out"
	check "$step: records of 1 B to 16 KiB arrive intact both ways" test "$rc" = 0
	check "$step: the sockets' transforms are freed with them" \
		wait_until 30 name_refcnts_are 'gcm(aes)' "$before"
}

# resolve_names_ktls DRIVER STEP: cryptoprioctl resolve gcm(aes) names
# kTLS among the users of the caller that gets DRIVER (the one kTLS got),
# and on 7.2 fscrypt and AF_ALG as the cpu-only caller's; below its table,
# who no priority steers
resolve_names_ktls() {
	local f=$r/resolve-${2// /-}.json
	"$ctl" resolve 'gcm(aes)' | tee "$r/resolve-${2// /-}.txt"
	"$ctl" --json resolve 'gcm(aes)' >"$f"
	check "$2: resolve: kTLS is a user of the caller that gets $1" test "$(jget "$f" \
		"[c['driver'] for c in d['callers'] if 'kTLS' in [u['name'] for u in c['users']]]")" = "['$1']"
	check "$2: resolve: the cpu-only caller's users on $CP_KVER_ALIAS are $cpu_only_users" \
		test "$(jget "$f" "', '.join(u['name'] for c in d['callers'] if c['caller'] == 'cpu-only' for u in c['users']) or '-'")" = "$cpu_only_users"
	check "$2: resolve: a line names WireGuard as steered by no priority" \
		grep -q '^Not steered by any priority on this kernel: .*WireGuard' "$r/resolve-${2// /-}.txt"
}
case $CP_KVER_ALIAS in
7.2) cpu_only_users="fscrypt, AF_ALG" ;;
*) cpu_only_users=- ;;
esac
check "insmod cryptoprio.ko (for resolve)" insmod "$CP_KMOD/cryptoprio.ko"

# 0. the premise: the engine, at 3000, is kTLS's
ktls_served_by $eng "before apply"
resolve_names_ktls $eng "before apply"

# 1. the default policy: the CPU first
apply_puts_cpu_gcm_first
ktls_served_by "$first" "default policy"
resolve_names_ktls "$first" "default policy"

# 2. Gears = offload cpu, the engine never verified (Calibrate = never):
# held after the CPU, the plan says why; with Verify = no (the operator
# vouches for it; verification is ipsec-crosstalk's subject) first again
caam_gcm_held_unverified
check "offload cpu, Verify = no: apply exits 0" sh -c "'$ctl' --json apply >'$r/apply-offload.json'"
ktls_served_by $eng "offload cpu"

# 3. reset: the kernel's own order, the engine first
check "reset exits 0" sh -c "'$ctl' reset >'$r/reset.txt' 2>&1"
ktls_served_by $eng "after reset"
check "after reset: every priority as before" priorities_as "$r/prio-before.txt"

# AES-CCM and ChaCha20-Poly1305 where the kernel's TLS offers them: no
# engine has them here, so whatever the kernel gives; intact both ways.
for c in ccm128:'ccm(aes)' chacha20:'rfc7539(chacha20,poly1305)'; do
	rc=0
	out=$(echo | "$ktls" "${c%%:*}" 2>&1) || rc=$?
	if [[ $rc == 3 ]]; then
		log "${c%%:*}: not offered by this kernel's TLS: $out"
		continue
	fi
	log "${c%%:*}: $out"
	check "${c%%:*}: records arrive intact both ways (${c#*:})" test "$rc" = 0
done

check "rmmod cryptoprio" rmmod cryptoprio
check "rmmod cp_caam_engine" wait_until 20 rmmod cp_caam_engine
dmesg | tail -n +"$((base + 1))" >"$r/dmesg.txt"
check "kernel log: no oops, BUG or warning" kernel_log_clean "$r/dmesg.txt"
