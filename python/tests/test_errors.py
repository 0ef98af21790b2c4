"""Bad input: each gives the documented exception, the library's code and
message, and no output (nothing returned, output buffers untouched)."""
from __future__ import annotations

import os

import pytest

import fastblock


def check(exc_info, cls, code):
    e = exc_info.value
    assert type(e) is cls
    assert e.code == code
    assert e.message == fastblock.strerror(code)
    assert isinstance(e, fastblock.Error)


def test_unknown_cipher():
    with pytest.raises(fastblock.UnknownCipherError) as ei:
        fastblock.encrypt("des-ede4-cbc", bytes(24), b"x", bytes(8))
    check(ei, fastblock.UnknownCipherError, fastblock._fastblock.ERR_UNKNOWN_CIPHER)
    assert isinstance(ei.value, LookupError)


@pytest.mark.parametrize("name,klen", [("des-cbc", 7), ("des-ede3-cbc", 16), ("aes-128-cbc", 24),
                                       ("serpent-256-ctr", 31), ("aes-256-xts", 32)])
def test_wrong_key_length(name, klen):
    iv = bytes(fastblock.CipherInfo(*[c for c in fastblock._fastblock._ciphers() if c[0] == name][0]).iv_len)
    for call in (lambda: fastblock.encrypt(name, bytes(klen), b"a" * 32, iv),
                 lambda: fastblock.decrypt(name, bytes(klen), b"a" * 32, iv),
                 lambda: fastblock.Cipher(name, bytes(klen), iv)):
        with pytest.raises(fastblock.InvalidKeyError) as ei:
            call()
        check(ei, fastblock.InvalidKeyError, fastblock._fastblock.ERR_KEY_LENGTH)
        assert isinstance(ei.value, ValueError)


def test_xts_equal_halves():
    k = os.urandom(16)
    with pytest.raises(fastblock.InvalidKeyError) as ei:
        fastblock.encrypt("aes-128-xts", k + k, bytes(32), bytes(16))
    check(ei, fastblock.InvalidKeyError, fastblock._fastblock.ERR_XTS_KEYS)


@pytest.mark.parametrize("iv", [None, bytes(7), bytes(16)])
def test_wrong_iv_length(iv):
    with pytest.raises(fastblock.IVLengthError) as ei:
        fastblock.encrypt("des-ede3-cbc", os.urandom(24), b"12345678", iv)
    check(ei, fastblock.IVLengthError, fastblock._fastblock.ERR_IV_LENGTH)


def test_data_length():
    with pytest.raises(fastblock.DataLengthError) as ei:
        fastblock.encrypt("aes-128-cbc", bytes(16), b"x" * 17, bytes(16), "none")
    check(ei, fastblock.DataLengthError, fastblock._fastblock.ERR_DATA_LENGTH)
    with pytest.raises(fastblock.DataLengthError):
        fastblock.decrypt("aes-128-cbc", bytes(16), b"x" * 17, bytes(16))
    with pytest.raises(fastblock.DataLengthError):
        fastblock.encrypt("aes-128-xts", os.urandom(32), b"x" * 15, bytes(16))


def test_bad_padding_and_padding_for_a_mode_without():
    key, iv = os.urandom(16), os.urandom(16)
    ct = fastblock.encrypt("aes-128-cbc", key, b"hello", iv, "none" if False else "pkcs7")
    found = 0
    for padding in ("pkcs7", "iso9797-2"):
        # a random last block is bad padding with high probability; find one that is
        for _ in range(50):
            c2 = ct[:-16] + os.urandom(16)
            try:
                fastblock.decrypt("aes-128-cbc", key, c2, iv, padding)
            except fastblock.PaddingError as e:
                assert e.code == fastblock._fastblock.ERR_BAD_PADDING
                found += 1
                break
    assert found == 2
    # A last block of zeros has no 0x80 marker: bad ISO 9797-1 method 2
    # padding whatever the key (a random last block passes 1 time in ~256).
    zeros = fastblock.encrypt("aes-128-cbc", key, bytes(16), iv, "none")
    with pytest.raises(fastblock.PaddingError):
        fastblock.decrypt("aes-128-cbc", key, zeros, iv, "iso9797-2")
    with pytest.raises(fastblock.PaddingError) as ei:
        fastblock.encrypt("aes-128-ctr", key, b"abc", iv, "pkcs7")
    check(ei, fastblock.PaddingError, fastblock._fastblock.ERR_PADDING_MODE)
    with pytest.raises(ValueError):
        fastblock.encrypt("aes-128-cbc", key, b"abc", iv, "zeros")


def test_streaming_bad_padding_raises_at_finalize_and_wipes():
    key, iv = os.urandom(16), os.urandom(16)
    d = fastblock.Cipher("aes-128-cbc", key, iv).decryptor()
    out = d.update(os.urandom(32))  # the last block is held back
    assert len(out) == 16
    for _ in range(50):  # a random block: bad PKCS#7 padding unless it ends in 01 etc.
        d = fastblock.Cipher("aes-128-cbc", key, iv).decryptor()
        d.update(os.urandom(32))
        try:
            d.finalize()
        except fastblock.PaddingError:
            break
    else:
        pytest.fail("no bad padding in 50 random blocks")
    with pytest.raises(fastblock.StateError):
        d.update(b"x")


