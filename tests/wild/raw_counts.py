#!/usr/bin/env python3
"""Independent counts over the raw "wild" profiles (tests/wild/README.md).

Usage: python3 tests/wild/raw_counts.py CORPUS_WILD_DIR  > counts.json

Prints ONE JSON object {case_name: {fact: value, ...}, ...}.  Only the Python 3
standard library is used (json, gzip, sqlite3, collections, re); nothing here
imports or shells out to mlprof, so the numbers are an independent reference.

Conventions
  * Times are microseconds, floats rounded to 3 decimals; counts are ints.
  * "contains" (host event A contains host event B) means: same (pid, tid),
    A.ts <= B.ts and B.ts + B.dur <= A.ts + A.dur  (closed interval, inclusive).
  * "innermost" = the containing event with the shortest dur (ties: later ts).
  * A GPU op's "launch" is the cuda_runtime / cuda_driver event whose
    args.correlation equals the GPU op's args.correlation.
"""

import collections
import gzip
import json
import os
import re
import sqlite3
import sys

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
LAUNCH_CATS = ("cuda_runtime", "cuda_driver")


# --------------------------------------------------------------------------
# generic helpers
# --------------------------------------------------------------------------

def r3(x):
    """Round a time (us) to 3 decimals, as a float."""
    return round(float(x), 3)


def pct(part, whole):
    """Percentage part/whole rounded to 3 decimals (None if whole is 0)."""
    return round(100.0 * part / whole, 3) if whole else None


def load_trace(path):
    """Load a Chrome-trace JSON (optionally .gz).

    Rule: plain json.loads first.  If that fails (truncation or trailing
    garbage), fall back to (1) raw_decode of the leading object, ignoring
    trailing bytes, then (2) decoding "traceEvents" element by element and
    keeping every complete event before the damage.  Returns (trace, note);
    note says what was done, so a repaired load is never silent.
    """
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        text = f.read()
    try:
        return json.loads(text), "ok"
    except json.JSONDecodeError as err:
        first_err = str(err)
    dec = json.JSONDecoder()
    start = text.find("{")
    try:
        obj, end = dec.raw_decode(text, start)
        return obj, "trailing garbage ignored (%d bytes): %s" % (len(text) - end, first_err)
    except json.JSONDecodeError:
        pass
    key = text.find('"traceEvents"')
    pos = text.find("[", key) + 1
    events = []
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            break
        try:
            ev, pos = dec.raw_decode(text, pos)
        except json.JSONDecodeError:
            break
        events.append(ev)
    return ({"traceEvents": events},
            "truncated: kept %d complete events, dropped %d bytes (%s)"
            % (len(events), len(text) - pos, first_err))


def num(v, default=0.0):
    """ts/dur may be ints, floats or (rocprof) strings."""
    if v is None or v == "":
        return default
    return float(v)


def events(trace, cats=None, ph="X"):
    """Events with the given ph (default complete 'X') and category set."""
    out = []
    for e in trace.get("traceEvents", []):
        if not isinstance(e, dict) or e.get("ph") != ph:
            continue
        if cats is None or e.get("cat") in cats:
            out.append(e)
    return out


def t0(e):
    return num(e.get("ts"))


def t1(e):
    return num(e.get("ts")) + num(e.get("dur"))


def thread_of(e):
    return (e.get("pid"), e.get("tid"))


def by_thread(evs):
    """(pid, tid) -> list of events, for containment lookups."""
    d = collections.defaultdict(list)
    for e in evs:
        d[thread_of(e)].append(e)
    return d


def contains(outer, inner):
    """outer contains inner in time (thread equality is checked by caller)."""
    return t0(outer) <= t0(inner) and t1(inner) <= t1(outer)


def innermost(candidates, inner):
    """Shortest candidate containing `inner` in time (ties: later start)."""
    best = None
    for c in candidates:
        if contains(c, inner):
            if best is None or (num(c.get("dur")), -t0(c)) < (num(best.get("dur")), -t0(best)):
                best = c
    return best


def launch_map(trace):
    """args.correlation -> launch event (cuda_runtime / cuda_driver)."""
    m = {}
    for e in events(trace, LAUNCH_CATS):
        c = (e.get("args") or {}).get("correlation")
        if c is not None and c not in m:
            m[c] = e
    return m


def launch_of(gpu_ev, launches):
    return launches.get((gpu_ev.get("args") or {}).get("correlation"))


def ext_id(e):
    return (e.get("args") or {}).get("External id")


def union_length(intervals):
    """Length of the union of [start, end) intervals."""
    total, cur_s, cur_e = 0.0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def merged(intervals):
    """Sorted, merged list of intervals."""
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def overlap_with(merged_list, s, e):
    """Length of [s, e) covered by an already merged interval list."""
    cov = 0.0
    for a, b in merged_list:
        if b <= s:
            continue
        if a >= e:
            break
        cov += min(b, e) - max(a, s)
    return cov


def sum_dur(evs):
    return sum(num(e.get("dur")) for e in evs)


# --------------------------------------------------------------------------
# 1. zoology_a100_inference
# --------------------------------------------------------------------------

