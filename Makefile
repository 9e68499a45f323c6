# chunkwise: the two commands are `make demo` and `make test`.
# Each does all setup on a fresh Debian 12 machine, then builds.

BUILD      ?= build
FUZZ_BUILD ?= build-fuzz
TSAN_BUILD ?= build-tsan
BUILD_TYPE ?= Release
JOBS       ?= $(shell nproc)
DEMO_DIR   ?= demo/out

MAKEFLAGS += --no-print-directory
# bash: the build's pipe keeps the compiler's exit status (pipefail).
SHELL := /bin/bash

CMAKE_FLAGS = -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCHUNKWISE_FUZZ_BUILD_DIR=$(CURDIR)/$(FUZZ_BUILD)
# ccache, where installed, makes rebuilds in several checkouts cheap; CI has none.
CCACHE := $(shell command -v ccache 2>/dev/null)
ifneq ($(CCACHE),)
LAUNCHER_FLAGS = -DCMAKE_C_COMPILER_LAUNCHER=$(CCACHE) -DCMAKE_CXX_COMPILER_LAUNCHER=$(CCACHE) \
                 -DCMAKE_CUDA_COMPILER_LAUNCHER=$(CCACHE)
endif
CMAKE_FLAGS += $(LAUNCHER_FLAGS)

.PHONY: all deps build wheel fuzz-build fuzz-long test unit-test tsan demo bench format tidy clean help

all: build

help:
	@echo "make demo    set up, build, and run the story on generated data (demo/out/report.html)"
	@echo "make test    set up, build, and run unit, interop and fuzz smoke tests"
	@echo "make bench   run the benchmarks (ours next to every peer and the physical limit)"
	@echo "make tsan    the unit tests built with ThreadSanitizer (slow; not part of make test)"
	@echo "make fuzz-long FUZZ_MINUTES=10   every libFuzzer target N minutes, growing tests/fuzz/corpus"
	@echo "make format  clang-format every source file; make tidy runs clang-tidy"

deps:
	@scripts/install-deps

# What is compiled is shown; the "Built target" line of each target already
# up to date is not (on a rebuild, ~170 lines before the demo's first).
build: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@set -o pipefail; cmake --build $(BUILD) -j$(JOBS) | { grep --line-buffered -v 'Built target' || true; }

# The libFuzzer targets need clang and an instrumented copy of the library.
fuzz-build: deps
	@CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCHUNKWISE_FUZZ=ON $(LAUNCHER_FLAGS) >/dev/null
	@cmake --build $(FUZZ_BUILD) -j$(JOBS)

# A standing campaign, not CI: every target FUZZ_MINUTES minutes (fractions
# allowed), corpora kept minimized under tests/fuzz/corpus. See docs/reliability.md.
# FUZZ_TARGETS runs some only: scripts/fuzz-due lists those with no clean
# run of FUZZ_MINUTES yet in the campaign's ledger, tests/fuzz/campaign.tsv.
FUZZ_MINUTES ?= 10
FUZZ_TARGETS ?=
fuzz-long: fuzz-build
	@scripts/fuzz-long $(FUZZ_BUILD) $(FUZZ_MINUTES) $(FUZZ_TARGETS)

# The wheel is built from the tree `build` compiled (nothing compiled twice);
# ctest's python.wheel_install installs it into a fresh venv.
wheel: build
	@scripts/build-wheel $(BUILD)

test: build fuzz-build wheel
	@cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

# The library's own tests: the unit label and the facade's (ctest -L api).
unit-test: build
	@cd $(BUILD) && ctest --output-on-failure -j$(JOBS) -L '^(unit|api)$$'

# Data races: the unit tests in a ThreadSanitizer build. tests/tsan.supp says
# which reports are left out and why.
tsan: deps
	@cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCHUNKWISE_CUDA=OFF -DCHUNKWISE_PYTHON_MODULE=OFF \
	  -DCMAKE_C_FLAGS=-fsanitize=thread -DCMAKE_CXX_FLAGS=-fsanitize=thread \
	  -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread >/dev/null
	@cmake --build $(TSAN_BUILD) -j$(JOBS)
	@cd $(TSAN_BUILD) && TSAN_OPTIONS="halt_on_error=1 suppressions=$(CURDIR)/tests/tsan.supp" \
	  ctest --output-on-failure -j$(JOBS) -L '^(unit|api)$$'

demo: build
	@scripts/demo --chunkwise $(BUILD)/chunkwise --out $(DEMO_DIR)

bench: build
	@scripts/bench $(BUILD)

format:
	@git ls-files '*.h' '*.cc' '*.cu' | xargs clang-format -i

tidy: build
	@git ls-files 'src/*.cc' | xargs clang-tidy -p $(BUILD) --quiet

clean:
	@rm -rf $(BUILD) $(FUZZ_BUILD) $(TSAN_BUILD) $(DEMO_DIR)
