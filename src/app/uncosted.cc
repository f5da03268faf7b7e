// the warnings about ops the cost model could not cost (roofline, ops --flops, mfu).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "analysis/ops.h"
#include "app/command_parts.h"
#include "app/commands.h"
#include "app/shards.h"
#include "report/columns.h"

namespace mlprof::app {

namespace {
std::string CallsList(const std::vector<std::pair<std::string, int64_t>>& ops) {
  std::string list;
  for (const auto& [name, n] : ops) list += fmt::format("{}{} ({} calls)", list.empty() ? "" : ", ", name, n);
  return list;
}
}  // namespace

Table UncostedShard(const ProfileView& v) {
  Table t("_uncosted", "");
  t.Add(Key("why", Unit::kId, "")).Add(Key("op", Unit::kText, "")).Add(Count("calls", ""));
  for (const auto& [name, n] : CostableOpsWithoutShapes(v))
    t.rows.push_back({Cell::Int(0), Cell::Text(name), Cell::Int(n)});
  for (const auto& [name, n] : ConvolutionsWithoutStride(v))
    t.rows.push_back({Cell::Int(1), Cell::Text(name), Cell::Int(n)});
  return t;
}

std::vector<std::string> UncostedWarnings(const std::vector<Report>& shards) {
  std::map<std::string, int64_t> by[2];
  for (const Table* t : TablesWithId(shards, "_uncosted"))
    for (const auto& row : t->rows) by[IntAt(row, 0) != 0][TextAt(row, 1)] += IntAt(row, 2);
  return UncostedWarnings({by[0].begin(), by[0].end()}, {by[1].begin(), by[1].end()});
}

std::vector<std::string> UncostedWarnings(const std::vector<std::pair<std::string, int64_t>>& without_shapes,
                                          const std::vector<std::pair<std::string, int64_t>>& without_stride) {
  std::vector<std::string> out;
  const std::string no_shapes = CallsList(without_shapes);
  if (!no_shapes.empty())
    out.push_back(
        fmt::format("no input shapes for {}: their FLOPs cannot be computed; record the trace with "
                    "torch.profiler.profile(record_shapes=True)",
                    no_shapes));
  const std::string no_stride = CallsList(without_stride);
  if (!no_stride.empty())
    out.push_back(fmt::format(
        "not costed, stride unknown: {}: the trace records no stride, padding or dilation (torch 1.13 writes \"\", "
        "or no Concrete Inputs), and assuming stride 1 could be 4x wrong",
        no_stride));
  return out;
}

}  // namespace mlprof::app
