// What several commands' shards share: the import warnings, the grade,
// kernel-type times (app/command_parts.h).
#include "app/command_parts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "analysis/gpu_time.h"
#include "analysis/grade.h"
#include "app/commands.h"
#include "app/shards.h"
#include "report/columns.h"
#include "report/diagnose_tables.h"
#include "report/gpu_tables.h"
#include "report/info_tables.h"

namespace mlprof::app {

Report WithImportWarnings(const Session& s) {
  Report r;
  r.warnings = ImportWarnings(s.profile);
  for (const RankView& rv : s.view.ranks)
    if (rv.rounding_refused)
      r.warnings.push_back(rv.profile->path +
                           ": --hta-rounding not applied: the trace clock passes 2^53 us, where float64 "
                           "microseconds (HTA's arithmetic) no longer hold every whole microsecond; times are exact");
  return r;
}

// The time each set of kernel types runs, summed over the shard's ranks
// (kernel_types is a share of the job's total: computed at the combine).
Table KernelTypeTimeShard(const KernelBreakdown& kb) {
  Table types("_kernel_type_time", "");
  types.Add(Key("mask", Unit::kId, "")).Add(Measure("time", Unit::kTime, ""));
  for (const KernelTypeShare& t : kb.types) types.rows.push_back({Cell::Int(t.mask), Cell::Int(t.time)});
  return types;
}
Table KernelTypeTableOfShards(const std::vector<Report>& shards) {
  std::map<int, Ps> by_mask;
  for (const Table* t : TablesWithId(shards, "_kernel_type_time"))
    for (const auto& row : t->rows) by_mask[static_cast<int>(IntAt(row, 0))] += IntAt(row, 1);
  KernelBreakdown types;
  types.types = KernelTypeShares(by_mask);
  return KernelTypeTable(types);
}

// Every selected rank's grade (analysis/grade.h), as a hidden table a
// combine can lead with.
Table GradeShard(const Session& s) {
  std::vector<GradeItem> items;
  for (const RankProfile& rank : s.profile.ranks)
    if (s.Selected(rank))
      for (GradeItem& g : GradeRank(rank, rank.rank_or(0))) items.push_back(std::move(g));
  Table t = GradeTable(items);
  t.id = "_grade";
  return t;
}

Table FullGrade(const Session& s) {
  Table t = GradeShard(s);
  t.id = "grade";
  return t;
}

Table FullGrade(const std::vector<const Session*>& runs, const std::vector<std::string>& labels) {
  std::vector<Table> grades;
  for (const Session* s : runs) grades.push_back(FullGrade(*s));
  return RunsGrade(grades, labels);
}

Table RunsGrade(const std::vector<Table>& grades, const std::vector<std::string>& labels) {
  Table t("grade", "");
  for (size_t k = 0; k < grades.size(); ++k) {
    const Table& one = grades[k];
    const std::string label = k < labels.size() ? labels[k] : std::to_string(k);
    if (k == 0) {
      t.title = one.title;
      t.Add(Key("run", Unit::kText, "the run (diff: base or new; compare: its path)"));
      for (const Column& c : one.columns) t.columns.push_back(c);
    }
    for (size_t i = 0; i < one.rows.size(); ++i) {
      std::vector<Cell> row{Cell::Text(label)};
      for (const Cell& c : one.rows[i]) row.push_back(c);
      t.rows.push_back(std::move(row));
      if (i < one.notes.size()) t.notes.push_back(label + ": " + one.notes[i]);
    }
  }
  return t;
}

// The grade's warnings and errors over every shard, as the table a command
// leads with (`mlprof info` shows every item); none when all is well.
StatusOr<std::optional<Table>> LeadingGrade(const std::vector<Report>& shards) {
  ASSIGN_OR_RETURN(Table all, ConcatByRank(shards, "_grade"));
  Table t = all;
  t.id = "grade";
  t.title = "Before the numbers: what the profile holds that they rest on (`mlprof info` lists every item)";
  t.rows.clear();
  t.notes.clear();
  for (size_t k = 0; k < all.rows.size(); ++k)
    if (TextAt(all.rows[k], 2) != "info") {
      t.rows.push_back(all.rows[k]);
      if (k < all.notes.size()) t.notes.push_back(all.notes[k]);
    }
  if (t.rows.empty()) return std::optional<Table>();
  return std::optional<Table>(std::move(t));
}

}  // namespace mlprof::app
