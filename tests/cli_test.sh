#!/usr/bin/env bash
# End-to-end tests of the mlprof binary: the bundled example, every command in
# every format, exit codes and messages for usage errors and bad input. Whole
# outputs are pinned by the diff tests (tests/diff); the checks here name the
# lines that matter and why. Usage: cli_test.sh MLPROF SOURCE_DIR
set -u
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
EX=$SRC/examples/two_rank
GEN=$(dirname "$BIN")/mlprof_gen
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0

check() {  # name, condition...
  local name=$1
  shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $name"; fi
}
run() {  # expected exit code, then the command; output in $TMP/out, $TMP/err
  local want=$1
  shift
  "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "  exit $rc, expected $want: $*"
    sed 's/^/  stderr: /' "$TMP/err" | head -5
    return 1
  fi
}
has() { grep -qF -- "$1" "$TMP/$2"; }

# The example is what the generator makes (deterministic).
if [ -x "$GEN" ]; then
  check "generator reproduces the example" run 0 "$GEN" --out "$TMP/gen" --ranks 2 --steps 6 --layers 4
  for r in 0 1; do
    check "example rank $r is generated" cmp -s <(zcat "$EX/rank-$r.json.gz") "$TMP/gen/rank-$r.json"
  done
fi

for cmd in summary info kernels ops idle overlap steps overview launches; do
  for fmt in text json csv; do
    check "$cmd --format $fmt" run 0 "$BIN" "$cmd" "$EX" --format "$fmt"
    check "$cmd --format $fmt has output" test -s "$TMP/out"
    if [ "$fmt" = json ] && command -v python3 >/dev/null; then
      check "$cmd json parses" python3 -c "import json,sys; json.load(open('$TMP/out'))"
      check "$cmd json fits its schema" python3 "$SRC/tests/check_json_schema.py" "$TMP/out"
    fi
  done
done

