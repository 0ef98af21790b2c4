"""The source distribution: built with PyPA `build`, checked for what a build
needs, then installed by pip into a new virtual environment (compiling the
library there, about a minute or two) and used for one known answer.

Slow, so marked `sdist` (`-m "not sdist"` leaves it out); FB_QUICK=1 skips it.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Files without which `pip install fastblock-*.tar.gz` cannot build.
NEEDED = ["pyproject.toml", "CMakeLists.txt", "include/fastblock.h", "python/CMakeLists.txt",
          "python/fastblock/__init__.py", "python/fastblock/_fastblock.c"]
NEEDED_TREES = ["src", "include", "cmake", "python/fastblock"]
# FIPS-197 Appendix C.1 (AES-128).
FIPS197 = ("000102030405060708090a0b0c0d0e0f", "00112233445566778899aabbccddeeff",
           "69c4e0d86a7b0430d8cdb78070b4c55a")

pytestmark = [
    pytest.mark.sdist,
    pytest.mark.skipif(os.environ.get("FB_QUICK") == "1", reason="FB_QUICK=1: no sdist build"),
]


def run(*cmd, cwd=None) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["CMAKE_BUILD_PARALLEL_LEVEL"] = "2"  # the machines are shared
    p = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True)
    assert p.returncode == 0, f"{cmd}\n{p.stdout[-4000:]}\n{p.stderr[-4000:]}"
    return p.stdout


def tracked(tree: str) -> set:
    """Files git tracks under tree, or an empty set outside a git checkout."""
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", tree], capture_output=True, text=True)
    except OSError:
        return set()
    return set(out.stdout.split()) if out.returncode == 0 else set()


@pytest.fixture(scope="module")
def sdist(tmp_path_factory) -> Path:
    pytest.importorskip("build", reason="PyPA build (python/run_tests.sh installs it)")
    out = tmp_path_factory.mktemp("sdist")
    # Without isolation: the build requirements are this venv's (run_tests.sh
    # installs them from pyproject.toml), so no second download.
    run(sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", out, ROOT)
    (path,) = out.glob("fastblock-*.tar.gz")
    return path


def members(path: Path) -> set:
    with tarfile.open(path) as t:
        names = [m.name for m in t.getmembers() if m.isfile()]
    top = names[0].split("/")[0]
    assert all(n.startswith(top + "/") for n in names)
    return {n[len(top) + 1:] for n in names}


def test_sdist_has_the_sources(sdist):
    got = members(sdist)
    missing = [f for f in NEEDED if f not in got]
    for tree in NEEDED_TREES:
        assert any(f.startswith(tree + "/") for f in got), tree
        missing += sorted(tracked(tree) - got)
    assert not missing, missing
    built = [f for f in got if f.startswith("build/") or f.endswith((".o", ".a", ".so"))]
    assert not built, built[:10]


def test_sdist_installs_and_encrypts(sdist, tmp_path):
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv)
    py = venv / "bin" / "python"
    # Built at -O1: this checks that the sdist builds and works, not its
    # speed (run_tests.sh installs the tree with the Release build users get).
    run(py, "-m", "pip", "install", "--disable-pip-version-check", "-q",
        "--config-settings=cmake.build-type=RelWithDebInfo",
        "--config-settings=cmake.define.CMAKE_C_FLAGS_RELWITHDEBINFO=-O1", sdist)
    key, pt, ct = FIPS197
    code = ("import fastblock, sys; print(fastblock.__file__); "
            f"print(fastblock.encrypt('aes-128-ecb', bytes.fromhex('{key}'), bytes.fromhex('{pt}'), "
            "padding='none').hex())")
    where, got = run(py, "-c", code, cwd=tmp_path).split()
    assert Path(where).resolve().parts[:len(venv.resolve().parts)] == venv.resolve().parts, where  # not the tested copy
    assert got == ct
