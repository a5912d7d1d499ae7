# smpatch - top-level wrapper around CMake.
#   make run    install what is missing, build, run the example
#   make test   install what is missing, build, run every test (normal + ASan/UBSan),
#               then make release-check
#   make release-check  the Release build a packager makes (gcc, library and CLI),
#               with warnings as errors

BUILD      ?= build
ASAN_BUILD ?= build-asan
RELEASE_BUILD ?= build-release
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
PREFIX     ?= /usr/local
# clang builds the sanitizer tree, so every `make test` compiles with both gcc and
# clang under -Werror (SMP_WERROR=ON: the project's own builds only, a user's
# `cmake -S . -B dir` has it off); valgrind serves the leak-check test; Debian's
# python3 with venv tests the Python binding and its pip install (which takes
# scikit-build-core, build and auditwheel from PyPI into its venvs).
DEBS       := build-essential cmake pkg-config libyaml-dev libre2-dev libcjson-dev clang valgrind \
              python3 python3-venv git
CMAKE_ARGS ?=

.PHONY: all deps build build-asan release-check run test test-fast bench bench-ssa schema install clean golden-update fuzz realserver cel-oracle judge-full

all: build

# apt-get only when a package is missing, so repeated runs cost nothing.
deps:
	@missing=""; for p in $(DEBS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

# The project's own builds treat warnings as errors (-DSMP_WERROR=ON below); a
# tree configured before the option existed (its default is off) is switched
# on once.
werror_on = grep -q '^SMP_WERROR:' $(1)/CMakeCache.txt || cmake $(1) -DSMP_WERROR=ON >/dev/null

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX) -DSMP_WERROR=ON $(CMAKE_ARGS)

build: deps $(BUILD)/CMakeCache.txt
	@$(call werror_on,$(BUILD))
	cmake --build $(BUILD) -j $(JOBS)

$(ASAN_BUILD)/CMakeCache.txt:
	CC=clang CXX=clang++ cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" -DSMP_SANITIZE=ON -DSMP_WERROR=ON $(CMAKE_ARGS)

build-asan: deps $(ASAN_BUILD)/CMakeCache.txt
	@$(call werror_on,$(ASAN_BUILD))
	cmake --build $(ASAN_BUILD) -j $(JOBS)

# What a packager builds: Release (-O3 -DNDEBUG) with gcc, the library and the
# CLI (no tests, so it is quick); a warning there fails `make test`.
$(RELEASE_BUILD)/CMakeCache.txt:
	CC=gcc CXX=g++ cmake -S . -B $(RELEASE_BUILD) -DCMAKE_BUILD_TYPE=Release -DSMP_TESTS=OFF -DSMP_WERROR=ON $(CMAKE_ARGS)

release-check: deps $(RELEASE_BUILD)/CMakeCache.txt
	@$(call werror_on,$(RELEASE_BUILD))
	cmake --build $(RELEASE_BUILD) -j $(JOBS)

# The main job on the bundled example: what `kubectl apply -f web.yaml` would send
# to the live object of live.yaml, and how the object changes (diff exits 1 when
# anything differs, which is the expected outcome here).
run: build
	@echo '== smpatch convert -o json (the config as kubectl reads it)'
	./$(BUILD)/smpatch convert -o json examples/apply/web.yaml
	@echo '== smpatch apply -o patch (the request kubectl would send)'
	./$(BUILD)/smpatch apply -f examples/apply/web.yaml --live examples/apply/live.yaml -o patch
	@echo '== smpatch apply -o diff (live object vs result)'
	./$(BUILD)/smpatch apply -f examples/apply/web.yaml --live examples/apply/live.yaml -o diff; \
	  rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 1 ]

