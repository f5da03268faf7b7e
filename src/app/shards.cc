#include "app/shards.h"

#include <fmt/format.h>

#include <algorithm>

#include "report/columns.h"
#include "report/tables.h"

namespace mlprof::app {

StatusOr<Report> RunSharded(const Session& s, const Sharded& c) {
  ASSIGN_OR_RETURN(Report shard, c.shard(s));
  std::vector<Report> shards;
  shards.push_back(std::move(shard));
  return c.combine(std::move(shards));
}

StatusOr<Report> RunSharded(const Session& base, const Session& neu, const PairSharded& c) {
  ASSIGN_OR_RETURN(Report shard, c.shard(base, neu));
  std::vector<Report> shards;
  shards.push_back(std::move(shard));
  return c.combine(std::move(shards));
}

namespace {
// ImportWarnings' order: the job's notes, skipped files (file order), each
// rank's sidecar warnings, each rank's import counts, then --hta-rounding
// refusals and the commands' own per-rank warnings.
enum WarningGroup : int64_t { kJobNotes, kSkipped, kSidecar, kImportStats, kRounding, kRankExtra, kGroups };

void AddWarning(Table& t, int64_t group, int64_t rank, std::string text) {
  t.rows.push_back({Cell::Int(group), Cell::Int(rank), Cell::Text(std::move(text))});
}
}  // namespace

Table WarningsShard(const Session& s, std::string id) {
  Table t(std::move(id), "");
  t.Add(Key("group", Unit::kId, "")).Add(Key("rank", Unit::kId, "")).Add(Measure("text", Unit::kText, ""));
  const Profile& p = s.profile;
  for (const auto& n : p.notes) AddWarning(t, kJobNotes, -1, n);
  for (const auto& n : p.skipped) AddWarning(t, kSkipped, -1, "skipped: " + n);
  for (const RankProfile& r : p.ranks) {
    for (std::string& w : RankImportWarnings(r)) AddWarning(t, kImportStats, r.rank_or(0), std::move(w));
    for (const auto& w : r.sidecar_warnings) AddWarning(t, kSidecar, r.rank_or(0), w);
  }
  for (const RankView& rv : s.view.ranks)
    if (rv.rounding_refused)
      AddWarning(t, kRounding, rv.rank,
                 rv.profile->path +
                     ": --hta-rounding not applied: the trace clock passes 2^53 us, where float64 microseconds (HTA's "
                     "arithmetic) no longer hold every whole microsecond; times are exact");
  return t;
}

void AddRankWarning(Table& warnings, int64_t rank, std::string text) {
  AddWarning(warnings, kRankExtra, rank, std::move(text));
}

std::vector<std::string> CombineWarnings(const std::vector<Report>& shards, std::string_view id) {
  struct W {
    int64_t group, rank;
    size_t order;
    const std::string* text;
  };
  std::vector<W> all;
  for (const Table* t : TablesWithId(shards, id))
    for (const auto& row : t->rows) all.push_back({IntAt(row, 0), IntAt(row, 1), all.size(), &TextAt(row, 2)});
  // Job notes come from the first process only (each process finds the same).
  std::stable_sort(all.begin(), all.end(), [](const W& a, const W& b) {
    if (a.group != b.group) return a.group < b.group;
    // Skipped files keep process (file) order; per-rank groups go by rank.
    if (a.group >= kSidecar && a.rank != b.rank) return a.rank < b.rank;
    return a.order < b.order;
  });
  std::vector<std::string> out;
  for (const W& w : all) out.push_back(*w.text);
  return out;
}

std::vector<const Table*> TablesWithId(const std::vector<Report>& shards, std::string_view id) {
  std::vector<const Table*> out;
  for (const Report& r : shards)
    for (const Table& t : r.tables)
      if (t.id == id) {
        out.push_back(&t);
        break;
      }
  return out;
}

namespace {
bool HasDeviceColumn(const Table& t) { return t.columns.size() > 1 && t.columns[1].name == "device"; }
bool SameColumns(const Table& a, const Table& b) {
  if (a.columns.size() != b.columns.size()) return false;
  for (size_t c = 0; c < a.columns.size(); ++c)
    if (a.columns[c].name != b.columns[c].name) return false;
  return true;
}
}  // namespace

StatusOr<Table> ConcatByRank(const std::vector<Report>& shards, std::string_view id) {
  std::vector<const Table*> parts = TablesWithId(shards, id);
  if (parts.empty()) return NotFound(fmt::format("no shard has table '{}'", id));
  // A shard without rows for it (a process whose ranks have none) adds
  // nothing, not even its columns.
  std::vector<const Table*> with_rows;
  for (const Table* t : parts)
    if (!t->rows.empty()) with_rows.push_back(t);
  if (!with_rows.empty()) parts = std::move(with_rows);
  // A table with a row per device where a rank drives several: its columns
  // (and its note first) when any part has them.
  const Table* shape = parts.front();
  for (const Table* t : parts)
    if (HasDeviceColumn(*t) && !HasDeviceColumn(*shape)) shape = t;
  Table out = *shape;
  out.rows.clear();
  out.notes.clear();
  const bool per_device = HasDeviceColumn(out);
  if (per_device && std::find(shape->notes.begin(), shape->notes.end(), kPerDeviceNote) != shape->notes.end())
    out.notes.push_back(kPerDeviceNote);
  struct R {
    int64_t rank;
    const std::vector<Cell>* row;
    bool pad;  // a part without the device column
  };
  std::vector<R> rows;
  size_t hidden = 0;
  bool hidden_noted = false;
  for (const Table* t : parts) {
    bool pad = false;
    if (!SameColumns(*t, out)) {
      Table padded = *t;
      if (per_device && !HasDeviceColumn(*t)) padded.columns.insert(padded.columns.begin() + 1, out.columns[1]);
      if (!SameColumns(padded, out))
        return Unimplemented(fmt::format(
            "table '{}': the processes' shares of the ranks give it different columns; run this job without MPI", id));
      pad = true;
    }
    for (const auto& row : t->rows) rows.push_back({IntAt(row, 0), &row, pad});
    // Notes in first-seen order; --top's "N more rows" summed, where first seen.
    for (const std::string& n : t->notes) {
      if (const size_t h = HiddenRowsIn(n)) {
        hidden += h;
        if (!hidden_noted) out.notes.push_back(""), hidden_noted = true;
      } else if (std::find(out.notes.begin(), out.notes.end(), n) == out.notes.end()) {
        out.notes.push_back(n);
      }
    }
  }
  for (std::string& n : out.notes)
    if (n.empty()) n = HiddenRowsNote(hidden);
  std::stable_sort(rows.begin(), rows.end(), [](const R& a, const R& b) { return a.rank < b.rank; });
  out.rows.reserve(rows.size());
  for (const R& r : rows) {
    out.rows.push_back(*r.row);
    if (r.pad) out.rows.back().insert(out.rows.back().begin() + 1, Cell::Null());
  }
  return out;
}

std::vector<std::string> ShownTableIds(const std::vector<Report>& shards) {
  std::vector<std::string> order;
  for (const Report& r : shards) {
    size_t at = 0;  // where this shard's next new id goes
    for (const Table& t : r.tables) {
      if (!t.id.empty() && t.id.front() == '_') continue;
      const auto it = std::find(order.begin(), order.end(), t.id);
      if (it != order.end()) {
        at = static_cast<size_t>(it - order.begin()) + 1;
      } else {
        order.insert(order.begin() + static_cast<std::ptrdiff_t>(at), t.id);
        ++at;
      }
    }
  }
  return order;
}

Sharded PerRankSharded(std::function<Report(const Session&)> analyse,
                       std::function<Status(Report&, const std::vector<Report>&)> finish) {
  Sharded c;
  c.shard = [analyse](const Session& s) -> StatusOr<Report> {
    Report r = analyse(s);
    // Its warnings are the import warnings, which the combine orders as one
    // process orders them.
    r.warnings.clear();
    r.tables.push_back(WarningsShard(s));
    return r;
  };
  c.combine = [finish](std::vector<Report> shards) -> StatusOr<Report> {
    Report r;
    r.warnings = CombineWarnings(shards);
    for (const std::string& id : ShownTableIds(shards)) {
      ASSIGN_OR_RETURN(Table t, ConcatByRank(shards, id));
      r.tables.push_back(std::move(t));
    }
    if (finish) RETURN_IF_ERROR(finish(r, shards));
    return r;
  };
  return c;
}

int64_t IntAt(const std::vector<Cell>& row, size_t col) {
  if (col >= row.size()) return 0;
  const auto* v = std::get_if<int64_t>(&row[col].value);
  return v ? *v : 0;
}
double RealAt(const std::vector<Cell>& row, size_t col) {
  if (col >= row.size()) return 0;
  if (const auto* v = std::get_if<double>(&row[col].value)) return *v;
  if (const auto* v = std::get_if<int64_t>(&row[col].value)) return static_cast<double>(*v);
  return 0;
}
const std::string& TextAt(const std::vector<Cell>& row, size_t col) {
  static const std::string kEmpty;
  if (col >= row.size()) return kEmpty;
  const auto* v = std::get_if<std::string>(&row[col].value);
  return v ? *v : kEmpty;
}

}  // namespace mlprof::app
