// mlprof memory.
#include "analysis/memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "app/command_parts.h"
#include "app/commands.h"
#include "app/shards.h"
#include "report/columns.h"
#include "report/memory_tables.h"

namespace mlprof::app {

Sharded MemorySharded(const TableOptions& o) {
  return PerRankSharded(
      [o](const Session& s) {
        Report r;
        const std::vector<DeviceMemory> m = ComputeMemory(s.profile);
        const std::vector<CategoryMemory> categories = ComputeMemoryCategories(s.profile);
        if (!categories.empty()) r.tables.push_back(MemoryCategoriesTable(categories));
        r.tables.push_back(MemoryTable(m));
        for (bool at_peak : {true, false}) {
          size_t hidden = 0;
          r.tables.push_back(MemorySitesTable(m, at_peak, o.top, &hidden));
          NoteHiddenRows(r.tables.back(), hidden);
        }
        Table facts("_memory", "");
        facts.Add(Measure("allocator", Unit::kCount, ""));
        facts.rows.push_back({Cell::Int(!m.empty())});
        r.tables.push_back(std::move(facts));
        return r;
      },
      [](Report& r, const std::vector<Report>& shards) {
        // A memory timeline alone (no rank has allocator events): its table only.
        bool any_alloc = false;
        for (const Table* t : TablesWithId(shards, "_memory")) any_alloc |= IntAt(t->rows.at(0), 0) != 0;
        if (!any_alloc && !r.tables.empty() && r.tables.front().id == "memory_categories") r.tables.resize(1);
        return OkStatus();
      });
}

Report Memory(const Session& s, const TableOptions& o) { return RunShardedReport(s, MemorySharded(o)); }

}  // namespace mlprof::app
