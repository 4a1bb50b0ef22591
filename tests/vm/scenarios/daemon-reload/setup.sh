install_cryptoprio_unit -v
cat >/etc/cryptoprio.conf <<'CONF'
[Driver virtio_crypto_aes_cbc]
Priority = 1234
CONF
chmod 0644 /etc/cryptoprio.conf
