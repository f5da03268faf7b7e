#!/usr/bin/env bash
# Bad input never gives a wrong answer (issue "Bad input never gives a wrong
# answer"): each case asserts the exit code, that the message names the file
# and the right offset, and that nothing was printed as if the run had
# succeeded. Usage: bad_input_test.sh MLPROF
set -u
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
pass=0
fail=0

check() {  # name, condition...
  local name=$1
  shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $name"; fi
}
run() {  # expected exit code, then the command; output in out, err
  local want=$1
  shift
  "$@" >out 2>err
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "  exit $rc, expected $want: $*"
    sed 's/^/  stderr: /' err | head -5
    return 1
  fi
}
has() { grep -qF -- "$1" "$2"; }
empty() { [ ! -s "$1" ]; }

EV='{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":5,"args":{"stream":7}}'
DOC="{\"traceEvents\":[$EV]}"  # 105 bytes; EV is 87

# --- 1. Never a silent wrong result ------------------------------------------
# A clock past 2^53 us: --hta-rounding (float64 us, as HTA) is not applied,
# said so; the times stay exact (14.75 us from 10^19 + 0.5 to 10^19 + 15.25).
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10000000000000000000.5,"dur":5.5,"args":{"stream":7}},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10000000000000000010.25,"dur":5,"args":{"stream":7}}]}' >huge_ts.json
check "huge ts + --hta-rounding exits 0" run 0 "$BIN" summary huge_ts.json --hta-rounding --format csv
check "huge ts: rounding refused, said so" has "huge_ts.json: --hta-rounding not applied: the trace clock passes 2^53 us" err
check "huge ts: exact kernel time" has "0,4250000,10500000,0,14750000," out

# Data after the first document: refused with the offset of what follows.
printf '%s\nDONE in 3 s\n' "$DOC" >logline.json
check "log line after the trace exits 2" run 2 "$BIN" info logline.json
check "log line: file and offset" has "logline.json: data after the end of the JSON document at byte 106" err
check "log line: nothing printed" empty out
printf '%s%s' "$DOC" "$DOC" >two_docs.json
check "two documents exit 2" run 2 "$BIN" summary two_docs.json
check "two documents: offset" has "two_docs.json: data after the end of the JSON document at byte 105" err
check "two documents: nothing printed" empty out
printf '[%s][%s]' "$EV" "$EV" >two_arrays.json
check "two arrays exit 2" run 2 "$BIN" kernels two_arrays.json
check "two arrays: offset" has "two_arrays.json: data after the end of the JSON document at byte 89" err
# In a compressed file the offset counts decompressed bytes, and says so.
printf '%s\nDONE\n' "$DOC" | gzip >logline.json.gz
check "gzip + log line exits 2" run 2 "$BIN" info logline.json.gz
check "gzip: decompressed offset" has "logline.json.gz: data after the end of the JSON document at decompressed byte 106" err
# Whitespace and NUL padding after the document are fine.
{ printf '%s \n\n' "$DOC"; head -c 64 /dev/zero; } >padded.json
check "NUL padding is fine" run 0 "$BIN" kernels padded.json --format csv
check "NUL padding: the kernel is read" has ",k" out
# Two "traceEvents" keys: refused, not merged.
printf '{"traceEvents":[%s],"traceEvents":[%s]}' "$EV" "$EV" >dup_key.json
check "duplicate traceEvents exits 2" run 2 "$BIN" kernels dup_key.json
check "duplicate traceEvents: offset" has "dup_key.json: a second \"traceEvents\" key at byte 105" err
check "duplicate traceEvents: nothing printed" empty out

