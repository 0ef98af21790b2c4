#!/usr/bin/env bash
# Install the build into temporary prefixes and use it as a C programmer
# would: a consumer built with pkg-config, with find_package(fastblock)
# from a separate CMake project, and statically; the shared library exports
# exactly the header's functions; the man page names every option --help
# prints; make uninstall removes what make install wrote.
#
# usage: test_install.sh SOURCE_DIR BUILD_DIR [dist]
#   dist: also build the library from `make dist`'s tarball, offline.
set -u
SRC=$1 BUILD=$2
T=$(mktemp -d "${TMPDIR:-/tmp}/fbinst.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
skipped() { skip=$((skip + 1)); echo "SKIP: $*"; }

if [ "${3:-}" = dist ]; then
	if ! git -C "$SRC" rev-parse HEAD >/dev/null 2>&1; then
		skipped "make dist: not a git checkout"
	else
		make -s -C "$SRC" dist BUILD="$T/distout" >"$T/dist.log" 2>&1 || bad "make dist: $(tail -3 "$T/dist.log")"
		tarball=$(ls "$T"/distout/fastblock-*.tar.gz 2>/dev/null | head -1)
		if [ -n "$tarball" ]; then
			tar -C "$T" -xzf "$tarball"
			d=$(ls -d "$T"/fastblock-*/ | head -1)
			# Offline: nothing in the configure or the build may fetch.
			# -O1: this checks that the tarball builds, not its speed, and
			# takes two thirds of a Release build's time.
			if cmake -S "$d" -B "$T/distbuild" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
				-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 >"$T/dist.log" 2>&1 &&
			   cmake --build "$T/distbuild" --target fastblock_static fastblock_shared fastblock_cli -j 2 >>"$T/dist.log" 2>&1 &&
			   "$T/distbuild/fastblock" --version | grep -q "fastblock"; then ok; else
				bad "the dist tarball does not build: $(tail -5 "$T/dist.log")"; fi
		else bad "make dist wrote no tarball"; fi
	fi
	echo "test_install dist: $pass passed, $fail failed, $skip skipped"
	[ $fail = 0 ]; exit
fi

# ---- make install with DESTDIR, into a staging tree ---------------------------
make -s -C "$SRC" install BUILD="$BUILD" PREFIX=/opt/fastblock DESTDIR="$T/stage" >"$T/install.log" 2>&1 ||
	bad "make install DESTDIR: $(tail -3 "$T/install.log")"
S="$T/stage/opt/fastblock"
for f in include/fastblock.h bin/fastblock share/man/man1/fastblock.1; do
	if [ -e "$S/$f" ]; then ok; else bad "DESTDIR install lacks $f"; fi
done
lib=$(ls -d "$S"/lib* 2>/dev/null | head -1)
for f in libfastblock.a libfastblock.so pkgconfig/fastblock.pc cmake/fastblock/fastblockConfig.cmake \
	cmake/fastblock/fastblockConfigVersion.cmake cmake/fastblock/fastblockTargets.cmake; do
	if [ -e "$lib/$f" ]; then ok; else bad "DESTDIR install lacks lib/$f"; fi
done
if ls "$lib"/libfastblock.so.0* >/dev/null 2>&1; then ok; else bad "no versioned soname libfastblock.so.0"; fi

# ---- a prefix to build against ------------------------------------------------
P="$T/prefix"
make -s -C "$SRC" install BUILD="$BUILD" PREFIX="$P" >"$T/install.log" 2>&1 || bad "make install PREFIX: $(tail -3 "$T/install.log")"
L=$(ls -d "$P"/lib* | head -1)
cat >"$T/consumer.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <fastblock.h>
int main(void)
{
	static const uint8_t key[24] = "0123456789abcdefghijklmn", iv[8] = "ivivivi";
	const char *msg = "the quick brown fox jumps over the lazy dog";
	uint8_t ct[64], pt[64];
	size_t n, m;
	const fb_cipher *c = fb_cipher_by_name("des-ede3-cbc");
	if (!c || fb_encrypt(c, key, 24, iv, 8, (const uint8_t *)msg, strlen(msg), ct, sizeof ct, &n, NULL) ||
	    fb_decrypt(c, key, 24, iv, 8, ct, n, pt, sizeof pt, &m, NULL) || m != strlen(msg) || memcmp(pt, msg, m))
		return 1;
	printf("%s\n", fb_version());
	return 0;
}
C
want=$("$BUILD/fastblock" --version | awk '{print $2}')
check_run() { # WHAT BINARY
	local got
	got=$("$2" 2>&1)
	if [ $? = 0 ] && [ "$got" = "$want" ]; then ok; else bad "$1: consumer printed '$got', expected '$want'"; fi
}
# pkg-config
if command -v pkg-config >/dev/null; then
	export PKG_CONFIG_PATH="$L/pkgconfig"
	if [ "$(pkg-config --modversion fastblock)" = "$want" ]; then ok; else bad "pkg-config --modversion: $(pkg-config --modversion fastblock 2>&1)"; fi
	if cc "$T/consumer.c" -o "$T/c_pc" $(pkg-config --cflags --libs fastblock) -Wl,-rpath,"$L" 2>"$T/cc.log"; then
		check_run "pkg-config build" "$T/c_pc"
		if ldd "$T/c_pc" | grep -q "$L/libfastblock.so.0"; then ok; else bad "pkg-config build: not linked to the installed libfastblock.so.0"; fi
	else bad "pkg-config build: $(head -5 "$T/cc.log")"; fi
	unset PKG_CONFIG_PATH
else skipped "pkg-config not installed"; fi
# find_package from a separate CMake project, shared and static targets
mkdir -p "$T/cm"
cp "$T/consumer.c" "$T/cm/"
cat >"$T/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(consumer C)
find_package(fastblock 0.1 REQUIRED)
add_executable(c_shared consumer.c)
target_link_libraries(c_shared PRIVATE fastblock::fastblock)
add_executable(c_static consumer.c)
target_link_libraries(c_static PRIVATE fastblock::static)
CM
if cmake -S "$T/cm" -B "$T/cm/b" -G Ninja -DCMAKE_PREFIX_PATH="$P" >"$T/cm.log" 2>&1 && cmake --build "$T/cm/b" >>"$T/cm.log" 2>&1; then
	check_run "find_package, fastblock::fastblock" "$T/cm/b/c_shared"
	check_run "find_package, fastblock::static" "$T/cm/b/c_static"
else bad "find_package(fastblock): $(tail -8 "$T/cm.log")"; fi
# static, by hand
if cc "$T/consumer.c" -o "$T/c_static" -I"$P/include" "$L/libfastblock.a" 2>"$T/cc.log"; then
	check_run "static build" "$T/c_static"
	if ldd "$T/c_static" | grep -q libfastblock; then bad "static build still needs libfastblock.so"; else ok; fi
else bad "static build: $(head -5 "$T/cc.log")"; fi

# ---- exported symbols: exactly the header's functions -------------------------
grep -o 'fb_[a-z0-9_]*(' "$P/include/fastblock.h" | tr -d '(' | sort -u >"$T/header.syms"
nm -D --defined-only "$L/libfastblock.so" | awk '$2 ~ /^[TDBRVW]$/ { sub(/@.*/, "", $3); print $3 }' | sort -u >"$T/so.syms"
if diff "$T/header.syms" "$T/so.syms" >"$T/syms.diff"; then ok; else
	bad "libfastblock.so exports differ from the header's functions (< header, > library): $(tr '\n' ' ' <"$T/syms.diff")"; fi
if grep -qv '^fb_' "$T/so.syms"; then bad "non-fb_ symbols exported: $(grep -v '^fb_' "$T/so.syms" | head -5 | tr '\n' ' ')"; else ok; fi

# ---- the man page names every option --help prints -----------------------------
sed 's/\\-/-/g' "$SRC/docs/fastblock.1" >"$T/man.txt"
{ "$BUILD/fastblock" --help; "$BUILD/fastblock" speed --help 2>&1; } | grep -o -- '--[a-z][a-z0-9-]*' | sort -u >"$T/opts"
while read -r o; do
	if grep -q -- "$o\b" "$T/man.txt"; then ok; else bad "the man page does not mention $o"; fi
done <"$T/opts"
if [ "$(wc -l <"$T/opts")" -gt 15 ]; then ok; else bad "--help printed only $(wc -l <"$T/opts") options"; fi

# ---- make uninstall removes what the last install wrote -------------------------
make -s -C "$SRC" uninstall BUILD="$BUILD" >"$T/uninstall.log" 2>&1 || bad "make uninstall: $(tail -3 "$T/uninstall.log")"
left=$(find "$P" -type f -o -type l | head -3)
if [ -z "$left" ]; then ok; else bad "make uninstall left: $left"; fi

echo "test_install: $pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
