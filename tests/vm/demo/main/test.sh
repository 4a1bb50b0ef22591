# The demo (scripts/demo): what cryptoprio sees, measures and changes on a
# real kernel with an offload engine. Everything shown is also in demo.txt.
out=$CP_RESULTS/demo.txt
modprobe_q virtio_pci virtio_crypto "$cpu_aes_module" crypto_user xfrm_user esp4 authenc echainiv
modprobe -q crypto-hmac || true
modprobe -q crypto-sha256 || true
wait_for_driver virtio_crypto_aes_cbc
wait_for_driver "$cpu_cbc"
[[ -f $CP_KMOD/cryptoprio.ko ]] && insmod "$CP_KMOD/cryptoprio.ko"

# The build's cryptoprioctl itself, as the steps show it (no --json to keep here).
ctl=$CP_BUILD/cli/cryptoprioctl
step() { printf '\n$ %s\n' "$*"; "$@"; }
sa_driver() { sed -n 's/^driver *: \(authenc(.*)\)$/\1/p' /proc/crypto | tail -n 1; }
# new_sa SPI: an IPsec SA (lib.sh's add_sa), and what it is built on.
new_sa() {
	add_sa "$1"
	echo "A new IPsec SA (spi $1) is built on: $(sa_driver)"
}
{
	echo "Kernel $(uname -r) ($(uname -m)) under QEMU TCG; QEMU's virtio-crypto is the offload engine."
	echo "Like NXP CAAM, the engine ships a priority that makes it win for every user:"
	step "$ctl" set virtio_crypto_aes_cbc 3000
	step "$ctl" list 'cbc(aes)'
	new_sa 0x100
	echo
	echo "cryptoprio measures every implementation (companion module: engines included):"
	step "$ctl" calibrate 'cbc(aes)' --budget 10s
	echo
	echo "The default policy: CPU first gear, offload second, ranked at 4 KiB, depth 1:"
	step "$ctl" plan
	step "$ctl" apply
	step "$ctl" list 'cbc(aes)'
	new_sa 0x101
	step "$ctl" resolve 'cbc(aes)'
	step "$ctl" status
} 2>&1 | tee "$out"
