#!/usr/bin/env python3
"""Recompute key_averages() from cpu_mlp.json alone and compare with the references.

Usage: python3 tests/data/torch/check.py [DIR]   (any python3; needs no torch)

This is the algorithm of torch 1.13 EventList._populate_cpu_children +
FunctionEvent.self_cpu_time_total + EventList.key_averages, applied to the
trace's name/ts/dur/tid. The by-shape check takes each event's input shapes
from cpu_mlp.events.json (same order as the trace), because this trace has none.
"""
import json
import os
import sys
from collections import OrderedDict


def load(d, name):
    with open(os.path.join(d, name)) as f:
        return json.load(f)


def self_times(trace):
    """Return per-event self time (list aligned with trace)."""
    n = len(trace)
    start = [e["ts"] for e in trace]
    end = [e["ts"] + e["dur"] for e in trace]
    child_sum = [0] * n
    # group by thread, stable; within a thread sort by (start, -end), stable
    by_tid = OrderedDict()
    for i in sorted(range(n), key=lambda i: str(trace[i]["tid"])):
        by_tid.setdefault(trace[i]["tid"], []).append(i)
    for idx in by_tid.values():
        idx.sort(key=lambda i: (start[i], -end[i]))
        stack = []
        for i in idx:
            while stack:
                p = stack[-1]
                if start[i] >= end[p] or end[i] > end[p]:
                    stack.pop()          # p cannot be i's parent
                else:
                    child_sum[p] += end[i] - start[i]
                    break
            stack.append(i)
    return [end[i] - start[i] - child_sum[i] for i in range(n)]


def aggregate(trace, selfs, keys):
    rows = OrderedDict()
    for e, s, k in zip(trace, selfs, keys):
        r = rows.setdefault(k, {"count": 0, "total": 0, "self": 0})
        r["count"] += 1
        r["total"] += e["dur"]
        r["self"] += s
    return rows


def compare(rows, ref, keyf):
    bad = 0
    if len(rows) != len(ref):
        print("row count differs: %d vs %d" % (len(rows), len(ref)))
        bad += 1
    for r in ref:
        got = rows.get(keyf(r))
        want = (r["count"], r["cpu_time_total_us"], r["self_cpu_time_total_us"])
        if got is None or (got["count"], got["total"], got["self"]) != want:
            print("MISMATCH", keyf(r), want, got)
            bad += 1
    return bad


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    trace = load(d, "cpu_mlp.json")
    events = load(d, "cpu_mlp.events.json")
    assert len(events) == len(trace)
    selfs = self_times(trace)
    results = []
    results.append(compare(aggregate(trace, selfs, [e["name"] for e in trace]),
                           load(d, "cpu_mlp.key_averages.json"), lambda r: r["name"]))
    # str() of a Python list of lists, as key_averages uses: "[[4, 64], []]"
    shape_keys = [(e["name"], str(ev["input_shapes"])) for e, ev in zip(trace, events)]
    results.append(compare(aggregate(trace, selfs, shape_keys),
                           load(d, "cpu_mlp.key_averages_by_shape.json"),
                           lambda r: (r["name"], r["input_shapes"])))
    failed = sum(1 for b in results if b)
    print("key_averages: %s, by input shape: %s"
          % tuple("ok" if not b else "%d mismatches" % b for b in results))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