def zoology(path):
    trace, note = load_trace(path)
    rt = events(trace, ("cuda_runtime",))
    flows = [e for e in trace["traceEvents"] if isinstance(e, dict) and e.get("cat") == "ac2g"]
    return {
        "load": note,
        # rule: X events of cat cuda_runtime named exactly cudaLaunchKernel
        "cudaLaunchKernel_count": sum(1 for e in rt if e.get("name") == "cudaLaunchKernel"),
        # rule: events with cat "ac2g", split by ph ('s' start, 'f' end)
        "ac2g_s_count": sum(1 for e in flows if e.get("ph") == "s"),
        "ac2g_f_count": sum(1 for e in flows if e.get("ph") == "f"),
        "ac2g_total": len(flows),
        # rule: flow ids that occur both as an 's' and as an 'f' (complete arrows)
        "ac2g_paired_ids": len({e.get("id") for e in flows if e.get("ph") == "s"}
                               & {e.get("id") for e in flows if e.get("ph") == "f"}),
        # rule: X events of cat kernel / gpu_memcpy / gpu_memset
        "gpu_event_count": len(events(trace, GPU_CATS)),
        # rule: name -> count over X events of cat cuda_runtime
        "cuda_runtime_names": dict(collections.Counter(e.get("name") for e in rt).most_common()),
        # rule: same, for cat cuda_driver
        "cuda_driver_names": dict(collections.Counter(
            e.get("name") for e in events(trace, ("cuda_driver",))).most_common()),
    }


# --------------------------------------------------------------------------
# 2. rocprof_mi210_hip_trace
# --------------------------------------------------------------------------

def rocprof(path):
    trace, note = load_trace(path)
    evs = trace["traceEvents"]
    # rule: ph M, name process_name -> args.name, keyed by pid (as string)
    pname = {str(e.get("pid")): e["args"]["name"] for e in evs
             if isinstance(e, dict) and e.get("ph") == "M" and e.get("name") == "process_name"}
    xs = events(trace)
    per_proc = {}
    for pid, name in sorted(pname.items(), key=lambda kv: kv[1]):
        mine = [e for e in xs if str(e.get("pid")) == pid]
        per_proc[name] = {
            "pid": pid,
            "x_count": len(mine),
            # rule: sum of int(dur) strings (us, as written by rocprof)
            "dur_sum_us": r3(sum_dur(mine)),
            # rule: sum of args.DurationNs / 1000 (ns precision)
            "durationns_sum_us": r3(sum(num(e["args"].get("DurationNs")) for e in mine
                                        if "DurationNs" in (e.get("args") or {})) / 1000.0),
        }
    # rule: kernels = X events in a process named GPU<n>; copies = X events in process COPY
    gpu_pids = {p for p, n in pname.items() if re.fullmatch(r"GPU\d+", n)}
    copy_pids = {p for p, n in pname.items() if n == "COPY"}
    kernels = [e for e in xs if str(e.get("pid")) in gpu_pids]
    copies = [e for e in xs if str(e.get("pid")) in copy_pids]
    ns = lambda e, k: int(e["args"][k])  # BeginNs / EndNs / DurationNs: exact ns, as strings
    # rule: flows (cat DataFlow) with an 's' and a 't' of one id; the 's' binds
    # to the innermost X event on its (pid, tid) whose [ts, ts + dur] (us, as
    # written) holds it; the 't' to the GPU/COPY event on its (pid, tid) whose
    # ts (us, as written) equals the flow's ts
    flows = collections.defaultdict(dict)
    for e in evs:
        if isinstance(e, dict) and e.get("cat") == "DataFlow" and e.get("ph") in ("s", "t"):
            flows[e["id"]][e["ph"]] = e
    by_thr = collections.defaultdict(list)
    for e in xs:
        by_thr[(str(e.get("pid")), str(e.get("tid")))].append(e)
    pairs = []
    for fid, f in sorted(flows.items()):
        if "s" not in f or "t" not in f:
            continue
        s_, t_ = f["s"], f["t"]
        call = innermost(by_thr[(str(s_["pid"]), str(s_["tid"]))], {"ts": s_["ts"], "dur": 0})
        ops = [e for e in by_thr[(str(t_["pid"]), str(t_["tid"]))] if num(e["ts"]) == num(t_["ts"])]
        pairs.append((call, ops[0] if len(ops) == 1 else None))

    def size_bytes(call):
        # rule: the N of "sizeBytes(N)" in the call's args.args text, else None
        m = re.search(r"sizeBytes\((\d+)\)", (call or {}).get("args", {}).get("args", "")) if call else None
        return int(m.group(1)) if m else None

    copy_by_name = {}
    for name in sorted({e["name"] for e in copies}):
        mine = [e for e in copies if e["name"] == name]
        sizes = [size_bytes(c) for c, op in pairs if op is not None and op in mine]
        copy_by_name[name] = {"count": len(mine),
                              "durationns_us": r3(sum(ns(e, "DurationNs") for e in mine) / 1000.0),
                              "bytes_from_calls": sum(x for x in sizes if x is not None)}
    return {
        "load": note,
        "process_names": {p: n for p, n in sorted(pname.items())},
        "per_process": per_proc,
        "kernels": [{"name": e["name"], "gpu_process": pname[str(e["pid"])],
                     "dev_id": e["args"].get("dev-id"), "ts": r3(t0(e)), "dur": r3(num(e["dur"]))}
                    for e in kernels],
        "kernel_count": len(kernels),
        "kernel_time_us": r3(sum_dur(kernels)),
        "copy_count": len(copies),
        "copy_names": dict(collections.Counter(e["name"] for e in copies)),
        "copy_time_us": r3(sum_dur(copies)),
        "copy_time_durationns_us": r3(sum(num(e["args"]["DurationNs"]) for e in copies) / 1000.0),
        "copy_max_us": r3(max((num(e["dur"]) for e in copies), default=0)),
        "empty_events": sum(1 for e in evs if isinstance(e, dict) and not e),
        # rule: exact times (args BeginNs/EndNs/DurationNs, ns) of the kernels and copies
        "kernel_durationns_us": r3(sum(ns(e, "DurationNs") for e in kernels) / 1000.0),
        "kernel_begin_ns": [ns(e, "BeginNs") for e in kernels],
        "copy_by_name": copy_by_name,
        "gpu_union_durationns_us": r3(union_length([(ns(e, "BeginNs"), ns(e, "EndNs"))
                                                    for e in kernels + copies]) / 1000.0),
        "gpu_devices": sorted({e["args"].get("dev-id") for e in kernels + copies}),
        "gpu_streams": sorted({(e["args"].get("dev-id"), e["args"].get("stream-id")) for e in kernels + copies}),
        "hip_api_durationns_us": r3(sum(ns(e, "DurationNs") for e in xs if pname.get(str(e.get("pid"))) == "CPU HIP API")
                                    / 1000.0),
        "dataflow_pairs": len(pairs),
        "dataflow_pairs_to_gpu_op_with_call": sum(1 for c, op in pairs if c is not None and op is not None),
        "launch_call_names": dict(collections.Counter(c["name"] for c, op in pairs if c is not None)),
    }


