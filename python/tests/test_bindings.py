"""The Python bindings against the CLI: every command's DataFrames hold what `mlprof CMD --format json`
prints, on the bundled example and on corpus files of each format; errors carry the CLI's message.

Run by CTest (python_bindings) with PYTHONPATH=build/python, MLPROF_BIN=build/mlprof and
MLPROF_SOURCE=the source tree; by hand:
    PYTHONPATH=build/python MLPROF_BIN=build/mlprof python3 -m pytest python/tests
"""
import json
import math
import os
import subprocess
import threading

import pandas as pd
import pytest

import mlprof

SRC = os.environ.get("MLPROF_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("MLPROF_BIN", os.path.join(SRC, "build", "mlprof"))
EXAMPLE = os.path.join(SRC, "examples", "two_rank")
CORPUS = os.path.join(SRC, "..", "shared", "corpus")

# Commands that write files or need an argument: tested on their own below.
OWN_TESTS = {"report", "export", "sql"}
PROFILE_COMMANDS = [name for name, _, reads in mlprof.commands() if reads and name not in OWN_TESTS]


def cli_json(*args):
    """(report dict, None) from `mlprof ARGS --format json`, or (None, error message)."""
    r = subprocess.run([BIN, *args, "--format", "json"], capture_output=True, text=True, errors="replace")
    if r.returncode not in (0, 4):
        lines = [l for l in r.stderr.splitlines() if l.startswith("mlprof: error: ")]
        assert lines, r.stderr
        return None, lines[0][len("mlprof: error: "):]
    return json.loads(r.stdout), None


def same_value(want, got):
    if want is None:
        return got is None or got is pd.NA or (isinstance(got, float) and not math.isfinite(got))
    if isinstance(want, str):
        return got == want
    if isinstance(want, bool):
        return got == want
    if isinstance(want, int) and not isinstance(got, float):
        return int(got) == want
    return math.isclose(float(got), float(want), rel_tol=1e-12, abs_tol=0)


def assert_same_report(result, want):
    """result (mlprof.Result) holds the tables and rows of the CLI's JSON, value for value."""
    assert list(result) == list(want["tables"]), "table ids differ"
    for tid, rows in want["tables"].items():
        df = result[tid]
        schema = want["schema"][tid]
        names = [df.attrs["json_names"][h] for h in df.columns]
        assert names == [c["name"] for c in schema["columns"]], tid
        assert [df.attrs["units"][h] for h in df.columns] == [c["unit"] for c in schema["columns"]], tid
        assert len(df) == len(rows), tid
        for i, row in enumerate(rows):
            for h, name in zip(df.columns, names):
                got = df[h].iloc[i]
                got = None if got is None or got is pd.NA else got
                if hasattr(got, "item"):
                    got = got.item()
                assert same_value(row.get(name), got), f"{tid} row {i} {name}: CLI {row.get(name)!r}, Python {got!r}"


def need_corpus(*parts):
    path = os.path.join(CORPUS, *parts)
    if not os.path.exists(path):
        if os.environ.get("CI") == "true":
            pytest.fail(f"corpus file missing under CI=true: {path}")
        pytest.skip(f"SKIPPED: corpus not found ({path}); the corpus tests did not run")
    return path


@pytest.fixture(scope="module")
def example():
    return mlprof.load(EXAMPLE)


@pytest.mark.parametrize("command", PROFILE_COMMANDS)
def test_profile_commands_match_cli_on_the_example(example, command):
    want, err = cli_json(command, EXAMPLE)
    if err is not None:
        with pytest.raises(mlprof.Error) as e:
            example.analyse(command)
        assert str(e.value) == err
        return
    assert_same_report(example.analyse(command), want)


def test_options_are_the_clis(example):
    want, err = cli_json("ops", EXAMPLE, "--by-name", "--top", "3")
    assert err is None, err
    got = example.ops(by_name=True, top=3)
    assert_same_report(got, want)
    want, err = cli_json("critical-path", EXAMPLE, "--speedup", "name~gemm:1.5", "--speedup", "launch:2")
    assert err is None, err
    assert_same_report(example.critical_path(speedup=["name~gemm:1.5", "launch:2"]), want)


def test_comm_kernel_is_an_input_option():
    # --comm-kernel in Python: load(comm_kernel=...), one pattern or a list; the same tables as the CLI's.
    want, err = cli_json("summary", EXAMPLE, "--comm-kernel", "gemm", "--comm-kernel", "elementwise")
    assert err is None, err
    got = mlprof.load(EXAMPLE, comm_kernel=["gemm", "elementwise"]).summary()
    assert_same_report(got, want)
    plain = mlprof.load(EXAMPLE, comm_kernel="gemm").summary()["temporal"]
    assert (plain["comm_ps"] > 0).all()
    with pytest.raises(mlprof.Error) as e:
        mlprof.load(EXAMPLE, comm_kernel="(bad")
    assert "--comm-kernel '(bad': not a regular expression" in str(e.value)


CORPUS_CASES = [
    (("kineto", "hta_a100_ws2_rank0_nccl_args", "nccl_data.json.gz"),
     ["summary", "kernels", "ops", "steps", "idle", "overlap", "diagnose"]),
    (("xla", "xprof_tpu_v6e_x4_psum_hostoffload.xplane.pb"), ["summary", "scopes", "roofline", "engines", "info"]),
    (("xla", "tracelens_mi300x_jax08_gemm.xplane.pb"), ["summary", "roofline", "modules"]),
    (("nsys", "extrap_con_kernel.sqlite"), ["summary", "kernels", "stats"]),
    (("ascend", "msinsight_2rank", "text", "level1"), ["summary", "kernels", "steps"]),
]


def corpus_file(parts):
    return need_corpus(*parts)


@pytest.mark.parametrize("parts,commands", CORPUS_CASES, ids=lambda v: "/".join(v) if isinstance(v, tuple) else None)
def test_corpus_files_match_cli(parts, commands):
    path = corpus_file(parts)
    p = mlprof.load(path)
    for command in commands:
        want, err = cli_json(command, path)
        if err is not None:
            with pytest.raises(mlprof.Error):
                p.analyse(command)
            continue
        assert_same_report(p.analyse(command), want)


def test_multi_rank_corpus_directory():
    path = need_corpus("kineto", "hta_sampled_2rank_nccl")
    p = mlprof.load(path)
    assert len(p.ranks) > 1
    for command in ["summary", "collectives"]:
        want, _ = cli_json(command, path)
        assert_same_report(p.analyse(command), want)


def test_non_profile_commands_match_cli():
    cases = [
        ("plan", ["--model", "llama3-8b", "--chip", "h100-sxm", "--chips", "8", "--global-batch", "8", "--top", "3"],
         dict(model="llama3-8b", chip="h100-sxm", chips=8, global_batch=8, top=3)),
        ("chips", [], {}),
        ("mfu", ["--chip", "h100-sxm", "--devices", "8", "--step-time", "2", "--tokens-per-step", "1e6",
                 "--flops-per-token", "5e10"],
         dict(chip="h100-sxm", devices=8, step_time=2, tokens_per_step="1e6", flops_per_token=5e10)),
    ]
    for command, args, options in cases:
        want, err = cli_json(command, *args)
        assert err is None, err
        assert_same_report(getattr(mlprof, command)(**options), want)
    base = os.path.join(EXAMPLE, sorted(os.listdir(EXAMPLE))[0])
    new = os.path.join(EXAMPLE, sorted(os.listdir(EXAMPLE))[1])
    want, _ = cli_json("diff", base, new)
    assert_same_report(mlprof.diff(base, new), want)
    want, _ = cli_json("compare", base, new)
    assert_same_report(mlprof.compare(base, new), want)


def test_sql(example):
    q = "select name, count(*) as n, sum(dur) as dur from slice group by name order by dur desc, name limit 5"
    want, err = cli_json("sql", q, EXAMPLE)
    assert err is None, err
    assert_same_report(example.analyse("sql", q), want)
    df = example.sql(q)
    assert len(df) == 5 and df["n"].dtype == "int64"


def test_export_writes_the_clis_bytes(example, tmp_path):
    theirs = tmp_path / "cli.pftrace"
    subprocess.run([BIN, "export", EXAMPLE, "--perfetto", str(theirs)], check=True, capture_output=True)
    mine = tmp_path / "py.pftrace"
    r = mlprof.load(EXAMPLE, all_args=True).export(perfetto=str(mine))
    assert r.warnings == [] and mine.read_bytes() == theirs.read_bytes()
    # Loaded without every arg (the default): said, and the trace holds fewer args.
    fewer = tmp_path / "fewer.pftrace"
    r = example.export(perfetto=str(fewer))
    assert any("all_args=True" in w for w in r.warnings)
    assert fewer.stat().st_size < theirs.stat().st_size


def test_units_and_integer_times(example):
    r = example.summary()
    t = r["temporal"]
    assert t.attrs["units"]["idle_ps"] == "ps"
    assert t["idle_ps"].dtype == "int64"
    assert t.attrs["keys"] == ["rank"]
    # idle + compute + non-compute = the kernel time span (HTA's temporal breakdown), exactly, in ps
    row = t.iloc[0]
    assert row["idle_ps"] + row["compute_ps"] + row["non_compute_ps"] == row["kernel_time_ps"]


def test_errors_carry_message_code_path_and_offset(tmp_path):
    data = bytearray(open(os.path.join(EXAMPLE, sorted(os.listdir(EXAMPLE))[0]), "rb").read())
    data[500] ^= 0xFF
    bad = tmp_path / "corrupt.json.gz"
    bad.write_bytes(bytes(data))
    _, err = cli_json("summary", str(bad))
    with pytest.raises(mlprof.Error) as e:
        mlprof.load(str(bad))
    assert str(e.value) == err
    assert e.value.code == "data_loss"
    assert e.value.path == str(bad)
    assert e.value.offset is not None and e.value.offset > 0 and f"byte {e.value.offset}" in err

    with pytest.raises(mlprof.Error) as e:
        mlprof.load(str(tmp_path / "nothing.json"))
    assert e.value.code == "not_found" and e.value.path == str(tmp_path / "nothing.json")

    wrong = tmp_path / "w.json"
    wrong.write_bytes(b"xx")
    with pytest.raises(mlprof.Error) as e:
        mlprof.load(str(wrong))
    assert e.value.code == "wrong_format" and e.value.offset == 0


def test_usage_errors(example):
    with pytest.raises(mlprof.Error) as e:
        example.ops(by_nmae=True)
    assert e.value.code == "invalid_argument"
    assert "did you mean '--by-name'?" in str(e.value)
    with pytest.raises(mlprof.Error) as e:
        mlprof.run("sumary", EXAMPLE)
    assert "did you mean 'summary'?" in str(e.value)
    with pytest.raises(mlprof.Error) as e:
        mlprof.plan(model="llama3-8b", chip="h100-sxm", chips=8, global_batch=8, tp=3)
    _, err = cli_json("plan", "--model", "llama3-8b", "--chip", "h100-sxm", "--chips", "8", "--global-batch", "8",
                      "--tp", "3")
    assert str(e.value) == err
    with pytest.raises(mlprof.Error):
        example.analyse("plan")  # not a profile command


def test_import_warnings_and_untrusted_names(tmp_path):
    # A name with invalid UTF-8 and markup, and an event whose dur is text (skipped, counted).
    trace = (b'{"traceEvents":[{"ph":"X","cat":"kernel","name":"k\xff<b>","pid":0,"tid":7,"ts":1,"dur":2,'
             b'"args":{"stream":7,"device":0}},{"ph":"X","cat":"kernel","name":"x","pid":0,"tid":7,"ts":5,"dur":"x"}]}')
    f = tmp_path / "t.json"
    f.write_bytes(trace)
    p = mlprof.load(str(f))
    assert any("bad_number" in w for w in p.warnings)
    want, _ = cli_json("kernels", str(f))
    r = p.kernels()
    assert_same_report(r, want)
    assert list(r["kernels"]["name"]) == ["k?<b>"]  # the reader replaces invalid UTF-8, as in every output


def test_threads_share_nothing_but_results(example):
    # Loads and analyses from several threads at once (the GIL is released) give the single-threaded answer.
    want = example.kernels()["kernels"]
    out = [None] * 4

    def work(i):
        out[i] = mlprof.load(EXAMPLE).kernels()["kernels"]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for df in out:
        pd.testing.assert_frame_equal(df, want)


def test_help_and_docstrings():
    assert "--by-name" in mlprof.Profile.ops.__doc__
    assert "--global-batch" in mlprof.plan.__doc__
    assert "--top" in mlprof.help("kernels")


def test_the_notebook_example_runs():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), ""])))
    r = subprocess.run([os.sys.executable, os.path.join(SRC, "examples", "notebook.py"), EXAMPLE],
                       capture_output=True, text=True, cwd=SRC, env=env)
    assert r.returncode == 0, r.stderr
    assert "ranks: [0, 1]" in r.stdout
    assert "error: not_found no/such/trace.json" in r.stdout


