#include "report/plan_tables.h"

#include <fmt/format.h>

#include <cmath>

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
                       const plan::PlanFilter& f, const plan::PlanSearch& s, bool calibrated) {
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
                  f.zero < 0 ? "ZeRO-1, or ZeRO-2 where ZeRO-1 does not fit" : fmt::format("ZeRO-{}", f.zero)) +
          (t.precision != hw::DType::kBf16 ? fmt::format("; the layers' linear matmuls in {} ({:.0f} TFLOP/s)",
                                                         hw::DTypeName(t.precision), c.chip.peak(t.precision) / 1e12)
                                           : "") +
          (t.precision != hw::DType::kBf16 && !(c.chip.peak(t.precision) > c.chip.peak(hw::DType::kBf16))
               ? fmt::format(" (no faster than bf16 on this chip: only the casts and the copies are added)")
               : "") +
          (t.schedule != plan::Schedule::kAuto ? fmt::format("; schedule {}", plan::ScheduleName(t.schedule)) : "") +
          (t.tp_overlap ? "; TP overlapped with the matmuls" : ""));
  const plan::GemmFigure gemm = plan::GemmEfficiency(k, c.chip);
  std::string measured;
  if (k.attention > 0) measured += fmt::format(", attention {:.2f}", k.attention);
  if (k.other_bytes > 0)
    measured += fmt::format(", other ops {:.4g} B per token, layer and hidden unit", k.other_bytes);
  if (k.step_overhead > 0) measured += fmt::format(", host overhead {:.3f} ms per step", k.step_overhead * 1e3);
  row("efficiency",
      fmt::format("GEMM {:.2f} ({}), collectives {:.2f} (+ {:g} us per ring step), overlap {:.2f}, HBM "
                  "{:.2f}, busiest expert x{:.2f}{}{}",
                  gemm.efficiency,
                  calibrated && gemm.source == plan::GemmSource::kGiven ? std::string("--calibrate")
                                                                        : GemmSourceText(gemm.source, c.chip.id),
                  k.collective, k.latency * 1e6, k.overlap, k.hbm, k.moe_imbalance, measured,
                  calibrated ? " (--calibrate: the table below)" : ""));
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
  seconds("host_time", "Host(s)",
          "offloaded activations' transfer not hidden under compute, and the host overhead --calibrate measured");
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
                      Cell::Text(plan::RematLabel(p.remat, p.remat_fraction, p.remat_per_stage)),
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
                      secs(p.t_host),
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

namespace {

std::string PlanLabel(const plan::Plan& p) {
  std::string s = fmt::format("TP{} PP{}", p.tp, p.pp);
  if (p.vpp > 1) s += fmt::format(" V{}", p.vpp);
  if (p.cp > 1) s += fmt::format(" CP{}", p.cp);
  if (p.ep > 1) s += fmt::format(" EP{}", p.ep);
  if (p.fsdp > 1) s += fmt::format(" FSDP{}", p.fsdp);
  s += fmt::format(" DP{} ZeRO-{} MB{} GA{} {}", p.dp, p.zero, p.mb, p.ga,
                   plan::RematLabel(p.remat, p.remat_fraction, p.remat_per_stage));
  return s;
}

}  // namespace

