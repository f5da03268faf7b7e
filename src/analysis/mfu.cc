#include "analysis/mfu.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analysis/ops.h"
#include "analysis/steps.h"
#include "analysis/xla.h"

namespace mlprof {

namespace {
bool Positive(const std::optional<double>& v) { return v && *v > 0; }
}  // namespace

StatusOr<MfuResult> ComputeMfu(const MfuInput& in) {
  if (!in.chip && !(in.peak_override > 0)) return InvalidArgument("mfu: give --chip (or --peak-tflops)");
  if (!(in.devices > 0)) return InvalidArgument("mfu: give --devices (a number above 0)");
  MfuResult r;
  // Peak per device.
  double peak = in.peak_override;
  r.dtype = in.dtype;
  if (!(peak > 0)) {
    peak = in.chip->peak(in.dtype);
    if (!(peak > 0))
      return InvalidArgument(
          fmt::format("mfu: chip '{}' has no {} peak in its file; pick another --dtype or give "
                      "--peak-tflops",
                      in.chip->id, hw::DTypeName(in.dtype)));
    r.peak_source = PeakSource::kChip;
    r.chip = in.chip->id;
    if (in.per_core) {
      peak /= in.chip->cores_per_chip;
      r.cores_per_chip = in.chip->cores_per_chip;
    }
  }
  r.peak_flops_per_device = peak;

  // Throughput.
  if (Positive(in.step_seconds) && Positive(in.tokens_per_step)) {
    r.tokens_per_s = *in.tokens_per_step / *in.step_seconds;
    r.throughput = ThroughputSource::kTokensPerStep;
  } else if (Positive(in.tokens_per_day)) {
    r.tokens_per_s = *in.tokens_per_day / 86400.0;
    r.throughput = ThroughputSource::kTokensPerDay;
  } else if (Positive(in.step_seconds) && Positive(in.model_flops_per_step)) {
    r.tokens_per_s = 0;  // not needed: FLOPs per step given
    r.throughput = ThroughputSource::kFlopsPerStep;
  } else {
    return InvalidArgument(
        "mfu: give the throughput: --step-time with --tokens-per-step (or --model-flops-per-step), or "
        "--tokens-per-day");
  }
  const bool have_step = Positive(in.step_seconds);
  if (have_step) r.step_seconds = *in.step_seconds, r.step_from_profile = in.step_from_profile;

  // Model FLOPs.
  if (Positive(in.model_flops_per_step)) {
    if (!have_step) return InvalidArgument("mfu: --model-flops-per-step needs --step-time");
    r.model_flops_per_step = *in.model_flops_per_step;
    r.convention = FlopsConvention::kPerStepGiven;
    if (Positive(in.tokens_per_step)) r.flops_per_token = r.model_flops_per_step / *in.tokens_per_step;
  } else if (Positive(in.flops_per_token)) {
    r.flops_per_token = *in.flops_per_token;
    r.convention = FlopsConvention::kPerTokenGiven;
  } else if (Positive(in.flops_per_sample)) {
    if (!Positive(in.tokens_per_sample))
      return InvalidArgument("mfu: --flops-per-sample needs --tokens-per-sample (the sequence length)");
    r.flops_per_token = *in.flops_per_sample / *in.tokens_per_sample;
    r.convention = FlopsConvention::kPerSampleGiven;
    r.tokens_per_sample = *in.tokens_per_sample;
  } else if (Positive(in.params)) {
    r.flops_per_token = 6.0 * *in.params;
    r.convention = FlopsConvention::kSixN;
    if (Positive(in.layers) && Positive(in.context) && Positive(in.d_model)) {
      const double attn = 12.0 * *in.layers * *in.context * *in.d_model * (in.causal ? 0.5 : 1.0);
      r.flops_per_token += attn;
      r.attention_counted = true;
      r.causal = in.causal;
    }
  } else {
    return InvalidArgument(
        "mfu: give the model FLOPs: --model-flops-per-step, --flops-per-token, --flops-per-sample with "
        "--tokens-per-sample, or --params (6 N per token)");
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
  for (const auto& rank : p.ranks)
    for (const auto& d : rank.meta.devices)
      for (const std::string* n : {&d.device_type, &d.name})
        if (!n->empty() && std::find(f.device_names.begin(), f.device_names.end(), *n) == f.device_names.end())
          f.device_names.push_back(*n);
  for (const auto& rank : p.ranks) {
    if (rank.xla_ops.empty()) continue;
    XlaOps x = ResolveXlaOps(rank);
    XlaBreakdown b = BreakdownXla(rank, x);
    if (b.step_time <= 0 || b.devices <= 0) continue;
    f.step_seconds = static_cast<double>(b.step_time) / 1e12;
    f.devices = b.devices;
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
  for (const auto& sum : s.summary) slowest = std::max(slowest, sum.median_wall_us);
  if (slowest > 0) {
    f.step_seconds = slowest / 1e6;
    f.step_source = ProfileFigures::StepSource::kProfilerStep;
    f.ranks = static_cast<int64_t>(s.summary.size());
  }
  f.devices = static_cast<double>(p.ranks.size());
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
