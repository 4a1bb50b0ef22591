# An invalid policy at boot: nothing applied, the errors logged with
# file:line, the unit failed (in systemctl --failed).
svc=cryptoprio.service
journalctl -b -u $svc --no-pager | tee "$CP_RESULTS/journal.txt"
check "cryptoprio.service failed" test "$(unit_prop $svc ActiveState)" = failed
check "it is in systemctl --failed" bash -c "systemctl --failed --no-legend | grep -q $svc"
check "the errors are logged with file:line" \
	grep -qE '/etc/cryptoprio.conf:[0-9]+: ' "$CP_RESULTS/journal.txt"
check "nothing applied: no plan in the state file" \
	not grep -qs last_apply /run/cryptoprio/state.json
modprobe_q virtio_crypto
wait_for_driver virtio_crypto_aes_cbc 60
# No daemon runs (failed, not restarted): nothing can apply a policy later.
check "no daemon runs (MainPID 0, not restarted)" \
	test "$(unit_prop $svc MainPID)/$(unit_prop $svc NRestarts)" = 0/0
check "virtio_crypto_aes_cbc keeps the driver's 150" test "$(proc_crypto_prio virtio_crypto_aes_cbc)" = 150

# The modules-load.d entry for a module that is not installed.
{
	systemctl show -p ActiveState,Result systemd-modules-load.service
	journalctl -b -u systemd-modules-load.service --no-pager
} >"$CP_RESULTS/modules-load.txt"
check "a missing cryptoprio module does not fail systemd-modules-load" \
	test "$(unit_prop systemd-modules-load.service Result)" = success
journalctl -b -t systemd-modules-load --no-pager | tee -a "$CP_RESULTS/modules-load.txt"
check "systemd-modules-load says it did not find it" \
	grep -q "Failed to find module 'cryptoprio'" "$CP_RESULTS/modules-load.txt"
