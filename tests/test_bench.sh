#!/bin/sh
# tests/test_bench.sh FASTBLOCK - the benchmark harness works (issue 3, item 4):
#  1. `fastblock speed --peers --json --seconds 0.05` on two small sizes, for
#     a few ciphers picked at run time (one CBC name per family),
#     prints one well-formed JSON array whose rows carry the documented
#     fields, with figures on every timed row;
#  2. `fastblock speed --check-only --peers --json` over every cipher and
#     mode: every peer adapter's output (and every forced implementation's)
#     matches fastblock's default output;
#  3. `fastblock speed --cache` prints a row with figures per table kernel;
#  4. messages under 32 KB are timed as batches (calls_per_sample > 1 at
#     64 B and 8 KB, 1 at 64 KB), and with a tiny budget a slow measurement stops at the
#     time cap: the OpenSSL row of a 256 KB 3DES message, after a 1 KB one,
#     is marked "capped" instead of timed (and the run still exits 0).
#  5. rounds (bench/rounds.h): the timed run's rows (three rounds, the
#     default) come merged, one row per library, implementation, cipher,
#     direction, size and stream count, with a median (its best round's)
#     no faster than the minimum (over every round); --rounds outside
#     1 .. 9 is a usage error.
# No speed is asserted. Fails on a malformed array, a missing field, or any
# row whose status is not "ok".
set -u
FB=${1:?usage: test_bench.sh path/to/fastblock}
PY=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$FB" speed --info --json >"$tmp/info.json" || { echo "FAIL: speed --info"; exit 1; }

# 3. `speed --cache` times the three table kernels warm, cold and contended.
"$FB" speed --cache --seconds 0.01 >"$tmp/cache.txt" || { echo "FAIL: speed --cache exited $?"; cat "$tmp/cache.txt"; exit 1; }
rows=$(awk '$1 ~ /^des\/table/ && $2 + 0 > 0 && $3 + 0 > 0 && $5 + 0 > 0' "$tmp/cache.txt" | wc -l)
[ "$rows" = 3 ] || { echo "FAIL: speed --cache printed $rows full rows, not 3"; cat "$tmp/cache.txt"; exit 1; }
args=$("$PY" - "$tmp/info.json" <<'EOF'
import json, sys
names = json.load(open(sys.argv[1]))["ciphers"]
pick = {}
for n in names:  # one CBC name per family, else the family's first name
    fam = n.split("-")[0]
    if fam not in pick or (n.endswith("-cbc") and not pick[fam].endswith("-cbc")):
        pick[fam] = n
print(" ".join("--cipher " + n for n in sorted(pick.values())))
EOF
) || { echo "FAIL: speed --info --json is not valid JSON"; exit 1; }
[ -n "$args" ] || { echo "FAIL: fastblock lists no cipher"; exit 1; }

# 4. batches of calls and the time cap
"$FB" speed --json --quiet --seconds 0.01 --size 64 --size 8192 --size 65536 --cipher aes-128-ctr --impl default \
	>"$tmp/batch.json" || { echo "FAIL: speed for the batch check exited $?"; exit 1; }
"$PY" - "$tmp/batch.json" <<'EOF' || exit 1
import json, sys
calls = {r["size"]: r.get("calls_per_sample") for r in json.load(open(sys.argv[1]))}
if not (calls.get(64, 0) > 1 and calls.get(8192, 0) > 1 and calls.get(65536) == 1):
    sys.exit("FAIL: calls per sample at 64 B, 8 KB and 64 KB: %r (want > 1, > 1 and 1)" % calls)
EOF
if "$FB" speed --info | grep -qi openssl; then
	"$FB" speed --json --quiet --peer openssl --seconds 0.00002 --size 1024 --size 262144 \
		--cipher des-ede3-cbc --op encrypt --impl des/table >"$tmp/cap.json" ||
		{ echo "FAIL: a run with capped rows exited $?"; exit 1; }
	"$PY" - "$tmp/cap.json" <<'EOF' || exit 1
