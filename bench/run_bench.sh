#!/bin/sh
# bench/run_bench.sh [BUILD_DIR] - what `make bench` runs.
#
#  1. Makes sure the peer libraries are there: as root it installs the
#     missing Debian packages (apt-get update once, then apt-get install);
#     otherwise it prints the one command to run and goes on with what is
#     installed.
#  2. Configures and builds fastblock in BUILD_DIR (default build/), so the
#     peers just installed are compiled in.
#  3. Runs the default comparison (every cipher and mode, 64 B and 8 KB,
#     every peer) and the sizes the seed papers used, as JSON in
#     BUILD_DIR/bench/.
#  4. bench/plot.py writes docs/benchmarks.md and docs/benchmarks.png and
#     prints the 8 KB table.
#
# Knobs (environment): BENCH_SECONDS (time per measurement, default 0.02),
# BENCH_CIPHERS (space-separated names or patterns, default all),
# BENCH_SIZES (default "64 8192"), BENCH_INSTALL=0 (never install).
# Exit status: 0, or 1 if a peer or an implementation disagreed with
# fastblock (the documents are written either way and list the cases).
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
SECS=${BENCH_SECONDS:-0.02}
SIZES=${BENCH_SIZES:-"64 8192"}
CIPHERS=${BENCH_CIPHERS:-}
PKGS="libssl-dev libcrypto++-dev libbotan-2-dev libgcrypt20-dev nettle-dev libipsec-mb-dev python3-matplotlib"

say() { echo "bench: $*" >&2; }

# ---- 1. packages ----
missing=""
if command -v dpkg-query >/dev/null 2>&1; then
	for p in $PKGS; do
		if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed"; then
			missing="$missing $p"
		fi
	done
	if [ -n "$missing" ]; then
		if [ "$(id -u)" = 0 ] && [ "${BENCH_INSTALL:-1}" != 0 ] && command -v apt-get >/dev/null 2>&1; then
			say "installing$missing"
			apt-get update
			DEBIAN_FRONTEND=noninteractive apt-get install -y $missing
		else
			say "these peer packages are missing:$missing"
			say "to compare against them, run:  sudo apt-get install -y$missing"
			say "going on with the peers that are installed"
		fi
	fi
else
	say "not a Debian system: install OpenSSL, Crypto++, Botan 2, libgcrypt, Nettle, ipsec-mb"
	say "development packages and python3 matplotlib with your package manager"
fi

# ---- 2. build (re-configuring picks up peers installed since the last run) ----
if [ -f "$BUILD/CMakeCache.txt" ]; then
	cmake "$BUILD" >/dev/null
	bt=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
	case $bt in
	Release | RelWithDebInfo | MinSizeRel) ;;
	*) say "warning: $BUILD is a '$bt' build; figures from an unoptimised build mean little" ;;
	esac
else
	gen=""
	command -v ninja >/dev/null 2>&1 && gen="-G Ninja"
	cmake -S "$ROOT" -B "$BUILD" $gen -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$BUILD" -j 2
FB=$BUILD/fastblock
[ -x "$FB" ] || { say "no $FB after the build"; exit 2; }

# ---- 3. measure ----
OUT=$BUILD/bench
mkdir -p "$OUT"
"$FB" speed --info --json >"$OUT/info.json"
"$FB" speed --info >&2

cipher_args=""
for c in $CIPHERS; do cipher_args="$cipher_args --cipher $c"; done
size_args=""
for s in $SIZES; do size_args="$size_args --size $s"; done

status=0
say "default comparison: every cipher and mode, sizes $SIZES, every peer, $SECS s per measurement"
# shellcheck disable=SC2086 # word splitting of the argument lists is wanted
"$FB" speed --peers --json --seconds "$SECS" $size_args $cipher_args >"$OUT/main.json" || status=$?
[ "$status" -le 1 ] || { say "fastblock speed failed ($status)"; exit "$status"; }

# The seeds' own quantities: 1 KB DES/3DES (seed 001) and 8000 blocks of the
# AES finalists (seed 002). Patterns that match nothing yet are skipped.
# Only ciphers fastblock has are asked for, so nothing fails for a missing one.
seed_args=$(python3 - "$OUT/info.json" <<'EOF'
import json, sys
have = set(json.load(open(sys.argv[1]))["ciphers"])
print(" ".join("--cipher " + c for c in ("des-ecb", "des-cbc", "des-ede3-ecb", "des-ede3-cbc") if c in have))
EOF
)
seed_status=0
if [ -n "$seed_args" ]; then
	# shellcheck disable=SC2086
	"$FB" speed --json --quiet --seconds "$SECS" --size 1024 $seed_args >"$OUT/seeds-001.json" || seed_status=$?
else
	echo "[]" >"$OUT/seeds-001.json"
fi
seed_args=$(python3 - "$OUT/info.json" <<'EOF'
import json, sys
have = set(json.load(open(sys.argv[1]))["ciphers"])
print(" ".join("--cipher " + c for c in ("rc6-128-ecb", "aes-128-ecb", "twofish-128-ecb", "mars-128-ecb", "serpent-128-ecb") if c in have))
EOF
)
if [ -n "$seed_args" ]; then
	# shellcheck disable=SC2086
	"$FB" speed --json --quiet --seconds "$SECS" --size 128000 $seed_args >"$OUT/seeds-002.json" || seed_status=$?
else
	echo "[]" >"$OUT/seeds-002.json"
fi
python3 - "$OUT/seeds-001.json" "$OUT/seeds-002.json" >"$OUT/seeds.json" <<'EOF'
import json, sys
rows = []
for p in sys.argv[1:]:
    rows += json.load(open(p))
json.dump(rows, sys.stdout)
EOF
[ "$seed_status" -le 1 ] || say "the seeds' run failed ($seed_status); its tables will be empty"
[ "$seed_status" -eq 1 ] && status=1

# ---- 4. documents ----
PY=python3
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null 2>&1 && "$p" -c "import matplotlib" 2>/dev/null; then
		PY=$p
		break
	fi
done
plot_status=0
"$FB" list --footprint --porcelain > "$OUT/footprint.tsv"
"$FB" speed --cache --seconds 0.2 > "$OUT/cache.txt" || say "fastblock speed --cache failed"
"$PY" "$ROOT/bench/plot.py" --info "$OUT/info.json" --main "$OUT/main.json" --seeds "$OUT/seeds.json" \
	--footprint "$OUT/footprint.tsv" --cache "$OUT/cache.txt" --md "$ROOT/docs/benchmarks.md" --png "$ROOT/docs/benchmarks.png" || plot_status=$?
[ "$plot_status" -le 1 ] || { say "plot.py failed"; exit "$plot_status"; }
[ "$plot_status" -eq 1 ] && status=1

if [ "$status" -ne 0 ]; then
	say "WARNING: some peer or implementation did not match fastblock; see docs/benchmarks.md"
fi
exit "$status"
