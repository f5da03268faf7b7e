#include "analysis/comm_kernels.h"

#include "base/ascii.h"

namespace mlprof {

bool IsHtaCommKernel(std::string_view n) {
  return n.starts_with("nccl") || n.starts_with("hip") || n.starts_with("hccl") || n.starts_with("hcom_") ||
         n.find("ncclKernel") != std::string_view::npos;
}

namespace {
// Kernels of communication libraries, by a namespace or prefix their names
// carry (demangled, as CUPTI and rocprof record them). Specific enough that
// no computation kernel matches: "dispatch" alone is not DeepEP.
struct CommLibrary {
  const char* library;
  const char* text;  // contained in the name
};
constexpr CommLibrary kCommLibraries[] = {
    {"DeepEP", "deep_ep::"},                       // deepseek-ai/DeepEP: dispatch, combine, notify_*
    {"DeepEP", "dpsk::ep::"},                      // DeepEP as DeepSeek's internal builds name it
    {"NVSHMEM", "nvshmem"},                        // nvshmemi_* device kernels, nvshmem collectives
    {"MSCCL++", "mscclpp"},                        // microsoft/mscclpp kernels
    {"custom all-reduce", "cross_device_reduce"},  // vLLM / SGLang custom all-reduce (1stage, 2stage)
    {"custom all-reduce", "oneShotAllReduce"},     // TensorRT-LLM custom all-reduce
    {"custom all-reduce", "twoShotAllReduce"},
    {"custom all-reduce", "allreduce_fusion_kernel"},  // TensorRT-LLM / FlashInfer fused all-reduce
    {"custom all-reduce", "customAllReduce"},
    {"custom all-reduce", "quickreduce"},        // vLLM/SGLang's ROCm quick all-reduce
    {"symmetric memory", "symmetric_memory::"},  // torch c10d symmetric-memory collectives
    {"gloo", "gloo::"},
};
}  // namespace

std::string_view CommLibraryOf(std::string_view n) {
  for (const CommLibrary& l : kCommLibraries)
    if (n.find(l.text) != std::string_view::npos) return l.library;
  return {};
}

bool IsHtaCriticalPathCommKernel(std::string_view n) {
  return n.starts_with("nccl") || n.find("gloo:") != std::string_view::npos;
}

bool IsTraceLensCollectiveKernel(std::string_view name) {
  return ContainsNoCase(name, "nccl") || ContainsNoCase(name, "rccl") || ContainsNoCase(name, "cross_device_reduce") ||
         ContainsNoCase(name, "multimem_all_reduce") || ContainsNoCase(name, "one_shot_all_reduce") ||
         ContainsNoCase(name, "two_shot_all_reduce");
}

}  // namespace mlprof
