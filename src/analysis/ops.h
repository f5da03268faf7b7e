// GPU time per framework op: each GPU op is attributed to the cpu_op that
// launched it (analysis/attribution.h: the launch's External id where the op
// it names contains the launch, else the innermost cpu_op enclosing the
// launch on its thread; under no cpu_op, the innermost user annotation). When mlprof has no cost
// model for that op but has one for an enclosing cpu_op (cudnn_convolution
// inside convolution, _flash_attention_forward inside
// _scaled_dot_product_flash_attention), the GPU op goes to the nearest such
// op. Grouped by (op name, input shapes, dtypes, scalar arguments).
#pragma once

#include <string>
#include <vector>

#include "analysis/view.h"

namespace mlprof {

struct OpGpuTime {
  int64_t rank = 0;
  std::string name;        // the owner's name (a cpu_op's, or an annotation's), or "(no cpu_op)"
  std::string kind;        // the owner: "cpu_op", "user_annotation", "gpu_user_annotation", "graph_launch"; "" none
  std::string input_dims;  // compact JSON, "" when not recorded
  std::string input_types;
  std::string concrete_inputs;  // "Concrete Inputs", compact JSON; "" when not recorded
  std::string comm;             // a collective's [name, in nelems, out nelems, group size, dtype]; "" for others
  int64_t group_size = 0;       // collectives: participants
  std::string collective;       // collectives: "all-reduce", "all-gather", "reduce-scatter", ... ("" otherwise)
  int64_t calls = 0;            // distinct cpu_op instances that launched GPU work
  int64_t gpu_ops = 0;          // kernels/memcpys/memsets attributed
  Ps gpu_time = 0;              // sum of their durations
  Ps cpu_time = 0;              // sum of the cpu_op instances' durations
  double pct_gpu = 0;           // of all attributed GPU time of the rank
  // From the input shapes (analysis/op_cost.h), for the ops it has a model
  // for; -1 otherwise.
  double flops_per_call = -1;
  double bytes_per_call = -1;
  std::string cost_kind;   // OpCost::kind ("gemm", "attention_fwd", ...) where the cost is known
  std::string cost_dtype;  // the dtype the cost was computed for ("c10::BFloat16")
  // FLOPs x calls / GPU time, FLOP/s; -1 when the FLOPs are unknown.
  double flops_per_s() const {
    return flops_per_call >= 0 && gpu_time > 0
               ? flops_per_call * static_cast<double>(calls) / (static_cast<double>(gpu_time) / 1e12)
               : -1;
  }
  // Bytes x calls / GPU time, B/s; -1 when the bytes are unknown.
  double bytes_per_s() const {
    return bytes_per_call >= 0 && gpu_time > 0
               ? bytes_per_call * static_cast<double>(calls) / (static_cast<double>(gpu_time) / 1e12)
               : -1;
  }
};

struct OpsOptions {
  bool by_shape = true;  // group by (name, input dims/types) or by name only
  // Only the GPU ops of steady-state steps (a ProfilerStep#N after the
  // warm-up, the rule of analysis/steps.h); nothing on ranks without steps.
  bool steady_steps_only = false;
  int warmup = -1;  // steady_steps_only: warm-up steps (-1: the steps' default)
};

std::vector<OpGpuTime> ComputeOpGpuTime(const ProfileView& view, const OpsOptions& opt);

// cpu_ops that mlprof could cost from their shapes but that carry
// no "Input Dims" (a trace recorded without record_shapes=True): name ->
// calls, over the view's ranks.
std::vector<std::pair<std::string, int64_t>> CostableOpsWithoutShapes(const ProfileView& view);
// Convolutions with shapes but no stride/padding/dilation recorded: not
// costed (stride unknown), by op name with their calls.
std::vector<std::pair<std::string, int64_t>> ConvolutionsWithoutStride(const ProfileView& view);

}  // namespace mlprof
