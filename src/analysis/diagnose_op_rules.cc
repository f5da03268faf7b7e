// diagnose's evaluators (analysis/diagnose_rules.h): the rules over ops: fp32 matmuls, pageable copies, slow host
// calls, XLA's async waits, data formatting and recompute, the input pipeline, matmuls against their roofline.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "analysis/diagnose_rules.h"
#include "analysis/gpu_time.h"
#include "analysis/grade.h"
#include "analysis/intervals.h"
#include "analysis/kernel_class.h"
#include "analysis/launches.h"
#include "analysis/layers.h"
#include "analysis/op_cost.h"
#include "analysis/overview.h"
#include "analysis/stats.h"
#include "analysis/steps.h"
#include "analysis/xla.h"
#include "base/collective.h"
#include "hw/chip.h"

namespace mlprof::diagnose {

void Run::Fp32Matmul() {
  // fp32_matmul: SIMT fp32 GEMM kernels (cuBLAS / CUTLASS sgemm) on a GPU
  // whose chip has tensor-core peaks: their time, at the ratio of the chip's
  // TF32 (else FP16) peak to its FP32 peak.
  for (const RankView& rv : view.ranks) {
    const RankProfile& p = *rv.profile;
    const StepBasis& b = basis[rv.rank];
    const hw::Chip* chip = nullptr;
    for (const DeviceProperties& d : p.meta.devices)
      if (!chip) chip = hw::ChipDb::BuiltIn().Detect(d.name);
    if (!chip || !(chip->peak(hw::DType::kFp32) > 0)) continue;
    const double fast = chip->peak(hw::DType::kTf32) > 0 ? chip->peak(hw::DType::kTf32) : chip->peak(hw::DType::kFp16);
    const double ratio = fast / chip->peak(hw::DType::kFp32);
    if (!(ratio > 1.5)) continue;
    std::vector<Interval> sgemm, kernels;
    int64_t n = 0;
    for (const GpuOpRef& g : rv.gpu) {
      if (p.ops.kind[g.op] != OpKind::kKernel || g.end <= b.w0 || g.ts >= b.w1) continue;
      kernels.push_back({g.ts, g.end});
      const std::string_view name = p.str(p.ops.name[g.op]);
      if (name.find("sgemm") == std::string_view::npos) continue;
      sgemm.push_back({g.ts, g.end});
      ++n;
    }
    const Ps t = LengthWithin(Union(std::move(sgemm)), b.w0, b.w1);
    const Ps all = LengthWithin(Union(std::move(kernels)), b.w0, b.w1);
    const Ps per_step = b.PerStep(static_cast<Ps>(std::llround(static_cast<double>(t) * (1 - 1 / ratio))));
    // It counts when the sgemm time is a real share of the GPU's work (a
    // mostly idle step is another rule's finding).
    if (n == 0 || per_step < o.min_saving || static_cast<double>(t) < o.min_share * static_cast<double>(all)) continue;
    Finding f;
    f.rule = Rule::fp32_matmul;
    f.rank = rv.rank;
    f.subject = fmt::format("rank {}", rv.rank);
    f.evidence = fmt::format(
        "{} SIMT fp32 GEMM kernels (sgemm) run {} in {} ({:.1f} % of the GPU's kernel time there) on {} (fp32 "
        "{:.1f}, {} {:.0f} TFLOP/s dense)",
        n, Ms(t), b.from_steps ? "the steady steps" : "the trace",
        all > 0 ? 100.0 * static_cast<double>(t) / static_cast<double>(all) : 0.0, chip->name,
        chip->peak(hw::DType::kFp32) / 1e12, chip->peak(hw::DType::kTf32) > 0 ? "tf32" : "fp16", fast / 1e12);
    f.saving = per_step;
    f.step = b.step;
    f.formula = fmt::format(
        "sgemm time {} x (1 - fp32 peak / {} peak = 1 - 1/{:.1f}) = {} per step, if they ran at "
        "the tensor cores' rate as fast as at fp32's",
        b.Per(t), chip->peak(hw::DType::kTf32) > 0 ? "tf32" : "fp16", ratio, Ms(per_step));
    f.confidence = Confidence::kMedium;  // the peaks' ratio bounds it; real GEMMs gain less
    out.push_back(std::move(f));
  }
}

void Run::PageableCopies() {
  // pageable_copies: host-to-device copies from pageable memory, the time
  // no computation hides.
  for (const RankView& rv : view.ranks) {
    const RankProfile& p = *rv.profile;
    const StepBasis& b = basis[rv.rank];
    const auto& comp = rv.unions.by_class[static_cast<int>(KernelClass::kComputation)];
    std::vector<Interval> copies;
    int64_t n = 0, bytes = 0;
    Ps longest = 0, total = 0;
    for (const GpuOpRef& g : rv.gpu) {
      if (p.ops.kind[g.op] != OpKind::kMemcpy) continue;
      const std::string_view name = p.str(p.ops.name[g.op]);
      if (name.find("Pageable") == std::string_view::npos ||
          (name.find("HtoD") == std::string_view::npos && name.find("Host to Device") == std::string_view::npos))
        continue;
      if (g.end <= b.w0 || g.ts >= b.w1) continue;
      copies.push_back({g.ts, g.end});
      ++n;
      total += g.end - g.ts;
      longest = std::max(longest, g.end - g.ts);
      bytes += std::max<int64_t>(0, p.ops.bytes_of(g.op));
    }
    if (n == 0) continue;
    const Ps exposed = LengthWithin(Subtract(Union(std::move(copies)), comp), b.w0, b.w1);
    const Ps per_step = b.PerStep(exposed);
    if (!Worth(per_step, b.step)) continue;
    Finding f;
    f.rule = Rule::pageable_copies;
    f.rank = rv.rank;
    f.subject = fmt::format("rank {}", rv.rank);
    f.evidence = fmt::format(
        "{} host-to-device copies from pageable memory: {}, {:.3f} GB, the longest {}; {} of it "
        "with no computation beside it",
        n, Ms(total), static_cast<double>(bytes) / 1e9, Ms(longest), Ms(exposed));
    f.saving = per_step;
    f.step = b.step;
    f.formula = fmt::format(
        "pageable copies no computation overlaps: {} = {} per step, if pinned non-blocking "
        "copies ran beside the computation",
        b.Per(exposed), Ms(per_step));
    f.confidence = Confidence::kMedium;
    out.push_back(std::move(f));
  }
}

void Run::SlowHostCall() {
  // slow_host_call: a kernel launch call far longer than the
  // others of its name (at least 100x their median and 1 ms), inside the
  // window: its excess over that median.
  for (const RankView& rv : view.ranks) {
    const RankProfile& p = *rv.profile;
    const StepBasis& b = basis[rv.rank];
    std::map<StringId, std::vector<size_t>> calls;
    // Kernel launches only: a copy or a synchronisation may rightly wait
    // for the GPU's earlier work.
    std::map<StringId, bool> is_launch;
    for (size_t i = 0; i < p.ops.size(); ++i) {
      if (!IsLaunchOp(p.ops.kind[i]) || (!rv.keep.empty() && !rv.keep[i])) continue;
      auto [it, fresh] = is_launch.emplace(p.ops.name[i], false);
      if (fresh) {
        const std::string_view n = p.str(p.ops.name[i]);
        it->second = n.find("LaunchKernel") != std::string_view::npos ||
                     n.find("LaunchCooperativeKernel") != std::string_view::npos ||
                     n.find("cuLaunch") != std::string_view::npos;
      }
      if (it->second) calls[p.ops.name[i]].push_back(i);
    }
    size_t worst = SIZE_MAX;
    Ps worst_excess = 0, worst_median = 0, name_total = 0;
    int64_t name_calls = 0;
    for (auto& [name, ops] : calls) {
      if (ops.size() < 10) continue;
      std::vector<double> durs;
      Ps sum = 0;
      for (size_t i : ops) durs.push_back(static_cast<double>(p.ops.dur[i])), sum += p.ops.dur[i];
      const Ps median = static_cast<Ps>(std::llround(Median(durs)));
      for (size_t i : ops) {
        const Ps d = p.ops.dur[i];
        if (d < kPsPerMs || d < 100 * std::max<Ps>(median, 1)) continue;
        const Ps excess = b.Clip(p.ops.ts[i], p.ops.ts[i] + d) - std::min(median, d);
        if (excess > worst_excess)
          worst = i, worst_excess = excess, worst_median = median, name_total = sum,
          name_calls = static_cast<int64_t>(ops.size());
      }
    }
    if (worst == SIZE_MAX) continue;
    const Ps per_step = b.PerStep(worst_excess);
    if (!Worth(per_step, b.step)) continue;
    Finding f;
    f.rule = Rule::slow_host_call;
    f.rank = rv.rank;
    f.subject = fmt::format("rank {}", rv.rank);
    f.evidence =
        fmt::format("one {} took {} where the median of its {} calls is {} (all of them: {})", p.str(p.ops.name[worst]),
                    Ms(p.ops.dur[worst]), name_calls, Ms(worst_median), Ms(name_total));
    f.saving = per_step;
    f.step = b.step;
    f.formula = fmt::format(
        "the call's time beyond the median, in the window: {} = {} per step (once: a "
        "one-time cost)",
        b.Per(worst_excess), Ms(per_step));
    f.confidence = Confidence::kMedium;
    out.push_back(std::move(f));
  }
}

void Run::DeviceOpClasses() {
  // Device ops by what they do, inside the window: async waits and data
  // formatting (XLA categories; PyTorch copy ops), recompute (XLA's remat
  // pass; PyTorch ops under torch.utils.checkpoint's recompute_fn, as
  // TraceLens marks them) against the backward pass. XLA ranks with several
  // devices: the mean per device.
  for (const RankView& rv : view.ranks) {
    const RankProfile& p = *rv.profile;
    const StepBasis& b = basis[rv.rank];
    const auto xi = in.xla.find(rv.rank);
    const XlaOps* xops = xi != in.xla.end() && !p.xla_ops.empty() ? xi->second : nullptr;
    struct Acc {
      Ps total = 0;
      int64_t n = 0;
      std::map<std::string, Ps> by_op;
    } wait, fmt_ops, remat, backward;
    std::map<std::string, std::string> behind;  // async wait op -> "all-gather, groups of 4"
    const int devices = p.xla_ops.empty() ? 1 : XlaDevices(p);
    for (size_t i = 0; !p.xla_ops.empty() && i < p.ops.size(); ++i) {
      if ((!rv.keep.empty() && !rv.keep[i]) || p.ops.xla[i] < 0) continue;
      const XlaOp& x = p.xla_ops[static_cast<size_t>(p.ops.xla[i])];
      const std::string_view op = p.str(x.hlo_op ? x.hlo_op : p.ops.name[i]);
      const OpCategory c = GroupFromCategory(p.str(x.category), op);
      const Ps inw = b.Clip(rv.Ts(static_cast<uint32_t>(i)), rv.End(static_cast<uint32_t>(i)));
      if (inw <= 0) continue;
      if (xops) {
        const XlaOpInfo& info = xops->ops[static_cast<size_t>(p.ops.xla[i])];
        // Recomputed: JAX names the recomputed ops rematted_computation (a
        // bare "checkpoint" in the name stack also marks the checkpointed
        // layer's forward and backward, which are not recompute).
        const bool rematted = info.op_name.find("rematted_computation") != std::string::npos;
        if (rematted) remat.total += inw, ++remat.n, remat.by_op[std::string(op)] += inw;
        if (rematted || info.pass == XlaPass::kBackward) backward.total += inw, ++backward.n;
        if (c == OpCategory::kAsyncWait && !info.collective.empty())
          behind.emplace(std::string(op),
                         fmt::format("{}{}{}", info.collective,
                                     info.participants > 0 ? fmt::format(", groups of {}", info.participants) : "",
                                     info.replica_groups.empty() ? "" : ": " + info.replica_groups));
      }
      Acc* acc = c == OpCategory::kAsyncWait ? &wait : c == OpCategory::kDataFormatting ? &fmt_ops : nullptr;
      if (!acc) continue;
      acc->total += inw, ++acc->n;
      acc->by_op[std::string(op)] += inw;
    }
    if (p.xla_ops.empty()) {
      // PyTorch: where each GPU op was launched from: 1 under
      // torch.utils.checkpoint's recompute_fn (recompute), 2 under the
      // autograd engine (backward), 0 neither.
      auto pass_of = [&](int32_t q0) -> int8_t {
        int8_t v = 0;
        for (int32_t q = q0; q >= 0; q = p.ops.parent[q]) {
          const std::string_view n = p.str(p.ops.name[q]);
          if (p.ops.kind[q] == OpKind::kPythonFunction) {
            if (n.find("torch/utils/checkpoint.py") != n.npos && n.find("recompute_fn") != n.npos) return 1;
          } else if (IsBackwardOpName(n)) {
            v = 2;
          }
        }
        return v;
      };
      for (const GpuOpRef& g : rv.gpu) {
        const OpKind k = p.ops.kind[g.op];
        const bool dtod = k == OpKind::kMemcpy && p.str(p.ops.name[g.op]).find("DtoD") != std::string_view::npos;
        if ((k != OpKind::kKernel && !dtod) || g.cls == KernelClass::kCommunication) continue;
        if (p.ops.launch[g.op] < 0) continue;
        // The steady steps' GPU ops; without steps, the part inside the window.
        const Ps inw = b.end > b.first ? (b.Steady(p.ops.step[g.op]) ? g.end - g.ts : 0) : b.Clip(g.ts, g.end);
        if (inw <= 0) continue;
        const int32_t owner = LaunchingCpuOp(p, g.op);
        // A copy between dtypes (["c10::BFloat16", "float"]) is a cast, not
        // a layout change: left out.
        const bool cast = owner >= 0 && IsCast(p.str(p.ops.input_types_of(static_cast<size_t>(owner))));
        if (owner >= 0 && !cast && IsFormattingOp(p.str(p.ops.name[owner]))) {
          const std::string_view dims = p.str(p.ops.input_dims_of(static_cast<size_t>(owner)));
          fmt_ops.total += inw, ++fmt_ops.n;
          fmt_ops.by_op[fmt::format("{}{}{}", p.str(p.ops.name[owner]), dims.empty() ? "" : " ", dims)] += inw;
        }
        const int8_t v = pass_of(static_cast<int32_t>(p.ops.launch[g.op]));
        if (v == 0) continue;
        const std::string name = owner >= 0 ? std::string(p.str(p.ops.name[owner])) : "(no cpu_op)";
        backward.total += inw, ++backward.n;  // recompute runs inside the backward pass
        if (v == 1) remat.total += inw, ++remat.n, remat.by_op[name] += inw;
      }
    }
    for (Acc* a : {&wait, &fmt_ops, &remat, &backward}) {
      a->total /= devices;
      for (auto& [op, t] : a->by_op) t /= devices;
    }
    auto top = [&](const Acc& a) {
      std::vector<std::pair<Ps, std::string_view>> v;
      for (const auto& [op, t] : a.by_op) v.push_back({t, op});
      std::sort(v.begin(), v.end(), [](const auto& x, const auto& y) {
        return x.first != y.first ? x.first > y.first : x.second < y.second;
      });
      std::string out;
      for (size_t k = 0; k < v.size() && k < 3; ++k) {
        auto bh = behind.find(std::string(v[k].second));
        out += fmt::format("{}{} {}{}", k ? ", " : "", v[k].second, Ms(v[k].first),
                           bh != behind.end() ? " (" + bh->second + ")" : "");
      }
      return out;
    };
    const std::string per_device = devices > 1 ? fmt::format(" (mean of {} devices)", devices) : "";
    const std::pair<Rule, const Acc*> rules[] = {
        {Rule::async_wait, &wait}, {Rule::data_formatting, &fmt_ops}, {Rule::recompute, &remat}};
    // XLA ops are clipped to the window; PyTorch GPU ops counted by step.
    const bool by_step = p.xla_ops.empty();
    for (const auto& [rule, acc] : rules) {
      const Ps per_step = by_step ? b.PerStepOps(acc->total) : b.PerStep(acc->total);
      if (!Worth(per_step, b.step)) continue;
      Finding f;
      f.rule = rule;
      f.rank = rv.rank;
      f.subject = fmt::format("rank {}", rv.rank);
      f.evidence = fmt::format("{} ops, {}{}; the largest: {}", acc->n, Ms(acc->total), per_device, top(*acc));
      if (rule == Rule::recompute && backward.total > 0)
        f.evidence += fmt::format("; the backward pass takes {}, so recompute is {:.1f} % of it", Ms(backward.total),
                                  100.0 * static_cast<double>(acc->total) / static_cast<double>(backward.total));
      f.saving = per_step;
      f.step = b.step;
      const char* what = rule == Rule::async_wait        ? "async wait"
                         : rule == Rule::data_formatting ? "data formatting"
                                                         : "recompute";
      f.formula = fmt::format("{} time: {} = {} per step, if none of it were needed", what,
                              by_step ? b.PerOps(acc->total) : b.Per(acc->total), Ms(per_step));
      f.confidence = Confidence::kLow;  // an upper bound: some waits, copies and recompute remain
      out.push_back(std::move(f));
    }
  }
}

void Run::InputPipelineDataLoader() {
  // input_pipeline: the TensorBoard plugin's DataLoader role per step (time
  // the DataLoader runs while no GPU op does), median over the steps after
  // the first (of three or more).
  for (const RankView& rv : view.ranks) {
    const RankOverview ov = ComputeRankOverview(*rv.profile, rv.rank);
    const StepBasis& b = basis[rv.rank];
    if (ov.source != StepSource::kProfilerStep && b.from_steps) {
      // No ProfilerStep (the plugin's per-step roles are its parity figure)
      // but steps from elsewhere (Optimizer.step ranges, annotations,
      // repeats, serving steps): the
      // DataLoader's __next__ time while no GPU op runs, in the steady
      // steps' window, per step.
      const RankProfile& p = *rv.profile;
      std::vector<Interval> loads;
      int64_t calls = 0;
      Ps longest = 0;
      for (size_t i = 0; i < p.ops.size(); ++i) {
        if ((!rv.keep.empty() && !rv.keep[i]) || p.ops.end(i) <= b.w0 || p.ops.ts[i] >= b.w1 ||
            !IsDataLoaderName(p.str(p.ops.name[i])))
          continue;
        loads.push_back({p.ops.ts[i], p.ops.end(i)});
        ++calls;
        longest = std::max(longest, p.ops.dur[i]);
      }
      const Ps idle = LengthWithin(Subtract(Union(std::move(loads)), rv.unions.all), b.w0, b.w1);
      const Ps per_step = b.PerStep(idle);
      if (calls == 0 || !Worth(per_step, b.step)) continue;
      Finding f;
      f.rule = Rule::input_pipeline;
      f.rank = rv.rank;
      f.subject = fmt::format("rank {}", rv.rank);
      f.evidence = fmt::format(
          "{} DataLoader __next__ calls (the longest {}) run while no GPU op does for {} of the steady steps", calls,
          Ms(longest), Ms(idle));
      f.saving = per_step;
      f.step = b.step;
      f.formula =
          fmt::format("DataLoader time with the GPU idle: {} = {} per step, if loading overlapped with the step",
                      b.Per(idle), Ms(per_step));
      f.confidence = Confidence::kMedium;
      out.push_back(std::move(f));
      continue;
    }
    if (ov.host_span_step || ov.steps.empty()) continue;
    std::vector<double> loader;
    const size_t skip = ov.steps.size() >= 3 ? 1 : 0;
    Ps worst = 0;
    for (size_t k = skip; k < ov.steps.size(); ++k) {
      const Ps d = ov.steps[k].role[static_cast<size_t>(StepRole::kDataLoader)];
      loader.push_back(static_cast<double>(d));
      worst = std::max(worst, d);
    }
    const Ps per_step = static_cast<Ps>(std::llround(Median(loader)));
    if (!Worth(per_step, b.step)) continue;
    Finding f;
    f.rule = Rule::input_pipeline;
    f.rank = rv.rank;
    f.subject = fmt::format("rank {}", rv.rank);
    f.evidence =
        fmt::format("the DataLoader runs while no GPU op does for a median {} per step (at most {}) over {} steps",
                    Ms(per_step), Ms(worst), loader.size());
    f.saving = per_step;
    f.step = b.step;
    f.formula = fmt::format(
        "median DataLoader time per step {} (the TensorBoard plugin's DataLoader role), if loading "
        "overlapped with the step",
        Ms(per_step));
    f.confidence = Confidence::kMedium;
    out.push_back(std::move(f));
  }
}

void Run::InputPipelineTfData() {
  // input_pipeline, tf.data: the consumer side of the input pipeline, the
  // IteratorGetNext* ops (IteratorGetNext, ...Sync, ...AsOptional and its
  // async DoCompute, MultiDeviceIteratorGetNextFromShard), which return
  // when the next batch is ready: while they run the step waits for input.
  // Their union inside the window, as a share of the step.
  for (const RankView& rv : view.ranks) {
    const RankProfile& p = *rv.profile;
    std::vector<Interval> spans;
    int64_t calls = 0;
    Ps longest = 0;
    const StepBasis& b = basis[rv.rank];
    for (size_t i = 0; i < p.ops.size(); ++i) {
      if ((!rv.keep.empty() && !rv.keep[i]) || OccupiesStream(p.ops.kind[i])) continue;
      const std::string_view n = p.str(p.ops.name[i]);
      if (n.substr(0, 15) != "IteratorGetNext" && n.substr(0, 35) != "MultiDeviceIteratorGetNextFromShard") continue;
      const Ps t0 = rv.Ts(static_cast<uint32_t>(i)), t1 = rv.End(static_cast<uint32_t>(i));
      if (b.Clip(t0, t1) <= 0) continue;
      spans.push_back({t0, t1});
      ++calls;
      longest = std::max(longest, t1 - t0);
    }
    if (spans.empty()) continue;
    // While no GPU op runs: the step waits for input only then.
    const Ps wait = LengthWithin(Subtract(Union(std::move(spans)), rv.unions.all), b.w0, b.w1);
    const Ps per_step = b.PerStep(wait);
    if (!Worth(per_step, b.step)) continue;
    Finding f;
    f.rule = Rule::input_pipeline;
    f.rank = rv.rank;
    f.subject = fmt::format("rank {}", rv.rank);
    f.evidence = fmt::format(
        "tf.data: IteratorGetNext* ops run while no GPU op does for {}, in {} calls (the longest {}); they "
        "return when the next batch is ready",
        Ms(wait), calls, Ms(longest));
    f.saving = per_step;
    f.step = b.step;
    f.formula = fmt::format("input wait: {} = {} per step, if the input pipeline kept ahead of the step", b.Per(wait),
                            Ms(per_step));
    f.confidence = Confidence::kMedium;
    out.push_back(std::move(f));
  }
}

void Run::Matmuls() {
  // matmul_efficiency and memory_bound_matmul: the roofline's matmul and
  // convolution rows. Compute-bound ones are held to `matmul_efficiency` of
  // their roofline (expected / efficiency); memory-bound ones to the time
  // their FLOPs take at that share of the compute peak (what batching them
  // up to the ridge point would reach). Totals cover the roofline's ops (the
  // steady steps, or the whole trace), per device.
  for (const RankView& rv : view.ranks) {
    auto ri = in.roofline.find(rv.rank);
    if (ri == in.roofline.end() || !ri->second) continue;
    const RooflineResult& rr = *ri->second;
    const StepBasis& b = basis[rv.rank];
    const int devices = rv.profile->xla_ops.empty() ? 1 : XlaDevices(*rv.profile);
    const double eff = o.matmul_efficiency;
    struct Gap {
      double gap_s = 0, time_s = 0;
      const RooflineRow* row = nullptr;
      double target_s = 0;  // per execution
    };
    std::vector<Gap> compute, memory_rows;
    double compute_gap = 0, memory_gap = 0, compute_time = 0, memory_time = 0;
    for (const RooflineRow& row : rr.ops) {
      if (row.category != OpCategoryName(OpCategory::kMatmul) || row.count <= 0 || !(row.expected_s > 0)) continue;
      Gap g;
      g.row = &row;
      g.time_s = row.time_s;
      // Memory-bound where the bound holds the op below what a good kernel
      // reaches (ceiling under `eff`); above it, the kernel is what to fix.
      const bool memory = row.bound == RoofBound::kMemory && row.ceiling_pct >= 0 && row.ceiling_pct < 100 * eff;
      if (row.bound == RoofBound::kCompute || (row.bound == RoofBound::kMemory && !memory)) {
        g.target_s = row.expected_s / eff;
      } else if (memory) {
        g.target_s = row.expected_s / eff;  // bytes / (70 % of the bandwidth): what the kernel can reach
      } else {
        continue;
      }
      g.gap_s = std::max(0.0, row.time_s - g.target_s * static_cast<double>(row.count));
      if (g.gap_s <= 0) continue;
      if (!memory)
        compute.push_back(g), compute_gap += g.gap_s, compute_time += row.time_s;
      else
        memory_rows.push_back(g), memory_gap += g.gap_s, memory_time += row.time_s;
    }
    auto to_ps = [&](double sec) { return static_cast<Ps>(std::llround(sec * 1e12 / devices)); };
    auto emit = [&](Rule rule, std::vector<Gap>& rows, double gap, double time) {
      const Ps total = to_ps(gap);
      // The roofline covers the steady steps' ops (PyTorch), or the whole
      // trace (XLA: its share of the step).
      // XLA: the roofline spans the whole trace, so its share of the
      // trace's span (not of the window) times the step.
      StepBasis trace = b;
      if (!rv.profile->xla_ops.empty()) std::tie(trace.w0, trace.w1) = Span(rv), trace.from_steps = false;
      const Ps per_step = rv.profile->xla_ops.empty() ? b.PerStepOps(total) : trace.PerStep(total);
      if (!Worth(per_step, b.step)) return;
      const std::string per = rv.profile->xla_ops.empty() ? b.PerOps(total) : trace.Per(total);
      std::sort(rows.begin(), rows.end(), [](const Gap& x, const Gap& y) {
        return x.gap_s != y.gap_s ? x.gap_s > y.gap_s : x.row->name < y.row->name;
      });
      std::string ev;
      for (size_t k = 0; k < rows.size() && k < 3; ++k) {
        const RooflineRow& r = *rows[k].row;
        const std::string odd = UnalignedDims(r.name);
        if (rule == Rule::matmul_efficiency)
          ev += fmt::format("{}{} x{}: {:.1f} us per call, {:.1f} us at the roofline ({:.0f} %){}{}", k ? "; " : "",
                            r.name, r.count / devices, r.measured_s * 1e6, r.expected_s * 1e6, 100 * r.efficiency,
                            r.flops >= 0 && r.flops < 1e9 ? fmt::format(", small: {:.3f} GFLOP", r.flops / 1e9) : "",
                            odd.empty() ? "" : ", dims that waste tiles: " + odd);
        else
          ev += fmt::format(
              "{}{} x{}: {:.1f} FLOP/B against the ridge {:.1f} (memory-bound at {:.0f} % of peak), "
              "{:.1f} us per call",
              k ? "; " : "", r.name, r.count / devices, r.intensity,
              r.vs_ridge > 0 ? r.intensity / r.vs_ridge : rr.ridge, r.ceiling_pct, r.measured_s * 1e6);
      }
      Finding f;
      f.rule = rule;
      f.rank = rv.rank;
      f.subject = fmt::format("rank {}", rv.rank);
      f.evidence = fmt::format(
          "{} ({}) of {} matmul time{}: {}", Ms(total),
          rule == Rule::matmul_efficiency ? "beyond the attainable time" : "beyond the time at the compute peak",
          Ms(to_ps(time)), devices > 1 ? fmt::format(" (mean of {} devices)", devices) : "", ev);
      f.saving = per_step;
      f.step = b.step;
      f.formula = rule == Rule::matmul_efficiency
                      ? fmt::format(
                            "sum over compute-bound matmuls of measured - expected / {:.0f} % (a good kernel's share "
                            "of the {} roofline, --matmul-efficiency): {} = {} per step",
                            100 * eff, rr.chip, per, Ms(per_step))
                      : fmt::format(
                            "sum over memory-bound matmuls of measured - bytes / ({:.0f} % of the {} HBM bandwidth), "
                            "what a good kernel reaches (more rows per matmul would raise the ceiling): {} = {} per "
                            "step",
                            100 * eff, rr.chip, per, Ms(per_step));
      f.confidence = Confidence::kLow;
      out.push_back(std::move(f));
    };
    emit(Rule::matmul_efficiency, compute, compute_gap, compute_time);
    emit(Rule::memory_bound_matmul, memory_rows, memory_gap, memory_time);
  }
}

}  // namespace mlprof::diagnose
