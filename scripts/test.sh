#!/usr/bin/env bash
# Quick start, command 2: build everything and run the whole test suite
# (unit, corpus and end-to-end tests) with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMLPROF_MPI=ON >/dev/null
cmake --build build
ctest --test-dir build --output-on-failure -j "$(nproc)"
