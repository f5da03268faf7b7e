// mlprof idle.
#include "analysis/idle.h"

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

Report Idle(const Session& s, const IdleOptions& o) {
  Report r = WithImportWarnings(s);
  mlprof::IdleOptions io;
  io.kernel_wait_threshold = static_cast<Ps>(o.kernel_wait_us) * kPsPerUs;
  auto idle = ComputeIdleBreakdown(s.view, io);
  r.tables.push_back(IdleTable(idle));
  if (o.intervals) r.tables.push_back(IdleStatsTable(idle));
  return r;
}

}  // namespace mlprof::app
