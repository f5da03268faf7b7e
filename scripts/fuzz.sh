#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (+ASan/UBSan) in the sanitizer
# build (build-san, scripts/sanitized_build.sh: after scripts/sanitize.sh
# they are already built) and runs them for N seconds (default 60; the HLO
# target half that) from the seeds in fuzz/seeds and the bundled example.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
source scripts/sanitized_build.sh
sanitized_configure
cmake --build build-san --target fuzz_chrome_json fuzz_hlo
work=build-san/corpus-run
mkdir -p "$work"
cp fuzz/seeds/* "$work"/
cp tests/data/sql/vendor_args.json tests/data/html/hostile_names.json "$work"/
{ zcat examples/two_rank/rank-0.json.gz || true; } | head -c 20000 >"$work/example_head.json" || true
# XPlane seeds from the shared corpus when it is there (CI has it).
for f in ../shared/corpus/xla/tracelens_mi300x_jax08_gemm.xplane.pb ../shared/corpus/xla/tracelens_mi300x_jax08_elementwise.xplane.pb; do
  [ -f "$f" ] && head -c 65536 "$f" >"$work/$(basename "$f")"
done
# A small Nsight Systems export and a small Ascend profiler database (the
# SQLite paths: the readers' handling of what a damaged database still yields).
for pair in "mini_nsys.sqlite tests/data/nsys/mini_export.sql" "mini_ascend.db tests/data/ascend/mini_db.sql"; do
  set -- $pair
  python3 - "$work/$1" "$2" <<'PY'
import os, sqlite3, sys
path, sql = sys.argv[1], open(sys.argv[2]).read()
if os.path.exists(path):
    os.remove(path)
c = sqlite3.connect(path)
c.executescript("PRAGMA page_size=512;" + sql)
c.commit()
c.close()
PY
done
log=build-san/fuzz.log
if ASAN_OPTIONS=detect_leaks=1 ./build-san/fuzz_chrome_json "$work" -max_total_time="$secs" -max_len=65536 \
  -rss_limit_mb=2048 -malloc_limit_mb=1024 -artifact_prefix=build-san/ >"$log" 2>&1; then
  grep -E "^#[0-9]+ +(INITED|DONE)|^Done" "$log"
else
  echo "fuzz: FAILED; the input is saved as build-san/crash-* (add it to a test). Report:"
  grep -v "^#[0-9]" "$log" | tail -60
  exit 1
fi

# The HLO readers (text, HloProto), the planner's model files and chip files: half the time again, seeds of our own plus
# small corpus modules when the corpus is there.
work=build-san/corpus-hlo
mkdir -p "$work"
cp tests/data/*.hlo fuzz/seeds_hlo/* data/models/mixtral-8x7b.toml data/models/deepseek-v3.toml data/models/gpt3-175b.toml \
  data/chips/h100-sxm.json data/chips/tpu-v5p.json "$work"/
for f in ../shared/corpus/hlo/xla_test_import_async_collectives.hlo ../shared/corpus/hlo/xla_test_layouts_and_names.hlo \
  ../shared/corpus/hlo/jaxtoolbox_pax_fsdp4_a100_module_0038.jit__psum.sm_8.0_gpu_after_optimizations.hlo.pb \
  ../shared/corpus/xla/tracelens_mi300x_jax_conv3d_legacy.jit_forward_3d_conv_15.hlo_proto.pb; do
  [ -f "$f" ] && cp "$f" "$work/"
done
log=build-san/fuzz_hlo.log
if ASAN_OPTIONS=detect_leaks=1 ./build-san/fuzz_hlo "$work" -max_total_time="$((secs / 2))" -max_len=65536 \
  -rss_limit_mb=2048 -malloc_limit_mb=1024 -artifact_prefix=build-san/hlo- >"$log" 2>&1; then
  grep -E "^#[0-9]+ +(INITED|DONE)|^Done" "$log"
else
  echo "fuzz_hlo: FAILED; the input is saved as build-san/hlo-crash-* (add it to a test). Report:"
  grep -v "^#[0-9]" "$log" | tail -60
  exit 1
fi
