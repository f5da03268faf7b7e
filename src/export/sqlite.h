// SQL over the trace: the model loaded into SQLite under Perfetto's table
// and column names, so that queries written for trace_processor run as they
// are: slice, track (with the thread_track, process_track and counter_track
// views), thread, process, args, counter, flow. Times are nanoseconds on the
// traces' own clock, as in the Perfetto export; an op's args are under
// "debug.<name>" as trace_processor shows debug annotations.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/profile.h"
#include "report/table.h"

struct sqlite3;

namespace mlprof {

struct SqliteStats {
  uint64_t slices = 0, args = 0, tracks = 0, threads = 0, processes = 0, counters = 0, flows = 0;
  uint64_t rows() const { return slices + args + tracks + threads + processes + counters + flows; }
};

// Which tables to fill (all are created): a query that names only `slice`
// need not wait for the args.
struct SqliteTables {
  bool slices = true, args = true, flows = true, counters = true;
  bool track_index = true;  // index slice(track_id): the query joins tracks
  bool typed = true;        // mlprof's own tables (mlprof_*; the app layer adds them: AddTypedTables)
  // `slice` as a virtual table over the model (no copy): for one query
  // (`mlprof sql`); a file written with it would hold no slices.
  bool slice_view = false;
  // The tables a query names (whole words, any case); all when it names none.
  static SqliteTables For(std::string_view query);
};

// Creates the tables in `db` and fills them (one transaction).
StatusOr<SqliteStats> LoadIntoSqlite(const Profile& p, sqlite3* db, const SqliteTables& which = {});

// mlprof's own tables (the typed tables of its commands) as SQLite tables
// named mlprof_<table id>, columns named as CSV names them (with the unit:
// sum_ps, bytes_per_s), cells the raw values; and mlprof_tables, the
// catalog: one row per column (table, title, column, unit, role,
// description). Each table once (the first Report that has it); one
// transaction of its own (after LoadIntoSqlite has committed).
Status AddTypedTables(sqlite3* db, const std::vector<const Report*>& reports);

// mlprof's own tables for a file or a query: computed only when asked
// (they cost analyses); nullopt when they could not be made.
using TypedReportsFn = std::function<std::optional<std::vector<const Report*>>()>;

// The SQLite database file `path` (an existing one only with `force`),
// written under a temporary name and renamed into place when complete
// (base/atomic_file.h): the trace tables, then mlprof's own (`typed`; none
// when null).
StatusOr<SqliteStats> WriteSqliteFile(const Profile& p, const std::string& path, bool force,
                                      const TypedReportsFn& typed);

// One SQL statement over an in-memory database holding the tables it names
// (mlprof's own only when it names one). Cells as SQLite returns them:
// integers, reals, NULL, text (made valid UTF-8) and blobs as upper-case hex.
struct SqlQueryResult {
  std::vector<std::string> columns;
  std::vector<bool> numeric;  // per column: no text or blob value in it
  std::vector<std::vector<Cell>> rows;
};
StatusOr<SqlQueryResult> RunSqlQuery(const Profile& p, const std::string& query, const TypedReportsFn& typed);

// The schema, for --help and the docs: one line per table.
const char* SqliteSchemaText();

}  // namespace mlprof
