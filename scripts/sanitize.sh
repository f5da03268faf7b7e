#!/usr/bin/env bash
# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer, built
# with clang in build-san: the same instrumented build holds the fuzz targets
# (scripts/fuzz.sh), so CI compiles mlprof under the sanitizers once, not once
# for the tests and again for fuzzing.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sanitized_build.sh
sanitized_configure
cmake --build build-san
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-san --output-on-failure -j "$(nproc)"
