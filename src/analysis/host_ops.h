// Host op times per op name, as torch.profiler's key_averages() and the
// TensorBoard plugin's operation view give them: calls, total and self host
// time (self = total minus the direct children on the same thread), and the
// device time of the GPU work each op launched (self: launched by the op
// itself; total: by it or any op under it).
#pragma once

#include <string>
#include <vector>

#include "analysis/view.h"

namespace mlprof {

// The ops key_averages() lists: framework ops, record_function / user
// annotations (ProfilerStep#N merged as "ProfilerStep*") and runtime or
// driver calls (cudaLaunchKernel): host work on a thread.
inline bool IsHostOp(OpKind k) {
  return k == OpKind::kCpuOp || k == OpKind::kUserAnnotation || k == OpKind::kRuntime || k == OpKind::kDriver;
}

struct HostOpRow {
  int64_t rank = 0;
  std::string name;        // "ProfilerStep*" for every ProfilerStep#N
  std::string input_dims;  // with by_shape: the ops' Input Dims ("" when not recorded)
  std::string stack;       // with stack_frames: the innermost frames, ';'-separated ("" when not recorded)
  OpKind kind = OpKind::kCpuOp;
  int64_t calls = 0;
  Ps host_total = 0;    // sum of the calls' durations
  Ps host_self = 0;     // minus their direct children's (can be negative, as torch's: see ANALYSES.md)
  Ps device_self = 0;   // GPU ops launched by the op itself
  Ps device_total = 0;  // GPU ops launched by it or any op under it
  // From the shapes and scalar arguments (analysis/op_cost.h), summed over
  // the calls; -1 unless every call has a cost.
  double flops = -1, bytes = -1;
};

// FLOPs of the costed host ops with nested ops counted once: an op inside
// another costed op (aten::addmm inside aten::linear) adds nothing, the GEMM
// is counted at the outermost op that has a cost.
struct HostFlops {
  int64_t rank = 0;
  double flops = 0;
  int64_t costed_calls = 0;  // outermost costed ops
  int64_t nested_calls = 0;  // costed ops inside another: not counted again
};
std::vector<HostFlops> ComputeHostFlops(const ProfileView& view);

struct HostOpsOptions {
  bool by_shape = false;  // group by (name, Input Dims), as key_averages(group_by_input_shape=True)
  // > 0: also by the op's innermost `stack_frames` Python frames, as
  // key_averages(group_by_stack_n=N): the "Call stack" arg where recorded
  // (torch 1.8-1.10), else the enclosing python_function events (with_stack
  // in later torch), innermost first.
  int stack_frames = 0;
};

// The innermost `frames` frames of op i's Python stack, ';'-separated ("" when
// none is recorded); see HostOpsOptions::stack_frames.
std::string HostOpStack(const RankProfile& r, size_t i, int frames);

// Every host op of every rank in the view (all steps: key_averages keeps
// the last one); per rank, by device self time then host self time.
std::vector<HostOpRow> ComputeHostOps(const ProfileView& view, const HostOpsOptions& opt);

}  // namespace mlprof
