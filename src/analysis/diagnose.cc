#include "analysis/diagnose.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "analysis/critical_path.h"
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

namespace mlprof {
namespace {

constexpr RuleInfo kRules[] = {
#define MLPROF_X(id, sev, title, meaning, fix) {#id, Severity::sev, title, meaning, fix},
    MLPROF_RULES(MLPROF_X)
#undef MLPROF_X
};

std::string Ms(Ps ps) { return fmt::format("{:.3f} ms", static_cast<double>(ps) / 1e9); }

// What "per step" means for a rank: a time lost inside the measured window
// is that share of the steady-state median step. The window is the span of
// the steady steps the view keeps (after the warm-up, without the last step
// when the view drops it), widened to the GPU work they launched; without steps, the trace (first op to last op,
// the profiler's envelope span left out) counts as one step. Losses are
// clipped to the window.
struct StepBasis {
  Ps step = 0, w0 = 0, w1 = 0;
  bool from_steps = false;
  bool gpu_paced = false;  // the step is the GPU's median span, not the host's
  // ProfilerSteps: the steady steps' indices [first, end). GPU ops belong to
  // the step that launched them, so sums over them are per step exactly.
  int32_t first = 0, end = 0;
  bool Steady(int32_t k) const { return k >= first && k < end; }
  // A sum over the steady steps' GPU ops, per step: their mean; without
  // ProfilerSteps, the window's share of the step (PerStep).
  Ps PerStepOps(Ps total) const { return end > first ? total / (end - first) : PerStep(total); }
  std::string PerOps(Ps total) const {
    if (end <= first) return Per(total);
    return fmt::format("{} over {} steady step{}", Ms(total), end - first, end - first == 1 ? "" : "s");
  }
  Ps window() const { return w1 - w0; }
  Ps Clip(Ps a, Ps b) const { return std::max<Ps>(0, std::min(b, w1) - std::max(a, w0)); }
  Ps PerStep(Ps total) const {
    if (window() <= 0) return 0;
    return static_cast<Ps>(
        std::llround(static_cast<double>(total) * static_cast<double>(step) / static_cast<double>(window())));
  }
  // "8.763 ms of the 10.112 ms measured (86.7 %) x the median step 0.540 ms"
  std::string Per(Ps total) const {
    const double share = window() > 0 ? 100.0 * static_cast<double>(total) / static_cast<double>(window()) : 0;
    if (!from_steps)
      return fmt::format("{} of the {} traced ({:.1f} %; no steps: the trace as one)", Ms(total), Ms(window()), share);
    return fmt::format("{} of the {} of steady steps ({:.1f} %) x the median step {}{}", Ms(total), Ms(window()), share,
                       Ms(step), gpu_paced ? " (GPU span, longer than the host's step)" : "");
  }
};

// The trace's span, without the profiler's envelope ("PyTorch Profiler (0)").
std::pair<Ps, Ps> Span(const RankView& rv) {
  Ps first = std::numeric_limits<Ps>::max(), last = std::numeric_limits<Ps>::min();
  const OpTable& o = rv.profile->ops;
  for (size_t i = 0; i < o.size(); ++i) {
    if ((!rv.keep.empty() && !rv.keep[i]) || o.kind[i] == OpKind::kTraceSpan) continue;
    first = std::min(first, rv.Ts(static_cast<uint32_t>(i)));
    last = std::max(last, rv.End(static_cast<uint32_t>(i)));
  }
  return first <= last ? std::pair<Ps, Ps>{first, last} : std::pair<Ps, Ps>{0, 0};
}

// A communication kernel's collective: from the op that launched it (its
// record_param_comms description: NCCL runs an all-to-all or all-gather as
// ncclKernel_SendRecv_*), else from its name (ncclKernel_AllReduce_RING_LL_
// Sum_float); "other" when neither says.
std::string CollectiveOfKernel(const RankProfile& p, uint32_t op) {
  std::string lower(p.str(p.ops.name[op]));
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  lower.erase(std::remove(lower.begin(), lower.end(), '_'), lower.end());
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"allreduce", "all-reduce"}, {"allgather", "all-gather"}, {"reducescatter", "reduce-scatter"},
      {"alltoall", "all-to-all"},  {"sendrecv", "send/recv"},   {"broadcast", "broadcast"},
      {"send", "send/recv"},       {"recv", "send/recv"},       {"reduce", "reduce"}};
  for (int32_t q = p.ops.launch[op] >= 0 ? static_cast<int32_t>(p.ops.launch[op]) : -1; q >= 0; q = p.ops.parent[q]) {
    if (p.ops.comm_of(static_cast<size_t>(q)) == 0) {
      // c10d's own op ("c10d::allreduce_", "c10d::_allgather_base_",
      // "nccl:all_reduce"): its name says which.
      std::string_view n = p.str(p.ops.name[q]);
      for (std::string_view pre : {std::string_view("c10d::"), std::string_view("nccl:")})
        if (n.substr(0, pre.size()) == pre) {
          n.remove_prefix(pre.size());
          while (!n.empty() && n.back() == '_') n.remove_suffix(1);
          if (auto k = CollectiveFromC10dName(n)) {
            const std::string_view kn = CollectiveKindName(*k);
            return kn == "send" || kn == "recv" ? "send/recv" : std::string(kn);
          }
        }
      continue;
    }
    const std::string_view comm = p.str(p.ops.comm_of(static_cast<size_t>(q)));
    auto c = CollectiveOpCost(comm);
    if (c && !c->collective.empty())
      return c->collective == "send" || c->collective == "recv" ? "send/recv" : c->collective;
    // No cost (no dtype or sizes recorded): the collective's name, the
    // description's first string (["_allgather_base", ...]), still says which.
    const size_t open = comm.find('"'), close = open == std::string_view::npos ? open : comm.find('"', open + 1);
    if (close != std::string_view::npos)
      if (auto k = CollectiveFromC10dName(comm.substr(open + 1, close - open - 1))) {
        const std::string_view kn = CollectiveKindName(*k);
        return kn == "send" || kn == "recv" ? "send/recv" : std::string(kn);
      }
  }
  for (const auto& [needle, name] : kNames)
    if (lower.find(needle) != std::string::npos) return std::string(name);
  return "other";
}

// The cpu_op that launched a GPU op (the launch call's innermost enclosing
// cpu_op), -1 when none.
int32_t LaunchingCpuOp(const RankProfile& p, uint32_t gpu_op) {
  for (int32_t q = static_cast<int32_t>(p.ops.launch[gpu_op]); q >= 0; q = p.ops.parent[q])
    if (p.ops.kind[q] == OpKind::kCpuOp) return q;
  return -1;
}

