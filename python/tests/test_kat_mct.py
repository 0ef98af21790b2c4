"""The Monte Carlo records of tests/vectors through the Python API.

Each record holds the initial key, IV and input and only the output of its
last outer loop, so a chain can only be checked whole: every record runs its
full chain (AESAVS 100 x 1000, TDESAVS and the AES-submission packages
400 x 10000) with the procedure its source names (tests/vectors/README.txt;
tests/test_kat.c runs the same procedures in C) and compares that output.

A 400 x 10000 chain whose steps depend on each other costs up to 4 million
calls from Python (one to three seconds a chain on two cores; every record
takes about a minute). So by default every AESAVS record runs, and of the
400 x 10000 records the last one of each procedure, mode and direction (for
Triple-DES the three-key chains), about 15 s; FB_QUICK=1 (run under every
CPU mask) keeps only the AESAVS ones; FB_PY_MCT=all runs every record.
"""
from __future__ import annotations

import os
from typing import Callable, List, NamedTuple, Optional, Tuple

import pytest

import fastblock
from test_kat import FILES, VECTORS, fb_name, records

Hist = Tuple[bytes, bytes, bytes]  # the last three output blocks, last first


class Chain(NamedTuple):
    alg: str
    mode: str
    key: bytes
    iv: Optional[bytes]
    inp: bytes  # the first input block (CFB8: its first byte is the input)
    want: bytes
    decrypt: bool
    outer: int
    inner: int
    bs: int
    tdes: bool
    avs: bool  # AESAVS: 100 x 1000, its own CBC-decrypt and IV rules

    @property
    def name(self) -> str:
        return fb_name(self.alg, self.mode)

    @property
    def one_key(self) -> bool:
        """TDESAVS keying option 3 (K1 = K2 = K3), kept through the key updates."""
        return self.tdes and len(self.key) == 24 and self.key[:8] == self.key[8:16]

    def update(self, key: bytes, iv: Optional[bytes]) -> Callable[[bytes], bytes]:
        c = fastblock.Cipher(self.name, key, iv, "none")
        return (c.decryptor() if self.decrypt else c.encryptor()).update


def chain_of(r: dict) -> Chain:
    tdes = r["alg"].startswith("TDES")
    avs = "aesmct" in r["source"]
    dec = r.get("direction") == "decrypt"
    key = bytes.fromhex(r["key"])
    if r["alg"] == "TDES-2KEY":
        key = key[:16]
    iv = bytes.fromhex(r["iv"]) if "iv" in r else None
    src, dst = (r["ciphertext"], r["plaintext"]) if dec else (r["plaintext"], r["ciphertext"])
    return Chain(r["alg"], r["mode"], key, iv, bytes.fromhex(src), bytes.fromhex(dst), dec,
                 int(r["iterations"]), 1000 if avs else 10000, 8 if tdes else 16, tdes, avs)


# ---- key updates ---------------------------------------------------------------

def xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b))


def odd_parity(key: bytes) -> bytes:
    return bytes(b & 0xFE | (bin(b >> 1).count("1") + 1) % 2 for b in key)


def aes_next_key(key: bytes, stream_tail: bytes) -> bytes:
    """AES submission and AESAVS: key ^= the last key-length bytes of output."""
    return xor(key, stream_tail[-len(key):])


def tdes_next_key(key: bytes, one_key: bool, h: Hist) -> bytes:
    """TDESAVS: K1 ^= the last output, K2 ^= the one before, K3 ^= the one
    before that, keeping the keying option (K1 = K2 = K3, or K1 = K3)."""
    k1, k2 = key[:8], key[8:16]
    k3 = key[16:] or k1
    n1 = xor(k1, h[0])
    if one_key:
        return odd_parity(n1 * 3)
    n3 = n1 if k3 == k1 else xor(k3, h[2])
    return odd_parity(n1 + xor(k2, h[1]) + n3)[:len(key)]


