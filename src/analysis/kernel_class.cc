#include "analysis/kernel_class.h"

namespace mlprof {

namespace {
bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool Contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }
}  // namespace

const char* KernelClassName(KernelClass c) {
  switch (c) {
    case KernelClass::kComputation:
      return "COMPUTATION";
    case KernelClass::kCommunication:
      return "COMMUNICATION";
    case KernelClass::kMemory:
      return "MEMORY";
    case KernelClass::kOther:
      return "OTHER";
  }
  return "?";
}

KernelClass ClassifyKernelName(std::string_view n) {
  if (StartsWith(n, "nccl") || StartsWith(n, "hip") || StartsWith(n, "hccl") || StartsWith(n, "hcom_") ||
      Contains(n, "ncclKernel"))
    return KernelClass::kCommunication;
  if (StartsWith(n, "Memcpy") || StartsWith(n, "hipMemcpy") || StartsWith(n, "Memset") || StartsWith(n, "hipMemset") ||
      StartsWith(n, "dma"))
    return KernelClass::kMemory;
  bool excluded = StartsWith(n, "nccl") || Contains(n, "Memcpy") || Contains(n, "Memset") || Contains(n, "dma") ||
                  Contains(n, "Sync") || StartsWith(n, "Stream Wait Event") || StartsWith(n, "runFunction") ||
                  StartsWith(n, "hip") || StartsWith(n, "job_exe") || StartsWith(n, "packet") ||
                  StartsWith(n, "pe_exe") || StartsWith(n, "cpum_exe_subgraph") || StartsWith(n, "hccl") ||
                  StartsWith(n, "collective_subgraph_execution");
  if (!excluded) {
    // cuda.*LaunchKernel (re.match: "cuda" at the start, LaunchKernel later)
    if (StartsWith(n, "cuda") && n.find("LaunchKernel", 4) != std::string_view::npos) excluded = true;
  }
  return excluded ? KernelClass::kOther : KernelClass::kComputation;
}

KernelClass KernelClassCache::Get(StringId name) {
  if (name >= cache_.size()) cache_.resize(p_.strings.size(), -1);
  if (cache_[name] < 0) cache_[name] = static_cast<int8_t>(ClassifyKernelName(p_.str(name)));
  return static_cast<KernelClass>(cache_[name]);
}

bool IsSyncCall(std::string_view name) {
  return name.find("Synchronize") != std::string_view::npos || name == "cudaMemcpy" || name == "hipMemcpy" ||
         name == "cudaMemcpy2D" || name == "cudaMemset" || name == "hipMemset" || name == "hipMemcpyWithStream";
}

}  // namespace mlprof
