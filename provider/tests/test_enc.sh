#!/usr/bin/env bash
# test_enc.sh - the provider through the openssl command line.
#
#   test_enc.sh <openssl> <module dir> <example config>
#
# 1. `openssl enc` with the fastblock provider forced (-propquery
#    provider=fastblock) and without it (OpenSSL's default provider, the
#    legacy one for single DES) writes byte-identical files, for DES, 3DES
#    and AES in every mode enc offers for them (enc refuses XTS), with
#    -K/-iv and with -pbkdf2 passwords, encrypting and decrypting, padding
#    on and (ECB, CBC) off, on files of 0 to 100000 bytes.
# 2. `openssl list -cipher-algorithms` with the provider shows its ciphers.
# 3. The example config loads the provider: single DES and Twofish work
#    through it without naming a provider on the command line.
# 3b. families = ... in the config limits the provider to those families.
# 4. smime and pkcs12 through the example config (single DES, which only
#    fastblock serves there, and 3DES), read back by openssl without it.
# 5. TLS: libssl's CBC cipher suites (TLS 1.2 with and without
#    encrypt-then-MAC, SHA-1, SHA-256 and SHA-384 MACs, TLS 1.0's implicit IV) with
#    the provider on one side (through the example config) and plain
#    OpenSSL on the other, both ways round; s_server -rev echoes reversed.
# Exits 1 on the first difference.
set -u
OPENSSL=$1 MODDIR=$2 CONF=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FB="-provider-path $MODDIR -provider fastblock -provider default -propquery provider=fastblock"
fail() { echo "FAIL: $*" >&2; exit 1; }

for n in 0 16 17 1000 100000; do
  head -c $n /dev/urandom > "$T/p$n"
done
count=0
run_pair() { # name args...: one command with the provider, one without; outputs compared
  local what=$1; shift
  local refprov="-provider default"
  case $what in des-cbc|des-ecb|des-cfb|des-cfb8|des-ofb) refprov="-provider legacy -provider default";; esac
  "$OPENSSL" enc "$@" -out "$T/a" $FB 2> "$T/ea"; local ra=$?
  "$OPENSSL" enc "$@" -out "$T/b" $refprov 2> "$T/eb"; local rb=$?
  [ $ra = $rb ] || { cat "$T/ea" "$T/eb" >&2; fail "$what $*: exit $ra with fastblock, $rb without"; }
  [ $ra = 0 ] || return 0
  cmp -s "$T/a" "$T/b" || fail "$what $*: output differs"
  count=$((count + 1))
}

for c in des-ecb des-cbc des-cfb des-cfb8 des-ofb \
         des-ede des-ede-cbc des-ede-cfb des-ede-ofb \
         des-ede3 des-ede3-cbc des-ede3-cfb des-ede3-cfb8 des-ede3-ofb \
         aes-128-ecb aes-128-cbc aes-128-cfb aes-128-cfb8 aes-128-ofb aes-128-ctr \
         aes-192-ecb aes-192-cbc aes-192-cfb aes-192-cfb8 aes-192-ofb aes-192-ctr \
         aes-256-ecb aes-256-cbc aes-256-cfb aes-256-cfb8 aes-256-ofb aes-256-ctr; do
  case $c in
    des-ede3*) K=0123456789abcdeff1e0d3c2b5a49786fedcba9876543210 ;;
    des-ede*) K=0123456789abcdeff1e0d3c2b5a49786 ;;
    des-*) K=0123456789abcdef ;;
    aes-128*) K=2b7e151628aed2a6abf7158809cf4f3c ;;
    aes-192*) K=8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b ;;
    aes-256*) K=603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4 ;;
  esac
  case $c in des*) IV=fedcba9876543210 ;; *) IV=000102030405060708090a0b0c0d0e0f ;; esac
  for n in 0 17 1000 100000; do
    run_pair $c -e -$c -K $K -iv $IV -in "$T/p$n"
    cp "$T/a" "$T/c$n"
    run_pair $c -d -$c -K $K -iv $IV -in "$T/c$n"
    cmp -s "$T/a" "$T/p$n" || fail "$c: decryption does not give the plaintext back ($n bytes)"
  done
  for n in 17 100000; do
    run_pair $c -e -$c -pbkdf2 -pass pass:fastblock -S 0102030405060708 -in "$T/p$n"
    cp "$T/a" "$T/s$n"
    run_pair $c -d -$c -pbkdf2 -pass pass:fastblock -in "$T/s$n"
  done
  case $c in *-ecb|*-cbc|des-ede|des-ede3)
    run_pair $c -e -$c -nopad -K $K -iv $IV -in "$T/p16"
    cp "$T/a" "$T/n16"
    run_pair $c -d -$c -nopad -K $K -iv $IV -in "$T/n16"
    # a wrong key: bad padding in both, or both give the same garbage
    run_pair $c -d -$c -K ${K%??}00 -iv $IV -in "$T/c1000" ;;
  esac
