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
    recs = [data[i:i + 4096] for i in range(0, BIG, 4096)]
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
