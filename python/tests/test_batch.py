"""batch_encrypt / batch_decrypt equal per-record one-shot calls: mixed
lengths, per-record keys, 0 records, 100,000 records, Arrow arrays, errors."""
from __future__ import annotations

import os
import random

import pytest

import fastblock
from conftest import CIPHERS, good_key

NAMES = ["des-ede3-cbc", "des-ede3-cfb", "des-ede3-ofb", "des-cbc", "des-ede-cbc", "des-ede3-ctr", "des-ede3-ecb",
         "aes-128-cbc", "aes-256-ctr", "serpent-128-cbc", "twofish-256-ofb", "aes-128-xts"]


def make(name, n, per_key, rng, lengths=None):
    c = CIPHERS[name]
    if per_key:
        keys = [good_key(name, rng.randbytes(c.key_len)) for _ in range(n)]
    else:
        keys = good_key(name, rng.randbytes(c.key_len))
    lo = 16 if c.mode == "xts" else 0
    lens = lengths or [rng.randint(lo, 90) for _ in range(n)]
    if c.mode in ("cbc", "ecb"):
        pass  # padded by default
    recs = [rng.randbytes(l) for l in lens]
    ivs = [rng.randbytes(c.iv_len) for _ in range(n)] if c.iv_len else None
    return keys, recs, ivs


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("per_key", [False, True])
def test_batch_equals_per_record_calls(name, per_key):
    rng = random.Random(hash((name, per_key)) & 0xFFFF)
    n = 77
    keys, recs, ivs = make(name, n, per_key, rng)
    out = fastblock.batch_encrypt(name, keys, recs, ivs)
    assert isinstance(out, list) and len(out) == n
    for i in range(n):
        k = keys[i] if per_key else keys
        iv = ivs[i] if ivs else None
        assert out[i] == fastblock.encrypt(name, k, recs[i], iv), i
    assert fastblock.batch_decrypt(name, keys, out, ivs) == recs


@pytest.mark.parametrize("padding", ["none", "pkcs7", "iso9797-2"])
@pytest.mark.parametrize("per_key", [False, True])
@pytest.mark.parametrize("name", ["des-ede3-cbc", "aes-192-cbc", "des-ede-cbc"])
def test_batch_cbc_paddings(name, per_key, padding):
    """CBC with one key decrypts through one ECB call (the extension chains the
    blocks); per-record keys through the multi-stream engine or record by record."""
    rng = random.Random(7)
    bs = CIPHERS[name].block_size
    n = 600  # enough for the wide multi-stream engines
    lens = [bs * rng.randint(0, 6) if padding == "none" else rng.randint(0, 50) for _ in range(n)]
    keys, recs, ivs = make(name, n, per_key, rng, lens)
    key_of = (lambda i: keys[i]) if per_key else (lambda i: keys)
    out = fastblock.batch_encrypt(name, keys, recs, ivs, padding)
    assert out == [fastblock.encrypt(name, key_of(i), recs[i], ivs[i], padding) for i in range(n)]
    assert fastblock.batch_decrypt(name, keys, out, ivs, padding) == recs
    # the same key given per record (equal bytes objects) takes the one-key path too
    if not per_key:
        assert fastblock.batch_decrypt(name, [bytes(keys)] * n, out, ivs, padding) == recs


def test_zero_records():
    assert fastblock.batch_encrypt("des-ede3-cbc", os.urandom(24), [], []) == []
    assert fastblock.batch_decrypt("aes-128-ctr", os.urandom(16), [], []) == []


def test_100000_records():
    rng = random.Random(100000)
    n = 100_000
    key = os.urandom(24)
    recs = [rng.randbytes(16) for _ in range(n)]
    ivs = [rng.randbytes(8) for _ in range(n)]
    out = fastblock.batch_encrypt("des-ede3-cbc", key, recs, ivs, "none")
    idx = rng.sample(range(n), 300) + [0, n - 1]
    for i in idx:
        assert out[i] == fastblock.encrypt("des-ede3-cbc", key, recs[i], ivs[i], "none")
    assert fastblock.batch_decrypt("des-ede3-cbc", key, out, ivs, "none") == recs


