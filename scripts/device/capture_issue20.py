#!/usr/bin/env python3
"""Records the small Kineto traces under tests/data/h100/ on a lent GPU (issue 20).

Run on the device machine:  python3 scripts/device/capture_issue20.py OUTDIR [which...]
Each capture runs in its own process with a time limit, so one that hangs or fails
(the CUPTI range profiler needs counter permissions) does not cost the others.
"""
import gzip, json, os, subprocess, sys, time

OUT = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OUT", ".")


def model_and_data(torch, d=256, heads=4, layers=2, vocab=1000, seq=64, batch=8):
    nn = torch.nn

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(d, 3 * d)
            self.out = nn.Linear(d, d)

        def forward(self, x):
            b, s, _ = x.shape
            q, k, v = self.qkv(x).view(b, s, 3, heads, d // heads).permute(2, 0, 3, 1, 4)
            y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.out(y.transpose(1, 2).reshape(b, s, d))

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.up = nn.Linear(d, 4 * d)
            self.down = nn.Linear(4 * d, d)

        def forward(self, x):
            return self.down(torch.nn.functional.gelu(self.up(x)))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(d)
            self.attn = Attention()
            self.ln2 = nn.LayerNorm(d)
            self.mlp = MLP()

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class TinyLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, d)
            self.blocks = nn.ModuleList([Block() for _ in range(layers)])
            self.head = nn.Linear(d, vocab)

        def forward(self, tok):
            x = self.emb(tok)
            for blk in self.blocks:
                x = blk(x)
            return self.head(x)

    tok = torch.randint(0, vocab, (batch, seq + 1)).pin_memory()
    return TinyLM().cuda(), tok


def save(prof, name):
    path = os.path.join(OUT, name + ".json")
    prof.export_chrome_trace(path)
    with open(path, "rb") as f, gzip.open(path + ".gz", "wb", compresslevel=9) as g:
        g.write(f.read())
    os.remove(path)
    print("wrote", path + ".gz", os.path.getsize(path + ".gz"), flush=True)


def train():
    import torch
    from torch.profiler import profile, ProfilerActivity, schedule, record_function, _ExperimentalConfig
    torch.manual_seed(0)
    m, tok = model_and_data(torch)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
    side = torch.cuda.Stream()
    host = torch.empty(4096, dtype=torch.float32).pin_memory()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=1, warmup=1, active=3), record_shapes=True,
                 with_stack=True, with_modules=True,
                 experimental_config=_ExperimentalConfig(enable_cuda_sync_events=True)) as prof:
        for _ in range(5):
            with record_function("data"):
                t = tok.cuda(non_blocking=True)  # HtoD
                x, y = t[:, :-1], t[:, 1:]
            with record_function("forward"):
                logits = m(x)
                loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
            with record_function("backward"):
                loss.backward()
            # work on a side stream, joined by events (cudaStreamWaitEvent both ways)
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side), record_function("side_stream"):
                g = m.head.weight.grad
                norm = torch.linalg.vector_norm(g)
                snap = torch.empty_like(g)
                snap.copy_(g)  # DtoD
            torch.cuda.current_stream().wait_stream(side)
            with record_function("optimizer"):
                opt.step()
                opt.zero_grad(set_to_none=False)
            ev = torch.cuda.Event()
            ev.record()
            ev.synchronize()  # cudaEventSynchronize
            with record_function("log"):
                host[:1].copy_(loss.detach().reshape(1), non_blocking=False)  # DtoH
                _ = norm.item()  # DtoH + stream sync
            torch.cuda.synchronize()  # cudaDeviceSynchronize
            prof.step()
    save(prof, "train_step")


def graph():
    import torch
    from torch.profiler import profile, ProfilerActivity, schedule, record_function
    torch.manual_seed(0)
    m, tok = model_and_data(torch, batch=4, seq=32)
    m.eval()
    static_in = tok[:, :-1].cuda()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.no_grad(), torch.cuda.stream(s):
        for _ in range(3):
            m(static_in)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 with_stack=True) as cap:
        with torch.no_grad(), torch.cuda.graph(g):
            static_out = m(static_in)
    save(cap, "cuda_graph_capture")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=1, warmup=1, active=4), record_shapes=True) as prof:
        for i in range(6):
            with record_function("decode_step"):
                static_in.copy_(tok[:, :-1].roll(i, 1).cuda(non_blocking=True))
                g.replay()
                nxt = static_out[:, -1].argmax(-1).cpu()
            prof.step()
    save(prof, "cuda_graph_replay")


def counters():
    import torch
    from torch.profiler import profile, ProfilerActivity, _ExperimentalConfig
    torch.manual_seed(0)
    a = torch.randn(1024, 1024, device="cuda")
    b = torch.randn(1024, 1024, device="cuda")
    h = a.half()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA], record_shapes=True,
                 experimental_config=_ExperimentalConfig(
                     profiler_metrics=["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
                                       "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
                                       "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
                                       "dram__bytes_read.sum", "dram__bytes_write.sum"],
                     profiler_measure_per_kernel=True)) as prof:
        for _ in range(2):
            c = a @ b  # 2*1024^3 FLOP in FFMA (TF32 off by default for matmul)
            d = a + b  # 1024^2 FADD
            e = a * b  # 1024^2 FMUL
            f = h @ h  # tensor cores: no FFMA
        torch.cuda.synchronize()
    save(prof, "cupti_counters")


def child(which):
    {"train": train, "graph": graph, "counters": counters}[which]()


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[2] == "--child":
        child(sys.argv[3])
        sys.exit(0)
    os.makedirs(OUT, exist_ok=True)
    which = sys.argv[2:] or ["train", "graph", "counters"]
    import torch
    info = {"torch": torch.__version__, "cuda": torch.version.cuda,
            "device": torch.cuda.get_device_name(0)}
    print(info, flush=True)
    with open(os.path.join(OUT, "versions.json"), "w") as f:
        json.dump(info, f)
    for w in which:
        t0 = time.time()
        try:
            r = subprocess.run([sys.executable, __file__, OUT, "--child", w], timeout=100)
            print(w, "rc", r.returncode, "%.1fs" % (time.time() - t0), flush=True)
        except subprocess.TimeoutExpired:
            print(w, "timed out", flush=True)
