#!/usr/bin/env bash
# The Python package's tests, in a fresh virtual environment made here, so
# that a missing build requirement fails: creates BUILD/pyvenv, installs
# the test tools and oracles from the package index, builds and installs
# the package from the repository (`pip install ./`, scikit-build-core over
# the project's CMake), then runs pytest.
#   python/run_tests.sh [BUILD_DIR] [pytest args...]
# Environment: PYTHON (default python3), FASTBLOCK_CLI (the CLI, for the
# tests that compare with it), FB_PY_EXAMPLES (hypothesis examples per test).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
build="$(mkdir -p "${1:-$root/build}" && cd "${1:-$root/build}" && pwd)"
shift || true
py="${PYTHON:-python3}"
venv="$build/pyvenv"

t0=$SECONDS
rm -rf "$venv"
"$py" -m venv "$venv"
pip=("$venv/bin/python" -m pip --disable-pip-version-check -q)
# pyspark (with pandas, which its Arrow functions check for; it supports
# pandas 2) and dask for the re-encryption jobs in examples/; PyPA build
# for test_sdist.py.
"${pip[@]}" install pytest hypothesis pycryptodome cryptography numpy pyarrow pyspark "pandas<3" "dask[dataframe]" build
# The build requirements exactly as pyproject.toml declares them (so a
# missing one fails here), then the package without build isolation: an
# isolated build would make scikit-build-core discard its CMake cache, and
# BUILD/skbuild keeps the compiled objects between runs (the venv is new
# each time; the library need not be rebuilt).
mapfile -t reqs < <("$venv/bin/python" - "$root/pyproject.toml" <<'PY'
import sys
try:
    import tomllib
except ImportError:  # Python < 3.11: the one requirement, by name
    print("scikit-build-core")
    sys.exit(0)
with open(sys.argv[1], "rb") as f:
    print("\n".join(tomllib.load(f)["build-system"]["requires"]))
PY
)
"${pip[@]}" install "${reqs[@]}"
"${pip[@]}" install --no-build-isolation --config-settings=build-dir="$build/skbuild" "$root"
echo "python/run_tests.sh: venv and package ready in $((SECONDS - t0)) s"
: "${FASTBLOCK_CLI:=$build/fastblock}"
export FASTBLOCK_CLI FASTBLOCK_VECTORS="$root/tests/vectors"
# From the build directory, so that python/fastblock in the source tree
# cannot shadow the installed package.
cd "$build"
exec "$venv/bin/python" -m pytest -p no:cacheprovider -q -r s "$root/python/tests" "$@"
