# The CPU's candidate for a name only an engine serves is measured although
# it is not registered (cp_caam_engine registers authenc(hmac(sha256),
# cbc(aes)) and its echainiv natively; the CPU has no instance of either):
#   - calibrate measures the engine's and the CPU's candidate, each right by
#     its known answer: cryptoprio.ko creates the instance for a run and
#     removes it, and whatever came with it, before it answers, so the
#     kernel's list is as it was; an echainiv is measured as the authenc it
#     wraps (creating one sets up the kernel's default RNG, drbg and its
#     hashes, for good: an SA of another name does it before the list is
#     taken);
#   - Gears = any ranks the candidate by those figures: by latency, against
#     the engine slowed to 5 ms a request, it comes first (by throughput a
#     composite's runs under TCG can spread beyond the gap), apply creates
#     it and a new
#     SA is built on it (without its figures a candidate would be placed
#     after the measured engine, and nothing created); created, it keeps
#     its candidate's figures, so a second apply changes nothing;
#   - through AF_ALG, whose bind would leave the instance registered, the
#     candidate is unreachable and nothing appears either.
#
# Kernel-dependent (what a driver registers; the CAAM-shaped engine through
# cryptoprio): every kernel by rotation.
r=$CP_RESULTS
modprobe_q "$cpu_aes_module" crypto_user xfrm_user esp4 authenc echainiv
for m in cbc ctr ecb seqiv crypto-sha256 crypto-hmac; do
	modprobe -q "$m" || log "modprobe $m failed (built in?)"
done
insmod "$CP_KMOD/cryptoprio.ko" || skip "no cryptoprio.ko for $CP_KVER_ALIAS"

A='authenc(hmac(sha256),cbc(aes))'
E="echainiv($A)"
eng_a=authenc-hmac-sha256-cbc-aes-cp-caam
eng_e=echainiv-$eng_a
# field FILE DRIVER KEY: KEY of DRIVER's entry in calibrate's JSON
field() {
	jget "$1" "[i['$3'] for a in d['algorithms'] for i in a['implementations'] if i['driver'] == '$2'][0]"
}
# verdict FILE DRIVER: the verdict of DRIVER's first point
verdict() {
	jget "$1" "[i['points'][0]['verdict'] for a in d['algorithms'] for i in a['implementations'] if i['driver'] == '$2'][0]"
}
# candidate FILE NAME: the driver of NAME's candidate in calibrate's JSON
candidate() {
	jget "$1" "[i['driver'] for a in d['algorithms'] if a['name'] == '$2' for i in a['implementations'] if i['candidate']][0]"
}

check "insmod cp_caam_engine.ko" insmod "$CP_KMOD/cp_caam_engine.ko"
check "the engine's echainiv passed its self-test" wait_for_driver $eng_e 120
wait_for_selftests cp_caam_engine 120 || true
check "the engine's echainiv is the only one" test "$(first_of "$E")" = $eng_e
echo 5000 >/sys/module/cp_caam_engine/parameters/latency_us

# The kernel's default RNG is set up, for good, by the first instance of
# the echainiv or seqiv template the kernel allocates (drbg, ansi_cprng,
# jitterentropy and their hashes: modules on 6.1, which the calibration's
# candidate loaded after the list was taken; the engine's own echainiv is
# no template's). An SA with hmac(sha1), which the engine does not serve,
# makes the CPU's echainiv instance first.
check "an SA on the CPU's echainiv of hmac(sha1) (the default RNG set up)" \
	ip xfrm state add src 127.0.0.1 dst 127.0.0.2 proto esp spi 0x1ff \
	enc 'cbc(aes)' 0x000102030405060708090a0b0c0d0e0f \
	auth 'hmac(sha1)' 0x000102030405060708090a0b0c0d0e0f10111213
ip xfrm state flush

