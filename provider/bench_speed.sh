#!/usr/bin/env bash
# bench_speed.sh - `openssl speed -evp` with the fastblock provider forced
# against OpenSSL's default provider, in the same run, and the ratios.
#
#   provider/bench_speed.sh [build dir] [seconds]
#
# Prints, per algorithm, the k bytes/s of both at OpenSSL's sizes (16 ...
# 16384 bytes) and fastblock/OpenSSL. Nothing is asserted.
set -eu
B=${1:-build} S=${2:-1}
FB="-provider-path $B/ossl-modules -provider fastblock -provider default -propquery provider=fastblock"
echo "# $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs, $(openssl version)"
echo "# openssl speed -seconds $S [-decrypt] $FB -evp ALG   vs   openssl speed -seconds $S [-decrypt] -evp ALG"
printf '%-22s %-6s %12s %12s %12s %12s %12s %12s\n' alg who 16 64 256 1024 8192 16384
for spec in des-ede3 des-ede3-cbc:-decrypt des-ede3-cbc aes-128-xts aes-128-ctr aes-128-cbc:-decrypt; do
  alg=${spec%%:*}; dec=; [ "$spec" != "$alg" ] && dec=${spec#*:}
  # shellcheck disable=SC2086
  o=$(openssl speed -seconds "$S" $dec -provider default -evp "$alg" 2>/dev/null | tail -1 | sed 's/^[^ ]* *//')
  # shellcheck disable=SC2086
  f=$(openssl speed -seconds "$S" $dec $FB -evp "$alg" 2>/dev/null | tail -1 | sed 's/^[^ ]* *//')
  printf '%-22s %-6s %12s %12s %12s %12s %12s %12s\n' "$alg$dec" openssl $o
  printf '%-22s %-6s %12s %12s %12s %12s %12s %12s\n' "$alg$dec" fb $f
  ratios=$(paste <(echo $f | tr ' ' '\n' | tr -d k) <(echo $o | tr ' ' '\n' | tr -d k) | awk '{printf "%.2fx ", $1/$2}')
  printf '%-22s %-6s %12s %12s %12s %12s %12s %12s\n' "$alg$dec" ratio $ratios
done