# Damage in the middle, with events after it, is an error at the damage (on
# both parse paths; the windowed one is unit-tested in windowed_test.cc), not
# a file "cut short" that keeps the events before it. 300 events of 90 bytes.
{
  printf '{"traceEvents":['
  for i in $(seq 100 399); do
    [ "$i" -gt 100 ] && printf ','
    printf '{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":7,"ts":%d0,"dur":5,"args":{"stream":7}}' "$i" "$i"
  done
  printf ']}'
} >many.json
# Where kernel k150's name starts (its opening quote), and the end of the
# event before it (its closing brace + 1).
AT=$(grep -bo '"k150"' many.json | cut -d: -f1)
PREV_END=$((AT - 33))
head -c $((AT + 2)) many.json >ctrl.json && printf '\001' >>ctrl.json && tail -c +$((AT + 4)) many.json >>ctrl.json
check "control byte mid-file exits 2" run 2 "$BIN" summary ctrl.json
check "control byte: file and the byte" has "ctrl.json: invalid JSON at byte $((AT + 2)): control byte 0x01 inside a string" err
check "control byte: nothing printed" empty out
head -c $((AT + 2)) many.json >nul.json && head -c 3 /dev/zero >>nul.json && tail -c +$((AT + 6)) many.json >>nul.json
check "NULs mid-file exit 2" run 2 "$BIN" info nul.json
check "NULs: the byte" has "nul.json: invalid JSON at byte $((AT + 2)): control byte 0x00 inside a string" err
head -c $((AT + 1)) many.json >quote.json && printf '#$%%"' >>quote.json && tail -c +$((AT + 6)) many.json >>quote.json
check "garbage mid-file exits 2" run 2 "$BIN" kernels quote.json
check "garbage: the event after the last good one" has "quote.json: invalid JSON in the event after byte $PREV_END" err
check "garbage: nothing printed" empty out
# A file whose last '}' is missing was cut short: every event is kept, said so.
head -c -1 many.json >open.json
check "missing final brace keeps the data" run 0 "$BIN" kernels open.json --format csv
check "missing final brace: said so" has "open.json: 1 x truncated_json" err
check "missing final brace: all 300 kernels, 5 us each" has "COMPUTATION,1500000000,100" out
# A 1-byte file: the message names no byte that does not exist.
printf '{' >one.json
check "1-byte file exits 2" run 2 "$BIN" info one.json
check "1-byte file: the end of the data" has "one.json: invalid JSON at the end of the data (1 bytes)" err

# Invalid HLO is refused with line and column, never costed.
printf 'HloModule m\nENTRY e {\n  x = f32[2]{0} parameter(0)\n  ROOT y = f32[2]{0} add(x, zz)\n}\n' >undef.hlo
check "HLO undefined operand exits 2" run 2 "$BIN" hlo undef.hlo
check "HLO undefined operand: line:col" has "undef.hlo:4:3: operand 'zz' of 'y' is not defined in computation 'e'" err
check "HLO undefined operand: nothing printed" empty out
printf 'HloModule m\na {\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=b\n}\nb {\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=a\n}\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT y = f32[] call(x), to_apply=a\n}\n' >cycle.hlo
check "HLO call cycle exits 2" run 2 "$BIN" hlo cycle.hlo
check "HLO call cycle: line:col" has "cycle.hlo:8:3: 'c' calls computation 'a', which is already being called on this path" err
printf 'HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\nENTRY e {\n  x = f32[8,8]{1,0} parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[8,8]{1,0} reduce-window(x, z), window={size=3xQ pad=1_1}, to_apply=add\n}\n' >window.hlo
check "HLO bad window exits 2" run 2 "$BIN" hlo window.hlo
check "HLO bad window: line:col" has "window.hlo:10:3: window={size=3xQ pad=1_1} of 'r': expected" err

# Every output is valid UTF-8: a name with invalid bytes in HLO text reaches
# the JSON as '?', and the JSON parses.
printf 'HloModule m\nENTRY e {\n  x = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(x), metadata={op_name="jit(f)/ne\377g" source_file="a\377.py" source_line=3}\n}\n' >utf8.hlo
check "HLO with invalid UTF-8 reads" run 0 "$BIN" hlo utf8.hlo --op n --format json
check "HLO with invalid UTF-8: repaired name in the JSON" has '"value": "jit(f)/ne?g"' out
if command -v python3 >/dev/null; then
  check "HLO with invalid UTF-8: the JSON parses" python3 -c "import json; json.load(open('out', encoding='utf-8'))"
fi

