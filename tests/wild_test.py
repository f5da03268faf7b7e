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
import shutil
import subprocess
import sys
import tempfile

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
    # The GPU work before the first optimizer step's end is in no iteration: said.
    out_ops = facts["gpu_ops_outside_iterations"]
    note = json.dumps(out["schema"])
    want = f"{out_ops['count']} GPU ops ({out_ops['time_us'] / 1000:.3f} ms) were launched before the first step"
    check(want in note, f"resnet: steps note says '{want}'")
    # The same steps for diagnose: per step, not per trace.
    out = mlprof_json("diagnose", os.path.join(WILD, "param_resnet_kineto"))
    findings = out["tables"].get("findings", [])
    check(findings and all("per trace" not in f["formula"] for f in findings), "resnet: diagnose per step")
    # The same steps for overview: the plugin's widening applied to the 29
    # optimizer iterations (raw_counts.plugin_steps), per step its span and
    # kernel time (before, one host-ops span of 14.5 s).
    out = mlprof_json("overview", os.path.join(WILD, "param_resnet_kineto"))
    rows = out["tables"].get("overview_steps", [])
    want = facts["overview_steps"]
    check(len(rows) == len(want), f"resnet: overview {len(rows)} steps, raw {len(want)}")
    for row, w in zip(rows, want):
        near(us(row["total"]), w["total_us"], 0.001, f"resnet overview step {row['step']} total")
        near(us(row["kernel"]), w["kernel_us"], 0.001, f"resnet overview step {row['step']} kernel")
    check("the steps are Optimizer.step ranges" in json.dumps(out.get("schema", {})),
          "resnet: overview names its steps' source")
    # critical-path measures the same steps (the last 8 of them).
    out = mlprof_json("critical-path", os.path.join(WILD, "param_resnet_kineto"))
    rows = out["tables"].get("critical_path", [])
    spans = [w for w in facts["optimizer_iterations_us"]][-8:]
    check([r["window"] for r in rows] == [f"optimizer step {k}" for k in range(21, 29)],
          f"resnet: critical-path windows {[r['window'] for r in rows]}")
    for row, w in zip(rows, spans):
        near(us(row["span"]), w, 0.001, f"resnet critical-path {row['window']} span")
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
    # ... and so does the report's summary.txt, then the findings by rule.
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([MLPROF, "report", os.path.join(WILD, "zoology_a100_inference"), "-o", d, "--force",
                        "--no-xlsx"], capture_output=True, text=True)
        text = open(os.path.join(d, "summary.txt")).read() if os.path.exists(os.path.join(d, "summary.txt")) else ""
    check(text.startswith("Before the numbers") and "gpu_activity_lost  error" in text and
          "\nrule " in text, "zoology: summary.txt leads with the grade, then the findings")
    findings = mlprof_json("diagnose", path)["tables"].get("findings", [])
    check(findings and findings[0]["rule"] == "gpu_activity_lost", "zoology: diagnose's first finding")
    # switchtransformers_a100_moe: two runs in one folder are not one job.
    out = subprocess.run([MLPROF, "summary", os.path.join(WILD, "switchtransformers_a100_moe"), "--format", "json"],
                         capture_output=True, text=True)
    check(any("not known to be one job" in w for w in json.loads(out.stdout)["warnings"]),
          "switchtransformers: the two traces are not one job")