Table CalibrationTable(const RunMeasurement& m, const plan::Calibration& c, const std::vector<std::string>& paths) {
  std::string from;
  for (const auto& p : paths) from += (from.empty() ? "" : ", ") + p;
  Table t("plan_calibration",
          fmt::format("Calibrated from {} ({} rank{}, {} steady step{} each{})", from, m.ranks, m.ranks == 1 ? "" : "s",
                      m.steps, m.steps == 1 ? "" : "s", m.device.empty() ? "" : ", " + m.device));
  t.Add(Key("figure", Unit::kText, "what the planner assumes"))
      .Add(Measure("measured", Unit::kPerRow, "measured in the profile (blank: the profile does not show it)")
               .Show("measured", 1, 3))
      .Add(Measure("default", Unit::kPerRow, "the planner's figure without --calibrate").Show("default", 1, 3))
      .Add(Measure("unit", Unit::kText, "the unit of measured and default"))
      .Add(Measure("applied", Unit::kText, "whether the plans below use the measured figure"))
      .Add(Measure("evidence", Unit::kText, "the measurement behind it, per step and rank").Whole());
  using K = plan::CalibratedKnob;
  auto num = [](double v) { return v >= 0 ? Cell::Real(v) : Cell::Null(); };
  for (const plan::CalibratedFigure& f : c.figures) {
    std::string name, unit = "fraction", evidence;
    double measured = f.measured, before = f.before;
    std::string applied = f.applied ? "yes" : "no";
    switch (f.knob) {
      case K::kGemm:
        name = "matmul efficiency (of the bf16 peak)";
        evidence =
            fmt::format("{:.3f} TFLOP in {:.3f} ms over {} matmul calls", f.num / 1e12, m.gemm_s * 1e3, m.gemm_calls);
        if (f.applied)
          evidence += fmt::format("; for large matmuls {:.3f} (the model's sizes in this run reach {:.3f} of it)",
                                  std::min(1.0, f.measured / c.run_gemm_shape), c.run_gemm_shape);
        break;
      case K::kAttention:
        name = "attention efficiency (of the bf16 peak, FLOPs executed)";
        evidence = fmt::format("{:.3f} TFLOP in {:.3f} ms over {} attention calls", f.num / 1e12, m.attention_s * 1e3,
                               m.attention_calls);
        break;
      case K::kOtherBytes:
        name = "other compute (norms, activations, casts, loss)";
        unit = "B per token, layer, hidden unit";
        evidence = fmt::format("{:.3f} ms of other compute kernels, as HBM traffic at the chip's bandwidth",
                               m.other_compute_s * 1e3);
        break;
      case K::kOptimizerHbm:
        name = "optimizer HBM efficiency (34 B per parameter)";
        evidence = fmt::format(fmt::runtime(m.xla ? "{:.3f} ms of ops in the optimizer pass (name stack)"
                                                  : "{:.3f} ms of kernels under Optimizer.*"),
                               m.optimizer_s * 1e3);
        break;
      case K::kStepOverhead:
        name = "host overhead per step (device idle)";
        unit = "ms";
        if (measured >= 0) measured *= 1e3;
        before *= 1e3;
        evidence = fmt::format(fmt::runtime(m.xla ? "mean execution of the main module {:.3f} ms - {:.3f} ms of op time"
                                                  : "median steady step {:.3f} ms wall - {:.3f} ms GPU busy"),
                               m.step_s * 1e3, m.busy_s * 1e3);
        break;
      case K::kCollective:
        if (f.kind.empty()) {
          name = "collective efficiency (bus bandwidth / link)";
          evidence = m.collectives.empty() ? "no collective of 1 MiB or more" : "the median of the kinds below";
        } else {
          name = fmt::format("  {} over {} ranks", f.kind, f.group);
          applied = "-";
          evidence = fmt::format("median bus bandwidth {:.1f} GB/s / link {:.1f} GB/s", f.num / 1e9, f.den / 1e9);
        }
        break;
      case K::kModelCheck:
        name = "matmul FLOPs per step and chip (default: the model's)";
        unit = "TFLOP";
        applied = "-";
        if (measured >= 0) measured /= 1e12;
        before /= 1e12;
        evidence = f.den > 0 && f.num > 0 ? fmt::format("measured / model = {:.3f}{}", f.num / f.den,
                                                        std::abs(f.num / f.den - 1) > 0.25
                                                            ? ": the model file or the flags do not describe this run"
                                                            : "")
                                          : "";
        if (m.gemm_uncosted_s > 0)
          evidence += fmt::format("{}{:.3f} ms of matmuls have no recorded shapes (not measured)",
                                  evidence.empty() ? "" : "; ", m.gemm_uncosted_s * 1e3);
        break;
      case K::kOverlap:
        name = "communication hidden under compute";
        evidence = fmt::format(fmt::runtime(m.xla ? "{:.3f} ms of collectives, {:.3f} ms of async waits (-done) exposed"
                                                  : "{:.3f} ms of communication kernels, {:.3f} ms of it exposed"),
                               m.comm_s * 1e3, m.exposed_comm_s * 1e3);
        break;
    }
    switch (f.skip) {
      case plan::CalibrationSkip::kNone:
        break;
      case plan::CalibrationSkip::kNotInProfile:
        if (f.knob != K::kModelCheck) applied = "no: not in the profile";
        break;
      case plan::CalibrationSkip::kGiven:
        applied = "no: --gemm-eff given";
        break;
      case plan::CalibrationSkip::kSmallSample:
        applied = "no: under 5 % of the busy time";
        break;
      case plan::CalibrationSkip::kModelMismatch:
        applied = c.model_ratio < 0 ? "no: no matmul shapes to check the model" : "no: the model check fails";
        break;
      case plan::CalibrationSkip::kNotDataParallel:
        applied = "no: TP, PP, CP or EP traffic too";
        break;
    }
    if (f.applied && f.measured > 1 && f.knob != K::kStepOverhead && f.knob != K::kOtherBytes)
      applied = "yes, capped at 1 (check the model and the flags)";
    t.rows.push_back({Cell::Text(name), num(measured), Cell::Real(before), Cell::Text(unit), Cell::Text(applied),
                      Cell::Text(evidence)});
  }
  for (const GemmSizeClass& g : m.gemm_sizes)
    t.rows.push_back(
        {Cell::Text(fmt::format("  matmuls of {:g}-{:g} GFLOP per call", g.lo / 1e9, g.hi / 1e9)),
         num(g.seconds > 0 && c.peak > 0 ? g.flops / g.seconds / c.peak : -1), Cell::Null(), Cell::Text("fraction"),
         Cell::Text("-"),
         Cell::Text(fmt::format("{} calls, {:.3f} TFLOP in {:.3f} ms", g.calls, g.flops / 1e12, g.seconds * 1e3))});
  if (m.xla)
    t.notes.push_back(
        "Per device and execution of the main module (the step), the mean over ranks. Matmul and attention FLOPs "
        "are the XLA ops' (the profiler's, or mlprof's HLO cost model); other compute is every op but matmuls, "
        "attention, the optimizer pass, collectives, async waits and memory transfers. Collective bandwidth is not "
        "measured from XLA profiles yet.");
  else
    t.notes.push_back(
        "Per steady step (after the warm-up; the last step left out) and rank, the mean over ranks. Matmul and "
        "attention FLOPs come from the ops' recorded shapes (mlprof roofline); other compute is every other "
        "compute kernel but the optimizer's. Host overhead: the slowest rank's median step.");
  if (c.model_ratio > 1.1 && c.model_ratio < 1.45 && c.run.remat == plan::Remat::kNone)
    t.notes.push_back(fmt::format(
        "The run's matmuls are {:.2f}x the model's: it probably recomputes activations (checkpointing). Describe it "
        "with --this-run --remat full (or full:N, selective, ...) so that the recompute is taken out of the "
        "figures.",
        c.model_ratio));
  if (c.model_ratio >= 0 && (c.model_ratio < 0.5 || c.model_ratio > 2))
    t.notes.push_back(fmt::format(
        "The run's matmul FLOPs are {:.3f}x the model's: the model file, --global-batch, --seq or the chip count "
        "do not describe this run; the figures per token, per parameter and per step are not applied.",
        c.model_ratio));
  if (m.gemm_s <= 0 && m.other_compute_s > 0)
    t.notes.push_back(
        "No matmul with recorded shapes in the profile (record_shapes=True, or replayed CUDA graphs without "
        "--capture): other compute then holds every compute kernel, and the plans charge it on top of the default "
        "matmul time.");
  if (m.attention_uncosted_s > 0)
    t.notes.push_back(fmt::format("{:.3f} ms of attention per step has no recorded shapes (not measured).",
                                  m.attention_uncosted_s * 1e3));
  return t;
}

