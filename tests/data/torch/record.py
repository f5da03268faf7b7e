#!/usr/bin/env python3
"""Record a small CPU PyTorch profiler trace plus key_averages() references.

Usage: /usr/bin/python3 tests/data/torch/record.py OUTDIR

Writes into OUTDIR:
  cpu_mlp.json                       prof.export_chrome_trace(...)
  cpu_mlp.key_averages.json          one object per row of prof.key_averages()
  cpu_mlp.key_averages_by_shape.json one object per row of
                                     prof.key_averages(group_by_input_shape=True)
  cpu_mlp.table.txt                  key_averages().table(sort_by="self_cpu_time_total")
  cpu_mlp.events.json                the profiler's own FunctionEvent list (what
                                     key_averages aggregates), with input shapes,
                                     thread, start/end and parent index
See SOURCE.md next to this file.
"""
import json
import os
import sys

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, record_function


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, kernel_size=3, stride=2, padding=1)
        self.fc1 = nn.Linear(64, 128)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x, img):
        logits = self.fc2(self.relu(self.fc1(x)))
        feat = self.conv(img)  # [2,3,16,16] -> [2,8,8,8]
        return logits, feat


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: record.py OUTDIR")
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)

    torch.manual_seed(0)
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)

    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    x = torch.randn(4, 64)
    y = torch.randint(0, 10, (4,))
    img = torch.randn(2, 3, 16, 16)

    # One untimed warm-up iteration so lazy initialisation stays out of the trace.
    logits, feat = model(x, img)
    (loss_fn(logits, y) + feat.mean()).backward()
    opt.step()
    opt.zero_grad()

    with profile(activities=[ProfilerActivity.CPU], record_shapes=True,
                 with_stack=False) as prof:
        for _ in range(3):
            opt.zero_grad()
            with record_function("my_block"):
                logits, feat = model(x, img)
                loss = loss_fn(logits, y) + feat.mean()
            loss.backward()
            opt.step()

    prof.export_chrome_trace(os.path.join(outdir, "cpu_mlp.json"))

    def rows(avgs, with_shapes):
        out = []
        for evt in avgs:
            row = {
                "name": evt.key,
                "count": evt.count,
                "cpu_time_total_us": evt.cpu_time_total,
                "self_cpu_time_total_us": evt.self_cpu_time_total,
                "cpu_time_avg_us": evt.cpu_time,
            }
            if with_shapes:
                row["input_shapes"] = str(evt.input_shapes)
            out.append(row)
        return out

    with open(os.path.join(outdir, "cpu_mlp.key_averages.json"), "w") as f:
        json.dump(rows(prof.key_averages(), False), f, indent=1)
        f.write("\n")
    with open(os.path.join(outdir, "cpu_mlp.key_averages_by_shape.json"), "w") as f:
        json.dump(rows(prof.key_averages(group_by_input_shape=True), True), f, indent=1)
        f.write("\n")
    with open(os.path.join(outdir, "cpu_mlp.table.txt"), "w") as f:
        f.write(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=-1))
        f.write("\n")

    # The event list key_averages() aggregates, after the profiler's own
    # parent/child build (_build_tree, incl. _remove_dup_nodes). Same order as
    # the Chrome trace's events.
    evts = list(prof.events())
    index = {id(e): i for i, e in enumerate(evts)}
    dump = []
    for i, e in enumerate(evts):
        dump.append({
            "i": i,
            "name": e.name,
            "thread": e.thread,
            "start_us": e.time_range.start,
            "end_us": e.time_range.end,
            "input_shapes": e.input_shapes,
            "parent": index.get(id(e.cpu_parent)) if e.cpu_parent is not None else None,
            "self_cpu_time_total_us": e.self_cpu_time_total,
        })
    with open(os.path.join(outdir, "cpu_mlp.events.json"), "w") as f:
        f.write("[\n")
        f.write(",\n".join(json.dumps(d) for d in dump))
        f.write("\n]\n")


if __name__ == "__main__":
    main()