def rocprof_checks(raw):
    # Issue 36, part A: rocprof's --hip-trace JSON (processes GPU<n>, COPY,
    # CPU HIP API; string ts/dur; no categories) is device work, not a
    # host-only profile: the kernel and the 6 copies at their exact
    # (BeginNs/EndNs) times, on device 2's stream 1, each linked to its HIP
    # call by its DataFlow flow.
    facts = raw["rocprof_mi210_hip_trace"]
    folder = os.path.join(WILD, "rocprof_mi210_hip_trace")
    out = mlprof_json("summary", folder)
    temporal = out["tables"].get("temporal", [{}])[0]
    near(us(temporal.get("compute", 0)), facts["kernel_durationns_us"], 0.0005, "rocprof kernel time (compute)")
    near(us(temporal.get("memory", 0)), facts["copy_time_durationns_us"], 0.0005, "rocprof copy time (memory)")
    check(not any("no GPU work" in w for w in out.get("warnings", [])), "rocprof: no unread-device-lanes warning")
    out = mlprof_json("kernels", folder)
    rows = out["tables"].get("kernels", [])
    kern = [r for r in rows if r["class"] == "COMPUTATION"]
    check(len(kern) == 1 and kern[0]["name"] == facts["kernels"][0]["name"] and kern[0]["count"] == facts["kernel_count"],
          f"rocprof kernels: {kern}")
    if kern:
        near(us(kern[0]["sum"]), facts["kernel_durationns_us"], 0.0005, "rocprof kernel sum")
    for name, want in facts["copy_by_name"].items():
        got = [r for r in rows if r["name"].endswith(f"({name})")]
        check(len(got) == 1 and got[0]["count"] == want["count"], f"rocprof {name}: {got} vs {want}")
        if got:
            near(us(got[0]["sum"]), want["durationns_us"], 0.0005, f"rocprof {name} time")
    check(sum(r["count"] for r in rows) == facts["kernel_count"] + facts["copy_count"], "rocprof: 1 kernel + 6 copies")
    out = mlprof_json("engines", folder)
    streams = [r for r in out["tables"].get("engines", []) if r["engine"].startswith("GPU ")]
    want_streams = [f"GPU {d} stream {s}" for d, s in facts["gpu_streams"]]
    check([r["engine"] for r in streams] == want_streams, f"rocprof streams {[r['engine'] for r in streams]} vs {want_streams}")
    if streams:
        near(us(streams[0]["busy"]), facts["gpu_union_durationns_us"], 0.0005, "rocprof GPU busy (union)")
        check(streams[0]["ops"] == facts["kernel_count"] + facts["copy_count"], "rocprof stream ops")
        check(streams[0]["bytes"] == sum(c["bytes_from_calls"] for c in facts["copy_by_name"].values()),
              f"rocprof copy bytes {streams[0]['bytes']} (from the calls' sizeBytes)")
    host = [r for r in out["tables"].get("engines", []) if r["engine"] == "thread 517"]
    check(len(host) == 1, "rocprof: the HIP API thread")
    out = mlprof_json("info", folder)
    files = out["tables"].get("files", [{}])[0]
    tracks = out["tables"].get("tracks", [{}])[0]
    check(files.get("format") == "rocprof-json", f"rocprof format {files.get('format')}")
    check(tracks.get("gpus") == len(facts["gpu_devices"]) and tracks.get("gpu_streams") == len(facts["gpu_streams"]),
          f"rocprof gpus/streams {tracks}")
    out = mlprof_json("launches", folder)
    launches = out["tables"].get("launches", [{}])[0]
    check(launches.get("launches") == facts["dataflow_pairs_to_gpu_op_with_call"] and launches.get("unlinked") == 0,
          f"rocprof launches {launches} vs {facts['dataflow_pairs']} flows")


