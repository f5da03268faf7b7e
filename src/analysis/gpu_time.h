// Where the GPU time goes, with HTA's definitions (docs/ANALYSES.md):
//  * temporal breakdown: kernel_time = last GPU end - first GPU start; idle =
//    kernel_time - |union of all GPU ops|; compute = |union of COMPUTATION|;
//    non_compute = kernel_time - compute - idle.
//  * comm/comp overlap = |U(COMP) & U(COMM)| / |U(COMM)|.
//  * kernel-type overlap table: time by set of simultaneously active types.
//  * per-kernel statistics by (class, name).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analysis/intervals.h"
#include "analysis/view.h"

namespace mlprof {

// A rank whose GPU ops run on several devices (one process driving 8 GPUs:
// JAX, TensorFlow) gets a row per device and then its all-device row
// (device -1); a rank with one device, one row (device -1).
struct TemporalBreakdown {
  int64_t rank = 0;
  int32_t device = -1;  // -1: all the rank's devices
  Ps idle = 0, compute = 0, non_compute = 0, kernel_time = 0;
  Ps communication = 0, memory = 0, other = 0;  // unions of each class (may overlap)
  double idle_pct() const { return Pct(idle); }
  double compute_pct() const { return Pct(compute); }
  double non_compute_pct() const { return Pct(non_compute); }
  double Pct(Ps x) const { return kernel_time > 0 ? 100.0 * x / kernel_time : 0.0; }
};

struct Overlap {
  int64_t rank = 0;
  int32_t device = -1;  // as in TemporalBreakdown
  Ps comm = 0;          // |U(COMM)|
  Ps comp = 0;          // |U(COMP)|
  Ps overlapped = 0;    // |U(COMP) & U(COMM)|
  bool has_comm() const { return comm > 0; }
  double pct() const;  // NaN without communication
};

struct KernelTypeShare {
  int mask = 0;    // bit 0 COMP, 1 COMM, 2 MEMORY
  Ps time = 0;     // summed over ranks
  double pct = 0;  // of the sum over all labels
};

// The shares of each set of kernel types from its time summed over ranks
// (an MPI run sums its processes' times), largest first.
std::vector<KernelTypeShare> KernelTypeShares(const std::map<int, Ps>& by_mask);

// HTA's name of a kernel-type mask: "COMPUTATION overlapping COMMUNICATION".
std::string KernelTypeLabel(int mask);

struct KernelStat {
  int64_t rank = 0;
  KernelClass cls = KernelClass::kComputation;
  std::string name;  // "others" for the folded tail
  int64_t count = 0;
  int64_t names = 1;  // distinct names folded into this row
  Ps sum = 0, min = 0, max = 0;
  double mean = 0, std = 0;  // ps; std with ddof=1 (0 for one sample)
  double median = 0;         // ps; the mean of the middle two for an even count
  double pct_of_class = 0;
};

struct KernelBreakdown {
  std::vector<KernelTypeShare> types;
  std::vector<KernelStat> kernels;  // by rank, class, then sum desc; "others" last
};

struct KernelBreakdownOptions {
  int top = 10;                 // HTA num_kernels
  double duration_ratio = 0.8;  // HTA duration_ratio
  bool include_memory = true;
};

std::vector<TemporalBreakdown> ComputeTemporalBreakdown(const ProfileView& view);
std::vector<Overlap> ComputeOverlap(const ProfileView& view);
KernelBreakdown ComputeKernelBreakdown(const ProfileView& view, const KernelBreakdownOptions& opt);

}  // namespace mlprof
