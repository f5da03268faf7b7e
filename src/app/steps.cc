// mlprof steps.
#include "analysis/steps.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "analysis/serving.h"
#include "analysis/xla.h"
#include "app/command_parts.h"
#include "app/commands.h"
#include "app/shards.h"
#include "report/columns.h"
#include "report/step_tables.h"
#include "report/xla_tables.h"

namespace mlprof::app {

Report StepsShard(const Session& s, const StepsOptions& o) {
  Report r;
  Table xla_ranks("_xla_ranks", "");
  xla_ranks.Add(RankKey());
  for (const auto& rank : s.profile.ranks) {
    if (!s.Selected(rank) || rank.xla_ops.empty()) continue;
    XlaOps x = ResolveXlaOps(rank);
    XlaSteps xs = ComputeXlaSteps(rank, BreakdownXla(rank, x), o.warmup);
    if (xs.steps.empty()) continue;
    xla_ranks.rows.push_back({Cell::Int(rank.rank_or(0))});
    for (Table& t : XlaStepTables(rank.rank_or(0), xs)) r.tables.push_back(std::move(t));
  }
  const size_t per_rank = xla_ranks.rows.empty() ? 0 : r.tables.size() / xla_ranks.rows.size();
  r.tables.push_back(std::move(xla_ranks));
  StepReport steps = ComputeSteps(s.view, {o.warmup});
  r.tables.push_back(StepTable(steps));
  r.tables.push_back(StepSummaryTable(steps));
  const ServingReport serving = ComputeServingSteps(s.view, {o.warmup});
  if (!serving.steps.empty()) {
    r.tables.push_back(ServingStepTable(serving));
    r.tables.push_back(ServingSummaryTable(serving));
  }
  Table facts("_steps_facts", "");
  facts.Add(Measure("xla_tables_per_rank", Unit::kCount, "")).Add(Measure("any_steps", Unit::kCount, ""));
  facts.rows.push_back({Cell::Int(static_cast<int64_t>(per_rank)), Cell::Int(!steps.steps.empty())});
  r.tables.push_back(std::move(facts));
  r.tables.push_back(WarningsShard(s));
  return r;
}

StatusOr<Report> StepsCombine(const std::vector<Report>& shards) {
  Report r;
  r.warnings = CombineWarnings(shards);
  // Each XLA rank's tables, in rank order.
  std::vector<std::pair<int64_t, const Table*>> xla;  // rank, its first table
  bool any_steps = false;
  size_t per_rank = 0;
  for (const Report& shard : shards) {
    const Table* facts = nullptr;
    for (const Table& t : shard.tables)
      if (t.id == "_steps_facts") facts = &t;
    if (!facts || facts->rows.empty()) return DataLoss("steps shard: no facts");
    const size_t n = static_cast<size_t>(IntAt(facts->rows[0], 0));
    any_steps |= IntAt(facts->rows[0], 1) != 0;
    size_t at = 0;
    for (const Table& t : shard.tables)
      if (t.id == "_xla_ranks") {
        if (t.rows.size() * n > shard.tables.size()) return DataLoss("steps shard: XLA tables missing");
        for (const auto& row : t.rows) xla.push_back({IntAt(row, 0), &shard.tables[at]}), at += n;
        per_rank = std::max(per_rank, n);
      }
  }
  std::stable_sort(xla.begin(), xla.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [rank, first] : xla)
    for (size_t k = 0; k < per_rank; ++k) r.tables.push_back(first[k]);
  if (!xla.empty() && !any_steps) return r;
  for (const char* id : {"steps", "steady_state"}) {
    ASSIGN_OR_RETURN(Table t, ConcatByRank(shards, id));
    r.tables.push_back(std::move(t));
  }
  if (!TablesWithId(shards, "serving_steps").empty()) {
    r.tables.front().notes.push_back(
        "No ProfilerStep#N: the steps are the serving engine's step ranges (vLLM execute_..., SGLang step[...]), "
        "numbered from 0 in time order.");
    for (const char* id : {"serving_steps", "serving_steady_state"}) {
      ASSIGN_OR_RETURN(Table t, ConcatByRank(shards, id));
      r.tables.push_back(std::move(t));
    }
  }
  if (!any_steps)
    r.tables.front().notes.push_back(
        "No ProfilerStep#N in these inputs (record with torch.profiler's schedule and prof.step()), and no XLA "
        "module executions or Steps line: no steps to show.");
  return r;
}

Sharded StepsSharded(const StepsOptions& o) {
  return {[o](const Session& s) -> StatusOr<Report> { return StepsShard(s, o); },
          [](std::vector<Report> shards) { return StepsCombine(shards); }};
}

Report Steps(const Session& s, const StepsOptions& o) { return RunShardedReport(s, StepsSharded(o)); }

}  // namespace mlprof::app