def nsys_checks(raw):
    # Issue 36, part B: the export's 2 synchronization records (5580 us on
    # device 0) are host waits: not busy time, no device of their own, no
    # device time in `ops`; the NVTX ranges' device self time sums to the GPU
    # time launched inside them, each range's to the GPU time launched
    # directly under it.
    facts = raw["nsys_memfusion_trt_rtx3090"]
    folder = os.path.join(WILD, "nsys_memfusion_trt_rtx3090")
    out = mlprof_json("engines", folder)
    rows = out["tables"].get("engines", [])
    streams = [r for r in rows if r["engine"].startswith("GPU ")]
    check(len(streams) == 1, f"nsys: one GPU stream, {[r['engine'] for r in streams]}")
    for r in streams + [r for r in rows if r["engine"] == "all devices"]:
        near(us(r["busy"]), facts["gpu_work_union_us"], 0.0005, f"nsys {r['engine']} busy = kernels + copies")
        check(r["ops"] == facts["kernel_count"] + facts["memcpy_count"], f"nsys {r['engine']} ops {r['ops']}")
    out = mlprof_json("summary", folder)
    temporal = out["tables"].get("temporal", [{}])[0]
    near(us(temporal.get("compute", 0)), facts["kernel_time_sum_us"], 0.0005, "nsys compute = kernels")
    near(us(temporal.get("non_compute", 0)), facts["memcpy_time_sum_us"], 0.0005, "nsys non-compute = copies only")
    out = mlprof_json("info", folder)
    tracks = out["tables"].get("tracks", [{}])[0]
    check(tracks.get("gpus") == len(facts["kernel_devices"]), f"nsys gpus {tracks.get('gpus')}")
    gpu_ops = sum(r["ops"] for r in out["tables"].get("track_ops", []) if r["kind"] == "gpu stream")
    check(gpu_ops == facts["kernel_count"] + facts["memcpy_count"], f"nsys GPU ops {gpu_ops} (sync records are not)")
    sync = [r for r in out["tables"].get("track_ops", []) if r["thread"] == "CUDA synchronization"]
    check(len(sync) == 1 and sync[0]["ops"] == facts["sync_count"] and sync[0]["kind"].startswith("host"),
          f"nsys sync records on a host track: {sync}")
    out = mlprof_json("ops", folder, "--top", "0")
    host = out["tables"].get("host_ops", [])
    near(us(sum(r["device_self"] for r in host)), facts["gpu_time_in_nvtx_us"], 0.0005,
         "nsys ops: device_self sums to the GPU time inside NVTX ranges")
    by_range = {r["op"]: r for r in host if r["kind"] == "user_annotation"}
    for name, t in facts["gpu_time_in_nvtx_by_innermost_range_us"].items():
        near(us(by_range.get(name, {}).get("device_self", 0)), t, 0.0005, f"nsys range {name} device_self")
    # A folder of exports, one per rank: a job (the file records no rank:
    # numbered in file order, with a note).
    tmp = tempfile.mkdtemp(prefix="mlprof_nsys_job_")
    try:
        for k in range(2):
            shutil.copy(os.path.join(folder, "report1.sqlite"), os.path.join(tmp, f"report.{k}.sqlite"))
        out = mlprof_json("summary", tmp)
        ranks = [r["rank"] for r in out["tables"].get("ranks", [])]
        check(ranks == [0, 1], f"nsys folder of 2 exports: ranks {ranks}")
        check(any("numbered in file order" in w for w in out.get("warnings", [])), "nsys folder: file-order note")
        comp = [r.get("compute") for r in out["tables"].get("temporal", [])]
        check(len(comp) == 2 and all(c is not None and abs(us(c) - facts["kernel_time_sum_us"]) < 0.0005 for c in comp),
              f"nsys folder: each rank's compute {comp}")
    finally:
        shutil.rmtree(tmp)