@pytest.mark.parametrize("bad", ["text", 12, 3.5, [1, 2, 3], None])
def test_wrong_types(bad):
    key, iv = os.urandom(16), os.urandom(16)
    with pytest.raises(TypeError):
        fastblock.encrypt("aes-128-ctr", key, bad, iv)
    if bad is not None:
        with pytest.raises(TypeError):
            fastblock.encrypt("aes-128-ctr", bad, b"data", iv)
        with pytest.raises(TypeError):
            fastblock.encrypt("aes-128-ctr", key, b"data", bad)
    with pytest.raises(TypeError):
        fastblock.encrypt(b"aes-128-ctr", key, b"data", iv)
    e = fastblock.Cipher("aes-128-ctr", key, iv).encryptor()
    with pytest.raises(TypeError):
        e.update(bad)
    with pytest.raises(TypeError):
        e.update_into(b"abc", b"immutable")  # out must be writable
    with pytest.raises(TypeError):
        fastblock.encrypt("aes-128-ctr", key)
    with pytest.raises(TypeError):
        fastblock.encrypt("aes-128-ctr", key, b"x", iv, None, nonsense=1)


def test_update_after_finalize():
    key, iv = os.urandom(24), os.urandom(8)
    e = fastblock.Cipher("des-ede3-cbc", key, iv).encryptor()
    e.update(b"abc")
    e.finalize()
    for call in (lambda: e.update(b"x"), lambda: e.update(b""), lambda: e.finalize(),
                 lambda: e.update_into(b"x", bytearray(64))):
        with pytest.raises(fastblock.StateError) as ei:
            call()
        check(ei, fastblock.StateError, fastblock._fastblock.ERR_STATE)


def test_update_into_too_small_writes_nothing_and_keeps_the_stream():
    key, iv = os.urandom(16), os.urandom(16)
    data = os.urandom(40)
    e = fastblock.Cipher("aes-128-cbc", key, iv).encryptor()
    out = bytearray(b"\xaa" * 50)  # 40 + 16 needed
    with pytest.raises(ValueError):
        e.update_into(data, out)
    assert out == bytearray(b"\xaa" * 50)
    assert e.update(data) + e.finalize() == fastblock.encrypt("aes-128-cbc", key, data, iv)


def test_failed_update_into_leaves_output_untouched():
    key, iv = os.urandom(16), os.urandom(16)
    d = fastblock.Cipher("aes-128-cbc", key, iv).decryptor()
    with pytest.raises(fastblock.DataLengthError):
        d.finalize()  # no data: too short for padded CBC
    out = bytearray(b"\x55" * 64)
    with pytest.raises(fastblock.StateError):
        d.update_into(os.urandom(32), out)
    assert out == bytearray(b"\x55" * 64)


def test_overlap_refused():
    key, iv = os.urandom(16), os.urandom(16)
    buf = bytearray(os.urandom(200))
    mv = memoryview(buf)
    before = bytes(buf)
    e = fastblock.Cipher("aes-128-ctr", key, iv).encryptor()
    with pytest.raises(fastblock.ArgumentError) as ei:
        e.update_into(mv[0:100], mv[8:120])
    assert ei.value.code == fastblock._fastblock.ERR_OVERLAP
    assert bytes(buf) == before


def test_strict_keys_and_constant_time():
    k = os.urandom(8)
    weak = bytes.fromhex("0101010101010101")
    assert fastblock.des_is_weak_key(weak)
    with pytest.raises(fastblock.WeakKeyError) as ei:
        fastblock.Cipher("des-cbc", weak, bytes(8), strict_keys=True)
    check(ei, fastblock.WeakKeyError, fastblock._fastblock.ERR_WEAK_KEY)
    fastblock.Cipher("des-cbc", weak, bytes(8))  # accepted without strict_keys
    with pytest.raises(fastblock.WeakKeyError):
        fastblock.encrypt("des-ede-cbc", k + k, b"x", bytes(8), strict_keys=True)
    not_ct = [i for i in fastblock.implementations() if i.supported and not i.constant_time and i.family == "des"]
    if not_ct:
        with pytest.raises(fastblock.ImplementationError) as ei:
            fastblock.encrypt("des-cbc", k, b"x", bytes(8), impl=not_ct[0].name, constant_time=True)
        assert ei.value.code == fastblock._fastblock.ERR_NOT_CONSTANT_TIME
    with pytest.raises(fastblock.ImplementationError) as ei:
        fastblock.encrypt("des-cbc", k, b"x", bytes(8), impl="des/no-such-thing")
    assert ei.value.code == fastblock._fastblock.ERR_IMPL_UNAVAILABLE


def test_des_key_helpers():
    k = bytes(range(24))
    fixed = fastblock.des_set_parity(k)
    assert fastblock.des_check_parity(fixed)
    assert not fastblock.des_check_parity(bytes(8))
    assert all(bin(b).count("1") % 2 == 1 for b in fixed)
    assert all((a & 0xFE) == (b & 0xFE) for a, b in zip(k, fixed))
    assert not fastblock.des_is_weak_key(bytes.fromhex("0123456789abcdef"))
    assert fastblock.des_is_weak_key(bytes.fromhex("fefefefefefefefe"))
    assert fastblock.des_is_weak_key(bytes.fromhex("01fe01fe01fe01fe"))  # semi-weak
    with pytest.raises(fastblock.InvalidKeyError):
        fastblock.des_is_weak_key(bytes(7))
