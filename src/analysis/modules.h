// Where the GPU time of a PyTorch trace goes by the program's own structure:
//  * the nn.Module tree (torch.profiler's with_stack / with_modules python
//    frames "nn.Module: Cls_N"; copied from the capture trace under
//    --capture): each kernel's time goes to every module instance on the
//    path above its launch call (inclusive) and to the innermost (self);
//    per instance path and per class, with the share a class takes of the
//    class that encloses it ("Qwen3Attention: 40 % of Qwen3DecoderLayer");
//  * user annotations (record_function): on the host, the kernels launched
//    inside each range, once per op however deeply the name nests; on the
//    GPU (gpu_user_annotation), the time kernels of the range's stream run
//    inside it;
//  * per kernel name, the ops and modules that launch it.
// GPU time is the sum of the GPU ops' durations (kernels, copies, fills);
// shares are of the rank's total.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/view.h"

namespace mlprof {

struct ModuleNodeRow {
  int64_t rank = 0;
  std::string path;  // instances outermost first, " > " between ("Qwen3Model_0 > Qwen3DecoderLayer_3")
  std::string instance, cls;
  int depth = 0;      // 0 for a top module
  int64_t calls = 0;  // frames of this path that launched GPU work
  int64_t gpu_ops = 0;
  Ps gpu = 0;      // inclusive
  Ps self = 0;     // launched with no module inside this one
  double pct = 0;  // of the rank's GPU time
};

struct ModuleClassRow {
  int64_t rank = 0;
  std::string cls;
  int64_t instances = 0;  // distinct instance names
  int64_t calls = 0;      // frames that launched GPU work
  Ps gpu = 0;             // once per GPU op however often the class nests
  double pct = 0;
  std::string parent;         // the enclosing class it spends most time under ("" at the top)
  double pct_of_parent = -1;  // its time under `parent` / `parent`'s time (-1: no parent)
};

struct AnnotationRow {
  int64_t rank = 0;
  std::string name;   // ProfilerStep#N as ProfilerStep*
  std::string where;  // "host" or "gpu"
  int64_t calls = 0;  // ranges
  Ps span = 0;        // their durations summed
  int64_t gpu_ops = 0;
  Ps gpu = 0;  // host: GPU time of the ops launched inside; gpu: kernel time inside, same stream
  double pct = 0;
  std::string parent;  // the enclosing annotation most of its GPU time is under ("" none)
};

struct AnnotationStepRow {  // a host annotation's GPU time in one step
  int64_t rank = 0;
  std::string name;
  int64_t step = -1;  // the step's number (ProfilerStep#N, or the serving step's position)
  int64_t gpu_ops = 0;
  Ps gpu = 0;
};

struct KernelLauncherRow {
  int64_t rank = 0;
  std::string kernel;
  int64_t count = 0;
  Ps gpu = 0;
  double pct = 0;
  int64_t ops = 0;     // distinct launching op names ("(no cpu_op)" included)
  std::string top_op;  // the one with the most of this kernel's time
  double top_op_pct = 0;
  int64_t modules = 0;  // distinct innermost module classes ("(no module)" included)
  std::string top_module;
  double top_module_pct = 0;
};

struct ModuleReport {
  std::vector<ModuleNodeRow> tree;      // depth-first, heaviest child first
  std::vector<ModuleClassRow> classes;  // heaviest first
  std::vector<AnnotationRow> annotations;
  std::vector<AnnotationStepRow> annotation_steps;  // by rank, annotation (heaviest first), step
  std::vector<KernelLauncherRow> kernels;
  bool any_module = false;
};

ModuleReport ComputeModules(const ProfileView& view);

}  // namespace mlprof
