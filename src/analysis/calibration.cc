#include "analysis/calibration.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/attribution.h"
#include "analysis/intervals.h"
#include "analysis/op_cost.h"
#include "analysis/ops.h"
#include "analysis/steps.h"
#include "analysis/xla.h"

namespace mlprof {

namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool UnderOptimizer(const RankProfile& p, size_t g) {
  bool found = false;
  ForEachLaunchAncestor(p, g, [&](size_t q) {
    if (p.str(p.ops.name[q]).substr(0, 10) == "Optimizer.") found = true;
    return !found;
  });
  return found;
}

}  // namespace

RunMeasurement MeasureRun(const ProfileView& view, const CollectiveReport* collectives) {
  RunMeasurement m;
  OpsOptions oo;
  oo.by_shape = true;
  oo.steady_steps_only = true;
  const std::vector<OpGpuTime> ops = ComputeOpGpuTime(view, oo);
  const StepReport steps = ComputeSteps(view, {});
  std::map<double, GemmSizeClass> sizes;
  double slowest = -1;
  for (const RankView& rv : view.ranks) {
    const RankProfile& p = *rv.profile;
    const int warmup = WarmupSteps(p.steps.size(), {});
    const int64_t steady = rv.KeptSteps() - warmup;
    // The whole trace is no step: a calibration needs iterations.
    if (steady <= 0 || p.step_source == StepSource::kTrace) continue;
    if (m.ranks == 0) {
      m.world_size = p.meta.world_size;
      if (!p.meta.devices.empty()) m.device = p.meta.devices.front().name;
    }
    m.ranks++;
    m.steps = m.steps == 0 ? steady : std::min(m.steps, steady);
    const double n = static_cast<double>(steady);
    for (const StepSummary& s : steps.summary)
      if (s.rank == rv.rank && s.median_wall_us > slowest) {
        slowest = s.median_wall_us;
        m.step_s = s.median_wall_us * 1e-6;
        m.busy_s = s.median_busy_us * 1e-6;
      }
    // Kernels of the steady steps, by class; the optimizer's.
    std::vector<Interval> comm, compute;
    Ps compute_total = 0, optimizer = 0, comm_total = 0;
    for (const GpuOpRef& g : rv.gpu) {
      if (p.ops.kind[g.op] != OpKind::kKernel) continue;
      const int32_t step = p.ops.step[g.op];
      if (step < warmup) continue;  // warm-up, or outside every step (-1)
      const Ps d = g.end - g.ts;
      if (g.cls == KernelClass::kCommunication) {
        comm.push_back({g.ts, g.end});
        comm_total += d;
      } else if (g.cls == KernelClass::kComputation) {
        compute.push_back({g.ts, g.end});
        compute_total += d;
        if (UnderOptimizer(p, g.op)) optimizer += d;
      }
    }
    const Ps exposed = TotalLength(Subtract(Union(std::move(comm)), Union(std::move(compute))));
    double gemm_s = 0, attention_s = 0;
    for (const OpGpuTime& o : ops) {
      if (o.rank != rv.rank) continue;
      const double s = static_cast<double>(o.gpu_time) * 1e-12;
      if (o.flops_per_call < 0 || o.cost_kind.empty()) {
        // A matmul or attention op without shapes: its time is not other
        // compute, but it has no FLOPs to measure an efficiency with.
        const OpCategory named = CategoryOfCostableOp(o.name);
        if (named == OpCategory::kMatmul) gemm_s += s, m.gemm_uncosted_s += s / n;
        if (named == OpCategory::kAttention) attention_s += s, m.attention_uncosted_s += s / n;
        continue;
      }
      const OpCategory cat = CostCategory(o.cost_kind);
      const double flops = o.flops_per_call * static_cast<double>(o.calls);
      if (cat == OpCategory::kMatmul) {
        m.gemm_flops += flops / n, m.gemm_s += s / n, gemm_s += s;
        m.gemm_calls += o.calls;
        if (o.flops_per_call > 0) {
          const double lo = std::pow(10.0, std::floor(std::log10(o.flops_per_call)));
          GemmSizeClass& c = sizes[lo];
          c.lo = lo, c.hi = lo * 10;
          c.calls += o.calls, c.flops += flops / n, c.seconds += s / n;
        }
      } else if (cat == OpCategory::kAttention) {
        m.attention_flops += flops / n, m.attention_s += s / n, attention_s += s;
        m.attention_calls += o.calls;
      }
    }
    const double opt_s = static_cast<double>(optimizer) * 1e-12;
    m.optimizer_s += opt_s / n;
    m.other_compute_s += std::max(0.0, static_cast<double>(compute_total) * 1e-12 - gemm_s - attention_s - opt_s) / n;
    m.comm_s += static_cast<double>(comm_total) * 1e-12 / n;
    m.exposed_comm_s += static_cast<double>(exposed) * 1e-12 / n;
  }
  if (m.ranks > 0) {
    const double r = static_cast<double>(m.ranks);
    for (double* v : {&m.gemm_flops, &m.gemm_s, &m.attention_flops, &m.attention_s, &m.optimizer_s, &m.other_compute_s,
                      &m.comm_s, &m.exposed_comm_s, &m.gemm_uncosted_s, &m.attention_uncosted_s})
      *v /= r;
    m.gemm_calls =
        static_cast<int64_t>(std::llround(static_cast<double>(m.gemm_calls) / r / static_cast<double>(m.steps)));
    m.attention_calls =
        static_cast<int64_t>(std::llround(static_cast<double>(m.attention_calls) / r / static_cast<double>(m.steps)));
    for (auto& [lo, c] : sizes) {
      c.flops /= r, c.seconds /= r;
      c.calls = static_cast<int64_t>(std::llround(static_cast<double>(c.calls) / r / static_cast<double>(m.steps)));
      m.gemm_sizes.push_back(c);
    }
  }
  if (collectives) {
    if (m.world_size < 0) m.world_size = collectives->world_size;
    std::map<std::pair<std::string, int64_t>, std::pair<std::vector<double>, std::vector<double>>> by;
    for (const CollectiveInstance& c : collectives->instances)
      if (c.bytes >= (1 << 20) && c.bus_bw > 0 && c.group_size > 1) {
        auto& [bw, bytes] = by[{c.kind, c.group_size}];
        bw.push_back(c.bus_bw);
        bytes.push_back(static_cast<double>(c.bytes));
      }
    for (auto& [key, v] : by)
      m.collectives.push_back(
          {key.first, key.second, static_cast<int64_t>(v.first.size()), Median(v.second), Median(v.first)});
  }
  return m;
}

