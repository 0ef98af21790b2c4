#!/usr/bin/env bash
# test_cli.sh - the command-line tool against `openssl enc`, byte for byte,
# and its contract: exit codes (0 ok, 1 key or data refused, 2 usage), a
# one-line message on stderr, no partial output on failure (no file, an
# existing file untouched, nothing on stdout), the input never touched,
# and `fastblock list` naming every implementation with its constant-time
# mark.
#
# Usage: test_cli.sh path/to/fastblock [path/to/test_diff_cryptopp]
#   With the second argument, CTR for DES/3DES (which `openssl enc` lacks),
#   XTS and the ciphers OpenSSL does not have are compared with Crypto++
#   through `test_diff_cryptopp ref ...`, and `fastblock list` is checked
#   against the API's implementation list (`test_diff_cryptopp impls`).
#   Set FB_QUICK=1 for fewer message lengths.
set -u

FB=${1:?usage: test_cli.sh path/to/fastblock [path/to/test_diff_cryptopp]}
REF=${2:-}
T=$(mktemp -d "${TMPDIR:-/tmp}/fbcli.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
OSSL=(openssl enc -provider legacy -provider default)
START=$(date +%s)

pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
skipped() { skip=$((skip + 1)); echo "SKIP: $*"; }

# same FILE1 FILE2 WHAT
same() {
	if cmp -s "$1" "$2"; then ok; else bad "$3 (outputs differ: $(cmp "$1" "$2" 2>&1 | head -1))"; fi
}

hex() { od -An -tx1 -N "$1" /dev/urandom | tr -d ' \n'; }

# run CODE WHAT -- CMD...: runs CMD with stdout to $T/stdout, stderr to
# $T/stderr and checks the exit code; on failure also that stderr is one
# non-empty line and stdout is empty.
run() {
	local want=$1 what=$2 got
	shift 3
	"$@" >"$T/stdout" 2>"$T/stderr"
	got=$?
	if [ "$got" != "$want" ]; then
		bad "$what: exit $got, expected $want ($(head -c 200 "$T/stderr"))"
		return 1
	fi
	ok
	if [ "$want" != 0 ]; then
		if [ "$(wc -l <"$T/stderr")" = 1 ] && [ -s "$T/stderr" ]; then ok; else
			bad "$what: stderr should be one line, got: $(cat "$T/stderr")"; fi
		# LATE=1: data refused at the end of a stream that goes to stdout,
		# which (as with openssl enc) has already received the earlier part.
		if [ -s "$T/stdout" ] && [ -z "${LATE:-}" ]; then bad "$what: wrote to stdout despite failing"; else ok; fi
	fi
	return 0
}


# Key and IV sizes from a name (bytes; IV 0 for ECB).
key_len() {
	case $1 in
	des-ede3*) echo 24 ;; des-ede*) echo 16 ;; des-*) echo 8 ;;
	*-128-xts) echo 32 ;; *-192-xts) echo 48 ;; *-256-xts) echo 64 ;;
	*-128-*) echo 16 ;; *-192-*) echo 24 ;; *-256-*) echo 32 ;;
	esac
}
block_len() { case $1 in des*) echo 8 ;; *) echo 16 ;; esac; }
iv_len() {
	case $1 in
	*-ecb | des-ede | des-ede3) echo 0 ;;
	*) block_len "$1" ;;
	esac
}

# ---- list --------------------------------------------------------------------

run 0 "list (human table)" -- "$FB" list
if run 0 "list --porcelain" -- "$FB" list --porcelain; then cp "$T/stdout" "$T/list"; else : >"$T/list"; fi
run 2 "list with an unknown option" -- "$FB" list --bogus
# Fields of `list --porcelain`: impl NAME runs|no CT|not-CT BATCH NEEDS NOTE (tab-separated).
impl_field() { awk -F '\t' -v n="$1" -v f="$2" '$1 == "impl" && $2 == n { print $f; exit }' "$T/list"; }
if [ -n "$REF" ]; then
	"$REF" impls >"$T/impls" || bad "test_diff_cryptopp impls failed"
	while read -r name mark supported; do
		ct=$(impl_field "$name" 4)
		if [ -z "$ct" ]; then bad "list does not mention $name"; continue; fi
		if [ "$ct" = "$mark" ]; then ok; else bad "list: $name marked $ct, the API says $mark"; fi
		runs=$(impl_field "$name" 3)
		case "$supported:$runs" in
		yes:runs | no:no) ok ;;
		*) bad "list: $name marked '$runs' as running here, the API says '$supported'" ;;
		esac
	done <"$T/impls"
	# Every implementation in the list is one the API knows, and none twice.
	n_list=$(awk -F '\t' '$1 == "impl"' "$T/list" | wc -l)
	n_api=$(wc -l <"$T/impls")
	n_uniq=$(awk -F '\t' '$1 == "impl" { print $2 }' "$T/list" | sort -u | wc -l)
	if [ "$n_list" = "$n_api" ] && [ "$n_uniq" = "$n_list" ]; then ok; else
		bad "list has $n_list implementations ($n_uniq distinct), the API $n_api"; fi