// PyTorch ops that only copy or change the layout of a tensor.
bool IsFormattingOp(std::string_view name) {
  static constexpr std::string_view kOps[] = {"aten::copy_", "aten::contiguous", "aten::clone",    "aten::_to_copy",
                                              "aten::to",    "aten::permute",    "aten::transpose"};
  for (std::string_view k : kOps)
    if (name == k) return true;
  return false;
}

// A copy's Input type list (["c10::BFloat16", "float", ""]) names two
// different dtypes for its first two arguments: a cast. Anything else
// (missing, one type, unquoted) is not.
bool IsCast(std::string_view types) {
  std::string_view name[2];
  size_t at = 0;
  for (auto& n : name) {
    const size_t open = types.find('"', at);
    if (open == std::string_view::npos) return false;
    const size_t close = types.find('"', open + 1);
    if (close == std::string_view::npos) return false;
    n = types.substr(open + 1, close - open - 1);
    at = close + 1;
  }
  return !name[0].empty() && !name[1].empty() && name[0] != name[1];
}

// The device planes (pids) an XLA rank's ops run on: per-device figures are
// the sum over devices divided by this.
int XlaDevices(const RankProfile& p) {
  std::set<int64_t> pids;
  for (size_t i = 0; i < p.ops.size(); ++i)
    if (p.ops.xla[i] >= 0) pids.insert(p.track_of(i).pid);
  return std::max<int>(1, static_cast<int>(pids.size()));
}

}  // namespace

std::string UnalignedDims(std::string_view name) {
  static constexpr std::string_view kGemms[] = {"aten::mm ",      "aten::addmm ",  "aten::bmm ",
                                                "aten::baddbmm ", "aten::matmul ", "aten::linear "};
  bool gemm = false;
  for (std::string_view g : kGemms) gemm = gemm || name.substr(0, g.size()) == g;
  if (!gemm) return "";
  // Each innermost [...] is one operand's shape; its last two dims are the
  // matrix (leading ones are batch dims).
  std::map<int64_t, std::string> odd;
  std::vector<int64_t> dims;
  int64_t v = -1;
  for (char c : name) {
    if (c >= '0' && c <= '9') {
      v = (v < 0 ? 0 : v) * 10 + (c - '0');
      if (v > (int64_t{1} << 40)) v = int64_t{1} << 40;
      continue;
    }
    if (v >= 0) dims.push_back(v);
    v = -1;
    if (c == '[') dims.clear();
    if (c != ']') continue;
    for (size_t k = dims.size() > 2 ? dims.size() - 2 : 0; k < dims.size(); ++k) {
      const int64_t d = dims[k];
      if (d < 16) continue;  // a tiny dim: the small-matmul note says it
      if (d % 8 != 0) {
        odd[d] = "not a multiple of 8";
      } else if (const int64_t padded = (d + 63) / 64 * 64; d >= 64 && 100 * (padded - d) > 5 * d) {
        odd[d] = fmt::format("pads to {}", padded);
      }
    }
    dims.clear();
  }
  std::string out;
  for (const auto& [d, why] : odd) out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", d, why);
  return out;
}

const RuleInfo& InfoOf(Rule r) { return kRules[static_cast<size_t>(r)]; }

const char* ConfidenceName(Confidence c) {
  switch (c) {
    case Confidence::kLow:
      return "low";
    case Confidence::kMedium:
      return "medium";
    case Confidence::kHigh:
      return "high";
  }
  return "?";
}

