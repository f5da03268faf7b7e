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
// on their own.
#pragma once

#include <string>
#include <vector>

#include "analysis/view.h"

namespace mlprof {

struct PhaseRow {
  int64_t rank = 0;
  int64_t steps = 0;  // steady steps measured (0: no steps, the whole trace as one)
  // GPU time per step, median over the steps; communication kernels apart
  // (DDP's all-reduce runs from the backward pass, FSDP's gathers from both).
  Ps forward = 0, backward = 0, optimizer = 0, communication = 0;
};

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

struct LayerReport {
  std::vector<PhaseRow> phases;
  std::vector<LayerRow> layers;  // per rank, by total time
  std::vector<BlockPart> block;
  std::vector<int64_t> ranks_without_modules;  // PyTorch ranks with GPU work but no module frames
};

// A host op that runs the backward pass: the autograd engine's
// "autograd::engine::evaluate_function: ..." (torch >= 1.11), or an autograd
// node named as torch <= 1.10 records it ("CudnnConvolutionBackward",
// "ReluBackward1": a name ending in Backward and digits, no namespace).
bool IsBackwardOpName(std::string_view name);

// Over the steady steps (after `warmup` steps, the view's kept steps), or the
// whole trace when the rank has no ProfilerSteps.
LayerReport ComputeLayers(const ProfileView& view, int warmup);

}  // namespace mlprof
