#include "analysis/grade.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "model/steps.h"

namespace mlprof {

const char* GradeIdName(GradeId id) {
  switch (id) {
#define MLPROF_X(id, what) \
  case GradeId::id:        \
    return #id;
    MLPROF_GRADE_ITEMS(MLPROF_X)
#undef MLPROF_X
    case GradeId::kCount:
      break;
  }
  return "?";
}

namespace {

std::string Ms(Ps ps) { return fmt::format("{:.3f} ms", static_cast<double>(ps) / 1e9); }
double Pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0; }

bool Counted(OpKind k) { return k == OpKind::kKernel || k == OpKind::kMemcpy || k == OpKind::kMemset; }

// A host call that queues GPU work (its GPU op carries its correlation).
bool QueuesGpuWork(std::string_view n) {
  for (const char* w : {"LaunchKernel", "LaunchCooperativeKernel", "GraphLaunch", "MemcpyAsync", "MemsetAsync",
                        "cuLaunch", "MemcpyHtoDAsync", "MemcpyDtoHAsync", "MemcpyDtoDAsync", "hipModuleLaunch"})
    if (n.find(w) != std::string_view::npos) return true;
  return false;
}

}  // namespace

std::vector<GradeItem> GradeRank(const RankProfile& p, int64_t rank) {
  std::vector<GradeItem> out;
  const OpTable& o = p.ops;
  auto add = [&](GradeId id, Severity sev, double value, std::string text) {
    out.push_back({id, sev, rank, value, std::move(text)});
  };

  // GPU work and the launch calls that queued it.
  // By correlation id, not by the launch the builder joined: a call recorded
  // twice (cudaLaunchKernel and cudaLaunchKernel_v7000 in some nsys
  // exports) shares its GPU op's id.
  std::vector<int64_t> gpu_correlations;
  int64_t gpu_ops = 0, no_launch = 0;
  Ps gpu_time = 0, no_launch_time = 0;
  bool capturing = false, range_profiler = false;
  for (size_t i = 0; i < o.size(); ++i) {
    const std::string_view n = IsLaunchOp(o.kind[i]) ? p.str(o.name[i]) : std::string_view{};
    capturing |= n.find("StreamBeginCapture") != std::string_view::npos;
    if (!IsGpuOp(o.kind[i])) continue;
    if (o.correlation[i] >= 0) gpu_correlations.push_back(o.correlation[i]);
    if (!Counted(o.kind[i])) continue;
    ++gpu_ops;
    gpu_time += o.dur[i];
    if (p.AttributionLaunch(i) < 0) ++no_launch, no_launch_time += o.dur[i];
  }
  std::sort(gpu_correlations.begin(), gpu_correlations.end());
  const StringId range_cat = p.strings.Find("cuda_profiler_range");
  range_profiler = range_cat != StringPool::kNotFound && range_cat < p.cat_counts.size() && p.cat_counts[range_cat] > 0;
  std::map<std::string_view, int64_t> lost_by_name;
  int64_t launches = 0, lost = 0;
  for (size_t i = 0; i < o.size(); ++i) {
    if (!IsLaunchOp(o.kind[i]) || o.correlation[i] < 0) continue;
    const std::string_view n = p.str(o.name[i]);
    if (!QueuesGpuWork(n)) continue;
    ++launches;
    if (!std::binary_search(gpu_correlations.begin(), gpu_correlations.end(), o.correlation[i]))
      ++lost, ++lost_by_name[n];
  }
  // Flows from launches to GPU work (ac2g and the like): ids with one end.
  std::unordered_map<int64_t, uint8_t> ends;  // bit 1: start, bit 2: end
  for (const Flow& f : p.flows) ends[f.id] |= f.phase == 's' ? 1 : 2;
  int64_t unpaired = 0;
  for (const auto& [id, e] : ends) unpaired += e != 3;

  if (launches > 0 && lost > 0) {
    std::string names;
    for (const auto& [n, c] : lost_by_name) names += fmt::format("{}{} {}", names.empty() ? "" : ", ", n, c);
    if (capturing)
      add(GradeId::gpu_activity_lost, Severity::kInfo, static_cast<double>(lost),
          fmt::format("{} of {} launch calls ({}) have no GPU work in the trace: the trace captures CUDA/HIP graphs, "
                      "and launches made while capturing run nothing until the graph is replayed",
                      lost, launches, names));
    else if (range_profiler)
      add(GradeId::gpu_activity_lost, Severity::kWarning, static_cast<double>(lost),
          fmt::format("{} of {} launch calls ({}) have no GPU work in the trace: it was recorded with CUPTI's range "
                      "profiler (cuda_profiler_range events: per-kernel counters instead of a kernel timeline), so "
                      "GPU time, idle and overlap are not measured",
                      lost, launches, names));
    else if (gpu_ops == 0)
      add(GradeId::gpu_activity_lost, Severity::kError, static_cast<double>(lost),
          fmt::format("no GPU activity recorded although the host queued GPU work: {} launch calls ({}){} and not one "
                      "kernel, copy or fill: CUPTI's activity records were lost or not collected (a full activity "
                      "buffer, a profiler without CUDA activities, a process that exited before the flush); every GPU "
                      "figure is missing",
                      lost, names, unpaired > 0 ? fmt::format(", {} flow events with one end", unpaired) : ""));
    else
      add(GradeId::gpu_activity_lost, lost * 20 >= launches ? Severity::kWarning : Severity::kInfo,
          static_cast<double>(lost),
          fmt::format("{} of {} launch calls ({:.1f} %) have no GPU work in the trace ({}): that GPU work is missing "
                      "from every GPU figure",
                      lost, launches, Pct(static_cast<double>(lost), static_cast<double>(launches)), names));
  }
  if (gpu_ops > 0 && no_launch > 0) {
    const double share = Pct(static_cast<double>(no_launch_time), static_cast<double>(gpu_time));
    add(GradeId::gpu_ops_without_launch, launches > 0 && share > 5 ? Severity::kWarning : Severity::kInfo,
        static_cast<double>(no_launch),
        launches > 0 ? fmt::format("{} of {} GPU ops ({}, {:.1f} % of GPU time) have no launch call in the trace: no "
                                   "op, step or annotation can own them",
                                   no_launch, gpu_ops, Ms(no_launch_time), share)
                     : fmt::format("the trace holds GPU work but no launch calls (a device-only trace): its {} GPU "
                                   "ops belong to no op or step of the host",
                                   gpu_ops));
  }
  if (unpaired > 0 && !(launches > 0 && lost > 0 && gpu_ops == 0 && !capturing && !range_profiler))
    add(GradeId::flows_unpaired, Severity::kInfo, static_cast<double>(unpaired),
        fmt::format("{} of {} flow ids have only one end", unpaired, ends.size()));

  // How the GPU time is attributed to ops (analysis/attribution.h): where
  // the trace has framework ops to attribute it to (not an XLA profile, not
  // a CUDA program's nsys export).
  bool framework = false;
  for (size_t i = 0; i < o.size() && !framework; ++i) framework = p.IsFrameworkOp(i);
  if (gpu_ops > 0 && framework && p.xla_ops.empty()) {
    const OpAttribution attribution(p);
    Ps by[kAttributedByCount] = {};
    Ps repaired = 0, by_correlation = 0;
    for (size_t i = 0; i < o.size(); ++i) {
      if (!Counted(o.kind[i])) continue;
      const OpAttribution::Owner w = attribution.Of(i);
      by[static_cast<size_t>(w.by)] += o.dur[i];
      if (w.repair == ExternalIdRepair::kCorrelation)
        by_correlation += o.dur[i];
      else if (w.repair != ExternalIdRepair::kNone)
        repaired += o.dur[i];
    }
    auto pct = [&](AttributedBy b) {
      return Pct(static_cast<double>(by[static_cast<size_t>(b)]), static_cast<double>(gpu_time));
    };
    const double owned = 100.0 - pct(AttributedBy::kNone);
    const double repaired_pct = Pct(static_cast<double>(repaired), static_cast<double>(gpu_time));
    // GPU ops without a launch are their own item (gpu_ops_without_launch):
    // the warning is for launched work that no op owns, or ids repaired.
    const double launched_unowned =
        pct(AttributedBy::kNone) - Pct(static_cast<double>(no_launch_time), static_cast<double>(gpu_time));
    add(GradeId::attribution, launched_unowned > 10 || repaired_pct > 10 ? Severity::kWarning : Severity::kInfo, owned,
        fmt::format("per-op GPU time: {:.1f} % of GPU time attributed to an op ({:.1f} % by a verified External id, "
                    "{:.1f} % by time, {:.1f} % to a graph launch, {:.1f} % to an annotation around the launch); "
                    "{:.1f} % under (no cpu_op){}{}",
                    owned, pct(AttributedBy::kExternalId), pct(AttributedBy::kContainment),
                    pct(AttributedBy::kGraphLaunch), pct(AttributedBy::kAnnotation), pct(AttributedBy::kNone),
                    repaired > 0 ? fmt::format("; {:.1f} % carried an External id that names no op containing its "
                                               "launch (repaired by time)",
                                               repaired_pct)
                                 : "",
                    by_correlation > 0
                        ? fmt::format("; {:.1f} % was launched by calls whose External id is their correlation id (a "
                                      "profiler that links launches to ops by time only)",
                                      Pct(static_cast<double>(by_correlation), static_cast<double>(gpu_time)))
                        : ""));
  }

  // GPU ops on one stream that overlap (a stream runs one op at a time).
  int64_t overlaps = 0, on_streams = 0;
  {
    uint32_t track = UINT32_MAX;
    Ps end = 0;
    for (size_t i = 0; i < o.size(); ++i) {
      if (!Counted(o.kind[i]) || p.tracks[o.track[i]].kind != TrackKind::kGpuStream) continue;
      ++on_streams;
      if (o.track[i] != track) {
        track = o.track[i], end = o.end(i);
        continue;
      }
      if (o.ts[i] < end) ++overlaps;
      end = std::max(end, o.end(i));
    }
  }
  if (overlaps > 0)
    add(GradeId::stream_overlap, overlaps * 100 > on_streams ? Severity::kWarning : Severity::kInfo,
        static_cast<double>(overlaps),
        fmt::format("{} of {} GPU ops start before the previous op on their stream ends (programmatic dependent "
                    "launch lets a kernel start early on Hopper and Blackwell; otherwise a clock or export error); "
                    "busy times count the overlap once",
                    overlaps, on_streams));

  // A GPU op cannot start before the call that launched it: when it does,
  // the host and device clocks disagree (a profiler's clock alignment, a
  // merged trace), and launch delays, queue lengths and overlaps read wrong.
  {
    int64_t early = 0, linked = 0;
    Ps worst = 0;
    for (size_t i = 0; i < o.size(); ++i) {
      if (!Counted(o.kind[i]) || o.launch[i] < 0) continue;
      const size_t l = static_cast<size_t>(o.launch[i]);
      if (!IsLaunchOp(o.kind[l])) continue;
      ++linked;
      if (o.ts[i] < o.ts[l]) ++early, worst = std::max(worst, o.ts[l] - o.ts[i]);
    }
    if (early > 0)
      add(GradeId::clock_skew, early * 100 > linked ? Severity::kWarning : Severity::kInfo, static_cast<double>(early),
          fmt::format("{} of {} GPU ops start before the call that launched them (by up to {}): the host and GPU "
                      "clocks disagree, so launch delays and queue lengths near those ops read wrong",
                      early, linked, Ms(worst)));
  }

  // A layout mlprof does not read, with lanes named like devices.
  if (p.unread_device_lane_events > 0)
    add(GradeId::device_lanes_unread, Severity::kError, static_cast<double>(p.unread_device_lane_events),
        fmt::format("no GPU work was read, but {} named like device lanes: their events carry no category mlprof "
                    "knows and the layout is none it reads (Kineto, rocprof, XSpace, Ascend), so they were read as "
                    "host events: every GPU figure is missing",
                    p.unread_device_lanes));

  // Steps.
  if (p.step_source == StepSource::kTrace && p.steps_asked == StepSource::kTrace)
    add(GradeId::steps, Severity::kInfo, 1,
        "the whole trace is the step (--steps-from trace): per-step figures are per trace");
  else if (p.step_source == StepSource::kTrace)
    add(GradeId::steps, Severity::kWarning, 1,
        "no iterations found (no ProfilerStep#N, serving step, Optimizer.step range, iteration annotation or "
        "repeating top-level ops): per-step figures are per trace");
  else if (p.step_source != StepSource::kNone)
    add(GradeId::steps, Severity::kInfo, static_cast<double>(p.steps.size()),
        fmt::format("{} steps from {}", p.steps.size(), StepSourceDescription(p.step_source)));
  return out;
}

std::vector<std::string> GradeWarnings(const std::vector<GradeItem>& items, const std::string& path) {
  std::vector<std::string> out;
  for (const GradeItem& g : items)
    if (g.severity >= Severity::kWarning) out.push_back(fmt::format("{}: {}", path, g.text));
  return out;
}

}  // namespace mlprof
