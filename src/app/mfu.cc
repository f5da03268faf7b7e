// `mlprof mfu`: the MFU calculator, with what the options leave out taken
// from a profile when one is given.
#include "analysis/mfu.h"

#include <fmt/format.h>

#include "app/chip.h"
#include "app/commands.h"
#include "model/steps.h"
#include "report/hw_tables.h"

namespace mlprof::app {

namespace {

std::string StepSourceText(const ProfileFigures& f) {
  switch (f.step_source) {
    case ProfileFigures::StepSource::kXlaModule:
      return fmt::format("mean execution of module {} ({} per device, {} devices)", f.module, f.executions,
                         static_cast<int64_t>(f.devices));
    case ProfileFigures::StepSource::kProfilerStep:
      if (f.steps_from == mlprof::StepSource::kTrace)
        return fmt::format(
            "the slowest rank's whole trace (no iterations found: every figure below is per trace, not per step), {} "
            "ranks",
            f.ranks);
      if (f.steps_from != mlprof::StepSource::kProfilerStep)
        return fmt::format(
            "slowest rank's median steady-state step wall time, {} ranks; no ProfilerStep#N: the steps "
            "are {}",
            f.ranks, StepSourceDescription(f.steps_from));
      return fmt::format("slowest rank's median steady-state ProfilerStep wall time, {} ranks", f.ranks);
    case ProfileFigures::StepSource::kServingStep:
      return fmt::format(
          "slowest rank's median steady-state serving-step latency (range start to its last GPU op's "
          "end), {} ranks",
          f.ranks);
    case ProfileFigures::StepSource::kNone:
      break;
  }
  return "";
}

std::string FlopsSourceText(const ProfileFigures& f) {
  if (f.flops_source == ProfileFigures::FlopsSource::kXlaOps)
    return "the XLA ops' FLOPs (profiler or HLO cost model), per device and step";
  return fmt::format(
      "{} (op, shapes) groups over {} ranks costed from their shapes in the steady-state steps, {:.1f} % of their "
      "GPU time; ops without a cost model count no FLOPs, so HFU is a lower bound",
      f.costed_groups, f.steady_ranks, 100 * f.costed_gpu_fraction);
}

// The calculator's input problems, in the CLI's words (its options).
Status MfuProblemStatus(MfuProblem p, const MfuInput& in) {
  switch (p) {
    case MfuProblem::kNoPeak:
      return InvalidArgument("mfu: give --chip (or --peak-tflops)");
    case MfuProblem::kNoDevices:
      return InvalidArgument("mfu: give --devices (a number above 0)");
    case MfuProblem::kNoDTypePeak:
      return InvalidArgument(
          fmt::format("mfu: chip '{}' has no {} peak in its file; pick another --dtype or give --peak-tflops",
                      in.chip->id, hw::DTypeName(in.dtype)));
    case MfuProblem::kNoThroughput:
      return InvalidArgument(
          "mfu: give the throughput: --step-time with --tokens-per-step (or --model-flops-per-step), or "
          "--tokens-per-day");
    case MfuProblem::kFlopsPerStepNoStepTime:
      return InvalidArgument("mfu: --model-flops-per-step needs --step-time");
    case MfuProblem::kFlopsPerSampleNoTokens:
      return InvalidArgument("mfu: --flops-per-sample needs --tokens-per-sample (the sequence length)");
    case MfuProblem::kNoModelFlops:
      return InvalidArgument(
          "mfu: give the model FLOPs: --model-flops-per-step, --flops-per-token, --flops-per-sample with "
          "--tokens-per-sample, or --params (6 N per token)");
  }
  return Internal("unknown mfu problem");
}

}  // namespace

StatusOr<Report> Mfu(const MfuOptions& o, const Session* profile) {
  ASSIGN_OR_RETURN(hw::ChipDb db, hw::ChipDb::WithFiles(o.chip_files));
  MfuInput mfu = o.input;
  const std::vector<DeviceProperties> devices =
      profile ? profile->profile.AllDevices() : std::vector<DeviceProperties>{};
  if (!o.chip.empty()) {
    ASSIGN_OR_RETURN(mfu.chip, FindChipOrDevice(db, o.chip, devices));
  }
  std::string from_profile;
  auto say = [&from_profile](const std::string& what) { from_profile += (from_profile.empty() ? "" : "; ") + what; };
  if (profile) {
    ProfileFigures f = MeasureProfile(profile->profile, profile->view);
    if (!mfu.step_seconds && f.step_seconds > 0) {
      mfu.step_seconds = f.step_seconds;
      mfu.step_from_profile = true;
      say(fmt::format("step time {:.6g} s ({})", f.step_seconds, StepSourceText(f)));
    }
    if (!(mfu.devices > 0) && f.devices > 0) {
      mfu.devices = f.devices;
      say(fmt::format("devices {:g}{}", f.devices,
                      f.devices_source == ProfileFigures::DevicesSource::kWorldSize
                          ? fmt::format(" (distributedInfo world_size; {} rank trace(s) read)", f.ranks_read)
                          : ""));
    }
    std::string chip_hint;
    if (!mfu.chip) {
      DetectedChip d = DetectChip(db, devices);
      if ((mfu.chip = d.chip)) say(fmt::format("chip {} (device '{}')", mfu.chip->id, d.device_name));
      if (!d.chip && !d.seen.empty()) chip_hint = fmt::format(" (device '{}'){}", d.seen.front(), d.ClosestHint(db));
    }
    mfu.hardware_flops_per_device_per_step = f.hardware_flops_per_device_per_step;
    if (f.flops_source != ProfileFigures::FlopsSource::kNone) say("hardware FLOPs: " + FlopsSourceText(f));
    if (!mfu.step_seconds)
      return InvalidArgument(
          "mfu: the profile has no step time (no ProfilerStep#N and no XLA module executions); give --step-time");
    if (!mfu.chip && !(o.peak_tflops > 0))
      return InvalidArgument(fmt::format("mfu: cannot tell the chip from the profile{}; give --chip", chip_hint));
  }
  std::string dtype_note;
  if (!o.dtype.empty()) {
    ASSIGN_OR_RETURN(mfu.dtype, ParseDTypeOption(o.dtype));
  } else {
    // No --dtype: bf16, or on a chip without it (V100, T4, RTX 20) its best
    // tensor dtype, as roofline and diagnose take it.
    mfu.dtype = mfu.chip ? DefaultPeakDtype(*mfu.chip) : hw::DType::kBf16;
    if (mfu.dtype != hw::DType::kBf16)
      dtype_note = fmt::format("Peak at {}: {} has no bf16 peak (--dtype picks another).", hw::DTypeName(mfu.dtype),
                               mfu.chip->id);
  }
  mfu.peak_override = o.peak_tflops * 1e12;
  if (std::optional<MfuProblem> problem = CheckMfu(mfu)) return MfuProblemStatus(*problem, mfu);
  const MfuResult res = ComputeMfu(mfu);
  Report r;
  r.tables.push_back(MfuTable(res));
  if (!from_profile.empty()) r.tables.back().notes.push_back("From the profile: " + from_profile + ".");
  if (!dtype_note.empty()) r.tables.back().notes.push_back(dtype_note);
  return r;
}

}  // namespace mlprof::app
