#!/usr/bin/env python3
"""The planner against published training runs it was not fitted on (docs/PLANNER.md, "Validation").

  python3 scripts/validate_planner.py [path/to/mlprof] [--markdown]

Each row is a published run with its layout pinned as published; the planner's best plan for it
(the fastest over what the source leaves open, such as the micro-batch) is compared with the
measured step time. Every published figure is turned into seconds per step with the source's own
convention, so FLOP conventions do not enter the error:
  step      the iteration time as published
  tok       tokens/s per GPU:             step = global batch x seq / (tok/s x GPUs)
  narayanan TFLOP/s per GPU, Narayanan et al. 2021's F = 96 B s l h^2 (1 + s/6h + V/16lh)
  mfu       MFU (%) with full s x s attention (PaLM, MaxText before July 2025): step = the planner's
            model FLOPs (the same convention) / (MFU x bf16 peak x chips)
Model files not built in are in scripts/validation/models/. Sources, rows and caveats: the table
at the end of docs/PLANNER.md.
"""
import json
import statistics
import subprocess
import sys

M = "scripts/validation/models/"

# id, kind (dense/moe), where (gpu/tpu), model, chip, chips, global batch, seq, flags, measure, source
ROWS = [
    # ---- dense, A100: Megatron-LM ----
    ("N21 18.4B", "dense", "gpu", M + "gpt-18b.toml", "a100-80gb", 256, 1024, 2048, "--tp 8 --pp 1 --remat full",
     ("narayanan", 135, (40, 6144, 51200)), "Narayanan 2021 Table 1"),
    ("N21 39.1B", "dense", "gpu", M + "gpt-39b.toml", "a100-80gb", 512, 1536, 2048, "--tp 8 --pp 2 --remat full",
     ("narayanan", 138, (48, 8192, 51200)), "Narayanan 2021 Table 1"),
    ("N21 76.1B", "dense", "gpu", M + "gpt-76b.toml", "a100-80gb", 1024, 1792, 2048, "--tp 8 --pp 4 --remat full",
     ("narayanan", 140, (60, 10240, 51200)), "Narayanan 2021 Table 1"),
    ("N21 145.6B", "dense", "gpu", M + "gpt-146b.toml", "a100-80gb", 1536, 2304, 2048, "--tp 8 --pp 8 --remat full",
     ("narayanan", 148, (80, 12288, 51200)), "Narayanan 2021 Table 1"),
    ("N21 310.1B", "dense", "gpu", M + "gpt-310b.toml", "a100-80gb", 1920, 2160, 2048, "--tp 8 --pp 16 --remat full",
     ("narayanan", 155, (96, 16384, 51200)), "Narayanan 2021 Table 1"),
    ("N21 529.6B", "dense", "gpu", M + "gpt-530b.toml", "a100-80gb", 2520, 2520, 2048, "--tp 8 --pp 35 --remat full",
     ("narayanan", 163, (105, 20480, 51200)), "Narayanan 2021 Table 1"),
    ("N21 1T", "dense", "gpu", M + "gpt-1t.toml", "a100-80gb", 3072, 3072, 2048, "--tp 8 --pp 64 --remat full",
     ("narayanan", 163, (128, 25600, 51200)), "Narayanan 2021 Table 1"),
    ("K22 22B selective", "dense", "gpu", M + "gpt-22b.toml", "a100-80gb", 8, 4, 2048,
     "--tp 8 --pp 1 --mb 4 --remat selective", ("step", 1.10), "Korthikanti 2022 Tables 3, 5"),
    ("K22 22B full", "dense", "gpu", M + "gpt-22b.toml", "a100-80gb", 8, 4, 2048, "--tp 8 --pp 1 --mb 4 --remat full",
     ("step", 1.42), "Korthikanti 2022 Tables 3, 5"),
    ("K22 175B selective", "dense", "gpu", M + "gpt-175b-k22.toml", "a100-80gb", 64, 64, 2048,
     "--tp 8 --pp 8 --vpp 3 --mb 1 --remat selective", ("step", 13.75), "Korthikanti 2022 Tables 3, 5"),
    ("K22 175B full", "dense", "gpu", M + "gpt-175b-k22.toml", "a100-80gb", 64, 64, 2048,
     "--tp 8 --pp 8 --vpp 3 --mb 1 --remat full", ("step", 18.13), "Korthikanti 2022 Tables 3, 5"),
    ("K22 530B selective", "dense", "gpu", M + "gpt-530b.toml", "a100-80gb", 280, 280, 2048,
     "--tp 8 --pp 35 --vpp 3 --mb 1 --remat selective", ("step", 37.83), "Korthikanti 2022 Tables 3, 5"),
    ("K22 530B full", "dense", "gpu", M + "gpt-530b.toml", "a100-80gb", 280, 280, 2048,
     "--tp 8 --pp 35 --vpp 3 --mb 1 --remat full", ("step", 49.05), "Korthikanti 2022 Tables 3, 5"),
    ("K22 1T selective", "dense", "gpu", M + "gpt-1t.toml", "a100-80gb", 512, 512, 2048,
     "--tp 8 --pp 64 --mb 1 --remat selective", ("step", 71.49), "Korthikanti 2022 Tables 3, 5"),
    ("K22 1T full", "dense", "gpu", M + "gpt-1t.toml", "a100-80gb", 512, 512, 2048,
     "--tp 8 --pp 64 --mb 1 --remat full", ("step", 94.42), "Korthikanti 2022 Tables 3, 5"),
    ("MegaScale/Megatron 175B 256", "dense", "gpu", M + "gpt-175b-megascale.toml", "a100-80gb", 256, 768, 2048,
     "--tp 8 --pp 8 --vpp 6", ("step", 40.0), "MegaScale 2024 Table 2 (Megatron-LM)"),
    ("MegaScale/Megatron 175B 1024", "dense", "gpu", M + "gpt-175b-megascale.toml", "a100-80gb", 1024, 768, 2048,
     "--tp 8 --pp 8 --vpp 6", ("step", 11.9), "MegaScale 2024 Table 2 (Megatron-LM)"),
    ("MegaScale/Megatron 175B 3072", "dense", "gpu", M + "gpt-175b-megascale.toml", "a100-80gb", 3072, 6144, 2048,
     "--tp 8 --pp 8 --vpp 6", ("step", 29.02), "MegaScale 2024 Table 2 (Megatron-LM)"),
    ("MegaScale/Megatron 175B 12288", "dense", "gpu", M + "gpt-175b-megascale.toml", "a100-80gb", 12288, 6144, 2048,
     "--tp 8 --pp 8 --vpp 6", ("step", 8.57), "MegaScale 2024 Table 2 (Megatron-LM)"),
    ("IBM FSDP Llama 2 7B", "dense", "gpu", M + "llama2-7b.toml", "a100-80gb", 128, 256, 4096,
     "--tp 1 --pp 1 --fsdp 128 --mb 2 --remat none", ("tok", 3700), "PyTorch blog, FSDP throughput, Table 1"),
    ("IBM FSDP Llama 2 70B", "dense", "gpu", "llama2-70b", "a100-80gb", 128, 256, 4096,
     "--tp 1 --pp 1 --fsdp 128 --mb 2 --remat full", ("tok", 370), "PyTorch blog, FSDP throughput, Table 1"),
    # ---- dense, H100: NVIDIA ----
    ("NeMo 24.07 GPT-3 175B fp8", "dense", "gpu", "gpt3-175b", "h100-sxm", 128, 256, 2048,
     "--tp 4 --pp 8 --vpp 6 --mb 1 --precision fp8", ("tok", 726), "NeMo performance_summary.md (24.07)"),
    ("NeMo 24.07 Llama 2 7B fp8", "dense", "gpu", M + "llama2-7b.toml", "h100-sxm", 8, 128, 4096,
     "--tp 1 --pp 1 --cp 1 --mb 1 --precision fp8", ("tok", 16847), "NeMo performance_summary.md (24.07)"),
    ("NeMo 24.07 Llama 2 70B fp8", "dense", "gpu", "llama2-70b", "h100-sxm", 64, 128, 4096,
     "--tp 4 --pp 4 --vpp 20 --mb 1 --precision fp8", ("tok", 1707), "NeMo performance_summary.md (24.07)"),
    ("NeMo 24.07 Llama 3 8B fp8", "dense", "gpu", "llama3-8b", "h100-sxm", 8, 128, 8192,
     "--tp 1 --pp 1 --cp 2 --mb 1 --precision fp8", ("tok", 12036), "NeMo performance_summary.md (24.07)"),
    ("NeMo 24.07 Llama 3 70B fp8", "dense", "gpu", "llama3-70b", "h100-sxm", 64, 128, 8192,
     "--tp 4 --pp 4 --cp 2 --vpp 5 --mb 1 --precision fp8", ("tok", 1533), "NeMo performance_summary.md (24.07)"),
    ("DGXC Llama 3.1 70B bf16", "dense", "gpu", "llama3-70b", "h100-sxm", 64, 128, 8192,
     "--tp 4 --pp 4 --cp 2 --vpp 5 --mb 1", ("step", 14.72), "dgxc-benchmarking llama3.1/README_70b.md"),
    ("DGXC Llama 3.1 70B fp8", "dense", "gpu", "llama3-70b", "h100-sxm", 64, 128, 8192,
     "--tp 4 --pp 4 --cp 2 --vpp 5 --mb 1 --precision fp8", ("step", 11.01), "dgxc-benchmarking llama3.1/README_70b.md"),
    ("DGXC GPT-3 175B bf16", "dense", "gpu", "gpt3-175b", "h100-sxm", 128, 256, 2048,
     "--tp 4 --pp 8 --vpp 12 --mb 1", ("step", 8.309), "dgxc-benchmarking nemo_megatron/README_175b.md"),
    ("DGXC GPT-3 175B fp8", "dense", "gpu", "gpt3-175b", "h100-sxm", 128, 256, 2048,
     "--tp 4 --pp 8 --vpp 12 --mb 1 --precision fp8", ("step", 5.626), "dgxc-benchmarking nemo_megatron/README_175b.md"),
    ("DGXC Nemotron-4 15B bf16", "dense", "gpu", M + "nemotron4-15b.toml", "h100-sxm", 64, 256, 4096,
     "--tp 4 --pp 1 --mb 4", ("step", 2.845), "dgxc-benchmarking nemotron/README_15b.md"),
    ("DGXC Nemotron-4 340B bf16", "dense", "gpu", M + "nemotron4-340b.toml", "h100-sxm", 128, 32, 4096,
     "--tp 8 --pp 8 --vpp 12 --mb 1", ("step", 4.61), "dgxc-benchmarking nemotron/README_340b.md"),
    ("Megatron-Bridge Llama 3 70B fp8", "dense", "gpu", "llama3-70b", "h100-sxm", 64, 128, 8192,
     "--tp 4 --pp 8 --vpp 5 --mb 1 --precision fp8", ("tok", 1602), "Megatron-Bridge performance-summary.md (25.11)"),
    ("Megatron-Bridge Llama 3.1 405B fp8", "dense", "gpu", "llama3-405b", "h100-sxm", 1024, 512, 8192,
     "--tp 8 --pp 8 --cp 2 --vpp 8 --mb 1 --precision fp8", ("tok", 292),
     "Megatron-Bridge performance-summary.md (25.11)"),
    ("llm-foundry MPT 70B bf16", "dense", "gpu", M + "mpt-70b.toml", "h100-sxm", 64, 2048, 2048,
     "--tp 1 --pp 1 --fsdp 64 --mb 8 --remat full", ("tok", 1039), "llm-foundry benchmarking README (H100 BF16)"),
    # ---- dense, TPU ----
    ("PaLM 540B", "dense", "tpu", M + "palm-540b.toml", "tpu-v4", 6144, 2048, 2048,
     "--slices 2 --ici-axes 16x16x12 --tp 12 --pp 1 --fsdp 256", ("mfu", 46.2), "PaLM 2022 section 4, Table 3"),
    ("MaxText v5e 32B, 1 slice", "dense", "tpu", M + "maxtext-32b.toml", "tpu-v5e", 256, 1024, 2048,
     "--ici-axes 16x16 --tp 1 --pp 1 --fsdp 256 --remat full", ("mfu", 66.86), "MaxText configs/v5e/README.md"),
    ("MaxText v5e 32B, 32 slices", "dense", "tpu", M + "maxtext-32b.toml", "tpu-v5e", 8192, 32768, 2048,
     "--slices 32 --ici-axes 16x16 --tp 1 --pp 1 --fsdp 256 --remat full", ("mfu", 60.40),
     "MaxText configs/v5e/README.md"),
    ("MaxText v5e 128B, 1 slice", "dense", "tpu", M + "maxtext-128b.toml", "tpu-v5e", 256, 256, 2048,
     "--ici-axes 16x16 --tp 16 --pp 1 --fsdp 16 --remat minimal_offloaded", ("mfu", 56.06),
     "MaxText configs/v5e/README.md"),
    ("MaxText v5p 128B, v5p-256", "dense", "tpu", M + "maxtext-128b.toml", "tpu-v5p", 128, 128, 2048,
     "--ici-axes 4x4x8 --tp 8 --pp 1 --fsdp 16 --remat minimal", ("mfu", 68.68), "MaxText configs/v5p/README.md"),
    # ---- MoE, GPU ----
    ("Megatron-Bridge DeepSeek-V3 fp8", "moe", "gpu", "deepseek-v3", "h100-sxm", 1024, 8192, 4096,
     "--tp 2 --pp 8 --vpp 4 --ep 64 --mb 1 --precision fp8", ("tok", 1297),
     "Megatron-Bridge performance-summary.md (25.09)"),
    ("Megatron-Bridge Qwen3 235B fp8", "moe", "gpu", M + "qwen3-235b.toml", "h100-sxm", 256, 8192, 4096,
     "--tp 2 --pp 8 --vpp 4 --ep 32 --mb 1 --precision fp8", ("tok", 1633),
     "Megatron-Bridge performance-summary-archive.md (26.02)"),
    ("NeMo 25.02 Mixtral 8x7B B200 fp8", "moe", "gpu", "mixtral-8x7b", "b200", 64, 256, 4096,
     "--tp 1 --pp 1 --cp 1 --fsdp 1 --ep 8 --mb 2 --precision fp8", ("tok", 15457), "NeMo 25.02 performance summary"),
    ("DeepSeek-V3 production (H800)", "moe", "gpu", "deepseek-v3", "h100-sxm", 2048, 15360, 4096,
     "--tp 1 --pp 16 --ep 64 --schedule dualpipe --precision fp8", ("tok", 1543),
     "DeepSeek-V3 report: 180 k H800 hours per trillion tokens"),
]


