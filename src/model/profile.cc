#include "model/profile.h"

#include "base/huge_pages.h"

namespace mlprof {

const char* OpKindName(OpKind k) {
  switch (k) {
    case OpKind::kKernel:
      return "kernel";
    case OpKind::kMemcpy:
      return "memcpy";
    case OpKind::kMemset:
      return "memset";
    case OpKind::kCudaSync:
      return "cuda_sync";
    case OpKind::kDeviceSync:
      return "device_sync";
    case OpKind::kRuntime:
      return "runtime";
    case OpKind::kDriver:
      return "driver";
    case OpKind::kCpuOp:
      return "cpu_op";
    case OpKind::kUserAnnotation:
      return "user_annotation";
    case OpKind::kGpuUserAnnotation:
      return "gpu_user_annotation";
    case OpKind::kPythonFunction:
      return "python_function";
    case OpKind::kTraceSpan:
      return "trace_span";
    case OpKind::kInstant:
      return "instant";
    case OpKind::kOtherGpu:
      return "other_gpu";
    case OpKind::kOther:
      return "other";
    case OpKind::kCount:
      break;
  }
  return "?";
}

void OpTable::Reserve(size_t n) {
#define MLPROF_X(type, col, desc) \
  col.reserve(n);                 \
  AdviseHugePages(col.data(), col.capacity() * sizeof(type));
  MLPROF_OP_COLUMNS(MLPROF_X)
#undef MLPROF_X
}

void OpTable::Permute(const std::vector<uint32_t>& order) {
#define MLPROF_X(type, col, desc)                                      \
  {                                                                    \
    std::vector<type> next(order.size());                              \
    for (size_t i = 0; i < order.size(); ++i) next[i] = col[order[i]]; \
    col.swap(next);                                                    \
  }
  MLPROF_OP_COLUMNS(MLPROF_X)
#undef MLPROF_X
}

}  // namespace mlprof
