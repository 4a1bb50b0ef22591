install_cryptoprio_unit
cat >/etc/cryptoprio.conf <<'CONF'
[Policy]
Gears = cpu offload

[Driver virtio_crypto_aes_cbc]
Priority = 1234
Pin = first
Exclude = yes
CONF
chmod 0644 /etc/cryptoprio.conf
