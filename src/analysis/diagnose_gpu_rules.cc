// diagnose's evaluators (analysis/diagnose_rules.h): the rules over the GPU's time: exposed communication, the idle
// gaps and their causes (host wait, queued work, launches, syncs, step boundaries), lost GPU activity.
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

void Run::ExposedCommunication() {
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
    if (!Worth(per_step, b.step)) continue;
    // What the critical path says: communication kernels taking no time.
    const RankProfile& rp = *rv.profile;
    const auto cp = PathWithout(rv, [&](const CpEdge& e) { return BoundOf(rp, e) == CpBound::kGpuCommunication; });
    const Ps exposed_per_step = per_step;
    if (cp && CpExplains(*cp, b.step)) per_step = std::min(per_step, cp->saving);
    if (!Worth(per_step, b.step)) continue;
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
    if (cp && CpExplains(*cp, b.step))
      f.formula +=
          fmt::format("; {}: saving = the smaller, {}", CpWords(*cp, "communication taking no time"), Ms(per_step));
    else if (cp)
      f.formula += fmt::format("; {}, but the path is under 90 % of the step: not used",
                               CpWords(*cp, "communication taking no time"));
    f.confidence = Confidence::kMedium;  // an upper bound: full overlap is rarely reached
    out.push_back(std::move(f));
  }
}

void Run::FindIdleGaps() {
  // The GPU's idle gaps per rank (no GPU op of the rank running), and why:
  // host wait when the op that ends the gap was launched only after the GPU
  // had drained (HTA's host-wait rule, on all streams together); a sync
  // stall when the host sat in a synchronising call as the GPU drained.
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
}

void Run::HostWaitIdle() {
  // host_wait_idle: per rank, on all its streams together.
  for (const RankView& rv : view.ranks) {
    const StepBasis& b = basis[rv.rank];
    const Gaps& g = gaps[rv.rank];
    const Ps per_step = b.PerStep(g.host_wait);
    if (!Worth(per_step, b.step)) continue;
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
}

void Run::GlooNote() {
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
}

void Run::QueuedIdle() {
  // queued_idle: per rank, the GPU idle with its next op already submitted.
  for (const RankView& rv : view.ranks) {
    const StepBasis& b = basis[rv.rank];
    const Gaps& g = gaps[rv.rank];
    // Gaps before ops of graph launches: the cause is not known (the graph's
    // earlier kernels may not be in the trace); said, not counted.
    if (notes && g.graph_gaps > 0 && Worth(b.PerStep(g.graph), b.step))
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
    if (g.queued_gaps == 0 || !Worth(per_step, b.step)) continue;
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
}

void Run::LaunchOverhead() {
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
    if (!Worth(per_step, b.step)) continue;
    // What the critical path says: launch calls, launch delays and the gaps
    // between kernels (which launches leave) taking no time.
    const RankProfile& rp = *rv->profile;
    const auto cp = PathWithout(*rv, [&](const CpEdge& e) {
      return e.type == CpEdgeType::kLaunchDelay || e.type == CpEdgeType::kKernelKernel ||
             (e.type == CpEdgeType::kOperator && e.op >= 0 && IsLaunchOp(rp.ops.kind[static_cast<size_t>(e.op)]));
    });
    const Ps estimate = per_step;
    if (cp && CpExplains(*cp, b.step)) per_step = std::min(per_step, cp->saving);
    if (!Worth(per_step, b.step)) continue;
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
    if (cp && CpExplains(*cp, b.step))
      f.formula += fmt::format("; {}: saving = the smaller, {}",
                               CpWords(*cp, "launch calls, delays and kernel gaps taking no time"), Ms(per_step));
    else if (cp)
      f.formula += fmt::format("; {}, but the path is under 90 % of the step: not used",
                               CpWords(*cp, "launch calls, delays and kernel gaps taking no time"));
    f.confidence = Confidence::kLow;  // how much a graph or fusion saves depends on the code
    out.push_back(std::move(f));
  }
}

void Run::SyncStalls() {
  // sync_stalls: the GPU idle right after the host was blocked in a sync.
  for (const RankView& rv : view.ranks) {
    const StepBasis& b = basis[rv.rank];
    const Gaps& g = gaps[rv.rank];
    const Ps per_step = b.PerStep(g.after_sync);
    if (!Worth(per_step, b.step)) continue;
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
}

void Run::StepBoundaryIdle() {
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
    if (!Worth(per_step, b.step)) continue;
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
}

void Run::GpuActivityLost() {
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
}

}  // namespace mlprof::diagnose
