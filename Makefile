# hetsim: the two commands of the README are `make demo` and `make test`.
# Each installs the Debian packages that are missing (and only those), then
# configures and builds with CMake. Run as root, or with sudo available.

BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
DEMO_OUT   ?= results/demo
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= native gavel philly alibaba2023 alibaba_nodes swf tiresias \
                detect throughputs cluster

# Debian package : what needs it
PACKAGES = cmake make gcc pkg-config libc6-dev \
           libgsl-dev libcjson-dev gnuplot-nox libcriterion-dev \
           libxgboost-dev libopenblas-serial-dev libopenmpi-dev openmpi-bin \
           libglpk-dev zlib1g-dev chromium
# the pod generator of `make bench` (traces/alibaba2023/synth.py)
PACKAGES += python3
# policies in Python and `import hetsim` (python/)
PACKAGES += python3-dev
# and for `make fuzz` (libFuzzer comes with clang's runtime)
FUZZ_PACKAGES = clang libclang-rt-14-dev

export MAKEFLAGS += --no-print-directory

SUDO = $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build demo test test-release test-asan bench fuzz clean help

all: build

help:
	@echo "make demo    install what is missing, build, run the default experiment"
	@echo "make test    install what is missing, build, run every test (also under ASan+UBSan)"
	@echo "make bench   build and print speed figures (not part of make test), each"
	@echo "             with new/prev against BENCH_BASE (main) built into build-bench-prev/"
	@echo "make fuzz    fuzz each reader and the cluster JSON for FUZZ_SECONDS (60) each;"
	@echo "             FUZZ_TARGETS=\"native cluster ...\" picks targets; crashes land in"
	@echo "             tests/fuzz/crashes/ (clang + libFuzzer, in $(FUZZ_BUILD)/)"
	@echo "make build   only build (into $(BUILD)/; profile-guided: PGO=0 for a plain build)"
	@echo "make deps    only install the missing Debian packages (PACKAGES)"
	@echo "make test-release, make test-asan"
	@echo "             one half of make test ($(BUILD)/, or $(ASAN_BUILD)/ under"
	@echo "             ASan+UBSan); one suite: ctest --test-dir $(BUILD) -R NAME"
	@echo "make clean   remove the build folders"
	@echo "Variables: BUILD=$(BUILD) JOBS=$(JOBS) PGO=$(PGO) DEMO_OUT=$(DEMO_OUT) (make demo's folder),"
	@echo "           FUZZ_SECONDS=$(FUZZ_SECONDS); the program is $(BUILD)/hetsim (--help)"

# Installs only the missing packages; `apt-get update` only when one is.
deps:
	@missing=""; \
	for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' \
	    || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "hetsim: installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    --no-install-recommends $$missing; \
	fi

# The release build is profile-guided (bench/pgo.sh: a counting build runs
# a training set first, then the release build uses its counts; about a
# tenth faster, same results); PGO=0 builds without, for a quicker loop of
# edits (an edit to any source otherwise trains again and rebuilds all).
PGO ?= 1
build: deps
	@PGO=$(PGO) ./bench/pgo.sh $(BUILD) $(JOBS)

demo: build
	@./examples/demo.sh $(BUILD)/hetsim $(DEMO_OUT)

test: test-release test-asan

test-release: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-asan: deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DHETSIM_SANITIZE=ON >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS)

# The previous build (bench/prev.sh: hetsim of BENCH_BASE, default main, in
# BENCH_PREV/) is timed beside this one; run.sh prints new/prev ratios.
BENCH_BASE ?= main
BENCH_PREV ?= build-bench-prev
bench: build
	@JOBS=$(JOBS) ./bench/prev.sh $(BENCH_BASE) $(BENCH_PREV)
	@./bench/run.sh $(BUILD) $(BENCH_PREV)

# libFuzzer harnesses in their own clang build (tests/fuzz/, HETSIM_FUZZ).
fuzz:
	@$(MAKE) deps PACKAGES="$(PACKAGES) $(FUZZ_PACKAGES)"
	@cmake -S . -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=clang \
	  -DCMAKE_BUILD_TYPE=Debug -DHETSIM_FUZZ=ON -DHETSIM_TESTS=OFF >/dev/null
	cmake --build $(FUZZ_BUILD) -j $(JOBS) \
	  --target $(addprefix fuzz_,$(FUZZ_TARGETS))
	@./tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(BENCH_PREV)
