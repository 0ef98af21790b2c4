"""Shared helpers: the catalogue, key generation, independent block functions."""
from __future__ import annotations

import os
from typing import Callable, Tuple

import pytest
from hypothesis import HealthCheck, settings

import fastblock

# Modest example counts keep pytest near 20 s on two cores (fewer under
# FB_QUICK=1, as `make test-masked` sets); FB_PY_EXAMPLES=N overrides.
settings.register_profile(
    "fastblock",
    max_examples=int(os.environ.get("FB_PY_EXAMPLES", "100" if os.environ.get("FB_QUICK") else "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("fastblock")

CIPHERS = {c.name: c for c in fastblock.ciphers()}
# Names with an explicit mode (des-ede3 and des-ede alone are ECB aliases).
MODE_NAMES = sorted(n for n, c in CIPHERS.items() if n.endswith("-" + c.mode))
FAMILIES = sorted({c.family for c in CIPHERS.values()})


def ecb_name(name: str) -> str:
    """The ECB name of a cipher+mode's block cipher and key size (XTS: one half)."""
    c = CIPHERS[name]
    if not name.endswith("-" + c.mode):
        return name
    base = name[: -len(c.mode) - 1]
    if c.mode == "xts":
        fam = base.rsplit("-", 1)[0]
        return f"{fam}-{c.key_len * 4}-ecb"
    return base + "-ecb"


def good_key(name: str, raw: bytes) -> bytes:
    """raw bytes made acceptable as a key for name: XTS halves must differ."""
    c = CIPHERS[name]
    k = raw[: c.key_len]
    if c.mode == "xts" and k[: c.key_len // 2] == k[c.key_len // 2:]:
        k = bytes([k[0] ^ 1]) + k[1:]
    return k


def _des_block(key8: bytes) -> Tuple[Callable[[bytes], bytes], Callable[[bytes], bytes]]:
    from Crypto.Cipher import DES
    e = DES.new(key8, DES.MODE_ECB)
    return e.encrypt, e.decrypt


def block_functions(ecb: str, key: bytes) -> Tuple[Callable[[bytes], bytes], Callable[[bytes], bytes], str]:
    """(encrypt block, decrypt block, source) for an ECB name and key. AES, DES
    and Triple-DES (composed from single DES, so K1 = K2 keys work) come from
    pycryptodome; the others from fastblock's ECB, which test_kat checks
    against the standards' vectors."""
    fam = CIPHERS[ecb].family
    if fam == "aes":
        from Crypto.Cipher import AES
        a = AES.new(key, AES.MODE_ECB)
        return a.encrypt, a.decrypt, "pycryptodome"
    if fam == "des":
        ks = [key[i:i + 8] for i in range(0, len(key), 8)]
        if len(ks) == 1:
            e, d = _des_block(ks[0])
            return e, d, "pycryptodome"
        if len(ks) == 2:
            ks.append(ks[0])
        (e1, d1), (e2, d2), (e3, d3) = (_des_block(k) for k in ks)
        return (lambda b: e3(d2(e1(b)))), (lambda b: d1(e2(d3(b)))), "pycryptodome DES, composed"

    def enc(b: bytes) -> bytes:
        return fastblock.encrypt(ecb, key, b, padding="none")

    def dec(b: bytes) -> bytes:
        return fastblock.decrypt(ecb, key, b, padding="none")
    return enc, dec, "fastblock ECB"


def pytest_configure(config):
    config.addinivalue_line("markers", "sdist: builds the source distribution and installs it in a new venv (slow)")


@pytest.fixture(scope="session")
def cli_path():
    p = os.environ.get("FASTBLOCK_CLI")
    if not p or not os.path.exists(p):
        pytest.skip("FASTBLOCK_CLI not set (python/run_tests.sh sets it to the built CLI)")
    return p
