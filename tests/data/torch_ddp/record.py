import os, sys, torch, torch.nn as nn, torch.distributed as dist, torch.multiprocessing as mp
from torch.profiler import profile, ProfilerActivity, schedule
def run(rank, world):
    os.environ["MASTER_ADDR"] = "127.0.0.1"; os.environ["MASTER_PORT"] = "29533"
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(rank)
    m = nn.parallel.DistributedDataParallel(nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 10)))
    opt = torch.optim.SGD(m.parameters(), lr=0.01)
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=4, repeat=1),
                 on_trace_ready=lambda p: p.export_chrome_trace(f"/tmp/rec/ddp/rank{rank}.json")) as p:
        for i in range(7):
            x = torch.randn(64 * (2 if rank == 1 else 1), 256)  # rank 1 does twice the work
            opt.zero_grad(); nn.functional.cross_entropy(m(x), torch.randint(0, 10, (x.shape[0],))).backward(); opt.step(); p.step()
    dist.destroy_process_group()
if __name__ == "__main__":
    mp.spawn(run, args=(2,), nprocs=2)
