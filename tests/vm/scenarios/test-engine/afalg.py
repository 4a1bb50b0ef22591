"""The engine's cbc(aes), sha256 and hmac(sha256) through AF_ALG, against
the CPU's cbc(aes) (tests/vm/lib.sh's cpu_cbc) and Python's hashlib/hmac: whatever the engine's completion
parameter says (async, sync, inline), AF_ALG's wait for the request must
end with the right output. Kernels before 7.2 only: from 7.2 on, AF_ALG
binds CPU implementations only. Argument: the engine's completion
parameter file, set to each mode in turn and left at async. Exit 0 if all
match."""
import hashlib
import hmac
import os
import socket
import sys


def skcipher(driver, key, iv, data):
    with socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0) as s:
        s.bind(("skcipher", driver))
        s.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, key)
        op, _ = s.accept()
        with op:
            op.sendmsg_afalg([data], op=socket.ALG_OP_ENCRYPT, iv=iv)
            return op.recv(len(data))


def digest(driver, data, key=None):
    with socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0) as s:
        s.bind(("hash", driver))
        if key is not None:
            s.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, key)
        op, _ = s.accept()
        with op:
            op.sendall(data)
            return op.recv(64)


def check_all(mode):
    ok = True
    for size in (16, 4096, 16384):
        key, iv, data = os.urandom(16), os.urandom(16), os.urandom(size)
        hkey = os.urandom(32)
        got = {
            "cbc(aes)": skcipher("cp_test_engine_cbc_aes", key, iv, data),
            "sha256": digest("cp_test_engine_sha256", data),
            "hmac(sha256)": digest("cp_test_engine_hmac_sha256", data, hkey),
        }
        want = {
            "cbc(aes)": skcipher(os.environ["cpu_cbc"], key, iv, data),
            "sha256": hashlib.sha256(data).digest(),
            "hmac(sha256)": hmac.new(hkey, data, hashlib.sha256).digest(),
        }
        for name in got:
            same = got[name] == want[name]
            print(f"completion {mode}: {name} {size} B: {'ok' if same else 'MISMATCH'}")
            ok &= same
    return ok


def main():
    param = sys.argv[1]
    ok = True
    try:
        for mode in ("async", "sync", "inline"):
            with open(param, "w") as f:
                f.write(mode)
            ok &= check_all(mode)
    finally:
        with open(param, "w") as f:
            f.write("async")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
