// mlprof launches.
#include "analysis/launches.h"

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

Report Launches(const Session& s) {
  Report r = WithImportWarnings(s);
  r.tables.push_back(LaunchSummaryTable(ComputeLaunchStats(s.view, {})));
  std::vector<QueueLengthRow> q = ComputeQueueLength(s.profile);
  std::erase_if(q, [&](const QueueLengthRow& row) { return s.inputs.rank >= 0 && row.rank != s.inputs.rank; });
  if (!q.empty()) r.tables.push_back(QueueLengthTable(q, 1024));
  return r;
}

}  // namespace mlprof::app
