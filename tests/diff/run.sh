#!/usr/bin/env bash
# Diff tests: every case in tests/diff/cases.txt runs the mlprof binary on its
# inputs and compares what it prints (stdout, then stderr and the exit code
# when either is not the plain "exit 0, nothing on stderr") with
# tests/diff/expected/NAME.out, byte for byte.
#
#   tests/diff/run.sh BUILD_DIR [--update] [--shard K/N] [NAME_PATTERN]
#
# --update rewrites the expectations from what the binary prints now (after an
# intended change; the commit says why each output changed). NAME_PATTERN is a
# bash glob over case names (`'*xplane*'`). --shard K/N runs every Nth case
# from the Kth (0-based), so CTest can run N shards side by side (diff_tests_K);
# shard 0 also checks for stale expectations.
#
# Case lines: `NAME ARGS...`. ARGS are split as the shell splits them (quotes
# work); `{fmt}` makes three cases, NAME.text, NAME.json and NAME.csv, with
# text, json and csv in its place; `{corpus}` is ../shared/corpus (or
# $MLPROF_CORPUS); `{gen}` is a folder of inputs made by mlprof_gen before the
# run (see make_generated below). Cases run from a folder of links
# (examples/, tests/, corpus/, gen/) with relative paths, and the binary's
# path is written back as `mlprof`, so expectations do not depend on where
# the checkout and the corpus are. Without the corpus, its cases are SKIPPED (loudly), and under
# CI=true they fail.
set -u
if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [--update] [--shard K/N] [NAME_PATTERN]" >&2
  exit 1
fi
BUILD=$(cd "$1" && pwd)
shift
UPDATE=0
PATTERN='*'
SHARD=0
SHARDS=1
while [ $# -gt 0 ]; do
  case "$1" in
    --update) UPDATE=1 ;;
    --shard)
      shift
      if [[ "${1:-}" =~ ^([0-9]+)/([1-9][0-9]*)$ ]] && [ "${BASH_REMATCH[1]}" -lt "${BASH_REMATCH[2]}" ]; then
        SHARD=${BASH_REMATCH[1]}
        SHARDS=${BASH_REMATCH[2]}
      else
        echo "$0: --shard wants K/N with 0 <= K < N, not '${1:-}'" >&2
        exit 1
      fi
      ;;
    *) PATTERN=$1 ;;
  esac
  shift