def plan(binary, row):
    _, _, _, model, chip, chips, gbs, seq, flags, measure, _ = row
    cmd = [binary, "plan", "--model", model, "--chip", chip, "--chips", str(chips), "--global-batch", str(gbs),
           "--seq", str(seq), "--top", "1", "--format", "json"] + flags.split()
    if "--causal" not in flags and measure[0] == "mfu":
        pass  # full s x s: the planner's default convention
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    plans = json.loads(r.stdout)["tables"]["plans"]
    if not plans:
        return None, "no plan fits"
    return plans[0], ""


def measured_step(row, best):
    _, _, _, _, chip, chips, gbs, seq, _, measure, _ = row
    kind, value = measure[0], measure[1]
    if kind == "step":
        return value
    if kind == "tok":
        return gbs * seq / (value * chips)
    if kind == "narayanan":
        layers, h, vocab = measure[2]
        flops = 96 * gbs * seq * layers * h * h * (1 + seq / (6 * h) + vocab / (16 * layers * h))
        return flops / (value * 1e12 * chips)
    if kind == "mfu":
        peaks = {"tpu-v4": 275e12, "tpu-v5e": 197e12, "tpu-v5p": 459e12}
        return best["model_flops"] / (value / 100 * peaks[chip] * chips)
    raise ValueError(kind)


