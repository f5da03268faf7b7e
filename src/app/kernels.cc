// mlprof kernels.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "analysis/gpu_time.h"
#include "app/command_parts.h"
#include "app/commands.h"
#include "app/shards.h"
#include "report/columns.h"
#include "report/gpu_tables.h"

namespace mlprof::app {

Sharded KernelsSharded(const TableOptions& o) {
  return PerRankSharded(
      [o](const Session& s) {
        Report r;
        KernelBreakdownOptions ko;
        ko.top = o.top > 0 ? o.top : 1 << 30;
        KernelBreakdown kb = ComputeKernelBreakdown(s.view, ko);
        r.tables.push_back(KernelTypeTimeShard(kb));
        r.tables.push_back(KernelStatTable(kb));
        return r;
      },
      [](Report& r, const std::vector<Report>& shards) {
        r.tables.insert(r.tables.begin(), KernelTypeTableOfShards(shards));
        return OkStatus();
      });
}

Report Kernels(const Session& s, const TableOptions& o) { return RunShardedReport(s, KernelsSharded(o)); }

}  // namespace mlprof::app