# --------------------------------------------------------------------------
# 3. switchtransformers_a100_moe (per file)
# --------------------------------------------------------------------------

def ext_id_mismatch(kernels, launches, cpu_by_ext):
    """Rule: classify each kernel by its launch's args['External id']:
       no_launch        - no cuda_runtime/driver event with the same correlation
       ext_unmatched    - launch's External id equals NO cpu_op's External id
       ext_not_containing - some cpu_op has that id, but none of them contains
                          the launch in time on the launch's (pid, tid)
       ext_ok           - a cpu_op with that id contains the launch.
       Returns time (us) and count per class."""
    t = collections.Counter()
    n = collections.Counter()
    for k in kernels:
        l = launch_of(k, launches)
        if l is None:
            cls = "no_launch"
        else:
            cands = cpu_by_ext.get(ext_id(l), [])
            if not cands:
                cls = "ext_unmatched"
            elif any(thread_of(c) == thread_of(l) and contains(c, l) for c in cands):
                cls = "ext_ok"
            else:
                cls = "ext_not_containing"
        t[cls] += num(k.get("dur"))
        n[cls] += 1
    return {c: {"time_us": r3(t[c]), "count": n[c]}
            for c in ("ext_ok", "ext_unmatched", "ext_not_containing", "no_launch")}


def repaired_owner(gpu_ev, launches, cpu_by_ext, cpu_by_thr, ann_by_thr):
    """Rule (repaired attribution) for one kernel/memcpy/memset:
       1. cpu_op with External id == launch's External id AND containing the
          launch on the launch's thread (innermost if several);
       2. else innermost cpu_op containing the launch on that thread;
       3. else innermost user_annotation containing the launch on that thread;
       4. else None ("(no cpu_op)").  Returns (owner_event_or_None, rule_no)."""
    l = launch_of(gpu_ev, launches)
    if l is None:
        return None, 4
    same = [c for c in cpu_by_ext.get(ext_id(l), []) if thread_of(c) == thread_of(l)]
    o = innermost(same, l)
    if o is not None:
        return o, 1
    o = innermost(cpu_by_thr.get(thread_of(l), []), l)
    if o is not None:
        return o, 2
    o = innermost(ann_by_thr.get(thread_of(l), []), l)
    if o is not None:
        return o, 3
    return None, 4


def switch(path):
    trace, note = load_trace(path)
    kernels = events(trace, ("kernel",))
    gpu_ops = events(trace, GPU_CATS)
    cpu_ops = events(trace, ("cpu_op",))
    anns = events(trace, ("user_annotation",))
    launches = launch_map(trace)
    cpu_by_ext = collections.defaultdict(list)
    for c in cpu_ops:
        cpu_by_ext[ext_id(c)].append(c)
    cpu_by_thr, ann_by_thr = by_thread(cpu_ops), by_thread(anns)

    total_kernel = sum_dur(kernels)

    # repaired attribution: owner name -> GPU time and distinct owner instances
    own_t = collections.Counter()
    own_inst = collections.defaultdict(set)
    rule_t = collections.Counter()
    for g in gpu_ops:
        o, rule = repaired_owner(g, launches, cpu_by_ext, cpu_by_thr, ann_by_thr)
        name = o["name"] if o is not None else "(no cpu_op)"
        own_t[name] += num(g.get("dur"))
        own_inst[name].add(id(o))
        rule_t[rule] += num(g.get("dur"))
    top = [{"name": n, "gpu_time_us": r3(t), "calls": len(own_inst[n])}
           for n, t in sorted(own_t.items(), key=lambda kv: (-kv[1], kv[0]))[:15]]

    # naive (buggy) attribution for comparison: owner = the cpu_op whose
    # External id equals the launch's External id, ignoring thread and time
    # (first such cpu_op in file order); else "(no cpu_op)".
    nv_t = collections.Counter()
    nv_inst = collections.defaultdict(set)
    for g in gpu_ops:
        l = launch_of(g, launches)
        cands = cpu_by_ext.get(ext_id(l), []) if l is not None else []
        o = cands[0] if cands else None
        name = o["name"] if o is not None else "(no cpu_op)"
        nv_t[name] += num(g.get("dur"))
        nv_inst[name].add(id(o))
    naive_top = [{"name": n, "gpu_time_us": r3(t), "calls": len(nv_inst[n])}
                 for n, t in sorted(nv_t.items(), key=lambda kv: (-kv[1], kv[0]))[:15]]

    # rule: cat cuda_runtime named cudaLaunchKernel, longest dur and sum of dur
    lk = [e for e in events(trace, ("cuda_runtime",)) if e.get("name") == "cudaLaunchKernel"]
    longest = max(lk, key=lambda e: num(e.get("dur"))) if lk else None

    # rule: kernel events whose name contains "sgemm" (case-sensitive)
    sgemm = sum(num(k.get("dur")) for k in kernels if "sgemm" in k.get("name", ""))

    # rule: first aten::linear cpu_op by ts; batch = Input Dims[0][0]
    lin = sorted((c for c in cpu_ops if c.get("name") == "aten::linear"), key=t0)
    first_lin = lin[0]["args"].get("Input Dims") if lin else None
    emb = sorted((c for c in cpu_ops if c.get("name") == "aten::embedding"), key=t0)

    def owner_fact(name):
        return {"gpu_time_us": r3(own_t.get(name, 0.0)), "calls": len(own_inst.get(name, ()))}

    return {
        "load": note,
        "kernel_count": len(kernels),
        "gpu_op_count": len(gpu_ops),
        "total_kernel_time_us": r3(total_kernel),
        "total_gpu_op_time_us": r3(sum_dur(gpu_ops)),
        "kernel_time_by_launch_external_id": ext_id_mismatch(kernels, launches, cpu_by_ext),
        "launch_external_id_equals_correlation": sum(
            1 for e in launches.values() if ext_id(e) == e["args"].get("correlation")),
        "launch_count": len(launches),
        "repaired_gpu_time_by_rule_us": {str(k): r3(v) for k, v in sorted(rule_t.items())},
        "repaired_top15": top,
        "repaired_aten_reshape": owner_fact("aten::reshape"),
        "repaired_aten_linear": owner_fact("aten::linear"),
        "repaired_aten_addmm": owner_fact("aten::addmm"),
        "naive_ext_id_top15": naive_top,
        "naive_ext_id_aten_reshape": {"gpu_time_us": r3(nv_t.get("aten::reshape", 0.0)),
                                      "calls": len(nv_inst.get("aten::reshape", ()))},
        "host_aten_addmm_count": sum(1 for c in cpu_ops if c.get("name") == "aten::addmm"),
        # rule: host aten::addmm cpu_ops grouped by str(args["Input Dims"])
        "host_aten_addmm_by_input_dims": dict(collections.Counter(
            json.dumps(c["args"].get("Input Dims")) for c in cpu_ops
            if c.get("name") == "aten::addmm").most_common()),
        "host_aten_linear_count": sum(1 for c in cpu_ops if c.get("name") == "aten::linear"),
        "cudaLaunchKernel_count": len(lk),
        "cudaLaunchKernel_max_dur_us": r3(num(longest["dur"])) if longest else None,
        "cudaLaunchKernel_max_ts": r3(t0(longest)) if longest else None,
        "cudaLaunchKernel_total_dur_us": r3(sum_dur(lk)),
        "sgemm_kernel_time_us": r3(sgemm),
        "sgemm_share_pct": pct(sgemm, total_kernel),
        "distributedInfo": trace.get("distributedInfo"),
        "first_aten_linear_input_dims": first_lin,
        "first_aten_linear_batch": first_lin[0][0] if first_lin and first_lin[0] else None,
        "first_aten_embedding_input_dims": emb[0]["args"].get("Input Dims") if emb else None,
    }


