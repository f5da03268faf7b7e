// Per-instruction cost following XLA's HloCostAnalysis
// (xla/service/hlo_cost_analysis.cc; summary in
// ../shared/reference/xla-profiles-hlo.md section 4.1): flops,
// transcendentals and bytes accessed, plus the bytes a collective moves over
// the network by the ring formulas of GpuHloCostAnalysis (section 4.2).
//
// Sizes are logical (elements x element size); XLA's ShapeSize on a laid-out
// module is the same except for TPU tiling padding, which `physical` switches
// on. A shape without a layout still has a size here (XLA would say 0).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "hlo/module.h"

namespace mlprof::hlo {

struct Cost {
  double flops = 0;
  double transcendentals = 0;
  double bytes_accessed = 0;
  double bytes_read = 0;
  double bytes_written = 0;
  // Collectives: bytes each participant sends (ring algorithm) and the
  // group size used; 0 for other ops.
  double network_bytes = 0;
  int64_t group_size = 0;
  bool unknown = false;  // custom calls XLA cannot cost (it reports -1)

  Cost& operator+=(const Cost& o) {
    flops += o.flops;
    transcendentals += o.transcendentals;
    bytes_accessed += o.bytes_accessed;
    bytes_read += o.bytes_read;
    bytes_written += o.bytes_written;
    network_bytes += o.network_bytes;
    unknown = unknown || o.unknown;
    return *this;
  }
};

struct CostOptions {
  bool physical = false;      // size buffers with tiling padding (TPU)
  int64_t default_group = 0;  // participants when replica_groups={} (0: module's partitions x replicas)
  // What a tuple-shaped result of an ordinary op (variadic sort, reduce,
  // all-reduce) counts as written: XLA sizes a tuple as its pointer table,
  // 8 bytes per element on CPU/GPU; the TPU compiler records 0.
  int64_t tuple_pointer_bytes = 8;
  // Non-scalar constants inside a fusion are read (XLA's HandleFusion); the
  // TPU compiler's records leave them out.
  bool fusion_constants = true;
};

class CostModel {
 public:
  explicit CostModel(const Module& m, CostOptions o = {}) : m_(m), o_(o) {}

  // Cost of one instruction of computation `c`. Fusions cost their body
  // (flops) with bytes at the fusion boundary; while = one iteration of
  // body + condition; conditional = the most expensive branch.
  Cost Of(const Computation& c, const Instruction& in);
  // Sum over a computation (used for fusion bodies and reducers).
  Cost OfComputation(const Computation& c);

  int64_t ShapeBytes(const Shape& s) const;
  // Participants of a collective: the largest replica group; {} (or none)
  // is every device (the option's default_group, else partitions x
  // replicas); collective-permute is a pair.
  int64_t GroupSize(const Instruction& in) const;

 private:
  Cost Fusion(const Computation& c, const Instruction& in);
  // Bytes a fusion body reads of its parameter instruction `i` (see
  // cost.cc); -1 when it is only updated in place (not read at all).
  double ParamReadBytes(const Computation& body, const std::vector<std::vector<const Instruction*>>& users, size_t i,
                        int depth) const;
  const Shape* OperandShape(const Computation& c, const Instruction& in, size_t i) const;
  int64_t OperandBytes(const Computation& c, const Instruction& in, size_t i) const;
  double ReducerFlops(const Instruction& in);

  const Module& m_;
  CostOptions o_;
  std::unordered_map<const Computation*, Cost> memo_;
  int call_depth_ = 0;  // nested computations being costed (bounded against hostile modules)
};

// Flops of a dot from shapes and contracting dims: 2 x |out| x prod(lhs contracting).
double DotFlops(const Shape& lhs, const Shape& out, const std::vector<int64_t>& lhs_contracting);

// XLA's opcode classes.
bool IsElementwise(std::string_view opcode);
// Custom calls that move no data (AllocateBuffer, X64Combine, Sharding, ...).
bool IsFreeCustomCall(std::string_view target);
bool IsTranscendental(std::string_view opcode);

}  // namespace mlprof::hlo
