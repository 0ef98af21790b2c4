"""Every cipher and mode against the plain-Python reference modes (refmodes.py)
over an independent block function, random keys, IVs, lengths and paddings."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

import fastblock
import refmodes as ref
from conftest import CIPHERS, MODE_NAMES, block_functions, ecb_name, good_key


def reference_encrypt(name: str, key: bytes, iv: bytes, data: bytes, padding: str) -> bytes:
    c = CIPHERS[name]
    bs = c.block_size
    if c.mode == "xts":
        half = c.key_len // 2
        e1, _, _ = block_functions(ecb_name(name), key[:half])
        e2, _, _ = block_functions(ecb_name(name), key[half:])
        return ref.xts_encrypt(e1, e2, iv, data)
    enc, _, _ = block_functions(ecb_name(name), key)
    if c.mode in ("ecb", "cbc") and padding != "none":
        data = ref.pad(data, bs, padding)
    if c.mode == "ecb":
        return ref.ecb(enc, data, bs)
    if c.mode == "cbc":
        return ref.cbc_encrypt(enc, iv, data, bs)
    if c.mode == "cfb":
        return ref.cfb(enc, iv, data, bs, True)
    if c.mode == "cfb8":
        return ref.cfb8(enc, iv, data, True)
    if c.mode == "ofb":
        return ref.ofb(enc, iv, data, bs)
    if c.mode == "ctr":
        return ref.ctr(enc, iv, data, bs)
    raise AssertionError(c.mode)


@st.composite
def cases(draw, names=MODE_NAMES, max_len=700):
    name = draw(st.sampled_from(names))
    c = CIPHERS[name]
    key = good_key(name, draw(st.binary(min_size=c.key_len, max_size=c.key_len)))
    iv = draw(st.binary(min_size=c.iv_len, max_size=c.iv_len)) if c.iv_len else None
    if c.mode in ("ecb", "cbc"):
        padding = draw(st.sampled_from(["pkcs7", "iso9797-2", "none"]))
    else:
        padding = "none"
    n = draw(st.integers(min_value=16 if c.mode == "xts" else 0, max_value=max_len))
    if padding == "none" and c.mode in ("ecb", "cbc"):
        n -= n % c.block_size
    data = draw(st.binary(min_size=n, max_size=n))
    return name, key, iv, data, padding


@given(cases())
def test_every_cipher_and_mode_matches_reference(case):
    name, key, iv, data, padding = case
    want = reference_encrypt(name, key, iv, data, padding)
    got = fastblock.encrypt(name, key, data, iv, padding)
    assert got == want
    assert fastblock.decrypt(name, key, got, iv, padding) == data


@pytest.mark.parametrize("name", MODE_NAMES)
def test_each_name_once_against_reference(name):
    """Every name at least once with a fixed, awkward length (3 blocks + 5 bytes)."""
    c = CIPHERS[name]
    key = good_key(name, bytes((7 * i + 1) & 0xFF for i in range(c.key_len)))
    iv = bytes(range(0xF0, 0xF0 + c.iv_len)) if c.iv_len else None
    data = bytes((i * 31) & 0xFF for i in range(3 * c.block_size + 5))
    padding = "pkcs7" if c.mode in ("ecb", "cbc") else "none"
    assert fastblock.encrypt(name, key, data, iv) == reference_encrypt(name, key, iv, data, padding)


def test_default_padding_is_pkcs7_for_ecb_cbc_and_none_elsewhere():
    key = bytes(16)
    iv = bytes(16)
    data = b"x" * 20
    assert len(fastblock.encrypt("aes-128-cbc", key, data, iv)) == 32
    assert fastblock.encrypt("aes-128-cbc", key, data, iv) == fastblock.encrypt("aes-128-cbc", key, data, iv, "pkcs7")
    assert len(fastblock.encrypt("aes-128-ctr", key, data, iv)) == 20
    assert len(fastblock.encrypt("aes-128-ecb", key, b"")) == 16
