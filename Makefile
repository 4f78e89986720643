# The front door: `make demo` and `make check` install what is missing
# (scripts/setup.sh, needs root or sudo), build, then run.
BUILD     ?= build
BUILD_SAN ?= build-san
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all setup build build-san check check-san demo bench bench-fast format clean

all: build

setup:
	@scripts/setup.sh

build: setup
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCBANA_WERROR=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

build-san: setup
	cmake -S . -B $(BUILD_SAN) -DCMAKE_BUILD_TYPE=Debug -DCBANA_WERROR=ON -DCBANA_SANITIZE=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD_SAN) -j $(JOBS)

check: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# Under the sanitizers every unit test runs whole and each end-to-end
# script on its first case (CBANA_E2E_QUICK=1, docs/ci.md).
check-san: build-san
	CBANA_E2E_QUICK=1 ctest --test-dir $(BUILD_SAN) --output-on-failure -j $(JOBS)

demo: build
	$(BUILD)/cbana analyze examples/transpose.c --inputs examples/transpose.inputs \
	  --cache examples/l1-2way.cfg --top 5

bench: build
	bench/run.sh $(BUILD)

# cbana's fast engine vs cachegrind (bench/results/fast.md).
bench-fast: build
	CBANA_FLAGS=--no-classify bench/fast.sh -b $(BUILD) medium medium-default \
	  irregular tablev memory report

format:
	find cachemodel frontend analysis report cli include tests bench polybench \
	  -name '*.[ch]' -print0 | xargs -0 -r clang-format -i

clean:
	rm -rf $(BUILD) $(BUILD_SAN)