# Every JSON output the diff tests pin (every command) fits its own schema block.
if command -v python3 >/dev/null; then
  for f in "$SRC"/tests/diff/expected/*json*.out; do
    check "$(basename "$f") fits its schema" python3 "$SRC/tests/check_json_schema.py" "$f"
  done
fi

# mlprof report: the files, summary.txt within 100 columns, the SQLite file
# answering as `mlprof sql`, and a directory never clobbered without --force.
check "report" run 0 "$BIN" report "$EX" -o "$TMP/rep"
for f in summary.txt trace.pftrace trace.sqlite report.html report.xlsx; do check "report writes $f" test -s "$TMP/rep/$f"; done
# report.xlsx holds every table as the JSON output has it (openpyxl reads it).
for c in engines kernels steps overview idle overlap; do "$BIN" "$c" "$EX" --format json >"$TMP/xl_$c.json"; done
"$BIN" ops "$EX" --format json --top 0 >"$TMP/xl_ops.json"
xl_py=""
for py in /usr/bin/python3 python3; do
  if command -v "$py" >/dev/null && "$py" -c "import openpyxl" 2>/dev/null; then xl_py=$py; break; fi
done
if [ -n "$xl_py" ]; then
  check "report.xlsx matches the JSON tables" "$xl_py" "$SRC/tests/check_xlsx.py" "$TMP/rep/report.xlsx" "$TMP"/xl_*.json
elif [ "${CI:-}" = "true" ]; then
  check "openpyxl present under CI (python3-openpyxl)" false
else
  echo "SKIPPED: report.xlsx check: no python3 with openpyxl (apt-get install python3-openpyxl)"
fi
# trace.sqlite holds every table too (mlprof_<id>), as the JSON output has it.
"$BIN" summary "$EX" --format json --top 0 >"$TMP/xl_summary.json"
if command -v python3 >/dev/null; then
  check "trace.sqlite's mlprof_* tables match the JSON tables" python3 "$SRC/tests/check_sql_tables.py" "$TMP/rep/trace.sqlite" "$TMP"/xl_*.json
  check "mlprof sql answers from mlprof_kernels as the table" run 0 "$BIN" sql "select * from mlprof_kernels" "$EX" --format csv
  check "mlprof sql: mlprof_kernels is kernels --format csv" test "$(cat "$TMP/out")" = "$("$BIN" kernels "$EX" --format csv --top 0 | sed -n '/^# kernels$/,$p' | tail -n +2)"
fi
check "report: no temporary files left" test -z "$(ls "$TMP/rep" | grep tmp)"
check "summary.txt fits 100 columns" test "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$TMP/rep/summary.txt")" -le 100
check "summary.txt: engines" grep -q "all devices" "$TMP/rep/summary.txt"
if command -v python3 >/dev/null; then
  check "trace.sqlite answers as mlprof sql" test \
    "$(python3 -c "import sqlite3; print(sqlite3.connect('$TMP/rep/trace.sqlite').execute('select count(*) from slice').fetchone()[0])")" \
    = "$("$BIN" sql 'select count(*) from slice' "$EX" --format csv | tail -1)"
fi
check "report into a non-empty directory exits 1" run 1 "$BIN" report "$EX" -o "$TMP/rep"
check "report into a non-empty directory: says --force" has "exists and is not empty; --force" err
check "report --force" run 0 "$BIN" report "$EX" -o "$TMP/rep" --force --no-sqlite
printf x >"$TMP/afile"
check "report into a file exits 2" run 2 "$BIN" report "$EX" -o "$TMP/afile"

# A vendor tool's documented queries, as written, on a trace whose slices carry
# its args (tests/data/sql/vendor_args.json; slices 0-5 with DDR bandwidth
# 4.0, 8.5, 19.5, 21, 30 (dma.load), 5.0 and uArch rate "55.0", "38.25",
# "12.5", "90", "70.5", "39.9").
VA="$SRC/tests/data/sql/vendor_args.json"
check "vendor query 1: mm.normal by dur" run 0 "$BIN" sql 'select s.id from slice s where s.name="mm.normal" order by dur desc' "$VA" --format csv
check "vendor query 1: ids 1 2 5 0 3" test "$(tail -n +2 "$TMP/out" | tr '\n' ' ')" = "1 2 5 0 3 "
check "vendor query 2: DDR bandwidth 5-20" run 0 "$BIN" sql "SELECT a.real_value AS ddr_bandwidth, s.* FROM slice s JOIN args a ON s.arg_set_id = a.arg_set_id WHERE a.key = 'debug.DDR Bandwidth(GB/s)' AND ddr_bandwidth BETWEEN 5 AND 20 order by ddr_bandwidth desc;" "$VA" --format csv
check "vendor query 2: 19.5 8.5 5 (ids 2 1 5)" test "$(tail -n +2 "$TMP/out" | cut -d, -f1,2 | tr '\n' ' ')" = "19.5,2 8.5,1 5,5 "
check "vendor query 3: uArch rate under 40" run 0 "$BIN" sql "SELECT a.display_value AS uArchRate, s.* FROM slice s JOIN args a ON s.arg_set_id = a.arg_set_id WHERE a.key = 'debug.uArch Rate' AND CAST(a.display_value AS DOUBLE) < 40 order by CAST(uArchRate AS DOUBLE) desc;" "$VA" --format csv
check "vendor query 3: 39.9 38.25 12.5 (ids 5 1 2)" test "$(tail -n +2 "$TMP/out" | cut -d, -f1,2 | tr '\n' ' ')" = "39.9,5 38.25,1 12.5,2 "
check "vendor query as documented (s.* AS) exits 2" run 2 "$BIN" sql "SELECT s.* AS ddr_bandwidth FROM slice s JOIN args a ON s.arg_set_id = a.arg_set_id WHERE a.key = 'debug.DDR Bandwidth(GB/s)' AND ddr_bandwidth BETWEEN 5 AND 20 order by ddr_bandwidth desc;" "$VA"
check "vendor query as documented: says why" has "\`t.* AS name\` gives a name to all of a table's columns" err
# mlprof diff: the example against itself changes nothing; a gate passes
# (exit 0) or fails (exit 4); a malformed gate is a usage error (exit 1).
check "diff itself" run 0 "$BIN" diff "$EX" "$EX" --fail-if 'step_time>+1%' --format csv
check "diff itself: no change" has "no significant change" out
check "diff gate fails: exit 4" run 4 "$BIN" diff "$EX" "$EX" --fail-if 'step_time>-1%'
check "diff gate fails: says FAILED" has "FAILED" out
check "diff bad gate: exit 1" run 1 "$BIN" diff "$EX" "$EX" --fail-if 'step_time>5'
check "diff bad gate: says the unit" has "give the change with a unit: %, ms or us" err
# mlprof compare: the job's step is the slowest rank's steady median (as
# mlprof steps has it); MFU and tokens/s are the formulas on it.
check "compare" run 0 "$BIN" compare "$EX" "$EX" --label a --label b --flops-per-step 1e15 --peak-tflops 989.4 --tokens-per-step 8192 --format csv
check "compare: step is the slowest rank's median" test "$(sed -n 2p "$TMP/out" | cut -d, -f4)" = \
  "$("$BIN" steps "$EX" --format csv | sed -n '/^# steady_state/,$p' | tail -n +3 | cut -d, -f4 | sort -n | tail -1)"
if command -v python3 >/dev/null; then
  check "compare: MFU and tokens/s from the step" python3 -c "
import csv, sys
r = list(csv.DictReader(open('$TMP/out')))[0]
step = float(r['step_ps']) / 1e12
assert abs(float(r['tokens_per_s']) - 8192 / step) < 1e-6 * 8192 / step, r
assert abs(float(r['mfu_pct']) - 100 * 1e15 / (step * 2 * 989.4e12)) < 1e-9, r
"
fi
check "compare: bad --steps exits 1" run 1 "$BIN" compare "$EX" --steps 9-3
check "compare: label count exits 1" run 1 "$BIN" compare "$EX" "$EX" --label only-one
check "export keeps every arg" run 0 "$BIN" export "$VA" --sqlite "$TMP/va.db"
if command -v python3 >/dev/null; then
  check "export: the vendor args in args" test \
    "$(python3 -c "import sqlite3; print(sqlite3.connect('$TMP/va.db').execute(\"select count(*) from args where key like 'debug.%Rate' or key like 'debug.DDR%'\").fetchone()[0])")" = 12
fi

# Command-line mistakes: one line, the nearest option, exit 1.
check "option typo" run 1 "$BIN" summary "$EX" --fromat json
check "option typo suggests" has "unknown option '--fromat' for 'summary'; did you mean '--format'?" err
check "option typo is one line" test "$(wc -l <"$TMP/err")" -eq 1
check "negative top" run 1 "$BIN" ops "$EX" --top -1
check "negative top message" has "--top: expected a number of at least 0, got '-1'" err
check "negative top is one line" test "$(wc -l <"$TMP/err")" -eq 1

check "summary --rank 1" run 0 "$BIN" summary "$EX" --rank 1 --format csv
check "only rank 1 in temporal" bash -c "sed -n '/# temporal/,/^\$/p' '$TMP/out' | grep -c '^[01],' | grep -qx 1"

# HLO shapes: the issue's two examples.
check "shape" run 0 "$BIN" shape 'f32[3,5]{1,0:T(2,2)}' 'bf16[32,32,8192]{2,1,0:T(8,128)(2,1)S(1)}' --format csv
check "shape padded 4x6" has ',f32,"[3,5]","0,1","(2,2)","[4,6]",60,96,1.6,HBM,' out
check "shape in VMEM" has '"(8,128)(2,1)","[32,32,8192]",16777216,16777216,1,VMEM,' out
check "bad shape" run 1 "$BIN" shape 'f32[3,5'
check "bad shape message" has "column 8: expected ',' or ']'" err

# Usage errors: exit 1.
check "unknown command" run 1 "$BIN" sumary "$EX"
check "did you mean" has "Did you mean 'summary'?" err
check "no command" run 1 "$BIN"
check "bad option" run 1 "$BIN" summary "$EX" --frobnicate
check "bad format" run 1 "$BIN" summary "$EX" --format xml
check "no such rank" run 1 "$BIN" summary "$EX" --rank 7
check "no such rank message" has "no such rank (the inputs hold ranks 0, 1)" err
check "help" run 0 "$BIN" --help
check "help lists commands" has "launches" out
check "subcommand help" run 0 "$BIN" idle --help
check "version" run 0 "$BIN" --version

# Bad input: exit 2 with file and position.
check "missing file" run 2 "$BIN" summary "$TMP/nope.json"
check "missing file message" has "nope.json: no such file" err
printf 'not json' >"$TMP/text.json"
check "not json" run 2 "$BIN" info "$TMP/text.json"
check "not json message" has "text.json: unknown format at byte 0" err
head -c 1000 "$EX/rank-0.json.gz" >"$TMP/cut.json.gz"
check "truncated gzip keeps data" run 0 "$BIN" info "$TMP/cut.json.gz"
check "truncated gzip warned" has "truncated_compressed" err
printf '\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbagegarbagegarbage' >"$TMP/bad.json.gz"
check "corrupt gzip" run 2 "$BIN" info "$TMP/bad.json.gz"
check "corrupt gzip message" has "corrupt gzip data at compressed byte" err
printf '{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1} x {"ph":"X"}]}' >"$TMP/mid.json"
check "corrupt middle" run 2 "$BIN" info "$TMP/mid.json"
check "corrupt middle offset" has "mid.json: invalid JSON at byte" err
printf '{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1},{"ph":"X","na' >"$TMP/trunc.json"
check "truncated json kept" run 0 "$BIN" info "$TMP/trunc.json"
check "truncated json warned" has "truncated_json" err
check "quiet hides warnings" run 0 "$BIN" info "$TMP/trunc.json" -q
check "quiet stderr empty" test ! -s "$TMP/err"
# A directory with a trace and a non-trace JSON: the latter is skipped with a warning.
mkdir -p "$TMP/mixed"
cp "$EX/rank-0.json.gz" "$TMP/mixed/"
printf '[{"file": "x"}]' >"$TMP/mixed/details.json"
check "mixed directory" run 0 "$BIN" summary "$TMP/mixed"
check "mixed directory warns" has "skipped: " err
check "named non-trace" run 2 "$BIN" summary "$TMP/mixed/details.json"
# A profile without GPU activity says so instead of printing zeros.
printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":1,"dur":5}]}' >"$TMP/cpu.json"
check "cpu-only summary" run 0 "$BIN" summary "$TMP/cpu.json"
check "cpu-only note" has "No GPU stream activity" out
mkdir -p "$TMP/empty_dir"
check "empty directory" run 2 "$BIN" summary "$TMP/empty_dir"
# Names are untrusted: CSV cells that look like formulas are neutralised.
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"=HYPERLINK(\\"x\\")","pid":0,"tid":7,"ts":1,"dur":1,"args":{"stream":7}}]}' >"$TMP/evil.json"
check "evil name csv" run 0 "$BIN" kernels "$TMP/evil.json" --format csv
check "formula neutralised" has "'=HYPERLINK(\"\"x\"\")" out

# HLO: a small hand-written module (tests/data/small_module.hlo). The
# convolution: 9 wide, kernel 3, stride 2, pad 1 -> 13 valid (output, kernel)
# pairs per spatial dim: 2 * Cin 3 * Cout 8 * 13 * 13 = 8112 flops.
HLO=$SRC/tests/data/small_module.hlo
check "hlo" run 0 "$BIN" hlo "$HLO" --format csv
check "hlo module row" has "seed,main,3,14,1,2,4,1," out
check "hlo all-gather 4-way innermost" has 'seed,all-gather,1,ag,1,4,1,"innermost (4-way, contiguous devices)","f32[8,64]{1,0}","f32[32,64]{1,0}"' out
check "hlo all-reduce 2-way stride 2" has 'seed,all-reduce,1,ar,2,2,2,"outer (2-way, device stride 2)"' out
# Expected time from the HLO alone: 2*32*1024*8192*32768 FLOPs on 8 TPU v2
# cores at 23 TFLOP/s each = 95.6 ms.
check "hlo expected" run 0 "$BIN" hlo "$SRC/tests/data/classic_matmul.hlo" --chip tpu-v2 --devices 8 --per-core
check "hlo expected 95.6 ms" bash -c "grep -E '^classic .* 95\.610 +1\.150 +95\.610 +compute\$' '$TMP/out'"
check "hlo --op" run 0 "$BIN" hlo "$HLO" --op %c --format csv
check "hlo --op conv flops" has "flops,8112" out
check "hlo --op position" has "small_module.hlo:21:3" out
check "hlo --op dot" run 0 "$BIN" hlo "$HLO" --op d --format json
check "hlo --op dot flops (2 x 8x64 x 128)" has '{"field": "flops", "value": "131072"}' out
check "hlo --op missing" run 2 "$BIN" hlo "$HLO" --op nope
check "hlo --op missing says so" has "no such instruction" err
printf 'HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  y = f32[2 negate(x)\n}\n' >"$TMP/bad.hlo"
check "hlo syntax error" run 2 "$BIN" hlo "$TMP/bad.hlo"
check "hlo syntax error line:col" has "bad.hlo:4:7: HLO syntax error: expected a shape for 'y'" err
check "hlo not hlo" run 2 "$BIN" hlo "$EX/rank-0.json.gz"
check "scopes on a PyTorch trace" run 0 "$BIN" scopes "$EX"
check "scopes says why" has "no XLA ops in these inputs" err

# JAX trace-viewer JSON: the same synthetic profile as an XSpace and as the
# trace.json.gz the exporter writes for it gives the same breakdown (but for
# the flops, which the JSON leaves out, and says so).
check "gen xplane" run 0 "$GEN" --xplane "$TMP/s.xplane.pb" --size-mb 1 --devices 2
check "gen trace.json.gz" run 0 "$GEN" --trace-json "$TMP/s.trace.json.gz" --size-mb 1 --devices 2
check "trace.json info" run 0 "$BIN" info "$TMP/s.trace.json.gz" --format csv
check "trace.json format" has ",xprof-trace-json,gzip," out
xla_rows() { sed -n '/^# xla_breakdown/,/^$/p' "$TMP/out" | cut -d, -f1-12; }
check "xplane summary" run 0 "$BIN" summary "$TMP/s.xplane.pb" --format csv
xla_rows >"$TMP/xplane_rows"
check "trace.json summary" run 0 "$BIN" summary "$TMP/s.trace.json.gz" --format csv
xla_rows >"$TMP/json_rows"
check "trace.json rows as xplane" diff -u "$TMP/xplane_rows" "$TMP/json_rows"
check "trace.json rows present" test "$(wc -l <"$TMP/json_rows")" -ge 4
check "trace.json says why no flops" has "leaves out the runtime's flops" err

# Chip database and MFU calculator (issue 4 seeds).
check "chips" run 0 "$BIN" chips --format csv
# CSV carries raw SI values: FLOP/s, bytes, bytes/s.
check "chips lists v7x" has "tpu-v7x,Google TPU7x (Ironwood),tpu,2,,,2307000000000000,4614000000000000,,206158430208,7370000000000,313.0257801899593,ICI,600000000000,src,built-in" out
check "chips lists every chip file" test "$(grep -c ',built-in$' "$TMP/out")" -eq "$(ls "$SRC"/data/chips/*.json | wc -l)"
check "chip detail" run 0 "$BIN" chips --chip h200 --format csv
check "chip detail source" has "source,\"How to Scale Your Model (scaling-book), gpus.md [src]\"" out
check "mfu v7x seed" run 0 "$BIN" mfu --chip tpu-v7x --devices 64 --step-time 12 --tokens-per-step 20971520 \
  --flops-per-sample 39.96e12 --tokens-per-sample 4096 --format csv
check "mfu v7x tflops per chip per step" has "model_flops_per_device_per_step,3196800000000000,flop," out
check "mfu v7x achieved" has "achieved_flops_per_device,266400000000000,flop/s," out
check "mfu v7x pct" has "mfu,0.11547" out  # 11.55 %
check "mfu by device name" run 0 "$BIN" mfu --chip "NVIDIA H200" --devices 1280 --tokens-per-day 1133e9 \
  --flops-per-sample 39.96e12 --tokens-per-sample 4096 --format csv
check "mfu h200 pct" has "mfu,0.10105" out  # 10.11 %
check "unknown chip" run 1 "$BIN" mfu --chip tpu-v9 --devices 2 --step-time 1 --tokens-per-step 5 --params 1e9
check "unknown chip lists known" has "known chips: a100-40gb" err
check "mfu without flops" run 1 "$BIN" mfu --chip h200 --devices 8 --tokens-per-day 1e12
check "mfu without flops message" has "give the model FLOPs" err
# The calculator's other input problems (analysis says which, the app words it).
mfu_err() {  # name, message, options...
  local name=$1 msg=$2
  shift 2
  check "mfu $name" run 1 "$BIN" mfu "$@"
  check "mfu $name message" has "$msg" err
}
mfu_err "without chip" "mfu: give --chip (or --peak-tflops)" --devices 8 --tokens-per-day 1e12 --params 1e9
mfu_err "without devices" "mfu: give --devices (a number above 0)" --chip h200 --tokens-per-day 1e12 --params 1e9
mfu_err "without dtype peak" "mfu: chip 'tpu-v7x' has no tf32 peak in its file; pick another --dtype or give" \
  --chip tpu-v7x --dtype tf32 --devices 8 --tokens-per-day 1e12 --params 1e9
mfu_err "without throughput" "mfu: give the throughput: --step-time with --tokens-per-step" --chip h200 --devices 8 \
  --params 1e9
mfu_err "flops per step without step" "mfu: --model-flops-per-step needs --step-time" --chip h200 --devices 8 \
  --tokens-per-day 1e12 --model-flops-per-step 1e15
mfu_err "flops per sample without tokens" "mfu: --flops-per-sample needs --tokens-per-sample (the sequence length)" \
  --chip h200 --devices 8 --tokens-per-day 1e12 --flops-per-sample 1e12
printf '{"id":"x","name":"x","peak_tflops":{"bf16":-1}}' >"$TMP/bad_chip.json"
check "bad chip file" run 2 "$BIN" chips --chip-file "$TMP/bad_chip.json"
check "bad chip file message" has "bad_chip.json: chip file, field 'peak_tflops.bf16'" err

# Roofline of the synthetic XSpace (generated above).
check "roofline" run 0 "$BIN" roofline "$TMP/s.xplane.pb" --chip tpu-v6e --svg "$TMP/r.svg" --format csv
check "roofline summary row" has "0,tpu-v6e,bf16,918000000000000,1638000000000,560.4395604395604,200000000000," out  # one ICI axis: 2 x 100 GB/s
check "roofline matmul is compute bound" bash -c "grep -qE '^0,matmul/convolution,.*,compute\$' '$TMP/out'"
check "roofline svg written" bash -c "head -c 5 '$TMP/r.svg' | grep -qx '<svg ' ; tail -1 '$TMP/r.svg' | grep -qx '</svg>'"
check "roofline svg has points" test "$(grep -c '<circle' "$TMP/r.svg")" -gt 10
check "roofline detects the chip" run 0 "$BIN" roofline "$TMP/s.xplane.pb" --top 1
check "roofline says which chip" has "Chip detected from the profile: tpu-v6e" out
check "roofline link model" has "Collectives timed as: ring on one ICI axis, 200 GB/s per direction" out
check "roofline ici axes" run 0 "$BIN" roofline "$TMP/s.xplane.pb" --chip tpu-v6e --ici-axes 4x4 --top 1
check "roofline ici axes model" has "over the axes of the 4x4 torus each group spans" out
check "roofline bad ici axes" run 1 "$BIN" roofline "$TMP/s.xplane.pb" --chip tpu-v6e --ici-axes 4xx
check "roofline bad ici axes message" has "--ici-axes: '4xx' is not a list of axis sizes" err
check "roofline on a kineto trace" run 0 "$BIN" roofline "$EX" --top 1 --format csv
check "roofline kineto: the mm" has '0,"aten::mm [[8192,4096],[4096,16384]]",matmul/convolution,40,' out
check "roofline kineto: both ranks" test "$(grep -c '^[01],h100-sxm,bf16,989400000000000,3350000000000,295.34328358208955,450000000000,' "$TMP/out")" -eq 2
# A GEMM of 1.1 TFLOP in 10 us on an H100 cannot be: flagged, not hidden.
printf '%s' '{"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"}],"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":20,"args":{"External id":1,"Input Dims":[[8192,8192],[8192,8192]],"Input type":["c10::BFloat16","c10::BFloat16"]}},{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":2,"args":{"External id":1,"correlation":7}},{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":5,"dur":10,"args":{"stream":7,"correlation":7}}]}' >"$TMP/fast.json"
check "roofline kineto: faster than physics flagged" run 0 "$BIN" roofline "$TMP/fast.json" --top 1
check "roofline kineto: flag text" has "ran faster than the roofline allows" out
printf '%s' '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":5}]}' >"$TMP/noshapes.json"
check "roofline without GPU work" run 1 "$BIN" roofline "$TMP/noshapes.json"
check "roofline without GPU work message" has "nothing to put on a roofline" err
check "roofline unknown chip" run 1 "$BIN" roofline "$TMP/s.xplane.pb" --chip tpu-v9

# The planner.
check "plan" run 0 "$BIN" plan --model llama3-70b --chip h100-sxm --chips 64 --global-batch 64 --top 3 --format csv
check "plan setting" has "Llama 3 70B (built-in): 70.554 B parameters, 70.554 B active" out
check "plan columns" has "plan,tp,dp,pp,vpp,ep,fsdp,zero,cp,remat,micro_batch,micro_batches,weights_bytes,optimizer_bytes,grads_bytes,fsdp_buffers_bytes,activations_bytes,reserve_bytes,total_bytes,model_flops,remat_pct,compute_ps,tp_time_ps,ep_time_ps,fsdp_dp_time_ps,cp_time_ps,pp_time_ps,optimizer_time_ps,host_time_ps,step_ps,mfu_pct,bottleneck" out
check "plan rows" test "$(grep -cE '^[123],' "$TMP/out")" -eq 3
check "plan layouts multiply to the chips" bash -c "awk -F, '/^[123],/{ if (\$2*\$3*\$4*\$7*\$9 != 64) exit 1 }' '$TMP/out'"
check "plan filter" run 0 "$BIN" plan --model mixtral-8x7b --chip h100-sxm --chips 64 --global-batch 128 --ep 8 --tp 2 --top 0 --format csv
check "plan filter holds" bash -c "awk -F, '/^[0-9]+,/{ if (\$2 != 2 || \$6 != 8) exit 1; n++ } END { exit n == 0 }' '$TMP/out'"
check "plan zero pinned" run 0 "$BIN" plan --model llama3-8b --chip h100-sxm --chips 16 --global-batch 64 --zero 2 --top 0 --format csv
check "plan zero pinned holds" bash -c "awk -F, '/^[0-9]+,/{ if (\$8 != 2) exit 1; n++ } END { exit n == 0 }' '$TMP/out'"
check "plan latency" run 0 "$BIN" plan --model llama3-8b --chip h100-sxm --chips 16 --global-batch 64 --latency 5 --top 1 --width 300
check "plan latency stated" has "collectives 0.80 (+ 5 us per ring step)" out
check "plan zero out of range" run 1 "$BIN" plan --model llama3-8b --chip h100-sxm --chips 8 --global-batch 8 --zero 3
check "plan explain" run 0 "$BIN" plan --model deepseek-v3 --chip h100-sxm --chips 256 --global-batch 1024 --explain 1 --width 400
check "plan explain arithmetic" has "MFU = " out
check "plan explain memory" has "Tot = W + G + O + FBuf + Act + Rsv" out
check "plan tpu" run 0 "$BIN" plan --model llama3-8b --chip tpu-v5p --chips 64 --ici-axes 4x4x4 --global-batch 128 --top 1
check "plan tpu calibrated" has "GEMM 0.65 (calibrated for tpu-v5p)" out
printf '[model]\nlayers = 2\nhidden = 64\nheads = 4\nffn = 128\nvocab = 100\nsize = 3\n' >"$TMP/bad_model.toml"
check "plan unknown key (bad input: exit 2)" run 2 "$BIN" plan --model "$TMP/bad_model.toml" --chip h100-sxm --chips 8 --global-batch 8 --seq 128
check "plan unknown key message" has "bad_model.toml:7: unknown key 'model.size'" err
printf '[model]\nlayers = 2\nhidden = 64\nheads = 4\nffn = 128\nvocab = 100\nseq_len = 128\n' >"$TMP/toy.toml"
check "plan own model file" run 0 "$BIN" plan --model "$TMP/toy.toml" --chip h100-sxm --chips 8 --global-batch 8 --top 1
check "plan batch not divisible" run 1 "$BIN" plan --model llama3-8b --chip h100-sxm --chips 8 --global-batch 12 --dp 8 --fsdp 1 --mb 1
check "plan batch message" has "--global-batch = 12 is not divisible by DP x FSDP x micro-batch = 8" err
check "plan experts not divisible" run 1 "$BIN" plan --model mixtral-8x7b --chip h100-sxm --chips 8 --global-batch 8 --ep 3
check "plan experts message" has "--ep = 3 does not divide moe.experts = 8" err
check "plan unknown model" run 1 "$BIN" plan --model gpt5 --chip h100-sxm --chips 8 --global-batch 8
check "plan unknown model lists presets" has "built-in models are deepseek-v3, gpt3-175b" err
check "plan tpu slices" run 0 "$BIN" plan --model llama3-8b --chip tpu-v5p --chips 128 --slices 2 --ici-axes 4x4x4 --global-batch 128 --top 1
check "plan four gpus" run 0 "$BIN" plan --model llama3-8b --chip h100-sxm --chips 4 --global-batch 8 --top 1
check "plan explain out of range" run 1 "$BIN" plan --model llama3-8b --chip h100-sxm --chips 8 --global-batch 8 --explain 100000

# MFU with the step time, devices, chip and op FLOPs taken from a profile.
check "mfu from xplane" run 0 "$BIN" mfu "$TMP/s.xplane.pb" --model-flops-per-step 1e12 --width 200
check "mfu from xplane: chip and devices" has "From the profile: step time" out
check "mfu from xplane: detected v6e" has "chip tpu-v6e" out
check "mfu from xplane: hfu row" has "hfu " out
check "mfu from kineto" run 0 "$BIN" mfu "$EX" --chip h100-sxm --params 805306368 --tokens-per-step 16384 --width 250
check "mfu from kineto: 2 ranks" has "slowest rank's median steady-state ProfilerStep wall time, 2 ranks); devices 2" out
check "mfu from kineto: hfu from shapes" has "32 (op, shapes) groups over 2 ranks costed from their shapes in the steady-state steps" out
check "mfu from kineto: hfu row" has "hfu " out
check "mfu over 100% is flagged" run 0 "$BIN" mfu "$EX" --chip h100-sxm --params 2e10 --tokens-per-step 16384 --width 250
check "mfu over 100% is flagged: text" has "MFU above 100 %" out

# A trace recorded without record_shapes: the GEMMs it cannot cost are named.
printf '%s' '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":5}]}' >"$TMP/noshapes.json"
check "ops without shapes" run 0 "$BIN" ops "$TMP/noshapes.json"
check "ops without shapes warning" has "no input shapes for aten::mm (1 calls)" err
check "ops without shapes advice" has "record_shapes=True" err

# --merge: the example's rank 0 cut in two as two tools would record it: a host trace (every event but the GPU
# work) and a device profile on another clock (+1234567.25 us) holding the GPU work and the launch calls (as an
# nsys export holds its CUDA API calls). Merged, every figure of `summary` and `launches` equals the original's.
python3 - "$EX/rank-0.json.gz" "$TMP/host.json" "$TMP/device.json" <<'PY'
import gzip, json, sys
src, host_path, dev_path = sys.argv[1:4]
d = json.load(gzip.open(src))
gpu = {"kernel", "gpu_memcpy", "gpu_memset"}
launch = {"cuda_runtime", "cuda_driver"}
host, dev = dict(d), dict(d)
host["traceEvents"], dev["traceEvents"] = [], []
for e in d["traceEvents"]:
    is_gpu = e.get("cat") in gpu or (e.get("cat") == "cuda_sync" and "stream" in e.get("args", {}))
    if not is_gpu:
        host["traceEvents"].append(e)
    if is_gpu or e.get("cat") in launch:
        c = dict(e)
        if "ts" in c:
            c["ts"] = c["ts"] + 1234567.25
        dev["traceEvents"].append(c)
json.dump(host, open(host_path, "w"))
json.dump(dev, open(dev_path, "w"))
PY
check "merge: original summary" run 0 "$BIN" summary "$EX/rank-0.json.gz" --format csv
sed 1,3d "$TMP/out" >"$TMP/orig_summary.csv"
check "merge: merged summary" run 0 "$BIN" summary "$TMP/host.json" "$TMP/device.json" --merge --format csv
sed 1,3d "$TMP/out" >"$TMP/merged_summary.csv"
check "merge: the offset and its residual" has "device.json moved by -1234567.250 us onto" err
check "merge: zero residual" has "residual median 0.000 us, largest 0.000 us" err
check "merge: summary equals the original's" cmp -s "$TMP/orig_summary.csv" "$TMP/merged_summary.csv"
check "merge: original launches" run 0 "$BIN" launches "$EX/rank-0.json.gz" --format csv
cp "$TMP/out" "$TMP/orig_launches.csv"
check "merge: merged launches" run 0 "$BIN" launches "$TMP/host.json" "$TMP/device.json" --merge --format csv
check "merge: launch statistics equal the original's" cmp -s "$TMP/orig_launches.csv" "$TMP/out"
check "merge: a given offset" run 0 "$BIN" summary "$TMP/host.json" "$TMP/device.json" --merge-offset-us -1234567.25 --format csv
sed 1,3d "$TMP/out" >"$TMP/given_summary.csv"
check "merge: a given offset gives the same" cmp -s "$TMP/orig_summary.csv" "$TMP/given_summary.csv"
check "merge: one input is refused" run 1 "$BIN" summary "$TMP/host.json" --merge
check "merge: one input: says why" has "--merge needs a host-side trace and at least one device profile" err

echo "cli_test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
