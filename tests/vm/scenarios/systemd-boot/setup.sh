# Before systemd starts: the unit enabled, the cryptoprio module installed
# (loaded on demand by the kernel), and a policy with a fixed priority for the
# engine (its module is loaded by the test, after the daemon's start) and the
# metrics in node_exporter's directory, which the unit may write.
install_cryptoprio_unit
install_cryptoprio_module || log "cryptoprio.ko not built for this kernel: AF_ALG calibration"
mkdir -p /var/lib/prometheus/node-exporter
cat >/etc/cryptoprio.conf <<'CONF'
[Policy]
MetricsFile = /var/lib/prometheus/node-exporter/cryptoprio.prom
[Driver virtio_crypto_aes_cbc]
Priority = 1234
CONF
chmod 0644 /etc/cryptoprio.conf
