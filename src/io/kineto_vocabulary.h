// What a Kineto (PyTorch profiler) event is, from its "cat": the Chrome JSON
// reader's vocabulary, which it hands the builder as an OpKind. Older torch
// spellings ("Kernel", "Operator", ...) and MTIA's categories included.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/string_pool.h"
#include "model/profile.h"

namespace mlprof {

// Kernel args CUPTI records per launch, kept in the op columns blocks_per_sm
// and occupancy for the TensorBoard plugin's GPU summary: blocks per SM (grid
// blocks / the GPU's SMs) and the estimated achieved occupancy (percent).
inline constexpr std::string_view kArgBlocksPerSm = "blocks per SM";
inline constexpr std::string_view kArgAchievedOccupancy = "est. achieved occupancy %";

inline OpKind KinetoKindOfCategory(std::string_view c) {
  if (c == "kernel" || c == "Kernel") return OpKind::kKernel;
  if (c == "gpu_memcpy" || c == "Memcpy") return OpKind::kMemcpy;
  if (c == "gpu_memset" || c == "Memset") return OpKind::kMemset;
  if (c == "cuda_sync") return OpKind::kCudaSync;
  if (c == "cuda_runtime" || c == "Runtime" || c == "mtia_runtime") return OpKind::kRuntime;
  if (c == "cuda_driver") return OpKind::kDriver;
  if (c == "cpu_op" || c == "Operator" || c == "operator") return OpKind::kCpuOp;
  if (c == "user_annotation" || c == "User Annotation") return OpKind::kUserAnnotation;
  if (c == "gpu_user_annotation") return OpKind::kGpuUserAnnotation;
  if (c == "python_function") return OpKind::kPythonFunction;
  if (c == "Trace") return OpKind::kTraceSpan;
  if (c == "mtia_ccp_events") return OpKind::kOtherGpu;
  return OpKind::kOther;
}

// KinetoKindOfCategory, once per distinct category string.
class KinetoCategoryKinds {
 public:
  OpKind Of(StringId cat, const StringPool& strings) {
    if (cat >= cache_.size()) cache_.resize(cat + 64, -1);
    if (cache_[cat] < 0) cache_[cat] = static_cast<int8_t>(KinetoKindOfCategory(strings.Get(cat)));
    return static_cast<OpKind>(cache_[cat]);
  }

 private:
  std::vector<int8_t> cache_;  // by category id; -1 = not computed
};

}  // namespace mlprof
