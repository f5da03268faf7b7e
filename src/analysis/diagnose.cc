#include "analysis/diagnose.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "analysis/gpu_time.h"
#include "analysis/intervals.h"
#include "analysis/kernel_class.h"
#include "analysis/launches.h"
#include "analysis/overview.h"
#include "analysis/stats.h"
#include "analysis/steps.h"
#include "analysis/xla.h"

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

bool IsSyncCall(std::string_view name) {
  return name.find("Synchronize") != std::string_view::npos || name == "cudaMemcpy" || name == "hipMemcpy" ||
         name == "cudaMemcpy2D" || name == "cudaMemset" || name == "hipMemset" || name == "hipMemcpyWithStream";
}

}  // namespace

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

std::vector<Finding> Diagnose(const ProfileView& view, const DiagnoseOptions& o) {
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
    if (it != summary.end() && it->second->steady_steps > 0 && kept > warm) {
      // The step is the host's median ProfilerStep, or the GPU's median
      // span when the GPU is busy for longer than the host's step (the GPU
      // falls behind the host: its pace, not the host's, is the step's). A
      // span longer than the step with the GPU mostly idle only means the
      // steps' GPU work interleaves; the host's step stays.
      const StepSummary& sm = *it->second;
      b.gpu_paced = sm.median_busy_us > sm.median_wall_us && sm.median_gpu_span_us > sm.median_wall_us;
      const double us = b.gpu_paced ? sm.median_gpu_span_us : sm.median_wall_us;
      b.step = static_cast<Ps>(std::llround(us * static_cast<double>(kPsPerUs)));
      b.w0 = std::numeric_limits<Ps>::max(), b.w1 = std::numeric_limits<Ps>::min();
      for (size_t k = warm; k < kept; ++k) {
        b.w0 = std::min(b.w0, p.steps[k].ts);
        b.w1 = std::max(b.w1, p.steps[k].ts + p.steps[k].dur);
      }
      // Widened to the GPU work the steady steps launched: when the GPU runs
      // behind the host, a step's kernels run after its ProfilerStep ends.
      for (const GpuOpRef& g : rv.gpu) {
        const int32_t k = p.ops.step[g.op];
        if (k < static_cast<int32_t>(warm) || k >= static_cast<int32_t>(kept)) continue;
        b.w0 = std::min(b.w0, g.ts);
        b.w1 = std::max(b.w1, g.end);
      }
      b.from_steps = true;
    } else {
      std::tie(b.w0, b.w1) = Span(rv);
      b.step = b.window();
    }
    basis[rv.rank] = b;
  }
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
    const Ps comm_in = LengthWithin(comm, b.w0, b.w1);
    const Ps exposed = LengthWithin(Subtract(comm, comp), b.w0, b.w1);
    const Ps per_step = b.PerStep(exposed);
    if (!worth(per_step, b.step)) continue;
    Finding f;
    f.rule = Rule::exposed_communication;
    f.rank = rv.rank;
    f.subject = fmt::format("rank {}", rv.rank);
    f.evidence =
        fmt::format("communication kernels {}, of which {} overlapped by computation ({:.1f} %)", Ms(comm_in),
                    Ms(comm_in - exposed),
                    comm_in > 0 ? 100.0 * static_cast<double>(comm_in - exposed) / static_cast<double>(comm_in) : 0.0);
    f.saving = per_step;
    f.step = b.step;
    f.formula = fmt::format("exposed = communication {} - overlapped {}; {} = {} per step, if all of it overlapped",
                            Ms(comm_in), Ms(comm_in - exposed), b.Per(exposed), Ms(per_step));
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
        const Ps a = busy_end, gap = op.ts - busy_end;
        // Host-caused: the op had not been submitted (its launch call had
        // not returned) when the GPU drained.
        const int64_t launch = p.ops.launch[op.op];
        const bool host = launch >= 0 && rv.End(static_cast<uint32_t>(launch)) > a;
        const StepBasis& b = basis[rv.rank];
        const Ps in = b.Clip(a, op.ts);  // the part inside the window
        if (host) g.host_all += in;
        if (host && gap >= o.kernel_wait_threshold && in > 0) {
          g.host_wait += in, ++g.host_gaps;
          // A sync call under way when the GPU drained (started before it,
          // ended inside the gap): the host was blocked, not slow.
          while (k < sync_calls.size() && sync_calls[k].end < a) ++k;
          for (size_t j = k; j < sync_calls.size() && sync_calls[j].start <= a; ++j) {
            if (sync_calls[j].end >= a && sync_calls[j].end <= op.ts) {
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
    const Ps per_step = b.PerStep(std::min(excess, cap));
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
        Ms(excess), Ms(cap), b.Per(std::min(excess, cap)), Ms(per_step));
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

  // XLA ops by category inside the window: async waits and data formatting.
  for (const RankView& rv : view.ranks) {
    const RankProfile& p = *rv.profile;
    if (p.xla_ops.empty()) continue;
    const StepBasis& b = basis[rv.rank];
    struct Acc {
      Ps total = 0;
      int64_t n = 0;
      std::map<std::string_view, Ps> by_op;
    } wait, fmt_ops;
    for (size_t i = 0; i < p.ops.size(); ++i) {
      if ((!rv.keep.empty() && !rv.keep[i]) || p.ops.xla[i] < 0) continue;
      const XlaOp& x = p.xla_ops[static_cast<size_t>(p.ops.xla[i])];
      const std::string_view op = p.str(x.hlo_op ? x.hlo_op : p.ops.name[i]);
      const OpCategory c = GroupFromCategory(p.str(x.category), op);
      Acc* acc = c == OpCategory::kAsyncWait ? &wait : c == OpCategory::kDataFormatting ? &fmt_ops : nullptr;
      if (!acc) continue;
      const Ps in = b.Clip(rv.Ts(static_cast<uint32_t>(i)), rv.End(static_cast<uint32_t>(i)));
      if (in <= 0) continue;
      acc->total += in, ++acc->n;
      acc->by_op[op] += in;
    }
    auto top = [](const Acc& a) {
      std::vector<std::pair<Ps, std::string_view>> v;
      for (const auto& [op, t] : a.by_op) v.push_back({t, op});
      std::sort(v.begin(), v.end(), [](const auto& x, const auto& y) {
        return x.first != y.first ? x.first > y.first : x.second < y.second;
      });
      std::string out;
      for (size_t k = 0; k < v.size() && k < 3; ++k)
        out += fmt::format("{}{} {}", k ? ", " : "", v[k].second, Ms(v[k].first));
      return out;
    };
    const std::pair<Rule, const Acc*> rules[] = {{Rule::async_wait, &wait}, {Rule::data_formatting, &fmt_ops}};
    for (const auto& [rule, acc] : rules) {
      const Ps per_step = b.PerStep(acc->total);
      if (!worth(per_step, b.step)) continue;
      Finding f;
      f.rule = rule;
      f.rank = rv.rank;
      f.subject = fmt::format("rank {}", rv.rank);
      f.evidence = fmt::format("{} ops, {}; the largest: {}", acc->n, Ms(acc->total), top(*acc));
      f.saving = per_step;
      f.step = b.step;
      f.formula =
          fmt::format("{} time: {} = {} per step, if none of it were needed",
                      rule == Rule::async_wait ? "async wait" : "data formatting", b.Per(acc->total), Ms(per_step));
      f.confidence = Confidence::kLow;  // an upper bound: some waits and copies remain
      out.push_back(std::move(f));
    }
  }

  // input_pipeline: the TensorBoard plugin's DataLoader role per step (time
  // the DataLoader runs while no GPU op does), median over the steps after
  // the first (of three or more).
  for (const RankView& rv : view.ranks) {
    const RankOverview ov = ComputeRankOverview(*rv.profile, rv.rank);
    if (ov.host_span_step || ov.steps.empty()) continue;
    const StepBasis& b = basis[rv.rank];
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

  // stragglers: per-rank steady-state compute; the others wait for the slowest.
  if (steps.summary.size() >= 2) {
    const StepSummary* slow = nullptr;
    const StepSummary* fast = nullptr;
    size_t with_steps = 0;
    for (const StepSummary& s : steps.summary) {
      if (s.steady_steps == 0) continue;
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
            Ms(us(slow->median_compute_us)), fast->rank, Ms(us(fast->median_compute_us)), steps.summary.size());
        f.saving = gap;
        f.step = step;
        f.formula = fmt::format("slowest median compute {} - fastest {} = {} per step, if the work were balanced",
                                Ms(us(slow->median_compute_us)), Ms(us(fast->median_compute_us)), Ms(gap));
        f.confidence = Confidence::kMedium;
        out.push_back(std::move(f));
      }
    }
  }

  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    if (a.saving != b.saving) return a.saving > b.saving;
    if (a.rule != b.rule) return a.rule < b.rule;
    if (a.rank != b.rank) return a.rank < b.rank;
    return a.subject < b.subject;
  });
  return out;
}

}  // namespace mlprof
