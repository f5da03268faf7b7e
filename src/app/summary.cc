// mlprof summary.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "analysis/gpu_time.h"
#include "analysis/steps.h"
#include "analysis/xla.h"
#include "app/command_parts.h"
#include "app/commands.h"
#include "app/shards.h"
#include "report/columns.h"
#include "report/gpu_tables.h"
#include "report/info_tables.h"
#include "report/step_tables.h"
#include "report/xla_tables.h"

namespace mlprof::app {

// summary's shard: the per-rank tables, the XLA tables of its ranks (three
// each), and the kernel-type times summed over its ranks.
StatusOr<Report> SummaryShard(const Session& s, const SummaryOptions& o) {
  Report r;
  Table warnings = WarningsShard(s);
  const Profile& p = s.profile;
  const ProfileView& v = s.view;
  r.tables.push_back(RanksTable(p));
  Table xla_ranks("_xla_ranks", "");
  xla_ranks.Add(RankKey());
  for (const auto& rank : p.ranks) {
    if (!s.Selected(rank) || rank.xla_ops.empty()) continue;
    XlaOps x = ResolveXlaOps(rank);
    XlaBreakdown b = BreakdownXla(rank, x);
    r.tables.push_back(XlaSummaryTable(rank.rank_or(0), b));
    r.tables.push_back(XlaAttributionTable(rank.rank_or(0), b));
    r.tables.push_back(XlaTopOpsTable(rank.rank_or(0), x, XlaOpsByTime(rank, x), o.top_ops));
    for (const auto& problem : x.problems) AddRankWarning(warnings, rank.rank_or(0), problem);
    xla_ranks.rows.push_back({Cell::Int(rank.rank_or(0))});
  }
  r.tables.push_back(std::move(xla_ranks));
  bool any_gpu = false;
  for (const auto& rv : v.ranks) any_gpu |= !rv.gpu.empty();
  Table facts("_facts", "");
  facts.Add(Measure("any_gpu", Unit::kCount, "")).Add(Measure("multi_step", Unit::kCount, ""));
  facts.rows.push_back({Cell::Int(any_gpu), Cell::Int(v.multi_step)});
  r.tables.push_back(std::move(facts));
  r.tables.push_back(TemporalTable(ComputeTemporalBreakdown(v)));
  r.tables.push_back(OverlapTable(ComputeOverlap(v)));
  // The top names per class and the rest folded into "others": every class's
  // rows add up to its total.
  KernelBreakdownOptions ko;
  ko.top = o.top > 0 ? o.top : 1 << 30;
  KernelBreakdown kb = ComputeKernelBreakdown(v, ko);
  r.tables.push_back(KernelTypeTimeShard(kb));
  r.tables.push_back(KernelStatTable(kb));
  StepReport steps = ComputeSteps(v, {o.warmup});
  if (!steps.summary.empty()) r.tables.push_back(StepSummaryTable(steps));
  r.tables.push_back(std::move(warnings));
  r.tables.push_back(GradeShard(s));
  return r;
}

StatusOr<Report> SummaryCombine(std::vector<Report> shards, const SummaryOptions& o, bool all_steps) {
  Report r;
  r.warnings = CombineWarnings(shards);
  ASSIGN_OR_RETURN(std::optional<Table> grade, LeadingGrade(shards));
  const bool gpu_lost = grade && std::any_of(grade->rows.begin(), grade->rows.end(), [](const auto& row) {
                          return TextAt(row, 1) == "gpu_activity_lost" && TextAt(row, 2) == "error";
                        });
  const bool lanes_unread = grade && std::any_of(grade->rows.begin(), grade->rows.end(), [](const auto& row) {
                              return TextAt(row, 1) == "device_lanes_unread";
                            });
  if (grade) r.tables.push_back(std::move(*grade));
  ASSIGN_OR_RETURN(Table ranks, ConcatByRank(shards, "ranks"));
  r.tables.push_back(std::move(ranks));
  // Each rank's XLA tables, in rank order.
  std::vector<std::pair<int64_t, const Table*>> xla;  // rank, its first table
  bool any_gpu = false, multi_step = false;
  for (const Report& shard : shards) {
    size_t at = 1;  // after "ranks"
    for (const Table& t : shard.tables)
      if (t.id == "_xla_ranks")
        for (const auto& row : t.rows) xla.push_back({IntAt(row, 0), &shard.tables[at]}), at += 3;
      else if (t.id == "_facts")
        any_gpu |= IntAt(t.rows.at(0), 0) != 0, multi_step |= IntAt(t.rows.at(0), 1) != 0;
  }
  std::stable_sort(xla.begin(), xla.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [rank, first] : xla)
    for (int k = 0; k < 3; ++k) r.tables.push_back(first[k]);
  if (!any_gpu) {
    if (xla.empty())
      r.tables[grade ? 1 : 0].notes.push_back(
          gpu_lost ? "No GPU stream activity in these inputs although the host launched GPU work: its records are "
                     "missing (the grade above); there is no GPU time to break down."
          : lanes_unread
              ? "No GPU work read: the lanes named like devices are in a layout mlprof does not read (the "
                "grade above); there is no GPU time to break down."
              : "No GPU stream activity in these inputs (a TPU, CPU-only or host-side profile?): there is no GPU "
                "time to break down. `mlprof info` lists what the profile holds.");
    return r;
  }
  ASSIGN_OR_RETURN(Table temporal, ConcatByRank(shards, "temporal"));
  r.tables.push_back(std::move(temporal));
  ASSIGN_OR_RETURN(Table overlap, ConcatByRank(shards, "overlap"));
  r.tables.push_back(std::move(overlap));
  r.tables.push_back(KernelTypeTableOfShards(shards));
  ASSIGN_OR_RETURN(Table kernels, ConcatByRank(shards, "kernels"));
  r.tables.push_back(std::move(kernels));
  if (!TablesWithId(shards, "steady_state").empty()) {
    ASSIGN_OR_RETURN(Table steady, ConcatByRank(shards, "steady_state"));
    r.tables.push_back(std::move(steady));
  }
  if (multi_step && !all_steps)
    r.tables[grade ? 1 : 0].notes.push_back(
        "The last ProfilerStep is left out of the GPU tables (as HTA does); --all-steps keeps it.");
  return r;
}

Sharded SummarySharded(const SummaryOptions& o, bool all_steps) {
  return {[o](const Session& s) { return SummaryShard(s, o); },
          [o, all_steps](std::vector<Report> shards) { return SummaryCombine(std::move(shards), o, all_steps); }};
}

StatusOr<Report> Summary(const Session& s, const SummaryOptions& o) {
  return RunSharded(s, SummarySharded(o, s.inputs.all_steps));
}

}  // namespace mlprof::app
