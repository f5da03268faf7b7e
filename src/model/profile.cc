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

void OpTable::Reserve(size_t n, bool kineto_columns) {
  auto one = [n](auto& col) { col.reserve(n); };
  if (kineto_columns) {
#define MLPROF_X(type, col, desc) one(col);
    MLPROF_OP_COLUMNS(MLPROF_X)
#undef MLPROF_X
    return;
  }
  one(ts), one(dur), one(name), one(cat), one(kind), one(track), one(correlation), one(parent), one(depth);
  one(launch), one(step), one(xla), one(offset);
}

void OpTable::Permute(const std::vector<uint32_t>& order) {
#define MLPROF_X(type, col, desc)                                        \
  if (!col.empty()) {                                                    \
    OpColumn<type> next(order.size());                                    \
    for (size_t i = 0; i < order.size(); ++i) next[i] = col[order[i]];   \
    col.swap(next);                                                      \
  }
  MLPROF_OP_COLUMNS(MLPROF_X)
#undef MLPROF_X
}

}  // namespace mlprof
