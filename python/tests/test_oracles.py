"""Differential tests against pycryptodome, pyca/cryptography, `openssl enc`
and the fastblock CLI: random keys, IVs, lengths 0..4200, random splits,
every padding."""
from __future__ import annotations

import os
import shutil
import subprocess
import warnings

import pytest
from hypothesis import given, strategies as st
from Crypto.Cipher import AES, DES, DES3
from Crypto.Util import Padding as CPad
from cryptography.hazmat.primitives.ciphers import Cipher as CCipher, algorithms, modes

try:  # CFB, CFB8 and OFB moved to "decrepit" in cryptography 47
    from cryptography.hazmat.decrepit.ciphers import modes as old_modes
except ImportError:
    old_modes = modes

import fastblock
from conftest import CIPHERS, good_key

MAX_LEN = 4200


def split_points(draw, n):
    cuts = sorted(draw(st.lists(st.integers(min_value=0, max_value=n), max_size=6)))
    return [0] + cuts + [n]


def stream(ctx, data, points):
    out = b"".join(ctx.update(data[a:b]) for a, b in zip(points, points[1:]))
    return out + ctx.finalize()


# ---- AES: pycryptodome and cryptography -------------------------------------------

def pycryptodome_aes(mode, key, iv):
    if mode == "ecb":
        return AES.new(key, AES.MODE_ECB)
    if mode == "cbc":
        return AES.new(key, AES.MODE_CBC, iv=iv)
    if mode == "cfb":
        return AES.new(key, AES.MODE_CFB, iv=iv, segment_size=128)
    if mode == "cfb8":
        return AES.new(key, AES.MODE_CFB, iv=iv, segment_size=8)
    if mode == "ofb":
        return AES.new(key, AES.MODE_OFB, iv=iv)
    raise AssertionError(mode)


def cryptography_aes(mode, key, iv):
    m = {"ecb": lambda: modes.ECB(), "cbc": lambda: modes.CBC(iv), "cfb": lambda: old_modes.CFB(iv),
         "cfb8": lambda: old_modes.CFB8(iv), "ofb": lambda: old_modes.OFB(iv), "ctr": lambda: modes.CTR(iv),
         "xts": lambda: modes.XTS(iv)}[mode]()
    return CCipher(algorithms.AES(key), m).encryptor()


AES_NAMES = sorted(n for n, c in CIPHERS.items() if c.family == "aes" and n.endswith("-" + c.mode))


@given(st.data())
def test_aes_against_pycryptodome_and_cryptography(data):
    name = data.draw(st.sampled_from(AES_NAMES), label="name")
    c = CIPHERS[name]
    if c.mode == "xts" and c.key_len == 48:
        name = "aes-128-xts"  # cryptography has XTS-AES-128 and -256 only
        c = CIPHERS[name]
    key = good_key(name, data.draw(st.binary(min_size=c.key_len, max_size=c.key_len), label="key"))
    iv = data.draw(st.binary(min_size=c.iv_len, max_size=c.iv_len), label="iv") if c.iv_len else None
    padding = data.draw(st.sampled_from(["pkcs7", "iso9797-2", "none"]), label="padding") \
        if c.mode in ("ecb", "cbc") else "none"
    n = data.draw(st.integers(min_value=16 if c.mode == "xts" else 0, max_value=MAX_LEN), label="len")
    if padding == "none" and c.mode in ("ecb", "cbc"):
        n -= n % 16
    msg = os.urandom(n)
    padded = CPad.pad(msg, 16, "pkcs7" if padding == "pkcs7" else "iso7816") if padding != "none" else msg
    want = cryptography_aes(c.mode, key, iv).update(padded)
    if c.mode not in ("ctr", "xts"):
        assert pycryptodome_aes(c.mode, key, iv).encrypt(padded) == want
    got = fastblock.encrypt(name, key, msg, iv, padding)
    assert got == want
    pts = split_points(data.draw, n)
    assert stream(fastblock.Cipher(name, key, iv, padding).encryptor(), msg, pts) == want
    assert stream(fastblock.Cipher(name, key, iv, padding).decryptor(), got, split_points(data.draw, len(got))) == msg


