# Before systemd starts: the unit enabled, and crypto_user made impossible
# to load, by name (install) and by the kernel's autoload when the daemon
# opens its NETLINK_CRYPTO socket (blacklist: the alias net-pf-16-proto-21
# is ignored). The CPU's AES module loaded by systemd-modules-load, and a
# policy that would change its cbc(aes) if it could: so "nothing changed" means
# something.
install_cryptoprio_unit
install_cryptoprio_module || log "cryptoprio.ko not built for this kernel"
printf 'blacklist crypto_user\ninstall crypto_user /bin/false\n' \
	>/etc/modprobe.d/cp-test-no-crypto-user.conf
echo "$cpu_aes_module" >/etc/modules-load.d/cp-test-cpu-aes.conf
cat >/etc/cryptoprio.conf <<CONF
[Driver $cpu_cbc]
Priority = 1234
CONF
chmod 0644 /etc/cryptoprio.conf
