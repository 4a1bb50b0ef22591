# The companion module refusing to load (modprobe.d "install cryptoprio
# /bin/false", as where Secure Boot refuses an unsigned module): the
# kernel's own autoload of its netlink family is tried and fails, and
# calibration falls back to AF_ALG, which plan, calibrate, the daemon and
# status say. On 7.2 AF_ALG binds only CPU code: the engines
# (virtio_crypto_aes_cbc, cp_test_engine_cbc_aes) are reported unreachable
# and placed by class alone, after the measured CPU code. On 6.1 AF_ALG
# still binds them: they are measured through af_alg like the rest.
#
# Kernel-dependent (AF_ALG reaching the engine, on 6.1 too): every kernel by
# rotation.
r=$CP_RESULTS
engines="virtio_crypto_aes_cbc cp_test_engine_cbc_aes"
[[ -f ${CP_KMOD:-}/cp_test_engine.ko ]] || fail "cp_test_engine.ko not built for this kernel"
modprobe_q virtio_pci virtio_crypto "$cpu_aes_module" crypto_user
wait_for_driver virtio_crypto_aes_cbc 60
wait_for_driver "$cpu_cbc"
insmod "$CP_KMOD/cp_test_engine.ko"
wait_for_driver cp_test_engine_cbc_aes

# The alias makes the kernel's request for the genl family reach the
# install line (cryptoprio.ko is not in this kernel's modules.dep at all,
# so without it the autoload would fail for want of a module, not refusal).
cat >/etc/modprobe.d/cp-test-refuse-cryptoprio.conf <<'CONF'
alias net-pf-16-proto-16-family-cryptoprio cryptoprio
install cryptoprio /bin/false
CONF
check "modprobe cryptoprio is refused" not modprobe cryptoprio
check "cryptoprio is not loaded" test ! -d /sys/module/cryptoprio
rm -f $cache /etc/cryptoprio.conf
mkdir -p /run/cp-test
pol=/run/cp-test/default.conf
# The built-in default policy (CPU first gear), with a budget that lets
# AF_ALG measure every workload point under TCG on a loaded machine (3 s
# measured one of five: each AF_ALG run costs far more than its slice).
printf '[Policy]\nCalibrationBudget = 20s\n' >$pol
chmod 0644 $pol

# plan: backend af_alg, why the module was not used, and per engine either
# unreachable (7.2) or measured (6.1).
dmesg_base=$(dmesg | wc -l)
"$ctl" -c $pol --json plan >"$r/plan.json"
dmesg | tail -n +$((dmesg_base + 1)) >"$r/dmesg-plan.txt"
check "the kernel tried to autoload the module's family, and modprobe refused" awk '
	/cp-vm modprobe: .*net-pf-16-proto-16-family-cryptoprio/ { asked = 1; next }
	asked && /cp-vm modprobe: rc=/ { rc = $NF; sub(/.*rc=/, "", rc); refused = rc != 0; exit }
	END { exit !refused }' "$r/dmesg-plan.txt"
check "plan: calibration through af_alg, the module's absence explained" python3 - "$r/plan.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["calibration"]
assert c["backend"] == "af_alg", c
assert c["module_error"], c
assert c["points_measured"] > 0, c
print("module_error:", c["module_error"])
PY
check "plan ($CP_KVER_ALIAS): the engines' places" python3 - "$r/plan.json" "$CP_KVER_ALIAS" <<'PY'
import json, os, sys
doc, kver = json.load(open(sys.argv[1])), sys.argv[2]
[g] = [g for g in doc["algorithms"] if g["name"] == "cbc(aes)"]
places = g["places"]
for p in places:
    print(p["driver"], p["class"], p["gear"], p["reason"], "-", p["why"])
by = {p["driver"]: p for p in places}
cpu = by[os.environ["cpu_cbc"]]
assert cpu["reason"] in ("ranked", "within-noise", "too-noisy") and places[0]["driver"] == cpu["driver"], cpu
for e in ("virtio_crypto_aes_cbc", "cp_test_engine_cbc_aes"):
    p = by[e]
    assert p["class"] == "offload", p
    if kver == "7.2":
        # Unreachable: placed by class (second gear), after the measured ones.
        assert p["reason"] == "not-measured" and "unreachable by calibration" in p["why"], p
    else:
        assert p["reason"] in ("ranked", "within-noise", "too-noisy"), p
PY

