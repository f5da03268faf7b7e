// RankView: the ops an HTA-compatible analysis looks at, with HTA's two input
// transformations available as options:
//  * drop_last_step (HTA default, on here too): when the profile holds >= 2
//    distinct ProfilerStep#N names, keep host ops that start before the last
//    step's start and GPU ops whose launch was kept (the last step is often cut
//    short by the end of profiling).
//  * hta_rounding (HTA default, off here): for traces with fractional-us
//    timestamps HTA sets ts = ceil(ts), end = floor(ts + dur), which shortens
//    every op by up to 2 us and gives sub-us ops negative durations. HTA also
//    reads ts as float64: epoch-us timestamps near 1.7e15 are then quantised to
//    0.25 us before rounding. The option reproduces both (strtod of the exact
//    decimal, float64 ts + dur), so that HTA's numbers can be matched; mlprof
//    otherwise keeps exact picoseconds.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "analysis/intervals.h"
#include "analysis/kernel_class.h"
#include "model/profile.h"

namespace mlprof {

struct AnalysisOptions {
  bool drop_last_step = true;
  bool hta_rounding = false;
  int threads = 0;  // ranks analysed at once; 0 = one per core
  // ProfileView::multi_step from the whole job (an MPI process holds only
  // some of its ranks): 0 or 1; -1: from the profile's own ranks.
  int multi_step = -1;
  // Kernels the user declares communication (--comm-kernel); null: none.
  std::shared_ptr<const CommKernelPatterns> comm_kernels;
};

struct GpuOpRef {
  Ps ts;
  Ps end;
  uint32_t op;     // index into RankProfile::ops
  uint32_t track;  // GPU stream track
  KernelClass cls;
};

// Unions of GPU-op intervals: all ops, and per kernel class.
struct ClassUnions {
  std::vector<Interval> all, by_class[kKernelClassCount];
};
ClassUnions UnionsByClass(const std::vector<GpuOpRef>& ops);

struct RankView {
  const RankProfile* profile = nullptr;
  int64_t rank = 0;
  bool filtered = false;  // drop_last_step applied
  bool rounded = false;   // hta_rounding applied
  // hta_rounding asked for but not applied: the trace clock passes 2^53 us,
  // where float64 microseconds (HTA's arithmetic) are no longer exact.
  bool rounding_refused = false;
  std::vector<uint8_t> keep;                // per op
  std::vector<GpuOpRef> gpu;                // kept ops occupying a GPU stream, sorted by (ts, end)
  std::vector<Ps> rounded_ts, rounded_end;  // per op, when `rounded`
  ClassUnions unions;                       // of `gpu`, computed once

  Ps Ts(uint32_t op) const;   // start after optional rounding
  Ps End(uint32_t op) const;  // end after optional rounding
  // ProfilerSteps whose work the view keeps (`filtered` leaves the last out).
  int64_t KeptSteps() const;
};

struct ProfileView {
  std::vector<RankView> ranks;
  bool multi_step = false;                                 // >= 2 distinct ProfilerStep names over all ranks
  std::shared_ptr<const CommKernelPatterns> comm_kernels;  // AnalysisOptions::comm_kernels
  // A kernel-class cache for one of the view's ranks, with the user's patterns.
  KernelClassCache Classes(const RankProfile& p) const { return KernelClassCache(p, comm_kernels.get()); }
};

ProfileView BuildProfileView(const Profile& profile, const AnalysisOptions& options);

// Ops on GPU streams that count as device activity (HTA: rows with a stream).
inline bool OccupiesStream(OpKind k) {
  return k == OpKind::kKernel || k == OpKind::kMemcpy || k == OpKind::kMemset || k == OpKind::kCudaSync ||
         k == OpKind::kOtherGpu;
}

}  // namespace mlprof