else
	skipped "list vs API (no test_diff_cryptopp given); checking des/table only"
	if [ "$(impl_field des/table 4)" = not-CT ]; then ok; else bad "list: des/table missing or not marked not-CT"; fi
fi
# The portable implementations run on every CPU.
for n in des/table aes/ct64; do
	if [ "$(impl_field "$n" 3)" = runs ]; then ok; else bad "list: $n not marked as running here"; fi
done
# `default` records: cipher, parallel|serial, the streaming default, CT or
# not (all it may run), and what --constant-time runs (or none).
def_field() { awk -F '\t' -v c="$1" -v k="$2" -v f="$3" '$1 == "default" && $2 == c && $3 == k { print $f; exit }' "$T/list"; }
n_def=$(awk -F '\t' '$1 == "default"' "$T/list" | wc -l)
if [ "$n_def" = 12 ]; then ok; else bad "list: $n_def default records, want 12 (6 ciphers x parallel, serial)"; fi
if [ "$(def_field aes-128 parallel 5)" = CT ] && [ "$(def_field serpent-128 serial 5)" = CT ]; then ok; else
	bad "list: the AES or Serpent default not marked CT"; fi
# des/table64-bmi2 or des/table64 on AMD, des/table64-shift elsewhere (src/des/des_impls.c)
case "$(def_field des-ede3 serial 4)" in des/table64 | des/table64-shift | des/table64-bmi2) ser_ok=1 ;; *) ser_ok=0 ;; esac
if [ "$ser_ok" = 1 ] && [ "$(def_field des-ede3 serial 5)" = not-CT ]; then ok; else
	bad "list: the 3DES serial default is not des/table64(-shift) marked not-CT"; fi
while IFS=$'\t' read -r _ cipher kind _ _ under; do
	if [ "$under" = none ] || [ "$(impl_field "$under" 4)" = CT ]; then ok; else
		bad "list: $cipher $kind under --constant-time runs $under, not marked CT"; fi
done < <(awk -F '\t' '$1 == "default"' "$T/list")
have_cipher() { awk -F '\t' -v n="$1" '$1 == "cipher" && $2 == n { f = 1 } END { exit !f }' "$T/list"; }
for n in des-ecb des-cbc des-ede-cbc des-ede3-cbc des-ede3-ctr; do
	if have_cipher "$n"; then ok; else bad "list does not name $n"; fi
done

# ---- byte for byte against openssl enc ----------------------------------------

# Every process costs ~10 ms: DES/3DES (this issue's subject) get the long
# list of lengths, the other ciphers a short one (the differential tests
# cover lengths exhaustively through the API).
if [ "${FB_QUICK:-0}" = 1 ]; then
	SIZES="0 1 8 15 16 17 100"
	SHORT="1 16 17"
else
	SIZES="0 1 7 8 9 15 16 17 31 32 33 100 1000 4095"
	SHORT="0 1 16 17 100 4095"
fi
sizes_for() { case $1 in des*) echo "$SIZES" ;; *) echo "$SHORT" ;; esac; }
BIG=200003 # crosses the CLI's 64 KB read chunks
head -c $BIG /dev/urandom >"$T/big"
for n in $SIZES $SHORT; do head -c "$n" "$T/big" >"$T/pt.$n"; done

OSSL_NAMES="des-ecb des-cbc des-cfb des-cfb8 des-ofb
	des-ede des-ede-ecb des-ede-cbc des-ede-cfb des-ede-ofb
	des-ede3 des-ede3-ecb des-ede3-cbc des-ede3-cfb des-ede3-cfb8 des-ede3-ofb"
# AES: every mode with 128-bit keys, two modes with the other sizes.
for m in ecb cbc cfb cfb8 ofb ctr; do OSSL_NAMES="$OSSL_NAMES aes-128-$m"; done
OSSL_NAMES="$OSSL_NAMES aes-192-cbc aes-192-ofb aes-256-ecb aes-256-ctr"

