#include "io/sqlite_db.h"

#include <fmt/format.h>

namespace mlprof {

Status SqliteFile::Open(LoadedFile& f) {
  path_ = f.path;
  size_ = f.bytes.size();
  if (sqlite3_open_v2(":memory:", &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK)
    return Internal(fmt::format("{}: SQLite could not open an in-memory database", f.path));
  // The loaded bytes, read in place (never written: READONLY).
  auto* data = reinterpret_cast<unsigned char*>(f.bytes.data());
  const auto n = static_cast<sqlite3_int64>(f.bytes.size());
  // A database in WAL mode (header bytes 18 and 19 = 2) cannot be opened
  // from memory: SQLite would look for its -wal file. Our copy of the bytes
  // is private (a copy-on-write mapping or a buffer), so it is marked a
  // rollback-journal database instead; what a -wal file beside it holds
  // (transactions not yet checkpointed) is not read, and said so.
  if (n >= 100 && data[18] == 2 && data[19] == 2) {
    data[18] = data[19] = 1;
    wal_ = true;
  }
  if (sqlite3_deserialize(db_, "main", data, n, n, SQLITE_DESERIALIZE_READONLY) != SQLITE_OK)
    return DataLoss(fmt::format("{}: SQLite cannot read this database: {}", f.path, sqlite3_errmsg(db_)));
  SqliteStmt s(db_, "SELECT name FROM sqlite_master WHERE type = 'table'");
  if (!s.ok()) return Corrupt("the table list");
  while (s.Next()) tables_.insert(std::string(s.Text(0)));
  if (!s.done()) return Corrupt("the table list");
  return OkStatus();
}

std::set<std::string> SqliteFile::Columns(const std::string& table) const {
  std::set<std::string> out;
  SqliteStmt s(db_, "PRAGMA table_info(\"" + table + "\")");
  while (s.ok() && s.Next()) out.insert(std::string(s.Text(1)));
  return out;
}

Status SqliteFile::Corrupt(std::string_view what) const {
  return DataLoss(fmt::format("{}: SQLite error reading {} ({}): the file is damaged or truncated ({} bytes)", path_,
                              what, db_ ? sqlite3_errmsg(db_) : "not open", size_));
}

}  // namespace mlprof
