# Sourced by scripts/sanitize.sh and scripts/fuzz.sh: the one sanitizer build
# (build-san) both use. clang (libFuzzer needs it), ASan + UBSan, every
# library instrumented for fuzzing coverage too (MLPROF_BUILD_FUZZ), -O1 with
# line tables only (what a sanitizer's stack trace needs; full debug info
# made the build slower), asserts on (no NDEBUG). MPI off: OpenMPI's own allocations would read as leaks; the
# distributed path is tested here over threads (Distributed.* in mlprof_tests).
sanitized_configure() {
  CXX=clang++ cmake -S . -B build-san -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only" \
    -DMLPROF_SANITIZE=address,undefined -DMLPROF_BUILD_FUZZ=ON -DMLPROF_BUILD_BENCH=ON -DMLPROF_MPI=OFF >/dev/null
}