import json, sys
rows = json.load(open(sys.argv[1]))
st = {(r["library"], r["size"]): r["status"] for r in rows}
if st.get(("openssl", 262144)) != "capped" or st.get(("openssl", 1024)) not in ("ok", "capped"):
    sys.exit("FAIL: time cap: statuses %r" % st)
EOF
fi

# 5. --rounds outside 1 .. 9
for n in 0 10; do
	"$FB" speed --rounds $n --cipher aes-128-ecb --size 64 >/dev/null 2>&1
	rc=$?
	[ "$rc" = 2 ] || { echo "FAIL: speed --rounds $n exited $rc, not 2"; exit 1; }
done

# shellcheck disable=SC2086 # the argument list splits on purpose
"$FB" speed --peers --json --quiet --seconds 0.05 --size 16 --size 64 $args >"$tmp/timed.json"
rc_timed=$?
"$FB" speed --check-only --peers --json --quiet >"$tmp/check.json"
rc_check=$?

"$PY" - "$tmp/timed.json" "$rc_timed" "$tmp/check.json" "$rc_check" <<'EOF'
import json, sys

REQUIRED = ("library", "version", "impl", "cipher", "op", "size", "streams", "status",
            "mb_per_s", "cycles_per_byte", "cycles_per_block", "key_setup_cycles")
FIGURES = ("mb_per_s", "cycles_per_byte", "cycles_per_block")
failures = []

def load(path, what):
    try:
        rows = json.load(open(path))
    except ValueError as e:
        failures.append("%s: not valid JSON (%s)" % (what, e))
        return None
    if not isinstance(rows, list):
        failures.append("%s: not a JSON array" % what)
        return None
    return rows

def check(rows, rc, what, timed):
    bad = 0
    for r in rows:
        missing = [k for k in REQUIRED if k not in r]
        if missing:
            failures.append("%s: row without %s: %r" % (what, ", ".join(missing), r))
            continue
        if r["status"] != "ok":
            bad += 1
            failures.append("%s: %s %s %s %s: %s (%s)" % (what, r["library"], r["impl"], r["cipher"],
                                                       r["op"], r["status"], r.get("error", "")))
        elif timed:
            for k in FIGURES:
                if not isinstance(r[k], (int, float)) or r[k] < 0:
                    failures.append("%s: %s has no figure %s" % (what, r, k))
    if (rc == 0) != (bad == 0) or rc not in (0, 1):
        failures.append("%s: exit status %d with %d bad rows" % (what, rc, bad))

timed = load(sys.argv[1], "timed run")
check_rows = load(sys.argv[3], "check run")
if timed is not None:
    check(timed, int(sys.argv[2]), "timed run", True)
    seen = set()
    for r in timed:
        k = tuple(r.get(f) for f in ("library", "impl", "cipher", "op", "size", "streams"))
        if k in seen:
            failures.append("timed run: row %r twice (rounds not merged)" % (k,))
        seen.add(k)
        if r.get("status") == "ok" and r["cycles_per_block_median"] < r["cycles_per_block"]:
            failures.append("timed run: %r median %s below its minimum %s" % (k, r["cycles_per_block_median"],
                                                                               r["cycles_per_block"]))
    if not any(r.get("library") == "fastblock" and r.get("impl") == "default" and r.get("mb_per_s")
               for r in timed):
        failures.append("timed run: no timed fastblock row")
if check_rows is not None:
    check(check_rows, int(sys.argv[4]), "check run", False)
    libs = sorted({r["library"] for r in check_rows if r.get("library") != "fastblock"})
    n = len([r for r in check_rows if r.get("library") != "fastblock"])
    print("peers checked against fastblock: %s (%d cipher/mode/direction cases)" % (", ".join(libs) or "none built in", n))
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
EOF
