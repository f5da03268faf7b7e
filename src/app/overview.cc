// mlprof overview.
#include "analysis/overview.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "app/command_parts.h"
#include "app/commands.h"
#include "app/shards.h"
#include "report/columns.h"
#include "report/gpu_tables.h"

namespace mlprof::app {

Sharded OverviewSharded() {
  return PerRankSharded(
      [](const Session& s) {
        Report r;
        std::vector<RankOverview> o;
        for (const RankView& rv : s.view.ranks) {
          if (rv.profile->ops.size() == 0) continue;
          o.push_back(ComputeRankOverview(*rv.profile, rv.rank, s.view.comm_kernels.get()));
        }
        r.tables.push_back(OverviewStepTable(o));
        r.tables.push_back(OverviewMeanTable(o));
        r.tables.push_back(GpuSummaryTable(o));
        // What the notes say over every rank.
        Table facts("_overview", "");
        for (const char* c : {"any_steps", "adjusted", "dropped", "host_span", "sources"})
          facts.Add(Measure(c, Unit::kCount, ""));
        for (const RankOverview& x : o)
          facts.rows.push_back({Cell::Int(!x.steps.empty()), Cell::Int(x.gpu_adjusted), Cell::Int(x.dropped_tail_steps),
                                Cell::Int(x.host_span_step), Cell::Int(OverviewSourceBit(x.source))});
        r.tables.push_back(std::move(facts));
        return r;
      },
      [](Report& r, const std::vector<Report>& shards) {
        bool any = false, adjusted = false, host_span = false;
        int64_t dropped = 0;
        uint32_t sources = 0;
        for (const Table* t : TablesWithId(shards, "_overview"))
          for (const auto& row : t->rows)
            any |= IntAt(row, 0) != 0, adjusted |= IntAt(row, 1) != 0, dropped += IntAt(row, 2),
                host_span |= IntAt(row, 3) != 0, sources |= static_cast<uint32_t>(IntAt(row, 4));
        r.tables.front().notes = OverviewStepNotes(adjusted, dropped, host_span, sources);
        if (!any) {
          r.tables.resize(1);
          r.tables.front().notes = {
              "No host ops in these inputs: the overview reads PyTorch (Kineto) traces; for XLA profiles see `mlprof "
              "steps` and `mlprof summary`."};
        }
        return OkStatus();
      });
}

Report Overview(const Session& s) { return RunShardedReport(s, OverviewSharded()); }

}  // namespace mlprof::app