def collective_checks(raw):
    # Issue 36, part 3: param_dlrm_kineto's SendRecv kernels under
    # nccl:all_to_all are all-to-alls; the first: start skew 7,624 us, end
    # skew 2 us, rank 7 last (the raw arrivals); diagnose's advice names the
    # wait and the late rank, and 'overlap' only the transfer.
    facts = raw["param_dlrm_kineto"]
    out = mlprof_json("collectives", os.path.join(WILD, "param_dlrm_kineto"))
    inst = [r for r in out["tables"].get("collective_instances", []) if r["kind"] == "all-to-all"]
    check(bool(inst), "dlrm: all-to-all instances")
    if inst:
        first = inst[0]
        near(us(first["skew_start"]), facts["first_all_to_all_start_skew_us"], 0.001, "dlrm all-to-all #0 start skew")
        near(us(first["skew_end"]), facts["first_all_to_all_end_skew_us"], 0.001, "dlrm all-to-all #0 end skew")
        check(first["last_rank"] == facts["first_all_to_all_last_start_rank"], "dlrm all-to-all #0 last rank")
    findings = mlprof_json("diagnose", os.path.join(WILD, "param_dlrm_kineto"))["tables"].get("findings", [])
    strag = [f for f in findings if f["rule"] == "stragglers"]
    check(strag and strag[0]["subject"] == f"rank {facts['first_all_to_all_last_start_rank']}",
          f"dlrm: stragglers names rank 7: {[f['subject'] for f in strag]}")
    exposed1 = [f for f in findings if f["rule"] == "exposed_communication" and f["rank"] == 1]
    check(not exposed1 or exposed1[0]["saving"] < 1e9, "dlrm: rank 1 is not told to overlap its wait")
    # Dropped, it is still accounted for: a note splits rank 1's exposed NCCL
    # time (the raw count over its one steady step) into the wait for rank 7
    # and the transfer, which sum to it.
    r = subprocess.run([MLPROF, "diagnose", os.path.join(WILD, "param_dlrm_kineto")], capture_output=True, text=True)
    text = " ".join(r.stdout.split())
    want = f"Rank 1: its exposed communication, {facts['rank1_nccl_exposed_us'] / 1000:.3f} ms per step, is "
    at = text.find(want)
    check(at >= 0, f"dlrm: diagnose notes '{want}'")
    if at >= 0:
        import re
        m = re.match(r"([\d.]+) ms waiting for the last rank to arrive \(mostly rank (\d+): stragglers\) and ([\d.]+) ms "
                     r"transfer", text[at + len(want):])
        check(m and abs(float(m.group(1)) + float(m.group(3)) - facts["rank1_nccl_exposed_us"] / 1000) < 0.002
              and int(m.group(2)) == facts["first_all_to_all_last_start_rank"],
              f"dlrm: rank 1's wait + transfer = its exposed time, waiting on rank 7: {text[at:at + 200]}")


def advice_checks(raw):
    # Issue 36, part 5: advice the data supports. switchtransformers' matmuls
    # are SIMT fp32 (sgemm, 94.6 % of kernel time on an A100); one
    # cudaLaunchKernel takes 497 ms of the 691 ms all 494 take (lazy module
    # loading); param_resnet copies from pageable memory.
    name = "switchtransformers_a100_moe/trace_128token_100Kpar_4exp_4batch_128seq.json"
    facts = raw[name]
    findings = {f["rule"]: f for f in mlprof_json("diagnose", os.path.join(WILD, name))["tables"].get("findings", [])}
    fp32 = findings.get("fp32_matmul", {})
    check(f"run {facts['sgemm_kernel_time_us'] / 1000:.3f} ms in the trace ({facts['sgemm_share_pct']:.1f} %" in fp32.get("evidence", ""),
          f"switchtransformers: fp32_matmul evidence {fp32.get('evidence')}")
    # The saving: sgemm time x (1 - 19.5/156), the A100's fp32 and tf32 peaks.
    near(us(fp32.get("saving", 0)), facts["sgemm_kernel_time_us"] * (1 - 19.5 / 156), 0.5, "switchtransformers fp32 saving")
    slow = findings.get("slow_host_call", {})
    check(f"took {facts['cudaLaunchKernel_max_dur_us'] / 1000:.3f} ms" in slow.get("evidence", "") and
          f"its {facts['cudaLaunchKernel_count']} calls" in slow.get("evidence", "") and
          f"(all of them: {facts['cudaLaunchKernel_total_dur_us'] / 1000:.3f} ms)" in slow.get("evidence", ""),
          f"switchtransformers: slow_host_call evidence {slow.get('evidence')}")
    facts = raw["param_resnet_kineto"]["pageable_htod_in_iterations"]
    findings = mlprof_json("diagnose", os.path.join(WILD, "param_resnet_kineto"), "--warmup", "0")["tables"]
    pg = [f for f in findings.get("findings", []) if f["rule"] == "pageable_copies"]
    want = (f"{facts['count']} host-to-device copies from pageable memory: {facts['time_us'] / 1000:.3f} ms, "
            f"{facts['bytes'] / 1e9:.3f} GB")
    check(pg and pg[0]["evidence"].startswith(want), f"resnet: pageable_copies {pg[0]['evidence'] if pg else None} vs {want}")
    # Its GPU idles while the DataLoader loads (no ProfilerStep: the steps are
    # the optimizer's): input_pipeline says so.
    dl = raw["param_resnet_kineto"]["dataloader_in_iterations"]
    ip = [f for f in findings.get("findings", []) if f["rule"] == "input_pipeline"]
    want = (f"{dl['calls']} DataLoader __next__ calls (the longest {dl['longest_us'] / 1000:.3f} ms) run while no GPU "
            f"op does for {dl['gpu_idle_us'] / 1000:.3f} ms")
    check(ip and ip[0]["evidence"].startswith(want), f"resnet: input_pipeline {ip[0]['evidence'] if ip else None} vs {want}")


