// HTA's kernel typing (hta/common/types.py), as name rules. First match wins:
//   COMMUNICATION  ^nccl | ^hip | ^hccl | .*ncclKernel.*
//   MEMORY         ^(hip)?Memcpy | ^(hip)?Memset | ^dma
//   COMPUTATION    none of: ^nccl .*Memcpy .*Memset .*dma ^.*Sync ^Stream Wait Event
//                  cuda.*LaunchKernel ^runFunction ^hip ^job_exe ^packet ^pe_exe
//                  ^cpum_exe_subgraph ^hccl ^collective_subgraph_execution
//   OTHER          the rest (Stream Sync, Event Sync, ...)
// Written as plain string tests rather than std::regex: every pattern is a
// prefix, a substring or one ".*" join, so the tests are exactly the same
// language, and each name is classified once per rank (KernelClassCache).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "model/profile.h"

namespace mlprof {

enum class KernelClass : uint8_t { kComputation = 0, kCommunication = 1, kMemory = 2, kOther = 3 };
inline constexpr int kKernelClassCount = 4;
const char* KernelClassName(KernelClass c);  // "COMPUTATION", ...

KernelClass ClassifyKernelName(std::string_view name);

// A host runtime call that waits for the device: stream / device / event
// syncs and synchronous copies and fills (diagnose's sync stalls, serving
// steps' blocked time).
bool IsSyncCall(std::string_view name);

// Class of every string id of a rank (computed lazily, cached by the caller).
class KernelClassCache {
 public:
  explicit KernelClassCache(const RankProfile& p) : p_(p) {}
  KernelClass Get(StringId name);

 private:
  const RankProfile& p_;
  std::vector<int8_t> cache_;
};

}  // namespace mlprof
