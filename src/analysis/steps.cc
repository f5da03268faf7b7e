#include "analysis/steps.h"

#include "analysis/gpu_time.h"
#include "analysis/stats.h"

namespace mlprof {

int WarmupSteps(size_t steps, const StepOptions& opt) { return opt.warmup >= 0 ? opt.warmup : (steps >= 3 ? 1 : 0); }

StepReport ComputeSteps(const ProfileView& view, const StepOptions& opt) {
  StepReport rep;
  for (const RankView& rv : view.ranks) {
    const RankProfile& p = *rv.profile;
    if (p.steps.empty()) continue;
    std::vector<std::vector<GpuOpRef>> per_step(p.steps.size());
    KernelClassCache classes = view.Classes(p);
    StepSummary sum;
    for (size_t i = 0; i < p.ops.size(); ++i) {
      if (!OccupiesStream(p.ops.kind[i])) continue;
      if (p.ops.step[i] < 0) {
        ++sum.gpu_ops_outside, sum.gpu_time_outside += p.ops.dur[i];
        continue;
      }
      auto op = static_cast<uint32_t>(i);
      per_step[p.ops.step[i]].push_back({rv.Ts(op), rv.End(op), op, p.ops.track[i], classes.Get(p.ops.name[i])});
    }
    const int warmup = WarmupSteps(p.steps.size(), opt);
    sum.rank = rv.rank;
    sum.source = p.step_source;
    sum.note = p.step_note;
    std::vector<double> wall, span, busy, compute;
    for (size_t s = 0; s < p.steps.size(); ++s) {
      StepBreakdown b;
      b.rank = rv.rank;
      b.number = p.steps[s].number;
      b.wall = p.steps[s].dur;
      b.gpu_ops = static_cast<int64_t>(per_step[s].size());
      b.warmup = static_cast<int>(s) < warmup;
      b.last = rv.filtered && s + 1 == p.steps.size();
      if (!per_step[s].empty()) {
        ClassUnions u = UnionsByClass(per_step[s]);
        b.gpu_span = u.all.back().end - u.all.front().start;
        b.gpu_busy = TotalLength(u.all);
        b.idle = b.gpu_span - b.gpu_busy;
        b.compute = TotalLength(u.by_class[static_cast<int>(KernelClass::kComputation)]);
        b.communication = TotalLength(u.by_class[static_cast<int>(KernelClass::kCommunication)]);
        b.memory = TotalLength(u.by_class[static_cast<int>(KernelClass::kMemory)]);
      }
      if (!b.warmup && !b.last) {
        wall.push_back(PsToUs(b.wall));
        span.push_back(PsToUs(b.gpu_span));
        busy.push_back(PsToUs(b.gpu_busy));
        compute.push_back(PsToUs(b.compute));
      }
      rep.steps.push_back(b);
    }
    sum.steps = static_cast<int64_t>(p.steps.size());
    sum.steady_steps = static_cast<int64_t>(wall.size());
    if (!wall.empty()) {
      sum.median_wall_us = Median(wall);
      sum.median_gpu_span_us = Median(span);
      sum.median_busy_us = Median(busy);
      sum.median_compute_us = Median(compute);
    }
    rep.summary.push_back(sum);
  }
  return rep;
}

}  // namespace mlprof