# --- 2. Bounded memory ----------------------------------------------------------
# Devices and FIFOs are refused (a FIFO is not even opened: that would block).
check "/dev/zero refused" run 2 "$BIN" info /dev/zero
check "/dev/zero: why" has "/dev/zero: is a character device, not a file" err
mkfifo fifo.json
check "FIFO refused without blocking" run 2 timeout 10 "$BIN" info fifo.json
check "FIFO: why" has "fifo.json: is a FIFO (named pipe), not a file" err
# In a directory, a FIFO named like a trace is skipped and named; so are the
# other entries.
mkdir dir && printf '%s' "$DOC" >dir/rank-0.json && mkfifo dir/rank-1.json && echo x >dir/notes.txt
check "directory with a FIFO reads the rest" run 0 timeout 10 "$BIN" info dir
check "directory: the FIFO named" has "dir/rank-1.json: skipped: a FIFO (named pipe), not a trace file" err
check "directory: other entries named" has "skipped 1 entry not named as traces (*.json, *.json.gz, *.zst, *.xplane.pb, *.sqlite): notes.txt" err
# Standard input is read up to the load cap.
check "stdin past the cap exits 2" run 2 bash -c "head -c 30000000 /dev/zero | '$BIN' info - --max-input-gb 0.01"
check "stdin: the cap" has "standard input: the input read passes the load cap of 0.01 GB" err
# A zstd frame claiming 512 GB allocates nothing of the sort.
printf '\x28\xb5\x2f\xfd\xe0\x00\x00\x88\x35\x77\x00\x00\x00\x91\x00\x00{"traceEvents":[]}' >claim.json.zst
check "zstd 512 GB claim exits 2, not out of memory" run 2 "$BIN" info claim.json.zst
check "zstd claim: named" has "claim.json.zst: corrupt zstd data" err
# A gzip bomb stops at the cap; under it, leading blanks are JSON whitespace.
{ head -c 30000000 /dev/zero | tr '\0' ' '; printf '%s' "$DOC"; } | gzip -1 >blanks.json.gz
check "gzip past the cap exits 2" run 2 "$BIN" info blanks.json.gz --max-input-gb 0.01
check "gzip cap: named" has "blanks.json.gz: the decompressed gzip data passes the load cap of 0.01 GB" err
check "30 MB of leading blanks are whitespace" run 0 "$BIN" kernels blanks.json.gz --format csv
check "leading blanks: the kernel is read" has ",k" out

# --- 3. Errors that point at the fault -------------------------------------------
# Garbage after a complete gzip member: kept and warned, as gzip -d does.
printf '%s' "$DOC" | gzip >garbage.json.gz
GZ_SIZE=$(wc -c <garbage.json.gz)
printf 'this is not gzip' >>garbage.json.gz
check "gzip trailing garbage keeps the data" run 0 "$BIN" kernels garbage.json.gz --format csv
check "gzip trailing garbage: the kernel" has ",k" out
check "gzip trailing garbage: warned with the compressed offset" has "garbage.json.gz: 1 x compressed_trailing_garbage (first at compressed byte $GZ_SIZE)" err

# One exit code for bad input, 2, whatever the file: a model TOML with an
# unknown key, a directory where a file is expected.
printf '[model]\nlayers = 2\nhidden = 64\nheads = 4\nffn = 128\nvocab = 100\nsize = 3\n' >bad_model.toml
check "bad model TOML exits 2" run 2 "$BIN" plan --model bad_model.toml --chip h100-sxm --chips 8 --global-batch 8 --seq 128
check "bad model TOML: file and line" has "bad_model.toml:7: unknown key 'model.size'" err
check "directory as an HLO file exits 2" run 2 "$BIN" hlo dir
check "directory as a chip file exits 2" run 2 "$BIN" chips --chip-file dir
check "directory as a chip file: why" has "dir: is a directory, not a file" err

# SQL errors are bad input (exit 2) with SQLite's message, and say the tables.
check "SQL syntax error exits 2" run 2 "$BIN" sql 'SELECT a.real_value AS bw, s.* AS x FROM slice s JOIN args a ON s.arg_set_id = a.arg_set_id' dir
check "SQL syntax error: SQLite's message" has 'SQL error: near "AS": syntax error; `t.* AS name` gives a name' err
check "SQL syntax error: says the tables" has '(the tables: slice, track' err
check "SQL unknown table exits 2" run 2 "$BIN" sql 'select * from slices' dir
check "SQL unknown table: named" has "SQL error: no such table: slices" err
# An export never overwrites without --force, and never leaves a half file.
printf 'x' >taken.pftrace
check "export onto an existing file exits 1" run 1 "$BIN" export dir --perfetto taken.pftrace
check "export onto an existing file: says --force" has "taken.pftrace: exists; --force overwrites it" err
check "export onto an existing file: left as it was" test "$(cat taken.pftrace)" = x

