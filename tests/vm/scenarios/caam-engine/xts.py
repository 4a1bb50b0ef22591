"""The engine's xts(aes) through AF_ALG against the CPU's (tests/vm/lib.sh's
cpu_xts), for sizes with and without ciphertext stealing: argument "ok",
the engine encrypts as the CPU does and decrypts its own output back;
"wrong", each of its ciphertexts differs from the CPU's. Kernels before 7.2 only: from 7.2 on,
AF_ALG binds CPU implementations only. Exit 0 if all is as expected."""
import os
import socket
import sys


def xts(driver, key, iv, data, op):
    with socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0) as s:
        s.bind(("skcipher", driver))
        s.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, key)
        c, _ = s.accept()
        with c:
            c.sendmsg_afalg([data], op=op, iv=iv)
            return c.recv(len(data))


want_ok = sys.argv[1] == "ok"
good = True
for size in (16, 17, 31, 512, 1000, 4096):
    for keylen in (32, 64):
        key, iv, data = os.urandom(keylen), os.urandom(16), os.urandom(size)
        ref = xts(os.environ["cpu_xts"], key, iv, data, socket.ALG_OP_ENCRYPT)
        got = xts("xts-aes-cp-caam", key, iv, data, socket.ALG_OP_ENCRYPT)
        back = xts("xts-aes-cp-caam", key, iv, ref, socket.ALG_OP_DECRYPT)
        same = got == ref
        print(f"size {size} key {keylen * 4} bits: encrypt same as the CPU: {same},"
              f" decrypt gives the text back: {back == data}")
        if want_ok and not (same and back == data):
            good = False
        if not want_ok and same:
            good = False
sys.exit(0 if good else 1)
