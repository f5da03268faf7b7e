// Which ops a GPU op belongs to: the walks up from its launch call that the
// op, layer and module analyses share, and the checked attribution of each
// GPU op to its owner (OpAttribution) that the per-op tables and the
// profile's grade rest on.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/view.h"
#include "model/profile.h"

namespace mlprof {

inline constexpr std::string_view kModulePrefix = "nn.Module: ";

// "nn.Module: Qwen2DecoderLayer_3" -> "Qwen2DecoderLayer"; "" for other names.
inline std::string_view ModuleClass(std::string_view name) {
  if (name.substr(0, kModulePrefix.size()) != kModulePrefix) return {};
  std::string_view c = name.substr(kModulePrefix.size());
  const size_t us = c.rfind('_');
  if (us != std::string_view::npos && us + 1 < c.size() &&
      std::all_of(c.begin() + static_cast<std::ptrdiff_t>(us) + 1, c.end(),
                  [](char ch) { return ch >= '0' && ch <= '9'; }))
    c = c.substr(0, us);
  return c;
}

// A module frame (torch.profiler's with_modules / with_stack python frames,
// copied ones too under --capture): its class, else "".
inline std::string_view ModuleFrameClass(const RankProfile& p, size_t op) {
  return p.ops.kind[op] == OpKind::kPythonFunction ? ModuleClass(p.str(p.ops.name[op])) : std::string_view{};
}

// Calls f(op) for the ops above GPU op `g`, innermost first, until f returns
// false: the launch call it is attributed to (itself first) and the ops
// enclosing it; for a call copied from a capture trace (--capture), then its
// graph launch and the ops enclosing that on the launching thread (a
// PIECEWISE graph's modules are above the launch).
template <class F>
void ForEachLaunchAncestor(const RankProfile& p, size_t g, F&& f) {
  const int32_t a = p.AttributionLaunch(g);
  for (int32_t q = a; q >= 0; q = p.ops.parent[static_cast<size_t>(q)])
    if (!f(static_cast<size_t>(q))) return;
  const int32_t l = p.ops.launch[g];
  if (a >= 0 && a != l)
    for (int32_t q = l; q >= 0; q = p.ops.parent[static_cast<size_t>(q)])
      if (!f(static_cast<size_t>(q))) return;
}

// How a GPU op was given to an owner (OpAttribution::Of).
enum class AttributedBy : uint8_t {
  kExternalId,   // the cpu_op its launch's External id names, which contains the launch on its thread
  kContainment,  // the innermost cpu_op containing the launch on its thread (no usable External id)
  kGraphLaunch,  // a CUDA/HIP graph launch with no op above it: the launch itself (as TraceLens)
  kAnnotation,   // no cpu_op above the launch: the innermost enclosing user annotation (host, else GPU side)
  kNone,         // nothing: no launch found and no annotation around it
  kCount
};
inline constexpr size_t kAttributedByCount = static_cast<size_t>(AttributedBy::kCount);
const char* AttributedByName(AttributedBy b);  // "external_id", "time", "graph_launch", "annotation", "none"

// Why a launch's External id was not used (its op then comes by time).
enum class ExternalIdRepair : uint8_t {
  kNone,
  kUnmatched,  // the id matches no cpu_op of the trace (ids reused or broken)
  kOutside,    // the cpu_op with that id does not contain the launch on the launching thread
  // The launch's External id is its own correlation id (Kineto versions that
  // link launches to ops by time only write it there): no link to repair.
  kCorrelation,
};

// Each GPU op's owner, checked rather than trusted. A launch's External id
// names its cpu_op only when that op contains the launch (it is one of the
// ops enclosing it on the launching thread); otherwise the innermost cpu_op
// enclosing the launch is its op, and the repair is counted. Launches under
// no cpu_op go to the innermost user annotation around them (record_function
// on the host, else gpu_user_annotation around the GPU op); ProfilerStep#N
// ranges are steps, not owners.
class OpAttribution {
 public:
  explicit OpAttribution(const RankProfile& p);
  struct Owner {
    int32_t op = -1;  // the owning op (cpu_op, captured op, graph launch or annotation); -1 none
    AttributedBy by = AttributedBy::kNone;
    ExternalIdRepair repair = ExternalIdRepair::kNone;
  };
  Owner Of(size_t gpu_op) const;

 private:
  const RankProfile& p_;
  std::vector<int64_t> cpu_op_ids_;  // External ids cpu_ops carry, sorted
  std::vector<uint8_t> step_op_;     // per op: a ProfilerStep / step marker (not an owner)
};

// GPU time (kernels, copies, fills) by how it was attributed, over one rank's
// GPU ops `gpu` (the view's): what the per-op tables rest on.
struct AttributionSummary {
  Ps total = 0;
  int64_t total_ops = 0;
  std::array<Ps, kAttributedByCount> time{};
  std::array<int64_t, kAttributedByCount> ops{};
  Ps unmatched_time = 0, outside_time = 0;  // repairs (ExternalIdRepair), included in kContainment/kAnnotation
  int64_t unmatched_ops = 0, outside_ops = 0;
  Ps correlation_time = 0;  // launches whose External id is their correlation id (no link; not a repair)
  int64_t correlation_ops = 0;
  Ps without_launch_time = 0;  // GPU ops whose correlation matches no launch
  int64_t without_launch_ops = 0;
  Ps Attributed() const { return total - time[static_cast<size_t>(AttributedBy::kNone)]; }
};

AttributionSummary SummarizeAttribution(const RankView& rv, const OpAttribution& attribution);
// Each rank of the view with GPU work: (rank, its summary).
std::vector<std::pair<int64_t, AttributionSummary>> SummarizeAttribution(const ProfileView& view);

}  // namespace mlprof
