# Thin wrapper over CMake + Ninja. `make` builds into build/, `make test`
# runs every test, `make bench` runs the benchmark comparison.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all test test-masked test-asan bench clean

all: $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release

test: all
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The suite again with the CPU masked to the other machine classes, so a
# test that passes only with (or only without) AVX-512 fails on any machine:
# ff = AVX2 + AES-NI + BMI2 without VAES, GFNI or AVX-512 (AMD Zen 2 class),
# 0 = portable code only. Quick variants; the slow, benchmark and valgrind
# tests run once, unmasked, in `make test`.
CPU_MASKS ?= ff 0
test-masked: all
	@for m in $(CPU_MASKS); do \
		echo "== make test-masked: FASTBLOCK_CPU_MASK=$$m"; \
		(cd $(BUILD) && FASTBLOCK_CPU_MASK=$$m FB_QUICK=1 ctest --output-on-failure -j $(JOBS) \
			-LE 'slow|bench' -E '^ct_valgrind') || exit 1; \
	done

$(ASAN_BUILD)/build.ninja:
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFB_SANITIZE=ON

test-asan: $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && FB_QUICK=1 ctest --output-on-failure -j $(JOBS) -LE slow

bench: all
	bench/run_bench.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
