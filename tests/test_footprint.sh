#!/bin/sh
# test_footprint.sh CLI LIB NM - `fastblock list --footprint --porcelain`
# against nm run here on the library: the code and table bytes of a
# portable and a SIMD implementation, and contexts at
# least the schedule plus the state for what this CPU runs.
set -u
cli=$1 lib=$2 nm=$3
fail=0
out=$("$cli" list --footprint --porcelain) || { echo "FAIL: list --footprint exited $?"; exit 1; }

# nm's sums for one object: "CODE TABLES"
nm_sums() {
	"$nm" -S -t d "$lib" | awk -v want="$1.c.o:" '
		/:$/ { on = ($0 == want); next }
		on && NF == 4 && ($3 == "t" || $3 == "T") { c += $2 }
		on && NF == 4 && ($3 == "r" || $3 == "R") { r += $2 }
		END { printf "%d %d\n", c, r }'
}

row() { printf '%s\n' "$out" | awk -F'\t' -v n="$1" '$1 == "footprint" && $2 == n'; }

check() { # impl object
	r=$(row "$1")
	[ -n "$r" ] || { echo "FAIL: no footprint row for $1"; fail=1; return; }
	got=$(printf '%s\n' "$r" | awk -F'\t' '{ print $3, $4, $5 }')
	want="$2 $(nm_sums "$2")"
	if [ "$got" != "$want" ]; then
		echo "FAIL: $1: list says '$got', nm says '$want'"; fail=1
	else
		echo "ok: $1: object, code and tables '$got' as nm"
	fi
}
check des/table des_table
check aes/vaes-avx512 aes_vaes_avx512
check serpent/bitslice serpent_bitslice
check twofish/avx512-gfni-ct twofish_avx512_gfni

# Every implementation has a row; a context, where this CPU runs it, holds
# at least its schedule and the 256-byte state.
n_impl=$("$cli" list --porcelain | awk -F'\t' '$1 == "impl"' | wc -l)
n_fp=$(printf '%s\n' "$out" | awk -F'\t' '$1 == "footprint"' | wc -l)
[ "$n_impl" = "$n_fp" ] || { echo "FAIL: $n_impl implementations, $n_fp footprint rows"; fail=1; }
bad=$(printf '%s\n' "$out" | awk -F'\t' '$1 == "footprint" && $7 != 0 && $7 < $6 + 256 { print $2 }')
[ -z "$bad" ] || { echo "FAIL: contexts smaller than schedule + state: $bad"; fail=1; }
"$cli" list --footprint --bogus >/dev/null 2>&1; [ $? = 2 ] || { echo "FAIL: a bad list option is not exit 2"; fail=1; }
[ $fail = 0 ] && echo "test_footprint: all checks passed"
exit $fail