done
echo "openssl enc: $count identical outputs with and without the provider"

# 2. the list
"$OPENSSL" list -cipher-algorithms -provider-path "$MODDIR" -provider fastblock > "$T/list" ||
  fail "openssl list with the provider"
for name in DES-EDE3-CBC DES-CBC AES-128-XTS TWOFISH-256-CBC SERPENT-128-XTS RC6-192-CTR MARS-256-OFB DES-EDE3-CTR; do
  grep -q "$name.* @ fastblock" "$T/list" || fail "openssl list does not show $name @ fastblock"
done
echo "openssl list: $(grep -c '@ fastblock' "$T/list") entries @ fastblock"

# 3. the example config (the legacy provider stays unloaded in it)
K=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
OPENSSL_CONF=$CONF OPENSSL_MODULES=$MODDIR "$OPENSSL" enc -e -des-cbc -K 0123456789abcdef -iv fedcba9876543210 \
  -in "$T/p1000" -out "$T/a" || fail "des-cbc through the example config"
"$OPENSSL" enc -e -des-cbc -K 0123456789abcdef -iv fedcba9876543210 -in "$T/p1000" -out "$T/b" \
  -provider legacy -provider default || fail "des-cbc through the legacy provider"
cmp -s "$T/a" "$T/b" || fail "des-cbc through the example config differs"
OPENSSL_CONF=$CONF OPENSSL_MODULES=$MODDIR "$OPENSSL" enc -e -twofish-256-cbc -K $K -iv $IV \
  -in "$T/p1000" -out "$T/a" || fail "twofish-256-cbc through the example config"
OPENSSL_CONF=$CONF OPENSSL_MODULES=$MODDIR "$OPENSSL" enc -d -twofish-256-cbc -K $K -iv $IV \
  -in "$T/a" -out "$T/b" || fail "twofish-256-cbc decryption through the example config"
cmp -s "$T/b" "$T/p1000" || fail "twofish-256-cbc round trip through the example config"
echo "example config: des-cbc without the legacy provider and twofish-256-cbc work"

# 3b. "families" in the provider's section limits what it offers
sed 's/^# families = .*/families = des, twofish/' "$CONF" > "$T/fam.cnf"
OPENSSL_CONF=$T/fam.cnf OPENSSL_MODULES=$MODDIR "$OPENSSL" list -cipher-algorithms > "$T/famlist" ||
  fail "openssl list through a config with families"
grep -q "DES-EDE3-CBC.* @ fastblock" "$T/famlist" && grep -q "TWOFISH-128-XTS.* @ fastblock" "$T/famlist" ||
  fail "families = des, twofish: DES or Twofish missing"
! grep -q "AES-128-CBC.* @ fastblock" "$T/famlist" || fail "families = des, twofish: AES still offered"
grep -q "AES-128-CBC.* @ default" "$T/famlist" || fail "families: AES from the default provider missing"
echo "families = des, twofish: $(grep -c '@ fastblock' "$T/famlist") entries @ fastblock, AES from the default provider"

# 4. smime and pkcs12 through the example config
WITH() { OPENSSL_CONF=$CONF OPENSSL_MODULES=$MODDIR "$OPENSSL" "$@"; }
"$OPENSSL" req -x509 -newkey rsa:2048 -nodes -keyout "$T/k.pem" -out "$T/c.pem" -subj /CN=fastblock-test \
  -days 2 2> /dev/null || fail "making a test certificate"
