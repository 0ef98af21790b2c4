# Thin wrapper over CMake + Ninja. `make` builds into build/, `make test`
# runs every test, `make bench` runs the benchmark comparison.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all test test-masked test-asan bench dudect clean install uninstall dist

all: $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release

test: all
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The suite again with the CPU masked to the other machine classes, so a
# test that passes only with (or only without) AVX-512 fails on any machine:
# ff = AVX2 + AES-NI + BMI2 without VAES, GFNI or AVX-512 (AMD Zen 2 class),
# 41c0ff = that with VAES, VPCLMULQDQ and GFNI, and Intel's slow BEXTR
# where the CPU has it (Intel's client cores from Alder Lake; on a CPU
# without GFNI the same as ff), 0 = portable code only. Quick variants;
# the slow, benchmark and valgrind tests, and the Python package's (which
# rebuilds its extension, ~1.5 min, to test bindings over the same
# library), run once, unmasked, in `make test`.
CPU_MASKS ?= ff 41c0ff 0
test-masked: all
	@for m in $(CPU_MASKS); do \
		echo "== make test-masked: FASTBLOCK_CPU_MASK=$$m"; \
		(cd $(BUILD) && FASTBLOCK_CPU_MASK=$$m FB_QUICK=1 ctest --output-on-failure -j $(JOBS) \
			-LE 'slow|bench|python' -E '^ct_valgrind') || exit 1; \
	done

# -O1 with line tables only (-g1): what the sanitizer reports need. At -O2 -g
# GCC takes 6 min on two cores to build this configuration (the AVX-512
# kernels' inlined code under ASan and UBSan); at -O1 -g1, 1.5 min, and the
# tests run as fast.
ASAN_FLAGS ?= -O1 -g1 -DNDEBUG
$(ASAN_BUILD)/build.ninja:
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFB_SANITIZE=ON \
		-DCMAKE_C_FLAGS_RELWITHDEBINFO="$(ASAN_FLAGS)" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(ASAN_FLAGS)"

# The suite under AddressSanitizer and UBSan, quick variants, without the
# slow tests and the timing ones (label bench: ct_dudect_smoke, whose
# statistics mean nothing under the sanitizers' instrumentation).
test-asan: $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && FB_QUICK=1 ctest --output-on-failure -j $(JOBS) -LE 'slow|bench'

# make install [PREFIX=/usr/local] [DESTDIR=staging]: header, libraries,
# CLI, man page, pkg-config and CMake package files; make uninstall removes
# what the last install wrote (its manifest).
PREFIX ?= /usr/local
install: all
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

uninstall:
	@test -f $(BUILD)/install_manifest.txt || { echo "nothing installed from $(BUILD)"; exit 1; }
	xargs -d '\n' rm -f -- < $(BUILD)/install_manifest.txt

# make dist: a source tarball of the committed tree, which builds offline.
VERSION := $(shell sed -n 's/^\#define FASTBLOCK_VERSION "\(.*\)"/\1/p' include/fastblock.h)
dist:
	mkdir -p $(BUILD)
	git archive --format=tar.gz --prefix=fastblock-$(VERSION)/ -o $(BUILD)/fastblock-$(VERSION).tar.gz HEAD
	@echo $(BUILD)/fastblock-$(VERSION).tar.gz

bench: all
	bench/run_bench.sh $(BUILD)

# make dudect: the long statistical constant-time run (tests/ct_dudect.c),
# every default and constant-time implementation; table in
# $(BUILD)/dudect.txt, JSON in $(BUILD)/dudect.json. Run it on a quiet
# machine; DUDECT_CPU pins it to one core. It never fails on a row of the
# library (only on a leaking control it cannot find).
DUDECT_N ?= 1000000
DUDECT_LEN ?= 16,64,256
DUDECT_CPU ?=
dudect: all
	$(if $(DUDECT_CPU),taskset -c $(DUDECT_CPU)) $(BUILD)/ct_dudect --n $(DUDECT_N) --len $(DUDECT_LEN) \
		--json $(BUILD)/dudect.json | tee $(BUILD)/dudect.txt

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
