#!/usr/bin/env bash
# mlprof under mpirun: output byte-identical to one process (stdout, and the
# warnings on stderr); errors the same words and exit code; a command that
# cannot yet run under MPI says so. Every shardable command runs on one case
# per input format (the bundled Kineto example, an Ascend database and text
# export, an XPlane and an Nsight Systems file) over 2 and 3 processes (more
# processes than files included), not on every case: the shard-and-combine
# code is the same whatever the reader.
#   mpi_test.sh MLPROF SOURCE_DIR [PART]
# PART (default: all) runs one group, so CTest can run the groups side by
# side: example, ascend, xla_nsys, diff, report.
set -u
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
PART=${3:-all}
CORPUS=${MLPROF_CORPUS:-$SRC/../shared/corpus}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# OpenMPI refuses root without these (CI containers run as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# No network needed: shared memory between processes on this machine.
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
pass=0
fail=0
PROCS="2 3"
same() {  # name, mlprof arguments... (over each process count in $PROCS)
  local name=$1 rc1 rc2 k
  shift
  "$BIN" "$@" >"$TMP/one.out" 2>"$TMP/one.err"
  rc1=$?
  for k in $PROCS; do
    mpirun -n $k "$BIN" "$@" >"$TMP/mpi.out" 2>"$TMP/mpi.err"
    rc2=$?
    # mpirun adds its own lines about non-zero exits; mlprof's are kept.
    grep '^mlprof' "$TMP/mpi.err" >"$TMP/mpi.err2"
    grep '^mlprof' "$TMP/one.err" >"$TMP/one.err2"
    if [ "$rc1" -eq "$rc2" ] && cmp -s "$TMP/one.out" "$TMP/mpi.out" && cmp -s "$TMP/one.err2" "$TMP/mpi.err2"; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1))
      echo "FAIL: $name over $k processes (exit $rc2, one process $rc1): mlprof $*"
      diff "$TMP/one.out" "$TMP/mpi.out" | head -5
      diff "$TMP/one.err2" "$TMP/mpi.err2" | head -5
    fi
  done
}
want() {  # PART name: whether this run includes it
  [ "$PART" = all ] || [ "$PART" = "$1" ]
}
corpus() {  # relative path: sets $in to the full path, or fails (FAIL under CI, SKIPPED otherwise).
  # Not called in $(...): a subshell would lose the count of failures.
  in=$CORPUS/$1
  [ -e "$in" ] && return 0
  if [ "${CI:-}" = true ]; then
    echo "FAIL: corpus missing under CI: $in"
    fail=$((fail + 1))
  else
    echo "SKIPPED: corpus not found ($in); set MLPROF_CORPUS or clone ../shared"
  fi
  return 1
}
# Every shardable command on one input.
every_command() {  # input, formats of summary/diagnose...
  local in=$1 fmt
  shift
  for fmt in "$@"; do
    same "summary $fmt" summary "$in" --format "$fmt"
    same "diagnose $fmt" diagnose "$in" --format "$fmt"
  done
  # The per-rank commands, in JSON (every row).
  same "kernels" kernels "$in" --format json --top 3
  same "idle" idle "$in" --format json --intervals
  same "overlap" overlap "$in" --format json
  same "launches" launches "$in" --format json
  same "info" info "$in" --format json
  same "stats" stats "$in" --format json --top 3
  same "engines" engines "$in" --format json --top 3
  same "overview" overview "$in" --format json
  same "steps" steps "$in" --format json
  same "memory" memory "$in" --format json --top 3
  same "counters" counters "$in" --format json --top 3
  same "modules" modules "$in" --format json --top 3
  same "scopes" scopes "$in" --format json --top 3
  same "roofline" roofline "$in" --format json --top 3
  same "ops" ops "$in" --format json --top 3
}

if want example; then
  every_command "$SRC/examples/two_rank" text json csv
  # Files not in rank order: process 0 reads rank 1.
  same "ops, files not in rank order" ops "$SRC/examples/two_rank/rank-1.json.gz" "$SRC/examples/two_rank/rank-0.json.gz"
  same "ops --by-stack" ops "$SRC/examples/two_rank" --by-name --by-stack 2 --format csv
  same "kernels text" kernels "$SRC/examples/two_rank"
  same "summary --rank 1" summary "$SRC/examples/two_rank" --rank 1 --format csv
  same "summary --all-steps --top 2" summary "$SRC/examples/two_rank" --all-steps --top 2
  same "diagnose --rules" diagnose "$SRC/examples/two_rank" --rules --min-share 0.1
  same "no such rank" summary "$SRC/examples/two_rank" --rank 9
  same "no such file" summary "$SRC/examples/no_such_dir"
  same "not a trace" summary "$SRC/README.md"
