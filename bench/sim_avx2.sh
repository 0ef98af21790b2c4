#!/bin/sh
# bench/sim_avx2.sh [BUILD_DIR] - a first-order look at the AVX2 class
# (Zen 2/3, Intel client: AVX2 and AES-NI, no AVX-512, VAES or GFNI) from
# a machine that has more.
#
# fastblock runs with FASTBLOCK_CPU_MASK=ff. The peers that choose code by
# CPU features are held to the same class:
#  - OpenSSL by OPENSSL_ia32cap, without the AVX-512, VAES, VPCLMULQDQ and
#    GFNI bits of CPUID leaf 7 (its documented mask);
#  - libgcrypt (FASTBLOCK_PEER_CLASS=avx2, bench/peer_gcrypt.c) without
#    AVX-512, VAES, GFNI and fast gathers, as on Zen 2;
#  - ipsec-mb (the same variable) initialised for AVX2.
# Crypto++ 8 and Botan 2 use AES-NI and AVX2 at most for these ciphers.
#
# It prints the rows of the 64 B and 8 KB tables where fastblock's default
# is below the best peer, and keeps the JSON in BUILD_DIR/bench/sim-avx2.json.
# docs/ are not touched.
#
# First order only. The core is still this one: its latencies, its four
# vector pipes, and its gathers (fast here, ~20 TSC ticks for eight lanes on
# Zen 2). The real class's figures are in ../shared/measurements/ and come
# from `make bench` on such a machine.
#
# Knobs: BENCH_SECONDS (default 0.02), BENCH_CIPHERS (patterns, default
# all), SIM_PEERS (default every peer but ipsec-mb, whose AVX2 DES runs
# at ~1 MB/s and would take most of the run), SIM_MASK (default ff: the
# AVX2 class as on Intel; 800ff keeps the AMD Zen property, so the
# selection takes AMD's rows, as on Zen 3; 2c00ff keeps Zen 2's slow gathers and PDEP, which
# a mask can only hide: on a CPU without those properties it is 800ff),
# SIM_PEER_CLASS (default avx2; avx2-vaes lets libgcrypt use VAES on 256
# bits, as on Zen 3: pair it with SIM_MASK=980ff, Zen 3's features;
# avx2-client also GFNI and fast gathers, as on Intel's client cores from
# Alder Lake: pair it with SIM_MASK=1c0ff, AVX2 with VAES, VPCLMULQDQ and
# GFNI on an Intel CPU). OpenSSL 3.0 uses VAES and GFNI only beside
# AVX-512, so its mask stays.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
FB=$BUILD/fastblock
[ -x "$FB" ] || { echo "sim_avx2: no $FB; run make first" >&2; exit 2; }
SECS=${BENCH_SECONDS:-0.02}
PEERS=${SIM_PEERS:-"openssl crypto++ botan libgcrypt nettle"}

args=""
for p in $PEERS; do args="$args --peer $p"; done
for c in ${BENCH_CIPHERS:-}; do args="$args --cipher $c"; done
mkdir -p "$BUILD/bench"
OUT=$BUILD/bench/sim-avx2.json
status=0
# shellcheck disable=SC2086 # word splitting of the argument list is wanted
FASTBLOCK_CPU_MASK=${SIM_MASK:-ff} FASTBLOCK_PEER_CLASS=${SIM_PEER_CLASS:-avx2} OPENSSL_ia32cap=":~0x5F42DC230000" "$FB" speed --json --quiet --seconds "$SECS" \
	--size 64 --size 8192 $args >"$OUT" || status=$?
[ "$status" -le 1 ] || { echo "sim_avx2: fastblock speed failed ($status)" >&2; exit "$status"; }

python3 - "$ROOT/bench" "$OUT" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from plot import Results, load, used_impl

res = Results(load(sys.argv[2]))
peers = sorted({r["library"] for r in res.rows} - {"fastblock"})
for size in res.sizes():
    low, n = [], 0
    for c in res.ciphers([]):
        for op in ("encrypt", "decrypt"):
            d = res.find(c, op, size, impl="default")
            cands = [res.best(c, op, size, p) for p in peers]
            cands = [r for r in cands if r and r.get("mb_per_s")]
            if not d or not d.get("mb_per_s") or not cands:
                continue
            best = max(cands, key=lambda r: r["mb_per_s"])
            n += 1
            ratio = d["mb_per_s"] / best["mb_per_s"]
            if ratio < 1.0:
                low.append((ratio, c, op, used_impl(d), best["library"], d["mb_per_s"], best["mb_per_s"]))
    print(f"{size} B: {n} rows against the best peer; below 1.0x: {len(low)}; "
          f"below 0.95x: {sum(1 for r in low if r[0] < 0.95)}")
    for ratio, c, op, impl, lib, mine, theirs in sorted(low):
        print(f"  {ratio:5.2f}x  {c:18} {op:7} {impl:22} {mine:9.1f} MB/s  {lib} {theirs:9.1f}")
PY
exit "$status"
