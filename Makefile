# Two commands on a fresh Debian 12 machine:
#   make demo   installs the dependencies, builds, runs the default "8 vs 16 A100" scenario
#   make test   installs the dependencies, builds with warnings as errors, runs every test
# As root, missing packages are installed with apt-get; otherwise the apt-get line is printed.

PACKAGES := cmake ninja-build g++ python3 libboost-graph-dev libeigen3-dev libfmt-dev \
            nlohmann-json3-dev doctest-dev libcli11-dev libbenchmark-dev
JOBS ?= $(shell nproc)
DEMO ?= scenarios/bert-large-a100-8-vs-16.json

.PHONY: deps demo test build release bench clean

deps:
	@missing=$$(for p in $(PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:" $$missing; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else \
	    echo "missing packages; run:"; echo "  sudo apt-get install -y $$missing"; exit 1; \
	  fi; \
	fi

release: deps
	cmake --preset release -G Ninja
	cmake --build --preset release -j $(JOBS)

demo: release
	./build/release/rentsim run $(DEMO)

test: deps
	cmake --preset ci -G Ninja
	cmake --build --preset ci -j $(JOBS)
	ctest --preset ci -j $(JOBS)

bench: test
	./build/ci/tests/bench/engine_bench
	./build/ci/tests/bench/run_bench

clean:
	rm -rf build