Table ThisRunTable(const RunMeasurement& m, const plan::Calibration& c, const plan::Plan* best) {
  Table t("plan_this_run", "This run against the planner");
  t.Add(Key("what", Unit::kText, "the plan and the knobs"))
      .Add(Measure("step", Unit::kTime, "step time").Show("step_ms", 1e9, 3))
      .Add(Measure("vs_measured_pct", Unit::kPercent, "against the measured step").Show("vs_measured_%", 1, 1))
      .Add(Measure("plan", Unit::kText, "the plan").Whole());
  auto pct = [&](double s) { return m.step_s > 0 ? Cell::Real(100 * (s - m.step_s) / m.step_s) : Cell::Null(); };
  const std::string own = PlanLabel(c.run);
  t.rows.push_back(
      {Cell::Text("measured"), m.step_s > 0 ? TimeCell(m.step_s * 1e12) : Cell::Null(), Cell::Null(), Cell::Text(own)});
  t.rows.push_back({Cell::Text("predicted, default knobs"), TimeCell(c.predicted_default * 1e12),
                    pct(c.predicted_default), Cell::Text(own)});
  t.rows.push_back({Cell::Text("predicted, calibrated (fitted on this run)"), TimeCell(c.run.t_step * 1e12),
                    pct(c.run.t_step), Cell::Text(own)});
  if (best)
    t.rows.push_back({Cell::Text("best plan, calibrated"), TimeCell(best->t_step * 1e12), pct(best->t_step),
                      Cell::Text(PlanLabel(*best))});
  t.notes.push_back(fmt::format(
      "Measured: {} ({} step{}). The best plan is the first row of the plans below (the same job: model, chips, "
      "batch and sequence), against the measured step.",
      m.xla ? "the main module's mean execution" : "the median steady step's wall time", m.steps,
      m.steps == 1 ? "" : "s"));
  return t;
}

}  // namespace mlprof