def test_tables_repeated_per_rank_are_one_frame(example):
    # roofline has one summary per rank: one frame (and one JSON key) with both ranks' rows
    want, err = cli_json("roofline", EXAMPLE)
    assert err is None, err
    r = example.roofline()
    assert_same_report(r, want)
    assert list(r["roofline_summary"]["rank"]) == [0, 1]


def test_sql_keeps_repeated_column_names_and_types(example):
    df = example.sql("select 1 as a, 2 as a, 'x' as t")
    assert list(df.columns) == ["a", "a", "t"]
    assert list(df.iloc[0]) == [1, 2, "x"]
    q = "select s.name, t.name{} from slice s join track t on s.track_id = t.id order by s.id limit 1"
    df = example.sql(q.format(""))
    want, _ = cli_json("sql", q.format(" as tname"), EXAMPLE)
    row = want["tables"]["query"][0]
    assert list(df.iloc[0]) == [row["name"], row["tname"]]


def test_dtypes_follow_values_then_units(example):
    # A column with no value takes its unit's type: times stay integers, percentages floats.
    r = example.diagnose()
    df = r["findings"]
    assert len(df) == 0
    for h, unit in df.attrs["units"].items():
        if unit == "text":
            assert df[h].dtype == object, h
        elif unit in ("ps", "bytes", "count", "id"):
            assert str(df[h].dtype) in ("int64", "Int64"), h
        else:
            assert df[h].dtype == "float64", h