# compare_one NAME SIZEFILE ENGINE: encrypts with the CLI (stdin -> stdout)
# and the reference, decrypts the reference's output with the CLI
# (--in/--out); ECB and CBC also without padding when the length allows.
compare_one() {
	local name=$1 pt=$2 engine=$3 k iv ivopt=() ivref len bs
	k=$(hex "$(key_len "$name")")
	iv=$(hex "$(iv_len "$name")")
	[ -n "$iv" ] && ivopt=(--iv "$iv")
	len=$(wc -c <"$pt")
	bs=$(block_len "$name")
	for pad in pad nopad; do
		local fbpad=() refpad=()
		if [ $pad = nopad ]; then
			case $name in *-ecb | *-cbc | des-ede | des-ede3) ;; *) continue ;; esac
			[ $((len % bs)) = 0 ] || continue
			fbpad=(--no-pad)
		fi
		local what="$name len=$len $pad"
		if [ "$engine" = openssl ]; then
			[ $pad = nopad ] && refpad=(-nopad)
			[ -n "$iv" ] && ivref=(-iv "$iv") || ivref=()
			"${OSSL[@]}" -"$name" -K "$k" "${ivref[@]}" "${refpad[@]}" -in "$pt" -out "$T/ref" 2>"$T/oerr" ||
				{ bad "$what: openssl enc failed: $(head -1 "$T/oerr")"; continue; }
		else
			[ $pad = nopad ] && refpad=(nopad)
			"$REF" ref enc "$name" "$k" "${iv:-00}" "${refpad[@]}" <"$pt" >"$T/ref" ||
				{ bad "$what: Crypto++ refused"; continue; }
		fi
		run 0 "$what enc" -- "$FB" enc --cipher "$name" --key "$k" "${ivopt[@]}" "${fbpad[@]}" <"$pt" &&
			same "$T/stdout" "$T/ref" "$what: enc vs $engine"
		rm -f "$T/dec"
		run 0 "$what dec" -- "$FB" dec --cipher "$name" --key "$k" "${ivopt[@]}" "${fbpad[@]}" \
			--in "$T/ref" --out "$T/dec" && same "$T/dec" "$pt" "$what: dec of $engine output"
	done
}

for name in $OSSL_NAMES; do
	if ! have_cipher "$name"; then skipped "$name: not in this build"; continue; fi
	for n in $(sizes_for "$name"); do compare_one "$name" "$T/pt.$n" openssl; done
done
# One long message per family and mode through files (--in/--out).
for name in des-ede3-cbc des-cfb8 des-ede-ofb aes-128-ctr aes-256-cbc; do
	have_cipher "$name" || continue
	k=$(hex "$(key_len "$name")")
	iv=$(hex "$(iv_len "$name")")
	"${OSSL[@]}" -"$name" -K "$k" -iv "$iv" -in "$T/big" -out "$T/ref" 2>/dev/null
	run 0 "$name len=$BIG enc --in/--out" -- "$FB" enc --cipher "$name" --key "$k" --iv "$iv" \
		--in "$T/big" --out "$T/out" && same "$T/out" "$T/ref" "$name len=$BIG enc vs openssl"
done

# ---- CTR for DES/3DES, XTS and the other ciphers: against Crypto++ ------------

CPP_NAMES="des-ctr des-ede-ctr des-ede3-ctr des-ede-cfb8 aes-128-xts aes-256-xts"
for f in rc6 mars twofish serpent; do
	CPP_NAMES="$CPP_NAMES $f-128-cbc $f-128-ctr $f-128-xts $f-192-ofb $f-256-ecb $f-256-cfb8"
done
if [ -z "$REF" ]; then
	skipped "CTR for DES/3DES, XTS and RC6/MARS/Twofish/Serpent: no test_diff_cryptopp given"
else
	for name in $CPP_NAMES; do
		have_cipher "$name" || continue
		for n in $(sizes_for "$name"); do
			case $name in *-xts) [ "$n" -ge 16 ] || continue ;; esac
			compare_one "$name" "$T/pt.$n" cryptopp
		done
	done
	if have_cipher des-ede3-ctr; then compare_one des-ede3-ctr "$T/big" cryptopp; fi
fi

# ---- failures: exit codes, no partial output, input untouched -----------------

K24=0123456789abcdef23456789abcdef01456789abcdef0123
IV8=f0e1d2c3b4a59687
printf 'precious contents\n' >"$T/existing"
cp "$T/existing" "$T/existing.orig"
cp "$T/big" "$T/input"
cp "$T/input" "$T/input.orig"
head -c 13 /dev/urandom >"$T/odd13"

no_leftovers() { # no output file, no temporary beside it
	if [ -e "$T/new" ]; then bad "$1: output file left behind"; rm -f "$T/new"; else ok; fi
	if ls "$T" | grep -q -e '^new.' -e '^existing.tmp' -e '^new.tmp'; then
		bad "$1: temporary file left: $(ls "$T" | grep -e '^new.' -e 'tmp' | head -3)"; rm -f "$T"/new.* "$T"/existing.tmp*
	else ok; fi
}
untouched() {
	same "$T/existing" "$T/existing.orig" "$1: existing output file changed"
	same "$T/input" "$T/input.orig" "$1: input file changed"
}
# refused CODE WHAT ARGS...: the command must fail with CODE, both with a new
# output file and with an existing one, and with stdout as output.
refused() {
	local code=$1 what=$2
	shift 2
	run "$code" "$what (new file)" -- "$FB" "$@" --in "$T/input" --out "$T/new"
	no_leftovers "$what"
	run "$code" "$what (existing file)" -- "$FB" "$@" --in "$T/input" --out "$T/existing"
	untouched "$what"
	no_leftovers "$what"
	run "$code" "$what (stdout)" -- "$FB" "$@" --in "$T/input"
	untouched "$what"
}
# late_refused CODE WHAT ARGS...: as refused, for data refused only at its
# end: stdout has had the earlier part.
late_refused() { LATE=1 refused "$@"; }

