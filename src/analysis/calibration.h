// What a real run measured, for the planner's `--calibrate`: per steady
// step and rank, the matmuls' FLOPs and GPU time (overall and by size per
// call), attention's, the optimizer's GPU time, the other compute kernels'
// time, communication and how much of it compute did not hide, the step's
// wall time and the GPU's busy time; collectives' bus bandwidth by kind and
// group size. Raw values only: the planner's side (app/plan.cc) turns them
// into efficiencies against a chip and a model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/collectives.h"
#include "analysis/view.h"
#include "plan/planner.h"

namespace mlprof {

// Matmul calls whose FLOPs per call fall in [lo, hi).
struct GemmSizeClass {
  double lo = 0, hi = 0;  // FLOPs per call
  int64_t calls = 0;      // per step, summed over ranks
  double flops = 0;       // per step, summed over ranks
  double seconds = 0;     // GPU time, per step, summed over ranks
};

// Collectives of one kind and group size (instances of 1 MiB or more).
struct CollectiveBandwidth {
  std::string kind;  // "all-reduce", ...
  int64_t group_size = 0;
  int64_t instances = 0;
  double bytes = 0;          // median message
  double bus_bw_median = 0;  // B/s
};

struct RunMeasurement {
  int64_t ranks = 0;        // ranks measured (with steady steps)
  int64_t steps = 0;        // steady steps per rank (the fewest over the ranks)
  int64_t world_size = -1;  // the job's (distributedInfo); -1 unknown
  std::string device;       // the first rank's GPU name
  bool xla = false;         // measured from XLA ops (MeasureXlaRun)
  // Per step: the median steady step's host wall time and GPU busy time,
  // the slowest rank's (it sets the pace).
  double step_s = 0, busy_s = 0;
  // Per step and rank (the mean over ranks), from the ops costed from their
  // shapes: matmul (and convolution) FLOPs and GPU time; attention's.
  double gemm_flops = 0, gemm_s = 0;
  int64_t gemm_calls = 0;
  double attention_flops = 0, attention_s = 0;
  int64_t attention_calls = 0;
  // Matmul and attention ops without recorded shapes: GPU time only (left
  // out of the efficiencies and of other compute).
  double gemm_uncosted_s = 0, attention_uncosted_s = 0;
  // GPU time of kernels launched under an Optimizer.* annotation; of the
  // other compute kernels (neither matmul, attention nor optimizer:
  // elementwise, norms, casts, the loss); of communication kernels, and the
  // part of it no compute kernel overlaps.
  double optimizer_s = 0, other_compute_s = 0, comm_s = 0, exposed_comm_s = 0;
  std::vector<GemmSizeClass> gemm_sizes;  // per decade of FLOPs per call, only the classes with calls
  std::vector<CollectiveBandwidth> collectives;
};

// Over the view's ranks with at least one steady step (analysis/steps.h's
// warm-up rule, the view's last-step filter). `collectives` may be null.
RunMeasurement MeasureRun(const ProfileView& view, const CollectiveReport* collectives);
// An XLA profile's (the ranks with XLA ops): per device and execution of
// the main module (the step), from the op breakdown (analysis/xla.h):
// matmul and attention FLOPs and time; the optimizer pass's time; other
// compute (all but matmul, attention, optimizer, collectives, async waits
// and memory transfers); collectives, and as exposed the async waits
// (-done ops); the module's mean execution as the step, the op time as
// busy. Collective bandwidths are not measured here. ranks = 0: no XLA ops.
RunMeasurement MeasureXlaRun(const Profile& profile);

namespace plan {

// The figures `--calibrate` measures, each beside the planner's default.
enum class CalibratedKnob : uint8_t {
  kGemm,          // matmul FLOPs / (GPU time x bf16 peak)
  kAttention,     // attention FLOPs executed / (GPU time x bf16 peak)
  kOtherBytes,    // other compute time x HBM B/s x chips / (tokens x layers x hidden)
  kOptimizerHbm,  // 34 B x parameters updated per chip / (optimizer time x HBM B/s)
  kStepOverhead,  // step wall time - GPU busy time
  kCollective,    // median over kinds of the median bus bandwidth / the group's link bandwidth
  kOverlap,       // 1 - exposed / all communication (applied only when the run has no TP, PP, CP or EP)
  kModelCheck,    // matmul FLOPs per step and chip: measured (from shapes) against the model's (`before`)
};
// Why a measured figure was not applied.
enum class CalibrationSkip : uint8_t {
  kNone,
  kNotInProfile,     // not measured
  kGiven,            // --gemm-eff given
  kSmallSample,      // the ops measured are under 5 % of the device's busy time
  kModelMismatch,    // the model check is outside 0.5..2 (or cannot be made): figures per parameter or per layer
  kNotDataParallel,  // the run has TP, PP, CP or EP communication too (overlap)
};
struct CalibratedFigure {
  CalibratedKnob knob = CalibratedKnob::kGemm;
  double measured = -1;  // -1: the profile does not show it (the default stays)
  double before = 0;     // the planner's default
  bool applied = false;
  CalibrationSkip skip = CalibrationSkip::kNone;
  double num = 0, den = 0;  // the ratio's two sides, in the knob's units (seconds, FLOPs, bytes...)
  std::string kind;         // kCollective rows: the collective kind and group size
  int64_t group = 0;
};
struct Calibration {
  Plan run;                               // the profile's own plan, evaluated with the calibrated knobs
  double predicted_default = 0;           // its step time with the default knobs
  double peak = 0;                        // the chip's bf16 FLOP/s the efficiencies are of
  double run_gemm_shape = 1;              // what of a large matmul's efficiency the run's matmul sizes reach
  double model_ratio = -1;                // measured / the model's matmul FLOPs (-1: no matmul measured)
  Knobs knobs;                            // the calibrated knobs
  std::vector<CalibratedFigure> figures;  // in CalibratedKnob order, then one row per collective kind
};

// The run's plan `run` (its degrees, micro-batch and remat; the caller
// checks it with CheckRun) under the measured figures: each knob the
// profile shows replaces the default in `k` (a given GEMM efficiency,
// Knobs::gemm > 0, stays).
Calibration Calibrate(const RunMeasurement& m, const ModelSpec& model, const Cluster& c, const TrainSpec& t,
                      const Knobs& k, const Plan& run);

}  // namespace plan
}  // namespace mlprof
