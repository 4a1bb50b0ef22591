# What the module refuses, each with its reason shown by the CLI: an
# unprivileged caller (EPERM), a 2 MiB request, depth 65, a budget over 1 s,
# an unknown driver, missing attributes, a TYPE out of range and what each
# type refuses (DECRYPT, KEY_SIZE); and one run at a time (EBUSY).
#
# The module's own refusals, the same code on every kernel: the rotation.
py=/usr/bin/python3
modprobe_q "$cpu_aes_module" "$cpu_gcm_module" crypto_user
# shellcheck disable=SC2086 # (cpu_gcm_parts: none, or module names)
for m in $cpu_gcm_parts; do modprobe -q "$m" || log "modprobe $m failed (built in?)"; done
check "insmod cryptoprio.ko" insmod "$CP_KMOD/cryptoprio.ko"
# An AEAD of the CPU's, registered: on armhf gcm(aes) is the gcm
# template's instance, which the kernel builds once a user asks (an
# AF_ALG bind asks; on 7.2 from synchronous parts, under its own name).
cpu_gcm_registered() { [[ -n $(first_of 'gcm(aes)') ]]; }
if [[ $cpu_gcm_module == gcm ]]; then
	py 'import socket
socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0).bind(("aead", "gcm(aes)"))' ||
		log "AF_ALG could not build gcm(aes)"
	wait_until 60 cpu_gcm_registered || log "no gcm(aes) registered"
fi
aead=$(first_of 'gcm(aes)')
log "the CPU's AEAD: ${aead:-none}"

check "a valid request works (control)" "$ctl" calibrate --raw "$cpu_cbc" --size 16 --budget 20
check "unprivileged CALIBRATE: EPERM and the CAP_NET_ADMIN hint" \
	expect_fail 'needs CAP_NET_ADMIN \(run as root\)' \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ctl" calibrate --raw "$cpu_cbc" --size 16
check "unprivileged RESOLVE: EPERM, said in words" \
	expect_fail 'needs CAP_NET_ADMIN' \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ctl" resolve 'cbc(aes)'
check "size 2 MiB refused by the kernel" \
	expect_fail 'Invalid argument \(kernel: request size must be 1\.\.1048576 bytes' \
	"$ctl" calibrate --raw "$cpu_cbc" --size 2M
check "depth 65 refused by the kernel" \
	expect_fail 'Invalid argument \(kernel: depth must be 1\.\.64' \
	"$ctl" calibrate --raw "$cpu_cbc" --size 16 --depth 65
check "budget 1001 ms refused by the kernel" \
	expect_fail 'Invalid argument \(kernel: budget must be 1 ns\.\.1 s' \
	"$ctl" calibrate --raw "$cpu_cbc" --size 16 --budget 1001
check "buffers over 64 MiB refused by the kernel (1 MiB x 64 AEAD decryption)" \
	expect_fail 'Invalid argument \(kernel: depth x request size needs more than 64 MiB' \
	"$ctl" calibrate --raw "$aead" --type aead --size 1M --depth 64 --decrypt
check "64 MiB is allowed (1 MiB x 64 encryption), depth reached" \
	"$ctl" calibrate --raw "$cpu_cbc" --size 1M --depth 64 --budget 10
check "unknown driver refused by the kernel" \
	expect_fail 'No such file or directory \(kernel: no such driver of this type' \
	"$ctl" calibrate --raw no-such-driver --size 16
check "size not a multiple of the block size" \
	expect_fail 'kernel: request size is not a multiple of the block size' \
	"$ctl" calibrate --raw "$cpu_cbc" --size 17
check "missing REQ_SIZE (size 0 is left out)" \
	expect_fail 'kernel: missing attribute REQ_SIZE' \
	"$ctl" calibrate --raw "$cpu_cbc" --size 0
check "an algorithm name is not a driver" \
	expect_fail 'kernel: (an algorithm name, not a driver name|no such driver of this type)' \
	"$ctl" calibrate --raw 'pcbc(aes)' --size 16

