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
# modules-load.d names the cryptoprio module, which is not installed here
# (no install line, not in /lib/modules): what systemd-modules-load does then.
cp "$CP_SRC/conf/modules-load.d/cryptoprio.conf" /etc/modules-load.d/
