#!/usr/bin/env bash
# Whole-process side by side: `mlprof summary` and, when a checkout of Meta's
# Holistic Trace Analysis is given, HTA's loader plus the same breakdowns
# (temporal, communication overlap, kernel types), on the same trace
# directory in one run; wall time and peak RSS of each (/usr/bin/time, page
# cache warmed first), the ratios, and rank 0's temporal breakdown from both
# so that one can see they answer the same.
#   bench/side_by_side.sh TRACE_DIR [HTA_CHECKOUT] [ROUNDS=3]
# HTA_CHECKOUT: a clone of github.com/facebookresearch/HolisticTraceAnalysis
# whose dependencies (pandas, numpy, plotly, ...) the python3 on PATH has.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: bench/side_by_side.sh TRACE_DIR [HTA_CHECKOUT] [ROUNDS]}
hta=${2:-}
rounds=${3:-3}
bin=build/mlprof
[ -x "$bin" ] || { echo "build first: cmake --build build" >&2; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

best() {  # label, command...: the best wall time of $rounds runs and its peak RSS
  local label=$1 w r bw=inf br=0
  shift
  "$@" >/dev/null 2>&1 || { echo "$label failed: $*" >&2; "$@" >/dev/null; }  # warm the page cache
  for _ in $(seq "$rounds"); do
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >"$tmp/$label.out" 2>"$tmp/$label.err"
    read -r w r <"$tmp/time"
    if awk -v a="$w" -v b="$bw" 'BEGIN{exit !(b=="inf" || a<b)}'; then bw=$w br=$r; fi
  done
  echo "$bw $br"
}

size=$(du -sb "$dir" | cut -f1)
read -r m_wall m_rss < <(best mlprof "$bin" summary "$dir" -q)
printf 'input: %s (%.1f MB)\n' "$dir" "$(awk -v s="$size" 'BEGIN{print s/1e6}')"
printf '%-8s %10s %12s\n' tool wall_s peak_rss_MB
printf '%-8s %10s %12.0f\n' mlprof "$m_wall" "$(awk -v r="$m_rss" 'BEGIN{print r/1024}')"

if [ -z "$hta" ]; then
  echo "HTA: not run (give a checkout of facebookresearch/HolisticTraceAnalysis as the second argument)"
else
  cat >"$tmp/hta.py" <<'PY'
import sys
from hta.trace_analysis import TraceAnalysis
a = TraceAnalysis(trace_dir=sys.argv[1])
t = a.get_temporal_breakdown(visualize=False)
a.get_comm_comp_overlap(visualize=False)
a.get_gpu_kernel_breakdown(visualize=False)
print(t.to_string())
PY
  read -r h_wall h_rss < <(best hta env PYTHONPATH="$hta" python3 "$tmp/hta.py" "$dir")
  printf '%-8s %10s %12.0f\n' HTA "$h_wall" "$(awk -v r="$h_rss" 'BEGIN{print r/1024}')"
  awk -v hw="$h_wall" -v mw="$m_wall" -v hr="$h_rss" -v mr="$m_rss" \
    'BEGIN{printf "HTA / mlprof: %.1fx the wall time, %.1fx the memory\n", hw/mw, hr/mr}'
  echo "HTA's temporal breakdown:"
  cat "$tmp/hta.out"
fi
echo "mlprof's (us):"
"$bin" summary "$dir" -q | awk '/^GPU time breakdown/{p=1} p&&/^$/{exit} p'
