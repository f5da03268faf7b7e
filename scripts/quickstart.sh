#!/usr/bin/env bash
# Quick start, command 1: install dependencies, build mlprof, and run its main
# job (`mlprof summary`) on the bundled two-rank example trace.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target mlprof
./build/mlprof summary examples/two_rank
