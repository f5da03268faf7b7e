#include "analysis/mfu.h"

#include <algorithm>
#include <map>

#include "analysis/ops.h"
#include "analysis/serving.h"
#include "analysis/stats.h"
#include "analysis/steps.h"
#include "analysis/xla.h"

namespace mlprof {

namespace {

bool Positive(const std::optional<double>& v) { return v && *v > 0; }

// Where the throughput comes from, in the order the inputs are tried.
std::optional<ThroughputSource> Throughput(const MfuInput& in) {
  if (Positive(in.step_seconds) && Positive(in.tokens_per_step)) return ThroughputSource::kTokensPerStep;
  if (Positive(in.tokens_per_day)) return ThroughputSource::kTokensPerDay;
  if (Positive(in.step_seconds) && Positive(in.model_flops_per_step)) return ThroughputSource::kFlopsPerStep;
  return std::nullopt;
}

// Where the model FLOPs come from, in the order the inputs are tried.
std::optional<FlopsConvention> Convention(const MfuInput& in) {
  if (Positive(in.model_flops_per_step)) return FlopsConvention::kPerStepGiven;
  if (Positive(in.flops_per_token)) return FlopsConvention::kPerTokenGiven;
  if (Positive(in.flops_per_sample)) return FlopsConvention::kPerSampleGiven;
  if (Positive(in.params)) return FlopsConvention::kSixN;
  return std::nullopt;
}

}  // namespace

std::optional<MfuProblem> CheckMfu(const MfuInput& in) {
  const bool given_peak = in.peak_override > 0;
  if (!in.chip && !given_peak) return MfuProblem::kNoPeak;
  if (!(in.devices > 0)) return MfuProblem::kNoDevices;
  if (!given_peak && !(in.chip->peak(in.dtype) > 0)) return MfuProblem::kNoDTypePeak;
  if (!Throughput(in)) return MfuProblem::kNoThroughput;
  const std::optional<FlopsConvention> convention = Convention(in);
  if (!convention) return MfuProblem::kNoModelFlops;
  if (*convention == FlopsConvention::kPerStepGiven && !Positive(in.step_seconds))
    return MfuProblem::kFlopsPerStepNoStepTime;
  if (*convention == FlopsConvention::kPerSampleGiven && !Positive(in.tokens_per_sample))
    return MfuProblem::kFlopsPerSampleNoTokens;
  return std::nullopt;
}

MfuResult ComputeMfu(const MfuInput& in) {
  MfuResult r;
  // Peak per device.
  double peak = in.peak_override;
  r.dtype = in.dtype;
  if (!(peak > 0)) {
    peak = in.chip->peak(in.dtype);
    r.peak_source = PeakSource::kChip;
    r.chip = in.chip->id;
    if (in.per_core) {
      peak /= in.chip->cores_per_chip;
      r.cores_per_chip = in.chip->cores_per_chip;
    }
  }
  r.peak_flops_per_device = peak;

  // Throughput.
  r.throughput = *Throughput(in);
  switch (r.throughput) {
    case ThroughputSource::kTokensPerStep:
      r.tokens_per_s = *in.tokens_per_step / *in.step_seconds;
      break;
    case ThroughputSource::kTokensPerDay:
      r.tokens_per_s = *in.tokens_per_day / 86400.0;
      break;
    case ThroughputSource::kFlopsPerStep:
      r.tokens_per_s = 0;  // not needed: FLOPs per step given
      break;
  }
  const bool have_step = Positive(in.step_seconds);
  if (have_step) r.step_seconds = *in.step_seconds, r.step_from_profile = in.step_from_profile;

  // Model FLOPs.
  r.convention = *Convention(in);
  switch (r.convention) {
    case FlopsConvention::kPerStepGiven:
      r.model_flops_per_step = *in.model_flops_per_step;
      if (Positive(in.tokens_per_step)) r.flops_per_token = r.model_flops_per_step / *in.tokens_per_step;
      break;
    case FlopsConvention::kPerTokenGiven:
      r.flops_per_token = *in.flops_per_token;
      break;
    case FlopsConvention::kPerSampleGiven:
      r.flops_per_token = *in.flops_per_sample / *in.tokens_per_sample;
      r.tokens_per_sample = *in.tokens_per_sample;
      break;
    case FlopsConvention::kSixN:
      r.flops_per_token = 6.0 * *in.params;
      if (Positive(in.layers) && Positive(in.context) && Positive(in.d_model)) {
        const double attn = 12.0 * *in.layers * *in.context * *in.d_model * (in.causal ? 0.5 : 1.0);
        r.flops_per_token += attn;
        r.attention_counted = true;
        r.causal = in.causal;
      }
      break;
  }

  // Rates.
  double flops_per_s;
  if (r.model_flops_per_step > 0) {
    flops_per_s = r.model_flops_per_step / *in.step_seconds;
    if (r.tokens_per_s == 0 && Positive(in.tokens_per_step)) r.tokens_per_s = *in.tokens_per_step / *in.step_seconds;
  } else {
    flops_per_s = r.tokens_per_s * r.flops_per_token;
    if (have_step) r.model_flops_per_step = flops_per_s * *in.step_seconds;
  }
  r.tokens_per_device_per_s = r.tokens_per_s / in.devices;
  r.achieved_flops_per_device = flops_per_s / in.devices;
  if (have_step) r.flops_per_device_per_step = r.model_flops_per_step / in.devices;
  r.mfu = r.achieved_flops_per_device / peak;
  if (in.hardware_flops_per_device_per_step > 0 && have_step) {
    r.hardware_flops_per_device_per_s = in.hardware_flops_per_device_per_step / *in.step_seconds;
    r.hfu = in.hardware_flops_per_device_per_step / *in.step_seconds / peak;
  }
  return r;
}

ProfileFigures MeasureProfile(const Profile& p, const ProfileView& v) {
  ProfileFigures f;
  for (const auto& rank : p.ranks) {
    if (rank.xla_ops.empty()) continue;
    XlaOps x = ResolveXlaOps(rank);
    XlaBreakdown b = BreakdownXla(rank, x);
    if (b.step_time <= 0 || b.devices <= 0) continue;
    f.step_seconds = static_cast<double>(b.step_time) / 1e12;
    f.devices = b.devices;
    f.devices_source = ProfileFigures::DevicesSource::kXlaDevices;
    double flops = 0;
    for (const auto& row : b.rows) flops += row.flops;
    if (flops > 0) {
      f.hardware_flops_per_device_per_step = flops / b.devices / static_cast<double>(std::max<int64_t>(1, b.steps));
      f.flops_source = ProfileFigures::FlopsSource::kXlaOps;
    }
    f.step_source = ProfileFigures::StepSource::kXlaModule;
    f.module = b.main_module;
    f.executions = b.steps;
    return f;
  }
  StepReport s = ComputeSteps(v, {});
  double slowest = 0;
  for (const auto& sum : s.summary)
    if (sum.median_wall_us > slowest) slowest = sum.median_wall_us, f.steps_from = sum.source;
  if (slowest > 0) {
    f.step_seconds = slowest / 1e6;
    f.step_source = ProfileFigures::StepSource::kProfilerStep;
    f.ranks = static_cast<int64_t>(s.summary.size());
  }
  // Serving steps: a step's host range ends before its GPU work does; the
  // step takes its latency (range start to its last GPU op's end).
  const ServingReport serving = ComputeServingSteps(v, {});
  if (!serving.steps.empty()) {
    std::map<int64_t, std::vector<double>> latency;  // rank -> steady steps' latency, us
    for (const ServingStepRow& r : serving.steps)
      if (!r.warmup && !r.last) latency[r.rank].push_back(PsToUs(r.latency));
    double slowest_latency = 0;
    for (auto& [rank, l] : latency) slowest_latency = std::max(slowest_latency, Median(l));
    if (slowest_latency > 0) {
      f.step_seconds = slowest_latency / 1e6;
      f.step_source = ProfileFigures::StepSource::kServingStep;
      f.ranks = static_cast<int64_t>(latency.size());
    }
  }
  f.ranks_read = static_cast<int64_t>(p.ranks.size());
  f.devices = static_cast<double>(p.ranks.size());
  f.devices_source = ProfileFigures::DevicesSource::kRanksRead;
  int64_t world = 0;
  for (const auto& rank : p.ranks) world = std::max<int64_t>(world, rank.meta.world_size);
  if (static_cast<double>(world) > f.devices) {
    f.devices = static_cast<double>(world);
    f.devices_source = ProfileFigures::DevicesSource::kWorldSize;
  }
  // Hardware FLOPs: the costed ops of the steady-state steps.
  std::map<int64_t, int64_t> steady;  // rank -> steady-state steps whose GPU work the view keeps
  for (const RankView& rv : v.ranks) {
    const int64_t n = rv.KeptSteps() - WarmupSteps(rv.profile->steps.size(), {});
    if (n > 0) steady[rv.rank] = n;
  }
  if (steady.empty()) return f;
  OpsOptions oo;
  oo.steady_steps_only = true;
  std::map<int64_t, double> flops;  // rank -> FLOPs
  double costed = 0, all = 0;
  int64_t costed_groups = 0;
  for (const OpGpuTime& row : ComputeOpGpuTime(v, oo)) {
    all += static_cast<double>(row.gpu_time);
    if (row.flops_per_call < 0 || !row.collective.empty()) continue;  // collectives: no compute FLOPs counted
    costed += static_cast<double>(row.gpu_time);
    flops[row.rank] += row.flops_per_call * static_cast<double>(row.calls);
    ++costed_groups;
  }
  double per_step = 0;
  for (const auto& [rank, n] : steady) per_step += flops[rank] / static_cast<double>(n);
  per_step /= static_cast<double>(steady.size());
  if (per_step > 0) {
    f.hardware_flops_per_device_per_step = per_step;
    f.costed_gpu_fraction = all > 0 ? costed / all : 0;
    f.flops_source = ProfileFigures::FlopsSource::kCostedShapes;
    f.costed_groups = costed_groups;
    f.steady_ranks = static_cast<int64_t>(steady.size());
  }
  return f;
}

}  // namespace mlprof