# Exit 1: key or data refused.
refused 1 "key of 7 bytes" enc --cipher des-cbc --key 01234567890abc --iv $IV8
refused 1 "16-byte key for des-ede3" enc --cipher des-ede3-cbc --key ${K24:0:32} --iv $IV8
refused 1 "IV of 4 bytes" enc --cipher des-cbc --key ${K24:0:16} --iv 01020304
refused 2 "CBC without IV" enc --cipher des-ede3-cbc --key $K24
# Data refused late, after 64 KB chunks went to the temporary file.
late_refused 1 "no padding, $BIG bytes" enc --cipher des-ede3-cbc --key $K24 --iv $IV8 --no-pad
late_refused 1 "decrypt $BIG bytes (not a multiple)" dec --cipher des-ede3-cbc --key $K24 --iv $IV8
# Bad padding: a ciphertext whose last plaintext block ends in a zero byte.
head -c 200000 /dev/zero >"$T/zeros"
"$FB" enc --cipher des-ede3-cbc --key $K24 --iv $IV8 --no-pad --in "$T/zeros" --out "$T/badpad" || bad "making badpad"
cp "$T/input" "$T/input.keep"
cp "$T/badpad" "$T/input"
cp "$T/input" "$T/input.orig"
late_refused 1 "bad padding" dec --cipher des-ede3-cbc --key $K24 --iv $IV8
cp "$T/input.keep" "$T/input"
cp "$T/input" "$T/input.orig"
LATE=1 run 1 "13 bytes, --no-pad, stdin" -- "$FB" enc --cipher des-ecb --key ${K24:0:16} --no-pad <"$T/odd13"

# Exit 2: usage errors.
refused 2 "unknown option" enc --cipher des-cbc --key ${K24:0:16} --iv $IV8 --bogus
refused 2 "missing --cipher" enc --key ${K24:0:16} --iv $IV8
refused 2 "unknown cipher" enc --cipher des-gcm --key ${K24:0:16} --iv $IV8
refused 2 "key not hex" enc --cipher des-cbc --key 0123456789abcdeg --iv $IV8
refused 2 "key of odd hex length" enc --cipher des-cbc --key 0123456789abcde --iv $IV8
refused 2 "IV not hex" enc --cipher des-cbc --key ${K24:0:16} --iv 'f0e1d2c3 4a59687'
refused 2 "--cipher without value" enc --key ${K24:0:16} --cipher
# Without a command the usage text may follow: exit 2, stderr non-empty.
for args in "" frobnicate; do
	"$FB" $args >"$T/stdout" 2>"$T/stderr"
	code=$?
	if [ $code = 2 ] && [ -s "$T/stderr" ] && [ ! -s "$T/stdout" ]; then ok; else
		bad "command '$args': exit $code, expected 2 with a message on stderr only"; fi
done
# Exit 3: input or output errors, without output.
run 3 "missing input file" -- "$FB" enc --cipher des-cbc --key ${K24:0:16} --iv $IV8 --in "$T/does-not-exist" --out "$T/new"
no_leftovers "missing input file"
run 3 "directory as input" -- "$FB" enc --cipher des-cbc --key ${K24:0:16} --iv $IV8 --in "$T" --out "$T/new"
no_leftovers "directory as input"
run 3 "directory as output" -- "$FB" enc --cipher des-cbc --key ${K24:0:16} --iv $IV8 --in "$T/input" --out "$T"
# Numbers are parsed strictly.
for it in 4294967297 10abc 0 -5 '' ' 7' 99999999999999999999999; do
	refused 2 "--iter '$it'" enc --cipher aes-128-cbc --pass pass:pw --iter "$it"
done

# Success replaces an existing output file atomically and keeps the input.
run 0 "overwrite existing" -- "$FB" enc --cipher des-ede3-cbc --key $K24 --iv $IV8 \
	--in "$T/input" --out "$T/existing"
"${OSSL[@]}" -des-ede3-cbc -K $K24 -iv $IV8 -in "$T/input" -out "$T/ref"
same "$T/existing" "$T/ref" "overwrite existing: content"
same "$T/input" "$T/input.orig" "successful run: input changed"
if ls "$T" | grep -q 'tmp'; then bad "temporary file left after success"; else ok; fi

# ---- passwords: the file format of `openssl enc -pbkdf2`, both ways -----------

