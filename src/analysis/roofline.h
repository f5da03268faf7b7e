// How far each XLA op is from what the chip can do: per op and per mlprof
// category, FLOPs and bytes per execution, arithmetic intensity against
// the ridge point, the roofline ceiling, expected time = max(FLOPs / peak,
// bytes / HBM bandwidth), measured time, efficiency = expected / measured,
// and what bounds it. Collectives: expected time = the bytes each
// participant sends (ring formulas from the buffer and the group size) /
// the chip's scale-up bandwidth per direction, on one torus axis where the
// chip states one; or, given the ICI axes, the per-axis model (op_cost.h).
#pragma once

#include <string>
#include <vector>

#include "analysis/hlo_summary.h"
#include "analysis/ops.h"
#include "analysis/xla.h"
#include "hw/chip.h"

namespace mlprof {

// What bounds an op at the roofline: compute (intensity at or above the
// ridge), memory, communication (a collective, held to the link), mixed (a
// category whose ops differ), unknown (no cost).
enum class RoofBound : uint8_t { kUnknown, kCompute, kMemory, kCommunication, kMixed };
const char* RoofBoundName(RoofBound b);  // "compute", "memory", ... (xprof's words)

// How collectives were timed: a ring on one torus axis of the scale-up
// link, a ring over all its links, or the per-axis torus model; none when
// the chip states no scale-up link.
// An op whose efficiency is above this ran faster than its roofline allows
// (5 % for clocks above the datasheet's and timing noise).
inline constexpr double kAboveRoof = 1.05;

enum class LinkModel : uint8_t { kNone, kOneAxisRing, kAllLinksRing, kTorusAxes };

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
  double achieved_flops_per_s = -1;
  RoofBound bound = RoofBound::kUnknown;
  // Collectives: bytes each participant sends (-1: unknown, then `bytes`
  // is used), the group size (0: unknown) and the kind ("all-reduce").
  double wire_bytes = -1;
  int64_t group = 0;
  std::string collective;
};

struct RooflineResult {
  std::string chip;  // id
  hw::DType dtype = hw::DType::kBf16;
  double peak = 0;     // FLOP/s per device
  double hbm_bw = 0;   // B/s
  double ridge = 0;    // FLOP/B
  double link_bw = 0;  // B/s per direction, scale-up (0: unknown): one torus axis on TPUs, all links on GPUs
  LinkModel link_model = LinkModel::kNone;  // how collectives were timed
  std::string link_name;                    // the scale-up link's name ("ICI", "NVLink")
  std::vector<int64_t> ici_axes;            // the torus axes given for the per-axis model (empty: one-axis ring)
  std::vector<RooflineRow> ops;             // by measured time, largest first
  std::vector<RooflineRow> categories;      // likewise
  double time_s = 0;                        // all XLA op time
  double time_with_cost_s = 0;              // of ops with known FLOPs or bytes
  double expected_s = 0;                    // their expected total
  int64_t ops_without_cost = 0;             // distinct ops
  // XLA copies to or from host memory (S(5)/S(6)): left off the roofline,
  // which has no host-link ceiling; distinct ops and their device time.
  int64_t host_memory_ops = 0;
  double host_memory_s = 0;
  // PyTorch ops held to their own dtype's peak (no --dtype): the costed
  // time by the dtype each op was held to, largest first; `dtype`, `peak`
  // and `ridge` are then the one holding the most time (not the default
  // bf16 on an fp32 trace).
  std::vector<std::pair<hw::DType, double>> dtype_time;
  // Costed ops that ran faster than their roofline (efficiency > kAboveRoof: their
  // FLOPs or bytes are overcounted, or some of their device time went to
  // another op), and their measured time: not efficiency but an error.
  int64_t above_roof_ops = 0;
  double above_roof_s = 0;
  // Of it, ops held to the fp32 peak: float matmuls faster than fp32 ran on
  // TF32 tensor cores (PyTorch's allow_tf32 flags).
  double above_roof_fp32_s = 0;
};

// One point against a roofline (peak FLOP/s, memory B/s), from its FLOPs,
// bytes and measured seconds (any of them may be unknown: < 0). Expected =
// max(FLOPs / peak, bytes / bandwidth); efficiency = expected / measured,
// which equals measured FLOP/s / attainable FLOP/s (xprof's "roofline
// efficiency"), and for an op without FLOPs its bandwidth utilisation;
// bound = compute when intensity >= ridge (or no bytes), else memory.
struct RoofPoint {
  double intensity = -1, vs_ridge = -1, ceiling_pct = -1, expected_s = -1, efficiency = -1;
  RoofBound bound = RoofBound::kUnknown;
};
RoofPoint RoofAt(double flops, double bytes, double seconds, double peak, double bandwidth);

// A module's expected time from its HLO alone: its entry computation's FLOPs
// and bytes (XLA's cost rules) spread evenly over `devices` devices (chips,
// or cores with `per_core`), each at the chip's dense peak and HBM
// bandwidth. An SPMD-partitioned module is already one device's program:
// give devices 1 for it.
struct HloExpected {
  const hlo::Module* module = nullptr;
  double flops = 0, bytes = 0;
  double devices = 1;
  double peak_per_device = 0, hbm_per_device = 0;  // FLOP/s, B/s
  double compute_s = 0, memory_s = 0, expected_s = 0;
  RoofBound bound = RoofBound::kUnknown;
};
HloExpected ExpectHloModule(const HloModuleSummary& s, const hw::Chip& chip, hw::DType dtype, double devices,
                            bool per_core);

// `ici_axes` (innermost first, e.g. {4, 4, 4}): time each all-reduce,
// all-gather and reduce-scatter over the axes its group spans
// (CollectiveSeconds); empty: a ring on one axis.
RooflineResult RooflineXla(const RankProfile& r, const XlaOps& x, const hw::Chip& chip, hw::DType dtype,
                           const std::vector<int64_t>& ici_axes = {});

// Seconds a collective takes on the links: `wire_bytes` (bytes each
// participant sends in a ring) / `link_bw`. With torus axes (TPU ICI), an
// all-reduce, all-gather or reduce-scatter whose group spans k of them
// (filled from the innermost; its size must be a product of whole axes and
// one last part) moves on all k at once: max(1 us x hops / 2, wire / (k x
// link_bw)) (planner-formulas.md, scaling-book). -1 when nothing is known.
double CollectiveSeconds(std::string_view collective, double wire_bytes, int64_t group, double link_bw,
                         const std::vector<int64_t>& axes);

// The same for a PyTorch trace's framework ops (analysis/ops.h rows of one
// rank): each (op, shapes) group with a cost from its shapes, per call
// (its GPU time / calls). With `per_op_dtype`, each op is held to the peak
// of its own dtype (float GEMMs to fp32, bf16 ones to bf16); the summary's
// ridge is `dtype`'s.
RooflineResult RooflineFrameworkOps(const std::vector<OpGpuTime>& ops, int64_t rank, const hw::Chip& chip,
                                    hw::DType dtype, bool per_op_dtype);

}  // namespace mlprof