# ---- inner loops: (last three outputs, next IV, next input) ---------------------

def blocks(data: bytes, bs: int) -> List[bytes]:
    return [data[i:i + bs] for i in range(0, len(data), bs)]


def last3(stream: bytes, bs: int) -> Hist:
    b = blocks(stream[-3 * bs:], bs)
    return b[2], b[1], b[0]


def fed_back(update: Callable[[bytes], bytes], first: bytes, total: int) -> bytes:
    """The output stream of a context whose input, after `first`, is its own
    output len(first) bytes earlier; one call per len(first) bytes."""
    lag = len(first)
    out = [update(first)]
    for _ in range(total // lag - 1):
        out.append(update(out[-1]))
    if total % lag:
        out.append(update(out[-1][:total % lag]))
    return b"".join(out)


def e_powers(c: Chain, key: bytes, seed: bytes, count: int) -> List[bytes]:
    """E(seed), E(E(seed)), ...: CBC encryption of zero blocks from IV seed."""
    e = fastblock.Cipher(fb_name(c.alg, "CBC"), key, seed, "none").encryptor()
    return blocks(e.update(bytes(count * c.bs)), c.bs)


def inner_ecb_encrypt(c: Chain, key: bytes, iv, x: bytes):
    """Output fed back as input: the powers of E, in one call; the ECB
    context itself must map the last block but one to the last."""
    p = e_powers(c, key, x, c.inner)
    h = (p[-1], p[-2], p[-3])
    assert c.update(key, None)(h[1]) == h[0]
    return h, None, h[0]


def inner_fed_back(c: Chain, key: bytes, iv: Optional[bytes], x: bytes):
    """Input j+1 is output j (ECB decryption, AES-submission and TDESAVS CBC
    decryption), or input 1 is the IV and input j the output j-2 (CBC
    encryption, AESAVS, TDESAVS CFB encryption): the mode's context does the
    rest of the chaining."""
    by_two = c.mode != "ECB" and (c.avs or not c.decrypt)
    out = fed_back(c.update(key, iv), x + iv if by_two else x, c.inner * c.bs)
    h = last3(out, c.bs)
    if c.mode == "ECB":
        return h, None, h[0]
    if by_two:
        return h, h[0], h[1]
    return h, h[1], h[0]  # CBC decryption: the IV is the last ciphertext


def inner_tdes_ofb(c: Chain, key: bytes, iv: bytes, x: bytes):
    """TDESAVS OFB: input j is the cipher's input block j-1, i.e. keystream
    block j-2 (input 1 is the IV). The keystream in one call; the last three
    steps through the record's own context, which must agree."""
    ks = blocks(fastblock.Cipher(c.name, key, iv, "none").encryptor().update(bytes(c.inner * c.bs)), c.bs)
    n = c.inner
    h = last3(c.update(key, ks[n - 4])(ks[n - 5] + ks[n - 4] + ks[n - 3]), c.bs)
    return h, ks[n - 1], ks[n - 2]


def inner_tdes_cfb_decrypt(c: Chain, key: bytes, iv: bytes, x: bytes):
    """TDESAVS CFB decryption: input j+1 is E(input j-1) (input -1 is the
    IV), so the even inputs are powers of E of x and the odd ones of the IV."""
    n = c.inner
    even, odd = e_powers(c, key, x, n // 2), e_powers(c, key, iv, n // 2)

    def ins(j: int) -> bytes:
        return odd[j // 2] if j % 2 else (even[j // 2 - 1] if j else x)
    h = last3(c.update(key, ins(n - 4))(ins(n - 3) + ins(n - 2) + ins(n - 1)), c.bs)
    return h, ins(n - 1), ins(n)


def inner_for(c: Chain):
    if c.mode == "ECB" and not c.decrypt:
        return inner_ecb_encrypt
    if c.tdes and c.mode == "OFB":
        return inner_tdes_ofb
    if c.tdes and c.mode == "CFB64" and c.decrypt:
        return inner_tdes_cfb_decrypt
    return inner_fed_back


# ---- outer loops ---------------------------------------------------------------

def run_blocks(c: Chain) -> bytes:
    key, iv, x = c.key, c.iv, c.inp
    inner = inner_for(c)
    for i in range(c.outer):
        h, next_iv, next_x = inner(c, key, iv, x)
        if i + 1 == c.outer:
            return h[0]
        key = tdes_next_key(key, c.one_key, h) if c.tdes else aes_next_key(key, h[1] + h[0])
        iv, x = next_iv, next_x
    raise AssertionError("no outer loop")


SINGLE = [bytes([b]) for b in range(256)]


def cfb8_tdes_decrypt(update, pin: int, n: int):
    """TDESAVS CFB8 decryption: the next input byte is the keystream byte,
    i.e. output ^ input. Returns (outputs, inputs, next input)."""
    outs, ins = bytearray(n), bytearray(n)
    for j in range(n):
        o = update(SINGLE[pin])[0]
        outs[j], ins[j] = o, pin
        pin ^= o
    return bytes(outs), bytes(ins), pin


def cfb8_inner(c: Chain, key: bytes, iv: bytes, pin: int):
    """One CFB8 stream: input j+1 is IV byte j for j < block, else the output
    block-1 bytes earlier (TDESAVS decryption: the keystream byte)."""
    update = c.update(key, iv)
    if c.tdes and c.decrypt:
        return cfb8_tdes_decrypt(update, pin, c.inner)
    out = fed_back(update, SINGLE[pin] + iv, c.inner)
    return out, None, out[c.inner - 1 - c.bs]


def run_cfb8(c: Chain) -> bytes:
    key, iv, pin = c.key, c.iv, c.inp[0]
    for _ in range(c.outer):
        out, ins, pin = cfb8_inner(c, key, iv, pin)
        if c.tdes:
            key = tdes_next_key(key, c.one_key, (out[-8:], out[-16:-8], out[-24:-16]))
            iv = (ins if c.decrypt else out)[-8:]  # the shift register
        else:
            key = aes_next_key(key, out)
            iv = out[-c.bs:]
    return out[-1:]


# ---- the records -----------------------------------------------------------------

def procedure(r: dict) -> tuple:
    src = "aesavs" if "aesmct" in r["source"] else "tdesavs" if r["alg"].startswith("TDES") else "submission"
    return src, r["mode"], r.get("direction", "encrypt")


def mct_records() -> list:
    """(pytest param) per Monte Carlo record; the ones left out by default
    are marked to skip unless FB_PY_MCT=all."""
    found = [(f, r) for f in FILES for r in records(VECTORS / f"{f}.txt") if "iterations" in r]
    last_of = {procedure(r): (f, r["line"]) for f, r in found if int(r["iterations"]) == 400}
    everything = os.environ.get("FB_PY_MCT") == "all"
    some = not everything and os.environ.get("FB_QUICK") != "1"
    params = []
    for f, r in found:
        run = everything or procedure(r)[0] == "aesavs" or (some and last_of[procedure(r)] == (f, r["line"]))
        marks = () if run else pytest.mark.skip(reason="long Monte Carlo chain; FB_PY_MCT=all runs it")
        rid = f"{f}:{r['line']}-{r['alg']}-{r['mode']}-{procedure(r)[2]}"
        params.append(pytest.param(r, id=rid, marks=marks))
    return params


MCT = mct_records()


def test_every_file_has_its_chains():
    assert len(MCT) == 96  # AES 12 + 30, Triple-DES 6 + 24, MARS 12, Serpent 12


@pytest.mark.parametrize("r", MCT)
def test_monte_carlo(r):
    c = chain_of(r)
    got = run_cfb8(c) if c.mode == "CFB8" else run_blocks(c)
    assert got.hex() == c.want.hex(), r
