// mlprof scopes.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "analysis/xla.h"
#include "app/command_parts.h"
#include "app/commands.h"
#include "app/shards.h"
#include "report/columns.h"
#include "report/xla_tables.h"

namespace mlprof::app {

Sharded ScopesSharded(const ScopesOptions& o) {
  return PerRankSharded(
      [o](const Session& s) {
        Report r;
        for (const auto& rank : s.profile.ranks) {
          if (!s.Selected(rank) || rank.xla_ops.empty()) continue;
          XlaOps x = ResolveXlaOps(rank);
          XlaBreakdown b = BreakdownXla(rank, x);
          r.tables.push_back(XlaScopesTable(rank.rank_or(0), XlaScopes(rank, x, o.depth), b.total, o.top));
          MarkRankGroup(r, rank.rank_or(0), r.tables.size() - 1, 1);
        }
        return r;
      },
      [](Report& r, const std::vector<Report>&) {
        if (r.tables.empty())
          r.warnings.push_back(
              "no XLA ops in these inputs: `mlprof scopes` reads JAX/XLA profiles (*.xplane.pb, *.trace.json.gz); for "
              "PyTorch traces use `mlprof ops`");
        return OkStatus();
      });
}

Report Scopes(const Session& s, const ScopesOptions& o) { return RunShardedReport(s, ScopesSharded(o)); }

}  // namespace mlprof::app