std::vector<Finding> Diagnose(const ProfileView& view, const DiagnoseOptions& o, const DiagnoseInputs& in,
                              std::vector<DiagnoseNote>* notes, std::vector<StepSummary>* step_summary,
                              std::vector<CommArrival>* arrivals, std::vector<RankBasis>* bases) {
  std::vector<Finding> out;
  StepOptions so;
  so.warmup = o.warmup;
  const StepReport steps = ComputeSteps(view, so);
  std::map<int64_t, StepBasis> basis;
  std::map<int64_t, const StepSummary*> summary;
  for (const StepSummary& s : steps.summary) summary[s.rank] = &s;
  for (const RankView& rv : view.ranks) {
    StepBasis b;
    const RankProfile& p = *rv.profile;
    auto it = summary.find(rv.rank);
    const size_t kept = p.steps.size() - (rv.filtered && !p.steps.empty() ? 1 : 0);
    const size_t warm = static_cast<size_t>(WarmupSteps(p.steps.size(), so));
    if (it != summary.end() && it->second->steady_steps > 0 && kept > warm && p.step_source != StepSource::kTrace) {
      // The step is the host's median ProfilerStep, or the GPU's median
      // span when the GPU is busy for longer than the host's step (the GPU
      // falls behind the host: its pace, not the host's, is the step's). A
      // span longer than the step with the GPU mostly idle only means the
      // steps' GPU work interleaves; the host's step stays.
      const StepSummary& sm = *it->second;
      b.gpu_paced = sm.median_busy_us > sm.median_wall_us && sm.median_gpu_span_us > sm.median_wall_us;
      const double us = b.gpu_paced ? sm.median_gpu_span_us : sm.median_wall_us;
      b.step = static_cast<Ps>(std::llround(us * static_cast<double>(kPsPerUs)));
      b.first = static_cast<int32_t>(warm), b.end = static_cast<int32_t>(kept);
      b.w0 = std::numeric_limits<Ps>::max(), b.w1 = std::numeric_limits<Ps>::min();
      // GPU-paced: the window is the GPU span of the steady steps' work (the
      // host's steps run far ahead of it); else the steps, widened to the
      // GPU work they launched (a step's kernels may end after it does).
      for (size_t k = warm; k < kept && !b.gpu_paced; ++k) {
        b.w0 = std::min(b.w0, p.steps[k].ts);
        b.w1 = std::max(b.w1, p.steps[k].ts + p.steps[k].dur);
      }
      for (const GpuOpRef& g : rv.gpu) {
        const int32_t k = p.ops.step[g.op];
        if (k < static_cast<int32_t>(warm) || k >= static_cast<int32_t>(kept)) continue;
        b.w0 = std::min(b.w0, g.ts);
        b.w1 = std::max(b.w1, g.end);
      }
      b.from_steps = true;
    } else if (auto x = in.xla.find(rv.rank); x != in.xla.end() && !p.xla_ops.empty()) {
      // XLA: the steps of the Steps line or the main module's executions;
      // the step is the slowest device's median, the window spans every
      // device's steady steps.
      const XlaSteps xs = ComputeXlaSteps(p, BreakdownXla(p, *x->second), o.warmup);
      Ps w0 = std::numeric_limits<Ps>::max(), w1 = std::numeric_limits<Ps>::min();
      for (const XlaStep& st : xs.steps)
        if (!st.warmup) w0 = std::min(w0, st.ts), w1 = std::max(w1, st.ts + st.dur);
      double median = 0;
      for (const XlaStepSummary& sm : xs.summary)
        if (sm.steady_steps > 0) median = std::max(median, sm.median);
      if (median > 0 && w1 > w0) {
        b.w0 = w0, b.w1 = w1, b.step = static_cast<Ps>(std::llround(median)), b.from_steps = true;
      } else {
        std::tie(b.w0, b.w1) = Span(rv);
        b.step = b.window();
      }
    } else {
      std::tie(b.w0, b.w1) = Span(rv);
      b.step = b.window();
    }
    basis[rv.rank] = b;
  }
  // The critical path's what-if (analysis/critical_path.h): how much a
  // rank's path shortens with some of its edges weighing nothing, the
  // median over its last steady windows (at most kCpWindows); computed once
  // per rank, when a rule asks.
  constexpr size_t kCpWindows = 3;
  struct CpSaving {
    Ps saving = 0, length = 0;
    size_t windows = 0;
  };
  std::map<int64_t, std::vector<CriticalPath>> cp_cache;
  auto cp_what_if = [&](const RankView& rv, auto removed) -> std::optional<CpSaving> {
    auto it = cp_cache.find(rv.rank);
    if (it == cp_cache.end()) {
      std::vector<CpOptions> windows = DefaultCpWindows(*rv.profile);
      if (windows.size() > kCpWindows) windows.erase(windows.begin(), windows.end() - kCpWindows);
      std::vector<CriticalPath> paths;
      for (CpResult& r : ComputeCriticalPaths(*rv.profile, rv.rank, windows))
        if (r.error.empty() && r.path.length > 0) paths.push_back(std::move(r.path));
      it = cp_cache.emplace(rv.rank, std::move(paths)).first;
    }
    if (it->second.empty()) return std::nullopt;
    std::vector<double> savings, lengths;
    for (const CriticalPath& cp : it->second) {
      std::vector<double> scale(cp.edges.size(), 1.0);
      for (size_t e = 0; e < cp.edges.size(); ++e)
        if (removed(cp.edges[e])) scale[e] = 0;
      const CpWhatIf wi = RecomputeCriticalPath(*rv.profile, cp, scale);
      savings.push_back(static_cast<double>(std::max<Ps>(0, cp.length - wi.length)));
      lengths.push_back(static_cast<double>(cp.length));
    }
    CpSaving s;
    s.saving = static_cast<Ps>(std::llround(Median(savings)));
    s.length = static_cast<Ps>(std::llround(Median(lengths)));
    s.windows = it->second.size();
    return s;
  };
  // The path bounds a saving only when it explains the step: at least 90 %
  // of it (HTA's graph misses dependencies it cannot see, and then the path
  // is shorter than the step).
  auto cp_explains = [](const CpSaving& s, Ps step) {
    return static_cast<double>(s.length) >= 0.9 * static_cast<double>(step);
  };
  auto cp_words = [](const CpSaving& s, std::string_view what) {
    return fmt::format("the critical path (HTA's graph; median of {} step{}, {} long) shortens by {} with {}",
                       s.windows, s.windows == 1 ? "" : "s", Ms(s.length), Ms(s.saving), what);
  };

  // A finding counts when it saves enough of the step.
  auto worth = [&](Ps saving, Ps step) {
    return saving >= o.min_saving && static_cast<double>(saving) >= o.min_share * static_cast<double>(step);
  };

  // exposed_communication: communication kernels while no computation
  // runs (HTA's overlap), inside the window.
  for (const RankView& rv : view.ranks) {
    const StepBasis& b = basis[rv.rank];
    const auto& comm = rv.unions.by_class[static_cast<int>(KernelClass::kCommunication)];
    const auto& comp = rv.unions.by_class[static_cast<int>(KernelClass::kComputation)];
    if (comm.empty()) continue;
    if (bases) bases->push_back({rv.rank, b.step, b.window(), rv.profile->meta.world_size});
    if (arrivals) {
      // Each communication kernel, its exposed parts in the window (the
      // rank's exposed communication, searched once per kernel).
      const std::vector<Interval> exposed_all = Subtract(comm, comp);
      std::map<std::string, int64_t> seq;
      for (const GpuOpRef& g : rv.gpu) {
        if (g.cls != KernelClass::kCommunication) continue;
        CommArrival a;
        a.rank = rv.rank;
        a.kind = CollectiveOfKernel(*rv.profile, g.op);
        a.seq = seq[a.kind]++;
        a.ts = rv.profile->origin_abs_ps + g.ts;
        a.dur = g.end - g.ts;
        const Ps lo = std::max(g.ts, b.w0), hi = std::min(g.end, b.w1);
        auto it = std::lower_bound(exposed_all.begin(), exposed_all.end(), lo,
                                   [](const Interval& iv, Ps v) { return iv.end <= v; });
        for (; lo < hi && it != exposed_all.end() && it->start < hi; ++it)
          if (std::min(hi, it->end) > std::max(lo, it->start))
            a.exposed.push_back({std::max(lo, it->start) - g.ts, std::min(hi, it->end) - g.ts});
        arrivals->push_back(std::move(a));
      }
    }
    const Ps comm_in = LengthWithin(comm, b.w0, b.w1);
    const Ps exposed = LengthWithin(Subtract(comm, comp), b.w0, b.w1);
    Ps per_step = b.PerStep(exposed);
    if (!worth(per_step, b.step)) continue;
    // What the critical path says: communication kernels taking no time.
    const RankProfile& rp = *rv.profile;
    const auto cp = cp_what_if(rv, [&](const CpEdge& e) { return BoundOf(rp, e) == CpBound::kGpuCommunication; });
    const Ps exposed_per_step = per_step;
    if (cp && cp_explains(*cp, b.step)) per_step = std::min(per_step, cp->saving);
    if (!worth(per_step, b.step)) continue;
    // Exposed time per collective kind (send/recv between pipeline stages
    // shows as a bubble here).
    std::map<std::string, std::vector<Interval>> by_kind;
    for (const GpuOpRef& g : rv.gpu)
      if (g.cls == KernelClass::kCommunication) by_kind[CollectiveOfKernel(*rv.profile, g.op)].push_back({g.ts, g.end});
    std::vector<std::pair<Ps, std::string>> kinds;
    for (auto& [kind, v] : by_kind) {
      const Ps e = LengthWithin(Subtract(Union(std::move(v)), comp), b.w0, b.w1);
      if (e > 0) kinds.push_back({e, kind});
    }
    std::sort(kinds.begin(), kinds.end(), [](const auto& x, const auto& y) {
      return x.first != y.first ? x.first > y.first : x.second < y.second;
    });
    std::string kinds_text;
    for (const auto& [e, kind] : kinds)
      kinds_text += fmt::format("{}{} {}", kinds_text.empty() ? "" : ", ", kind, Ms(e));
    Finding f;
    f.rule = Rule::exposed_communication;
    f.rank = rv.rank;
    f.subject = fmt::format("rank {}", rv.rank);
    f.evidence = fmt::format(
        "communication kernels {}, of which {} overlapped by computation ({:.1f} %); exposed by kind: {}", Ms(comm_in),
        Ms(comm_in - exposed),
        comm_in > 0 ? 100.0 * static_cast<double>(comm_in - exposed) / static_cast<double>(comm_in) : 0.0, kinds_text);
    f.saving = per_step;
    f.step = b.step;
    f.formula = fmt::format("exposed = communication {} - overlapped {}; {} = {} per step, if all of it overlapped",
                            Ms(comm_in), Ms(comm_in - exposed), b.Per(exposed), Ms(exposed_per_step));
    if (cp && cp_explains(*cp, b.step))
      f.formula +=
          fmt::format("; {}: saving = the smaller, {}", cp_words(*cp, "communication taking no time"), Ms(per_step));
    else if (cp)
      f.formula += fmt::format("; {}, but the path is under 90 % of the step: not used",
                               cp_words(*cp, "communication taking no time"));
    f.confidence = Confidence::kMedium;  // an upper bound: full overlap is rarely reached
    out.push_back(std::move(f));
  }

  // The GPU's idle gaps per rank (no GPU op of the rank running), and why:
  // host wait when the op that ends the gap was launched only after the GPU
  // had drained (HTA's host-wait rule, on all streams together); a sync
  // stall when the host sat in a synchronising call as the GPU drained.
  struct Gaps {
    Ps host_wait = 0, after_sync = 0;  // gaps of at least the kernel-wait threshold
    Ps host_all = 0;                   // every host-caused gap, short ones too (launch overhead)
    int64_t host_gaps = 0, sync_gaps = 0;
    // Gaps of at least the threshold whose next op was submitted before the
    // GPU drained (queued_idle), the largest and the op after it.
    Ps queued = 0, queued_max = 0, graph = 0;
    int64_t queued_gaps = 0, graph_gaps = 0;  // graph: before ops of CUDA-graph launches, left out
    uint32_t queued_op = 0;
  };
  std::map<int64_t, Gaps> gaps;
  std::map<int64_t, std::map<std::string_view, std::pair<int64_t, Ps>>> syncs;  // rank -> call -> (count, time)
  for (const RankView& rv : view.ranks) {
    const RankProfile& p = *rv.profile;
    std::vector<Interval> sync_calls;
    for (size_t i = 0; i < p.ops.size(); ++i) {
      if ((!rv.keep.empty() && !rv.keep[i]) || p.ops.kind[i] != OpKind::kRuntime) continue;
      const std::string_view name = p.str(p.ops.name[i]);
      if (!IsSyncCall(name)) continue;
      const Interval iv{rv.Ts(static_cast<uint32_t>(i)), rv.End(static_cast<uint32_t>(i))};
      sync_calls.push_back(iv);
      auto& [n, t] = syncs[rv.rank][name];
      ++n, t += iv.end - iv.start;
    }
    std::sort(sync_calls.begin(), sync_calls.end(),
              [](const Interval& x, const Interval& y) { return x.start < y.start; });
    Gaps& g = gaps[rv.rank];
    Ps busy_end = std::numeric_limits<Ps>::min();
    size_t k = 0;  // first sync call that may still matter
    for (const GpuOpRef& op : rv.gpu) {
      if (busy_end != std::numeric_limits<Ps>::min() && op.ts > busy_end) {
        const Ps a = busy_end;
        // Host-caused: the op had not been submitted (its launch call had
        // not returned) when the GPU drained. A blocking call (a sync copy)
        // submits its op when it starts and returns when the op is done.
        // An op that waited at least the threshold after its submission
        // (its stream held by an event, say) splits the gap: the host's
        // part up to the submission, then queued.
        const int64_t launch = p.ops.launch[op.op];
        const auto lc = static_cast<uint32_t>(launch);
        const bool blocking = launch >= 0 && IsSyncCall(p.str(p.ops.name[lc]));
        const Ps submitted = launch >= 0 ? (blocking ? rv.Ts(lc) : rv.End(lc)) : a;
        const StepBasis& b = basis[rv.rank];
        Ps until = op.ts;  // the end of the gap's part the host may have caused
        if (launch >= 0 && op.ts - std::max(a, submitted) >= o.kernel_wait_threshold) {
          const Ps q = b.Clip(std::max(a, submitted), op.ts);
          // A graph replay's op: the graph's earlier nodes may have run
          // unrecorded (kernels inside graphs need CUPTI graph tracing),
          // so the idle is not known; counted apart.
          if (q > 0 && p.str(p.ops.name[lc]).find("GraphLaunch") != std::string_view::npos) {
            g.graph += q, ++g.graph_gaps;
          } else if (q > 0) {
            g.queued += q, ++g.queued_gaps;
            if (q > g.queued_max) g.queued_max = q, g.queued_op = op.op;
          }
          until = std::max(a, submitted);
        }
        const bool host = launch >= 0 && submitted > a;
        const Ps in = b.Clip(a, until);  // the host's part inside the window
        if (host) g.host_all += in;
        if (host && until - a >= o.kernel_wait_threshold && in > 0) {
          g.host_wait += in, ++g.host_gaps;
          // A sync call under way when the GPU drained (started before it,
          // ended inside the gap): the host was blocked, not slow.
          while (k < sync_calls.size() && sync_calls[k].end < a) ++k;
          for (size_t j = k; j < sync_calls.size() && sync_calls[j].start <= a; ++j) {
            if (sync_calls[j].end >= a && sync_calls[j].end <= until) {
              g.after_sync += in, ++g.sync_gaps;
              break;
            }
          }
        }
      }
      busy_end = std::max(busy_end, op.end);
    }
  }

  // host_wait_idle: per rank, on all its streams together.
  for (const RankView& rv : view.ranks) {
    const StepBasis& b = basis[rv.rank];
    const Gaps& g = gaps[rv.rank];
    const Ps per_step = b.PerStep(g.host_wait);
    if (!worth(per_step, b.step)) continue;
    Finding f;
    f.rule = Rule::host_wait_idle;
    f.rank = rv.rank;
    f.subject = fmt::format("rank {}", rv.rank);
    f.evidence = fmt::format(
        "the GPU ran nothing for {} in {} gaps of at least {} us whose next op had not been launched when the GPU "
        "drained{}",
        Ms(g.host_wait), g.host_gaps, o.kernel_wait_threshold / kPsPerUs,
        g.sync_gaps ? fmt::format("; {} of them ({}) right after a synchronisation (sync_stalls)", g.sync_gaps,
                                  Ms(g.after_sync))
                    : "");
    f.saving = per_step;
    f.step = b.step;
    f.formula =
        fmt::format("host-wait idle: {} = {} per step, if the host kept the GPU fed", b.Per(g.host_wait), Ms(per_step));
    f.confidence = Confidence::kMedium;
    out.push_back(std::move(f));
  }

  // gloo's collectives run on host threads: no rule reads them (the
  // communication rules read GPU kernels), so say they were not checked.
  for (const RankView& rv : view.ranks) {
    if (!notes) break;
    const RankProfile& p = *rv.profile;
    const StepBasis& b = basis[rv.rank];
    int64_t n = 0;
    std::vector<Interval> spans;
    for (size_t i = 0; i < p.ops.size(); ++i) {
      if ((!rv.keep.empty() && !rv.keep[i]) || p.ops.end(i) <= b.w0 || p.ops.ts[i] >= b.w1 || !IsGlooHostOp(p, i))
        continue;
      ++n;
      spans.push_back({p.ops.ts[i], p.ops.end(i)});
    }
    if (n == 0) continue;
    const Ps t = LengthWithin(Union(std::move(spans)), b.w0, b.w1);
    const double share = b.window() > 0 ? 100.0 * static_cast<double>(t) / static_cast<double>(b.window()) : 0;
    notes->push_back({rv.rank, fmt::format("Rank {}: not checked: {} gloo collectives run on host threads for {} of "
                                           "the {} analysed ({:.1f} %); the communication rules read GPU collective "
                                           "kernels only.",
                                           rv.rank, n, Ms(t), Ms(b.window()), share)});
  }

  // queued_idle: per rank, the GPU idle with its next op already submitted.
  for (const RankView& rv : view.ranks) {
    const StepBasis& b = basis[rv.rank];
    const Gaps& g = gaps[rv.rank];
    // Gaps before ops of graph launches: the cause is not known (the graph's
    // earlier kernels may not be in the trace); said, not counted.
    if (notes && g.graph_gaps > 0 && worth(b.PerStep(g.graph), b.step))
      notes->push_back(
          {rv.rank,
           fmt::format(
               "Rank {}: the GPU shows nothing for {} in {} gaps ({} per step) that end with ops of CUDA-graph "
               "launches "
               "submitted before the gap: the graphs' other kernels were probably not recorded (torch.profiler records "
               "kernels inside graphs only with CUPTI graph tracing), so neither host_wait_idle nor queued_idle counts "
               "them.",
               rv.rank, Ms(g.graph), g.graph_gaps, Ms(b.PerStep(g.graph)))});
    const Ps per_step = b.PerStep(g.queued);
    if (g.queued_gaps == 0 || !worth(per_step, b.step)) continue;
    const RankProfile& p = *rv.profile;
    const auto launch = static_cast<uint32_t>(p.ops.launch[g.queued_op]);
    // A stream-wait-event call on the launch's thread after the previous
    // launch to the same stream and before this one: what the stream most
    // likely waited for.
    Ps prev_launch = std::numeric_limits<Ps>::min();
    for (const GpuOpRef& o2 : rv.gpu) {
      if (o2.op == g.queued_op) break;
      const int64_t l2 = p.ops.launch[o2.op];
      if (o2.track == p.ops.track[g.queued_op] && l2 >= 0 && p.ops.track[l2] == p.ops.track[launch])
        prev_launch = std::max(prev_launch, rv.Ts(static_cast<uint32_t>(l2)));
    }
    std::string wait_call;
    Ps wait_ts = std::numeric_limits<Ps>::min();
    for (size_t i = 0; i < p.ops.size(); ++i) {
      if (p.ops.kind[i] != OpKind::kRuntime || p.ops.track[i] != p.ops.track[launch]) continue;
      const std::string_view n = p.str(p.ops.name[i]);
      const Ps t = rv.Ts(static_cast<uint32_t>(i));
      if (n.find("StreamWaitEvent") != std::string_view::npos && t > prev_launch && t <= rv.Ts(launch) && t > wait_ts)
        wait_ts = t, wait_call = std::string(n);
    }
    Finding f;
    f.rule = Rule::queued_idle;
    f.rank = rv.rank;
    f.subject = fmt::format("rank {}", rv.rank);
    f.evidence = fmt::format(
        "the GPU ran nothing for {} in {} gaps of at least {} us although the next op was already submitted; the "
        "largest, {}, before {} (submitted by {} {} earlier{})",
        Ms(g.queued), g.queued_gaps, o.kernel_wait_threshold / kPsPerUs, Ms(g.queued_max),
        p.str(p.ops.name[g.queued_op]), p.str(p.ops.name[launch]),
        Ms(rv.Ts(g.queued_op) - (IsSyncCall(p.str(p.ops.name[launch])) ? rv.Ts(launch) : rv.End(launch))),
        IsSyncCall(p.str(p.ops.name[launch]))
            ? fmt::format(", which held the host for {}", Ms(rv.End(launch) - rv.Ts(launch)))
            : "");
    if (!wait_call.empty())
      f.evidence += fmt::format("; a {} call {} before the launch (no launch to that stream between) may have held it",
                                wait_call, Ms(rv.Ts(launch) - wait_ts));
    f.saving = per_step;
    f.step = b.step;
    f.formula = fmt::format("idle with work queued: {} = {} per step, if nothing outside the trace held the stream",
                            b.Per(g.queued), Ms(per_step));
    f.confidence = Confidence::kLow;  // the cause is outside the trace
    out.push_back(std::move(f));
  }

  // launch_overhead: kernels shorter than their launch call; what launching
  // costs the GPU is at most the time it waited for the host.
  LaunchOptions lo;
  lo.runtime_cutoff = std::numeric_limits<Ps>::max();  // every launch counts here
  for (const RankLaunchStats& ls : ComputeLaunchStats(view, lo)) {
    if (ls.launches.empty()) continue;
    const StepBasis& b = basis[ls.rank];
    // Kernels only (a copy's call may block on purpose), launched by calls
    // no longer than HTA's 50 us runtime cutoff (a longer one is a lazy
    // module load or a blocking call, which graphs do not remove), inside
    // the window.
    const RankView* rv = nullptr;
    for (const RankView& x : view.ranks)
      if (x.rank == ls.rank) rv = &x;
    if (!rv) continue;
    int64_t shorter = 0, counted = 0;
    Ps excess = 0;  // sum of (launch call - kernel) over those
    for (const LaunchRecord& l : ls.launches) {
      if (rv->profile->ops.kind[l.gpu_op] != OpKind::kKernel || l.cpu_dur > o.launch_cutoff) continue;
      const Ps ts = rv->Ts(l.gpu_op);
      if (ts < b.w0 || ts >= b.w1) continue;
      ++counted;
      if (l.gpu_dur < l.cpu_dur) ++shorter, excess += l.cpu_dur - l.gpu_dur;
    }
    if (counted == 0) continue;
    const double share = static_cast<double>(shorter) / static_cast<double>(counted);
    if (share < o.short_kernel_share) continue;
    const Ps cap = gaps[ls.rank].host_all - gaps[ls.rank].after_sync;
    Ps per_step = b.PerStep(std::min(excess, cap));
    if (!worth(per_step, b.step)) continue;
    // What the critical path says: launch calls, launch delays and the gaps
    // between kernels (which launches leave) taking no time.
    const RankProfile& rp = *rv->profile;
    const auto cp = cp_what_if(*rv, [&](const CpEdge& e) {
      return e.type == CpEdgeType::kLaunchDelay || e.type == CpEdgeType::kKernelKernel ||
             (e.type == CpEdgeType::kOperator && e.op >= 0 && IsLaunchOp(rp.ops.kind[static_cast<size_t>(e.op)]));
    });
    const Ps estimate = per_step;
    if (cp && cp_explains(*cp, b.step)) per_step = std::min(per_step, cp->saving);
    if (!worth(per_step, b.step)) continue;
    Finding f;
    f.rule = Rule::launch_overhead;
    f.rank = ls.rank;
    f.subject = fmt::format("rank {}", ls.rank);
    f.evidence = fmt::format("{} of {} kernels ({:.0f} %) run shorter than the call that launched them, by {} in all",
                             shorter, counted, 100 * share, Ms(excess));
    f.saving = per_step;
    f.step = b.step;
    f.formula = fmt::format(
        "min(launch time beyond the kernels {}, GPU idle waiting for launches, not after a sync {}): {} = {} per step, "
        "if launches cost nothing",
        Ms(excess), Ms(cap), b.Per(std::min(excess, cap)), Ms(estimate));
    if (cp && cp_explains(*cp, b.step))
      f.formula += fmt::format("; {}: saving = the smaller, {}",
                               cp_words(*cp, "launch calls, delays and kernel gaps taking no time"), Ms(per_step));
    else if (cp)
      f.formula += fmt::format("; {}, but the path is under 90 % of the step: not used",
                               cp_words(*cp, "launch calls, delays and kernel gaps taking no time"));
    f.confidence = Confidence::kLow;  // how much a graph or fusion saves depends on the code
    out.push_back(std::move(f));
  }

  // sync_stalls: the GPU idle right after the host was blocked in a sync.
  for (const RankView& rv : view.ranks) {
    const StepBasis& b = basis[rv.rank];
    const Gaps& g = gaps[rv.rank];
    const Ps per_step = b.PerStep(g.after_sync);
    if (!worth(per_step, b.step)) continue;
    std::string calls_text;
    Ps blocked = 0;
    for (const auto& [name, nt] : syncs[rv.rank]) {
      calls_text += fmt::format("{}{} x{} ({})", calls_text.empty() ? "" : ", ", name, nt.first, Ms(nt.second));
      blocked += nt.second;
    }
    Finding f;
    f.rule = Rule::sync_stalls;
    f.rank = rv.rank;
    f.subject = fmt::format("rank {}", rv.rank);
    f.evidence = fmt::format("{} GPU idle gaps start while the host is blocked in {}; the host was blocked {} in all",
                             g.sync_gaps, calls_text, Ms(blocked));
    f.saving = per_step;
    f.step = b.step;
    f.formula = fmt::format("GPU idle after a synchronisation: {} = {} per step, if the host had queued work",
                            b.Per(g.after_sync), Ms(per_step));
    f.confidence = Confidence::kMedium;
    out.push_back(std::move(f));
  }

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
    if (!worth(per_step, b.step)) continue;
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
    if (!worth(per_step, b.step)) continue;
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
      if (!worth(per_step, b.step)) continue;
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
      if (calls == 0 || !worth(per_step, b.step)) continue;
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
    if (!worth(per_step, b.step)) continue;
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
    if (!worth(per_step, b.step)) continue;
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
      if (!worth(per_step, b.step)) return;
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

  // step_boundary_idle: per steady step, the GPU's idle time between the
  // last GPU op of the step before and the step's first GPU op; the median.
  for (const RankView& rv : view.ranks) {
    const RankProfile& p = *rv.profile;
    const StepBasis& b = basis[rv.rank];
    if (!b.from_steps || p.steps.empty()) continue;
    const size_t n = p.steps.size();
    std::vector<Ps> first(n, std::numeric_limits<Ps>::max()), last(n, std::numeric_limits<Ps>::min());
    for (const GpuOpRef& g : rv.gpu) {
      const int32_t k = p.ops.step[g.op];
      if (k < 0 || static_cast<size_t>(k) >= n) continue;
      first[static_cast<size_t>(k)] = std::min(first[static_cast<size_t>(k)], g.ts);
      last[static_cast<size_t>(k)] = std::max(last[static_cast<size_t>(k)], g.end);
    }
    const size_t kept = n - (rv.filtered ? 1 : 0);
    const size_t warm = static_cast<size_t>(WarmupSteps(n, so));
    std::vector<double> idle;
    Ps worst = 0;
    for (size_t k = std::max<size_t>(warm, 1); k < kept; ++k) {
      if (last[k - 1] == std::numeric_limits<Ps>::min() || first[k] == std::numeric_limits<Ps>::max()) continue;
      Ps gap = 0;
      if (first[k] > last[k - 1]) gap = (first[k] - last[k - 1]) - LengthWithin(rv.unions.all, last[k - 1], first[k]);
      idle.push_back(static_cast<double>(gap));
      worst = std::max(worst, gap);
    }
    if (idle.empty()) continue;
    const Ps per_step = static_cast<Ps>(std::llround(Median(idle)));
    if (!worth(per_step, b.step)) continue;
    Finding f;
    f.rule = Rule::step_boundary_idle;
    f.rank = rv.rank;
    f.subject = fmt::format("rank {}", rv.rank);
    f.evidence = fmt::format(
        "between one step's last GPU op and the next step's first the GPU runs nothing for a median {} (at most {}) "
        "over {} step boundaries; host-caused gaps are also in host_wait_idle, DataLoader time in input_pipeline",
        Ms(per_step), Ms(worst), idle.size());
    f.saving = per_step;
    f.step = b.step;
    f.formula = fmt::format("median GPU idle at the step boundary {}, if the next step's work were queued in time",
                            Ms(per_step));
    f.confidence = Confidence::kMedium;
    out.push_back(std::move(f));
  }

  // GPU activity the trace lost (analysis/grade.h): the first finding, and
  // the GPU rules' findings on that rank rest on a part of its GPU work.
  for (const RankView& rv : view.ranks)
    for (const GradeItem& g : GradeRank(*rv.profile, rv.rank)) {
      if (g.id != GradeId::gpu_activity_lost || g.severity < Severity::kWarning) continue;
      for (Finding& f : out)
        if (f.rank == rv.rank) {
          f.confidence = Confidence::kLow;
          f.evidence += "; the trace lost some of this rank's GPU work (gpu_activity_lost)";
        }
      Finding f;
      f.rule = Rule::gpu_activity_lost;
      f.rank = rv.rank;
      f.subject = fmt::format("rank {}", rv.rank);
      f.evidence = g.text;
      f.step = basis[rv.rank].step;
      f.formula = "no saving: the GPU work that is missing cannot be measured";
      f.confidence = Confidence::kHigh;
      out.push_back(std::move(f));
    }
  // Ranks without iterations (model/steps.h found none: the whole trace is
  // the step): their savings are per trace, and say so.
  for (Finding& f : out) {
    auto b = basis.find(f.rank);
    if (b == basis.end() || b->second.from_steps) continue;
    f.per_trace = true;
    for (std::string* text : {&f.formula, &f.evidence})
      for (size_t at; (at = text->find(" per step")) != std::string::npos;) text->replace(at, 9, " per trace");
  }
  if (o.cross_rank)
    for (Finding& f : CrossRankFindings(steps.summary, o)) out.push_back(std::move(f));
  SortFindings(out);
  if (step_summary) *step_summary = steps.summary;
  return out;
}

