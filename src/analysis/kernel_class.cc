#include "analysis/kernel_class.h"

#include <regex.h>

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

struct CommKernelPatterns::Compiled {
  regex_t re;
  bool ok = false;  // regfree only what regcomp built
  ~Compiled() {
    if (ok) regfree(&re);
  }
};

StatusOr<std::shared_ptr<const CommKernelPatterns>> CommKernelPatterns::Parse(const std::vector<std::string>& regexes) {
  auto out = std::make_shared<CommKernelPatterns>();
  for (const std::string& r : regexes) {
    auto c = std::make_shared<Compiled>();
    int rc = regcomp(&c->re, r.c_str(), REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
      char msg[256];
      regerror(rc, &c->re, msg, sizeof msg);
      return InvalidArgument("--comm-kernel '" + r + "': not a regular expression (" + msg + ")");
    }
    c->ok = true;
    out->res_.push_back(std::move(c));
    out->sources_.push_back(r);
  }
  return std::shared_ptr<const CommKernelPatterns>(std::move(out));
}

bool CommKernelPatterns::Matches(std::string_view name) const {
  if (res_.empty()) return false;
  std::string s(name);  // regexec wants a NUL-terminated string
  for (const auto& c : res_)
    if (regexec(&c->re, s.c_str(), 0, nullptr, 0) == 0) return true;
  return false;
}

KernelClass ClassifyKernelName(std::string_view name, const CommKernelPatterns* user) {
  if (user && user->Matches(name)) return KernelClass::kCommunication;
  return ClassifyKernelName(name);
}

KernelClass ClassifyKernelName(std::string_view n) {
  if (!CommLibraryOf(n).empty()) return KernelClass::kCommunication;
  if (IsHtaCommKernel(n)) return KernelClass::kCommunication;
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
  if (cache_[name] < 0) cache_[name] = static_cast<int8_t>(ClassifyKernelName(p_.str(name), user_));
  return static_cast<KernelClass>(cache_[name]);
}

bool IsSyncCall(std::string_view name) {
  return name.find("Synchronize") != std::string_view::npos || name == "cudaMemcpy" || name == "hipMemcpy" ||
         name == "cudaMemcpy2D" || name == "cudaMemset" || name == "hipMemset" || name == "hipMemcpyWithStream";
}

}  // namespace mlprof
