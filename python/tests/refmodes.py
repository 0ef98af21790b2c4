"""Reference modes of operation in plain Python, over any block function.

Written from NIST SP 800-38A (ECB, CBC, CFB, CFB8, OFB, CTR), IEEE 1619 (XTS
with ciphertext stealing) and the padding definitions (PKCS#7, ISO/IEC 9797-1
method 2). The tests feed them a block function from an independent library
(pycryptodome) where one exists, else fastblock's own ECB, which the
known-answer files check; so the mode layer of every cipher is checked against
code that shares nothing with it.
"""
from __future__ import annotations

from typing import Callable, List

Block = Callable[[bytes], bytes]


def xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b))


def pad(data: bytes, bs: int, method: str) -> bytes:
    r = bs - len(data) % bs
    if method == "pkcs7":
        return data + bytes([r]) * r
    if method == "iso9797-2":
        return data + b"\x80" + b"\0" * (r - 1)
    raise ValueError(method)


def unpad(data: bytes, bs: int, method: str) -> bytes:
    """Raises ValueError on bad padding."""
    if not data or len(data) % bs:
        raise ValueError("length")
    if method == "pkcs7":
        p = data[-1]
        if p < 1 or p > bs or data[-p:] != bytes([p]) * p:
            raise ValueError("padding")
        return data[:-p]
    stripped = data[-bs:].rstrip(b"\0")
    if not stripped or stripped[-1] != 0x80:
        raise ValueError("padding")
    return data[:-bs] + stripped[:-1]


def blocks(data: bytes, bs: int) -> List[bytes]:
    return [data[i:i + bs] for i in range(0, len(data), bs)]


def ecb(enc: Block, data: bytes, bs: int) -> bytes:
    return b"".join(enc(b) for b in blocks(data, bs))


def cbc_encrypt(enc: Block, iv: bytes, data: bytes, bs: int) -> bytes:
    out, prev = [], iv
    for b in blocks(data, bs):
        prev = enc(xor(b, prev))
        out.append(prev)
    return b"".join(out)


def cbc_decrypt(dec: Block, iv: bytes, data: bytes, bs: int) -> bytes:
    out, prev = [], iv
    for b in blocks(data, bs):
        out.append(xor(dec(b), prev))
        prev = b
    return b"".join(out)


def cfb(enc: Block, iv: bytes, data: bytes, bs: int, encrypting: bool) -> bytes:
    """Full-block CFB; a partial last block uses the leading keystream bytes."""
    out, reg = [], iv
    for b in blocks(data, bs):
        o = xor(b, enc(reg))
        out.append(o)
        reg = o if encrypting else b
    return b"".join(out)


def cfb8(enc: Block, iv: bytes, data: bytes, encrypting: bool) -> bytes:
    out, reg = bytearray(), iv
    for x in data:
        o = x ^ enc(reg)[0]
        out.append(o)
        reg = reg[1:] + bytes([o if encrypting else x])
    return bytes(out)


def ofb(enc: Block, iv: bytes, data: bytes, bs: int) -> bytes:
    out, reg = [], iv
    for b in blocks(data, bs):
        reg = enc(reg)
        out.append(xor(b, reg))
    return b"".join(out)


def ctr(enc: Block, iv: bytes, data: bytes, bs: int) -> bytes:
    """The whole block is a big-endian counter, incremented modulo 2^(8 bs)."""
    out, c = [], int.from_bytes(iv, "big")
    for b in blocks(data, bs):
        out.append(xor(b, enc(c.to_bytes(bs, "big"))))
        c = (c + 1) % (1 << (8 * bs))
    return b"".join(out)


def _xts_double(t: bytes) -> bytes:
    """Multiplication by x in GF(2^128), little-endian bytes (IEEE 1619)."""
    v = int.from_bytes(t, "little") << 1
    if v >> 128:
        v = (v ^ 0x87) & ((1 << 128) - 1)
    return v.to_bytes(16, "little")


def xts_encrypt(enc1: Block, enc2: Block, tweak: bytes, data: bytes) -> bytes:
    """IEEE 1619 XTS-encrypt of one data unit of at least 16 bytes, with ciphertext stealing."""
    assert len(data) >= 16
    t = enc2(tweak)
    full = len(data) // 16
    rest = len(data) % 16
    out = []
    for j in range(full):
        p = data[16 * j:16 * j + 16]
        out.append(xor(enc1(xor(p, t)), t))
        t = _xts_double(t)
    if rest:
        last_c = out.pop()
        tail = data[16 * full:]
        stolen = tail + last_c[rest:]
        out.append(xor(enc1(xor(stolen, t)), t))
        out.append(last_c[:rest])
    return b"".join(out)
