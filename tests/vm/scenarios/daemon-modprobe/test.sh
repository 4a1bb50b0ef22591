# A module loaded after the daemon is up (and one removed and loaded again,
# which resets its priorities) gets the policy within 5 s, without a restart.
svc=cryptoprio.service
check "cryptoprio.service is active" test "$(unit_prop $svc ActiveState)" = active
pid=$(unit_prop $svc MainPID)
check "virtio_crypto not loaded at boot" test ! -d /sys/module/virtio_crypto

modprobe_q virtio_crypto
check "virtio_crypto_aes_cbc registered and self-tested" wait_for_driver virtio_crypto_aes_cbc 60
secs=$(wait_for_prio virtio_crypto_aes_cbc 1234 5) && log "policy applied ${secs}s after self-test"
check "modprobe virtio_crypto: the policy's 1234 within 5 s" wait_for_prio virtio_crypto_aes_cbc 1234 5

# Then virtio-crypto-rsa may still be in its self-test (6.12 and 7.2 test
# after modprobe returns, in the background), which holds the module: rmmod
# would fail with "in use". The daemon holds nothing of it (its run for the
# module measured nothing, and is over once the priority is set): rmmod must
# succeed as soon as the kernel is done.
check "the kernel's self-tests of virtio_crypto end" wait_for_selftests virtio_crypto 60
module_users virtio_crypto
check "rmmod virtio_crypto succeeds" rmmod virtio_crypto
check "rmmod: the engine is gone" bash -c '! grep -q "^driver *: virtio_crypto_aes_cbc" /proc/crypto'
modprobe_q virtio_crypto
check "reloaded: registered again" wait_for_driver virtio_crypto_aes_cbc 60
check "reloaded: 1234 again within 5 s" wait_for_prio virtio_crypto_aes_cbc 1234 5
check "no restart of the daemon" test "$(unit_prop $svc MainPID)" = "$pid"
check "still active" test "$(unit_prop $svc ActiveState)" = active

journalctl -b -u $svc -o json --no-pager >"$CP_RESULTS/journal.json"
journalctl -b -u $svc --no-pager | tee "$CP_RESULTS/journal.txt"
check "journal: the module events' changes, with the fields" python3 -c '
import json, sys
e = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
v = [x for x in e if x.get("CRYPTOPRIO_DRIVER") == "virtio_crypto_aes_cbc"
     and x.get("CRYPTOPRIO_TRIGGER") in ("module", "retry")]
assert len(v) == 2, [x["MESSAGE"] for x in v]
for x in v:
    assert x["CRYPTOPRIO_OLD_PRIORITY"] == "150" and x["CRYPTOPRIO_NEW_PRIORITY"] == "1234", x
' "$CP_RESULTS/journal.json"
"$CP_BUILD/cli/cryptoprioctl" status | tee "$CP_RESULTS/status.txt"
check "status counts the module events" grep -qE 'module events: [1-9]' "$CP_RESULTS/status.txt"

# A uevent forged by a user-space sender (root may send to the kernel's
# uevent group) is dropped: only the kernel (port 0) speaks for modules.
events() { python3 -c 'import json; print(json.load(open("/run/cryptoprio/state.json"))["daemon"]["module_events"])'; }
runs() { python3 -c 'import json; print(json.load(open("/run/cryptoprio/state.json"))["daemon"]["runs"])'; }
n_events=$(events) n_runs=$(runs)
python3 - <<'PY'
import os, socket
s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 15)  # NETLINK_KOBJECT_UEVENT
s.bind((os.getpid(), 0))
for verb in ("add", "remove"):
    s.sendto(f"{verb}@/module/virtio_crypto\0ACTION={verb}\0DEVPATH=/module/virtio_crypto\0"
             "SUBSYSTEM=module\0SEQNUM=999999\0".encode(), (0, 1))
PY
sleep 3
log "module events: $n_events -> $(events), runs: $n_runs -> $(runs)"
check "forged uevents: not counted" test "$(events)" = "$n_events"
check "forged uevents: no run" test "$(runs)" = "$n_runs"
check "forged uevents: the daemon is still the same" test "$(unit_prop $svc MainPID)" = "$pid"
