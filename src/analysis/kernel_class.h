// HTA's kernel typing (hta/common/types.py), as name rules, plus the
// kernels of communication libraries HTA does not know (mlprof; see
// CommLibraryOf in comm_kernels.h and docs/ANALYSES.md). First match wins:
//   COMMUNICATION  ^nccl | ^hip | ^hccl | .*ncclKernel.* | a known library's kernel
//                  (DeepEP, NVSHMEM, MSCCL++, vLLM / SGLang / TensorRT-LLM custom
//                  all-reduce, torch symmetric memory, gloo) | --comm-kernel REGEX
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
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/comm_kernels.h"
#include "base/status.h"
#include "model/profile.h"

namespace mlprof {

enum class KernelClass : uint8_t { kComputation = 0, kCommunication = 1, kMemory = 2, kOther = 3 };
inline constexpr int kKernelClassCount = 4;
const char* KernelClassName(KernelClass c);  // "COMPUTATION", ...

KernelClass ClassifyKernelName(std::string_view name);

// Kernels the user declares communication (--comm-kernel REGEX, repeatable;
// POSIX extended regular expressions (regcomp), searched anywhere in the
// name; POSIX rather than std::regex: linear, and no libstdc++ regex
// warnings under the sanitizer build).
class CommKernelPatterns {
 public:
  static StatusOr<std::shared_ptr<const CommKernelPatterns>> Parse(const std::vector<std::string>& regexes);
  bool Matches(std::string_view name) const;
  const std::vector<std::string>& sources() const { return sources_; }

 private:
  std::vector<std::string> sources_;
  struct Compiled;
  std::vector<std::shared_ptr<const Compiled>> res_;
};

// ClassifyKernelName, with the user's patterns first (null: none).
KernelClass ClassifyKernelName(std::string_view name, const CommKernelPatterns* user);

// A host runtime call that waits for the device: stream / device / event
// syncs and synchronous copies and fills (diagnose's sync stalls, serving
// steps' blocked time).
bool IsSyncCall(std::string_view name);

// Class of every string id of a rank (computed lazily, cached by the caller).
class KernelClassCache {
 public:
  explicit KernelClassCache(const RankProfile& p, const CommKernelPatterns* user = nullptr) : p_(p), user_(user) {}
  KernelClass Get(StringId name);

 private:
  const RankProfile& p_;
  const CommKernelPatterns* user_;
  std::vector<int8_t> cache_;
};

}  // namespace mlprof
