// mlprof overlap.
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

Report Overlap(const Session& s) {
  Report r = WithImportWarnings(s);
  r.tables.push_back(OverlapTable(ComputeOverlap(s.view)));
  return r;
}

// steps' shard: each XLA rank's two step tables (listed in `_xla_ranks`,
// in order), the ProfilerStep and serving tables of its ranks, and what the
// notes need over every rank.

}  // namespace mlprof::app
