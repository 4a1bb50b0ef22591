# Not part of the suite: run it with
#   CRYPTOPRIO_VM_SCENARIOS=tests/vm/tools tests/vm/run -k 6.1 -k 7.2 record-fixtures
#   CRYPTOPRIO_VM_SCENARIOS=tests/vm/tools tests/vm/run -a arm64 -k 6.1 -k 7.2 record-fixtures
#   CRYPTOPRIO_VM_SCENARIOS=tests/vm/tools tests/vm/run -a armhf -k 6.1 -k 7.2 record-fixtures
# Records what the unit tests parse: a crypto_user dump as the kernel sends it
# and /proc/crypto, with virtio-crypto and the CPU's AES (and AES-GCM)
# loaded, named by kernel (6.1, 7.2) on x86_64 and by arch and kernel
# (arm64-6.1, armhf-6.1) otherwise. Copy the results into tests/unit/fixtures/ (see
# tests/vm/README.md); the check keeps this honest. On armhf the scalar AES
# and SHA-256 (aes-arm, sha256-asm and sha256-neon) are loaded first: the
# CBC encryption of cbc-aes-neonbs is then built on aes-arm, as where
# udev loaded them at boot.
[[ $(uname -m) != armv7* ]] || modprobe_q aes_arm sha256_arm
modprobe_q virtio_pci virtio_crypto "$cpu_aes_module" "$cpu_gcm_module" crypto_user
wait_for_driver virtio_crypto_aes_cbc
wait_for_driver "$cpu_cbc"
name=$CP_KVER_ALIAS
[[ $(uname -m) == x86_64 ]] || name=$(uname -m | sed 's/^aarch64$/arm64/; s/^armv7.*/armhf/')-$CP_KVER_ALIAS
check "dump recorded" "$CP_BUILD/tests/tools/record-dump" "$CP_RESULTS/crypto-user-dump-$name.bin"
cp /proc/crypto "$CP_RESULTS/proc-crypto-$name.txt"
check "dump is not empty" test -s "$CP_RESULTS/crypto-user-dump-$name.bin"
