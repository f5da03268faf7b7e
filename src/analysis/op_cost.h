// FLOPs and bytes of framework (PyTorch) ops from the shapes and dtypes a
// Kineto trace records with record_shapes=True ("Input Dims", "Input type",
// kept as compact JSON text). Definitions follow TraceLens's performance
// models, whose reference outputs the tests compare with:
//   GEMM  A[M,K] x B[K,N] (batched: B of them): FLOPs 2·B·M·N·K, plus M·N
//         per batch for a bias add; bytes = (A + B + output + bias) elements
//         x the element size of A.
// The other ops (convolution, attention, elementwise, softmax, norms,
// reduction, embedding) are in FrameworkOpCost; docs/ANALYSES.md gives each
// formula and where mlprof departs from TraceLens on purpose.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/op_category.h"
#include "hw/chip.h"

namespace mlprof {

struct OpCost {
  // "gemm", "conv_fwd", "conv_bwd", "attention_fwd", "attention_bwd",
  // "elementwise", "softmax_fwd", "softmax_bwd", "norm_fwd", "norm_bwd",
  // "reduce", "embedding_fwd", "embedding_bwd"
  std::string kind;
  double flops = 0;
  double bytes = 0;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  bool bias = false;
  int elem_bytes = 0;
  std::string dtype;  // of the first matrix, as the trace wrote it
  // Collectives: "all-reduce", "all-gather", "reduce-scatter", "all-to-all",
  // "broadcast", "reduce", "send", "recv", "gather", "scatter", "barrier".
  std::string collective;
};

// aten::mm, aten::addmm, aten::bmm, aten::baddbmm, aten::linear,
// aten::matmul (2-D or batched); nullopt for other ops or shapes that do not
// fit (missing dims, mismatched inner dimensions, unknown dtype).
std::optional<OpCost> GemmCost(std::string_view op, std::string_view input_dims, std::string_view input_types);

// Any op mlprof has a cost model for (GEMMs included). `concrete` is the
// op's "Concrete Inputs" (the scalar arguments as strings), needed for
// convolution geometry, attention causality, norm sizes and reduce dims.
// nullopt for unknown ops and for shapes or arguments that do not fit.
std::optional<OpCost> FrameworkOpCost(std::string_view op, std::string_view input_dims, std::string_view input_types,
                                      std::string_view concrete_inputs);
// A collective from its trace description (the `comm` column: ["allreduce",
// in nelems, out nelems, group size, "Float"]): kind "collective", no FLOPs,
// bytes = what each rank sends over its link in a ring (RingWireFactor x
// the collective's buffer). nullopt for unknown collectives or dtypes.
std::optional<OpCost> CollectiveOpCost(std::string_view comm);
// The `comm` column's fields; false when the text is not that list.
struct CommArgs {
  std::string name, dtype;
  int64_t in = 0, out = 0, group = 0;
};
bool ParseCommArgs(std::string_view comm, CommArgs* c);
// Bytes per element of a c10d dtype name ("Float" 4, "BFloat16" 2, "Long"
// 8, "Byte" 1, ...); 0 if unknown.
int CommDtypeBytes(std::string_view dtype);
// A convolution (forward or backward) with shapes but no stride, padding or
// dilation recorded (torch 1.13 writes "", traces without Concrete Inputs
// have none): FrameworkOpCost gives it no cost, since its geometry is
// unknown.
bool ConvStrideUnknown(std::string_view op, std::string_view input_dims, std::string_view concrete_inputs);
// True if FrameworkOpCost has a model for ops of this name.
bool HasCostModel(std::string_view op);
// Matmul (GEMMs, convolutions) or attention for the ops FrameworkOpCost
// models as such, whether or not their shapes were recorded; else kOther.
OpCategory CategoryOfCostableOp(std::string_view op);
// The op category of a cost kind (the one vocabulary, base/op_category.h).
OpCategory CostCategory(std::string_view kind);

// "[[8944, 1024], [1024], []]" -> {{8944, 1024}, {1024}, {}}; false if the
// text is not a list of integer lists.
bool ParseDimsList(std::string_view text, std::vector<std::vector<int64_t>>* out);
// ["c10::BFloat16", "float", "Scalar"] (single or double quotes) -> names.
bool ParseTypeList(std::string_view text, std::vector<std::string>* out);
// Bytes of one element of a PyTorch dtype name ("float" 4, "c10::BFloat16"
// 2, "c10::Half" 2, "double" 8, "c10::Float8_e4m3fn" 1, "long int" 8...);
// 0 if unknown.
int DtypeBytes(std::string_view name);
// The peak a PyTorch dtype runs at: float -> fp32, BFloat16 -> bf16, Half ->
// fp16, Float8 -> fp8, 8-bit integers -> int8; false for others.
bool PeakDtypeOf(std::string_view torch_dtype, hw::DType* out);

}  // namespace mlprof