std::vector<Finding> CrossRankFindings(const std::vector<StepSummary>& summary, const DiagnoseOptions& o) {
  std::vector<Finding> out;
  auto worth = [&](Ps saving, Ps step) {
    return saving >= o.min_saving && static_cast<double>(saving) >= o.min_share * static_cast<double>(step);
  };
  // stragglers: per-rank steady-state compute; the others wait for the slowest.
  if (summary.size() >= 2) {
    const StepSummary* slow = nullptr;
    const StepSummary* fast = nullptr;
    size_t with_steps = 0;
    for (const StepSummary& s : summary) {
      if (s.steady_steps == 0 || s.source == StepSource::kTrace) continue;  // per trace is no step
      ++with_steps;
      if (!slow || s.median_compute_us > slow->median_compute_us) slow = &s;
      if (!fast || s.median_compute_us < fast->median_compute_us) fast = &s;
    }
    if (slow && fast && slow != fast) {
      const auto us = [](double v) { return static_cast<Ps>(std::llround(v * static_cast<double>(kPsPerUs))); };
      const Ps gap = us(slow->median_compute_us) - us(fast->median_compute_us);
      const Ps step = us(slow->median_wall_us);
      if (worth(gap, step)) {
        Finding f;
        f.rule = Rule::stragglers;
        f.rank = -1;
        f.subject = fmt::format("rank {}", slow->rank);
        f.evidence = fmt::format(
            "rank {} computes {} per step (median) where rank {} computes {}; {} ranks with steady steps", slow->rank,
            Ms(us(slow->median_compute_us)), fast->rank, Ms(us(fast->median_compute_us)), with_steps);
        f.saving = gap;
        f.step = step;
        f.formula = fmt::format("slowest median compute {} - fastest {} = {} per step, if the work were balanced",
                                Ms(us(slow->median_compute_us)), Ms(us(fast->median_compute_us)), Ms(gap));
        f.confidence = Confidence::kMedium;
        out.push_back(std::move(f));
      }
    }
  }

  return out;
}

