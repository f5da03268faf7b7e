// Model FLOPs utilisation as performance teams report it, and the two
// roofline basics it rests on. Conventions (stated in every report):
//   MFU = model FLOPs per second / (devices x peak FLOP/s per device)
//   model FLOPs per token = 6 x parameters (forward 2, backward 4 per
//     weight) + the attention-score term 12 x layers x context x d_model
//     (QK^T and A.V, forward and backward; full s x s unless causal halves
//     it), or given directly (per token, per sample or per step).
// Hardware FLOPs (recomputation included) would give HFU; they come from a
// profile's op FLOPs, not from this calculator.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/view.h"
#include "hw/chip.h"

namespace mlprof {

struct MfuInput {
  const hw::Chip* chip = nullptr;
  hw::DType dtype = hw::DType::kBf16;
  double devices = 0;        // chips, or cores with per_core
  bool per_core = false;     // devices are cores (TPU TensorCores): peak / cores_per_chip
  double peak_override = 0;  // FLOP/s per device, replaces the chip's figure when > 0
  // Throughput: step time and tokens per step, or tokens per day.
  std::optional<double> step_seconds;
  bool step_from_profile = false;  // the step time was measured, not given
  std::optional<double> tokens_per_step;
  std::optional<double> tokens_per_day;
  // Model FLOPs: one of these (checked in this order).
  std::optional<double> model_flops_per_step;
  std::optional<double> flops_per_token;
  std::optional<double> flops_per_sample;  // with tokens_per_sample
  std::optional<double> tokens_per_sample;
  std::optional<double> params;  // 6 N per token, plus the attention term if these are given:
  std::optional<double> layers, context, d_model;
  bool causal = false;  // attention term halved (only the unmasked half is useful work)
  // FLOPs the device executed per step (the profile's op FLOPs, recompute
  // included): gives hardware FLOPs utilisation (HFU) beside MFU.
  double hardware_flops_per_device_per_step = 0;
};

// Where the result's figures came from, for the report to say.
enum class PeakSource : uint8_t { kGiven, kChip };
enum class ThroughputSource : uint8_t { kTokensPerStep, kTokensPerDay, kFlopsPerStep };
enum class FlopsConvention : uint8_t { kPerStepGiven, kPerTokenGiven, kPerSampleGiven, kSixN };

struct MfuResult {
  double tokens_per_s = 0;
  double tokens_per_device_per_s = 0;
  double flops_per_token = 0;
  double model_flops_per_step = 0;       // 0 when no step is known
  double flops_per_device_per_step = 0;  // 0 when no step is known
  double achieved_flops_per_device = 0;  // FLOP/s
  double peak_flops_per_device = 0;
  double mfu = 0;                               // fraction
  double hfu = -1;                              // fraction; -1 when the hardware FLOPs are not known
  double hardware_flops_per_device_per_s = -1;  // -1: not known
  double step_seconds = 0;                      // 0: no step time
  bool step_from_profile = false;
  // The peak: given, or the chip's for the dtype (per core: / cores_per_chip).
  PeakSource peak_source = PeakSource::kGiven;
  std::string chip;  // id, with kChip
  hw::DType dtype = hw::DType::kBf16;
  int cores_per_chip = 0;  // > 0 when the peak is per core
  ThroughputSource throughput = ThroughputSource::kTokensPerStep;
  // The model FLOPs: as given per step / token / sample, or 6 N per token
  // (+ the attention-score term when its shape was given).
  FlopsConvention convention = FlopsConvention::kSixN;
  double tokens_per_sample = 0;  // kPerSampleGiven
  bool attention_counted = false, causal = false;
};

// What is missing from an MfuInput or inconsistent in it, as a value; the
// caller words it (the CLI in its options' names, app/mfu.cc).
enum class MfuProblem : uint8_t {
  kNoPeak,                  // neither a chip nor a peak
  kNoDevices,               // no devices (0 or fewer)
  kNoDTypePeak,             // the chip has no peak for the dtype (and no peak is given)
  kNoThroughput,            // no step time with tokens (or model FLOPs) per step, no tokens per day
  kFlopsPerStepNoStepTime,  // model FLOPs per step without a step time
  kFlopsPerSampleNoTokens,  // FLOPs per sample without tokens per sample
  kNoModelFlops,            // no model FLOPs per step, token or sample, and no parameter count
};
// The first problem of the input, in the order above; nullopt: fine.
std::optional<MfuProblem> CheckMfu(const MfuInput& in);
// MFU for an input CheckMfu accepts.
MfuResult ComputeMfu(const MfuInput& in);

// What a profile says for MFU: the step time, the device count, the FLOPs
// each device executed per step, and the device names (to detect the chip).
//  - XLA profiles: the mean execution time of the busiest module (one step),
//    device planes with XLA ops, and the ops' FLOPs (runtime or HLO cost
//    model) summed over executions / devices / steps.
//  - PyTorch (Kineto) traces: per rank the median steady-state ProfilerStep
//    wall time (analysis/steps.h), the slowest rank's (it sets the pace of
//    synchronous training); one device per rank; hardware FLOPs from the
//    ops costed from their shapes (analysis/op_cost.h) in the steady-state
//    steps, per step, averaged over the ranks. Ops without a cost model
//    count none, so this HFU is a lower bound; costed_gpu_fraction says how
//    much of the GPU time the costed ops cover.
struct ProfileFigures {
  double step_seconds = 0;  // 0: unknown
  double devices = 0;
  // Where the device count came from: the XLA profile's devices, the ranks
  // read, or distributedInfo.world_size when it says more ranks ran than
  // were read (one rank's trace of a 16-rank job).
  enum class DevicesSource : uint8_t {
    kNone,
    kXlaDevices,
    kRanksRead,
    kWorldSize
  } devices_source = DevicesSource::kNone;
  int64_t ranks_read = 0;
  double hardware_flops_per_device_per_step = 0;  // 0: unknown
  double costed_gpu_fraction = -1;  // Kineto: GPU time of ops with a FLOP count / all op GPU time (-1: n/a)
  // How the step time was found: the mean execution of the busiest XLA
  // module (its name, executions per device), or the slowest rank's median
  // steady-state ProfilerStep.
  // kServingStep: vLLM / SGLang steps (analysis/serving.h), whose host range
  // ends before their GPU work: the median latency, not the range.
  enum class StepSource : uint8_t { kNone, kXlaModule, kProfilerStep, kServingStep } step_source = StepSource::kNone;
  std::string module;      // kXlaModule
  int64_t executions = 0;  // kXlaModule: per device
  int64_t ranks = 0;       // kProfilerStep: ranks with steps
  // kProfilerStep: where the slowest rank's steps come from (model/steps.h:
  // ProfilerStep#N, Optimizer.step ranges, ..., the whole trace).
  mlprof::StepSource steps_from = mlprof::StepSource::kNone;
  // How the hardware FLOPs were found: the XLA ops' (profiler or HLO cost
  // model), or the PyTorch ops costed from their shapes (groups, ranks).
  enum class FlopsSource : uint8_t { kNone, kXlaOps, kCostedShapes } flops_source = FlopsSource::kNone;
  int64_t costed_groups = 0, steady_ranks = 0;  // kCostedShapes
};
ProfileFigures MeasureProfile(const Profile& p, const ProfileView& v);

}  // namespace mlprof