head -c 5000 /dev/urandom >"$T/pw_in"
# openssl enc has no DES CTR: OFB stands in for it.
for name in des-cbc des-ofb des-cfb des-ede3-cbc des-ede3-ofb des-ede3-cfb aes-128-cbc aes-256-ctr aes-192-cfb; do
	# fastblock writes, openssl reads
	run 0 "$name --pass: enc" -- "$FB" enc --cipher $name --pass pass:s3cret --in "$T/pw_in" --out "$T/pw_fb"
	if "${OSSL[@]}" -d -$name -pbkdf2 -pass pass:s3cret -in "$T/pw_fb" -out "$T/pw_back" 2>"$T/oerr"; then
		same "$T/pw_back" "$T/pw_in" "$name: openssl enc -d -pbkdf2 of fastblock's file"
	else bad "$name: openssl cannot read fastblock's password file: $(head -c 200 "$T/oerr")"; fi
	# openssl writes, fastblock reads
	"${OSSL[@]}" -$name -pbkdf2 -pass pass:s3cret -in "$T/pw_in" -out "$T/pw_os" 2>/dev/null || bad "$name: openssl enc -pbkdf2"
	run 0 "$name --pass: dec of openssl's file" -- "$FB" dec --cipher $name --pass pass:s3cret --in "$T/pw_os" --out "$T/pw_back"
	same "$T/pw_back" "$T/pw_in" "$name: fastblock dec of openssl enc -pbkdf2"
done
# --iter and --md reach the derivation as openssl's -iter and -md do.
"${OSSL[@]}" -aes-128-cbc -pbkdf2 -iter 1234 -md sha512 -pass pass:pw -in "$T/pw_in" -out "$T/pw_os" 2>/dev/null
run 0 "dec with --iter 1234 --md sha512" -- "$FB" dec --cipher aes-128-cbc --pass pass:pw --iter 1234 --md sha512 --in "$T/pw_os" --out "$T/pw_back"
same "$T/pw_back" "$T/pw_in" "--iter/--md: content"
# A wrong iteration count is a wrong key, caught only by the padding
# check, which random bytes pass about once in 256: the file for it is made
# from a fixed plaintext and salt, as for the wrong password below.
printf 'fastblock wrong-iteration check %.0s' $(seq 1 40) >"$T/it_fixed_in"
{ printf 'Salted__\000\021\042\063\104\125\146\167'
  "${OSSL[@]}" -aes-128-cbc -pbkdf2 -iter 1234 -md sha512 -S 0011223344556677 -pass pass:pw \
	-in "$T/it_fixed_in" 2>/dev/null; } >"$T/it_fixed"
run 0 "the fixed-salt 1234-iteration file, right count" -- "$FB" dec --cipher aes-128-cbc --pass pass:pw --iter 1234 --md sha512 --in "$T/it_fixed" --out "$T/pw_back"
same "$T/pw_back" "$T/it_fixed_in" "fixed-salt 1234-iteration file: content"
run 1 "dec with the default --iter of a 1234-iteration file" -- "$FB" dec --cipher aes-128-cbc --pass pass:pw --md sha512 --in "$T/it_fixed" --out "$T/new"
no_leftovers "wrong iteration count"
# A fresh salt each time: the same password and file give different output.
"$FB" enc --cipher des-ede3-ctr --pass pass:same --in "$T/pw_in" --out "$T/pw_1"
"$FB" enc --cipher des-ede3-ctr --pass pass:same --in "$T/pw_in" --out "$T/pw_2"
if cmp -s "$T/pw_1" "$T/pw_2"; then bad "two encryptions under one password are equal"; else ok; fi
if [ "$(head -c 8 "$T/pw_1")" = "Salted__" ]; then ok; else bad "no Salted__ header"; fi
# A wrong password is caught by the padding check, which random bytes pass
# about once in 256: a fixed plaintext and salt make the file, and so the
# outcome, the same in every run (openssl enc -S writes no header, so it is
# put in front by hand).
printf 'fastblock wrong-password check %.0s' $(seq 1 40) >"$T/pw_fixed_in"
{ printf 'Salted__\000\021\042\063\104\125\146\167'
  "${OSSL[@]}" -aes-128-cbc -pbkdf2 -S 0011223344556677 -pass pass:pw -in "$T/pw_fixed_in" 2>/dev/null; } >"$T/pw_fixed"
