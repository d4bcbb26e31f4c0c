# Two commands on a fresh Debian 12 machine:
#   make demo   installs the dependencies, builds, runs the default "8 vs 16 A100" scenario
#   make test   installs the dependencies, builds with warnings as errors, runs every test, then
#               runs them again under AddressSanitizer and UBSan and fuzzes each fuzz target briefly
# As root, missing packages are installed with apt-get; otherwise the apt-get line is printed.

PACKAGES := cmake ninja-build g++ python3 libboost-graph-dev libeigen3-dev libfmt-dev \
            nlohmann-json3-dev doctest-dev libcli11-dev libbenchmark-dev clang-14 libclang-rt-14-dev \
            libprotobuf-dev protobuf-compiler zlib1g-dev
# Plots, the HTML report and the notebooks: rsvg-convert makes the PNGs, the report's test opens
# it in headless Chromium and reads the screenshot with PIL, the notebooks' test runs them.
PACKAGES += librsvg2-bin chromium python3-pil python3-pandas python3-matplotlib jupyter-nbconvert python3-ipykernel
# The optional MPI build (stage mpi): OpenMPI's headers, libraries and mpirun.
PACKAGES += libopenmpi-dev openmpi-bin
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 20
BENCH_REPETITIONS ?= 3
DEMO ?= scenarios/bert-large-a100-8-vs-16.json

.PHONY: deps demo test check mpi sanitize fuzz build release bench clean

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

# Every stage runs even when an earlier one fails; `make test` fails when any stage did.
test: deps
	@status=0; for stage in check mpi sanitize fuzz; do \
	  $(MAKE) --no-print-directory $$stage || { echo "make test: stage '$$stage' failed"; status=1; }; \
	done; exit $$status

# The optimised build with warnings as errors, and every test.
check: deps
	cmake --preset ci -G Ninja
	cmake --build --preset ci -j $(JOBS)
	ctest --preset ci -j $(JOBS)

# The MPI build (RENTSIM_MPI): rentsim alone, and the tests labelled mpi (a sweep under
# mpirun, byte for byte against one process).
mpi: deps
	cmake --preset mpi -G Ninja
	cmake --build --preset mpi -j $(JOBS)
	ctest --preset mpi

# Every test again, in the Debug build with AddressSanitizer and UBSan.
sanitize: deps
	cmake --preset dev -G Ninja
	cmake --build --preset dev -j $(JOBS)
	ctest --preset dev -j $(JOBS)

# The libFuzzer programs (clang 14), each fuzzed for FUZZ_SECONDS (tests/fuzz/run.sh).
fuzz: deps
	cmake --preset fuzz -G Ninja -DRENTSIM_FUZZ_SECONDS=$(FUZZ_SECONDS)
	cmake --build --preset fuzz -j $(JOBS)
	ctest --preset fuzz -j $(JOBS)

# The benchmark suite (tests/bench), apart from the tests: builds the benchmark programs
# of the ci build and runs every benchmark, run_bench's BENCH_REPETITIONS times (mean, median,
# spread); after its table run_bench prints the ratios measured in the same run.
bench: deps
	cmake --preset ci -G Ninja
	cmake --build --preset ci -j $(JOBS) --target engine_bench run_bench flow_bench timeline_bench jobs_bench trace_bench capacity_bench
	./build/ci/tests/bench/engine_bench
	./build/ci/tests/bench/run_bench --benchmark_repetitions=$(BENCH_REPETITIONS) --benchmark_display_aggregates_only=true
	# One process per size: peak memory is the process's maximum resident set.
	for g in 64 128 1024 8192; do ./build/ci/tests/bench/flow_bench --benchmark_filter="BM_flow_all_reduce/$$g/"; done
	./build/ci/tests/bench/flow_bench --benchmark_filter=analytic
	# Reading job traces: a generated 1,000,000-job CSV streamed, the Philly CSV sorted in memory.
	./build/ci/tests/bench/jobs_bench
	./build/ci/tests/bench/timeline_bench
	# Importing recorded op-level traces (Kineto).
	./build/ci/tests/bench/trace_bench --benchmark_repetitions=$(BENCH_REPETITIONS) --benchmark_display_aggregates_only=true
	for n in 100000 1000000; do ./build/ci/tests/bench/capacity_bench --benchmark_filter="BM_replay/$$n/"; done
	./build/ci/tests/bench/capacity_bench --benchmark_filter="BM_replay_deep_queue/100000/"

clean:
	rm -rf build
