#!/usr/bin/env python3
"""mlprof on the wild profiles (../shared/corpus/wild), checked against
independent counts over the raw files (tests/wild/raw_counts.py: Python's
json and sqlite3 only, no mlprof).

    tests/wild_test.py MLPROF_BINARY [CORPUS_DIR]

Each check names the case of issue 36 it pins. Without the corpus the test
says SKIPPED (exit 77); under CI=true a missing corpus fails.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MLPROF = sys.argv[1]
CORPUS = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "..", "shared", "corpus")
WILD = os.path.join(CORPUS, "wild")

failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def near(a, b, tol, what):
    check(a is not None and b is not None and abs(a - b) <= tol, f"{what}: mlprof {a} vs raw {b} (tolerance {tol})")


def mlprof_json(*args):
    r = subprocess.run([MLPROF, *args, "--format", "json"], capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"mlprof {' '.join(args)} exited {r.returncode}: {r.stderr.strip()[:500]}")
        return {"tables": {}, "warnings": []}
    return json.loads(r.stdout)


def us(ps):
    return ps / 1e6


def attribution_checks(raw):
    # Issue 36, part 2: switchtransformers_a100_moe (4-batch file): every
    # launch's External id is its correlation id, so the GPU time goes by
    # time containment; aten::reshape launches nothing; the GPU op table's
    # addmm instances are the host table's.
    name = "switchtransformers_a100_moe/trace_128token_100Kpar_4exp_4batch_128seq.json"
    facts = raw[name]
    out = mlprof_json("ops", os.path.join(WILD, name), "--by-name", "--top", "0")
    rows = {r["op"]: r for r in out["tables"].get("ops", [])}
    check("aten::reshape" not in rows, "switchtransformers: aten::reshape owns no GPU time")
    check("aten::linear" not in rows, "switchtransformers: aten::linear owns no GPU time (addmm inside it does)")
    addmm = rows.get("aten::addmm", {})
    near(us(addmm.get("gpu", 0)), facts["repaired_aten_addmm"]["gpu_time_us"], 0.001, "switchtransformers addmm GPU time")
    check(addmm.get("calls") == facts["repaired_aten_addmm"]["calls"] == facts["host_aten_addmm_count"],
          f"switchtransformers addmm calls: GPU table {addmm.get('calls')}, raw owners "
          f"{facts['repaired_aten_addmm']['calls']}, host cpu_ops {facts['host_aten_addmm_count']}")
    for want in facts["repaired_top15"]:
        got = rows.get(want["name"], {})
        near(us(got.get("gpu", 0)), want["gpu_time_us"], 0.001, f"switchtransformers {want['name']} GPU time")
        check(got.get("calls") == want["calls"], f"switchtransformers {want['name']} calls {got.get('calls')} vs {want['calls']}")
    near(us(sum(r["gpu"] for r in rows.values())), facts["total_gpu_op_time_us"], 0.01, "switchtransformers GPU time")

    # DeepSeek's DualPipe trace: kernels launched under no cpu_op go to the
    # innermost user annotation around the launch.
    facts = raw["deepseek_h800_ep64_train"]
    out = mlprof_json("ops", os.path.join(WILD, "deepseek_h800_ep64_train"), "--by-name", "--top", "0")
    rows = out["tables"].get("ops", [])
    ann = {r["op"]: r for r in rows if r["kind"] == "user_annotation"}
    for want in facts["no_cpu_op_gpu_ops_by_user_annotation"]:
        got = ann.get(want["name"], {})
        near(us(got.get("gpu", 0)), want["gpu_time_us"], 0.001, f"deepseek annotation {want['name']}")
        check(got.get("gpu_ops") == want["gpu_ops"], f"deepseek annotation {want['name']} GPU ops")
    check(len(ann) == len(facts["no_cpu_op_gpu_ops_by_user_annotation"]), "deepseek: annotation rows")
    # The figures: combine(F) 34.7 ms, dispatch(B) 29.9 ms, mlp(W) 25.5 ms (kernels only).
    for want in facts["no_cpu_op_top10_user_annotation"][:2]:
        near(us(ann.get(want["name"], {}).get("gpu", 0)), want["gpu_time_us"], 0.001, f"deepseek {want['name']} kernels")
    check(not any(r["op"] == "(no cpu_op)" for r in rows), "deepseek: nothing left under (no cpu_op)")


def communication_checks(raw):
    # Issue 36, part 3: DeepEP's kernels (dispatch, combine, notify on stream
    # 27) are communication: comm time is theirs, and overlap is measured.
    facts = raw["deepseek_h800_ep64_train"]
    out = mlprof_json("summary", os.path.join(WILD, "deepseek_h800_ep64_train"))
    temporal = out["tables"].get("temporal", [{}])[0]
    deepep = sum(facts["deepep_time_by_stream_us"].values())
    near(us(temporal.get("comm", 0)), deepep, 0.001, "deepseek communication time = DeepEP kernels")
    overlap = out["tables"].get("overlap", [{}])[0]
    check(overlap.get("comp_comm_overlap_pct") is not None and overlap.get("comm", 0) > 0,
          "deepseek: overlap measured")
    # --comm-kernel declares more: every cutlass kernel, say.
    out = mlprof_json("summary", os.path.join(WILD, "deepseek_h800_ep64_train"), "--comm-kernel", "cutlass::")
    check(us(out["tables"].get("temporal", [{}])[0].get("comm", 0)) > deepep + 1000, "deepseek: --comm-kernel adds")


def steps_checks(raw):
    # Issue 36, part 4: param_resnet_kineto has no ProfilerStep#N but 30
    # Optimizer.step#SGD.step ranges: 29 iterations between their ends.
    facts = raw["param_resnet_kineto"]
    out = mlprof_json("steps", os.path.join(WILD, "param_resnet_kineto"))
    rows = out["tables"].get("steps", [])
    want = facts["optimizer_iterations_us"]
    check(len(rows) == len(want) == facts["optimizer_step_sgd_count"] - 1,
          f"resnet: {len(rows)} steps, raw {len(want)} iterations between {facts['optimizer_step_sgd_count']} ends")
    for row, w in zip(rows, want):
        near(us(row["wall"]), w, 0.001, f"resnet step {row['step']} wall")
    summary = out["tables"].get("steady_state", [{}])[0]
    check(summary.get("source") == "optimizer", f"resnet: steps from {summary.get('source')}")
    # The same steps for diagnose: per step, not per trace.
    out = mlprof_json("diagnose", os.path.join(WILD, "param_resnet_kineto"))
    findings = out["tables"].get("findings", [])
    check(findings and all("per trace" not in f["formula"] for f in findings), "resnet: diagnose per step")
    # No iterations at all (one training step of switchtransformers): per trace, said so.
    out = mlprof_json("diagnose", os.path.join(
        WILD, "switchtransformers_a100_moe/trace_128token_100Kpar_4exp_4batch_128seq.json"))
    findings = out["tables"].get("findings", [])
    check(findings and all("per step" not in f["formula"] for f in findings), "switchtransformers: diagnose per trace")


def grade_checks(raw):
    # Issue 36, part 1: zoology_a100_inference holds 236 cudaLaunchKernel
    # calls, 270 ac2g flow events and no GPU op: the grade says GPU activity
    # was lost, summary leads with it, diagnose states it first.
    facts = raw["zoology_a100_inference"]
    path = os.path.join(WILD, "zoology_a100_inference")
    info = mlprof_json("info", path)
    grade = {r["item"]: r for r in info["tables"].get("grade", [])}
    lost = grade.get("gpu_activity_lost", {})
    check(lost.get("severity") == "error", "zoology: gpu_activity_lost is an error")
    launches = facts["cudaLaunchKernel_count"] + sum(
        v for k, v in facts["cuda_runtime_names"].items() if k == "cudaMemcpyAsync") + sum(
        v for k, v in facts["cuda_driver_names"].items() if k == "cuLaunchKernel")
    check(lost.get("value") == launches, f"zoology: lost launches {lost.get('value')} vs raw {launches}")
    check(facts["gpu_event_count"] == 0, "zoology raw: no GPU events")
    notes = info["schema"]["grade"]["notes"]
    check(any(f"{facts['ac2g_total']} flow events with one end" in n for n in notes), "zoology: the flows counted")
    summary = mlprof_json("summary", path)
    check(list(summary["tables"].keys())[0] == "grade", "zoology: summary leads with the grade")
    findings = mlprof_json("diagnose", path)["tables"].get("findings", [])
    check(findings and findings[0]["rule"] == "gpu_activity_lost", "zoology: diagnose's first finding")
    # switchtransformers_a100_moe: two runs in one folder are not one job.
    out = subprocess.run([MLPROF, "summary", os.path.join(WILD, "switchtransformers_a100_moe"), "--format", "json"],
                         capture_output=True, text=True)
    check(any("not known to be one job" in w for w in json.loads(out.stdout)["warnings"]),
          "switchtransformers: the two traces are not one job")


def main():
    if not os.path.isdir(WILD):
        if os.environ.get("CI") == "true":
            print(f"FAIL: wild corpus missing under CI ({WILD})")
            return 1
        print(f"SKIPPED: wild corpus not found ({WILD}); these checks did not run")
        return 77
    raw = json.loads(subprocess.run([sys.executable, os.path.join(HERE, "wild", "raw_counts.py"), WILD],
                                    capture_output=True, text=True, check=True).stdout)
    attribution_checks(raw)
    communication_checks(raw)
    steps_checks(raw)
    grade_checks(raw)
    print(f"wild: {checks - len(failures)} of {checks} checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