def test_batch_buffer_types_and_one_iv_for_all():
    key, iv = os.urandom(16), os.urandom(16)
    recs = [b"abc", bytearray(b"defgh"), memoryview(b"ijklmnopqrstuvwxyz")]
    out = fastblock.batch_encrypt("aes-128-ctr", key, recs, iv)
    assert out == [fastblock.encrypt("aes-128-ctr", key, bytes(r), iv) for r in recs]


def test_batch_errors_return_nothing_and_name_the_record():
    key = os.urandom(24)
    recs = [os.urandom(16) for _ in range(10)]
    ivs = [os.urandom(8) for _ in range(10)]
    ivs[4] = os.urandom(7)
    with pytest.raises(fastblock.IVLengthError) as ei:
        fastblock.batch_encrypt("des-ede3-cbc", key, recs, ivs)
    assert "record 4" in str(ei.value)
    ivs[4] = os.urandom(8)
    keys = [key] * 10
    keys[6] = key[:16]
    with pytest.raises(fastblock.InvalidKeyError) as ei:
        fastblock.batch_encrypt("des-ede3-cbc", keys, recs, ivs)
    assert "record 6" in str(ei.value)
    with pytest.raises(fastblock.DataLengthError):
        fastblock.batch_decrypt("des-ede3-cbc", key, recs[:3] + [b"x" * 9], ivs[:4])
    ct = fastblock.batch_encrypt("des-ede3-cbc", key, recs, ivs)
    # a last block that decrypts to bad padding, in record 8 (try until one does)
    for _ in range(50):
        bad = list(ct)
        bad[8] = ct[8][:-8] + os.urandom(8)
        try:
            fastblock.decrypt("des-ede3-cbc", key, bad[8], ivs[8])
        except fastblock.PaddingError:
            break
    with pytest.raises(fastblock.PaddingError) as ei:
        fastblock.batch_decrypt("des-ede3-cbc", key, bad, ivs)
    assert "record 8" in str(ei.value)
    with pytest.raises(ValueError):
        fastblock.batch_encrypt("des-ede3-cbc", key, recs, ivs[:9])
    with pytest.raises(TypeError):
        fastblock.batch_encrypt("des-ede3-cbc", key, b"one bytes object", ivs)
    with pytest.raises(TypeError):
        fastblock.batch_encrypt("des-ede3-cbc", key, ["str"] * 10, ivs)
    with pytest.raises(fastblock.WeakKeyError):
        k1 = os.urandom(8)
        fastblock.batch_encrypt("des-ede3-cbc", [key] * 9 + [k1 + k1 + os.urandom(8)], recs, ivs, strict_keys=True)
    with pytest.raises(fastblock.PaddingError):
        fastblock.batch_encrypt("des-ede3-ofb", key, recs, ivs, "pkcs7")


