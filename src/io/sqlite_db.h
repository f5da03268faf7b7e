// An SQLite database read in place from loaded bytes (sqlite3_deserialize,
// read only), for the readers of SQLite-based formats (Nsight Systems
// exports, the Ascend profiler database): its table list, the columns of a
// table, and a statement wrapper.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "base/file_loader.h"
#include "base/status.h"

namespace mlprof {

class SqliteStmt {
 public:
  SqliteStmt(sqlite3* db, const std::string& sql) {
    rc_ = sqlite3_prepare_v2(db, sql.c_str(), -1, &s_, nullptr);
    prepared_ = rc_ == SQLITE_OK;
  }
  ~SqliteStmt() { sqlite3_finalize(s_); }
  SqliteStmt(const SqliteStmt&) = delete;
  SqliteStmt& operator=(const SqliteStmt&) = delete;
  bool ok() const { return prepared_; }
  bool Next() { return (rc_ = sqlite3_step(s_)) == SQLITE_ROW; }
  bool done() const { return rc_ == SQLITE_DONE; }
  int64_t Int(int i) const { return sqlite3_column_int64(s_, i); }
  double Real(int i) const { return sqlite3_column_double(s_, i); }
  bool Null(int i) const { return sqlite3_column_type(s_, i) == SQLITE_NULL; }
  bool IsText(int i) const { return sqlite3_column_type(s_, i) == SQLITE_TEXT; }
  std::string_view Text(int i) const {
    const unsigned char* p = sqlite3_column_text(s_, i);
    return p ? std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(s_, i)))
             : std::string_view();
  }

 private:
  sqlite3_stmt* s_ = nullptr;
  int rc_ = SQLITE_OK;
  bool prepared_ = false;
};

class SqliteFile {
 public:
  SqliteFile() = default;
  ~SqliteFile() {
    if (db_) sqlite3_close(db_);
  }
  SqliteFile(const SqliteFile&) = delete;
  SqliteFile& operator=(const SqliteFile&) = delete;

  // Opens `f`'s bytes (which must outlive this) and lists its tables.
  Status Open(LoadedFile& f);
  sqlite3* db() const { return db_; }
  const std::set<std::string>& tables() const { return tables_; }
  bool Has(const std::string& table) const { return tables_.count(table) > 0; }
  std::set<std::string> Columns(const std::string& table) const;
  // An SQLite error while reading `what`: the file is damaged or cut short.
  Status Corrupt(std::string_view what) const;
  // The file was in WAL mode: its own pages were read, a -wal file's not.
  bool wal() const { return wal_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  size_t size_ = 0;
  bool wal_ = false;
  std::set<std::string> tables_;
};

}  // namespace mlprof
