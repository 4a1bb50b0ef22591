# Smoke test of the VM environment: the offload engine (virtio-crypto), the
# kernel's crypto user APIs and a real IPsec client.
modprobe_q virtio_pci virtio_crypto crypto_user af_alg algif_skcipher xfrm_user esp4
# No udev in the VM: load the CPU's AES module as udev would.
modprobe_q aesni_intel

log "kernel $(uname -r) ($CP_KVER_ALIAS); modprobe is $(cat /proc/sys/kernel/modprobe)"
check "/proc/sys/kernel/modprobe is /sbin/modprobe" \
	test "$(cat /proc/sys/kernel/modprobe)" = /sbin/modprobe
check "virtio_crypto_aes_cbc registered and self-tested" \
	wait_for_driver virtio_crypto_aes_cbc 60
check "cbc-aes-aesni present" has_driver cbc-aes-aesni
log "priorities: virtio_crypto_aes_cbc=$(proc_crypto_prio virtio_crypto_aes_cbc || echo -)" \
	"cbc-aes-aesni=$(proc_crypto_prio cbc-aes-aesni || echo -)"

key16=0x000102030405060708090a0b0c0d0e0f
key32=${key16}000102030405060708090a0b0c0d0e0f
check "ip xfrm state add (esp, cbc(aes), hmac(sha256))" \
	ip xfrm state add src 127.0.0.1 dst 127.0.0.2 proto esp spi 0x100 \
	enc 'cbc(aes)' "$key16" auth 'hmac(sha256)' "$key32"
# The instance built for it: name authenc(hmac(sha256),cbc(aes)), driver
# e.g. authenc(hmac(sha256-generic),cbc-aes-aesni) (6.1) or
# authenc(hmac-sha256-lib,cbc-aes-aesni) (7.2).
authenc=$(awk '
	/^$/ { hit = 0 }
	$1 == "name" && $3 == "authenc(hmac(sha256),cbc(aes))" { hit = 1 }
	hit && $1 == "driver" { print $3; exit }' /proc/crypto)
log "authenc driver: ${authenc:-none}"
check "an authenc(hmac(sha256),cbc(aes)) instance is in /proc/crypto" test -n "$authenc"
check "it uses cbc-aes-aesni (the winning cbc(aes))" \
	test "${authenc##*,}" = "cbc-aes-aesni)"
check "modules listed" grep -q '^virtio_crypto ' /proc/modules

if [[ -n ${CP_RESULTS:-} && -d $CP_RESULTS ]]; then
	cp /proc/crypto "$CP_RESULTS/proc-crypto.txt"
fi
