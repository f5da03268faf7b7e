// mlprof engines.
#include "analysis/engines.h"

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

Sharded EnginesSharded(const TableOptions& o) {
  return PerRankSharded(
      [o](const Session& s) {
        Report r;
        r.tables.push_back(EngineTable(ComputeEngines(s.view)));
        // Per-kernel hardware counters, where the profile has them (Ascend PMU).
        // Device counters sampled over time (nsys GPU metrics), where present.
        const std::vector<MetricRow> metrics = ComputeGpuMetrics(s.profile, o.top > 0 ? o.top : 0);
        if (!metrics.empty()) r.tables.push_back(GpuMetricsTable(metrics));
        const UnitReport units = ComputeUnitUtilisation(s.profile);
        if (!units.rows.empty()) {
          size_t hidden = 0;
          r.tables.push_back(UnitsTable(units, o.top, &hidden));
          NoteHiddenRows(r.tables.back(), hidden);
        }
        return r;
      },
      [](Report& r, const std::vector<Report>& shards) {
        // "No op records the bytes" only when no rank's op does.
        bool any_bytes = false;
        for (const Table* t : TablesWithId(shards, "engines"))
          any_bytes |= std::find(t->notes.begin(), t->notes.end(), kNoBytesNote) == t->notes.end();
        if (any_bytes) std::erase(r.tables.front().notes, std::string(kNoBytesNote));
        return OkStatus();
      });
}

Report Engines(const Session& s, const TableOptions& o) { return RunShardedReport(s, EnginesSharded(o)); }

}  // namespace mlprof::app