head -c 5000 /dev/urandom | base64 > "$T/msg"
for c in des3 des; do
  WITH smime -encrypt -$c -binary -in "$T/msg" -out "$T/m.p7" "$T/c.pem" || fail "smime -encrypt -$c through the config"
  "$OPENSSL" smime -decrypt -binary -in "$T/m.p7" -recip "$T/c.pem" -inkey "$T/k.pem" -out "$T/msg2" \
    -provider legacy -provider default || fail "smime -decrypt of the -$c message without the provider"
  cmp -s "$T/msg" "$T/msg2" || fail "smime -$c round trip"
  "$OPENSSL" smime -encrypt -$c -binary -in "$T/msg" -out "$T/m2.p7" -provider legacy -provider default "$T/c.pem" ||
    fail "smime -encrypt -$c without the provider"
  WITH smime -decrypt -binary -in "$T/m2.p7" -recip "$T/c.pem" -inkey "$T/k.pem" -out "$T/msg3" ||
    fail "smime -decrypt -$c through the config"
  cmp -s "$T/msg" "$T/msg3" || fail "smime -$c decryption through the config"
done
for pbe in PBE-SHA1-3DES DES-CBC DES-EDE3-CBC; do
  WITH pkcs12 -export -in "$T/c.pem" -inkey "$T/k.pem" -out "$T/t.p12" -passout pass:pw -keypbe $pbe -certpbe $pbe ||
    fail "pkcs12 -export with $pbe through the config"
  "$OPENSSL" pkcs12 -in "$T/t.p12" -passin pass:pw -nodes -out "$T/back.pem" -provider legacy -provider default \
    2> /dev/null || fail "reading the $pbe pkcs12 file without the provider"
  grep -q "PRIVATE KEY" "$T/back.pem" && grep -q "CERTIFICATE" "$T/back.pem" || fail "$pbe pkcs12 contents"
  WITH pkcs12 -in "$T/t.p12" -passin pass:pw -nodes -out "$T/back2.pem" 2> /dev/null ||
    fail "reading the $pbe pkcs12 file through the config"
  cmp -s "$T/back.pem" "$T/back2.pem" || fail "$pbe pkcs12 read differently"
done
echo "smime (-des3, -des) and pkcs12 (PBE-SHA1-3DES, DES-CBC, DES-EDE3-CBC) through the config: both ways"

# 5. TLS records through the provider
tls_pair() { # cipher protocol extra side: side = server or client through the config
  local port=$((20000 + RANDOM % 20000)) msg="fastblock tls $1 $2 $3 $4"
  local S=("$OPENSSL" s_server) C=("$OPENSSL" s_client)
  if [ "$4" = server ]; then S=(env OPENSSL_CONF="$CONF" OPENSSL_MODULES="$MODDIR" "${S[@]}");
  else C=(env OPENSSL_CONF="$CONF" OPENSSL_MODULES="$MODDIR" "${C[@]}"); fi
  rm -f "$T/srv.out" "$T/cli.out"
  timeout 30 "${S[@]}" -accept "127.0.0.1:$port" -cert "$T/c.pem" -key "$T/k.pem" -cipher "$1:@SECLEVEL=0" -"$2" $3 \
    -rev -naccept 1 > "$T/srv.out" 2>&1 &
  local spid=$!
  for _ in 1 2 3 4 5 6 7 8 9 10; do grep -q ACCEPT "$T/srv.out" 2> /dev/null && break; sleep 0.3; done
  # The client's input stays open until the echo is back (at most 3 s), then
  # its end closes the connection.
  local echo_back
  echo_back=$(echo "$msg" | rev)
  (echo "$msg"; for _ in $(seq 30); do grep -q "$echo_back" "$T/cli.out" 2> /dev/null && break; sleep 0.1; done) |
    timeout 30 "${C[@]}" -connect "127.0.0.1:$port" -cipher "$1:@SECLEVEL=0" -"$2" $3 > "$T/cli.out" 2>&1
  wait $spid
  grep -q "Cipher is $1" "$T/cli.out" || { tail -n 5 "$T/cli.out" "$T/srv.out" >&2; fail "TLS $*: not connected with $1"; }
  grep -q "$echo_back" "$T/cli.out" || { tail -n 5 "$T/cli.out" "$T/srv.out" >&2; fail "TLS $*: no echo"; }
}
# Without encrypt-then-MAC libssl takes the default provider's stitched
# AES-CBC-HMAC-SHA1/SHA256 where it has them, so the MAC-then-encrypt
# records go through fastblock with a SHA-384 MAC.
for side in client server; do
  tls_pair AES128-SHA tls1_2 "" $side
  tls_pair AES256-SHA256 tls1_2 "" $side
  tls_pair ECDHE-RSA-AES256-SHA384 tls1_2 -no_etm $side
  tls_pair AES256-SHA tls1 "" $side
done
echo "TLS: AES-CBC suites (TLS 1.2 with and without encrypt-then-MAC, TLS 1.0) with the provider on either side"