def main():
    binary = next((a for a in sys.argv[1:] if not a.startswith("--")), "build/mlprof")
    markdown = "--markdown" in sys.argv
    errors = {}
    out = []
    for row in ROWS:
        best, why = plan(binary, row)
        if best is None:
            out.append((row, None, None, why))
            continue
        meas = measured_step(row, best)
        pred = best["step"] / 1e12
        err = 100 * (pred - meas) / meas
        errors.setdefault((row[1], row[2]), []).append(err)
        out.append((row, meas, pred, f"{best['remat']} MB{best['micro_batch']} V{best['vpp']} {best['bottleneck']}"))
    if markdown:
        print("| run | kind | chips | measured s | predicted s | error | plan | source |")
        print("|---|---|---|---|---|---|---|---|")
    for row, meas, pred, note in out:
        name = row[0]
        if meas is None:
            print(f"| {name} | {row[1]}/{row[2]} | {row[5]} | | | | {note} | {row[10]} |" if markdown
                  else f"{name:38s} {note}")
            continue
        err = 100 * (pred - meas) / meas
        if markdown:
            print(f"| {name} | {row[1]}/{row[2]} | {row[5]} {row[4]} | {meas:.3f} | {pred:.3f} | {err:+.1f} % | "
                  f"{note} | {row[10]} |")
        else:
            print(f"{name:38s} {row[1]:5s} {row[2]:3s} measured {meas:9.3f} s  predicted {pred:9.3f} s  "
                  f"{err:+6.1f} %  ({note})")
    print()
    for key in sorted(errors):
        e = errors[key]
        worst = max(e, key=abs)
        print(f"{key[0]}/{key[1]}: {len(e)} runs, median |error| {statistics.median(abs(x) for x in e):.1f} %, "
              f"worst {worst:+.1f} %")
    alle = [x for e in errors.values() for x in e]
    for kind in ("dense", "moe"):
        e = [x for k, v in errors.items() if k[0] == kind for x in v]
        if e:
            print(f"{kind}: {len(e)} runs, median |error| {statistics.median(abs(x) for x in e):.1f} %")
    print(f"all: {len(alle)} runs, median |error| {statistics.median(abs(x) for x in alle):.1f} %")


if __name__ == "__main__":
    main()
