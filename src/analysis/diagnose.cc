#include "analysis/diagnose.h"

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

namespace mlprof {
namespace {

constexpr RuleInfo kRules[] = {
#define MLPROF_X(id, sev, title, meaning, fix) {#id, Severity::sev, title, meaning, fix},
    MLPROF_RULES(MLPROF_X)
#undef MLPROF_X
};

}  // namespace

namespace diagnose {

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

Run::Run(const ProfileView& view, const DiagnoseOptions& o, const DiagnoseInputs& in, std::vector<DiagnoseNote>* notes,
         std::vector<CommArrival>* arrivals, std::vector<RankBasis>* bases)
    : view(view), o(o), in(in), notes(notes), arrivals(arrivals), bases(bases) {
  so.warmup = o.warmup;
  steps = ComputeSteps(view, so);
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
}

std::optional<CpSaving> Run::PathWithout(const RankView& rv, const std::function<bool(const CpEdge&)>& removed) {
  constexpr size_t kCpWindows = 3;  // the last steady windows the median is over
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
}

std::vector<Finding> Run::Evaluate(std::vector<StepSummary>* step_summary) {
  ExposedCommunication();
  FindIdleGaps();
  HostWaitIdle();
  GlooNote();
  QueuedIdle();
  LaunchOverhead();
  SyncStalls();
  Fp32Matmul();
  PageableCopies();
  SlowHostCall();
  DeviceOpClasses();
  InputPipelineDataLoader();
  InputPipelineTfData();
  Matmuls();
  StepBoundaryIdle();
  GpuActivityLost();
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

}  // namespace diagnose

using diagnose::Ms;

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
  return diagnose::Run(view, o, in, notes, arrivals, bases).Evaluate(step_summary);
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
