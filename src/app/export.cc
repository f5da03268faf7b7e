// mlprof export: the profile in other tools' formats.
#include <fmt/format.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "app/commands.h"
#include "export/perfetto.h"
#include "export/sqlite.h"
#include "report/columns.h"
#include "report/tables.h"

namespace mlprof::app {
namespace {

// Runs `write` on a temporary file beside `path` and renames it to `path`
// when it succeeds; removes it otherwise.
// An output path mlprof may write: not a directory; an existing file only
// with `force`.
Status CheckOutputPath(const std::string& path, bool force) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) return DataLoss(fmt::format("{}: is a directory; give a file name", path));
  if (!force && fs::exists(path, ec)) return InvalidArgument(fmt::format("{}: exists; --force overwrites it", path));
  return OkStatus();
}

std::string TempName(const std::string& path) { return fmt::format("{}.tmp-{}", path, ::getpid()); }

// Runs `write` on a temporary file beside `path` and renames it to `path`
// when it succeeds; removes it otherwise.
template <class Fn>
Status WriteAtomically(const std::string& path, bool force, Fn&& write) {
  RETURN_IF_ERROR(CheckOutputPath(path, force));
  const std::string tmp = TempName(path);
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return DataLoss(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
  Status st = write(f);
  if (std::fclose(f) != 0 && st.ok()) st = DataLoss(fmt::format("{}: write failed: {}", path, std::strerror(errno)));
  if (st.ok() && std::rename(tmp.c_str(), path.c_str()) != 0)
    st = DataLoss(fmt::format("{}: cannot rename the finished file into place: {}", path, std::strerror(errno)));
  if (!st.ok()) std::remove(tmp.c_str());
  return st;
}

}  // namespace

StatusOr<Report> Export(const Session& s, const ExportOptions& o) {
  if (o.perfetto.empty() && o.sqlite.empty())
    return InvalidArgument("export: say what to write: --perfetto FILE and/or --sqlite FILE");
  Report r;
  r.warnings = ImportWarnings(s.profile);
  Table t("export", "Written");
  t.Add(Key("file", Unit::kText, "the file written"))
      .Add(Text("format", "its format"))
      .Add(Measure("bytes", Unit::kBytes, "its size").Whole())
      .Add(Count("tracks", "tracks: threads, streams, XLA lines, overlap lanes (Perfetto), counters"))
      .Add(Count("slices", "ops written as slices (Perfetto: and instants)"))
      .Add(Count("flows", "flows from a launch to the GPU work it launched"))
      .Add(Count("counters", "counter values"))
      .Add(Count("rows", "SQLite: rows in all tables"));
  auto i64 = [](uint64_t v) { return Cell::Int(static_cast<int64_t>(v)); };
  if (!o.perfetto.empty()) {
    PerfettoStats stats;
    RETURN_IF_ERROR(WriteAtomically(o.perfetto, o.force, [&](std::FILE* f) -> Status {
      auto w = WritePerfetto(s.profile, f, o.perfetto);
      if (!w.ok()) return w.status();
      stats = *w;
      return OkStatus();
    }));
    t.rows.push_back({Cell::Text(o.perfetto), Cell::Text("perfetto"), i64(stats.bytes), i64(stats.tracks),
                      i64(stats.slices + stats.instants), i64(stats.flows), i64(stats.counters), Cell::Null()});
    t.notes.push_back(
        "Open the Perfetto trace at ui.perfetto.dev (Open trace file), or query it with trace_processor.");
  }
  if (!o.sqlite.empty()) {
    SqliteStats stats;
    RETURN_IF_ERROR(CheckOutputPath(o.sqlite, o.force));
    // SQLite writes the file itself: built under a temporary name, renamed
    // into place when complete.
    const std::string tmp = TempName(o.sqlite);
    std::remove(tmp.c_str());
    sqlite3* db = nullptr;
    if (sqlite3_open(tmp.c_str(), &db) != SQLITE_OK) {
      const std::string m = db ? sqlite3_errmsg(db) : "out of memory";
      sqlite3_close(db);
      std::remove(tmp.c_str());
      return DataLoss(fmt::format("{}: cannot write: {}", o.sqlite, m));
    }
    auto loaded = LoadIntoSqlite(s.profile, db);
    sqlite3_close(db);
    if (!loaded.ok() || std::rename(tmp.c_str(), o.sqlite.c_str()) != 0) {
      std::remove(tmp.c_str());
      return loaded.ok() ? DataLoss(fmt::format("{}: cannot rename the finished file into place", o.sqlite))
                         : loaded.status();
    }
    stats = *loaded;
    std::error_code ec;
    const auto size = std::filesystem::file_size(o.sqlite, ec);
    t.rows.push_back({Cell::Text(o.sqlite), Cell::Text("sqlite"), ec ? Cell::Null() : i64(size), i64(stats.tracks),
                      i64(stats.slices), i64(stats.flows), i64(stats.counters), i64(stats.rows())});
    t.notes.push_back(
        "The SQLite file has Perfetto's tables (slice, track, thread, process, args, counter, flow; ts and dur in "
        "ns): `mlprof sql QUERY PATH` runs a query without writing it.");
  }
  r.tables.push_back(std::move(t));
  return r;
}

