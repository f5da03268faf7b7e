// mlprof ops.
#include "analysis/ops.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "analysis/host_ops.h"
#include "app/command_parts.h"
#include "app/commands.h"
#include "app/shards.h"
#include "report/columns.h"
#include "report/ops_tables.h"

namespace mlprof::app {

Sharded OpsSharded(const OpsOptions& o) {
  return PerRankSharded(
      [o](const Session& s) {
        Report r;
        HostOpsOptions ho;
        ho.by_shape = !o.by_name;
        ho.stack_frames = o.by_stack;
        const std::vector<HostFlops> flops = ComputeHostFlops(s.view);
        r.tables.push_back(HostOpsTable(ComputeHostOps(s.view, ho), ho.by_shape, o.top, flops, ho.stack_frames));
        // The per-rank FLOP notes ("Rank N: ..."), put in rank order at the combine.
        Table rank_notes("_rank_notes", "");
        rank_notes.Add(RankKey()).Add(Measure("text", Unit::kText, ""));
        for (const HostFlops& f : flops)
          if (f.costed_calls > 0) {
            auto& notes = r.tables.front().notes;
            auto it = std::find_if(notes.begin(), notes.end(), [&](const std::string& n) {
              return n.starts_with(fmt::format("Rank {}: ", f.rank));
            });
            if (it != notes.end()) rank_notes.rows.push_back({Cell::Int(f.rank), Cell::Text(*it)}), notes.erase(it);
          }
        r.tables.push_back(std::move(rank_notes));
        bool any_stack = false, any_gpu = false;
        for (const auto& rv : s.view.ranks) {
          const OpTable& ops = rv.profile->ops;
          for (size_t i = 0; o.by_stack > 0 && i < ops.size() && !any_stack; ++i)
            any_stack = ops.stack_of(i) != 0 || ops.kind[i] == OpKind::kPythonFunction;
          any_gpu |= !rv.gpu.empty();
        }
        Table facts("_ops", "");
        facts.Add(Measure("any_stack", Unit::kCount, "")).Add(Measure("any_gpu", Unit::kCount, ""));
        facts.rows.push_back({Cell::Int(any_stack), Cell::Int(any_gpu)});
        r.tables.push_back(std::move(facts));
        r.tables.push_back(UncostedShard(s.view));
        if (any_gpu)
          r.tables.push_back(OpsTable(ComputeOpGpuTime(s.view, {!o.by_name}), o.top, SummarizeAttribution(s.view)));
        return r;
      },
      [o](Report& r, const std::vector<Report>& shards) {
        Table& host = r.tables.front();
        std::vector<std::pair<int64_t, std::string>> notes;
        for (const Table* t : TablesWithId(shards, "_rank_notes"))
          for (const auto& row : t->rows) notes.push_back({IntAt(row, 0), TextAt(row, 1)});
        std::stable_sort(notes.begin(), notes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (auto& [rank, text] : notes) host.notes.push_back(std::move(text));
        bool any_stack = false, any_gpu = false;
        for (const Table* t : TablesWithId(shards, "_ops"))
          any_stack |= IntAt(t->rows.at(0), 0) != 0, any_gpu |= IntAt(t->rows.at(0), 1) != 0;
        if (o.by_stack > 0 && !any_stack)
          r.warnings.push_back(
              "--by-stack: these traces record no Python stacks (no \"Call stack\" args, no python_function events); "
              "record with torch.profiler.profile(with_stack=True)");
        for (std::string& w : UncostedWarnings(shards)) r.warnings.push_back(std::move(w));
        if (!any_gpu) host.notes.push_back("No GPU work in these inputs: the GPU time per op is left out.");
        return OkStatus();
      });
}

Report Ops(const Session& s, const OpsOptions& o) { return RunShardedReport(s, OpsSharded(o)); }

}  // namespace mlprof::app
