#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang, ASan and UBSan, and runs each
# for a bounded time (FUZZ_SECONDS, default 40) on a scratch copy of its seed
# corpus (tests/fuzz/corpus/NAME stays as checked in). A crash or a finding
# fails the run and leaves its input in build-fuzz/crashes/.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${FUZZ_BUILD:-$root/build-fuzz}
secs=${FUZZ_SECONDS:-40}
if ! command -v clang >/dev/null; then
	echo "fuzz: clang is not installed (scripts/install-deps.sh installs it)"
	[ -n "${CI:-}" ] && exit 1
	echo "fuzz: 0 passed, 0 failed, 3 skipped: no clang"
	exit 0
fi
# -O1 -g1, as make test-asan: what the sanitizer reports need, and a shorter
# build (CMakeLists.txt also leaves the slowest kernels uninstrumented here).
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
	-DFB_SANITIZE=ON -DFB_FUZZ=ON >/dev/null
cmake --build "$build" --target fuzz_api fuzz_padding fuzz_cli -j "$(nproc)"
mkdir -p "$build/crashes"
pass=0 fail=0
for f in api padding cli; do
	work="$build/corpus-$f"
	rm -rf "$work"
	mkdir -p "$work"
	log="$build/fuzz_$f.log"
	if "$build/fuzz_$f" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
		-artifact_prefix="$build/crashes/$f-" "$work" "$root/tests/fuzz/corpus/$f" >"$log" 2>&1; then
		pass=$((pass + 1))
		echo "fuzz_$f: $(grep -o 'Done [0-9]* runs' "$log" | tail -1) in ${secs} s, no finding"
	else
		fail=$((fail + 1))
		echo "fuzz_$f: FAILED; input kept in $build/crashes/:"
		ls "$build/crashes" | grep "^$f-" | head -3
		grep -E 'ERROR|SUMMARY|differs|runtime error' "$log" | head -5
	fi
done
echo "fuzz: $pass passed, $fail failed"
[ $fail = 0 ]
