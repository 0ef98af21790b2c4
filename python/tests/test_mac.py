"""MACs and key check values through Python against pycryptodome: CMAC
(Crypto.Hash.CMAC over AES and Triple-DES), ISO 9797-1 MAC algorithm 1 and
the retail MAC (algorithm 3) built from pycryptodome's DES, KCVs from its
ECB; batches equal single calls; bad input raises and returns nothing."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st
from Crypto.Cipher import AES, DES, DES3
from Crypto.Hash import CMAC

import fastblock


def pad(m: bytes, method: int, bs: int) -> bytes:
    if method == 1:
        return m + bytes(-len(m) % bs) if m else bytes(bs)
    if method == 2:
        m = m + b"\x80"
        return m + bytes(-len(m) % bs)
    lb = (len(m) * 8).to_bytes(bs, "big")
    return lb + pad(m, 1, bs) if m else lb


def ref_cbc_mac(key: bytes, m: bytes, method: int) -> bytes:
    c = DES3.new(key, DES3.MODE_CBC, bytes(8)) if len(key) > 8 else DES.new(key, DES.MODE_CBC, bytes(8))
    return c.encrypt(pad(m, method, 8))[-8:]


def ref_retail(key: bytes, m: bytes, method: int) -> bytes:
    k1, k2 = key[:8], key[8:16]
    k3 = key[16:24] if len(key) == 24 else k1
    y = DES.new(k1, DES.MODE_CBC, bytes(8)).encrypt(pad(m, method, 8))[-8:]
    y = DES.new(k2, DES.MODE_ECB).decrypt(y)
    return DES.new(k3, DES.MODE_ECB).encrypt(y)


def tdes_key(rng: random.Random, n: int) -> bytes:
    while True:
        k = DES3.adjust_key_parity(rng.randbytes(n)) if n > 8 else rng.randbytes(8)
        return k


@pytest.mark.parametrize("klen,name", [(16, "aes-128-ecb"), (24, "aes-192-cbc"), (32, "aes-256-ctr")])
def test_cmac_aes_against_pycryptodome(klen, name):
    rng = random.Random(klen)
    for n in list(range(0, 50)) + [100, 1000]:
        key, m = rng.randbytes(klen), rng.randbytes(n)
        want = CMAC.new(key, m, ciphermod=AES).digest()
        assert fastblock.mac(name, key, m) == want
        assert fastblock.mac(name, key, m, length=8) == want[:8]


@pytest.mark.parametrize("name,klen", [("des-ede3", 24), ("des-ede", 16)])
def test_cmac_tdes_against_pycryptodome(name, klen):
    rng = random.Random(klen)
    for n in list(range(0, 33)) + [200]:
        key, m = tdes_key(rng, klen), rng.randbytes(n)
        want = CMAC.new(key, m, ciphermod=DES3).digest()
        assert fastblock.mac(name, key, m) == want


@pytest.mark.parametrize("method", [1, 2, 3])
def test_cbc_mac_and_retail(method):
    rng = random.Random(method)
    for n in range(0 if method > 1 else 1, 40):
        m = rng.randbytes(n)
        k8, k16, k24 = rng.randbytes(8), tdes_key(rng, 16), tdes_key(rng, 24)
        assert fastblock.mac("des-ecb", k8, m, algorithm="cbc", padding=method) == ref_cbc_mac(k8, m, method)
        assert fastblock.mac("des-ede3", k24, m, algorithm="cbc", padding=method) == ref_cbc_mac(k24, m, method)
        assert fastblock.mac("des-ede", k16, m, algorithm="retail", padding=method) == ref_retail(k16, m, method)
        assert fastblock.mac("des-ede3", k24, m, algorithm="retail", padding=method,
                             length=4) == ref_retail(k24, m, method)[:4]


def test_kcv():
    rng = random.Random(7)
    for _ in range(20):
        k = tdes_key(rng, 24)
        assert fastblock.kcv("des-ede3", k) == DES3.new(k, DES3.MODE_ECB).encrypt(bytes(8))[:3]
        a = rng.randbytes(16)
        assert fastblock.kcv("aes-128-ecb", a, length=5) == AES.new(a, AES.MODE_ECB).encrypt(bytes(16))[:5]
        assert fastblock.kcv("aes-128-ecb", a, cmac=True, length=5) == \
            CMAC.new(a, bytes(16), ciphermod=AES).digest()[:5]


@pytest.mark.parametrize("name,alg,klen,method", [
    ("des-ede3", "cbc", 24, 2), ("des-ede", "retail", 16, 1), ("des-ede3", "retail", 24, 2),
    ("des-ecb", "cbc", 8, 1), ("aes-128-ecb", "cmac", 16, None), ("des-ede3", "cmac", 24, None)])
def test_batches_equal_single_calls(name, alg, klen, method):
    rng = random.Random(klen)
    for n in (0, 1, 33, 700):
        keys = [tdes_key(rng, klen) if "des" in name else rng.randbytes(klen) for _ in range(n)]
        msgs = [rng.randbytes(rng.randint(1, 70)) for _ in range(n)]
        got = fastblock.mac_batch(name, keys, msgs, algorithm=alg, padding=method)
        assert got == [fastblock.mac(name, k, m, algorithm=alg, padding=method) for k, m in zip(keys, msgs)]
        kcvs = fastblock.kcv_batch(name, keys)
        assert kcvs == [fastblock.kcv(name, k) for k in keys]


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=16, max_size=16), st.binary(max_size=300), st.integers(1, 16))
def test_cmac_property(key, m, length):
    assert fastblock.mac("aes-128-ecb", key, m, length=length) == CMAC.new(key, m, ciphermod=AES).digest()[:length]


def test_bad_input():
    k = bytes(range(24))
    with pytest.raises(fastblock.InvalidKeyError):
        fastblock.mac("des-ede3", k[:20], b"x")
    with pytest.raises(fastblock.DataLengthError):
        fastblock.mac("des-ecb", k[:8], b"", algorithm="cbc", padding=1)  # method 1 refuses an empty message
    with pytest.raises(fastblock.ArgumentError):
        fastblock.mac("des-ecb", k[:8], b"x", length=9)
    with pytest.raises(fastblock.ArgumentError):
        fastblock.mac("aes-128-ecb", k[:16], b"x", algorithm="retail")
    with pytest.raises(ValueError):
        fastblock.mac("des-ecb", k[:8], b"x", algorithm="hmac")
    with pytest.raises(fastblock.UnknownCipherError):
        fastblock.kcv("nope", k)
    with pytest.raises(ValueError):
        fastblock.mac_batch("des-ede3", [k, k], [b"a"])
    with pytest.raises(fastblock.InvalidKeyError):  # keys of two lengths
        fastblock.kcv_batch("des-ede3", [k, k[:16]])
    with pytest.raises(TypeError):
        fastblock.mac_batch("des-ede3", [k, 5], [b"a", b"b"])
