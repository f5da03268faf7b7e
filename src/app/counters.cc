// mlprof counters.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "analysis/launches.h"
#include "app/command_parts.h"
#include "app/commands.h"
#include "app/shards.h"
#include "report/columns.h"
#include "report/gpu_tables.h"

namespace mlprof::app {

Sharded CountersSharded(const TableOptions& o) {
  return PerRankSharded(
      [o](const Session& s) {
        Report r;
        auto selected = [&](int64_t rank) { return s.inputs.rank < 0 || rank == s.inputs.rank; };
        std::vector<QueueLengthRow> q = ComputeQueueLength(s.profile);
        std::erase_if(q, [&](const QueueLengthRow& row) { return !selected(row.rank); });
        r.tables.push_back(QueueLengthTable(q, 1024));
        if (q.empty()) r.tables.back().notes = {"No kernel, memcpy or memset launched by a host call in these inputs."};
        std::vector<MemoryBwRow> bw = ComputeMemoryBw(s.profile);
        std::erase_if(bw, [&](const MemoryBwRow& row) { return !selected(row.rank); });
        r.tables.push_back(MemoryBwTable(bw));
        if (bw.empty()) r.tables.back().notes = {"No memcpy or memset with a byte count in these inputs."};
        // Each rank's CUPTI tables (their columns are its counters): a group.
        for (const CuptiRanks& c : ComputeCuptiRanges(s.profile)) {
          if (!selected(c.rank)) continue;
          const size_t first = r.tables.size();
          size_t hidden = 0;
          r.tables.push_back(CuptiRangesTable(c, o.top, &hidden));
          NoteHiddenRows(r.tables.back(), hidden);
          r.tables.push_back(CuptiByOpTable(c, CuptiByOp(c)));
          MarkRankGroup(r, c.rank, first, 2);
        }
        return r;
      },
      [](Report& r, const std::vector<Report>& shards) {
        bool any_ranges = false;
        for (const Table* t : TablesWithId(shards, "_groups")) any_ranges |= !t->rows.empty();
        if (!any_ranges)
          r.tables.back().notes.push_back(
              "No CUPTI range-profiler counters (cuda_profiler_range events): record them with torch.profiler's "
              "_ExperimentalConfig(profiler_metrics=[...], profiler_measure_per_kernel=True).");
        return OkStatus();
      });
}

Report Counters(const Session& s, const TableOptions& o) { return RunShardedReport(s, CountersSharded(o)); }

}  // namespace mlprof::app
