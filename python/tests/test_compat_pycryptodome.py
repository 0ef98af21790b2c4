"""fastblock.compat.pycryptodome against pycryptodome itself: same calls,
same bytes, several calls per object, output= buffers."""
from __future__ import annotations

import os

import pytest
from hypothesis import given, strategies as st
from Crypto.Cipher import AES as C_AES, DES as C_DES, DES3 as C_DES3

import fastblock
from fastblock.compat import pycryptodome as P

FAMS = [(P.AES, C_AES, 16), (P.AES, C_AES, 32), (P.DES, C_DES, 8), (P.DES3, C_DES3, 24), (P.DES3, C_DES3, 16)]


def make(mod, key, mode, iv, seg, nonce, init):
    if mode == mod.MODE_ECB:
        return mod.new(key, mode)
    if mode == mod.MODE_CTR:
        return mod.new(key, mode, nonce=nonce, initial_value=init)
    if mode == mod.MODE_CFB:
        return mod.new(key, mode, iv=iv, segment_size=seg)
    return mod.new(key, mode, iv)


@given(st.sampled_from(FAMS), st.sampled_from([1, 2, 3, 5, 6]), st.data())
def test_same_bytes_as_pycryptodome(fam, mode, data):
    ours, theirs, klen = fam
    bs = ours.block_size
    while True:
        key = os.urandom(klen)
        try:
            theirs.new(key, theirs.MODE_ECB)
            break
        except ValueError:
            continue
    iv = os.urandom(bs)
    seg = data.draw(st.sampled_from([8, 8 * bs]))
    nonce = os.urandom(data.draw(st.integers(min_value=0, max_value=bs // 2)))
    init = data.draw(st.integers(min_value=0, max_value=1000))
    pieces = data.draw(st.lists(st.integers(min_value=0, max_value=12), max_size=5))
    if mode in (1, 2):
        pieces = [p * bs for p in pieces]
    msgs = [os.urandom(n) for n in pieces]
    a, b = make(ours, key, mode, iv, seg, nonce, init), make(theirs, key, mode, iv, seg, nonce, init)
    cts = [a.encrypt(m) for m in msgs]
    assert cts == [b.encrypt(m) for m in msgs]
    d = make(ours, key, mode, iv, seg, nonce, init)
    assert [d.decrypt(c) for c in cts] == msgs


def test_attributes_output_and_refusals():
    key, iv = os.urandom(16), os.urandom(16)
    c = P.AES.new(key, P.AES.MODE_CBC, iv=iv)
    assert c.iv == iv == c.IV and c.block_size == 16
    out = bytearray(32)
    assert c.encrypt(b"a" * 32, output=out) is None
    assert bytes(out) == C_AES.new(key, C_AES.MODE_CBC, iv=iv).encrypt(b"a" * 32)
    with pytest.raises(TypeError):
        c.decrypt(bytes(out))
    with pytest.raises(ValueError):
        P.AES.new(key, P.AES.MODE_CBC, iv=iv).encrypt(b"short")
    with pytest.raises(ValueError):
        P.AES.new(os.urandom(15), P.AES.MODE_ECB)
    ctr = P.AES.new(key, P.AES.MODE_CTR)
    assert len(ctr.nonce) == 8
    assert ctr.encrypt(b"x" * 40) == C_AES.new(key, C_AES.MODE_CTR, nonce=ctr.nonce).encrypt(b"x" * 40)


def test_degenerate_des3_key_accepted_unlike_pycryptodome():
    k1, k3 = os.urandom(8), os.urandom(8)
    with pytest.raises(ValueError):
        C_DES3.new(k1 + k1 + k3, C_DES3.MODE_ECB)
    msg = os.urandom(64)
    assert P.DES3.new(k1 + k1 + k3, P.DES3.MODE_ECB).encrypt(msg) == C_DES.new(k3, C_DES.MODE_ECB).encrypt(msg)


@pytest.mark.parametrize("fam", ["Twofish", "Serpent", "RC6", "MARS"])
def test_other_families_match_fastblock(fam):
    mod = getattr(P, fam)
    key, iv = os.urandom(32), os.urandom(16)
    msg = os.urandom(100)
    c = mod.new(key, mod.MODE_OFB, iv=iv)
    assert c.encrypt(msg[:33]) + c.encrypt(msg[33:]) == fastblock.encrypt(f"{fam.lower()}-256-ofb", key, msg, iv)
