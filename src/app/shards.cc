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
// Where each of `part`'s columns is among `shape`'s (in order), or empty
// when they are not a subsequence of them.
std::vector<size_t> ColumnsWithin(const Table& part, const Table& shape) {
  std::vector<size_t> at;
  size_t j = 0;
  for (const Column& c : part.columns) {
    while (j < shape.columns.size() && shape.columns[j].name != c.name) ++j;
    if (j == shape.columns.size()) return {};
    at.push_back(j++);
  }
  return at;
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
  // Columns some ranks give and others do not (a device column where a rank
  // drives several devices; FLOPs where some rank's ops are costed): the
  // widest part's, the others' rows padded with nulls.
  const Table* shape = parts.front();
  for (const Table* t : parts)
    if (t->columns.size() > shape->columns.size()) shape = t;
  Table out = *shape;
  out.rows.clear();
  out.notes.clear();
  if (HasDeviceColumn(out) && std::find(shape->notes.begin(), shape->notes.end(), kPerDeviceNote) != shape->notes.end())
    out.notes.push_back(kPerDeviceNote);
  struct R {
    int64_t rank;
    const std::vector<Cell>* row;
    const std::vector<size_t>* at;  // where its cells go (null: as they are)
  };
  std::vector<R> rows;
  std::vector<std::vector<size_t>> places;
  places.reserve(parts.size());
  size_t hidden = 0;
  bool hidden_noted = false;
  for (const Table* t : parts) {
    const std::vector<size_t>* at = nullptr;
    if (t->columns.size() != out.columns.size()) {
      places.push_back(ColumnsWithin(*t, out));
      if (places.back().empty())
        return Unimplemented(fmt::format(
            "table '{}': the processes' shares of the ranks give it different columns; run this job without MPI", id));
      at = &places.back();
    } else {
      for (size_t c = 0; c < out.columns.size(); ++c)
        if (t->columns[c].name != out.columns[c].name)
          return Unimplemented(fmt::format(
              "table '{}': the processes' shares of the ranks give it different columns; run this job without MPI",
              id));
    }
    for (const auto& row : t->rows) rows.push_back({IntAt(row, 0), &row, at});
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
    if (!r.at) {
      out.rows.push_back(*r.row);
      continue;
    }
    std::vector<Cell> row(out.columns.size(), Cell::Null());
    for (size_t c = 0; c < r.row->size() && c < r.at->size(); ++c) row[(*r.at)[c]] = (*r.row)[c];
    out.rows.push_back(std::move(row));
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