run 0 "the fixed-salt file, right password" -- "$FB" dec --cipher aes-128-cbc --pass pass:pw --in "$T/pw_fixed" --out "$T/pw_back"
same "$T/pw_back" "$T/pw_fixed_in" "fixed-salt file: content"
run 1 "wrong password" -- "$FB" dec --cipher aes-128-cbc --pass pass:wrong --in "$T/pw_fixed" --out "$T/new"
no_leftovers "wrong password"
run 1 "password on a file without a header" -- "$FB" dec --cipher aes-128-cbc --pass pass:pw --in "$T/odd13" --out "$T/new"
no_leftovers "no Salted__ header"
run 2 "unknown --md" -- "$FB" enc --cipher aes-128-cbc --pass pass:pw --md nosuchhash --in "$T/pw_in" --out "$T/new"
run 2 "bad --pass spec" -- "$FB" enc --cipher aes-128-cbc --pass fd:x --in "$T/pw_in" --out "$T/new"
run 2 "--pass env: unset" -- "$FB" enc --cipher aes-128-cbc --pass env:FB_NO_SUCH_VAR_XYZ --in "$T/pw_in" --out "$T/new"
# Every password source gives the same key (a fixed salt makes the output equal).
S8=0102030405060708
"$FB" enc --cipher aes-128-ctr --pass pass:pw1 --salt $S8 --in "$T/pw_in" --out "$T/pw_ref"
printf 'pw1\n' >"$T/pwfile"
FB_TEST_PW=pw1 run 0 "--pass env:" -- "$FB" enc --cipher aes-128-ctr --pass env:FB_TEST_PW --salt $S8 --in "$T/pw_in" --out "$T/pw_x"
same "$T/pw_x" "$T/pw_ref" "--pass env:"
run 0 "--pass file:" -- "$FB" enc --cipher aes-128-ctr --pass file:"$T/pwfile" --salt $S8 --in "$T/pw_in" --out "$T/pw_x"
same "$T/pw_x" "$T/pw_ref" "--pass file:"
run 0 "--pass fd:" -- "$FB" enc --cipher aes-128-ctr --pass fd:3 --salt $S8 --in "$T/pw_in" --out "$T/pw_x" 3<"$T/pwfile"
same "$T/pw_x" "$T/pw_ref" "--pass fd:"
run 0 "--pass stdin" -- "$FB" enc --cipher aes-128-ctr --pass stdin --salt $S8 --in "$T/pw_in" --out "$T/pw_x" <"$T/pwfile"
same "$T/pw_x" "$T/pw_ref" "--pass stdin"
# No key at all, stdin not a terminal: a usage error, no prompt.
run 2 "no key option" -- "$FB" enc --cipher aes-128-cbc --iv 00000000000000000000000000000000 --in "$T/pw_in" --out "$T/new" </dev/null
# --key-file: hex text or raw bytes, the same key as --key.
"$FB" enc --cipher des-ede3-cbc --key $K24 --iv $IV8 --in "$T/pw_in" --out "$T/kf_ref"
printf '%s\n' $K24 >"$T/key.hex"
printf "$(echo $K24 | sed 's/../\\x&/g')" >"$T/key.raw"
for kf in key.hex key.raw; do
	run 0 "--key-file $kf" -- "$FB" enc --cipher des-ede3-cbc --key-file "$T/$kf" --iv $IV8 --in "$T/pw_in" --out "$T/kf_x"
	same "$T/kf_x" "$T/kf_ref" "--key-file $kf"
done
# A key file that arrives in pieces (a pipe written in two parts) is read whole.
run 0 "--key-file in two writes" -- "$FB" enc --cipher des-ede3-cbc --key-file <(printf '%s' ${K24:0:20}; sleep 0.2; printf '%s\n' ${K24:20}) --iv $IV8 --in "$T/pw_in" --out "$T/kf_x"
same "$T/kf_x" "$T/kf_ref" "--key-file in two writes"
# Files too long for any key are refused whole, never cut to a prefix: one of
# exactly the reader's buffer size (2052 bytes), and hex text with a valid
# 24-byte key in front of 4 KB more.
head -c 2052 /dev/zero | tr '\0' 'a' >"$T/key.long"
run 1 "--key-file of 2052 bytes" -- "$FB" enc --cipher aes-128-ctr --key-file "$T/key.long" --iv 000102030405060708090a0b0c0d0e0f --in "$T/pw_in" --out "$T/kf_y"
{ printf '%s\n' $K24; head -c 4096 /dev/zero | tr '\0' '0'; } >"$T/key.trail"
run 1 "--key-file with 4 KB after the key" -- "$FB" enc --cipher des-ede3-cbc --key-file "$T/key.trail" --iv $IV8 --in "$T/pw_in" --out "$T/kf_y"
if [ -e "$T/kf_y" ]; then bad "a refused --key-file left an output file"; else ok; fi
run 2 "--key and --pass together" -- "$FB" enc --cipher des-ede3-cbc --key $K24 --pass pass:x --iv $IV8 --in "$T/pw_in"

# ---- output targets: never a clobbered file ------------------------------------

# A FIFO is written to, not replaced.
mkfifo "$T/fifo"
cat "$T/fifo" >"$T/fifo_got" &
reader=$!
run 0 "--out FIFO" -- "$FB" enc --cipher des-ede3-ctr --key $K24 --iv $IV8 --in "$T/pw_in" --out "$T/fifo"
wait $reader
if [ -p "$T/fifo" ]; then ok; else bad "--out FIFO: the FIFO was replaced"; fi
"$FB" enc --cipher des-ede3-ctr --key $K24 --iv $IV8 --in "$T/pw_in" --out "$T/ctr_ref"
same "$T/fifo_got" "$T/ctr_ref" "--out FIFO: content"
# A character device (/dev/null) is written to, never replaced, root or not.
cp -a /dev/null "$T/devnull" 2>/dev/null || mknod "$T/devnull" c 1 3 2>/dev/null
if [ -c "$T/devnull" ]; then
	run 0 "--out a character device" -- "$FB" enc --cipher des-ede3-ctr --key $K24 --iv $IV8 --in "$T/pw_in" --out "$T/devnull"
	if [ -c "$T/devnull" ]; then ok; else bad "--out device: replaced by a regular file"; fi
