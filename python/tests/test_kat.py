"""The known-answer files of tests/vectors through the Python API: every
record except the Monte Carlo chains (test_kat_mct.py runs those), one-shot
in both directions and streamed in two pieces."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

import fastblock

VECTORS = Path(os.environ.get("FASTBLOCK_VECTORS", Path(__file__).resolve().parents[2] / "tests" / "vectors"))
FILES = ["des", "tdes", "modes-tdes", "aes", "modes-aes", "rc6", "mars", "twofish", "serpent"]
MODES = {"ECB": "ecb", "CBC": "cbc", "CFB8": "cfb8", "CFB64": "cfb", "CFB128": "cfb", "OFB": "ofb", "CTR": "ctr"}


def records(path: Path):
    """The records of a vector file as dicts of its fields, with "source"
    (the test named by the "# source:" line, which decides the Monte Carlo
    procedure) and "line" (where the record starts)."""
    rec = {}
    lines = path.read_text().splitlines() + [""]
    for no, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            if "alg" in rec:
                yield rec
            rec = {}
            continue
        rec.setdefault("line", no)
        if line.startswith("# source: "):
            rec["source"] = line[len("# source: "):]
        elif not line.startswith("#"):
            k, _, v = line.partition(" = ")
            rec[k] = v


def fb_name(alg: str, mode: str) -> str:
    m = MODES[mode]
    if alg == "DES":
        return f"des-{m}"
    if alg == "TDES-2KEY":
        return f"des-ede-{m}"
    if alg == "TDES-3KEY":
        return f"des-ede3-{m}"
    fam, bits = alg.split("-")
    return f"{fam.lower()}-{bits}-{m}"


@pytest.mark.parametrize("fname", FILES)
def test_known_answers(fname):
    path = VECTORS / f"{fname}.txt"
    assert path.exists(), path
    count = 0
    for r in records(path):
        if "iterations" in r:
            continue
        name = fb_name(r["alg"], r["mode"])
        key = bytes.fromhex(r["key"])
        if r["alg"] == "TDES-2KEY" and len(key) == 24:
            key = key[:16]
        iv = bytes.fromhex(r["iv"]) if "iv" in r else None
        pt, ct = bytes.fromhex(r["plaintext"]), bytes.fromhex(r["ciphertext"])
        assert fastblock.encrypt(name, key, pt, iv, "none") == ct, r
        assert fastblock.decrypt(name, key, ct, iv, "none") == pt, r
        if len(pt) > 1:
            e = fastblock.Cipher(name, key, iv, "none").encryptor()
            h = len(pt) // 2 + 1
            assert e.update(pt[:h]) + e.update(pt[h:]) + e.finalize() == ct, r
        count += 1
    assert count > 100  # the file was read
