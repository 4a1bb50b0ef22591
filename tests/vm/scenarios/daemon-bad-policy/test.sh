# An invalid policy at boot: nothing applied, the errors logged with
# file:line, the unit failed (in systemctl --failed).
#
# Depends only on cryptoprio (policy files): not in CI's matrix, by
# rotation.
svc=cryptoprio.service
journalctl -b -u $svc --no-pager | tee "$CP_RESULTS/journal.txt"
check "cryptoprio.service failed" test "$(unit_prop $svc ActiveState)" = failed
check "it is in systemctl --failed" bash -c "systemctl --failed --no-legend | grep -q $svc"
check "the errors are logged with file:line" \
	grep -qE '/etc/cryptoprio.conf:[0-9]+: ' "$CP_RESULTS/journal.txt"
check "nothing applied: no plan in the state file" \
	not grep -qs last_apply "$state"
modprobe_q virtio_crypto
wait_for_driver virtio_crypto_aes_cbc 60
# No daemon runs (failed, not restarted): nothing can apply a policy later.
check "no daemon runs (MainPID 0, not restarted)" \
	test "$(unit_prop $svc MainPID)/$(unit_prop $svc NRestarts)" = 0/0
check "virtio_crypto_aes_cbc keeps the driver's 150" test "$(proc_crypto_prio virtio_crypto_aes_cbc)" = 150