def test_input_options_belong_to_load(example):
    with pytest.raises(mlprof.Error) as e:
        example.ops(rank=1)
    assert "mlprof.load" in str(e.value) and e.value.code == "invalid_argument"
    one = mlprof.load(EXAMPLE, rank=1)
    assert one.ranks == [1] and len(one.files) == 1
    want, _ = cli_json("summary", EXAMPLE, "--rank", "1")
    assert_same_report(one.summary(), want)
    with pytest.raises(TypeError):
        mlprof.load(None)
    with pytest.raises(mlprof.Error):
        mlprof.load(EXAMPLE, threads=-1)


def test_profiles_and_lists_as_positionals(example):
    files = sorted(os.listdir(EXAMPLE))
    a, b = (mlprof.load(os.path.join(EXAMPLE, f)) for f in files[:2])
    want, _ = cli_json("diff", os.path.join(EXAMPLE, files[0]), os.path.join(EXAMPLE, files[1]))
    assert_same_report(mlprof.diff(a, b), want)
    want, _ = cli_json("shape", "bf16[8]", "f32[2,2]")
    assert_same_report(mlprof.shape(["bf16[8]", "f32[2,2]"]), want)
    both = mlprof.load([os.path.join(EXAMPLE, f) for f in files[:2]])
    with pytest.raises(TypeError):
        mlprof.diff(both, both)  # two paths each


def test_offset_is_not_read_from_the_path(tmp_path):
    d = tmp_path / "byte 77"
    d.mkdir()
    f = d / "x.json"
    f.write_bytes(b"xx")
    with pytest.raises(mlprof.Error) as e:
        mlprof.load(str(f))
    assert e.value.path == str(f) and e.value.offset == 0