@pytest.mark.parametrize("name", ["aes-128-ctr", "aes-128-cbc", "serpent-128-ecb", "twofish-128-xts", "rc6-cbc"])
def test_batch_messages_equal_and_name_the_record(name):
    """Records outside DES's multi-stream modes run as messages on one context,
    keyed again where a record's key differs: the same bytes as per-record
    calls, under one key or a key each, and an error names its record."""
    c = CIPHERS[name]
    rng = random.Random(name)

    def new_key():  # a name of any key length ("rc6-cbc") takes keys of 1 to 32 bytes
        return good_key(name, rng.randbytes(c.key_len)) if c.key_len else rng.randbytes(rng.randint(1, 32))

    key = new_key()
    recs = [os.urandom(32) for _ in range(9)]
    ivs = [os.urandom(c.iv_len) for _ in range(9)] if c.iv_len else None
    out = fastblock.batch_encrypt(name, key, recs, ivs)
    assert out == [fastblock.encrypt(name, key, r, ivs[i] if ivs else None) for i, r in enumerate(recs)]
    if ivs:
        bad = list(ivs)
        bad[5] = bad[5][:-1]
        with pytest.raises(fastblock.IVLengthError) as ei:
            fastblock.batch_encrypt(name, key, recs, bad)
        assert "record 5" in str(ei.value)
        bad = list(ivs)
        bad[0] = bad[0] + b"x"
        with pytest.raises(fastblock.IVLengthError) as ei:
            fastblock.batch_encrypt(name, key, recs, bad)
        assert "record 0" in str(ei.value)
    keys = [new_key() for _ in range(9)]
    keys[2] = keys[1]
    out = fastblock.batch_encrypt(name, keys, recs, ivs)
    assert out == [fastblock.encrypt(name, keys[i], r, ivs[i] if ivs else None) for i, r in enumerate(recs)]
    assert fastblock.batch_decrypt(name, keys, out, ivs) == recs
    keys[6] = b""
    with pytest.raises(fastblock.InvalidKeyError) as ei:
        fastblock.batch_encrypt(name, keys, recs, ivs)
    assert "record 6" in str(ei.value)
    short = list(recs)
    short[7] = b"x" * (17 if c.mode == "ecb" else 3)
    if c.mode in ("ecb", "xts"):
        with pytest.raises(fastblock.DataLengthError) as ei:
            fastblock.batch_encrypt(name, key, short, ivs, "none" if c.mode == "ecb" else None)
        assert "record 7" in str(ei.value)


@pytest.mark.parametrize("padding", [None, "none", "iso9797-2"])
@pytest.mark.parametrize("name", ["aes-128-cbc", "serpent-256-cbc", "twofish-192-cbc", "rc6-128-cbc",
                                  "mars-128-cbc", "des-ede3-cbc", "mars-cbc"])
def test_cbc_encryption_one_key_in_steps(name, padding):
    """CBC encryption under one key runs block k of every record in one ECB
    call (lock-step): mixed lengths from 0 to 4,096 bytes; with one longer
    record, or fewer than 8 records, the batch goes record by record; all
    equal per-record calls."""
    c = CIPHERS[name]
    rng = random.Random(name)
    key = good_key(name, rng.randbytes(c.key_len)) if c.key_len else rng.randbytes(40)
    bs = c.block_size
    for count, longest in ((300, 4096), (300, 5000), (3, 4096)):
        lens = [rng.randint(0, 200) for _ in range(count)] + [0, bs, 4096, longest]
        if padding == "none":
            lens = [l - l % bs for l in lens]
        recs = [rng.randbytes(l) for l in lens]
        ivs = [rng.randbytes(bs) for _ in lens]
        out = fastblock.batch_encrypt(name, key, recs, ivs, padding)
        assert out == [fastblock.encrypt(name, key, r, ivs[i], padding) for i, r in enumerate(recs)]
        assert fastblock.batch_decrypt(name, key, out, ivs, padding) == recs


