# Bad input to set/reset: a precise one-line error, the documented exit code,
# and the kernel's priorities unchanged.
#
# In CI on 7.2 only: depends only on cryptoprio (its argument checks).
modprobe_q virtio_pci virtio_crypto "$cpu_aes_module" crypto_user
wait_for_driver virtio_crypto_aes_cbc

priority_snapshot >"$CP_RESULTS/before.txt"
long=$(printf 'x%.0s' $(seq 70))

# expect_error EXIT PATTERN ARGS...: the command fails with EXIT and one line matching PATTERN
expect_error() {
	local want=$1 pattern=$2 rc=0 err
	shift 2
	err=$("$@" 2>&1 >/dev/null) || rc=$?
	printf '%s -> %d: %s\n' "$*" "$rc" "$err"
	[[ $rc -eq $want ]] || { echo "exit $rc, want $want"; return 1; }
	grep -qE "$pattern" <<<"$err" || { echo "message does not match $pattern"; return 1; }
}

check "unknown driver: exit 1" expect_error 1 "no crypto implementation with driver name 'no-such-driver'" \
	"$ctl" set no-such-driver 10
check "priority -1: exit 2" expect_error 2 "priority '-1' is not a number in 0..2147483647" \
	"$ctl" set virtio_crypto_aes_cbc -1
check "priority 2^31: exit 2" expect_error 2 "priority '2147483648' is not a number" \
	"$ctl" set virtio_crypto_aes_cbc 2147483648
check "priority 12abc: exit 2" expect_error 2 "priority '12abc' is not a number" \
	"$ctl" set virtio_crypto_aes_cbc 12abc
check "70-byte driver name: exit 2" expect_error 2 "is 70 bytes; crypto_user can address names of at most 63" \
	"$ctl" set "$long" 10
check "missing argument: exit 2" expect_error 2 "expected DRIVER PRIORITY" "$ctl" set virtio_crypto_aes_cbc
check "resolve of a name the kernel does not list: exit 1, the types named" \
	expect_error 1 "the kernel lists no 'no-such-alg' of a type the module serves \\(skcipher, aead, hash, acomp, akcipher, kpp\\); name its type with --type" \
	"$ctl" resolve no-such-alg
check "unknown verb: exit 2" expect_error 2 "unknown verb 'frobnicate'" "$ctl" frobnicate
check "unknown option: exit 2" expect_error 2 "unknown option '--bogus'" "$ctl" set --bogus x 1
check "without CAP_NET_ADMIN: exit 1" expect_error 1 "needs CAP_NET_ADMIN" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ctl" set virtio_crypto_aes_cbc 3000
check "reset without CAP_NET_ADMIN: exit 1" expect_error 1 "needs CAP_NET_ADMIN" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ctl" reset
check "reset of a driver never changed: exit 1" \
	expect_error 1 "no original priority recorded for '$cpu_cbc'" "$ctl" reset "$cpu_cbc"
check "/proc/crypto: every priority unchanged" priorities_as "$CP_RESULTS/before.txt"
check "no state was written" test ! -e "$state"
check "--help lists the verbs" bash -c '"$1" --help | grep -q "set \\[--wait TIME\\] DRIVER PRIORITY"' _ "$ctl"
check "--version" bash -c '"$1" --version | grep -qE "^cryptoprioctl [0-9]"' _ "$ctl"
