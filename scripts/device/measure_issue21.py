#!/usr/bin/env python3
"""Measurements on a lent GPU for the planner (issue 21).

Run on the device machine:  python3 scripts/device/measure_issue21.py OUTDIR [which...]
  gemm       bf16 and fp8 matmul throughput over a grid of M x N x K      -> gemm.csv
  attention  flash attention (SDPA) forward and forward+backward, causal  -> attention.csv
  memory     activation memory by remat policy, precision, layers and batch   -> memory.csv
  train      a small Llama-like model trained with AMP (bf16 autocast, fp32 weights, AdamW):
             Kineto traces without and with full activation checkpointing, the step time
             without the profiler and the peak memory                     -> train_*.json.gz, train.json
Each part runs in its own process with a time limit.
"""
import csv, gzip, json, os, subprocess, sys, time

OUT = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OUT", ".")


def timed(torch, fn, min_ms=30.0, reps=None):
    """Mean milliseconds per call: warm up, then time a loop of calls with CUDA events."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    if reps is None:
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        one = max(s.elapsed_time(e), 1e-3)
        reps = int(min(200, max(5, min_ms / one)))
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(reps):
        fn()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) / reps, reps


def gemm():
    import torch
    torch.manual_seed(0)
    dims_m = [128, 256, 512, 1024, 2048, 4096, 8192, 16384]
    dims_nk = [512, 1024, 2048, 4096, 8192, 16384]
    rows = []
    one = torch.ones((), device="cuda", dtype=torch.float32)
    for m in dims_m:
        for n in dims_nk:
            for k in dims_nk:
                a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
                b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
                ms, reps = timed(torch, lambda: torch.matmul(a, b))
                rows.append(("bf16", m, n, k, ms, reps, 2.0 * m * n * k / (ms * 1e-3) / 1e12))
                a8 = a.to(torch.float8_e4m3fn)
                b8 = b.t().contiguous().to(torch.float8_e4m3fn).t()  # column-major, as _scaled_mm wants
                for fast in (False, True):
                    f = lambda: torch._scaled_mm(a8, b8, one, one, out_dtype=torch.bfloat16, use_fast_accum=fast)
                    ms, reps = timed(torch, f)
                    rows.append(("fp8_fast" if fast else "fp8", m, n, k, ms, reps,
                                 2.0 * m * n * k / (ms * 1e-3) / 1e12))
                del a, b, a8, b8
        print("gemm m", m, "done", flush=True)
    with open(os.path.join(OUT, "gemm.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["dtype", "m", "n", "k", "ms", "reps", "tflops"])
        for r in rows:
            w.writerow([r[0], r[1], r[2], r[3], "%.6f" % r[4], r[5], "%.2f" % r[6]])


def attention():
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import sdpa_kernel, SDPBackend
    torch.manual_seed(0)
    rows = []
    heads, d = 32, 128
    for s in [512, 1024, 2048, 4096, 8192, 16384, 32768]:
        b = max(1, 32768 // s)
        q = torch.randn(b, heads, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        k = torch.randn_like(q, requires_grad=True)
        v = torch.randn_like(q, requires_grad=True)
        g = torch.randn_like(q)
        flops_fwd = 4.0 * b * heads * s * s * d / 2  # causal: half the scores
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            ms_f, _ = timed(torch, lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))

            def fb():
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                y.backward(g)
            ms_fb, _ = timed(torch, fb)
        rows.append((s, b, heads, d, ms_f, flops_fwd / (ms_f * 1e-3) / 1e12, ms_fb,
                     3.5 * flops_fwd / (ms_fb * 1e-3) / 1e12))
        print("attention s", s, rows[-1], flush=True)
    with open(os.path.join(OUT, "attention.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["seq", "batch", "heads", "head_dim", "fwd_ms", "fwd_tflops_causal",
                    "fwd_bwd_ms", "fwd_bwd_tflops_causal_3.5x"])
        for r in rows:
            w.writerow([r[0], r[1], r[2], r[3], "%.4f" % r[4], "%.1f" % r[5], "%.4f" % r[6], "%.1f" % r[7]])


CFG = dict(layers=4, hidden=2048, heads=16, kv_heads=16, ffn=5632, vocab=32000, seq=2048, batch=4)


def llama(torch, c, checkpoint):
    nn, F = torch.nn, torch.nn.functional
    hd = c["hidden"] // c["heads"]

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.wq = nn.Linear(c["hidden"], c["heads"] * hd, bias=False)
            self.wk = nn.Linear(c["hidden"], c["kv_heads"] * hd, bias=False)
            self.wv = nn.Linear(c["hidden"], c["kv_heads"] * hd, bias=False)
            self.wo = nn.Linear(c["heads"] * hd, c["hidden"], bias=False)

        def forward(self, x):
            b, s, _ = x.shape
            q = self.wq(x).view(b, s, c["heads"], hd).transpose(1, 2)
            k = self.wk(x).view(b, s, c["kv_heads"], hd).transpose(1, 2)
            v = self.wv(x).view(b, s, c["kv_heads"], hd).transpose(1, 2)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.wo(y.transpose(1, 2).reshape(b, s, -1))

    class FeedForward(nn.Module):
        def __init__(self):
            super().__init__()
            self.w1 = nn.Linear(c["hidden"], c["ffn"], bias=False)
            self.w3 = nn.Linear(c["hidden"], c["ffn"], bias=False)
            self.w2 = nn.Linear(c["ffn"], c["hidden"], bias=False)

        def forward(self, x):
            return self.w2(F.silu(self.w1(x)) * self.w3(x))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.attention_norm = nn.RMSNorm(c["hidden"])
            self.attention = Attention()
            self.ffn_norm = nn.RMSNorm(c["hidden"])
            self.feed_forward = FeedForward()

        def inner(self, x):
            x = x + self.attention(self.attention_norm(x))
            return x + self.feed_forward(self.ffn_norm(x))

        def forward(self, x):
            if checkpoint:
                return torch.utils.checkpoint.checkpoint(self.inner, x, use_reentrant=False)
            return self.inner(x)

    class Llama(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok_embeddings = nn.Embedding(c["vocab"], c["hidden"])
            self.layers = nn.ModuleList([Block() for _ in range(c["layers"])])
            self.norm = nn.RMSNorm(c["hidden"])
            self.output = nn.Linear(c["hidden"], c["vocab"], bias=False)

        def forward(self, tok):
            x = self.tok_embeddings(tok)
            for blk in self.layers:
                x = blk(x)
            return self.output(self.norm(x))

    return Llama().cuda()


def train_one(checkpoint):
    import torch
    from torch.profiler import profile, ProfilerActivity, schedule, record_function
    torch.manual_seed(0)
    c = CFG
    m = llama(torch, c, checkpoint)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
    tok = torch.randint(0, c["vocab"], (c["batch"], c["seq"] + 1), device="cuda")
    x, y = tok[:, :-1], tok[:, 1:]

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = m(x)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), y.reshape(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss
    F = torch.nn.functional
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    ms, reps = timed(torch, step, reps=10)
    peak = torch.cuda.max_memory_allocated()
    params = sum(p.numel() for p in m.parameters())
    name = "train_full" if checkpoint else "train_none"
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=1, warmup=1, active=2), record_shapes=True,
                 with_modules=True) as prof:
        for _ in range(4):
            step()
            torch.cuda.synchronize()
            prof.step()
    path = os.path.join(OUT, name + ".json")
    prof.export_chrome_trace(path)
    with open(path, "rb") as f, gzip.open(path + ".gz", "wb", compresslevel=9) as g:
        g.write(f.read())
    os.remove(path)
    res = {"config": c, "checkpoint": checkpoint, "params": params, "step_ms_unprofiled": ms,
           "peak_allocated_bytes": peak, "peak_reserved_bytes": torch.cuda.max_memory_reserved(),
           "trace_bytes_gz": os.path.getsize(path + ".gz")}
    print(res, flush=True)
    with open(os.path.join(OUT, name + ".meta.json"), "w") as f:
        json.dump(res, f, indent=1)


def memory():
    """Activation memory by remat policy and precision: the bytes allocated after the forward
    (the saved activations and the loss's tensors) over a base of weights, gradients and
    optimizer state, for 2 and 4 layers and 1, 2, 4 sequences; and the peaks of backward and the
    optimizer step. The slopes give bytes per token per layer and per token outside the layers."""
    import torch
    F = torch.nn.functional
    rows = []
    for mode in ("bf16", "amp"):
        for ckpt in (False, True):
            for layers in (2, 4):
                for batch in (1, 2, 4):
                    torch.manual_seed(0)
                    c = dict(CFG, layers=layers, batch=batch)
                    m = llama(torch, c, ckpt)
                    if mode == "bf16":
                        m = m.to(torch.bfloat16)
                    opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
                    tok = torch.randint(0, c["vocab"], (batch, c["seq"] + 1), device="cuda")
                    x, y = tok[:, :-1], tok[:, 1:]

                    def fwd():
                        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=(mode == "amp")):
                            logits = m(x)
                            return F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), y.reshape(-1))
                    fwd().backward()
                    opt.step()  # optimizer state exists from here on
                    torch.cuda.synchronize()
                    # the gradients stay allocated (set_to_none=False): the base is weights + grads + state
                    opt.zero_grad(set_to_none=False)
                    torch.cuda.synchronize()
                    base = torch.cuda.memory_allocated()
                    torch.cuda.reset_peak_memory_stats()
                    loss = fwd()
                    torch.cuda.synchronize()
                    after_fwd = torch.cuda.memory_allocated() - base
                    peak_fwd = torch.cuda.max_memory_allocated() - base
                    torch.cuda.reset_peak_memory_stats()
                    loss.backward()
                    del loss
                    torch.cuda.synchronize()
                    peak_bwd = torch.cuda.max_memory_allocated() - base
                    torch.cuda.reset_peak_memory_stats()
                    opt.step()
                    torch.cuda.synchronize()
                    peak_opt = torch.cuda.max_memory_allocated() - base
                    params = sum(p.numel() for p in m.parameters())
                    rows.append((mode, "full" if ckpt else "none", layers, batch, c["seq"], params, base, after_fwd,
                                 peak_fwd, peak_bwd, peak_opt))
                    print(rows[-1], flush=True)
                    del m, opt, tok, x, y
                    torch.cuda.empty_cache()
    with open(os.path.join(OUT, "memory.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["mode", "remat", "layers", "batch", "seq", "params", "base_bytes", "after_forward_bytes",
                    "peak_forward_bytes", "peak_backward_bytes", "peak_optimizer_bytes"])
        w.writerows(rows)


def child(which):
    {"gemm": gemm, "attention": attention, "memory": memory, "train_none": lambda: train_one(False),
     "train_full": lambda: train_one(True)}[which]()


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[2] == "--child":
        child(sys.argv[3])
        sys.exit(0)
    os.makedirs(OUT, exist_ok=True)
    which = sys.argv[2:] or ["train_none", "train_full", "attention", "gemm"]
    import torch
    info = {"torch": torch.__version__, "cuda": torch.version.cuda,
            "device": torch.cuda.get_device_name(0)}
    try:
        info["nvidia_smi"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit",
             "--format=csv"], capture_output=True, text=True, timeout=20).stdout
    except Exception as e:  # noqa
        info["nvidia_smi"] = str(e)
    print(info, flush=True)
    with open(os.path.join(OUT, "versions.json"), "w") as f:
        json.dump(info, f, indent=1)
    for w in which:
        t0 = time.time()
        try:
            r = subprocess.run([sys.executable, __file__, OUT, "--child", w], timeout=240)
            print(w, "rc", r.returncode, "%.1fs" % (time.time() - t0), flush=True)
        except subprocess.TimeoutExpired:
            print(w, "timed out", flush=True)