# --------------------------------------------------------------------------
# 4. deepseek_h800_ep64_train
# --------------------------------------------------------------------------

def qualified_name(kernel_name):
    """Kernel function's qualified name: drop return type, argument list and
    template arguments, e.g. 'void a::b<1>::c<2>(int)' -> 'a::b::c'."""
    s = kernel_name.split("(", 1)[0]
    depth, out = 0, []
    for ch in s:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    s = "".join(out).strip()
    return s.split(" ")[-1]


def is_deepep(kernel_name):
    """Rule: qualified name contains 'deep_ep' or 'dpsk::ep', or its last
    component (inside some namespace) contains dispatch / combine / notify."""
    q = qualified_name(kernel_name)
    if "deep_ep" in q or "dpsk::ep" in q:
        return True
    return re.search(r"::\w*(dispatch|combine|notify)\w*$", q) is not None


def deepseek(path):
    trace, note = load_trace(path)
    kernels = events(trace, ("kernel",))
    launches = launch_map(trace)
    cpu_by_thr = by_thread(events(trace, ("cpu_op",)))
    ann_by_thr = by_thread(events(trace, ("user_annotation",)))
    total = sum_dur(kernels)

    # rule: kernel whose launch is contained by no cpu_op on the launch's thread
    orphan_t, orphan_n, no_launch = 0.0, 0, 0
    per_ann = collections.Counter()
    per_ann_n = collections.Counter()
    orphan_by_thread = collections.Counter()
    for k in kernels:
        l = launch_of(k, launches)
        if l is None:
            no_launch += 1
            continue
        if any(contains(c, l) for c in cpu_by_thr.get(thread_of(l), [])):
            continue
        d = num(k.get("dur"))
        orphan_t += d
        orphan_n += 1
        orphan_by_thread["%s/%s" % thread_of(l)] += d
        # rule: innermost user_annotation containing the launch on its thread
        a = innermost(ann_by_thr.get(thread_of(l), []), l)
        name = a["name"] if a is not None else "(no user_annotation)"
        per_ann[name] += d
        per_ann_n[name] += 1

    # The same over every GPU op (kernels, copies, fills): what mlprof's GPU
    # time per op counts.
    gpu_ann, gpu_ann_n = collections.Counter(), collections.Counter()
    for k in events(trace, GPU_CATS):
        l = launch_of(k, launches)
        if l is None or any(contains(c, l) for c in cpu_by_thr.get(thread_of(l), [])):
            continue
        a = innermost(ann_by_thr.get(thread_of(l), []), l)
        name = a["name"] if a is not None else "(no user_annotation)"
        gpu_ann[name] += num(k.get("dur"))
        gpu_ann_n[name] += 1

    dep = [k for k in kernels if is_deepep(k.get("name", ""))]
    dep_stream = collections.Counter()
    for k in dep:
        dep_stream[str(k["args"].get("stream"))] += num(k.get("dur"))
    all_stream = collections.Counter()
    for k in kernels:
        all_stream[str(k["args"].get("stream"))] += num(k.get("dur"))

    # rule: pipeline-schedule backward chunks: GPU ops (no DeepEP or NCCL
    # kernel) whose launch's innermost user_annotation on its thread ends
    # in "(B)" or "(W)"; GPU time by that annotation's name.
    chunk_t = collections.Counter()
    for g in events(trace, GPU_CATS):
        if is_deepep(g.get("name", "")) or "nccl" in g.get("name", "").lower():
            continue
        l = launch_of(g, launches)
        a = innermost(ann_by_thr.get(thread_of(l), []), l) if l is not None else None
        if a is not None and a["name"].rstrip().endswith(("(B)", "(W)")):
            chunk_t[a["name"]] += num(g.get("dur"))

    # rule: launch delay = GPU op start - launch call end; over 100 us is
    # "delayed"; of those, "queued" when the op started within 100 us of the
    # latest end of the earlier ops (by start) on its stream, else "late".
    ops = sorted((g for g in events(trace, ("kernel", "gpu_memcpy", "gpu_memset")) if launch_of(g, launches)),
                 key=lambda g: (t0(g), t1(g)))
    busy = {}
    delayed = queued = 0
    for g in ops:
        stream = (g.get("args") or {}).get("stream")
        prev = busy.get(stream, float("-inf"))
        busy[stream] = max(prev, t1(g))
        end = t1(launch_of(g, launches))
        if t0(g) - end > 100:
            delayed += 1
            if t0(g) - max(end, prev) <= 100:
                queued += 1

    # rule: FP8 GEMMs (name has "gemm" and "fp8") and FlashAttention's main
    # loops (FlashAttnFwd< / FlashAttnBwd< / compute_attn): tensor-core work
    # the TensorBoard plugin's name list does not know.
    fp8_flash = sum(num(k.get("dur")) for k in kernels
                    if ("gemm" in k["name"].lower() and "fp8" in k["name"].lower())
                    or any(p in k["name"] for p in ("FlashAttnFwd<", "FlashAttnBwd<", "flash::compute_attn")))

    return {
        "load": note,
        "backward_chunk_gpu_time_us": {n: r3(t) for n, t in sorted(chunk_t.items(), key=lambda kv: -kv[1])},
        "launches_with_gpu_op": len(ops),
        "launches_delayed_over_100us": delayed,
        "launches_delayed_queued": queued,
        "fp8_gemm_and_flash_kernel_time_us": r3(fp8_flash),
        "distributedInfo": trace.get("distributedInfo"),
        "kernel_count": len(kernels),
        "total_kernel_time_us": r3(total),
        "kernels_without_launch": no_launch,
        "no_cpu_op_kernel_count": orphan_n,
        "no_cpu_op_kernel_time_us": r3(orphan_t),
        "no_cpu_op_kernel_pct": pct(orphan_t, total),
        "no_cpu_op_kernel_time_by_launch_thread_us": {k: r3(v) for k, v in orphan_by_thread.items()},
        "no_cpu_op_top10_user_annotation": [
            {"name": n, "gpu_time_us": r3(t), "kernels": per_ann_n[n]}
            for n, t in sorted(per_ann.items(), key=lambda kv: (-kv[1], kv[0]))[:10]],
        "no_cpu_op_gpu_ops_by_user_annotation": [
            {"name": n, "gpu_time_us": r3(t), "gpu_ops": gpu_ann_n[n]}
            for n, t in sorted(gpu_ann.items(), key=lambda kv: (-kv[1], kv[0]))],
        "deepep_kernel_count": len(dep),
        "deepep_time_by_stream_us": {s: r3(t) for s, t in sorted(dep_stream.items())},
        "kernel_time_by_stream_us": {s: r3(t) for s, t in sorted(all_stream.items())},
        "deepep_kernel_names": sorted({k["name"] for k in dep}),
    }


