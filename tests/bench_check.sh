#!/usr/bin/env bash
# Runs every benchmark once on a small input (MLPROF_BENCH_MB=1) so that a
# benchmark whose answer check fails (SkipWithError: wrong event count, a
# parse error, an empty plan search) fails the test suite instead of being
# noticed, or not, when someone times it. Usage: bench_check.sh MLPROF_BENCH
set -u
out=$(MLPROF_BENCH_MB=1 "$1" --benchmark_min_time=0.001 2>&1)
rc=$?
echo "$out" | grep -E '^BM_'
if [ "$rc" -ne 0 ] || echo "$out" | grep -q "ERROR OCCURRED"; then
  echo "$out" | grep -B1 -A1 "ERROR OCCURRED"
  echo "bench_check: a benchmark's answer check failed (exit $rc)"
  exit 1
fi
n=$(echo "$out" | grep -c '^BM_')
[ "$n" -ge 8 ] || { echo "bench_check: only $n benchmarks ran"; exit 1; }
echo "bench_check: $n benchmarks checked their answers"