# Impossible chip figures are refused with the allowed range; a BOM and gzip
# are read as everywhere else.
printf '{"id":"x1","name":"X1","peak_tflops":{"bf16":100},"hbm_bytes_per_s":0}' >hbm0.json
check "chip with 0 HBM bandwidth exits 2" run 2 "$BIN" chips --chip-file hbm0.json --chip x1
check "chip 0 HBM: field and range" has "hbm0.json: chip file, field 'hbm_bytes_per_s': expected a number from 1e+09 to 1e+15" err
check "chip 0 HBM: nothing printed" empty out
printf '{"id":"x1","name":"X1","peak_tflops":{"bf16":1e9},"hbm_bytes_per_s":1e12}' >peak.json
check "chip with absurd peak exits 2" run 2 "$BIN" chips --chip-file peak.json
check "chip absurd peak: range" has "field 'peak_tflops.bf16': expected a number of TFLOP/s above 0 and at most 1e+06" err
printf '{"id":"x1","name":"X1",\n"peak_tflops":{"bf16":100,}}' >syntax.json
check "chip file syntax error exits 2" run 2 "$BIN" chips --chip-file syntax.json
check "chip file syntax error: the byte" has "syntax.json: chip file is not valid JSON at byte 50" err
printf '\xef\xbb\xbf{"id":"x1","name":"X1","peak_tflops":{"bf16":100},"hbm_bytes_per_s":1e12}' | gzip >bom.json.gz
check "chip file with BOM, gzip" run 0 "$BIN" chips --chip-file bom.json.gz --chip x1 --format csv
check "chip file with BOM, gzip: read" has "peak bf16 (dense),100 TFLOP/s" out

# --- Nsight Systems SQLite ------------------------------------------------------
# Made with python3's sqlite3 module: a database that is no nsys export, one
# whose kernel table lacks a column, one cut short, a kernel ending before it
# starts, and an .nsys-rep (only nsys reads those).
python3 - <<'PY'
import sqlite3
def db(path, sql):
    c = sqlite3.connect(path)
    c.executescript(sql)
    c.commit()
    c.close()
db("notnsys.sqlite", "CREATE TABLE users (id INTEGER, name TEXT); INSERT INTO users VALUES (1, 'a');")
KERNEL = ("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT); INSERT INTO StringIds VALUES (1, 'k');"
          "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, {stream}"
          "correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER);")
db("nostream.sqlite", KERNEL.format(stream=""))
rows = "".join(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ({i * 10}, {i * 10 + 5}, 0, 7, {i}, 0, 1, 1);"
               for i in range(20000))
db("big.sqlite", KERNEL.format(stream="streamId INTEGER, ") + rows)
db("backwards.sqlite", KERNEL.format(stream="streamId INTEGER, ") +
   "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 90, 0, 7, 1, 0, 1, 1);"
   "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (200, 210, 0, 7, 2, 0, 1, 1);")
PY
check "SQLite that is not nsys exits 2" run 2 "$BIN" summary notnsys.sqlite
check "not nsys: says what it has" has "notnsys.sqlite: an SQLite database, but not an Nsight Systems export" err
check "not nsys: nothing printed" empty out
check "nsys kernel table without streamId exits 2" run 2 "$BIN" kernels nostream.sqlite
check "no streamId: table and column" has "nostream.sqlite: table CUPTI_ACTIVITY_KIND_KERNEL has no column streamId" err
head -c $(($(wc -c <big.sqlite) / 2)) big.sqlite >cut.sqlite
check "nsys export cut short exits 2" run 2 "$BIN" info cut.sqlite
check "cut short: says so" has "cut.sqlite: SQLite error reading" err
check "cut short: nothing printed" empty out
check "kernel ending before it starts: kept going" run 0 "$BIN" info backwards.sqlite --format csv
check "kernel ending before it starts: counted" has "negative_duration" out
printf 'NVIDIA Tegra Profiler Report 2024@6@2' >r.nsys-rep
check ".nsys-rep exits 2" run 2 "$BIN" summary r.nsys-rep
check ".nsys-rep: how to export" has "nsys export --type sqlite" err