RunMeasurement MeasureXlaRun(const Profile& profile) {
  RunMeasurement m;
  double devices = 0;
  for (const RankProfile& r : profile.ranks) {
    if (r.xla_ops.empty()) continue;
    const XlaOps x = ResolveXlaOps(r);
    const XlaBreakdown b = BreakdownXla(r, x);
    if (b.devices == 0 || b.total <= 0) continue;
    if (m.ranks == 0 && !r.meta.devices.empty()) m.device = r.meta.devices.front().name;
    m.xla = true;
    m.ranks++;
    const double per = static_cast<double>(b.devices) * static_cast<double>(std::max<int64_t>(1, b.steps));
    devices += b.devices;
    m.steps = m.steps == 0 ? std::max<int64_t>(1, b.steps) : std::min(m.steps, std::max<int64_t>(1, b.steps));
    const double step = static_cast<double>(b.step_time) * 1e-12;
    if (step > m.step_s) m.step_s = step, m.busy_s = static_cast<double>(b.total) * 1e-12 / per;
    double total = 0, skip = 0;
    for (const XlaGroupRow& row : b.rows) {
      const double s = static_cast<double>(row.time) * 1e-12;
      const double opt = static_cast<double>(row.by_pass[static_cast<size_t>(XlaPass::kOptimizer)]) * 1e-12;
      total += s;
      m.optimizer_s += opt / per;
      switch (row.group) {
        case OpCategory::kMatmul:
          m.gemm_flops += row.flops / per, m.gemm_s += (s - opt) / per, skip += s - opt;
          m.gemm_calls += row.count;
          break;
        case OpCategory::kAttention:
          m.attention_flops += row.flops / per, m.attention_s += (s - opt) / per, skip += s - opt;
          m.attention_calls += row.count;
          break;
        case OpCategory::kCollective:
          m.comm_s += s / per, skip += s - opt;
          break;
        case OpCategory::kAsyncWait:
          m.exposed_comm_s += s / per, skip += s - opt;
          break;
        case OpCategory::kMemoryTransfer:
          skip += s - opt;
          break;
        default:
          break;
      }
      skip += opt;
    }
    m.other_compute_s += std::max(0.0, total - skip) / per;
  }
  if (m.ranks > 1) {
    const double r = static_cast<double>(m.ranks);
    for (double* v : {&m.gemm_flops, &m.gemm_s, &m.attention_flops, &m.attention_s, &m.optimizer_s, &m.other_compute_s,
                      &m.comm_s, &m.exposed_comm_s})
      *v /= r;
  }
  if (m.ranks > 0) {
    const double steps = static_cast<double>(m.steps) * devices;
    m.gemm_calls = static_cast<int64_t>(std::llround(static_cast<double>(m.gemm_calls) / steps));
    m.attention_calls = static_cast<int64_t>(std::llround(static_cast<double>(m.attention_calls) / steps));
    m.world_size = static_cast<int64_t>(devices);
  }
  return m;
}