# ---- DES and Triple-DES: pycryptodome ---------------------------------------------------

def pycryptodome_des(mode, key, iv):
    mod = DES if len(key) == 8 else DES3
    if mode == "ecb":
        return mod.new(key, mod.MODE_ECB)
    if mode == "cbc":
        return mod.new(key, mod.MODE_CBC, iv=iv)
    if mode == "cfb":
        return mod.new(key, mod.MODE_CFB, iv=iv, segment_size=64)
    if mode == "cfb8":
        return mod.new(key, mod.MODE_CFB, iv=iv, segment_size=8)
    if mode == "ofb":
        return mod.new(key, mod.MODE_OFB, iv=iv)
    if mode == "ctr":
        return mod.new(key, mod.MODE_CTR, nonce=b"", initial_value=iv)
    raise AssertionError(mode)


DES_NAMES = sorted(n for n, c in CIPHERS.items() if c.family == "des" and n.endswith("-" + c.mode))


def distinct_des_key(raw: bytes) -> bytes:
    """A key pycryptodome accepts: its 8-byte parts differ (parity ignored)."""
    parts = [bytearray(raw[i:i + 8]) for i in range(0, len(raw), 8)]
    for i, p in enumerate(parts):
        p[0] = (i * 0x40) | (p[0] & 0x3E)  # top bits of byte 0 tell the parts apart
    return b"".join(bytes(p) for p in parts)


@given(st.data())
def test_des_and_3des_against_pycryptodome(data):
    name = data.draw(st.sampled_from(DES_NAMES), label="name")
    c = CIPHERS[name]
    key = distinct_des_key(data.draw(st.binary(min_size=c.key_len, max_size=c.key_len), label="key"))
    iv = data.draw(st.binary(min_size=8, max_size=8), label="iv") if c.iv_len else None
    if c.mode == "ctr" and iv == b"\xff" * 8:
        iv = b"\xfe" + iv[1:]  # pycryptodome refuses a counter that wraps
    padding = data.draw(st.sampled_from(["pkcs7", "iso9797-2", "none"]), label="padding") \
        if c.mode in ("ecb", "cbc") else "none"
    n = data.draw(st.integers(min_value=0, max_value=MAX_LEN), label="len")
    if padding == "none" and c.mode in ("ecb", "cbc"):
        n -= n % 8
    msg = os.urandom(n)
    padded = CPad.pad(msg, 8, "pkcs7" if padding == "pkcs7" else "iso7816") if padding != "none" else msg
    want = pycryptodome_des(c.mode, key, iv).encrypt(padded)
    got = fastblock.encrypt(name, key, msg, iv, padding)
    assert got == want
    assert stream(fastblock.Cipher(name, key, iv, padding).encryptor(), msg, split_points(data.draw, n)) == want
    assert fastblock.decrypt(name, key, got, iv, padding) == msg


@pytest.mark.parametrize("mode", ["ecb", "cbc", "cfb", "cfb8", "ofb", "ctr"])
def test_degenerate_3des_keys_equal_single_des(mode):
    """K1 = K2 (pycryptodome refuses these keys): E_K3(D_K1(E_K1(x))) = E_K3(x),
    so des-ede3 must equal des under K3; K2 = K3 gives des under K1; two-key
    K1 = K2 gives des under K1."""
    k1, k3 = distinct_des_key(os.urandom(16))[:8], distinct_des_key(os.urandom(16))[8:]
    iv = os.urandom(8) if mode != "ecb" else None
    msg = os.urandom(1001 if mode not in ("ecb", "cbc") else 1000)
    pad = "none" if mode not in ("ecb", "cbc") else "pkcs7"
    single = fastblock.encrypt(f"des-{mode}", k3, msg, iv, pad)
    assert single == pycryptodome_des(mode, k3, iv).encrypt(CPad.pad(msg, 8) if pad == "pkcs7" else msg)
    with pytest.raises(ValueError):
        DES3.new(k1 + k1 + k3, DES3.MODE_ECB)  # the oracle really refuses it
    assert fastblock.encrypt(f"des-ede3-{mode}", k1 + k1 + k3, msg, iv, pad) == single
    assert fastblock.encrypt(f"des-ede3-{mode}", k1 + k3 + k3, msg, iv, pad) == \
        fastblock.encrypt(f"des-{mode}", k1, msg, iv, pad)
    assert fastblock.encrypt(f"des-ede-{mode}", k1 + k1, msg, iv, pad) == \
        fastblock.encrypt(f"des-{mode}", k1, msg, iv, pad)
    with pytest.raises(fastblock.WeakKeyError):
        fastblock.encrypt(f"des-ede3-{mode}", k1 + k1 + k3, msg, iv, pad, strict_keys=True)


