#!/usr/bin/env bash
# Installs the Debian packages fastblock's build, tests and benchmark use.
# Needs root (or sudo); prints the command otherwise.
set -euo pipefail
PKGS="build-essential cmake ninja-build python3 python3-venv python3-dev pkg-config valgrind libssl-dev libcrypto++-dev \
libgcrypt20-dev nettle-dev libbotan-2-dev libipsec-mb-dev python3-matplotlib openssl clang \
openjdk-17-jre-headless"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO="sudo"; else
  echo "fastblock needs these Debian packages; run as root:" >&2
  echo "  apt-get update && apt-get install -y$missing" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# libipsec-mb-dev exists only on x86-64; install the rest even if it is absent.
$SUDO apt-get install -y -qq $missing || $SUDO apt-get install -y -qq ${missing/libipsec-mb-dev/}
