#include "base/op_category.h"

namespace mlprof {

const char* OpCategoryName(OpCategory c) {
  switch (c) {
    case OpCategory::kMatmul:
      return "matmul/convolution";
    case OpCategory::kAttention:
      return "attention";
    case OpCategory::kElementwise:
      return "elementwise";
    case OpCategory::kNormalization:
      return "normalization";
    case OpCategory::kReduction:
      return "reduction";
    case OpCategory::kEmbedding:
      return "embedding";
    case OpCategory::kCollective:
      return "collective";
    case OpCategory::kDataFormatting:
      return "data formatting";
    case OpCategory::kMemoryTransfer:
      return "memory transfer";
    case OpCategory::kAsyncWait:
      return "async wait";
    case OpCategory::kCustomCall:
      return "custom call";
    case OpCategory::kControlFlow:
      return "control flow";
    case OpCategory::kOther:
      return "other";
    case OpCategory::kCount:
      break;
  }
  return "?";
}

}  // namespace mlprof