else skipped "--out a character device: cannot make one here (not root)"; fi
# A symlink is followed; the link stays a link.
printf 'old\n' >"$T/target"
ln -s target "$T/link"
run 0 "--out symlink" -- "$FB" enc --cipher des-ede3-ctr --key $K24 --iv $IV8 --in "$T/pw_in" --out "$T/link"
if [ -L "$T/link" ]; then ok; else bad "--out symlink: the link was replaced"; fi
same "$T/target" "$T/ctr_ref" "--out symlink: the target's content"
# An existing file keeps its mode and its hard links.
printf 'old\n' >"$T/moded"
chmod 640 "$T/moded"
ln "$T/moded" "$T/hardlink"
run 0 "--out with mode 640 and a hard link" -- "$FB" enc --cipher des-ede3-ctr --key $K24 --iv $IV8 --in "$T/pw_in" --out "$T/moded"
if [ "$(stat -c %a "$T/moded")" = 640 ]; then ok; else bad "--out: mode $(stat -c %a "$T/moded"), expected 640"; fi
same "$T/hardlink" "$T/ctr_ref" "--out: the hard link sees the new content"
if ls "$T" | grep -q 'tmp-'; then bad "temporary file left after output-target tests"; else ok; fi

# ---- signals and streaming -------------------------------------------------------

# SIGINT and SIGTERM remove the temporary; no partial output is left.
for sig in INT TERM; do
	mkfifo "$T/slow"
	"$FB" dec --cipher des-ede3-ctr --key $K24 --iv $IV8 --in "$T/slow" --out "$T/sigout" 2>/dev/null &
	fbpid=$!
	# exec: $! is the sleep itself, so the kill below ends it (a sleep left
	# behind would hold the test's stderr, and CTest waits for it).
	{ head -c 100000 "$T/pw_in" "$T/big"; exec sleep 30; } >"$T/slow" 2>/dev/null &
	writer=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do ls "$T" | grep -q '^sigout.tmp-' && break; sleep 0.2; done
	kill -$sig $fbpid
	wait $fbpid 2>/dev/null
	kill $writer 2>/dev/null; wait $writer 2>/dev/null
	if ls "$T" | grep -q '^sigout'; then bad "SIG$sig: left $(ls "$T" | grep '^sigout')"; rm -f "$T"/sigout*; else ok; fi
	rm -f "$T/slow"
done
# Output to a pipe streams: the first bytes arrive while the input is still
# open. The writer and the CLI run in the background through FIFOs, and are
# ended once the reader has its bytes (a pipeline would wait out the sleep).
mkfifo "$T/st_in" "$T/st_out"
{ head -c 70000 "$T/big"; exec sleep 20; } >"$T/st_in" 2>/dev/null &
writer=$!
timeout 25 "$FB" enc --cipher des-ede3-ctr --key $K24 --iv $IV8 <"$T/st_in" >"$T/st_out" 2>/dev/null &
fbpid=$!
got=$(timeout 10 head -c 1000 "$T/st_out" | wc -c)
kill $writer $fbpid 2>/dev/null
wait $writer $fbpid 2>/dev/null
if [ "$got" = 1000 ]; then ok; else bad "stdout is not streamed (got $got bytes while the input was open)"; fi
rm -f "$T/st_in" "$T/st_out"

# ---- mac, kcv, key ---------------------------------------------------------------

