"""The GIL is released for large inputs, and a context used by two threads at
once raises instead of being corrupted."""
from __future__ import annotations

import os
import threading
import time

import fastblock

BIG = 8 << 20  # 3DES-CBC encryption is serial: tens of ms even on fast machines


def ticks_during(fn):
    """How often another Python thread ran while fn ran."""
    stop = threading.Event()
    count = [0]
    started = threading.Event()

    def spin():
        started.set()
        while not stop.is_set():
            count[0] += 1
    t = threading.Thread(target=spin)
    t.start()
    started.wait()
    time.sleep(0.01)
    before = count[0]
    t0 = time.perf_counter()
    fn()
    took = time.perf_counter() - t0
    after = count[0]
    stop.set()
    t.join()
    return after - before, took


def test_gil_released_for_one_shot_stream_and_batch():
    key, iv = os.urandom(24), os.urandom(8)
    data = os.urandom(BIG)
    ctx = fastblock.Cipher("des-ede3-cbc", key, iv).encryptor()
    # The batch runs on the multi-stream engine, which does 8 MB in a few ms
    # on AVX-512: too short for the other thread to be woken reliably on a
    # shared 2-vCPU machine, so it gets the same records 16 times over.
    recs = [data[i:i + 4096] for i in range(0, BIG, 4096)] * 16
    for fn in (lambda: fastblock.encrypt("des-ede3-cbc", key, data, iv),
               lambda: ctx.update(data),
               lambda: fastblock.batch_encrypt("des-ede3-cbc", key, recs, [iv] * len(recs))):
        ticks, took = ticks_during(fn)
        # With the GIL held the spinning thread cannot run at all during the
        # call (one switch interval at most); released, it spins throughout.
        assert ticks > 1000, (ticks, took)


def test_context_shared_between_threads_raises():
    key, iv = os.urandom(24), os.urandom(8)
    data = os.urandom(BIG)
    ctx = fastblock.Cipher("des-ede3-cbc", key, iv).encryptor()
    errors = []
    done = threading.Event()

    def other():
        while not done.is_set():
            try:
                ctx.update(b"")
            except RuntimeError as e:
                errors.append(e)
                return
    t = threading.Thread(target=other)
    t.start()
    ctx.update(data)
    done.set()
    t.join()
    assert errors, "the second thread never saw the busy context"
    assert "two threads" in str(errors[0])


def test_threads_agree_with_serial_results():
    key = os.urandom(32)
    msgs = [os.urandom(100_000 + i) for i in range(8)]
    ivs = [os.urandom(16) for _ in msgs]
    want = [fastblock.encrypt("serpent-256-ctr", key, m, v) for m, v in zip(msgs, ivs)]
    got = [None] * len(msgs)

    def work(i):
        for _ in range(5):
            got[i] = fastblock.encrypt("serpent-256-ctr", key, msgs[i], ivs[i])
    ts = [threading.Thread(target=work, args=(i,)) for i in range(len(msgs))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert got == want


def _oracle(name, key, iv, data, encrypt):
    """The bytes of an independent library for a parallel mode: pycryptodome
    for 3DES (cryptography has no 3DES-CTR), cryptography for AES."""
    if name.startswith("des-ede3"):
        from Crypto.Cipher import DES3
        m = name.rsplit("-", 1)[1]
        c = (DES3.new(key, DES3.MODE_CTR, nonce=b"", initial_value=iv) if m == "ctr"
             else DES3.new(key, DES3.MODE_CBC, iv=iv))
        return c.encrypt(data) if encrypt else c.decrypt(data)
    from cryptography.hazmat.primitives.ciphers import Cipher as C, algorithms, modes
    alg = algorithms.AES(key)
    mode = {"ctr": lambda: modes.CTR(iv), "xts": lambda: modes.XTS(iv), "ecb": lambda: modes.ECB(),
            "cbc": lambda: modes.CBC(iv), "cfb": lambda: modes.CFB(iv)}[name.rsplit("-", 1)[1]]()
    ctx = C(alg, mode).encryptor() if encrypt else C(alg, mode).decryptor()
    return ctx.update(data) + ctx.finalize()


def test_threads_give_the_same_bytes():
    """threads=True: 2 MB and more run on every CPU; the bytes are the oracle's
    and those of one thread, one-shot and streamed in uneven pieces."""
    rng = os.urandom
    cases = [("des-ede3-ctr", 24, 8, True), ("des-ede3-cbc", 24, 8, False), ("aes-128-xts", 32, 16, True),
             ("aes-256-ctr", 32, 16, True), ("aes-128-ecb", 16, 0, True), ("aes-128-cfb", 16, 16, False)]
    for name, kl, ivl, enc in cases:
        key, iv = rng(kl), (rng(ivl) if ivl else None)
        n = (5 << 20) + 3 * 16 if name.endswith(("ecb", "cbc")) else (5 << 20) + 5
        data = rng(n)
        f = fastblock.encrypt if enc else fastblock.decrypt
        want = _oracle(name, key, iv, data, enc)
        assert f(name, key, data, iv, "none" if name.endswith(("ecb", "cbc")) else None, threads=True) == want, name
        c = fastblock.Cipher(name, key, iv, padding="none" if name.endswith(("ecb", "cbc")) else None, threads=True)
        ctx = c.encryptor() if enc else c.decryptor()
        cuts = [0, 1, (3 << 20) + 7, (3 << 20) + 9, n]
        got = b"".join(ctx.update(data[a:b]) for a, b in zip(cuts, cuts[1:])) + ctx.finalize()
        assert got == want, name