void SplitCommunicationWait(std::vector<Finding>& findings, const std::vector<CommArrival>& arrivals,
                            const std::vector<RankBasis>& bases, const DiagnoseOptions& o,
                            std::vector<std::string>* notes) {
  std::map<int64_t, RankBasis> basis;
  int64_t world = -1;
  for (const RankBasis& b : bases) basis[b.rank] = b, world = std::max(world, b.world_size);
  if (basis.size() < 2) return;
  // The last rank to arrive may be one the inputs do not hold.
  if (world > static_cast<int64_t>(basis.size())) {
    if (notes)
      notes->push_back(fmt::format(
          "Exposed communication not split into waiting and transfer: these inputs hold {} of the job's {} ranks "
          "(distributedInfo.world_size), and the rank the others wait for may be one of the missing.",
          basis.size(), world));
    return;
  }
  // Instances: the seq-th kernel of a kind on every rank that has kernels.
  std::map<std::string, std::map<int64_t, std::vector<const CommArrival*>>> by_kind;  // kind -> rank -> kernels
  for (const CommArrival& a : arrivals) by_kind[a.kind][a.rank].push_back(&a);
  std::map<int64_t, Ps> wait;                              // rank -> exposed time spent waiting
  std::map<int64_t, std::map<int64_t, Ps>> waited_for;     // late rank -> waiting rank -> exposed wait
  std::map<int64_t, std::pair<int64_t, int64_t>> last_at;  // rank -> (instances it arrived last at, instances)
  std::vector<std::string> unmatched;
  for (const auto& [kind, ranks] : by_kind) {
    size_t n = SIZE_MAX;
    for (const auto& [rank, v] : ranks) n = std::min(n, v.size());
    bool same = ranks.size() == basis.size();
    for (const auto& [rank, v] : ranks) same = same && v.size() == n;
    if (!same) {
      unmatched.push_back(kind);
      continue;
    }
    for (size_t k = 0; k < n; ++k) {
      const CommArrival* last = nullptr;
      for (const auto& [rank, v] : ranks)
        if (!last || v[k]->ts > last->ts) last = v[k];
      for (const auto& [rank, v] : ranks) {
        const CommArrival& a = *v[k];
        ++last_at[rank].second;
        if (&a == last) {
          ++last_at[rank].first;
          continue;
        }
        // It waits from its start until the last rank starts.
        const Ps until = static_cast<Ps>(std::min<Ps128>(a.dur, last->ts - a.ts));
        Ps w = 0;
        for (const Interval& iv : a.exposed) w += std::max<Ps>(0, std::min(iv.end, until) - iv.start);
        wait[rank] += w;
        waited_for[last->rank][rank] += w;
      }
    }
  }
  if (notes && !unmatched.empty())
    notes->push_back(fmt::format(
        "Not split into waiting and transfer: {} (the ranks hold different numbers of these kernels, so they cannot "
        "be matched by call order).",
        fmt::join(unmatched, ", ")));
  auto per_step = [&](int64_t rank, Ps t) {
    const RankBasis& b = basis[rank];
    return b.window > 0 ? static_cast<Ps>(std::llround(static_cast<double>(t) * static_cast<double>(b.step) /
                                                       static_cast<double>(b.window)))
                        : Ps{0};
  };
  // The late rank: the one the others wait for longest (per step, summed).
  int64_t late = -1;
  Ps late_total = 0;
  for (const auto& [l, by] : waited_for) {
    Ps t = 0;
    for (const auto& [r, w] : by) t += per_step(r, w);
    if (t > late_total) late = l, late_total = t;
  }
  for (Finding& f : findings) {
    if (f.rule != Rule::exposed_communication || !wait.count(f.rank) || wait[f.rank] <= 0) continue;
    const Ps w = per_step(f.rank, wait[f.rank]);
    const Ps transfer = std::max<Ps>(0, f.saving - w);
    // The rank it waits for most.
    int64_t most = -1;
    Ps most_w = 0;
    for (const auto& [l, by] : waited_for)
      if (auto it = by.find(f.rank); it != by.end() && it->second > most_w) most = l, most_w = it->second;
    f.evidence += fmt::format(
        "; of the exposed time, {} per step is waiting for the last rank to arrive (mostly rank "
        "{}) and {} transfer",
        Ms(w), most, Ms(transfer));
    f.formula += fmt::format("; waiting for the last rank {} per step is not hidden by overlap: saving = {} - {} = {}",
                             Ms(w), Ms(f.saving), Ms(w), Ms(transfer));
    const Ps exposed = f.saving;
    f.saving = transfer;
    // Dropped below when the transfer is too small: say where its exposed
    // time went, so the reader of `overlap` is not left with the total.
    if (notes &&
        !(transfer >= o.min_saving && static_cast<double>(transfer) >= o.min_share * static_cast<double>(f.step)))
      notes->push_back(fmt::format(
          "Rank {}: its exposed communication, {} per step, is {} waiting for the last rank to arrive (mostly rank "
          "{}: stragglers) and {} transfer, too little to overlap for an exposed_communication finding.",
          f.rank, Ms(exposed), Ms(w), most, Ms(transfer)));
  }
  // A finding whose transfer is too small to count goes (the wait is the
  // straggler's, below).
  std::erase_if(findings, [&](const Finding& f) {
    return f.rule == Rule::exposed_communication && wait.count(f.rank) &&
           !(f.saving >= o.min_saving && static_cast<double>(f.saving) >= o.min_share * static_cast<double>(f.step));
  });
  // Waiting on the late rank is the straggler's cost.
  if (late >= 0 && late_total > 0) {
    std::vector<Ps> waits;
    std::string who;
    for (const auto& [r, w] : waited_for[late]) {
      waits.push_back(per_step(r, w));
      if (per_step(r, w) > 0) who += fmt::format("{}rank {} {}", who.empty() ? "" : ", ", r, Ms(per_step(r, w)));
    }
    std::sort(waits.begin(), waits.end());
    const Ps saving = waits.empty() ? 0 : waits[waits.size() / 2];
    // The waiting ranks' median step: the saving is theirs, not the late
    // rank's (whose own step is shorter: it does not wait).
    std::vector<Ps> their;
    for (const auto& [r, w] : waited_for[late]) their.push_back(basis[r].step);
    std::sort(their.begin(), their.end());
    const Ps step = their.empty() ? basis[late].step : their[their.size() / 2];
    if (saving >= o.min_saving && static_cast<double>(saving) >= o.min_share * static_cast<double>(step)) {
      Finding f;
      f.rule = Rule::stragglers;
      f.rank = -1;
      f.subject = fmt::format("rank {}", late);
      f.evidence = fmt::format(
          "rank {} arrives last at {} of {} collectives; the other ranks wait for it with no "
          "computation to hide the wait, per step: {}",
          late, last_at[late].first, last_at[late].second, who);
      f.saving = saving;
      f.step = step;
      f.formula = fmt::format(
          "median over the waiting ranks of their exposed wait for rank {} = {} per step (of their median step "
          "{}), if it arrived with the others",
          late, Ms(saving), Ms(step));
      f.confidence = Confidence::kMedium;
      findings.push_back(std::move(f));
    }
  }
  SortFindings(findings);
}

void SortFindings(std::vector<Finding>& out) {
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    // What the profile cannot show comes before any saving that rests on it.
    const bool ea = InfoOf(a.rule).severity == Severity::kError, eb = InfoOf(b.rule).severity == Severity::kError;
    if (ea != eb) return ea;
    if (a.saving != b.saving) return a.saving > b.saving;
    if (a.rule != b.rule) return a.rule < b.rule;
    if (a.rank != b.rank) return a.rank < b.rank;
    return a.subject < b.subject;
  });
}

}  // namespace mlprof
