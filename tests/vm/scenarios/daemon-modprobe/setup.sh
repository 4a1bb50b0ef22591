# virtio_crypto is kept out of udev's coldplug (blacklist applies to alias
# loads only): the engine appears only when the scenario loads it, after
# the daemon is up.
install_cryptoprio_unit
echo 'blacklist virtio_crypto' >/etc/modprobe.d/cp-test-no-virtio-crypto.conf
cat >/etc/cryptoprio.conf <<'CONF'
[Driver virtio_crypto_aes_cbc]
Priority = 1234
CONF
chmod 0644 /etc/cryptoprio.conf