@pytest.mark.parametrize("large", [False, True])
@pytest.mark.parametrize("name", ["des-ede3-cbc", "aes-128-cbc"])
def test_arrow_arrays(name, large):
    pa = pytest.importorskip("pyarrow")
    rng = random.Random(5)
    c = CIPHERS[name]
    n = 1000
    recs = [rng.randbytes(rng.randint(0, 40)) for _ in range(n)]
    ivs = [rng.randbytes(c.iv_len) for _ in range(n)]
    key = rng.randbytes(c.key_len)
    typ = pa.large_binary() if large else pa.binary()
    arr = pa.array(recs, type=typ)
    out = fastblock.batch_encrypt(name, key, arr, ivs)
    assert out.type == typ and len(out) == n
    assert out.to_pylist() == fastblock.batch_encrypt(name, key, recs, ivs)
    back = fastblock.batch_decrypt(name, key, out, ivs)
    assert back.to_pylist() == recs
    # a slice of an array (offset != 0) and a chunked array
    sl = arr.slice(100, 50)
    assert fastblock.batch_encrypt(name, key, sl, ivs[100:150]).to_pylist() == \
        fastblock.batch_encrypt(name, key, recs[100:150], ivs[100:150])
    ch = pa.chunked_array([arr.slice(0, 10), arr.slice(10, 20)])
    assert fastblock.batch_encrypt(name, key, ch, ivs[:30]).to_pylist() == \
        fastblock.batch_encrypt(name, key, recs[:30], ivs[:30])
    # nulls stay null; per-record keys and IVs of the null records are skipped
    withnull = [None if i % 7 == 3 else r for i, r in enumerate(recs[:200])]
    keys = [rng.randbytes(c.key_len) for _ in range(200)]
    out = fastblock.batch_encrypt(name, keys, pa.array(withnull, type=typ), ivs[:200])
    assert out.type == typ and out.null_count == sum(r is None for r in withnull)
    want = [None if r is None else fastblock.encrypt(name, k, r, v) for r, k, v in zip(withnull, keys, ivs)]
    assert out.to_pylist() == want
    back = fastblock.batch_decrypt(name, keys, out, ivs[:200])
    assert back.to_pylist() == withnull
    assert fastblock.batch_encrypt(name, key, pa.array([None, None], type=typ), ivs[:2]).to_pylist() == [None, None]


@pytest.mark.parametrize("arrow_records", [False, True])
def test_arrow_ivs(arrow_records):
    """Per-record IVs as an Arrow FixedSizeBinary or Binary array (read as one
    buffer) give what a list of IVs gives; a wrong or null IV is refused and
    named like a list's."""
    pa = pytest.importorskip("pyarrow")
    rng = random.Random(5)
    n = 300
    recs = [os.urandom(rng.randrange(0, 40)) for _ in range(n)]
    ivs = [os.urandom(8) for _ in range(n)]
    key = good_key("des-ede3-cbc", os.urandom(24))
    want = fastblock.batch_encrypt("des-ede3-cbc", key, recs, ivs)
    records = pa.array(recs, pa.binary()) if arrow_records else recs
    for arr in (pa.array(ivs, pa.binary(8)), pa.array(ivs, pa.binary()), pa.array(ivs, pa.binary(8)).slice(0)):
        got = fastblock.batch_encrypt("des-ede3-cbc", key, records, arr)
        assert (got.to_pylist() if arrow_records else got) == want
    # a slice of the IVs lines up with the same slice of the records
    sl = pa.array(ivs, pa.binary(8)).slice(7, 50)
    got = fastblock.batch_encrypt("des-ede3-cbc", key, recs[7:57], sl)
    assert got == want[7:57]
    bad = list(ivs)
    bad[9] = b"\0" * 7
    with pytest.raises(fastblock.IVLengthError, match="record 9"):
        fastblock.batch_encrypt("des-ede3-cbc", key, records, pa.array(bad, pa.binary()))
    with pytest.raises(fastblock.IVLengthError, match="record 0"):  # one buffer, the wrong width
        fastblock.batch_encrypt("des-ede3-cbc", key, records, pa.array([b"\0" * 16] * n, pa.binary(16)))
    nulls = pa.array(ivs[:3] + [None] + ivs[4:], pa.binary(8))
    with pytest.raises(fastblock.Error, match="record 3"):
        fastblock.batch_encrypt("des-ede3-cbc", key, records, nulls)
    with pytest.raises(ValueError, match="given for"):
        fastblock.batch_encrypt("des-ede3-cbc", key, records, pa.array(ivs[:-1], pa.binary(8)))
