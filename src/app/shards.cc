#include "app/shards.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "report/columns.h"
#include "report/gpu_tables.h"
#include "report/info_tables.h"

namespace mlprof::app {

StatusOr<Report> RunSharded(const Session& s, const Sharded& c) {
  ASSIGN_OR_RETURN(Report shard, c.shard(s));
  std::vector<Report> shards;
  shards.push_back(std::move(shard));
  return c.combine(std::move(shards));
}

Report RunShardedReport(const Session& s, const Sharded& c) {
  StatusOr<Report> r = RunSharded(s, c);
  return r.ok() ? std::move(*r) : Report{};
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

Table WarningsShard(const Session& s, std::string id, bool with_rounding) {
  Table t(std::move(id), "");
  t.Add(Key("group", Unit::kId, "")).Add(Key("rank", Unit::kId, "")).Add(Measure("text", Unit::kText, ""));
  const Profile& p = s.profile;
  for (const auto& n : p.notes) AddWarning(t, kJobNotes, -1, n);
  for (const auto& n : p.skipped) AddWarning(t, kSkipped, -1, "skipped: " + n);
  for (const RankProfile& r : p.ranks) {
    for (std::string& w : RankImportWarnings(r)) AddWarning(t, kImportStats, r.rank_or(0), std::move(w));
    for (const auto& w : r.sidecar_warnings) AddWarning(t, kSidecar, r.rank_or(0), w);
  }
  if (with_rounding)
    for (const RankView& rv : s.view.ranks)
      if (rv.rounding_refused)
        AddWarning(
            t, kRounding, rv.rank,
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
// The rank a note is about ("rank 3: ...", "Rank 3 GPU 0: ..."), or -1.
int64_t RankOfNote(const std::string& n) {
  if (!(n.starts_with("rank ") || n.starts_with("Rank "))) return -1;
  size_t i = 5;
  int64_t r = 0;
  while (i < n.size() && n[i] >= '0' && n[i] <= '9' && r < (int64_t{1} << 40)) r = r * 10 + (n[i++] - '0');
  return i > 5 && i < n.size() && (n[i] == ':' || n[i] == ' ') ? r : -1;
}

// The parts' notes as one process orders them: `first` (notes already
// placed), the notes before any rank's note, the notes about one rank in
// rank order, then the rest, each once. A note no part shows beside a
// rank's note goes with the rest.
std::vector<std::string> MergeNotes(const std::vector<std::vector<std::string>>& parts,
                                    std::vector<std::string> first) {
  std::vector<std::string> lead, tail;
  std::vector<std::pair<int64_t, const std::string*>> by_rank;
  bool any_rank = false;
  for (const auto& notes : parts)
    for (const std::string& n : notes) any_rank |= RankOfNote(n) >= 0;
  auto add = [](std::vector<std::string>& v, const std::string& n) {
    if (std::find(v.begin(), v.end(), n) == v.end()) v.push_back(n);
  };
  if (!any_rank) {
    for (const auto& notes : parts)
      for (const std::string& n : notes) add(first, n);
    return first;
  }
  for (const auto& notes : parts) {
    bool seen_rank = false, has_rank = false;
    for (const std::string& n : notes) has_rank |= RankOfNote(n) >= 0;
    for (const std::string& n : notes) {
      const int64_t r = RankOfNote(n);
      if (r >= 0) {
        seen_rank = true;
        by_rank.push_back({r, &n});
      } else if (has_rank && !seen_rank) {
        add(lead, n);
      }
    }
  }
  for (const auto& notes : parts) {
    bool seen_rank = false, has_rank = false;
    for (const std::string& n : notes) has_rank |= RankOfNote(n) >= 0;
    for (const std::string& n : notes) {
      if (RankOfNote(n) >= 0)
        seen_rank = true;
      else if ((seen_rank || !has_rank) && std::find(lead.begin(), lead.end(), n) == lead.end())
        add(tail, n);
    }
  }
  std::stable_sort(by_rank.begin(), by_rank.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const std::string& n : lead) add(first, n);
  for (const auto& [r, n] : by_rank) add(first, *n);
  for (const std::string& n : tail) add(first, n);
  return first;
}
}  // namespace

StatusOr<Table> ConcatByRank(const std::vector<Report>& shards, std::string_view id) {
  std::vector<const Table*> all = TablesWithId(shards, id);
  if (all.empty()) return NotFound(fmt::format("no shard has table '{}'", id));
  // A shard without rows for it (a process whose ranks have none) adds
  // nothing but its notes about one rank ("rank N: ..."): not its columns,
  // nor notes saying the table is empty.
  std::vector<const Table*> parts;
  for (const Table* t : all)
    if (!t->rows.empty()) parts.push_back(t);
  const bool any_rows = !parts.empty();
  if (!any_rows) parts = all;
  // Columns some ranks give and others do not (a device column where a rank
  // drives several devices; FLOPs where some rank's ops are costed; each
  // rank's PMU counters): as one process makes them, the union in rank order
  // (the parts by their first rank), a device column second; each part's
  // cells go to their columns by name, the others are null.
  std::vector<const Table*> by_rank = parts;
  std::stable_sort(by_rank.begin(), by_rank.end(), [](const Table* a, const Table* b) {
    const int64_t ra = a->rows.empty() ? 0 : IntAt(a->rows.front(), 0);
    const int64_t rb = b->rows.empty() ? 0 : IntAt(b->rows.front(), 0);
    return ra < rb;
  });
  Table out = *by_rank.front();
  out.rows.clear();
  out.notes.clear();
  auto has = [&](const std::string& name) {
    return std::any_of(out.columns.begin(), out.columns.end(), [&](const Column& c) { return c.name == name; });
  };
  const Table* with_device = nullptr;
  for (const Table* t : by_rank) {
    if (HasDeviceColumn(*t) && !with_device) with_device = t;
    for (size_t c = 0; c < t->columns.size(); ++c) {
      if (has(t->columns[c].name)) continue;
      if (c == 1 && t->columns[c].name == "device")
        out.columns.insert(out.columns.begin() + 1, t->columns[c]);
      else
        out.columns.push_back(t->columns[c]);
    }
  }
  if (with_device &&
      std::find(with_device->notes.begin(), with_device->notes.end(), kPerDeviceNote) != with_device->notes.end())
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
  std::vector<std::vector<std::string>> note_parts;
  for (const Table* t : all) {
    const bool counted = !any_rows || !t->rows.empty();
    if (!counted) {
      // Only its notes about one rank.
      std::vector<std::string> notes;
      for (const std::string& n : t->notes)
        if (RankOfNote(n) >= 0) notes.push_back(n);
      note_parts.push_back(std::move(notes));
      continue;
    }
    const std::vector<size_t>* at = nullptr;
    bool same = t->columns.size() == out.columns.size();
    for (size_t c = 0; same && c < out.columns.size(); ++c) same = t->columns[c].name == out.columns[c].name;
    if (!same) {
      std::vector<size_t> place;
      for (const Column& col : t->columns) {
        size_t k = 0;
        while (k < out.columns.size() && out.columns[k].name != col.name) ++k;
        if (k == out.columns.size() || std::find(place.begin(), place.end(), k) != place.end())
          return Unimplemented(fmt::format(
              "table '{}': the processes' shares of the ranks give it columns that do not merge; run this job "
              "without MPI",
              id));
        place.push_back(k);
      }
      places.push_back(std::move(place));
      at = &places.back();
    }
    for (const auto& row : t->rows) rows.push_back({IntAt(row, 0), &row, at});
    // --top's "N more rows" summed (each rank's top is its own), in the place
    // of the first.
    std::vector<std::string> notes;
    for (const std::string& n : t->notes) {
      const size_t h = HiddenRowsIn(n);
      hidden += h;
      notes.push_back(h ? std::string() : n);
    }
    note_parts.push_back(std::move(notes));
  }
  std::vector<std::string> merged = MergeNotes(note_parts, out.notes);
  out.notes.clear();
  for (std::string& n : merged) out.notes.push_back(n.empty() ? HiddenRowsNote(hidden) : std::move(n));
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

Sharded PerRankSharded(std::function<StatusOr<Report>(const Session&)> analyse,
                       std::function<Status(Report&, const std::vector<Report>&)> finish) {
  Sharded c;
  c.shard = [analyse](const Session& s) -> StatusOr<Report> {
    ASSIGN_OR_RETURN(Report r, analyse(s));
    r.warnings.clear();
    Table warnings = WarningsShard(s);
    for (const Table& t : r.tables)
      if (t.id == "_rank_warnings")
        for (const auto& row : t.rows) AddRankWarning(warnings, IntAt(row, 0), TextAt(row, 1));
    r.tables.push_back(std::move(warnings));
    return r;
  };
  c.combine = [finish](std::vector<Report> shards) -> StatusOr<Report> {
    Report r;
    r.warnings = CombineWarnings(shards);
    // Per-rank groups of tables (MarkRankGroup) out of the shards, by rank.
    struct Group {
      int64_t rank;
      std::vector<Table> tables;
    };
    std::vector<Group> groups;
    std::optional<std::string> after;
    for (Report& shard : shards) {
      const Table* marks = nullptr;
      for (const Table& t : shard.tables)
        if (t.id == "_groups") marks = &t;
      if (!marks) continue;
      std::vector<bool> grouped(shard.tables.size(), false);
      for (const auto& row : marks->rows) {
        const auto first = static_cast<size_t>(IntAt(row, 1)), count = static_cast<size_t>(IntAt(row, 2));
        if (first > shard.tables.size() || count > shard.tables.size() - first)
          return DataLoss("a shard's table groups run past its tables");
        Group g{IntAt(row, 0), {}};
        for (size_t k = first; k < first + count; ++k) g.tables.push_back(shard.tables[k]), grouped[k] = true;
        groups.push_back(std::move(g));
        if (!after) after = TextAt(row, 3);
      }
      std::vector<Table> rest;
      for (size_t k = 0; k < shard.tables.size(); ++k)
        if (!grouped[k]) rest.push_back(std::move(shard.tables[k]));
      shard.tables = std::move(rest);
    }
    std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) { return a.rank < b.rank; });
    auto emit_groups = [&] {
      for (Group& g : groups)
        for (Table& t : g.tables) r.tables.push_back(std::move(t));
      groups.clear();
    };
    if (after && after->empty()) emit_groups();
    for (const std::string& id : ShownTableIds(shards)) {
      ASSIGN_OR_RETURN(Table t, ConcatByRank(shards, id));
      r.tables.push_back(std::move(t));
      if (after && *after == id) emit_groups();
    }
    emit_groups();
    if (finish) RETURN_IF_ERROR(finish(r, shards));
    return r;
  };
  return c;
}

void MarkRankGroup(Report& shard, int64_t rank, size_t first, size_t count) {
  Table* marks = nullptr;
  for (Table& t : shard.tables)
    if (t.id == "_groups") marks = &t;
  if (!marks) {
    Table t("_groups", "");
    t.Add(RankKey()).Add(Count("first", "")).Add(Count("count", "")).Add(Measure("after", Unit::kText, ""));
    shard.tables.push_back(std::move(t));
    marks = &shard.tables.back();
  }
  // The shown table before the group (none: the groups come first).
  std::string after;
  for (size_t k = first; k-- > 0;)
    if (!shard.tables[k].id.empty() && shard.tables[k].id.front() != '_') {
      after = shard.tables[k].id;
      break;
    }
  marks->rows.push_back({Cell::Int(rank), Cell::Int(static_cast<int64_t>(first)),
                         Cell::Int(static_cast<int64_t>(count)), Cell::Text(after)});
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
