// The one op vocabulary: what an op does, whatever the format it came from.
// Every format's classifier maps into it (XLA ops from xprof's category and
// the HLO: analysis/xla.cc GroupFromCategory; PyTorch ops from their cost
// model: analysis/op_cost.cc CostCategory), and every table, the roofline
// and the breakdowns speak it. Collectives by kind: base/collective.h.
#pragma once

#include <cstdint>

namespace mlprof {

enum class OpCategory : uint8_t {
  // dot, convolution and their fusions, cuBLAS / hipBLASLt GEMMs, cuDNN
  // convolutions, aten::mm / addmm / bmm / linear / convolution (fwd and
  // bwd). One category: XLA on TPU lowers dots to convolutions, and xprof
  // files both under "convolution fusion"; telling them apart needs the
  // HLO's window and dimension labels (not done yet).
  kMatmul,
  kAttention,       // attention kernels and custom calls (flash, fmha, splash, cuDNN/TE fused attention, SDPA)
  kElementwise,     // loop fusions, non-fusion elementwise, broadcast, iota, aten pointwise ops
  kNormalization,   // layer / RMS / batch norm, softmax
  kReduction,       // reduce, reduce-window, input (reduction) fusions, sort, aten::sum / mean
  kEmbedding,       // embedding lookups (fwd and bwd)
  kCollective,      // all-reduce, all-gather, reduce-scatter, all-to-all, permute, broadcast, their fusions
  kDataFormatting,  // copy, transpose, reshape, bitcast, (dynamic-)slice/update, pad, concat, gather/scatter
  kMemoryTransfer,  // copies between memory spaces, host transfers, infeed/outfeed, memcpy / memset
  kAsyncWait,       // *-done ops waiting on async work
  kCustomCall,      // other custom calls (Pallas/Mosaic, vendor kernels)
  kControlFlow,     // while, conditional, call
  kOther,
  kCount
};
const char* OpCategoryName(OpCategory c);

}  // namespace mlprof
