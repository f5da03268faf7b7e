#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMLPROF_SANITIZE=address,undefined \
  -DMLPROF_BUILD_BENCH=ON -DMLPROF_MPI=OFF -DCMAKE_CXX_FLAGS="-O1" >/dev/null
# (MPI off: OpenMPI's own allocations would read as leaks; the distributed
# path is tested here over threads, Distributed.* in mlprof_tests.)
cmake --build build-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$(nproc)"