StatusOr<Report> Sql(const Session& s, const std::string& query) {
  sqlite3* db = nullptr;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
    sqlite3_close(db);
    return Internal("SQLite: cannot open an in-memory database");
  }
  auto loaded = LoadIntoSqlite(s.profile, db, SqliteTables::For(query));
  if (!loaded.ok()) {
    sqlite3_close(db);
    return loaded.status();
  }
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  if (sqlite3_prepare_v2(db, query.c_str(), static_cast<int>(query.size()), &stmt, &tail) != SQLITE_OK) {
    Status st =
        DataLoss(fmt::format("SQL error: {} (the tables: slice, track, thread_track, process_track, "
                             "counter_track, thread, process, args, counter, flow)",
                             sqlite3_errmsg(db)));
    sqlite3_close(db);
    return st;
  }
  Report r;
  r.warnings = ImportWarnings(s.profile);
  const int n = sqlite3_column_count(stmt);
  std::vector<std::string> names;
  for (int c = 0; c < n; ++c) names.emplace_back(sqlite3_column_name(stmt, c));
  std::vector<bool> numeric(static_cast<size_t>(n), true);
  std::vector<std::vector<Cell>> rows;
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    std::vector<Cell> row;
    for (int c = 0; c < n; ++c) {
      switch (sqlite3_column_type(stmt, c)) {
        case SQLITE_INTEGER:
          row.push_back(Cell::Int(sqlite3_column_int64(stmt, c)));
          break;
        case SQLITE_FLOAT:
          row.push_back(Cell::Real(sqlite3_column_double(stmt, c)));
          break;
        case SQLITE_NULL:
          row.push_back(Cell::Null());
          break;
        default:
          numeric[static_cast<size_t>(c)] = false;
          row.push_back(Cell::Text(std::string_view(reinterpret_cast<const char*>(sqlite3_column_text(stmt, c)),
                                                    static_cast<size_t>(sqlite3_column_bytes(stmt, c)))));
      }
    }
    rows.push_back(std::move(row));
  }
  Status st = OkStatus();
  if (rc != SQLITE_DONE) st = DataLoss(fmt::format("SQL error: {}", sqlite3_errmsg(db)));
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  RETURN_IF_ERROR(st);
  Table t("query", "");
  for (int c = 0; c < n; ++c) {
    const std::string& name = names[static_cast<size_t>(c)];
    if (numeric[static_cast<size_t>(c)]) {
      t.Add(Measure(name, Unit::kRatio, "a number the query returned"));
    } else {
      // A column with text turns its numbers into text too (SQLite's types
      // are per value; a table column has one).
      t.Add(Text(name, "a value the query returned"));
      for (auto& row : rows) {
        Cell& cell = row[static_cast<size_t>(c)];
        if (const auto* i = std::get_if<int64_t>(&cell.value)) cell = Cell::Text(std::to_string(*i));
        if (const auto* d = std::get_if<double>(&cell.value)) cell = Cell::Text(fmt::format("{}", *d));
      }
    }
  }
  t.rows = std::move(rows);
  r.tables.push_back(std::move(t));
  return r;
}

}  // namespace mlprof::app