# --------------------------------------------------------------------------
# 5. param_dlrm_kineto (8 ranks)
# --------------------------------------------------------------------------

def is_nccl(k):
    """Rule: kernel name contains 'nccl' (case-insensitive)."""
    return "nccl" in k.get("name", "").lower()


def nccl_context(k, launches, host_by_thr):
    """Names of the innermost enclosing 'nccl:*' user_annotation and 'c10d::*'
    cpu_op around the kernel's launch (same thread)."""
    l = launch_of(k, launches)
    if l is None:
        return None, None
    host = host_by_thr.get(thread_of(l), [])
    nccl = innermost([h for h in host if h.get("name", "").startswith("nccl:")], l)
    c10d = innermost([h for h in host if h.get("name", "").startswith("c10d::")], l)
    return nccl, c10d


def is_all_to_all(nccl_ann, c10d_op):
    """Rule: launched under user_annotation 'nccl:all_to_all' or under a
    cpu_op 'c10d::alltoall*'."""
    return ((nccl_ann is not None and nccl_ann["name"] == "nccl:all_to_all")
            or (c10d_op is not None and c10d_op["name"].startswith("c10d::alltoall")))


def exposed_time(nccl_kernels, other_intervals):
    """Rule: per NCCL kernel, dur minus the part covered by the union of the
    other intervals (non-NCCL GPU work on any stream of the same rank)."""
    m = merged(other_intervals)
    return sum(t1(k) - t0(k) - overlap_with(m, t0(k), t1(k)) for k in nccl_kernels)


