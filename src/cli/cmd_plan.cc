// mlprof plan: rank parallelism plans by memory and MFU before a run.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"
#include "cli/validators.h"

namespace mlprof::cli {
namespace {

class PlanCommand : public Command {
  void AddOptions(CLI::App* p) override {
    p->add_option("--model", o_.model,
                  "a built-in model (llama3-8b, llama3-70b, llama3-405b, llama2-70b, mixtral-8x7b, "
                  "mixtral-8x22b, deepseek-v3, gpt3-175b) or a .toml file (docs/PLANNER.md)")
        ->required();
    p->add_option("--chip", o_.chip, "chip id (`mlprof chips` lists them; with --calibrate: the profile's GPU)");
    p->add_option("--chip-file", o_.chip_files, "add or replace chips from JSON files");
    p->add_option("--chips", o_.chips, "number of chips (with --calibrate: the profile's world size)")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 24));
    p->add_option("--calibrate", o_.calibrate.paths,
                  "profiles of a real run (Kineto traces, one per rank, or a directory): measure matmul and "
                  "attention efficiency, other compute, optimizer time, host overhead and collective bandwidth, "
                  "and plan with them")
        ->check(CLI::ExistingPath);
    p->add_flag("--this-run", o_.this_run,
                "with --calibrate: predict the profile's own plan (--tp, --pp, ... --mb, --remat describe it; DP is "
                "the rest) against its measured step, then search the same job (without --this-run the run is taken "
                "as DP over every chip, one micro-batch, no remat, and the flags filter the search)");
    p->add_option("--gpus-per-node", o_.node, "GPUs per NVLink domain (default 8; TPU: the slice)")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
    p->add_option("--ici-axes", o_.ici_axes, "TPU torus axes, innermost first (16x16, 8x8x16)");
    p->add_option("--slices", o_.slices, "TPU: slices joined over DCN (default 1)")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
    p->add_option("--global-batch", o_.train.global_batch, "sequences per step")
        ->required()
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
    p->add_option("--seq", o_.train.seq, "sequence length (default: the model's seq_len)")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
    p->add_option("--memory", o_.memory,
                  "bytes per parameter: megatron (2+4+12), zero (2+2+12), maxtext (4+4+8); "
                  "default megatron on GPUs, maxtext on TPUs");
    p->add_option("--reserve", o_.train.reserve, "fraction of HBM kept free (default 0.10)")
        ->check(CLI::Range(0.0, 0.9));
    p->add_option("--precision", o_.precision,
                  "the layers' linear matmuls in bf16 (default), fp8 (Transformer Engine) or int8 (AQT), at the "
                  "chip's peak for it; attention, the output layer, norms and the optimizer stay in bf16/fp32");
    p->add_option("--schedule", o_.schedule,
                  "pipeline schedule: auto (1F1B, interleaved when V > 1), 1f1b, interleaved, zb (zero bubble), "
                  "dualpipe (DeepSeek-V3)");
    p->add_flag("--tp-overlap", o_.train.tp_overlap,
                "TP communication overlapped with the sharded matmuls (async TP, collective matmul)");
    p->add_flag("--causal", o_.train.causal_half, "count half the s x s attention scores in model FLOPs");
    p->add_option("--zero", o_.filter.zero,
                  "ZeRO stage over DP: 0 replicated, 1 optimizer sharded, 2 optimizer and "
                  "gradients sharded (default: 1, and 2 where 1 does not fit)")
        ->check(CLI::Range(0, 2));
    p->add_option("--gemm-eff", o_.knobs.gemm, "fraction of peak the matmuls reach (default: calibrated per chip)")
        ->check(CLI::Range(0.01, 1.0));
    p->add_option("--moe-imbalance", o_.knobs.moe_imbalance, "the busiest expert's load / the mean (default 1.25)")
        ->check(CLI::Range(1.0, 8.0));
    p->add_option("--collective-eff", o_.knobs.collective, "fraction of link bandwidth collectives reach")
        ->check(CLI::Range(0.01, 1.0))
        ->capture_default_str();
    p->add_option("--overlap", o_.knobs.overlap, "fraction of FSDP/DP communication hidden under compute")
        ->check(CLI::Range(0.0, 1.0))
        ->capture_default_str();
    p->add_option("--latency", o_.latency_us, "microseconds per step of a ring collective (default 1)")
        ->check(CLI::Range(0.0, 1000.0));
    plan::PlanFilter& f = o_.filter;
    for (auto [flag, ptr] : std::initializer_list<std::pair<const char*, int64_t*>>{{"--tp", &f.tp},
                                                                                    {"--dp", &f.dp},
                                                                                    {"--pp", &f.pp},
                                                                                    {"--vpp", &f.vpp},
                                                                                    {"--ep", &f.ep},
                                                                                    {"--fsdp", &f.fsdp},
                                                                                    {"--cp", &f.cp},
                                                                                    {"--mb", &f.mb}})
      p->add_option(flag, *ptr, "only plans with this degree")->check(CLI::Range(int64_t{1}, int64_t{1} << 24));
    p->add_option("--remat", f.remat,
                  "only this remat policy: none, save_dots (MaxText minimal, torchtitan selective-op), selective, "
                  "minimal_with_context, save_dot_except_mlp, save_qkv_proj, save_out_proj, minimal_offloaded, "
                  "full; Megatron full:N (N layers per stage), torchtitan selective-layer:N, or POLICY@F on a "
                  "fraction of the layers");
    p->add_option("--max-mem", o_.max_mem_gb, "only plans needing at most this many GB per chip")
        ->check(NumberAtLeastZero(true));
    p->add_flag("--all", f.include_oom, "also list plans that do not fit (bottleneck: memory)");
    p->add_option("--explain", o_.explain, "show the arithmetic of this row")->check(NumberAtLeastZero(true));
    AddTopOption(p, top_, "plans listed");
    AddFormatOption(p, out_.format);
    AddWidthOption(p, out_.width);
  }
  StatusOr<Report> Run() override {
    o_.top = top_.For(out_.format);
    return app::Plan(o_);
  }
  app::PlanOptions o_;
  TopOption top_{-1, 10};
};

}  // namespace
std::unique_ptr<Command> MakePlanCommand() { return std::make_unique<PlanCommand>(); }
}  // namespace mlprof::cli
