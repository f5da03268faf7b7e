// The Overview of the TensorBoard PyTorch profiler plugin (torch-tb-profiler),
// the view PyTorch users know first, on mlprof's model:
//
// Step time breakdown. Each step's span is cut into what ran, each instant
// given to the first role, in this order, that covers it: Kernel (GPU
// kernels), Memcpy, Memset (GPU copies and fills), Communication (collective
// kernels), Runtime (CUDA runtime calls on the host), DataLoader (the
// `enumerate(DataLoader)#...__next__` op), CPU Exec (host ops), Other (the
// rest). Roles are unions over the whole rank (all streams, all threads).
//
// Steps are the ProfilerStep#N spans widened to the GPU work they launched,
// as the plugin does: a step starts where the previous one ended (or, for
// the first, at the end of the GPU work launched before it that finished
// before the step's own GPU work began) and ends at the later of its host end
// and the end of the GPU work launched by CUDA runtime calls lying wholly
// inside its host span. The last steps whose launches are missing (none, or
// under 80 % of the step before) are dropped: the profiler may have stopped
// before their kernels ran. The steps are the rank's (model/steps.h), so
// without ProfilerStep they are the serving, optimizer, annotated or repeated
// iterations every other step-based command uses, widened the same way; with
// none of these (the whole trace), one step spans the host ops.
//
// GPU summary, per device, over the steps' whole span [first start, last end):
//   utilization     time a kernel runs / span
//   sm_efficiency   sum over time of min(1, sum of the running kernels'
//                   "blocks per SM") / span
//   occupancy       the running kernels' "est. achieved occupancy %",
//                   weighted by their time in the span
//   tensor_cores    kernel time in the span of kernels named like Tensor Core
//                   kernels (the plugin's name list) / all kernel time in it
//   tensor_cores_ext  the same with mlprof's additions to the list (Hopper,
//                   FP8, fused attention: IsTensorCoreKernelNameExt)
// Memcpy and memset are not kernels here. The plugin's own definitions and
// where mlprof differs are in docs/ANALYSES.md.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/kernel_class.h"
#include "model/profile.h"

namespace mlprof {

enum class StepRole : uint8_t {
  kKernel,
  kMemcpy,
  kMemset,
  kCommunication,
  kRuntime,
  kDataLoader,
  kCpuExec,
  kOther,
};
inline constexpr int kStepRoleCount = 8;
const char* StepRoleName(StepRole r);  // "kernel", "memcpy", "memset", "comm", ..., "other"

struct OverviewStep {
  int64_t number = -1;  // N of ProfilerStep#N (0 for the host-span step)
  Ps start = 0, end = 0;
  std::array<Ps, kStepRoleCount> role{};
  Ps total() const { return end - start; }
};

struct OverviewGpu {
  int32_t device = -1;
  std::string name;     // deviceProperties name ("" when not recorded)
  int64_t memory = -1;  // totalGlobalMem, bytes
  int64_t compute_major = -1, compute_minor = -1;
  int64_t kernels = 0;     // kernels on the device
  double utilization = 0;  // fractions of 1; NaN when not known
  double sm_efficiency = NAN;
  double occupancy = NAN;  // percent, as recorded
  double tensor_cores = NAN;
  double tensor_cores_ext = NAN;  // the plugin's list and mlprof's additions
};

struct RankOverview {
  int64_t rank = 0;
  std::vector<OverviewStep> steps;
  std::array<double, kStepRoleCount> mean{};  // ps per step
  double mean_total = 0;
  bool host_span_step = false;            // no steps (or the whole trace): one step over the host ops
  StepSource source = StepSource::kNone;  // where the steps came from (kNone: the host-span step)
  bool gpu_adjusted = false;              // steps widened to their GPU work
  int dropped_tail_steps = 0;
  std::vector<OverviewGpu> gpus;
};

RankOverview ComputeRankOverview(const RankProfile& r, int64_t rank, const CommKernelPatterns* comm_kernels = nullptr);

// True for a kernel the plugin counts as using Tensor Cores (its name holds
// one of NVIDIA PyProf's patterns: h884, s1688, xmma_gemm, ...).
bool IsTensorCoreKernelName(std::string_view name);

// The plugin's DataLoader role: "enumerate(DataLoader)#...__next__".
bool IsDataLoaderName(std::string_view name);

// The plugin's list and the names it predates: Hopper wgmma / gmma, CUTLASS
// tensorop and xmma kernels, cuBLAS nvjet, fused attention (fmha, cuDNN
// sdpa, FlashAttention 2 and 3's main loops) and FP8 GEMMs. Neither list
// sees Triton's or AMD's matrix-core kernels, whose names do not say.
bool IsTensorCoreKernelNameExt(std::string_view name);

}  // namespace mlprof
