// mlprof layers.
#include "analysis/layers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "app/command_parts.h"
#include "app/commands.h"
#include "app/shards.h"
#include "report/columns.h"
#include "report/step_tables.h"

namespace mlprof::app {

Report Layers(const Session& s, int warmup) {
  Report r = WithImportWarnings(s);
  const LayerReport lr = ComputeLayers(s.view, warmup);
  r.tables.push_back(PhasesTable(lr));
  r.tables.push_back(LayersTable(lr));
  r.tables.push_back(BlockTable(lr));
  r.tables.push_back(KernelBlocksTable(lr));
  r.tables.push_back(KernelBlockPartsTable(lr));
  bool xla = false;
  for (const RankView& rv : s.view.ranks) xla = xla || !rv.profile->xla_ops.empty();
  if (xla)
    r.tables.front().notes.push_back(
        "XLA profiles: `mlprof summary` splits device time by forward, backward, remat and optimizer, and "
        "`mlprof scopes` by named scope.");
  return r;
}

}  // namespace mlprof::app