done
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$BUILD/mlprof
GEN_BIN=$BUILD/mlprof_gen
CASES=$SRC/tests/diff/cases.txt
EXPECTED=$SRC/tests/diff/expected
CORPUS=${MLPROF_CORPUS:-$SRC/../shared/corpus}
[ -d "$CORPUS" ] && CORPUS=$(cd "$CORPUS" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
GEN=$TMP/gen

if [ ! -x "$BIN" ]; then
  echo "diff tests: no mlprof binary at $BIN" >&2
  exit 1
fi

# Inputs no file in the repository holds: a JAX trace-viewer export (no real
# one is public) made by the deterministic generator.
make_generated() {
  mkdir -p "$GEN"
  [ -x "$GEN_BIN" ] || return 1
  "$GEN_BIN" --trace-json "$GEN/synth.trace.json.gz" --size-mb 1 --devices 2 >/dev/null 2>&1 || return 1
}
gen_ok=0
make_generated && gen_ok=1
WORK=$TMP/work
mkdir -p "$WORK"
ln -s "$SRC/examples" "$WORK/examples"
ln -s "$SRC/tests" "$WORK/tests"
ln -s "$GEN" "$WORK/gen"
[ -d "$CORPUS" ] && ln -s "$CORPUS" "$WORK/corpus"

pass=0
fail=0
skip=0
updated=0
failed_names=()

case_index=-1
run_case() {  # name, args (one string)
  local name=$1 args=$2
  case_index=$((case_index + 1))
  [ $((case_index % SHARDS)) -eq "$SHARD" ] || return
  case "$name" in $PATTERN) ;; *) return ;; esac
  if [[ "$args" == *"{corpus}"* ]] && [ ! -d "$CORPUS" ]; then
    if [ "${CI:-}" = "true" ]; then
      echo "FAIL: $name: corpus missing under CI ($CORPUS)"
      fail=$((fail + 1))
      failed_names+=("$name")
    else
      skip=$((skip + 1))
    fi
    return
  fi
  if [[ "$args" == *"{gen}"* ]] && [ "$gen_ok" -ne 1 ]; then
    echo "FAIL: $name: mlprof_gen could not make the generated inputs (build with MLPROF_BUILD_BENCH=ON)"
    fail=$((fail + 1))
    failed_names+=("$name")
    return
  fi
  # Run from a folder of links, so that every path mlprof prints (and the
  # width of the text column it stands in) is the same wherever the checkout
  # and the corpus are: examples/, tests/, corpus/ and gen/.
  local expanded=${args//\{corpus\}/corpus}
  expanded=${expanded//\{gen\}/gen}
  local argv
  eval "argv=($expanded)"
  local out=$TMP/actual
  (cd "$WORK" && "$BIN" "${argv[@]}" >"$TMP/stdout" 2>"$TMP/stderr" </dev/null)
  local rc=$?
  {
    cat "$TMP/stdout"
    if [ "$rc" -ne 0 ] || [ -s "$TMP/stderr" ]; then
      echo "==== exit $rc, stderr:"
      cat "$TMP/stderr"
    fi
  } | sed -e "s#$BIN#mlprof#g" >"$out"
  local want=$EXPECTED/$name.out
  if [ "$UPDATE" -eq 1 ]; then
    if ! cmp -s "$out" "$want" 2>/dev/null; then
      cp "$out" "$want"
      updated=$((updated + 1))
      echo "updated: $name"
    fi
    pass=$((pass + 1))
    return
  fi
  if [ ! -f "$want" ]; then
    echo "FAIL: $name: no expectation ($want); run with --update"
    fail=$((fail + 1))
    failed_names+=("$name")
  elif cmp -s "$out" "$want"; then
    pass=$((pass + 1))
  else
    echo "FAIL: $name: mlprof ${args}"
    diff -u "$want" "$out" | head -40
    fail=$((fail + 1))
    failed_names+=("$name")
  fi
}

declare -A seen
mkdir -p "$EXPECTED"
while IFS= read -r line || [ -n "$line" ]; do
  line=${line%%$'\r'}
  [[ -z "${line// /}" || "$line" =~ ^[[:space:]]*# ]] && continue
  name=${line%%[[:space:]]*}
  args=${line#"$name"}
  args=${args#"${args%%[![:space:]]*}"}
  if [[ "$args" == *"{fmt}"* ]]; then
    for f in text json csv; do
      n="$name.$f"
      [ -n "${seen[$n]:-}" ] && { echo "diff tests: duplicate case $n" >&2; exit 1; }
      seen[$n]=1
      run_case "$n" "${args//\{fmt\}/$f}"
    done
  else
    [ -n "${seen[$name]:-}" ] && { echo "diff tests: duplicate case $name" >&2; exit 1; }
    seen[$name]=1
    run_case "$name" "$args"
  fi
done <"$CASES"

# Expectations no case produces any more are stale.
if [ "$PATTERN" = '*' ] && [ "$SHARD" -eq 0 ]; then
  for f in "$EXPECTED"/*.out; do
    [ -e "$f" ] || continue
    n=$(basename "$f" .out)
    if [ -z "${seen[$n]:-}" ]; then
      if [ "$UPDATE" -eq 1 ]; then
        rm "$f"
        echo "removed: $n"
      else
        echo "FAIL: $n: expectation with no case in cases.txt"
        fail=$((fail + 1))
      fi
    fi
  done
fi

if [ "$skip" -gt 0 ]; then
  echo "SKIPPED: $skip corpus cases: corpus not found ($CORPUS); set MLPROF_CORPUS or clone ../shared"
fi
[ "$UPDATE" -eq 1 ] && echo "diff tests: $updated expectations written"
[ "$SHARDS" -gt 1 ] && echo "diff tests: shard $SHARD of $SHARDS"
echo "diff: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