# The ANSI X9.19 retail MAC example: "Now is the time for all " under
# 0123456789ABCDEF FEDCBA9876543210.
printf 'Now is the time for all ' >"$T/x919"
run 0 "retail MAC, X9.19 example" -- "$FB" mac --alg retail --cipher des-ede --key 0123456789abcdeffedcba9876543210 --in "$T/x919"
if [ "$(cat "$T/stdout")" = A1C72E74EA3FA9B6 ]; then ok; else bad "retail MAC of the X9.19 example: $(cat "$T/stdout")"; fi
# Every published retail MAC / CBC-MAC record (sources in SOURCE.txt beside
# the file), truncated with --len to the bytes the source gives; the count
# is fixed so that a missing or shortened file fails.
VEC=$(dirname "$0")/vectors/mac/retail_cbcmac.txt
nvec=0
while IFS=' =' read -r f v; do
	case $f in
	alg) a=$v ;; cipher) c=$v ;; pad) p=$v ;; key) k=$v ;;
	msg) printf "$(echo "$v" | sed 's/../\\x&/g')" >"$T/vecmsg" ;;
	mac)
		nvec=$((nvec + 1))
		run 0 "mac vector $nvec" -- "$FB" mac --alg $a --cipher $c --key $k --pad $p --len $((${#v} / 2)) --in "$T/vecmsg"
		if [ "$(cat "$T/stdout")" = "${v^^}" ]; then ok; else bad "mac vector $nvec ($a $c pad $p): $(cat "$T/stdout"), published $v"; fi ;;
	esac
done <"$VEC"
if [ $nvec = 117 ]; then ok; else bad "$VEC: $nvec MAC vectors read, want 117"; fi
# CMAC against `openssl mac`, random messages and keys.
for spec in aes-128:AES-128-CBC:16 aes-256:AES-256-CBC:32 des-ede3:DES-EDE3-CBC:24; do
	IFS=: read -r fbname osname kl <<<"$spec"
	for len in 0 1 8 16 17 100 1000; do
		k=$(hex $kl)
		head -c $len /dev/urandom >"$T/macin"
		want=$(openssl mac -macopt cipher:$osname -macopt hexkey:$k -in "$T/macin" CMAC 2>/dev/null)
		run 0 "cmac $fbname $len bytes" -- "$FB" mac --alg cmac --cipher $fbname --key $k --in "$T/macin"
		if [ -n "$want" ] && [ "$(cat "$T/stdout")" = "$want" ]; then ok; else bad "cmac $fbname $len bytes: $(cat "$T/stdout") vs openssl mac '$want'"; fi
	done
done
# KCV: the first 3 bytes of E(K, 0), against openssl enc.
for spec in des-ede3:des-ede3:24 aes-128:aes-128-ecb:16; do
	IFS=: read -r fbname osname kl <<<"$spec"
	k=$(hex $kl)
	want=$(head -c 16 /dev/zero | "${OSSL[@]}" -$osname -K $k -nopad 2>/dev/null | od -An -tx1 -N3 | tr -d ' \n' | tr a-f A-F)
	run 0 "kcv $fbname" -- "$FB" kcv --cipher $fbname --key $k
	if [ "$(cat "$T/stdout")" = "$want" ]; then ok; else bad "kcv $fbname: $(cat "$T/stdout") vs $want"; fi
done
# Batches give what single calls give.
: >"$T/keys"; : >"$T/pairs"
for i in $(seq 1 200); do k=$(hex 16); echo $k >>"$T/keys"; echo "$k $(hex $((i % 40)))" >>"$T/pairs"; done
run 0 "kcv --batch" -- "$FB" kcv --cipher des-ede --batch "$T/keys"
cp "$T/stdout" "$T/batch_out"
n=0; while read -r k; do "$FB" kcv --cipher des-ede --key $k; done <"$T/keys" >"$T/single_out"
same "$T/batch_out" "$T/single_out" "kcv --batch against single calls"
run 0 "mac --batch" -- "$FB" mac --alg retail --cipher des-ede --pad 2 --batch "$T/pairs"
cp "$T/stdout" "$T/batch_out"
while read -r k m; do printf "$(echo "$m" | sed 's/../\\x&/g')" | "$FB" mac --alg retail --cipher des-ede --pad 2 --key $k; done <"$T/pairs" >"$T/single_out"
same "$T/batch_out" "$T/single_out" "mac --batch against single calls"
# key tools
run 0 "key generate" -- "$FB" key generate --cipher des-ede3
g=$(cat "$T/stdout")
run 0 "key check of a generated key" -- "$FB" key check --cipher des-ede3 --key $g
run 1 "key check, bad parity" -- "$FB" key check --cipher des --key 0023456789abcdef
run 0 "key fix-parity" -- "$FB" key fix-parity --cipher des --key 0023456789abcdef
if [ "$(cat "$T/stdout")" = 0123456789ABCDEF ]; then ok; else bad "fix-parity: $(cat "$T/stdout")"; fi
run 1 "key check, weak key" -- "$FB" key check --cipher des --key 0101010101010101
# Bad input: the documented exit code, nothing on stdout.
run 1 "mac, wrong key length" -- "$FB" mac --alg cmac --cipher aes-128 --key 0011 --in "$T/x919"
run 1 "mac, method 1 on an empty message" -- "$FB" mac --alg cbc-mac --cipher des-ede3 --key $K24 --pad 1 --in /dev/null
run 2 "mac, --len 0" -- "$FB" mac --alg cmac --cipher aes-128 --key $(hex 16) --len 0 --in "$T/x919"
run 1 "mac, --len 9 of a 64-bit block" -- "$FB" mac --alg cmac --cipher des-ede3 --key $K24 --len 9 --in "$T/x919"
run 2 "mac, unknown --alg" -- "$FB" mac --alg hmac --cipher aes-128 --key $(hex 16) --in "$T/x919"
run 2 "mac, retail over AES" -- "$FB" mac --alg retail --cipher aes-128 --key $(hex 16) --in "$T/x919"
printf 'zz\n' >"$T/badbatch"
run 2 "kcv --batch with a bad line" -- "$FB" kcv --cipher des-ede3 --batch "$T/badbatch"

echo "test_cli: $pass passed, $fail failed, $skip skipped, $(($(date +%s) - START)) s"
[ $fail = 0 ]
