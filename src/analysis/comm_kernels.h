// Which kernels and ops are communication, in one place: each predicate is
// named for the tool whose definition it reproduces, so that where two
// commands count communication differently (kernel typing in overlap, idle
// and diagnose; the collectives table; the critical path's bound) the
// difference is a documented choice (docs/ANALYSES.md) and not an accident.
// XLA ops are communication by their category (OpCategory::kCollective,
// analysis/xla.cc), which is XLA's vocabulary, not a kernel-name rule.
#pragma once

#include <cstddef>
#include <string_view>

#include "model/profile.h"

namespace mlprof {

// HTA's kernel typing (hta/common/types.py), its COMMUNICATION pattern:
// ^nccl | ^hip | ^hccl | ^hcom_ | .*ncclKernel.* (the ^hip is HTA's: ROCm's
// hipMemcpy* and friends are typed before it reaches them).
bool IsHtaCommKernel(std::string_view name);

// The communication library a kernel name belongs to ("DeepEP", "NVSHMEM",
// ...) for the libraries HTA's pattern misses (mlprof's addition to its
// typing); "" for others (NCCL, RCCL and HCCL kernels included: HTA's own
// pattern catches them).
std::string_view CommLibraryOf(std::string_view name);

// HTA's critical path analysis: a GPU op's edge is communication-bound when
// its name starts with "nccl" or holds "gloo:" (critical_path_analysis.py).
bool IsHtaCriticalPathCommKernel(std::string_view name);

// TraceLens's collective filter (any case, anywhere in the name: nccl, rccl,
// cross_device_reduce), plus PyTorch's symmetric-memory all-reduces
// (multimem_all_reduce, one_shot_all_reduce, two_shot_all_reduce), which
// TraceLens does not count.
bool IsTraceLensCollectiveKernel(std::string_view name);

// A gloo collective as a host op ("gloo:all_reduce" cpu_op or annotation):
// gloo runs on host threads, so no kernel stands for it.
inline bool IsGlooHostOp(const RankProfile& p, size_t op) {
  const OpKind k = p.ops.kind[op];
  return (k == OpKind::kCpuOp || k == OpKind::kUserAnnotation) && p.str(p.ops.name[op]).starts_with("gloo:");
}

}  // namespace mlprof
