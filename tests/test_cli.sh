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
		if [ -s "$T/stdout" ]; then bad "$what: wrote to stdout despite failing"; else ok; fi
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

# Exit 1: key or data refused.
refused 1 "key of 7 bytes" enc --cipher des-cbc --key 01234567890abc --iv $IV8
refused 1 "16-byte key for des-ede3" enc --cipher des-ede3-cbc --key ${K24:0:32} --iv $IV8
refused 1 "IV of 4 bytes" enc --cipher des-cbc --key ${K24:0:16} --iv 01020304
refused 1 "CBC without IV" enc --cipher des-ede3-cbc --key $K24
# Data refused late, after 64 KB chunks went to the temporary file.
refused 1 "no padding, $BIG bytes" enc --cipher des-ede3-cbc --key $K24 --iv $IV8 --no-pad
refused 1 "decrypt $BIG bytes (not a multiple)" dec --cipher des-ede3-cbc --key $K24 --iv $IV8
# Bad padding: a ciphertext whose last plaintext block ends in a zero byte.
head -c 200000 /dev/zero >"$T/zeros"
"$FB" enc --cipher des-ede3-cbc --key $K24 --iv $IV8 --no-pad --in "$T/zeros" --out "$T/badpad" || bad "making badpad"
cp "$T/input" "$T/input.keep"
cp "$T/badpad" "$T/input"
cp "$T/input" "$T/input.orig"
refused 1 "bad padding" dec --cipher des-ede3-cbc --key $K24 --iv $IV8
cp "$T/input.keep" "$T/input"
cp "$T/input" "$T/input.orig"
run 1 "13 bytes, --no-pad, stdin" -- "$FB" enc --cipher des-ecb --key ${K24:0:16} --no-pad <"$T/odd13"

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
# A missing input file is refused (1 or 2) without output.
"$FB" enc --cipher des-cbc --key ${K24:0:16} --iv $IV8 --in "$T/does-not-exist" --out "$T/new" \
	>"$T/stdout" 2>"$T/stderr"
code=$?
if [ $code = 1 ] || [ $code = 2 ]; then ok; else bad "missing input file: exit $code"; fi
no_leftovers "missing input file"

# Success replaces an existing output file atomically and keeps the input.
run 0 "overwrite existing" -- "$FB" enc --cipher des-ede3-cbc --key $K24 --iv $IV8 \
	--in "$T/input" --out "$T/existing"
"${OSSL[@]}" -des-ede3-cbc -K $K24 -iv $IV8 -in "$T/input" -out "$T/ref"
same "$T/existing" "$T/ref" "overwrite existing: content"
same "$T/input" "$T/input.orig" "successful run: input changed"
if ls "$T" | grep -q 'tmp'; then bad "temporary file left after success"; else ok; fi

echo "test_cli: $pass passed, $fail failed, $skip skipped, $(($(date +%s) - START)) s"
[ $fail = 0 ]