# 1. calibrate through the module: both measured, nothing left behind
drivers_now >"$r/before"
# Under TCG a run of a composite costs 2 s or more: the kernel asks modprobe
# for each part of the known-answer reference it instantiates.
check "calibrate $E through cryptoprio.ko" \
	bash -c "'$ctl' --json calibrate '$E' --size 4096 --budget 60s --backend module >'$r/cal.json'"
drivers_now >"$r/after"
check "calibrate left the kernel's list as it was" diff "$r/before" "$r/after"
cand_e=$(candidate "$r/cal.json" "$E") cand_a=${cand_e#echainiv(}
cand_a=${cand_a%)}
log "candidate: $cand_e"
check "the candidate of $E is an echainiv" test "$cand_e" = "echainiv($cand_a)"
check "the candidate is not registered" lacks_driver "$cand_e"
check "the candidate of $E measured as the candidate of $A" \
	test "$(field "$r/cal.json" "$cand_e" measured_as)" = "$cand_a"
check "the engine's $E measured as its $A" \
	test "$(field "$r/cal.json" "$eng_e" measured_as)" = "$eng_a"
for d in "$eng_e" "$cand_e"; do
	log "$d: $(jget "$r/cal.json" "[(p['ns_per_request']['min'], p['ns_per_request']['median'], p['ns_per_request']['max']) for a in d['algorithms'] for i in a['implementations'] if i['driver'] == '$d' for p in i['points'] if 'ns_per_request' in p]") ns/request (min, median, max)"
	check "$d measured" test "$(verdict "$r/cal.json" "$d")" = measured
	check "$d right by its known answer" test "$(field "$r/cal.json" "$d" known_answer)" = ok
done
check "the candidate through the module" test "$(field "$r/cal.json" "$cand_e" backend)" = module
check "the candidate's class is cpu" test "$(field "$r/cal.json" "$cand_e" class)" = cpu
check "the engine is not a candidate" test "$(field "$r/cal.json" "$eng_e" candidate)" = False

# 2. Gears = any: ranked by those figures (from the cache), first, created by apply alone
cat >/etc/cryptoprio.conf <<CONF
[Policy]
Calibrate = cached
Gears = any
Rank = latency
CONF
check "plan with Gears = any" bash -c "'$ctl' --json plan >'$r/plan.json'"
drivers_now >"$r/after-plan"
check "plan left the kernel's list as it was" diff "$r/before" "$r/after-plan"
check "$E: the candidate first, ranked by its figures" test \
	"$(jget "$r/plan.json" "[(p['driver'], p['reason'], p['create']) for a in d['algorithms'] if a['name'] == '$E' for p in a['places']][0]")" \
	= "('$cand_e', 'ranked', True)"
check "apply with Gears = any" bash -c "'$ctl' --json apply >'$r/apply.json'"
check "apply created the candidate of $E" has_driver "$cand_e"
check "the candidate wins $E" test "$(first_of "$E")" = "$cand_e"
check "a second apply" bash -c "'$ctl' --json apply >'$r/apply2.json'"
check "the second apply changes nothing: the instance has its candidate's figures" \
	test "$(jget "$r/apply2.json" "len(d['steps'])")" = 0
check "a new SA is built on the candidate" sa_on "$cand_e" 0x201
ip xfrm state flush
check "the SA let go of the candidate" wait_until 20 test "$(refcnt "$cand_e")" -le 1
check "reset" "$ctl" reset
check "reset removed the candidate" lacks_driver "$cand_e"

# 3. through AF_ALG the candidate is unreachable, and nothing appears
drivers_now >"$r/before-afalg"
check "calibrate $E through AF_ALG" \
	bash -c "'$ctl' --json calibrate '$E' --size 4096 --budget 10s --backend af_alg --force >'$r/cal-afalg.json'"
check "the candidate unreachable through AF_ALG" \
	test "$(verdict "$r/cal-afalg.json" "$cand_e")" = unreachable
drivers_now >"$r/after-afalg"
check "AF_ALG's calibrate left the kernel's list as it was" diff "$r/before-afalg" "$r/after-afalg"