def dlrm(folder):
    ranks = {}
    for fn in sorted(os.listdir(folder)):
        if not fn.endswith(".json"):
            continue
        trace, note = load_trace(os.path.join(folder, fn))
        rank = (trace.get("distributedInfo") or {}).get("rank")
        kernels = events(trace, ("kernel",))
        gpu = events(trace, GPU_CATS)
        launches = launch_map(trace)
        host_by_thr = by_thread(events(trace, ("cpu_op", "user_annotation")))
        nccl = sorted((k for k in kernels if is_nccl(k)), key=t0)
        rows, a2a = [], []
        for k in nccl:
            ann, c10d = nccl_context(k, launches, host_by_thr)
            row = {"ts": r3(t0(k)), "dur": r3(num(k["dur"])), "end": r3(t1(k)),
                   "name": k["name"].split("(")[0], "stream": k["args"].get("stream"),
                   "nccl_annotation": ann["name"] if ann else None,
                   "nccl_annotation_external_id": ext_id(ann) if ann else None,
                   "c10d_op": c10d["name"] if c10d else None,
                   "all_to_all": is_all_to_all(ann, c10d)}
            rows.append(row)
            if row["all_to_all"]:
                a2a.append(row)
        non_nccl_k = [(t0(k), t1(k)) for k in kernels if not is_nccl(k)]
        non_nccl_gpu = [(t0(k), t1(k)) for k in gpu if not is_nccl(k)]
        nccl_total = sum_dur(nccl)
        steps = [a for a in events(trace, ("user_annotation",))
                 if a.get("name", "").startswith("ProfilerStep#")]
        step_dur = sum_dur(steps)
        exp_k = exposed_time(nccl, non_nccl_k)
        exp_g = exposed_time(nccl, non_nccl_gpu)
        ranks[rank] = {
            "file": fn,
            "load": note,
            "world_size": (trace.get("distributedInfo") or {}).get("world_size"),
            "trace_span_us": [r3(min(t0(e) for e in gpu)), r3(max(t1(e) for e in gpu))],
            "nccl_kernels": rows,
            "nccl_kernel_count": len(nccl),
            "all_to_all_count": len(a2a),
            "first_all_to_all": a2a[0] if a2a else None,
            "nccl_total_us": r3(nccl_total),
            "nccl_exposed_vs_kernels_us": r3(exp_k),
            "nccl_exposed_vs_kernels_pct_of_nccl": pct(exp_k, nccl_total),
            # rule: ProfilerStep#* user_annotation(s) on this rank, total dur
            "profiler_steps": [a["name"] for a in steps],
            "profiler_step_dur_us": r3(step_dur),
            "nccl_exposed_vs_kernels_pct_of_step": pct(exp_k, step_dur),
            "host_pids": sorted({e.get("pid") for e in events(trace, ("cpu_op",))}),
            "nccl_exposed_vs_kernels_memcpy_memset_us": r3(exp_g),
            "nccl_exposed_vs_kernels_memcpy_memset_pct_of_nccl": pct(exp_g, nccl_total),
            "kernel_time_total_us": r3(sum_dur(kernels)),
        }
    firsts = {r: v["first_all_to_all"] for r, v in ranks.items() if v["first_all_to_all"]}
    starts = {r: f["ts"] for r, f in firsts.items()}
    ends = {r: f["end"] for r, f in firsts.items()}
    r1 = ranks.get(1, {})
    return {
        "ranks": {str(r): v for r, v in sorted(ranks.items())},
        # rule: first all-to-all kernel per rank (by ts); skew = max - min over ranks
        "first_all_to_all_start_by_rank": {str(r): v for r, v in sorted(starts.items())},
        "first_all_to_all_end_by_rank": {str(r): v for r, v in sorted(ends.items())},
        "first_all_to_all_start_skew_us": r3(max(starts.values()) - min(starts.values())),
        "first_all_to_all_end_skew_us": r3(max(ends.values()) - min(ends.values())),
        "first_all_to_all_last_start_rank": max(starts, key=starts.get),
        "first_all_to_all_first_start_rank": min(starts, key=starts.get),
        "rank1_nccl_total_us": r1.get("nccl_total_us"),
        "rank1_nccl_exposed_us": r1.get("nccl_exposed_vs_kernels_us"),
        "rank1_nccl_exposed_pct_of_nccl": r1.get("nccl_exposed_vs_kernels_pct_of_nccl"),
        "rank1_nccl_exposed_pct_of_step": r1.get("nccl_exposed_vs_kernels_pct_of_step"),
        "rank1_profiler_step_dur_us": r1.get("profiler_step_dur_us"),
    }


# --------------------------------------------------------------------------
# 6. param_resnet_kineto
# --------------------------------------------------------------------------

def is_pageable_htod(m):
    """Rule: gpu_memcpy whose name has 'HtoD' and 'Pageable'
    (Kineto: 'Memcpy HtoD (Pageable -> Device)')."""
    n = m.get("name", "")
    return "HtoD" in n and "Pageable" in n


def plugin_steps(trace, host_steps):
    """The TensorBoard plugin's step widening (torch-tb-profiler's
    step_parser.py, as docs/ANALYSES.md states it) over the given host step
    ranges: a cuda_runtime call wholly inside a step's range launched that
    step's GPU ops (kernels, copies, fills, by correlation); the first step
    starts at the latest end of the other GPU ops that finished before its
    own GPU work began (if later than its range's start), each later one
    where the one before ended; a step ends at the later of its range's end
    and its GPU work's end. Per step: the widened span and the union of the
    kernels inside it, in us."""
    gpu_by_corr = collections.defaultdict(list)
    for e in events(trace, GPU_CATS):
        c = (e.get("args") or {}).get("correlation")
        if c is not None:
            gpu_by_corr[c].append(e)
    step_gpu = [[] for _ in host_steps]
    matched = set()
    for rt in events(trace, ("cuda_runtime",)):
        for k, (a, b) in enumerate(host_steps):
            if t0(rt) >= a and t1(rt) <= b:
                c = (rt.get("args") or {}).get("correlation")
                if c in gpu_by_corr:
                    step_gpu[k].extend(gpu_by_corr[c])
                    matched.add(c)
                break
    prev_end = host_steps[0][0]
    if step_gpu[0]:
        first_gpu = min(t0(e) for e in step_gpu[0])
        for e in events(trace, GPU_CATS):
            if (e.get("args") or {}).get("correlation") not in matched and t1(e) < first_gpu:
                prev_end = max(prev_end, t1(e))
    kernels = merged([(t0(e), t1(e)) for e in events(trace, ("kernel",))])
    out = []
    for k, (a, b) in enumerate(host_steps):
        start = max(prev_end, a)
        end = max(b, max((t1(e) for e in step_gpu[k]), default=b), start)
        prev_end = end
        kernel = sum(max(0.0, min(y, end) - max(x, start)) for x, y in kernels)
        out.append({"total_us": r3(end - start), "kernel_us": r3(kernel), "gpu_ops": len(step_gpu[k])})
    return out