def misleads_checks(raw):
    # Issue 36, part 5, "correct what misleads", on deepseek_h800_ep64_train.
    facts = raw["deepseek_h800_ep64_train"]
    folder = os.path.join(WILD, "deepseek_h800_ep64_train")
    # layers: DualPipe runs backward chunks outside the autograd engine; no
    # forward / backward split, and the reason names the chunks' GPU time.
    out = mlprof_json("layers", folder)
    phases = out["tables"].get("phases", [{}])[0]
    check(phases.get("forward") is None and phases.get("backward_per_forward_pct") is None,
          f"deepseek: no forward/backward split shown: {phases}")
    chunks = facts["backward_chunk_gpu_time_us"]
    near(us(phases.get("backward_outside_engine", 0)), sum(chunks.values()), 0.001, "deepseek backward chunks")
    text = subprocess.run([MLPROF, "layers", folder], capture_output=True, text=True).stdout
    for name, t in chunks.items():
        check(f"{name} {t / 1000:.3f} ms" in " ".join(text.split()), f"deepseek: layers note names {name} {t} us")
    # launches: 961 delays over 100 us, 924 of them queued behind the stream.
    row = mlprof_json("launches", folder)["tables"].get("launches", [{}])[0]
    check(row.get("launches") == facts["launches_with_gpu_op"], f"deepseek launches {row.get('launches')}")
    check(row.get("delayed") == facts["launches_delayed_over_100us"], f"deepseek delayed {row.get('delayed')}")
    check(row.get("queued") == facts["launches_delayed_queued"], f"deepseek queued {row.get('queued')}")
    check(row.get("late") == facts["launches_delayed_over_100us"] - facts["launches_delayed_queued"], "deepseek late")
    # overview: FP8 GEMMs and FlashAttention 3 count as tensor-core work.
    gpu = mlprof_json("overview", folder)["tables"].get("gpu_summary", [{}])[0]
    share = 100 * facts["fp8_gemm_and_flash_kernel_time_us"] / facts["total_kernel_time_us"]
    check(gpu.get("tensor_cores_ext", 0) >= share - 0.5 and gpu.get("tensor_cores", 100) < 1,
          f"deepseek tensor cores: plugin {gpu.get('tensor_cores')} %, ext {gpu.get('tensor_cores_ext')} % vs raw "
          f"FP8 GEMM + FlashAttention {share:.1f} %")
    # roofline: switchtransformers' matmuls are fp32: the header is fp32's.
    name = "switchtransformers_a100_moe/trace_128token_100Kpar_4exp_4batch_128seq.json"
    head = mlprof_json("roofline", os.path.join(WILD, name))["tables"].get("roofline_summary", [{}])[0]
    check(head.get("dtype") == "fp32" and abs(head.get("peak", 0) - 19.5e12) < 1e9,
          f"switchtransformers roofline header {head.get('dtype')} {head.get('peak')}")


