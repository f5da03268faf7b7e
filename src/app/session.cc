#include "app/session.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>

#include "io/load.h"
#include "model/steps.h"

namespace mlprof::app {

StatusOr<StepSource> ParseStepsFrom(const std::string& name) {
  StepSource s = StepSource::kAuto;
  if (!name.empty() && !ParseStepSource(name, &s))
    return InvalidArgument("--steps-from '" + name +
                           "': expected auto, profiler, serving, optimizer, annotation, repeat or trace");
  return s;
}

StatusOr<Session> OpenSession(const InputOptions& inputs, const ProgressFn& progress, bool with_view) {
  const auto t0 = std::chrono::steady_clock::now();
  LoadOptions lo;
  lo.threads = inputs.threads;
  lo.max_decoded_bytes = static_cast<uint64_t>(inputs.max_input_gb * 1e9);
  lo.progress = progress;
  lo.all_args = inputs.all_args;
  lo.merge = inputs.merge || inputs.merge_offset_us.has_value();
  lo.merge_offset_us = inputs.merge_offset_us;
  lo.capture = inputs.capture;
  ASSIGN_OR_RETURN(lo.steps_from, ParseStepsFrom(inputs.steps_from));
  Session s;
  s.inputs = inputs;
  ASSIGN_OR_RETURN(s.profile, LoadProfile(inputs.paths, lo));  // expands directories (skips non-traces there)
  s.load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const auto& r : s.profile.ranks) s.decoded_bytes += r.decoded_bytes, s.ops += r.ops.size();
  if (!with_view) return s;
  RETURN_IF_ERROR(AttachView(s));
  return s;
}

Status AttachView(Session& s) {
  const InputOptions& inputs = s.inputs;
  AnalysisOptions ao;
  ao.drop_last_step = !inputs.all_steps;
  ao.hta_rounding = inputs.hta_rounding;
  ao.threads = inputs.threads;
  ao.multi_step = inputs.job.multi_step;
  if (!inputs.comm_kernels.empty()) {
    ASSIGN_OR_RETURN(ao.comm_kernels, CommKernelPatterns::Parse(inputs.comm_kernels));
  }
  s.view = BuildProfileView(s.profile, ao);
  if (inputs.rank >= 0) {
    std::vector<RankView> keep;
    for (auto& r : s.view.ranks)
      if (r.rank == inputs.rank) keep.push_back(std::move(r));
    s.view.ranks = std::move(keep);
    std::vector<int64_t> ranks = inputs.job.ranks;
    if (ranks.empty())
      for (const auto& r : s.profile.ranks) ranks.push_back(r.rank_or(-1));
    if (std::find(ranks.begin(), ranks.end(), inputs.rank) == ranks.end())
      return InvalidArgument(
          fmt::format("--rank {}: no such rank (the inputs hold ranks {})", inputs.rank, fmt::join(ranks, ", ")));
  }
  return OkStatus();
}

}  // namespace mlprof::app