def outside_steps(trace, first, last):
    launches = launch_map(trace)
    out = [g for g in events(trace, GPU_CATS)
           if (launch_of(g, launches) is None or not first <= t0(launch_of(g, launches)) < last)]
    return {"count": len(out), "time_us": r3(sum_dur(out))}


def resnet(path):
    trace, note = load_trace(path)
    anns = events(trace, ("user_annotation",))
    memcpy = events(trace, ("gpu_memcpy",))
    gpu = events(trace, GPU_CATS)
    pg = [m for m in memcpy if is_pageable_htod(m)]
    gpu_total = sum_dur(gpu)
    pg_t = sum_dur(pg)
    by_name = {}
    for n in sorted({m["name"] for m in memcpy}):
        mm = [m for m in memcpy if m["name"] == n]
        by_name[n] = {"count": len(mm), "time_us": r3(sum_dur(mm)),
                      "bytes": sum(int(m["args"].get("bytes", 0)) for m in mm)}
    # rule: an iteration runs from the end of one optimizer step to the end of
    # the next (N ranges give N-1 iterations); their lengths in time order.
    ends = sorted(num(a["ts"]) + num(a["dur"]) for a in anns if a.get("name") == "Optimizer.step#SGD.step")
    # rule: the pageable copies that overlap the iterations (from the first
    # optimizer step's end to the last one's), their whole durations.
    inside = [m for m in pg if ends and t1(m) > ends[0] and t0(m) < ends[-1]]
    # rule: DataLoader "enumerate(DataLoader)#...__next__" calls (any category)
    # overlapping the iterations; their union less the GPU ops' union, clipped
    # to the iterations' span.
    loads = [e for e in events(trace) if e.get("name", "").startswith("enumerate(DataLoader)#")
             and e.get("name", "").endswith(".__next__") and ends and t1(e) > ends[0] and t0(e) < ends[-1]]
    gpu_merged = merged([(t0(e), t1(e)) for e in gpu])
    load_idle = 0.0
    for a, b in merged([(max(t0(e), ends[0]), min(t1(e), ends[-1])) for e in loads]):
        load_idle += (b - a) - overlap_with(gpu_merged, a, b)
    return {
        "load": note,
        "overview_steps": plugin_steps(trace, [(a, b) for a, b in zip(ends, ends[1:])]),
        # rule: GPU ops whose launch call (by correlation) starts outside
        # [first optimizer end, last optimizer end) belong to no iteration.
        "gpu_ops_outside_iterations": outside_steps(trace, ends[0], ends[-1]),
        "dataloader_in_iterations": {"calls": len(loads), "gpu_idle_us": r3(load_idle),
                                     "longest_us": r3(max((num(e.get("dur")) for e in loads), default=0))},
        "pageable_htod_in_iterations": {"count": len(inside), "time_us": r3(sum_dur(inside)),
                                        "bytes": sum(int(m["args"].get("bytes", 0)) for m in inside)},
        "optimizer_step_sgd_count": sum(1 for a in anns if a.get("name") == "Optimizer.step#SGD.step"),
        "optimizer_iterations_us": [r3(b - a) for a, b in zip(ends, ends[1:])],
        "user_annotation_top20": dict(collections.Counter(a.get("name") for a in anns).most_common(20)),
        "user_annotation_total": len(anns),
        "memcpy_by_name": by_name,
        "pageable_htod_count": len(pg),
        "pageable_htod_time_us": r3(pg_t),
        "pageable_htod_bytes": sum(int(m["args"].get("bytes", 0)) for m in pg),
        "pageable_htod_max_dur_us": r3(max((num(m["dur"]) for m in pg), default=0)),
        "kernel_time_us": r3(sum_dur(events(trace, ("kernel",)))),
        "memcpy_time_us": r3(sum_dur(memcpy)),
        "memset_time_us": r3(sum_dur(events(trace, ("gpu_memset",)))),
        "gpu_time_sum_us": r3(gpu_total),
        "gpu_time_union_us": r3(union_length([(t0(e), t1(e)) for e in gpu])),
        # rule: pageable HtoD time / sum of dur of kernel+memcpy+memset
        "pageable_htod_share_of_gpu_sum_pct": pct(pg_t, gpu_total),
    }


# --------------------------------------------------------------------------
# 7. nsys_memfusion_trt_rtx3090 (SQLite)
# --------------------------------------------------------------------------