fi
# Two-file inputs over 3 processes: two read a file each, one reads none.
if want ascend; then
  PROCS=3
  for rel in ascend/msinsight_2rank/db/level1 ascend/msinsight_2rank/text/level2; do
    corpus "$rel" && every_command "$in" text json
  done
  # 16 ranks, some missing, shared unevenly.
  if corpus ascend/msinsight_16rank_partial; then
    same "summary, partial job" summary "$in" --format json
    same "diagnose, partial job" diagnose "$in" --format json
  fi
  PROCS="2 3"
fi
# One file: one process reads it, the others none.
if want xla_nsys; then
  PROCS=2
  for rel in xla/tracelens_mi300x_jax08_gemm.xplane.pb nsys/extrap_profile1.sqlite; do
    corpus "$rel" && every_command "$in" json
  done
  PROCS="2 3"
fi

if want diff; then
# diff: each side's ranks shared out; gates and their exit code.
ex=$SRC/examples/two_rank
for fmt in text json csv; do
  same "diff $fmt" diff "$ex" "$ex" --format "$fmt" --fail-if 'step_time>+5%' --fail-if 'idle<-1us'
done
same "diff one side one rank" diff "$ex" "$ex/rank-1.json.gz" --format json
same "diff paired single ranks" diff "$ex/rank-0.json.gz" "$ex/rank-1.json.gz" --fail-if 'compute>+0us'
same "diff bad gate" diff "$ex" "$ex" --fail-if 'speed>1%'
same "diff no such file" diff "$ex" "$SRC/examples/no_such_dir"
if [ -e "$CORPUS/kineto/hta_trace_diff/test" ]; then  # (the corpus cases SKIP without it)
  same "diff corpus" diff "$CORPUS/kineto/hta_trace_diff/control" "$CORPUS/kineto/hta_trace_diff/test" --format json
  same "diff corpus 2 ranks" diff "$CORPUS/kineto/hta_sampled_2rank_nccl" "$ex" --format csv
  same "diff ascend" diff "$CORPUS/ascend/msinsight_2rank/db/level1" "$CORPUS/ascend/msinsight_2rank/text/level2"
fi
fi

if want report; then
# report: the pages byte for byte (the workbook by its members, all but
# docProps/core.xml, which holds the time it was written); the trace files
# are refused under MPI.
same_files() {  # a b: summary.txt, report.html, report.xlsx
  cmp -s "$1/summary.txt" "$2/summary.txt" && cmp -s "$1/report.html" "$2/report.html" &&
    python3 - "$1/report.xlsx" "$2/report.xlsx" <<'PY'
import sys, zipfile
a, b = (zipfile.ZipFile(p) for p in sys.argv[1:3])
names = sorted(a.namelist())
same = names == sorted(b.namelist()) and all(a.read(n) == b.read(n) for n in names if n != "docProps/core.xml")
sys.exit(0 if same and "xl/workbook.xml" in names else 1)
PY
}
report_inputs=("$SRC/examples/two_rank")
corpus ascend/msinsight_2rank/db/level1 && report_inputs+=("$in")
for in in "${report_inputs[@]}"; do
  "$BIN" report "$in" -o "$TMP/rep1" --force --no-perfetto --no-sqlite >/dev/null 2>&1
  for k in 2 3; do
    rm -rf "$TMP/repk"
    mpirun -n $k "$BIN" report "$in" -o "$TMP/repk" --no-perfetto --no-sqlite >/dev/null 2>"$TMP/err"
    if same_files "$TMP/rep1" "$TMP/repk"; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1))
      echo "FAIL: report pages over $k processes differ: $in"
    fi
  done
done
mpirun -n 2 "$BIN" report "$SRC/examples/two_rank" -o "$TMP/rep2" >"$TMP/out" 2>"$TMP/err"
if [ $? -ne 0 ] && grep -q "add --no-perfetto --no-sqlite" "$TMP/err" && [ ! -e "$TMP/rep2" ]; then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
  echo "FAIL: report with trace files under MPI should refuse before writing"
fi

mpirun -n 2 "$BIN" roofline "$SRC/examples/two_rank" --chip h100 --svg "$TMP/r.svg" >"$TMP/out" 2>"$TMP/err"
if [ $? -ne 0 ] && grep -q -- "--svg plots the first rank alone" "$TMP/err" && [ ! -e "$TMP/r.svg" ]; then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
  echo "FAIL: roofline --svg under MPI should refuse"
fi

# A command without shards: a clear error, not a wrong number.
mpirun -n 2 "$BIN" collectives "$SRC/examples/two_rank" >"$TMP/out" 2>"$TMP/err"
if [ $? -ne 0 ] && grep -q "does not run under MPI yet" "$TMP/err" && [ ! -s "$TMP/out" ]; then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
  echo "FAIL: collectives under MPI should refuse"
fi
fi
echo "mpi: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
