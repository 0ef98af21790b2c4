"""ciphers(), implementations() and the CLI's `list` agree."""
from __future__ import annotations

import subprocess

import fastblock


def test_catalogue_shape():
    cs = fastblock.ciphers()
    names = {c.name for c in cs}
    for fam in ("des", "aes", "rc6", "mars", "twofish", "serpent"):
        assert any(c.family == fam for c in cs)
    for n in ("des-cbc", "des-ede-cbc", "des-ede3-cbc", "aes-128-ctr", "twofish-256-xts", "serpent-192-cfb8",
              "rc6-128-ofb", "mars-256-ecb"):
        assert n in names
    for c in cs:
        assert c.block_size in (8, 16)
        assert c.iv_len == (0 if c.mode == "ecb" else c.block_size)
    impls = fastblock.implementations()
    for fam in ("des", "aes", "rc6", "mars", "twofish", "serpent"):
        assert any(i.supported for i in impls if i.family == fam), fam  # something runs anywhere
    assert any(i.constant_time for i in impls if i.family == "des")
    assert all(("constant-time" in i.description) for i in impls)
    assert any(not i.constant_time for i in impls)  # table kernels are labelled
    assert fastblock.library_version() == fastblock.__version__
    assert isinstance(fastblock.cpu_description(), str)


def test_catalogue_matches_cli(cli_path):
    out = subprocess.run([cli_path, "list", "--porcelain"], capture_output=True, text=True, check=True).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    cli_impls = {r[1]: (r[2] == "runs", r[3] == "CT") for r in rows if r[0] == "impl"}
    py_impls = {i.name: (i.supported, i.constant_time) for i in fastblock.implementations()}
    assert cli_impls == py_impls
    cli_ciphers = {r[1] for r in rows if r[0] == "cipher"}
    if cli_ciphers:
        assert cli_ciphers == {c.name for c in fastblock.ciphers()}