def nsys(path):
    con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    q = lambda s: con.execute(s).fetchall()
    tables = [r[0] for r in q("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
    has = set(tables).__contains__
    strings = dict(q("SELECT id, value FROM StringIds")) if has("StringIds") else {}

    kern = q("SELECT start, end, deviceId, correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL") \
        if has("CUPTI_ACTIVITY_KIND_KERNEL") else []
    mcpy = q("SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMCPY") \
        if has("CUPTI_ACTIVITY_KIND_MEMCPY") else []
    mset = q("SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMSET") \
        if has("CUPTI_ACTIVITY_KIND_MEMSET") else []
    sync = q("SELECT start, end, deviceId, syncType FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION") \
        if has("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION") else []
    ns = lambda v: r3(v / 1000.0)  # nsys times are ns
    sync_label = dict(q("SELECT id, label FROM ENUM_CUPTI_SYNC_TYPE")) if has("ENUM_CUPTI_SYNC_TYPE") else {}

    # rule: runtime API row with the kernel's correlationId = its launch
    rt = {c: (s, e, tid) for s, e, tid, c in
          q("SELECT start, end, globalTid, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME")}
    # rule: NVTX ranges = NVTX_EVENTS rows with end NOT NULL; name = text or StringIds[textId]
    nvtx = [(s, e, tid, txt if txt is not None else strings.get(tid_, "(unnamed)"))
            for s, e, tid, txt, tid_ in
            q("SELECT start, end, globalTid, text, textId FROM NVTX_EVENTS WHERE end IS NOT NULL")]
    # rule: kernel counted once, under the innermost (shortest) NVTX range on
    # the launch's globalTid with range.start <= launch.start and launch.end <= range.end
    def in_nvtx_time(rows):
        total, per_range = 0, collections.Counter()
        for s, e, corr in rows:
            l = rt.get(corr)
            if l is None:
                continue
            cands = [r for r in nvtx if r[2] == l[2] and r[0] <= l[0] and l[1] <= r[1]]
            if cands:
                best = min(cands, key=lambda r: (r[1] - r[0], -r[0]))
                total += e - s
                per_range[best[3]] += e - s
        return total, per_range

    in_nvtx, per_range = in_nvtx_time([(s, e, c) for s, e, _, c in kern])
    mcpy_rows = q("SELECT start, end, correlationId FROM CUPTI_ACTIVITY_KIND_MEMCPY") \
        if has("CUPTI_ACTIVITY_KIND_MEMCPY") else []
    mcpy_nvtx, _ = in_nvtx_time(mcpy_rows)
    # rule: the same, over kernels and copies together
    gpu_nvtx, gpu_per_range = in_nvtx_time([(s, e, c) for s, e, _, c in kern] + list(mcpy_rows))

    ksum = sum(e - s for s, e, _, _ in kern)
    return {
        "tables": tables,
        "kernel_count": len(kern),
        "kernel_time_sum_us": ns(ksum),
        "kernel_time_union_us": ns(union_length([(s, e) for s, e, _, _ in kern])),
        "kernel_devices": sorted({d for _, _, d, _ in kern}),
        "kernels_with_launch": sum(1 for k in kern if k[3] in rt),
        "memcpy_count": len(mcpy),
        "memcpy_time_sum_us": ns(sum(e - s for s, e in mcpy)),
        "memset_table_present": has("CUPTI_ACTIVITY_KIND_MEMSET"),
        "memset_count": len(mset),
        "memset_time_sum_us": ns(sum(e - s for s, e in mset)),
        "gpu_work_sum_us": ns(ksum + sum(e - s for s, e in mcpy) + sum(e - s for s, e in mset)),
        "gpu_work_union_us": ns(union_length([(s, e) for s, e, _, _ in kern] + list(mcpy) + list(mset))),
        "sync_count": len(sync),
        "sync_device_ids": sorted({d for _, _, d, _ in sync}),
        # rule: syncType -> ENUM_CUPTI_SYNC_TYPE.label when that table exists
        "sync_types": dict(collections.Counter(sync_label.get(t, str(t)) for _, _, _, t in sync)),
        "sync_time_sum_us": ns(sum(e - s for s, e, _, _ in sync)),
        "nvtx_range_count": len(nvtx),
        "nvtx_range_names": dict(collections.Counter(r[3] for r in nvtx).most_common()),
        "kernel_time_in_nvtx_us": ns(in_nvtx),
        "memcpy_time_in_nvtx_us": ns(mcpy_nvtx),
        "kernel_time_in_nvtx_by_innermost_range_us": {k: ns(v) for k, v in per_range.most_common()},
        "gpu_time_in_nvtx_us": ns(gpu_nvtx),
        "gpu_time_in_nvtx_by_innermost_range_us": {k: ns(v) for k, v in gpu_per_range.most_common()},
        # rule: device ids named by sync records and by no kernel, copy or fill
        "sync_only_device_ids": sorted({d for _, _, d, _ in sync} - {d for _, _, d, _ in kern}
                                       - ({r[0] for r in q("SELECT deviceId FROM CUPTI_ACTIVITY_KIND_MEMCPY")}
                                          if has("CUPTI_ACTIVITY_KIND_MEMCPY") else set())),
        "gpu_count_target_info": len(q("SELECT id FROM TARGET_INFO_GPU")) if has("TARGET_INFO_GPU") else None,
    }


# --------------------------------------------------------------------------

def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    root = argv[1]
    p = lambda *a: os.path.join(root, *a)
    out = {}
    out["zoology_a100_inference"] = zoology(p("zoology_a100_inference", "trace.json"))
    out["rocprof_mi210_hip_trace"] = rocprof(p("rocprof_mi210_hip_trace", "results.json"))
    sw = p("switchtransformers_a100_moe")
    for fn in sorted(os.listdir(sw)):
        if fn.endswith(".json"):
            out["switchtransformers_a100_moe/" + fn] = switch(os.path.join(sw, fn))
    out["deepseek_h800_ep64_train"] = deepseek(p("deepseek_h800_ep64_train", "train.json"))
    out["param_dlrm_kineto"] = dlrm(p("param_dlrm_kineto"))
    out["param_resnet_kineto"] = resnet(p("param_resnet_kineto", "resnet_kineto.json.gz"))
    out["nsys_memfusion_trt_rtx3090"] = nsys(p("nsys_memfusion_trt_rtx3090", "report1.sqlite"))
    json.dump(out, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
