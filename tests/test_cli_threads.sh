#!/usr/bin/env bash
# test_cli_threads.sh - `fastblock enc|dec --threads N` gives the bytes of
# one thread (and of `openssl enc` where it has the mode), for every
# parallel mode, sizes around the window (N x 4 MB) and the library's
# 1 MB chunk, files, pipes and a salted header that puts the data at an
# odd offset; serial modes say once that they use one thread; the progress
# line shows on a terminal (a pseudo-terminal here) and never in a pipe.
# Usage: test_cli_threads.sh path/to/fastblock
set -u
FB=${1:?usage: test_cli_threads.sh path/to/fastblock}
T=$(mktemp -d "${TMPDIR:-/tmp}/fbthr.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
OSSL=(openssl enc -provider legacy -provider default)
START=$(date +%s)
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
same() { if cmp -s "$1" "$2"; then ok; else bad "$3 ($(cmp "$1" "$2" 2>&1 | head -1))"; fi; }
hex() { od -An -tx1 -N "$1" /dev/urandom | tr -d ' \n'; }
MB=1048576

K24=$(hex 24) K16=$(hex 16) K64=$(hex 64) IV8=$(hex 8) IV16=$(hex 16)
# name key iv openssl-name ("" when openssl enc has no such mode)
CASES="des-ede3-ctr:$K24:$IV8:
des-ede3-cbc:$K24:$IV8:des-ede3-cbc
des-ede3-cfb:$K24:$IV8:des-ede3-cfb
aes-128-ecb:$K16::aes-128-ecb
aes-128-ctr:$K16:$IV16:aes-128-ctr
aes-256-xts:$K64:$IV16:
serpent-128-cbc:$K16:$IV16:"
SIZES="$((8 * MB - 16)) $((8 * MB)) $((8 * MB + 16)) $((12 * MB + 32)) $((2 * MB + 48))"
[ -n "${FB_QUICK:-}" ] && SIZES="$((8 * MB + 16)) $((2 * MB + 48))"

for size in $SIZES; do
	head -c "$size" /dev/urandom >"$T/plain"
	while IFS=: read -r name key iv oname; do
		ivopt=(); [ -n "$iv" ] && ivopt=(--iv "$iv")
		# ciphertext to decrypt, made by one thread
		"$FB" enc --cipher "$name" --key "$key" "${ivopt[@]}" --no-pad --threads 1 --in "$T/plain" --out "$T/ct1" || bad "$name enc, 1 thread"
		if [ -n "$oname" ]; then
			oiv=(); [ -n "$iv" ] && oiv=(-iv "$iv")
			"${OSSL[@]}" -"$oname" -K "$key" "${oiv[@]}" -nopad -in "$T/plain" -out "$T/ossl" 2>/dev/null
			same "$T/ct1" "$T/ossl" "$name $size bytes: one thread against openssl enc"
		fi
		for t in 2 3; do
			for dir in enc dec; do
				src="$T/plain"; ref="$T/ct1"
				[ $dir = dec ] && src="$T/ct1" ref="$T/plain"
				"$FB" $dir --cipher "$name" --key "$key" "${ivopt[@]}" --no-pad --threads $t --in "$src" --out "$T/out" 2>"$T/err" || bad "$name $dir --threads $t"
				same "$T/out" "$ref" "$name $dir $size bytes, --threads $t, file to file"
				[ $t = 3 ] && continue
				"$FB" $dir --cipher "$name" --key "$key" "${ivopt[@]}" --no-pad --threads $t <"$src" 2>/dev/null | cat >"$T/out"
				same "$T/out" "$ref" "$name $dir $size bytes, --threads $t, pipe to pipe"
			done
		done
	done <<<"$CASES"
done

# A salted file: the data starts 16 bytes in, off any page boundary.
head -c $((9 * MB + 5)) /dev/urandom >"$T/plain"
"$FB" enc --cipher aes-256-ctr --pass pass:secret --threads 1 --in "$T/plain" --out "$T/salted" || bad "salted enc"
"$FB" dec --cipher aes-256-ctr --pass pass:secret --threads 2 --in "$T/salted" --out "$T/out" || bad "salted dec"
same "$T/out" "$T/plain" "salted aes-256-ctr: dec on 2 threads of 1-thread enc"
openssl enc -d -aes-256-ctr -pbkdf2 -pass pass:secret -in "$T/salted" -out "$T/ossl" 2>/dev/null
same "$T/ossl" "$T/plain" "salted aes-256-ctr: openssl enc -d reads it"

# Serial modes say once that they run on one thread, when threads were asked for.
head -c $((3 * MB)) /dev/urandom >"$T/plain"
"$FB" enc --cipher des-ede3-cbc --key $K24 --iv $IV8 --threads 2 --in "$T/plain" --out "$T/out" 2>"$T/err"
if [ "$(grep -c 'serial chain: one thread' "$T/err")" = 1 ]; then ok; else bad "cbc enc --threads 2: no single note: $(cat "$T/err")"; fi
"$FB" enc --cipher des-ede3-cbc --key $K24 --iv $IV8 --in "$T/plain" --out "$T/out" 2>"$T/err"
if [ ! -s "$T/err" ]; then ok; else bad "cbc enc, no --threads, in a pipe: said $(cat "$T/err")"; fi
"$FB" dec --cipher des-ede3-cbc --key $K24 --iv $IV8 --threads 2 --in "$T/out" --out "$T/back" 2>"$T/err"
if [ ! -s "$T/err" ]; then ok; else bad "cbc dec --threads 2: said $(cat "$T/err")"; fi
same "$T/back" "$T/plain" "cbc round trip"
for v in 0 257 two -1; do
	"$FB" enc --cipher aes-128-ctr --key $K16 --iv $IV16 --threads $v --in "$T/plain" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc = 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" = 1 ]; then ok; else bad "--threads $v: exit $rc"; fi
done

# under_pty LOG ARGS...: runs fastblock ARGS with stdout and stderr on a
# pseudo-terminal and stdin from a pipe that gives 4 MB, pauses 1.5 s,
# then gives 4 MB more (so the run lasts over a second on any machine);
# what it printed goes to LOG.
under_pty() {
	python3 - "$FB" "$@" <<'PY'
import os, pty, sys, threading, time
fb, log, args = sys.argv[1], sys.argv[2], sys.argv[3:]
r, w = os.pipe()
pid, fd = pty.fork()
if pid == 0:
    os.dup2(r, 0)
    os.execv(fb, [fb] + args)
os.close(r)
def feed():
    os.write(w, b"\0" * (4 << 20))
    time.sleep(1.5)
    os.write(w, b"\0" * (4 << 20))
    os.close(w)
threading.Thread(target=feed).start()
out = bytearray()
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
os.waitpid(pid, 0)
open(log, "wb").write(bytes(out))
PY
}

# Progress: on a terminal once the run has taken a second, never in a pipe.
piped=(enc --cipher aes-128-ctr --key $K16 --iv $IV16 --out "$T/out")
under_pty "$T/tty" "${piped[@]}"
if grep -q "8.4 MB, .*B/s, [0-9.]* s" "$T/tty"; then ok; else bad "no progress line on a terminal: $(head -c 300 "$T/tty" | od -c | head -3)"; fi
under_pty "$T/tty" "${piped[@]}" --no-progress
if [ ! -s "$T/tty" ]; then ok; else bad "--no-progress on a terminal printed: $(head -c 200 "$T/tty")"; fi
(head -c $((4 * MB)) /dev/zero; sleep 1.5; head -c $((4 * MB)) /dev/zero) | "$FB" "${piped[@]}" 2>"$T/err"
if [ ! -s "$T/err" ]; then ok; else bad "progress in a pipe: $(head -c 200 "$T/err")"; fi
(head -c $((4 * MB)) /dev/zero; sleep 1.5; head -c $((4 * MB)) /dev/zero) | "$FB" "${piped[@]}" --progress 2>"$T/err"
if grep -q "8.4 MB, .*B/s" "$T/err"; then ok; else bad "--progress in a pipe printed: $(head -c 200 "$T/err")"; fi
# From a regular file the line has the total and an ETA (a serial 3DES
# chain on the table kernel runs a few seconds over 300 MB).
if [ -z "${FB_QUICK:-}" ]; then
	head -c $((300 * MB)) /dev/zero >"$T/big"
	"$FB" enc --cipher des-ede3-cbc --key $K24 --iv $IV8 --impl des/table --in "$T/big" --out "$T/out" --progress 2>"$T/err"
	if grep -q " of 314.6 MB (.*ETA [0-9]*:[0-9][0-9]" "$T/err"; then ok; else bad "no total or ETA: $(head -c 300 "$T/err")"; fi
fi

echo "test_cli_threads: $pass passed, $fail failed, $(($(date +%s) - START)) s"
[ $fail = 0 ]
