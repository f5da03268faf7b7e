// mlprof modules.
#include "analysis/modules.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "app/command_parts.h"
#include "app/commands.h"
#include "app/shards.h"
#include "report/columns.h"
#include "report/module_tables.h"

namespace mlprof::app {

Sharded ModulesSharded(const TableOptions& o) {
  return PerRankSharded(
      [o](const Session& s) {
        Report r;
        const ModuleReport m = ComputeModules(s.view);
        Table facts("_modules", "");
        facts.Add(Key("table", Unit::kText, "")).Add(Count("hidden", ""));
        // Each table built first, then its count of rows left out.
        auto add = [&](auto build) {
          size_t hidden = 0;
          Table t = build(&hidden);
          facts.rows.push_back({Cell::Text(t.id), Cell::Int(static_cast<int64_t>(hidden))});
          r.tables.push_back(std::move(t));
        };
        add([&](size_t* h) { return ModuleTreeTable(m, o.top, h); });
        add([&](size_t* h) { return ModuleClassTable(m, o.top, h); });
        add([&](size_t* h) { return AnnotationTable(m, o.top, h); });
        if (!m.annotation_steps.empty()) add([&](size_t* h) { return AnnotationStepTable(m, o.top, h); });
        add([&](size_t* h) { return KernelLaunchersTable(m, o.top, h); });
        facts.rows.push_back({Cell::Text("_any_module"), Cell::Int(m.any_module)});
        facts.rows.push_back({Cell::Text("_any_annotation"), Cell::Int(!m.annotations.empty())});
        r.tables.push_back(std::move(facts));
        return r;
      },
      [o](Report& r, const std::vector<Report>& shards) {
        std::map<std::string, int64_t> sums;
        for (const Table* t : TablesWithId(shards, "_modules"))
          for (const auto& row : t->rows) {
            int64_t& v = sums[TextAt(row, 0)];
            v = TextAt(row, 0).starts_with("_any") ? std::max(v, IntAt(row, 1)) : v + IntAt(row, 1);
          }
        for (Table& t : r.tables) {
          auto hidden = static_cast<size_t>(sums[t.id]);
          if (o.top > 0 && t.rows.size() > static_cast<size_t>(o.top)) {
            hidden += t.rows.size() - static_cast<size_t>(o.top);
            t.rows.resize(static_cast<size_t>(o.top));
          }
          NoteHiddenRows(t, hidden);
          if (t.id == "module_tree")
            t.notes.push_back(sums["_any_module"]
                                  ? "(no module): GPU time launched outside every module frame: the backward pass "
                                    "(the autograd thread runs outside the frames), the optimizer, ops called outside "
                                    "the model."
                                  : "No nn.Module frames in these inputs: record with torch.profiler's with_stack=True "
                                    "(and with_modules=True) to have the module tree.");
          if (t.id == "annotations" && !sums["_any_annotation"])
            t.notes.push_back("No user annotations (record_function, gpu_user_annotation) in these inputs.");
        }
        return OkStatus();
      });
}

Report Modules(const Session& s, const TableOptions& o) { return RunShardedReport(s, ModulesSharded(o)); }

}  // namespace mlprof::app