# calibrate: each engine's verdict and backend, at every point.
"$ctl" --json calibrate 'cbc(aes)' --force --budget 20s >"$r/calibrate.json" 2>"$r/calibrate.err"
cat "$r/calibrate.err"
check "calibrate: says it measures through AF_ALG because the module is not loaded" \
	grep -q '^cryptoprioctl: the cryptoprio module is not loaded (modprobe cryptoprio): measuring through AF_ALG' "$r/calibrate.err"
check "calibrate --backend module: the module is not loaded, said in words" \
	expect_fail '^cryptoprioctl: calibrate: --backend module: the cryptoprio module is not loaded \(modprobe cryptoprio\)$' \
	"$ctl" calibrate 'cbc(aes)' --backend module --force
check "calibrate ($CP_KVER_ALIAS): verdicts through af_alg" python3 - "$r/calibrate.json" "$CP_KVER_ALIAS" <<'PY'
import json, os, sys
doc, kver = json.load(open(sys.argv[1])), sys.argv[2]
assert doc["backend"] == "af_alg", doc["backend"]
impl = {i["driver"]: i for a in doc["algorithms"] for i in a["implementations"]}
for d, i in impl.items():
    print(d, i["backend"], sorted({p["verdict"] for p in i["points"]}))
a = impl[os.environ["cpu_cbc"]]
assert a["backend"] == "af_alg" and any(p["verdict"] == "measured" for p in a["points"]), a
for e in ("virtio_crypto_aes_cbc", "cp_test_engine_cbc_aes"):
    i = impl[e]
    verdicts = {p["verdict"] for p in i["points"]}
    if kver == "7.2":
        assert verdicts == {"unreachable"}, (e, verdicts)
    else:
        # 6.1 binds async engines through AF_ALG: measured at the workload
        # point at least (the budget may leave some of the ladder out).
        assert i["backend"] == "af_alg" and "measured" in verdicts, (e, verdicts)
        assert not verdicts & {"unreachable", "error", "faulty", "timeout"}, (e, verdicts)
PY

# The daemon: the engine raised to 3000 first, so the default policy (CPU
# first) has something to change; --once applies through crypto_user all
# the same, and says its calibration went through af_alg.
"$ctl" set virtio_crypto_aes_cbc 3000 >/dev/null
"$ctl" set cp_test_engine_cbc_aes 2999 >/dev/null
rm -f $cache
rc=0
"$daemon" --once -c $pol 2>"$r/once.err" || rc=$?
cat "$r/once.err"
check "daemon --once: exit 0" test "$rc" = 0
check "daemon: the summary names the af_alg backend" \
	grep -qE '^cryptoprio-daemon: Policy applied \(start\): [1-9][0-9]* changed, 0 failed.*; calibration af_alg, 0 from cache, [1-9][0-9]* measured' \
	"$r/once.err"
check "daemon: $cpu_cbc is the cbc(aes) winner" test "$(first_of 'cbc(aes)')" = "$cpu_cbc"
cpu_prio=$(proc_crypto_prio "$cpu_cbc")
for e in $engines; do
	check "daemon: $e below $cpu_cbc ($cpu_prio)" test "$(proc_crypto_prio $e)" -lt "$cpu_prio"
done
if [[ $CP_KVER_ALIAS == 7.2 ]]; then
	# At the default log level: which engines the calibration could not reach.
	for e in $engines; do
		check "daemon (7.2): says $e was unreachable by calibration" \
			grep -qE "$e.*unreachable" "$r/once.err"
	done
fi
"$ctl" status | tee "$r/status.txt"
check "status: the last plan's calibration backend is af_alg" \
	grep -qE '^Last plan applied: .* by cryptoprio-daemon .*calibration backend af_alg' "$r/status.txt"

# Several runs in one daemon (a 1 ms budget leaves names for after READY,
# each its own run): the fallback is how this machine is, said once.
printf '[Policy]\nCalibrationBudget = 1ms\n' >"$pol.1ms"
rm -f $cache
"$daemon" --once -c "$pol.1ms" 2>"$r/once-1ms.err" || true
cat "$r/once-1ms.err"
check "daemon: names measured after READY, in runs of their own" \
	grep -qE '^cryptoprio-daemon: Measuring [0-9]+ names? the budget left' "$r/once-1ms.err"
check "daemon: says once that it calibrates through AF_ALG, and why" test \
	"$(grep -c '^cryptoprio-daemon: Calibrating through AF_ALG: the cryptoprio module is not loaded (nor found by modprobe)$' "$r/once-1ms.err")" = 1
check "the module was not loaded behind our back" test ! -d /sys/module/cryptoprio