namespace plan {

Calibration Calibrate(const RunMeasurement& m, const ModelSpec& model, const Cluster& c, const TrainSpec& t,
                      const Knobs& k, const Plan& run) {
  using Skip = CalibrationSkip;
  Calibration out;
  out.knobs = k;
  out.peak = c.chip.peak(hw::DType::kBf16);
  const double peak = c.chip.peak(hw::DType::kBf16), hbm = c.chip.hbm_bytes_per_s;
  const double chips = static_cast<double>(c.chips);
  auto figure = [](CalibratedKnob knob, double before) {
    CalibratedFigure f;
    f.knob = knob, f.before = before, f.skip = Skip::kNotInProfile;
    return f;
  };
  auto add = [&](CalibratedKnob knob, double before, double num, double den, bool known, double* target,
                 Skip skip = Skip::kNone) {
    CalibratedFigure f = figure(knob, before);
    f.num = num, f.den = den;
    if (known && den > 0 && num > 0) {
      f.measured = num / den;
      f.skip = skip;
      f.applied = skip == Skip::kNone;
      if (f.applied) *target = f.measured;
    }
    out.figures.push_back(f);
  };
  Knobs& kn = out.knobs;
  // Does the model describe the run? Its matmul FLOPs per chip against the
  // shapes' (the split path of Explain counts the scores apart).
  Knobs split = k;
  split.attention = 1;
  const Explanation es = Explain(model, c, t, split, run);
  const double expected = (es.plan.model_flops + es.plan.remat_flops - es.score_flops) / chips;
  out.model_ratio = m.gemm_s > 0 && expected > 0 ? m.gemm_flops / expected : -1;
  const bool model_fits = out.model_ratio >= 0.5 && out.model_ratio <= 2;
  // A handful of ops is no measure of the run's efficiency.
  const double busy = m.busy_s > 0 ? m.busy_s : m.gemm_s + m.attention_s + m.other_compute_s + m.optimizer_s;
  auto sample = [&](double s) { return busy > 0 && s >= 0.05 * busy ? Skip::kNone : Skip::kSmallSample; };
  const GemmFigure gemm = GemmEfficiency(k, c.chip);
  add(CalibratedKnob::kGemm, gemm.efficiency, m.gemm_flops, m.gemm_s * peak, m.gemm_s > 0, &kn.gemm,
      k.gemm > 0 ? Skip::kGiven : sample(m.gemm_s));
  // The measured efficiency is at this run's matmul sizes: the planner's
  // knob is for large ones (it scales each plan by its sizes).
  const Explanation e = Explain(model, c, t, k, run);
  const double run_shape = e.gemm_shape;
  out.run_gemm_shape = run_shape;
  if (out.figures.back().applied && run_shape > 0) kn.gemm = out.figures.back().measured / run_shape;
  add(CalibratedKnob::kAttention, k.attention > 0 ? k.attention : gemm.efficiency, m.attention_flops,
      m.attention_s * peak, m.attention_s > 0, &kn.attention, sample(m.attention_s));
  const double tokens = static_cast<double>(t.global_batch) * static_cast<double>(t.seq);
  // The run's recomputed forward repeats part of the other ops (the
  // planner's factor 1 + remat / model FLOPs): take it out.
  const double recompute = e.plan.model_flops > 0 ? 1 + e.plan.remat_flops / e.plan.model_flops : 1;
  // Figures per token and layer, per parameter or per step need the model
  // (and the flags) to be the run's.
  const Skip per_model = model_fits ? Skip::kNone : Skip::kModelMismatch;
  add(CalibratedKnob::kOtherBytes, k.other_bytes, m.other_compute_s * hbm * chips,
      tokens * static_cast<double>(model.layers) * static_cast<double>(model.hidden) * recompute, m.other_compute_s > 0,
      &kn.other_bytes, per_model);
  add(CalibratedKnob::kOptimizerHbm, k.hbm, 34 * e.opt_params, m.optimizer_s * hbm, m.optimizer_s > 0, &kn.hbm,
      per_model);
  add(CalibratedKnob::kStepOverhead, k.step_overhead, std::max(0.0, m.step_s - m.busy_s), 1,
      m.step_s > 0 && m.busy_s > 0, &kn.step_overhead, per_model);
  if (out.figures.back().measured < 0 && m.step_s > 0 && m.busy_s >= m.step_s) {  // no idle: 0 is the figure
    out.figures.back().measured = 0;
    out.figures.back().skip = per_model;
    out.figures.back().applied = per_model == Skip::kNone;
    if (out.figures.back().applied) kn.step_overhead = 0;
  }
  // Collectives: each kind's median bus bandwidth against its group's link.
  std::vector<double> ratios;
  std::vector<CalibratedFigure> rows;
  for (const CollectiveBandwidth& b : m.collectives) {
    const double link = b.group_size <= c.node_size ? c.fast_bw : c.slow_bw;
    CalibratedFigure f = figure(CalibratedKnob::kCollective, k.collective);
    f.measured = link > 0 ? b.bus_bw_median / link : -1;
    f.skip = Skip::kNone;
    f.num = b.bus_bw_median, f.den = link, f.kind = b.kind, f.group = b.group_size;
    if (f.measured > 0) ratios.push_back(f.measured);
    rows.push_back(f);
  }
  {
    CalibratedFigure f = figure(CalibratedKnob::kCollective, k.collective);
    if (!ratios.empty()) {
      std::sort(ratios.begin(), ratios.end());
      const size_t n = ratios.size();
      f.measured = std::min(1.0, n % 2 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2);
      f.applied = true;
      f.skip = Skip::kNone;
      kn.collective = f.measured;
    }
    out.figures.push_back(f);
  }
  const bool only_data_parallel = run.tp == 1 && run.pp == 1 && run.cp == 1 && run.ep == 1;
  {
    CalibratedFigure f = figure(CalibratedKnob::kOverlap, k.overlap);
    f.num = std::max(0.0, m.comm_s - m.exposed_comm_s), f.den = m.comm_s;
    if (m.comm_s > 0) {
      f.measured = f.num / f.den;
      f.skip = only_data_parallel ? Skip::kNone : Skip::kNotDataParallel;
      f.applied = only_data_parallel;
      if (f.applied) kn.overlap = f.measured;
    }
    out.figures.push_back(f);
  }
  {
    CalibratedFigure f = figure(CalibratedKnob::kModelCheck, expected);
    f.measured = m.gemm_s > 0 ? m.gemm_flops : -1;
    f.skip = Skip::kNone;
    f.num = m.gemm_flops, f.den = expected;
    out.figures.push_back(f);
  }
  for (CalibratedFigure& f : rows) out.figures.push_back(std::move(f));
  kn.gemm = std::clamp(kn.gemm, 0.0, 1.0);
  kn.hbm = std::clamp(kn.hbm, 0.01, 1.0);
  out.predicted_default = Evaluate(model, c, t, k, run).t_step;
  out.run = Evaluate(model, c, t, kn, run);
  return out;
}

}  // namespace plan
}  // namespace mlprof
