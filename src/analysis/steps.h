// Per-step breakdown. A step is a ProfilerStep#N annotation on the host, or
// what model/steps.h found where there is none (serving steps, optimizer
// steps, annotated iterations, repeats of the top-level ops, the whole
// trace); its GPU work is every GPU op launched from inside it (HTA's
// "iteration"). For
// each step: host wall time, and over the step's GPU ops the temporal
// breakdown (span from first GPU start to last GPU end, busy, compute,
// communication, memory, idle). Steady state: medians over steps after the
// first `warmup` ones.
#pragma once

#include <string>
#include <vector>

#include "analysis/view.h"

namespace mlprof {

struct StepBreakdown {
  int64_t rank = 0;
  int64_t number = -1;
  Ps wall = 0;      // ProfilerStep duration (host)
  Ps gpu_span = 0;  // last GPU end - first GPU start of the step's GPU ops
  Ps gpu_busy = 0, compute = 0, communication = 0, memory = 0, idle = 0;
  int64_t gpu_ops = 0;
  bool warmup = false;
  // The last step where the view drops it (HTA's default, --all-steps keeps
  // it): often cut short by the end of profiling, so out of the steady state.
  bool last = false;
};

struct StepSummary {
  int64_t rank = 0;
  int64_t steps = 0, steady_steps = 0;
  double median_wall_us = 0, median_gpu_span_us = 0, median_busy_us = 0, median_compute_us = 0;
  StepSource source = StepSource::kNone;  // where the rank's steps come from
  std::string note;                       // RankProfile::step_note
  int64_t gpu_ops_outside = 0;            // GPU ops in no step (launched before the first or after the last)
  Ps gpu_time_outside = 0;                // their summed duration
};

struct StepOptions {
  int warmup = -1;  // -1: 1 if there are >= 3 steps, else 0
};

struct StepReport {
  std::vector<StepBreakdown> steps;
  std::vector<StepSummary> summary;
};

// Uses every op of the rank (no last-step filter: each step stands alone).
StepReport ComputeSteps(const ProfileView& view, const StepOptions& opt);

// The warm-up steps left out of the steady state: opt.warmup, or by default
// 1 when there are at least 3 steps (else 0).
int WarmupSteps(size_t steps, const StepOptions& opt);

}  // namespace mlprof