# Missing DRIVER and TYPE: a raw generic netlink request without them.
cat >"$CP_RESULTS/raw.py" <<'PY'
import os, socket, struct, sys
NLMSG_ERROR, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME = 2, 16, 3, 2
NETLINK_EXT_ACK = 11
def attr(t, payload):
    l = 4 + len(payload)
    return struct.pack("HH", l, t) + payload + b"\0" * ((4 - l % 4) % 4)
def msg(typ, cmd, attrs, seq, flags):
    body = struct.pack("BBH", cmd, 1, 0) + attrs
    return struct.pack("IHHII", 16 + len(body), typ, flags, seq, 0) + body
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)
s.setsockopt(270, NETLINK_EXT_ACK, 1)
s.send(msg(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, attr(CTRL_ATTR_FAMILY_NAME, b"cryptoprio\0"), 1, 1))
r = s.recv(65536)
fam = None
off = 20
while off < len(r):
    l, t = struct.unpack_from("HH", r, off)
    if t == 1:
        fam = struct.unpack_from("H", r, off + 4)[0]
    off += (l + 3) & ~3
mode = sys.argv[1]
opts = dict(a.partition("=")[::2] for a in sys.argv[1:])  # NAME=VALUE, or NAME alone
attrs = b"" if mode == "nodriver" else attr(2, os.environ["cpu_cbc"].encode() + b"\0")  # DRIVER
attrs += attr(7, struct.pack("I", 16))  # REQ_SIZE
if mode not in ("nodriver", "notype"):
    attrs += attr(4, struct.pack("I", int(opts.get("type", 1))))  # TYPE, skcipher unless said
    attrs += attr(9, struct.pack("Q", 1000000))  # BUDGET_NS: 1 ms
if "grace" in opts:  # GRACE_NS (cryptoprioctl never sends one out of bounds)
    attrs += attr(20, struct.pack("Q", int(opts["grace"])))
if "keysize" in opts:  # KEY_SIZE
    attrs += attr(6, struct.pack("I", int(opts["keysize"])))
if "decrypt" in opts:  # DECRYPT
    attrs += attr(5, b"")
s.send(msg(fam, 1, attrs, 2, 1))  # NLM_F_REQUEST, no NLM_F_ACK: the answer ends with one
r = s.recv(65536)
typ = struct.unpack_from("H", r, 4)[0]
if typ != NLMSG_ERROR:
    r = s.recv(65536)  # the command's answer, then its ack
    acked = struct.unpack_from("H", r, 4)[0] == NLMSG_ERROR and struct.unpack_from("i", r, 16)[0] == 0
    print("reply, ack" if acked else "reply, no ack")
    sys.exit(0)
err = struct.unpack_from("i", r, 16)[0]
flags = struct.unpack_from("H", r, 6)[0]
orig_len = struct.unpack_from("I", r, 20)[0]
off = 20 + (16 if flags & 0x100 else (orig_len + 3) & ~3)  # NLM_F_CAPPED or the whole request
text = ""
while off + 4 <= len(r):
    l, t = struct.unpack_from("HH", r, off)
    if l < 4:
        break
    if t == 1:
        text = r[off + 4:off + l].rstrip(b"\0").decode()
    off += (l + 3) & ~3
print(err, text)
PY
out=$("$py" "$CP_RESULTS/raw.py" nodriver)
log "no DRIVER: $out"
check "missing DRIVER: EINVAL with a message" test "$out" = "-22 missing attribute DRIVER (driver name)"
out=$("$py" "$CP_RESULTS/raw.py" notype)
log "no TYPE: $out"
check "missing TYPE: EINVAL with a message" test "$out" = "-22 missing attribute TYPE (skcipher, aead, hash, acomp, akcipher or kpp)"
check "a complete raw request works: its reply, then an ack (control)" \
	test "$("$py" "$CP_RESULTS/raw.py" grace=100000000)" = "reply, ack"
for grace in 99999999 2000000001; do
	out=$("$py" "$CP_RESULTS/raw.py" grace=$grace)
	log "grace $grace ns: $out"
	check "grace $grace ns refused by the kernel" test "$out" = "-22 grace must be 100 ms..2 s"