# The real kube-apiserver v1.32.4 and etcd the judged tests run against
# (tests/realserver, docs/TESTING.md "The real API server"): a Go program
# built with Go's module and build caches (a first build takes minutes, a
# rebuild seconds). Only the tests need it; the library and the CLI never do.
GO         ?= $(shell command -v go 2>/dev/null || { [ -x /usr/local/go/bin/go ] && echo /usr/local/go/bin/go; })
REALSERVER := $(BUILD)/realserver
REALSERVER_SRC := $(wildcard tests/realserver/*.go) tests/realserver/go.mod tests/realserver/go.sum
REALSERVER_VERSION := v1.32.4
REALSERVER_LDFLAGS := -s -w $(foreach p,k8s.io/component-base/version k8s.io/client-go/pkg/version,\
  -X $(p).gitVersion=$(REALSERVER_VERSION) -X $(p).gitMajor=1 -X $(p).gitMinor=32 -X $(p).gitTreeState=clean)

realserver: $(REALSERVER)

# cel-go as Kubernetes 1.32 configures it for CRD rules: the oracle of
# tests/cel/differential.py (tests/cel/oracle), built the same way.
CEL_ORACLE := $(BUILD)/cel-oracle
CEL_ORACLE_SRC := $(wildcard tests/cel/oracle/*.go) tests/cel/oracle/go.mod tests/cel/oracle/go.sum

cel-oracle: $(CEL_ORACLE)

$(CEL_ORACLE): $(CEL_ORACLE_SRC)
	@[ -n "$(GO)" ] || { echo "Go is not installed: the CEL oracle (tests/cel/oracle) cannot be built"; exit 1; }
	@mkdir -p $(BUILD)
	cd tests/cel/oracle && GOTOOLCHAIN=local GOFLAGS=-mod=readonly $(GO) build -trimpath \
	  -ldflags '-s -w' -o $(abspath $@) .

$(REALSERVER): $(REALSERVER_SRC)
	@[ -n "$(GO)" ] || { echo "Go is not installed: the real API server (tests/realserver) cannot be built"; exit 1; }
	@mkdir -p $(BUILD)
	cd tests/realserver && GOTOOLCHAIN=local GOFLAGS=-mod=readonly $(GO) build -trimpath \
	  -ldflags '$(REALSERVER_LDFLAGS)' -o $(abspath $@) .

# realserver only where Go is: without it the judged tests skip with one line
# (and fail when CI=true).
test: build build-asan
	@if [ -n "$(GO)" ]; then $(MAKE) --no-print-directory realserver cel-oracle; \
	 else echo "Go is not installed: the judged tests against the real API server are skipped"; fi
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) -LE nosan
	$(MAKE) --no-print-directory release-check

test-fast: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The judged suites in their long versions (every chain, every generated
# object) against the real API server.
judge-full: build realserver
	cd $(BUILD) && SMP_JUDGE_FULL=1 ctest --output-on-failure -L realserver

# Regenerates golden outputs under testdata/ for review with git diff.
golden-update: build
	cd $(BUILD) && SMP_UPDATE_GOLDEN=1 ctest -j $(JOBS)

schema: build
	cmake --build $(BUILD) --target schema-tables

# The single-object tables (bench/run.sh), then the cluster-scale plans
# (bench/cluster.sh); both always run, and either's failure fails the target.
bench: build
	st=0; bench/run.sh $(BUILD) || st=1; bench/cluster.sh $(BUILD) || st=1; \
	  bench/validate.sh $(BUILD) || st=1; \
	  if [ -x $(REALSERVER) ]; then python3 bench/cel.py $(BUILD) || st=1; \
	    python3 bench/diff.py $(BUILD) || st=1; \
	  else echo "bench/cel.py, bench/diff.py: the real API server is not built (make realserver)"; fi; \
	  exit $$st

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# libFuzzer campaign (docs/TESTING.md): each target for FUZZ_SECONDS, one
# after the other, failing on any finding. clang instruments the library for
# coverage (fuzzer-no-link) and both for ASan+UBSan.
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= codec patch diff selector jsonpatch schema plan_live ssa cel

$(FUZZ_BUILD)/CMakeCache.txt:
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O2" -DCMAKE_CXX_FLAGS_DEBUG="-g -O2" \
	  -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link -DSMP_SANITIZE=ON -DSMP_FUZZ=ON -DSMP_WERROR=ON $(CMAKE_ARGS)

fuzz: deps $(FUZZ_BUILD)/CMakeCache.txt
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(foreach t,$(FUZZ_TARGETS),fuzz_$(t)_libfuzzer)
	tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(RELEASE_BUILD) $(FUZZ_BUILD)

# Server-side apply against the reference oracle (bench/SSA_RESULTS.md).
bench-ssa: build
	bench/ssa.sh $(BUILD)