def review_checks(raw):
    # What a user's review of the wild outputs found (issue 36, part 5).
    # switchtransformers' 8-batch trace is one inference forward: its ten
    # SwitchTransformerBlock calls repeat inside one forward frame and are no
    # iterations.
    out = mlprof_json("steps", os.path.join(WILD, "switchtransformers_a100_moe",
                                            "trace_100Kpar_4exp_8batch_128seq_1024.json"))
    rows = out["tables"].get("steps", [])
    check(len(rows) == 1, f"switchtransformers 8batch: {len(rows)} steps, not its blocks")
    # DLRM on a V100 (no bf16): the roofline runs, held to each op's dtype.
    out = mlprof_json("roofline", os.path.join(WILD, "param_dlrm_kineto"), "--rank", "0")
    head = out["tables"].get("roofline_summary", [{}])[0]
    check(head.get("chip") == "v100-sxm2-32gb" and head.get("dtype") == "fp32", f"dlrm roofline {head}")
    # DeepSeek: collectives says DeepEP's communication is there, unmatched.
    facts = raw["deepseek_h800_ep64_train"]
    text = " ".join(subprocess.run([MLPROF, "collectives", os.path.join(WILD, "deepseek_h800_ep64_train")],
                                   capture_output=True, text=True).stdout.split())
    want = f"DeepEP ({facts['deepep_kernel_count']} kernels, {facts['deepep_time_by_stream_us']['27'] / 1000:.3f} ms)"
    check(want in text, f"deepseek collectives names {want}")


def recorded_checks():
    # A two-rank CPU DDP run with gloo (tests/data/torch_ddp, recorded with
    # Debian's torch 1.13): gloo's collectives are host ops that the
    # collective tables cannot match; the note must count them as the file has them.
    d = os.path.join(HERE, "data", "torch_ddp")
    n, t = 0, 0.0
    for f in ("rank0.json", "rank1.json"):
        with open(os.path.join(d, f)) as fh:
            for e in json.load(fh):
                if e.get("name", "").startswith("gloo:"):
                    n, t = n + 1, t + e["dur"]
    r = subprocess.run([MLPROF, "collectives", d], capture_output=True, text=True)
    want = f"{n} gloo ops on 2 ranks ({t / 1000:.3f} ms)"
    check(r.returncode == 0 and want in " ".join(r.stdout.split()), f"ddp_gloo: collectives note says {want}")
    check("not known to be one job" in r.stderr, "ddp_gloo: two traces without distributedInfo are said so")
    # diagnose says it did not check them: per rank, the gloo ops inside the
    # steady steps (ProfilerStep#2..#3: #1 is the warm-up, #4 the last) and
    # their time clipped to them.
    r = subprocess.run([MLPROF, "diagnose", d], capture_output=True, text=True)
    text = " ".join(r.stdout.split())
    for rank in (0, 1):
        with open(os.path.join(d, f"rank{rank}.json")) as fh:
            evs = json.load(fh)
        step = {e["name"]: (e["ts"], e["ts"] + e["dur"]) for e in evs if e["name"].startswith("ProfilerStep#")}
        w0, w1 = step["ProfilerStep#2"][0], step["ProfilerStep#3"][1]
        g = [(max(e["ts"], w0), min(e["ts"] + e["dur"], w1)) for e in evs
             if e["name"].startswith("gloo:") and e["ts"] + e["dur"] > w0 and e["ts"] < w1]
        want = (f"Rank {rank}: not checked: {len(g)} gloo collectives run on host threads for "
                f"{sum(b - a for a, b in g) / 1000:.3f} ms of the {(w1 - w0) / 1000:.3f} ms analysed")
        check(want in text, f"ddp_gloo: diagnose says '{want}'")


def main():
    recorded_checks()
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
    collective_checks(raw)
    advice_checks(raw)
    misleads_checks(raw)
    review_checks(raw)
    rocprof_checks(raw)
    nsys_checks(raw)
    print(f"wild: {checks - len(failures)} of {checks} checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
