// How far each XLA op is from what the chip can do: per op and per mlprof
// category, FLOPs and bytes per execution, arithmetic intensity against
// the ridge point, the roofline ceiling, expected time = max(FLOPs / peak,
// bytes / HBM bandwidth), measured time, efficiency = expected / measured,
// and what bounds it. Collectives: expected time = bytes accessed / the
// chip's scale-up bandwidth per direction (a first model; ring formulas per
// replica-group size are the next step).
#pragma once

#include <string>
#include <vector>

#include "analysis/ops.h"
#include "analysis/xla.h"
#include "hw/chip.h"

namespace mlprof {

struct RooflineRow {
  std::string name;      // HLO op, or the category for category rows
  std::string category;  // mlprof category
  int64_t count = 0;     // executions (all devices)
  double time_s = 0;     // measured, summed over executions
  double flops = -1;     // per execution (-1: unknown)
  double bytes = -1;
  double intensity = -1;    // FLOP per byte
  double vs_ridge = -1;     // intensity / ridge
  double ceiling_pct = -1;  // % of peak reachable at this intensity (min(1, vs_ridge))
  double expected_s = -1;   // per execution at the roofline
  double measured_s = 0;    // mean per execution
  double efficiency = -1;   // expected / measured
  double achieved_tflops = -1;
  std::string bound;  // compute, memory, communication, unknown (no cost)
};

struct RooflineResult {
  std::string chip;
  std::string dtype;
  double peak = 0;      // FLOP/s per device
  double hbm_bw = 0;    // B/s
  double ridge = 0;     // FLOP/B
  double link_bw = 0;   // B/s per direction, scale-up (0: unknown)
  std::vector<RooflineRow> ops;         // by measured time, largest first
  std::vector<RooflineRow> categories;  // likewise
  double time_s = 0;                    // all XLA op time
  double time_with_cost_s = 0;          // of ops with known FLOPs or bytes
  double expected_s = 0;                // their expected total
  int64_t ops_without_cost = 0;         // distinct ops
};

// One point against a roofline (peak FLOP/s, memory B/s), from its FLOPs,
// bytes and measured seconds (any of them may be unknown: < 0). Expected =
// max(FLOPs / peak, bytes / bandwidth); efficiency = expected / measured,
// which equals measured FLOP/s / attainable FLOP/s (xprof's "roofline
// efficiency"), and for an op without FLOPs its bandwidth utilisation;
// bound = compute when intensity >= ridge (or no bytes), else memory.
struct RoofPoint {
  double intensity = -1, vs_ridge = -1, ceiling_pct = -1, expected_s = -1, efficiency = -1;
  std::string bound = "unknown";
};
RoofPoint RoofAt(double flops, double bytes, double seconds, double peak, double bandwidth);

RooflineResult RooflineXla(const RankProfile& r, const XlaOps& x, const hw::Chip& chip, hw::DType dtype);

// The same for a PyTorch trace's framework ops (analysis/ops.h rows of one
// rank): each (op, shapes) group with a cost from its shapes, per call
// (its GPU time / calls). With `per_op_dtype`, each op is held to the peak
// of its own dtype (float GEMMs to fp32, bf16 ones to bf16); the summary's
// ridge is `dtype`'s.
RooflineResult RooflineFrameworkOps(const std::vector<OpGpuTime>& ops, int64_t rank, const hw::Chip& chip,
                                    hw::DType dtype, bool per_op_dtype);

}  // namespace mlprof
