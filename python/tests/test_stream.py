"""Properties: any split gives the one-shot bytes; decrypt(encrypt(x)) == x;
update_into, in place and out of place; every buffer type."""
from __future__ import annotations

import array
import os

import pytest
from hypothesis import given, strategies as st

import fastblock
from conftest import CIPHERS, MODE_NAMES, good_key


@st.composite
def message(draw, max_len=2100):
    name = draw(st.sampled_from(MODE_NAMES))
    c = CIPHERS[name]
    key = good_key(name, os.urandom(c.key_len))
    iv = os.urandom(c.iv_len) if c.iv_len else None
    padding = draw(st.sampled_from(["pkcs7", "iso9797-2"])) if c.mode in ("ecb", "cbc") else None
    n = draw(st.integers(min_value=16 if c.mode == "xts" else 0, max_value=max_len))
    data = os.urandom(n)
    cuts = sorted(draw(st.lists(st.integers(min_value=0, max_value=n), max_size=8)))
    return name, key, iv, padding, data, [0] + cuts + [n]


@given(message())
def test_any_split_gives_the_one_shot_bytes(m):
    name, key, iv, padding, data, pts = m
    one = fastblock.encrypt(name, key, data, iv, padding)
    e = fastblock.Cipher(name, key, iv, padding).encryptor()
    got = b"".join(e.update(data[a:b]) for a, b in zip(pts, pts[1:])) + e.finalize()
    assert got == one
    # the same cuts, scaled onto the ciphertext, for the decryptor
    d = fastblock.Cipher(name, key, iv, padding).decryptor()
    cpts = sorted({min(p * len(one) // max(len(data), 1), len(one)) for p in pts} | {0, len(one)})
    back = b"".join(d.update(one[a:b]) for a, b in zip(cpts, cpts[1:])) + d.finalize()
    assert back == data
    assert fastblock.decrypt(name, key, one, iv, padding) == data


@given(message())
def test_update_into_in_place_and_out_of_place(m):
    name, key, iv, padding, data, pts = m
    one = fastblock.encrypt(name, key, data, iv, padding)
    extra = fastblock.output_bound(name, True, 0)
    # out of place, into one buffer
    e = fastblock.Cipher(name, key, iv, padding).encryptor()
    out = bytearray(len(data) + 2 * extra + 32)
    at = 0
    for a, b in zip(pts, pts[1:]):
        at += e.update_into(data[a:b], memoryview(out)[at:])
    fin = e.finalize()
    assert bytes(out[:at]) + fin == one
    # in place: each piece is encrypted where it lies; out starts at the piece
    if CIPHERS[name].mode not in ("ecb", "cbc", "xts"):  # output length == input length
        buf = bytearray(data)
        e = fastblock.Cipher(name, key, iv, padding).encryptor()
        mv = memoryview(buf)
        for a, b in zip(pts, pts[1:]):
            assert e.update_into(mv[a:b], mv[a:b]) == b - a
        assert e.finalize() == b""
        assert bytes(buf) == one


def test_in_place_whole_buffer_with_room_for_the_held_block():
    key, iv = os.urandom(16), os.urandom(16)
    data = os.urandom(100)
    buf = bytearray(data) + bytearray(16)
    mv = memoryview(buf)
    e = fastblock.Cipher("aes-128-cbc", key, iv).encryptor()
    n = e.update_into(mv[:100], mv)
    tail = e.finalize()
    assert bytes(buf[:n]) + tail == fastblock.encrypt("aes-128-cbc", key, data, iv)


@pytest.mark.parametrize("kind", ["bytes", "bytearray", "memoryview", "array", "numpy", "mmap-slice"])
def test_every_buffer_type(kind):
    key, iv = os.urandom(24), os.urandom(8)
    data = os.urandom(4096 + 24)
    want = fastblock.encrypt("des-ede3-ctr", key, data, iv)

    def conv(b):
        if kind == "bytes":
            return bytes(b)
        if kind == "bytearray":
            return bytearray(b)
        if kind == "memoryview":
            return memoryview(bytearray(b))
        if kind == "array":
            return array.array("B", b)
        if kind == "numpy":
            np = pytest.importorskip("numpy")
            return np.frombuffer(b, dtype=np.uint8).copy()
        return memoryview(b"..." + b)[3:]
    assert fastblock.encrypt("des-ede3-ctr", conv(key), conv(data), conv(iv)) == want
    e = fastblock.Cipher("des-ede3-ctr", conv(key), conv(iv)).encryptor()
    assert e.update(conv(data)) + e.finalize() == want
    if kind == "numpy":
        np = pytest.importorskip("numpy")
        words = np.frombuffer(data, dtype=np.uint32).copy()  # any item size: the bytes count
        assert fastblock.encrypt("des-ede3-ctr", key, words, iv) == want
        out = np.zeros(len(data), dtype=np.uint8)
        e = fastblock.Cipher("des-ede3-ctr", key, iv).encryptor()
        assert e.update_into(data, out) == len(data)
        assert out.tobytes() == want


def test_context_properties():
    e = fastblock.Cipher("aes-256-ctr", os.urandom(32), os.urandom(16)).encryptor()
    assert isinstance(e, fastblock.CipherContext)
    assert e.name == "aes-256-ctr"
    names = {i.name for i in fastblock.implementations()}
    assert e.impl in names and e.serial_impl in names
    e.finalize()
    assert e.finished and e.impl is None


def test_context_constant_time():
    """.constant_time: True only if every implementation the context may
    run is constant-time; the serial 3DES default (tables) is not."""
    ct = {i.name: i.constant_time for i in fastblock.implementations()}
    e = fastblock.Cipher("aes-128-ctr", os.urandom(16), os.urandom(16)).encryptor()
    assert e.constant_time is True
    d = fastblock.Cipher("des-ede3-cbc", os.urandom(24), os.urandom(8)).encryptor()
    assert d.constant_time is False and not ct[d.serial_impl]
    made = 0
    for name in ("des-ede3-cbc", "des-ede3-ctr", "mars-128-ctr", "twofish-128-ecb", "serpent-128-cbc"):
        iv = os.urandom(CIPHERS[name].iv_len) if CIPHERS[name].iv_len else None
        try:
            c = fastblock.Cipher(name, good_key(name, os.urandom(64)), iv, constant_time=True).encryptor()
        except fastblock.ImplementationError:
            continue  # no constant-time implementation on this CPU
        made += 1
        assert c.constant_time is True and ct[c.impl] and ct[c.serial_impl]
    assert made >= 2  # 3DES and Serpent have one everywhere
    e.finalize()
    assert e.constant_time is None


@pytest.mark.parametrize("impl", sorted({i.name for i in fastblock.implementations() if i.supported}))
def test_every_supported_implementation_by_name(impl):
    fam = impl.split("/")[0]
    name = {"des": "des-ede3-cbc", "aes": "aes-128-cbc", "rc6": "rc6-128-cbc", "mars": "mars-128-cbc",
            "twofish": "twofish-128-cbc", "serpent": "serpent-128-cbc"}[fam]
    c = CIPHERS[name]
    key, iv = os.urandom(c.key_len), os.urandom(c.iv_len)
    data = os.urandom(3000)
    want = fastblock.encrypt(name, key, data, iv)
    ciph = fastblock.Cipher(name, key, iv, impl=impl)
    assert ciph.encrypt(data) == want
    d = ciph.decryptor()
    assert d.update(want) + d.finalize() == data


@given(message(max_len=700), st.integers(min_value=0, max_value=2**32 - 1))
def test_message_equals_one_shot_under_each_iv(m, seed):
    """CipherContext.message(data, iv): the one-shot bytes under each new IV,
    twice on one keyed context, then a stream from it still works."""
    name, key, iv, padding, data, _ = m
    c = CIPHERS[name]
    ivs = [iv, os.urandom(c.iv_len) if c.iv_len else None]
    e = fastblock.Cipher(name, key, iv, padding).encryptor()
    d = fastblock.Cipher(name, key, iv, padding).decryptor()
    for v in ivs:
        one = fastblock.encrypt(name, key, data, v, padding)
        assert e.message(data, v) == one
        assert d.message(one, v) == data
    # the context is ready under the last IV: a stream continues from there
    assert e.update(data) + e.finalize() == fastblock.encrypt(name, key, data, ivs[-1], padding)


def test_message_against_cryptography():
    from cryptography.hazmat.primitives.ciphers import Cipher as CCipher, algorithms, modes
    key = os.urandom(16)
    e = fastblock.Cipher("aes-128-ctr", key, bytes(16)).encryptor()
    for _ in range(5):
        iv, data = os.urandom(16), os.urandom(1000)
        ref = CCipher(algorithms.AES(key), modes.CTR(iv)).encryptor().update(data)
        assert e.message(data, iv) == ref
    x = fastblock.Cipher("aes-128-xts", os.urandom(32), bytes(16)).encryptor()
    xk = os.urandom(32)
    x = fastblock.Cipher("aes-128-xts", xk, bytes(16)).encryptor()
    for unit in range(3):
        tweak, data = unit.to_bytes(16, "little"), os.urandom(4096)
        ref = CCipher(algorithms.AES(xk), modes.XTS(tweak)).encryptor().update(data)
        assert x.message(data, tweak) == ref


def test_message_errors():
    e = fastblock.Cipher("des-ede3-cbc", os.urandom(24), bytes(8)).encryptor()
    with pytest.raises(fastblock.IVLengthError):
        e.message(b"x" * 16, bytes(7))
    with pytest.raises(TypeError):
        e.message()
    with pytest.raises(TypeError):
        e.message(b"", None, None)
    n = fastblock.Cipher("des-ede3-cbc", os.urandom(24), bytes(8), padding="none").encryptor()
    with pytest.raises(fastblock.DataLengthError):
        n.message(b"x" * 5, bytes(8))
    e.finalize()
    with pytest.raises(fastblock.StateError):
        e.message(b"x" * 16, bytes(8))
