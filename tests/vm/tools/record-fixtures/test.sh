# Not part of the suite: run it with
#   CRYPTOPRIO_VM_SCENARIOS=tests/vm/tools tests/vm/run -k 6.1 -k 7.2 record-fixtures
# Records what the unit tests parse: a crypto_user dump as the kernel sends it
# and /proc/crypto, with virtio-crypto and aesni loaded. Copy the results into
# tests/unit/fixtures/ (see tests/vm/README.md); the check keeps this honest.
modprobe_q virtio_pci virtio_crypto aesni_intel crypto_user
wait_for_driver virtio_crypto_aes_cbc
wait_for_driver cbc-aes-aesni
check "dump recorded" "$CP_BUILD/tests/tools/record-dump" "$CP_RESULTS/crypto-user-dump-$CP_KVER_ALIAS.bin"
cp /proc/crypto "$CP_RESULTS/proc-crypto-$CP_KVER_ALIAS.txt"
check "dump is not empty" test -s "$CP_RESULTS/crypto-user-dump-$CP_KVER_ALIAS.bin"