done
out=$("$py" "$CP_RESULTS/raw.py" keysize=257)
log "key size 257: $out"
check "key size 257 bytes refused by the kernel" test "$out" = "-22 key size must be at most 256 bytes"
# What each type refuses, said in the module's words (cryptoprioctl sends
# no type out of range, and leaves out DECRYPT for a hash).
for t in 0 7; do
	out=$("$py" "$CP_RESULTS/raw.py" type=$t)
	log "TYPE $t: $out"
	check "TYPE $t refused by the kernel, every type named" test "$out" = \
		"-22 TYPE must be skcipher (1), aead (2), hash (3), acomp (4), akcipher (5) or kpp (6)"
done
while IFS='|' read -r what args want; do
	# shellcheck disable=SC2086 # $args: raw.py's words
	out=$("$py" "$CP_RESULTS/raw.py" $args </dev/null)
	log "$what: $out"
	check "$what refused by the kernel" test "$out" = "-22 $want"
done <<'EOF'
DECRYPT of a hash|type=3 decrypt|DECRYPT is for ciphers, not hashes
KEY_SIZE of a compressor|type=4 keysize=16|KEY_SIZE is for ciphers and keyed hashes, not compressors
DECRYPT of an akcipher|type=5 decrypt|DECRYPT needs a private key: only the public-key operation is measured
DECRYPT of a key agreement|type=6 decrypt|DECRYPT is not for key agreement: the shared-secret step is measured
KEY_SIZE of a key agreement|type=6 keysize=32|KEY_SIZE is not for key agreement: the module's private keys are fixed
DECRYPT and KEY_SIZE of a key agreement: DECRYPT's|type=6 decrypt keysize=32|DECRYPT is not for key agreement: the shared-secret step is measured
EOF

# crypto_user itself refuses an unprivileged UPDATEALG (cryptoprioctl refuses
# before sending, so only a raw request shows the kernel's own check).
cat >"$CP_RESULTS/updatealg.py" <<'PY'
import socket, struct, sys
CRYPTO_MSG_UPDATEALG, CRYPTOCFGA_PRIORITY_VAL = 0x12, 1
body = struct.pack("64s64s64sIIII", b"", sys.argv[1].encode(), b"", 0, 0, 0, 0)
body += struct.pack("HHI", 8, CRYPTOCFGA_PRIORITY_VAL, int(sys.argv[2]))
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 21)  # NETLINK_CRYPTO
s.send(struct.pack("IHHII", 16 + len(body), CRYPTO_MSG_UPDATEALG, 1 | 4, 1, 0) + body)
r = s.recv(65536)
print(struct.unpack_from("i", r, 16)[0])
PY
before=$(proc_crypto_prio "$cpu_cbc")
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$py" "$CP_RESULTS/updatealg.py" "$cpu_cbc" 7)
log "unprivileged UPDATEALG: $out"
check "unprivileged UPDATEALG: EPERM from crypto_user" test "$out" = -1
check "and the priority is unchanged" test "$(proc_crypto_prio "$cpu_cbc")" = "$before"
check "the same request as root works (control)" test "$("$py" "$CP_RESULTS/updatealg.py" "$cpu_cbc" "$before")" = 0

# One run at a time: a second run while one is going gets EBUSY. The first
# holds the module for five 1 s runs back to back, in one process; the
# second is tried once the first's run holds the driver (its tfm counted in
# /proc/crypto's refcnt). Tried earlier, the second could come first and
# have the first refused instead (seen on 7.2 under a loaded host).
base=$(refcnt "$cpu_cbc")
first_running() { (($(refcnt "$cpu_cbc") > base)); }
busy() {
	local try pid
	for try in 1 2 3; do
		"$ctl" calibrate --raw "$cpu_cbc" --size 65536,65536,65536,65536,65536 --budget 1000 \
			>/dev/null 2>&1 &
		pid=$!
		if wait_until 10 first_running &&
			expect_fail 'Device or resource busy \(kernel: another calibration is running' \
				"$ctl" calibrate --raw "$cpu_cbc" --size 16 --budget 1; then
			wait "$pid" || true
			return 0
		fi
		log "try $try: no EBUSY"
		wait "$pid" || true
	done
	return 1
}
check "a second run while one is going: EBUSY" busy
