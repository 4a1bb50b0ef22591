# Before systemd starts: the unit enabled, and cp_caam_engine loaded by
# systemd-modules-load with what it computes with, as an engine's driver
# would be at boot (the guest root has no udevd to coldplug the CPU's AES module).
# Calibrate = never: the order is by gear alone.
install_cryptoprio_unit
printf 'install cp_caam_engine /sbin/modprobe -qa %s; /sbin/insmod %s/cp_caam_engine.ko\n' \
	"$cpu_aes_module authenc echainiv cbc ecb ctr seqiv crypto-sha256 crypto-hmac" "$CP_KMOD" \
	>/etc/modprobe.d/cp-test-caam-engine.conf
printf 'crypto_user\ncp_caam_engine\n' >/etc/modules-load.d/cp-test-caam-engine.conf
printf '[Policy]\nCalibrate = never\n' >/etc/cryptoprio.conf
chmod 0644 /etc/cryptoprio.conf
