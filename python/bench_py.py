#!/usr/bin/env python3
"""Measures the Python package beside pycryptodome and pyca/cryptography in
the same process and run (a benchmark, not a test; the figures go in
docs/python.md).

    python python/bench_py.py [--cli build/fastblock] [--quick]

1. Per-call cost of one-shot calls on 16- and 64-byte messages (a new key
   schedule each call, as a one-shot call in every library does):
   des-ede3-ecb, des-ede3-cbc, aes-128-cbc. Median over repetitions of
   batches of calls.
2. 8 KB messages through fastblock.encrypt, through a kept key
   (update) and through CipherContext.message (kept key, a new IV per
   message) against the C harness's figure (`fastblock speed --json`, same
   machine, same run) for des-ede3-ctr, aes-128-ctr and serpent-128-ctr.
3. batch_decrypt of many 16-byte 3DES-CBC records, each with its own IV,
   against Python loops over cryptography and pycryptodome.
4. Two threads encrypting separate messages against one thread doing both.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
import warnings

# python/fastblock (the sources, without the built extension) must not
# shadow the installed package: drop this script's folder from the path.
_here = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != _here]
import fastblock  # noqa: E402

warnings.simplefilter("ignore")


def per_call(fn, calls, reps):
    """Median seconds per call over reps batches of calls."""
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        ts.append((time.perf_counter() - t) / calls)
    return statistics.median(ts)


def single_calls(fn, n):
    """(median, min) seconds of n individually timed calls: on a loaded,
    shared machine a call that was preempted is an outlier, as in the C
    harness, which takes the minimum and the median of short samples."""
    ts = []
    clock = time.perf_counter_ns
    for _ in range(n):
        t = clock()
        fn()
        ts.append(clock() - t)
    return statistics.median(ts) / 1e9, min(ts) / 1e9


def peers_oneshot(name, key, iv, data):
    out = {}
    try:
        from Crypto.Cipher import AES, DES3
        if name == "des-ede3-ecb":
            out["pycryptodome"] = lambda: DES3.new(key, DES3.MODE_ECB).encrypt(data)
        elif name == "des-ede3-cbc":
            out["pycryptodome"] = lambda: DES3.new(key, DES3.MODE_CBC, iv=iv).encrypt(data)
        elif name == "aes-128-cbc":
            out["pycryptodome"] = lambda: AES.new(key, AES.MODE_CBC, iv=iv).encrypt(data)
    except ImportError:
        pass
    try:
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        try:
            from cryptography.hazmat.decrepit.ciphers.algorithms import TripleDES
        except ImportError:
            TripleDES = algorithms.TripleDES
        alg = (lambda: TripleDES(key)) if name.startswith("des") else (lambda: algorithms.AES(key))
        mode = (lambda: modes.ECB()) if name.endswith("ecb") else (lambda: modes.CBC(iv))

        def crypt():
            e = Cipher(alg(), mode()).encryptor()
            return e.update(data) + e.finalize()
        out["cryptography"] = crypt
    except ImportError:
        pass
    return out


def bench_oneshot(quick):
    rows = []
    calls, reps = (2000, 7) if quick else (5000, 21)
    for name in ("des-ede3-ecb", "des-ede3-cbc", "aes-128-cbc"):
        c = {x.name: x for x in fastblock.ciphers()}[name]
        key = fastblock.des_set_parity(os.urandom(c.key_len)) if name.startswith("des") else os.urandom(c.key_len)
        iv = os.urandom(c.iv_len) if c.iv_len else None
        for size in (16, 64):
            data = os.urandom(size)
            # the same padding-free work in every library
            fns = {"fastblock": lambda: fastblock.encrypt(name, key, data, iv, "none")}
            fns.update(peers_oneshot(name, key, iv, data))
            res = {lib: per_call(fn, calls, reps) for lib, fn in fns.items()}
            rows.append((name, size, res))
            line = "  ".join(f"{lib} {t * 1e9:7.0f} ns" for lib, t in res.items())
            ratios = "  ".join(f"{lib}/fastblock {t / res['fastblock']:.2f}x" for lib, t in res.items()
                               if lib != "fastblock")
            print(f"one-shot {name:13} {size:3} B: {line}   ({ratios})", flush=True)
    return rows


def c_harness(cli, name):
    r = subprocess.run([cli, "speed", "--cipher", name, "--size", "8192", "--json"], capture_output=True, text=True)
    if r.returncode:
        return None
    for rec in json.loads(r.stdout):
        if rec.get("library") == "fastblock" and rec.get("impl") == "default" and rec.get("op") == "encrypt":
            return rec
    return None


def bench_8k(cli, quick):
    rows = []
    for name in ("des-ede3-ctr", "aes-128-ctr", "serpent-128-ctr"):
        c = {x.name: x for x in fastblock.ciphers()}[name]
        key, iv = os.urandom(c.key_len), os.urandom(c.iv_len)
        data = os.urandom(8192)
        n = 1000 if quick else 5000
        med, best = single_calls(lambda: fastblock.encrypt(name, key, data, iv), n)
        ctx = fastblock.Cipher(name, key, iv).encryptor()
        smed, sbest = single_calls(lambda: ctx.update(data), n)
        mctx = fastblock.Cipher(name, key, iv).encryptor()
        mmed, mbest = single_calls(lambda: mctx.message(data, iv), n)
        # The floor of any Python call that returns 8 KB of new bytes: a C
        # method that only allocates and copies them.
        mv = memoryview(data)
        fmed, _ = single_calls(mv.tobytes, n)
        # The cost of the timing itself (two clock reads and a lambda), as
        # the C harness subtracts the cost of an empty call from its figures.
        emed, _ = single_calls(lambda: None, n)
        py = 8192 / med / 1e6
        py_net = 8192 / (med - emed) / 1e6
        line = (f"8 KB {name:16}: Python one-shot {py:7.0f} MB/s median, {8192 / best / 1e6:7.0f} best;"
                f" update (key kept) {8192 / smed / 1e6:7.0f} median, {8192 / sbest / 1e6:7.0f} best;"
                f" message (key kept, new IV) {8192 / mmed / 1e6:7.0f} median")
        rec = c_harness(cli, name) if cli else None
        if rec:
            line += (f"   C harness {rec['mb_per_s_median']:7.0f} median, {rec['mb_per_s']:7.0f} best"
                     f" ({rec.get('parallel_impl')});  Python/C one-shot {py / rec['mb_per_s_median']:.2f} median,"
                     f" {8192 / best / 1e6 / rec['mb_per_s']:.2f} best;  message/C"
                     f" {8192 / mmed / 1e6 / rec['mb_per_s_median']:.2f} median")
            line += (f";  with the empty timed call ({emed * 1e9:.0f} ns) subtracted, as the C harness does:"
                     f" one-shot/C {py_net / rec['mb_per_s_median']:.2f} median")
            c_s = 8192 / (rec['mb_per_s_median'] * 1e6)
            line += (f";  floor (memoryview.tobytes, 8 KB) {fmed * 1e9:.0f} ns: a one-shot call can reach at most"
                     f" {c_s / (c_s + fmed):.2f} of the C figure")
        print(line, flush=True)
        rows.append((name, py, rec))
    return rows


def bench_batch(quick):
    n = 100_000 if quick else 1_000_000
    loop_n = min(n, 100_000)
    key = fastblock.des_set_parity(os.urandom(24))
    recs_pt = [os.urandom(16) for _ in range(n)]
    ivs = [os.urandom(8) for _ in range(n)]
    cts = fastblock.batch_encrypt("des-ede3-cbc", key, recs_pt, ivs, "none")
    ts = []
    for _ in range(3):
        t = time.perf_counter()
        out = fastblock.batch_decrypt("des-ede3-cbc", key, cts, ivs, "none")
        ts.append(time.perf_counter() - t)
    assert out == recs_pt
    fb = min(ts) / n
    res = {"fastblock.batch_decrypt": fb}
    # a key per record: the multi-stream engine (fb_multi_crypt)
    keys = [fastblock.des_set_parity(os.urandom(24)) for _ in range(loop_n)]
    cts_k = fastblock.batch_encrypt("des-ede3-cbc", keys, recs_pt[:loop_n], ivs[:loop_n], "none")
    t = time.perf_counter()
    fastblock.batch_decrypt("des-ede3-cbc", keys, cts_k, ivs[:loop_n], "none")
    res["batch_decrypt, key per record"] = (time.perf_counter() - t) / loop_n
    # the per-record Python loop with fastblock itself, for scale
    t = time.perf_counter()
    for i in range(loop_n):
        fastblock.decrypt("des-ede3-cbc", key, cts[i], ivs[i], "none")
    res["loop over fastblock.decrypt"] = (time.perf_counter() - t) / loop_n
    try:
        from Crypto.Cipher import DES3
        t = time.perf_counter()
        for i in range(loop_n):
            DES3.new(key, DES3.MODE_CBC, iv=ivs[i]).decrypt(cts[i])
        res["loop over pycryptodome"] = (time.perf_counter() - t) / loop_n
    except ImportError:
        pass
    try:
        from cryptography.hazmat.primitives.ciphers import Cipher, modes
        try:
            from cryptography.hazmat.decrepit.ciphers.algorithms import TripleDES
        except ImportError:
            from cryptography.hazmat.primitives.ciphers.algorithms import TripleDES
        t = time.perf_counter()
        for i in range(loop_n):
            d = Cipher(TripleDES(key), modes.CBC(ivs[i])).decryptor()
            d.update(cts[i]) + d.finalize()
        res["loop over cryptography"] = (time.perf_counter() - t) / loop_n
    except ImportError:
        pass
    print(f"batch: {n} records of 16 B, 3DES-CBC decrypt, one key, own IVs (loops timed on {loop_n}):")
    for k, v in res.items():
        print(f"   {k:30} {v * 1e9:8.0f} ns/record   {v / fb:6.2f}x the batch", flush=True)
    return res


def bench_threads(rounds=7):
    """Two 16 MB messages on one thread, then on two; the rounds alternate
    so that both see the same heap (a fresh 16 MB output faults its pages
    in), and the medians are compared."""
    name = "des-ede3-ctr"
    key, iv = os.urandom(24), os.urandom(8)
    msgs = [os.urandom(16 << 20) for _ in range(2)]
    ones, twos = [], []
    for _ in range(rounds):
        t = time.perf_counter()
        for m in msgs:
            fastblock.encrypt(name, key, m, iv)
        ones.append(time.perf_counter() - t)
        ths = [threading.Thread(target=fastblock.encrypt, args=(name, key, m, iv)) for m in msgs]
        t = time.perf_counter()
        for th in ths:
            th.start()
        for th in ths:
            th.join()
        twos.append(time.perf_counter() - t)
    one, two = statistics.median(ones), statistics.median(twos)
    print(f"threads: 2 x 16 MB {name}, median of {rounds} alternating rounds: one thread {one:.4f} s, "
          f"two threads {two:.4f} s, speed-up {one / two:.2f}x ({os.cpu_count()} CPUs)", flush=True)
    return one / two


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=None, help="the fastblock CLI, for the C harness's 8 KB figures")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    print(f"# fastblock {fastblock.__version__} (C {fastblock.library_version()}), Python {platform.python_version()}, "
          f"CPU features: {fastblock.cpu_description()}")
    bench_oneshot(a.quick)
    bench_8k(a.cli, a.quick)
    bench_batch(a.quick)
    bench_threads()


if __name__ == "__main__":
    sys.exit(main())
