#include "report/plan_tables.h"

#include <fmt/format.h>

#include "report/columns.h"

namespace mlprof {

namespace {

std::string GemmSourceText(plan::GemmSource s, const std::string& chip) {
  switch (s) {
    case plan::GemmSource::kGiven:
      return "--gemm-eff";
    case plan::GemmSource::kCalibrated:
      return "calibrated for " + chip;
    case plan::GemmSource::kMeanOfCalibrated:
      return "mean of the calibrated chips (no published figures for " + chip + ")";
  }
  return "?";
}

}  // namespace

Table PlanSettingTable(const plan::ModelSpec& m, const plan::Cluster& c, const plan::TrainSpec& t, const plan::Knobs& k,
                       const plan::PlanFilter& f, const plan::PlanSearch& s) {
  Table tb("plan_setting", "What was planned");
  tb.Add(Key("item", Unit::kText, "what is described")).Add(Measure("value", Unit::kText, "its value").Whole());
  auto row = [&](std::string a, std::string b) {
    tb.rows.push_back({Cell::Text(std::move(a)), Cell::Text(std::move(b))});
  };
  row("model", fmt::format("{} ({}): {:.3f} B parameters, {:.3f} B active", m.name, m.source, s.params.total / 1e9,
                           s.params.active / 1e9));
  row("training FLOPs per token",
      fmt::format("{:.4g} GFLOP (6 x {:.3f} B matmul weights + attention, {})", s.flops_per_token / 1e9,
                  s.params.matmul_active / 1e9, t.causal_half ? "causal: half of s x s" : "full s x s"));
  std::string axes;
  for (int64_t a : c.axes) axes += (axes.empty() ? "" : "x") + std::to_string(a);
  row("cluster", fmt::format("{} x {} ({:.0f} TFLOP/s bf16, {:.0f} GB HBM); {}", c.chips, c.chip.id,
                             c.chip.peak(hw::DType::kBf16) / 1e12, c.chip.hbm_bytes / 1e9,
                             c.tpu ? fmt::format("ICI {:.0f} GB/s per axis{}, DCN {:.1f} GB/s", c.fast_bw / 1e9,
                                                 axes.empty() ? "" : " on a " + axes + " torus", c.slow_bw / 1e9)
                                   : fmt::format("{} per node: NVLink {:.0f} GB/s, {:.1f} GB/s per GPU across nodes",
                                                 c.node_size, c.fast_bw / 1e9, c.slow_bw / 1e9)));
  row("run",
      fmt::format("{} sequences x {} tokens per step; memory {} ({:g}+{:g}+{:g} B per parameter); reserve {:.0f} "
                  "%; over DP: {}",
                  t.global_batch, t.seq, t.memory.name, t.memory.weight, t.memory.grad, t.memory.optimizer,
                  t.reserve * 100,
                  f.zero < 0 ? "ZeRO-1, or ZeRO-2 where ZeRO-1 does not fit" : fmt::format("ZeRO-{}", f.zero)));
  const plan::GemmFigure gemm = plan::GemmEfficiency(k, c.chip);
  row("efficiency", fmt::format("GEMM {:.2f} ({}), collectives {:.2f} (+ {:g} us per ring step), overlap {:.2f}, HBM "
                                "{:.2f}, busiest expert x{:.2f}",
                                gemm.efficiency, GemmSourceText(gemm.source, c.chip.id), k.collective, k.latency * 1e6,
                                k.overlap, k.hbm, k.moe_imbalance));
  int64_t fit = 0;
  for (const auto& p : s.plans) fit += p.fits;
  row("search", fmt::format("{} layouts, {} plans evaluated: {} fit, {} do not fit; {} remat or ZeRO choices skipped "
                            "as dominated (a cheaper one fits, or no memory saved)",
                            s.layouts, s.evaluated, fit, s.oom, s.dominated));
  return tb;
}

Table PlansTable(const std::vector<plan::Plan>& plans, int top, int first) {
  Table t("plans", "Plans, best MFU first (memory per chip in GB; times per step in s)");
  auto degree = [&t](const char* name, const char* label, const char* what) {
    t.Add(Key(name, Unit::kCount, what).Show(label, 1, 0));
  };
  auto gb = [&t](const char* name, const char* label, const char* what) {
    t.Add(Measure(name, Unit::kBytes, what).Show(label, 1e9, 1));
  };
  auto seconds = [&t](const char* name, const char* label, const char* what) {
    t.Add(Measure(name, Unit::kTime, what).Show(label, 1e12, 3));
  };
  t.Add(Key("plan", Unit::kId, "the plan's rank, best MFU first (--explain N)").Show("#", 1, 0));
  degree("tp", "TP", "tensor-parallel degree");
  degree("dp", "DP", "data-parallel degree");
  degree("pp", "PP", "pipeline stages");
  degree("vpp", "V", "interleaved stages per pipeline rank");
  degree("ep", "EP", "expert-parallel degree (over data-parallel ranks)");
  degree("fsdp", "FSDP", "fully sharded data-parallel degree");
  degree("zero", "ZeRO", "ZeRO stage over DP: 0, 1 (optimizer state) or 2 (gradients too)");
  degree("cp", "CP", "context-parallel degree");
  t.Add(Key("remat", Unit::kText, "activation recomputation policy").Show("Remat", 1, 0));
  degree("micro_batch", "MB", "sequences per micro-batch");
  degree("micro_batches", "GA", "micro-batches per step");
  gb("weights", "W(GB)", "weights per chip");
  gb("optimizer", "O(GB)", "optimizer state per chip");
  gb("grads", "G(GB)", "gradients per chip");
  gb("fsdp_buffers", "FBuf", "FSDP gather buffers per chip");
  gb("activations", "Act(GB)", "saved activations per chip (the busiest stage)");
  gb("reserve", "Rsv", "memory kept free");
  gb("total", "Tot(GB)", "memory per chip in all");
  t.Add(Measure("model_flops", Unit::kFlops, "model FLOPs per step").Show("Train(PF)", 1e15, 1));
  t.Add(Measure("remat_pct", Unit::kPercent, "recomputed FLOPs / model FLOPs").Show("Remat%", 1, 1));
  seconds("compute", "Comp(s)", "compute time per step");
  seconds("tp_time", "TP(s)", "exposed tensor-parallel communication");
  seconds("ep_time", "EP(s)", "exposed expert-parallel all-to-alls");
  seconds("fsdp_dp_time", "FSDP+DP(s)", "exposed FSDP and data-parallel communication");
  seconds("cp_time", "CP(s)", "exposed context-parallel ring");
  seconds("pp_time", "PP+Bubble(s)", "pipeline bubble and point-to-point transfers");
  seconds("optimizer_time", "Opt(s)", "optimizer update");
  seconds("step", "Step(s)", "step time: the sum of the terms");
  t.Add(Measure("mfu_pct", Unit::kPercent, "model FLOPs utilisation").Show("MFU%", 1, 1));
  t.Add(Measure("bottleneck", Unit::kText, "the largest term, or memory when the plan does not fit")
            .Show("Bottleneck", 1, 0));
  int n = 0;
  auto secs = [](double s) { return TimeCell(s * 1e12); };
  for (const plan::Plan& p : plans) {
    if (top > 0 && n >= top) break;
    t.rows.push_back({Cell::Int(first + n++),
                      Cell::Int(p.tp),
                      Cell::Int(p.dp),
                      Cell::Int(p.pp),
                      Cell::Int(p.vpp),
                      Cell::Int(p.ep),
                      Cell::Int(p.fsdp),
                      Cell::Int(p.zero),
                      Cell::Int(p.cp),
                      Cell::Text(plan::RematName(p.remat)),
                      Cell::Int(p.mb),
                      Cell::Int(p.ga),
                      Cell::Real(p.weights),
                      Cell::Real(p.optimizer),
                      Cell::Real(p.grads),
                      Cell::Real(p.fsdp_buffers),
                      Cell::Real(p.activations),
                      Cell::Real(p.reserve),
                      Cell::Real(p.total),
                      Cell::Real(p.model_flops),
                      Cell::Real(p.model_flops > 0 ? 100 * p.remat_flops / p.model_flops : 0),
                      secs(p.t_compute),
                      secs(p.t_tp),
                      secs(p.t_ep),
                      secs(p.t_fsdp_dp),
                      secs(p.t_cp),
                      secs(p.t_pp),
                      secs(p.t_opt),
                      secs(p.t_step),
                      Cell::Real(p.mfu * 100),
                      Cell::Text(plan::BottleneckName(p.bottleneck))});
  }
  NoteHiddenRows(t, plans.size() - t.rows.size());
  t.notes.push_back(
      "TP x DP x PP x FSDP x CP = chips; V = interleaved stages per PP rank; EP splits the experts over data-parallel "
      "ranks; ZeRO = the stage over DP (1: optimizer state sharded, 2: gradients too; FSDP is ZeRO-3); MB = "
      "micro-batch (sequences), GA = micro-batches per step. W/O/G = weights, optimizer state, gradients; "
      "FBuf = FSDP gather buffers; Rsv = the reserve. Times are exposed (not hidden under compute). `--explain N` "
      "shows the arithmetic of row N.");
  if (plans.empty()) t.notes.push_back("No plan fits: try more chips, a smaller batch, or --all to see the closest.");
  return t;
}

}  // namespace mlprof
