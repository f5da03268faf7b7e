// Repeated layers and the forward / backward / optimizer split of a PyTorch
// trace. Layers come from the module hierarchy torch.profiler records with
// with_stack / with_modules ("nn.Module: Qwen2DecoderLayer_3" python
// frames): each module class with two or more instances, the GPU time its
// instances launched (forward only: backward kernels run on the autograd
// thread, outside the module frames), and the repeating block (the
// repeated module with modules inside it that takes the most GPU time)
// broken down by the modules inside it. Phases: each GPU op by where it was
// launched from: under the autograd engine (backward), under an
// "Optimizer.*" annotation (optimizer), else forward; communication kernels
// on their own. Where much of the GPU time outside the engine was launched
// under host ranges named as backward (a pipeline schedule's "mlp(B)",
// "attn(W)": DualPipe and zero-bubble schedules run backward chunks by
// hand), the split cannot be told and is not given.
#pragma once

#include <string>
#include <vector>

#include "analysis/view.h"
#include "base/repeats.h"

namespace mlprof {

struct PhaseRow {
  int64_t rank = 0;
  int64_t steps = 0;  // steady steps measured (the whole trace as one where model/steps.h found none)
  // GPU time per step, median over the steps; communication kernels apart
  // (DDP's all-reduce runs from the backward pass, FSDP's gathers from both).
  Ps forward = 0, backward = 0, optimizer = 0, communication = 0;
  // GPU time per step (median) that `forward` holds but that was launched
  // under a host range named as backward outside the autograd engine
  // (LooksBackwardName), and those ranges by their total GPU time over the
  // measured steps (the innermost such range of each op; largest first).
  Ps backward_outside_engine = 0;
  std::vector<std::pair<std::string, Ps>> backward_ranges;
  // False where backward_outside_engine is at least kPhaseSplitUnknownPct of
  // forward + backward: the engine's share is not the backward pass, and
  // forward / backward are not to be shown.
  bool split_known = true;
};

// The share of forward + backward GPU time launched outside the engine
// under backward-named ranges from which the split is not told (%).
inline constexpr double kPhaseSplitUnknownPct = 5;

struct LayerRow {
  int64_t rank = 0;
  std::string module;               // class ("Qwen2DecoderLayer")
  int64_t instances = 0;            // instances that launched GPU work
  double per_step = 0;              // instances / steps
  Ps median = 0, min = 0, max = 0;  // GPU time per instance
  std::string slowest;              // the slowest instance's frame name
  Ps total = 0;
  double pct = 0;      // of the rank's measured GPU time
  bool block = false;  // the repeating block
};

struct BlockPart {
  int64_t rank = 0;
  std::string part;     // module class inside the block, or "(own ops)"
  Ps per_instance = 0;  // mean GPU time per block instance
  double pct = 0;       // of the block's GPU time
};

// A repeating kernel sequence: the block found from the kernels themselves,
// with no module frames needed (and for the backward pass, which runs
// outside them). Per step and phase, the GPU ops in start order (compute
// and memory, communication apart) are read as a string of kernel names; the
// block is the period P and maximal run of back-to-back exact repeats that
// covers the most GPU time (P >= 2; ties: the shorter period), reported when
// it covers at least 10 % of the phase. Instances start at the first kernel
// of the run.
struct KernelBlock {
  int64_t rank = 0;
  std::string phase;      // forward or backward; "all" where the rank's split is unknown
  int64_t kernels = 0;    // GPU ops per instance (the period)
  int64_t instances = 0;  // over the measured steps
  double per_step = 0;
  Ps median = 0, min = 0, max = 0;  // GPU time per instance (sum of its ops)
  Ps span = 0;                      // median from its first op's start to its last op's end
  std::string slowest;              // "step N #k" (k from 1) or "#k"
  Ps total = 0;
  double pct = 0;            // of the phase's GPU time in the measured steps
  std::string first_kernel;  // the instance's first kernel
};

struct KernelBlockPart {
  int64_t rank = 0;
  std::string phase;
  std::string part;     // the op that launched the kernels (innermost cpu_op), else the kernel
  Ps per_instance = 0;  // mean GPU time per instance
  double pct = 0;       // of the block's GPU time
};

struct LayerReport {
  std::vector<PhaseRow> phases;
  std::vector<LayerRow> layers;  // per rank, by total time
  std::vector<BlockPart> block;
  std::vector<KernelBlock> kernel_blocks;  // per rank: forward, backward
  std::vector<KernelBlockPart> kernel_block_parts;
  std::vector<int64_t> ranks_without_modules;  // PyTorch ranks with GPU work but no module frames
};

// A host op that runs the backward pass: the autograd engine's
// "autograd::engine::evaluate_function: ..." (torch >= 1.11), or an autograd
// node named as torch <= 1.10 records it ("CudnnConvolutionBackward",
// "ReluBackward1": a name ending in Backward and digits, no namespace).
bool IsBackwardOpName(std::string_view name);

// A host range (cpu_op or annotation) whose name says it runs backward work
// though it may sit outside the autograd engine: "backward" or "bwd" in it
// (any case: "backward_step", "flash_attn_bwd", "aten::convolution_backward"),
// or a pipeline schedule's chunk mark, "(B)" (input gradients) or "(W)"
// (weight gradients) at its end ("mlp(B)", "attn(W)": DualPipe, zero-bubble).
bool LooksBackwardName(std::string_view name);

// Over the steady steps (after `warmup` steps, the view's kept steps), or the
// whole trace when the rank has no ProfilerSteps.
LayerReport ComputeLayers(const ProfileView& view, int warmup);

}  // namespace mlprof
