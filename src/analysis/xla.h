// XLA profiles (TPU and GPU XPlanes): what each HLO op is (category, pass,
// named scope, cost) and where device time goes.
//
// Sources, in order of trust: the runtime's own stats (TPU hlo_category,
// flops, bytes_accessed), then the HloProtos of the /host:metadata plane run
// through the HLO cost model (GPU, where kernels carry only hlo_op /
// hlo_module / program_id), then the op name alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/op_category.h"
#include "base/time.h"
#include "hlo/module.h"
#include "model/profile.h"

namespace mlprof {

// XLA ops are classified into the one op vocabulary (base/op_category.h);
// xprof's finer category is kept too.

enum class XlaPass : uint8_t { kForward, kBackward, kRemat, kOptimizer, kUnknown, kCount };
const char* XlaPassName(XlaPass p);

// The pass of an op from its JAX name stack: transpose(...) = backward,
// remat/checkpoint markers = rematerialised, optimizer names = optimizer.
XlaPass PassFromName(std::string_view op_name);
// Named-scope path: the name stack without jit(...) wrappers, transforms
// (jvp, transpose, vmap, remat...) and the final primitive.
std::vector<std::string> ScopeFromName(std::string_view op_name);
// Category from an xprof hlo_category string, with the op name (and the
// instruction, when known) to split custom calls and find attention.
OpCategory GroupFromCategory(std::string_view xprof_category, std::string_view op_name);
// xprof's category of an instruction (HloInstruction::ToCategory, plus
// "convolution fusion" for fusions that contain a dot or convolution).
std::string XprofCategory(const hlo::Module& m, const hlo::Instruction& in);

struct XlaOpInfo {
  std::string hlo_op;
  std::string module;
  std::string category;  // xprof category
  OpCategory group = OpCategory::kOther;
  XlaPass pass = XlaPass::kUnknown;
  std::string op_name;  // framework op / name stack
  double flops = -1;    // per execution; -1 unknown
  double bytes = -1;
  bool cost_from_model = false;  // computed by mlprof from the HLO (not recorded by the runtime)
  // Collectives, from the HLO: bytes each participant sends over its links
  // (ring formulas, hlo/cost.h) and the replica-group size; -1 / 0 unknown.
  double network_bytes = -1;
  int64_t group_size = 0;
  std::string collective;  // HLO opcode without -start/-done ("all-reduce"), "" for others
  // Collectives, -done waits too (from the -start they wait on): the group
  // size and the replica_groups text as the HLO writes it ("{{0,1},{2,3}}",
  // "[4,2]<=[2,4]T(1,0)"; source_target_pairs for a permute), cut to 64
  // characters; 0 / "" unknown.
  int64_t participants = 0;
  std::string replica_groups;
  // A copy to or from host memory (a shape in S(5) or S(6), host offload):
  // bound by the host link, not HBM.
  bool host_memory = false;
};

struct XlaOps {
  std::vector<XlaOpInfo> ops;  // parallel to RankProfile::xla_ops
  std::vector<hlo::Module> modules;
  std::vector<std::string> problems;  // HloProtos that did not parse, ...
  size_t costed_from_model = 0;
};
XlaOps ResolveXlaOps(const RankProfile& r);

// Device time per HLO op (same module and op name merged across devices),
// heaviest first; `op` is an index into XlaOps::ops (one of the merged).
struct XlaOpTime {
  size_t op = 0;
  Ps time = 0;
  int64_t count = 0;
};
struct XlaOpTimes {
  std::vector<XlaOpTime> rows;
  Ps total = 0;  // all XLA ops' device time
};
XlaOpTimes XlaOpsByTime(const RankProfile& r, const XlaOps& x);

struct XlaGroupRow {
  OpCategory group = OpCategory::kOther;
  Ps time = 0;
  int64_t count = 0;
  std::array<Ps, static_cast<size_t>(XlaPass::kCount)> by_pass{};
  double flops = 0;  // over executions with known cost
  double bytes = 0;
};

struct XlaBreakdown {
  std::vector<XlaGroupRow> rows;  // by time, largest first
  Ps total = 0;                   // summed op time over devices
  int devices = 0;                // device planes with XLA ops
  int64_t steps = 0;              // executions of the main module per device (1 if unknown)
  std::string main_module;        // the module taking the most time
  Ps step_time = 0;               // mean wall time of one execution of it (0 if unknown)
  // Four-way attribution of op time.
  Ps efficient_compute = 0, model_specific = 0, memory_bound = 0, overhead = 0;
};
XlaBreakdown BreakdownXla(const RankProfile& r, const XlaOps& x);

// The steps of an XLA profile, per device: the events of a "Steps" line
// (TensorFlow writes one), else the executions of the main module on the
// "XLA Modules" line (JAX: one per training step when the step is jitted).
struct XlaStep {
  std::string device;  // the device plane ("/device:TPU:0")
  int64_t number = 0;  // 0, 1, ... per device (a Steps line's own number when it has one)
  Ps ts = 0, dur = 0;
  bool warmup = false;  // left out of the steady state (analysis/steps.h rule)
};
struct XlaStepSummary {
  std::string device;
  int64_t steps = 0, steady_steps = 0;
  double median = 0, mean = 0;  // ps, over the steady steps
};
struct XlaSteps {
  enum class Source : uint8_t { kNone, kStepsLine, kModuleExecutions } source = Source::kNone;
  std::string module;  // kModuleExecutions: the main module
  std::vector<XlaStep> steps;
  std::vector<XlaStepSummary> summary;
};
XlaSteps ComputeXlaSteps(const RankProfile& r, const XlaBreakdown& b, int warmup = -1);

struct ScopeRow {
  std::string path;  // "decoder/layers/mlp"
  int depth = 0;
  Ps time = 0;  // inclusive
  int64_t count = 0;
  double flops = 0;
};
// Inclusive time per scope prefix up to `max_depth` levels, sorted as a tree
// (children under parents, each level by time).
std::vector<ScopeRow> XlaScopes(const RankProfile& r, const XlaOps& x, int max_depth);

}  // namespace mlprof