# torch_npu output (io/ascend_files.cc): a kernel_details.csv without a needed column, one cut inside a quoted field;
# a 2-rank run folder whose rank 1 has a broken communication.json (warned, the rest kept) and no trace at all in a
# third folder (skipped, said so).
H='Step Id,Model ID,Task ID,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us)'
printf '%s\n' 'Step Id,Model ID,Task ID,Stream ID,Name,Type,Accelerator Core,Start Time(us),Wait(us)' '1,1,1,2,k,Add,AI_CORE,10,5' >nodur.csv
check "kernel_details without Duration exits 2" run 2 "$BIN" summary nodur.csv
check "no Duration: says which column" has 'nodur.csv: line 1: no "Duration(us)" column' err
printf '%s\n%s\n' "$H" '1,1,1,2,"k,Add,AI_CORE,10,5' >cutquote.csv
check "kernel_details cut in a quote exits 2" run 2 "$BIN" kernels cutquote.csv
check "cut in a quote: file and line" has "cutquote.csv: line 2: a quoted field opened here is not closed" err
mkdir -p job/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT job/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT job/rank2_ascend_pt/ASCEND_PROFILER_OUTPUT
printf '%s\n%s\n%s\n' "$H" '1,1,1,2,k,Add,AI_CORE,10,5' '1,1,2,2,hcom_allReduce_1,hcom,HCCL,20,7' >job/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv
cp job/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv job/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/
printf '{"rank_id": 0}' >job/rank0_ascend_pt/profiler_info_0.json
printf '{"rank_id": 1}' >job/rank1_ascend_pt/profiler_info_1.json
printf '{"step1": {"collective": {"hcom_allReduce_1@9": {"Communication Time Info"' >job/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/communication.json
check "run folders with a broken rank file exit 0" run 0 "$BIN" summary job --format csv
check "broken communication.json: named, with why" has "rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/communication.json: " err
check "a folder without a trace: skipped, said so" has "rank2_ascend_pt/ASCEND_PROFILER_OUTPUT: no trace_view.json, kernel_details.csv or ascend_pytorch_profiler_*.db" err
check "both ranks read (rank 1: 2 ops, the whole trace as its one step)" has "1,,2,1,," out
# The files beside a trace are found however its folder is named: "." inside ASCEND_PROFILER_OUTPUT.
(cd job/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT && "$BIN" info . --format csv >../../../rel.out 2>../../../rel.err)
check "relative folder: the rank file beside it read" has "profiler_info_1.json: rank 1" rel.out

# torch's other memory-timeline export ([times, sizes by category]) starts "[[" too: beside a trace in a folder it is
# skipped as not a trace, not taken for the raw timeline; a raw timeline with a bad event names it.
mkdir -p memdir
printf '%s' "$DOC" >memdir/trace.json
printf '[[1000,2000],[[0,1,2,3,4,5,6,7,8],[0,1,2,3,4,5,6,7,8]]]' >memdir/mem.json
check "memory timeline [times, sizes] beside a trace: exit 0" run 0 "$BIN" summary memdir --format csv
check "memory timeline [times, sizes]: skipped, said so" has "mem.json" err
printf '[[-1, 1, 100, 0], [5, 9, 1, 0]]' >rawbad.json
check "raw memory timeline with a bad event exits 2" run 2 "$BIN" memory rawbad.json
check "raw memory timeline: the event's index" has "rawbad.json: memory event 1 is not" err
printf '[[-1, 1, 100, 0]' >rawcut.json
check "raw memory timeline cut short exits 2" run 2 "$BIN" memory rawcut.json
check "raw memory timeline cut short: names the file" has "rawcut.json:" err

# --capture: a missing path, a broken or wrong execution_details.json, a capture with no captured graph.
printf '%s' '{"traceEvents":[{"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":0,"dur":2,"args":{"correlation":5}},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":3,"dur":1,"args":{"stream":7,"correlation":5}}]}' >replay.json
check "--capture missing path exits 2" run 2 "$BIN" ops replay.json --capture no_such_capture
check "--capture missing path: named" has "--capture no_such_capture: no such file or directory" err
mkdir -p capdir
printf '[{"file": "a.json", "batch_size": 8' >capdir/execution_details.json
check "--capture broken execution_details.json exits 2" run 2 "$BIN" ops replay.json --capture capdir
check "--capture broken execution_details.json: named" has "capdir/execution_details.json: not JSON" err
printf '[{"file": "a.json", "batch_size": 8, "mode": "EAGER"}]' >capdir/execution_details.json
check "--capture wrong mode exits 2" run 2 "$BIN" ops replay.json --capture capdir
check "--capture wrong mode: what was expected" has 'entry 0: expected "mode" FULL or PIECEWISE' err
check "--capture without a captured graph exits 2" run 2 "$BIN" ops replay.json --capture replay.json
check "--capture without a captured graph: why" has "holds no captured graph" err
check "--capture empty path exits 1" run 1 "$BIN" ops replay.json --capture ""
check "collectives --gpus-per-node 0 exits 1" run 1 "$BIN" collectives replay.json --gpus-per-node 0

echo "bad input: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