@pytest.mark.skipif(not shutil.which("openssl"), reason="no openssl command")
@pytest.mark.parametrize("keys", ["k1k1k3", "k1k2k3", "k1k2k2"])
def test_3des_cbc_against_openssl_enc(keys):
    """`openssl enc` takes the degenerate keys too (PKCS#7 padding)."""
    a, b, c = os.urandom(8), os.urandom(8), os.urandom(8)
    key = {"k1k1k3": a + a + c, "k1k2k3": a + b + c, "k1k2k2": a + b + b}[keys]
    iv = os.urandom(8)
    msg = os.urandom(777)
    r = subprocess.run(["openssl", "enc", "-des-ede3-cbc", "-K", key.hex(), "-iv", iv.hex()],
                       input=msg, capture_output=True)
    if r.returncode != 0 and b"unsupported" in r.stderr.lower():
        pytest.skip("this openssl refuses des-ede3-cbc")
    assert r.returncode == 0, r.stderr
    assert fastblock.encrypt("des-ede3-cbc", key, msg, iv) == r.stdout


# ---- XTS: cryptography -------------------------------------------------------------------

@given(st.sampled_from(["aes-128-xts", "aes-256-xts"]), st.integers(min_value=16, max_value=MAX_LEN), st.data())
def test_xts_against_cryptography(name, n, data):
    c = CIPHERS[name]
    key = good_key(name, os.urandom(c.key_len))
    tweak = os.urandom(16)
    msg = os.urandom(n)
    want = cryptography_aes("xts", key, tweak).update(msg)
    assert fastblock.encrypt(name, key, msg, tweak) == want
    assert stream(fastblock.Cipher(name, key, tweak).encryptor(), msg, split_points(data.draw, n)) == want
    assert fastblock.decrypt(name, key, want, tweak) == msg


# ---- Ciphers the Python libraries lack: the fastblock CLI -------------------------------------

OTHER = sorted(n for n, c in CIPHERS.items() if c.family in ("twofish", "serpent", "rc6", "mars")
               and n.endswith("-" + c.mode))


@pytest.mark.parametrize("name", [n for n in OTHER if n.split("-")[1] in ("128", "256")])
def test_other_ciphers_against_cli(name, cli_path, tmp_path):
    c = CIPHERS[name]
    key = good_key(name, os.urandom(c.key_len))
    iv = os.urandom(c.iv_len) if c.iv_len else None
    msg = os.urandom(1000 + c.key_len)
    src = tmp_path / "in"
    src.write_bytes(msg)
    cmd = [cli_path, "enc", "--cipher", name, "--key", key.hex(), "--in", str(src)]
    if iv:
        cmd += ["--iv", iv.hex()]
    r = subprocess.run(cmd, capture_output=True)
    assert r.returncode == 0, r.stderr
    assert fastblock.encrypt(name, key, msg, iv) == r.stdout


def test_cryptography_tripledes_when_available():
    """pyca/cryptography's TripleDES (decrepit) for CBC, where it is still offered."""
    try:
        from cryptography.hazmat.decrepit.ciphers.algorithms import TripleDES
    except ImportError:  # older cryptography: in algorithms, deprecated
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            TripleDES = algorithms.TripleDES
    key, iv, msg = os.urandom(24), os.urandom(8), os.urandom(4096)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = CCipher(TripleDES(key), modes.CBC(iv)).encryptor().update(msg)
    assert fastblock.encrypt("des-ede3-cbc", key, msg, iv, "none") == want
