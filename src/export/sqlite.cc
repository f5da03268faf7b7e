#include "export/sqlite.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "base/atomic_file.h"
#include "base/utf8.h"

namespace mlprof {
namespace {

// An op's args, declared once: each is a column of `slice` (NULL when the
// op has none) and a row of the `args` view ("debug.<name>", as
// trace_processor shows debug annotations). One row per slice instead of one
// per arg makes the export several times faster and the file half the size.
enum class ColType { kInt, kReal, kText };
struct SliceArg {
  enum { kNull, kInt, kReal, kText } kind = kNull;
  int64_t i = 0;
  double d = 0;
  std::string_view s;
};
struct ArgColumn {
  const char* name;
  ColType type;
  SliceArg (*get)(const RankProfile& r, size_t i);
};
SliceArg IntArg(int64_t v, bool present) { return present ? SliceArg{SliceArg::kInt, v, 0, {}} : SliceArg{}; }
SliceArg TextArg(const RankProfile& r, StringId v) {
  return v ? SliceArg{SliceArg::kText, 0, 0, r.str(v)} : SliceArg{};
}
// A float column's value as the double its shortest decimal form names
// (0.009259f, not 0.00925900042057037), so SQL compares it with the trace.
double AsWritten(float v) { return std::strtod(fmt::format("{}", v).c_str(), nullptr); }
const XlaOp* XlaOf(const RankProfile& r, size_t i) {
  return r.ops.xla[i] >= 0 ? &r.xla_ops[static_cast<size_t>(r.ops.xla[i])] : nullptr;
}
const ArgColumn kArgColumns[] = {
    {"correlation", ColType::kInt,
     [](const RankProfile& r, size_t i) { return IntArg(r.ops.correlation[i], r.ops.correlation[i] >= 0); }},
    {"external_id", ColType::kInt,
     [](const RankProfile& r, size_t i) { return IntArg(r.ops.external_id_of(i), r.ops.external_id_of(i) >= 0); }},
    {"input_dims", ColType::kText, [](const RankProfile& r, size_t i) { return TextArg(r, r.ops.input_dims_of(i)); }},
    {"input_types", ColType::kText, [](const RankProfile& r, size_t i) { return TextArg(r, r.ops.input_types_of(i)); }},
    {"concrete_inputs", ColType::kText,
     [](const RankProfile& r, size_t i) { return TextArg(r, r.ops.concrete_inputs_of(i)); }},
    {"collective", ColType::kText, [](const RankProfile& r, size_t i) { return TextArg(r, r.ops.comm_of(i)); }},
    {"call_stack", ColType::kText, [](const RankProfile& r, size_t i) { return TextArg(r, r.ops.stack_of(i)); }},
    {"grid", ColType::kText, [](const RankProfile& r, size_t i) { return TextArg(r, r.ops.grid_of(i)); }},
    {"block", ColType::kText,
     [](const RankProfile& r, size_t i) { return r.ops.block.empty() ? SliceArg{} : TextArg(r, r.ops.block[i]); }},
    {"blocks_per_sm", ColType::kReal,
     [](const RankProfile& r, size_t i) {
       const float v = r.ops.blocks_per_sm_of(i);
       return v >= 0 ? SliceArg{SliceArg::kReal, 0, AsWritten(v), {}} : SliceArg{};
     }},
    {"occupancy", ColType::kReal,
     [](const RankProfile& r, size_t i) {
       const float v = r.ops.occupancy_of(i);
       return v >= 0 ? SliceArg{SliceArg::kReal, 0, AsWritten(v), {}} : SliceArg{};
     }},
    {"bytes", ColType::kInt,
     [](const RankProfile& r, size_t i) { return IntArg(r.ops.bytes_of(i), r.ops.bytes_of(i) >= 0); }},
    {"step", ColType::kInt,
     [](const RankProfile& r, size_t i) {
       const int32_t s = r.ops.step[i];
       return IntArg(s >= 0 ? r.steps[static_cast<size_t>(s)].number : 0, s >= 0);
     }},
    {"hlo_op", ColType::kText,
     [](const RankProfile& r, size_t i) {
       const XlaOp* x = XlaOf(r, i);
       return x ? TextArg(r, x->hlo_op) : SliceArg{};
     }},
    {"hlo_module", ColType::kText,
     [](const RankProfile& r, size_t i) {
       const XlaOp* x = XlaOf(r, i);
       return x ? TextArg(r, x->module) : SliceArg{};
     }},
    {"hlo_category", ColType::kText,
     [](const RankProfile& r, size_t i) {
       const XlaOp* x = XlaOf(r, i);
       return x ? TextArg(r, x->category) : SliceArg{};
     }},
    {"long_name", ColType::kText,
     [](const RankProfile& r, size_t i) {
       const XlaOp* x = XlaOf(r, i);
       return x ? TextArg(r, x->expression) : SliceArg{};
     }},
    {"scope", ColType::kText,
     [](const RankProfile& r, size_t i) {
       const XlaOp* x = XlaOf(r, i);
       return x ? TextArg(r, x->tf_op) : SliceArg{};
     }},
    {"source", ColType::kText,
     [](const RankProfile& r, size_t i) {
       const XlaOp* x = XlaOf(r, i);
       return x ? TextArg(r, x->source) : SliceArg{};
     }},
    {"flops", ColType::kReal,
     [](const RankProfile& r, size_t i) {
       const XlaOp* x = XlaOf(r, i);
       return x && x->flops >= 0 ? SliceArg{SliceArg::kReal, 0, x->flops, {}} : SliceArg{};
     }},
    {"bytes_accessed", ColType::kReal,
     [](const RankProfile& r, size_t i) {
       const XlaOp* x = XlaOf(r, i);
       return x && x->bytes_accessed >= 0 ? SliceArg{SliceArg::kReal, 0, x->bytes_accessed, {}} : SliceArg{};
     }},
};
constexpr size_t kArgCount = sizeof(kArgColumns) / sizeof(kArgColumns[0]);
constexpr int kFirstArgColumn = 9;  // after Perfetto's slice columns
constexpr int kLaunchColumn = kFirstArgColumn + static_cast<int>(kArgCount);

// The slice id of the host call that launched op i (a GPU op), or -1.
int64_t LaunchOf(const OpTable& o, size_t i, int64_t slice_base) {
  return o.launch[i] >= 0 && IsGpuOp(o.kind[i]) ? slice_base + o.launch[i] : -1;
}

// `slice`'s columns: Perfetto's, then one per arg.
std::string SliceColumns() {
  std::string out =
      "id INTEGER PRIMARY KEY, ts INTEGER, dur INTEGER, track_id INTEGER, category TEXT, name TEXT, depth INTEGER, "
      "parent_id INTEGER, arg_set_id INTEGER";
  for (const ArgColumn& a : kArgColumns)
    out += fmt::format(", {} {}", a.name,
                       a.type == ColType::kInt    ? "INTEGER"
                       : a.type == ColType::kReal ? "REAL"
                                                  : "TEXT");
  // A GPU op's launching host call (the `flow` view's slice_out).
  return out + ", launch_id INTEGER";
}

// `args`: Perfetto's columns, a row per (slice, arg present): the slice's
// arg columns, then the trace's other args (slice_arg, keys in arg_key).
std::string ArgsView() {
  std::string out = "CREATE VIEW args AS\n";
  for (size_t k = 0; k < kArgCount; ++k) {
    const ArgColumn& a = kArgColumns[k];
    const char* n = a.name;
    out += fmt::format(
        "{}SELECT id AS arg_set_id, 'debug.{}' AS flat_key, 'debug.{}' AS key, {} AS int_value, {} AS string_value, "
        "{} AS real_value, CAST({} AS TEXT) AS display_value, '{}' AS value_type FROM slice WHERE {} IS NOT NULL\n",
        k ? "UNION ALL " : "", n, n, a.type == ColType::kInt ? n : "NULL", a.type == ColType::kText ? n : "NULL",
        a.type == ColType::kReal ? n : "NULL", n,
        a.type == ColType::kInt    ? "int"
        : a.type == ColType::kReal ? "real"
                                   : "string",
        n);
  }
  return out +
         "UNION ALL SELECT a.arg_set_id, 'debug.' || k.key, 'debug.' || k.key, a.int_value, a.string_value, "
         "a.real_value, COALESCE(a.string_value, CAST(a.int_value AS TEXT), CAST(a.real_value AS TEXT)), "
         "CASE WHEN a.int_value IS NOT NULL THEN 'int' WHEN a.real_value IS NOT NULL THEN 'real' ELSE 'string' END "
         "FROM slice_arg a JOIN arg_key k ON k.id = a.key_id;";
}

constexpr const char* kSchema = R"(
CREATE TABLE process(upid INTEGER PRIMARY KEY, pid INTEGER, name TEXT, rank INTEGER, path TEXT);
CREATE TABLE thread(utid INTEGER PRIMARY KEY, tid INTEGER, name TEXT, upid INTEGER);
CREATE TABLE track(id INTEGER PRIMARY KEY, name TEXT, type TEXT, parent_id INTEGER, upid INTEGER, utid INTEGER,
                   device INTEGER, stream INTEGER);
CREATE VIEW thread_track AS SELECT id, name, type, parent_id, utid FROM track WHERE type = 'thread';
CREATE VIEW process_track AS SELECT id, name, type, parent_id, upid FROM track WHERE type IN ('gpu_stream', 'other');
CREATE VIEW counter_track AS SELECT id, name, type, parent_id, upid FROM track WHERE type = 'counter';
CREATE TABLE counter(id INTEGER PRIMARY KEY, ts INTEGER, track_id INTEGER, value REAL);
CREATE TABLE arg_key(id INTEGER PRIMARY KEY, key TEXT);
CREATE TABLE slice_arg(arg_set_id INTEGER, n INTEGER, key_id INTEGER, int_value INTEGER, string_value TEXT,
                       real_value REAL, PRIMARY KEY(arg_set_id, n)) WITHOUT ROWID;
CREATE VIEW flow AS SELECT id AS id, launch_id AS slice_out, id AS slice_in FROM slice WHERE launch_id IS NOT NULL;
)";

class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) {
    ok_ = sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) == SQLITE_OK;
    if (!ok_) error_ = sqlite3_errmsg(db);
  }
  const std::string& error() const { return error_; }
  ~Stmt() { sqlite3_finalize(s_); }
  bool ok() const { return ok_; }
  void Int(int i, int64_t v) { sqlite3_bind_int64(s_, i, v); }
  void Real(int i, double v) { sqlite3_bind_double(s_, i, v); }
  // A view that outlives the Step (the string pool's strings, literals).
  void Text(int i, std::string_view v) {
    sqlite3_bind_text64(s_, i, v.data() ? v.data() : "", v.size(), SQLITE_STATIC, SQLITE_UTF8);
  }
  // A temporary: SQLite copies it.
  void TextCopy(int i, const std::string& v) {
    sqlite3_bind_text64(s_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  }
  void Null(int i) { sqlite3_bind_null(s_, i); }
  bool Step() {
    const int rc = sqlite3_step(s_);
    sqlite3_reset(s_);
    return rc == SQLITE_DONE;
  }

 private:
  sqlite3_stmt* s_ = nullptr;
  bool ok_ = false;
  std::string error_;
};

// Whether an op has an arg set (rows in `args`).
bool HasArgs(const RankProfile& r, size_t i) {
  for (const ArgColumn& a : kArgColumns)
    if (a.get(r, i).kind != SliceArg::kNull) return true;
  return !r.args.Of(ArgOwner::kOp, static_cast<uint32_t>(i)).empty();
}

// --- `slice` as a virtual table over the model ---------------------------------
// Row id = slice id = the op's rank base + its index; columns computed from
// the op columns as the bulk load writes them.
struct SliceModel {
  const Profile* p = nullptr;
  std::vector<int64_t> op_base, track_base;  // per rank; op_base has one more entry (the total)
  Ps128 shift = 0;
};
struct SliceVtab {
  sqlite3_vtab base;
  const SliceModel* m;
};
struct SliceCursor {
  sqlite3_vtab_cursor base;
  const SliceModel* m;
  int64_t id = 0, end = 0;
  size_t rank = 0;
};

int SliceConnect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**) {
  const int rc = sqlite3_declare_vtab(db, fmt::format("CREATE TABLE x({})", SliceColumns()).c_str());
  if (rc != SQLITE_OK) return rc;
  auto* v = new SliceVtab{};
  v->m = static_cast<const SliceModel*>(aux);
  *out = &v->base;
  return SQLITE_OK;
}
int SliceDisconnect(sqlite3_vtab* v) {
  delete reinterpret_cast<SliceVtab*>(v);
  return SQLITE_OK;
}
int SliceBestIndex(sqlite3_vtab* v, sqlite3_index_info* info) {
  const SliceModel* m = reinterpret_cast<SliceVtab*>(v)->m;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (c.usable && (c.iColumn == 0 || c.iColumn == -1) && c.op == SQLITE_INDEX_CONSTRAINT_EQ) {
      info->aConstraintUsage[i].argvIndex = 1;
      info->aConstraintUsage[i].omit = 1;
      info->idxNum = 1;
      info->estimatedCost = 1;
      info->estimatedRows = 1;
      info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
      return SQLITE_OK;
    }
  }
  info->idxNum = 0;
  info->estimatedCost = static_cast<double>(m->op_base.back()) + 1;
  info->estimatedRows = m->op_base.back();
  return SQLITE_OK;
}
int SliceOpen(sqlite3_vtab* v, sqlite3_vtab_cursor** out) {
  auto* c = new SliceCursor{};
  c->m = reinterpret_cast<SliceVtab*>(v)->m;
  *out = &c->base;
  return SQLITE_OK;
}
int SliceClose(sqlite3_vtab_cursor* c) {
  delete reinterpret_cast<SliceCursor*>(c);
  return SQLITE_OK;
}
int SliceFilter(sqlite3_vtab_cursor* cur, int idx, const char*, int argc, sqlite3_value** argv) {
  auto* c = reinterpret_cast<SliceCursor*>(cur);
  const int64_t total = c->m->op_base.back();
  c->id = 0, c->end = total;
  if (idx == 1 && argc == 1) {
    // An id compares as a number: 7.0 finds row 7, 7.5 none (as in the
    // bulk-loaded table's INTEGER PRIMARY KEY).
    const int type = sqlite3_value_numeric_type(argv[0]);
    const double as_real = sqlite3_value_double(argv[0]);
    const int64_t want = sqlite3_value_int64(argv[0]);
    const bool integral = type == SQLITE_INTEGER || (type == SQLITE_FLOAT && as_real == static_cast<double>(want) &&
                                                     as_real >= 0 && as_real < 9e18);
    const bool ok = integral && want >= 0 && want < total;
    c->id = ok ? want : 0;
    c->end = ok ? want + 1 : 0;
  }
  const auto& b = c->m->op_base;
  c->rank = static_cast<size_t>(std::upper_bound(b.begin(), b.end() - 1, c->id) - b.begin());
  c->rank = c->rank > 0 ? c->rank - 1 : 0;
  return SQLITE_OK;
}
int SliceNext(sqlite3_vtab_cursor* cur) {
  auto* c = reinterpret_cast<SliceCursor*>(cur);
  ++c->id;
  while (c->rank + 2 < c->m->op_base.size() && c->id >= c->m->op_base[c->rank + 1]) ++c->rank;
  return SQLITE_OK;
}
int SliceEof(sqlite3_vtab_cursor* cur) {
  return reinterpret_cast<SliceCursor*>(cur)->id >= reinterpret_cast<SliceCursor*>(cur)->end;
}
int SliceRowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  *out = reinterpret_cast<SliceCursor*>(cur)->id;
  return SQLITE_OK;
}
int SliceColumn(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
  auto* c = reinterpret_cast<SliceCursor*>(cur);
  const SliceModel& m = *c->m;
  const RankProfile& r = m.p->ranks[c->rank];
  const OpTable& o = r.ops;
  const auto i = static_cast<size_t>(c->id - m.op_base[c->rank]);
  auto text = [&](std::string_view s) {
    sqlite3_result_text64(ctx, s.data() ? s.data() : "", s.size(), SQLITE_STATIC, SQLITE_UTF8);
  };
  switch (col) {
    case 0:
      sqlite3_result_int64(ctx, c->id);
      break;
    case 1:
      sqlite3_result_int64(ctx, static_cast<int64_t>((r.origin_abs_ps + o.ts[i] + m.shift) / 1000));
      break;
    case 2:
      sqlite3_result_int64(ctx, o.dur[i] / 1000);
      break;
    case 3:
      sqlite3_result_int64(ctx, m.track_base[c->rank] + o.track[i]);
      break;
    case 4:
      if (o.cat[i])
        text(r.str(o.cat[i]));
      else
        sqlite3_result_null(ctx);
      break;
    case 5:
      text(r.str(o.name[i]));
      break;
    case 6:
      sqlite3_result_int64(ctx, o.depth[i]);
      break;
    case 7:
      if (o.parent[i] >= 0)
        sqlite3_result_int64(ctx, m.op_base[c->rank] + o.parent[i]);
      else
        sqlite3_result_null(ctx);
      break;
    case 8:
      if (HasArgs(r, i))
        sqlite3_result_int64(ctx, c->id);
      else
        sqlite3_result_null(ctx);
      break;
    default:
      if (col == kLaunchColumn) {
        const int64_t launch = LaunchOf(o, i, m.op_base[c->rank]);
        if (launch >= 0)
          sqlite3_result_int64(ctx, launch);
        else
          sqlite3_result_null(ctx);
      } else if (col >= kFirstArgColumn && col < kFirstArgColumn + static_cast<int>(kArgCount)) {
        const SliceArg v = kArgColumns[col - kFirstArgColumn].get(r, i);
        switch (v.kind) {
          case SliceArg::kInt:
            sqlite3_result_int64(ctx, v.i);
            break;
          case SliceArg::kReal:
            sqlite3_result_double(ctx, v.d);
            break;
          case SliceArg::kText:
            text(v.s);
            break;
          default:
            sqlite3_result_null(ctx);
        }
      } else {
        sqlite3_result_null(ctx);
      }
  }
  return SQLITE_OK;
}

sqlite3_module MakeSliceModule() {
  sqlite3_module mod{};
  mod.iVersion = 1;
  mod.xCreate = SliceConnect;
  mod.xConnect = SliceConnect;
  mod.xBestIndex = SliceBestIndex;
  mod.xDisconnect = SliceDisconnect;
  mod.xDestroy = SliceDisconnect;
  mod.xOpen = SliceOpen;
  mod.xClose = SliceClose;
  mod.xFilter = SliceFilter;
  mod.xNext = SliceNext;
  mod.xEof = SliceEof;
  mod.xColumn = SliceColumn;
  mod.xRowid = SliceRowid;
  return mod;
}

Status Exec(sqlite3* db, const char* sql);

// An op's other args as slice_arg rows (keys interned in arg_key).
bool WriteOtherArgs(const RankProfile& r, std::span<const Arg> args, int64_t set, Stmt& slice_arg, Stmt& arg_key,
                    std::map<std::string, int64_t, std::less<>>& keys, SqliteStats& st) {
  int64_t n = 0;
  for (const Arg& a : args) {
    const std::string_view key = r.str(a.value.key);
    auto it = keys.find(key);
    if (it == keys.end()) {
      it = keys.emplace(std::string(key), static_cast<int64_t>(keys.size())).first;
      arg_key.Int(1, it->second), arg_key.Text(2, it->first);
      if (!arg_key.Step()) return false;
    }
    slice_arg.Int(1, set), slice_arg.Int(2, n++), slice_arg.Int(3, it->second);
    slice_arg.Null(4), slice_arg.Null(5), slice_arg.Null(6);
    switch (a.value.type) {
      case ArgType::kInt:
        slice_arg.Int(4, a.value.i);
        break;
      case ArgType::kReal:
        slice_arg.Real(6, a.value.r);
        break;
      case ArgType::kString:
        slice_arg.Text(5, r.str(a.value.s));
        break;
    }
    if (!slice_arg.Step()) return false;
    ++st.args;
  }
  return true;
}

// Registers the module (its model is freed with the database) and creates
// `slice` over it.
Status AddSliceTable(const Profile& p, sqlite3* db) {
  static const sqlite3_module kModule = MakeSliceModule();
  auto* m = new SliceModel;
  m->p = &p;
  int64_t ops = 0, tracks = 0;
  for (const RankProfile& r : p.ranks) {
    m->shift = std::max<Ps128>(m->shift, -r.origin_abs_ps);
    m->op_base.push_back(ops);
    m->track_base.push_back(tracks);
    ops += static_cast<int64_t>(r.ops.size());
    tracks += static_cast<int64_t>(r.tracks.size());
  }
  m->op_base.push_back(ops);
  if (sqlite3_create_module_v2(db, "mlprof_slice", &kModule, m, [](void* x) { delete static_cast<SliceModel*>(x); }) !=
      SQLITE_OK)
    return Internal(fmt::format("SQLite: {}", sqlite3_errmsg(db)));  // the module's destructor freed m
  return Exec(db, "CREATE VIRTUAL TABLE slice USING mlprof_slice;");
}

Status Exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string m = err ? err : "error";
    sqlite3_free(err);
    return Internal(fmt::format("SQLite: {}", m));
  }
  return OkStatus();
}

}  // namespace

Status AddTypedTables(sqlite3* db, const std::vector<const Report*>& reports) {
  RETURN_IF_ERROR(Exec(db, "BEGIN;"));  // one transaction (rolled back with the connection on error)
  RETURN_IF_ERROR(
      Exec(db,
           "CREATE TABLE mlprof_tables(table_name TEXT, title TEXT, column_name TEXT, unit TEXT, role TEXT, "
           "description TEXT);"));
  Stmt catalog(db, "INSERT INTO mlprof_tables VALUES(?,?,?,?,?,?)");
  if (!catalog.ok()) return Internal(fmt::format("SQLite: {}", catalog.error()));
  auto quote = [](std::string_view name) {  // an SQL identifier
    std::string q = "\"";
    for (char c : name) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  std::set<std::string> done;
  for (const Report* r : reports) {
    for (const Table& t : r->tables) {
      if (!done.insert(t.id).second) continue;
      const std::string name = "mlprof_" + t.id;
      std::string create = "CREATE TABLE " + quote(name) + "(";
      for (size_t c = 0; c < t.columns.size(); ++c) {
        const Column& col = t.columns[c];
        create += (c ? ", " : "") + quote(HeaderWithUnit(col)) + " " +
                  (col.unit == Unit::kText ? "TEXT"
                   : col.numeric()         ? "NUMERIC"
                                           : "");
        catalog.Text(1, name), catalog.Text(2, t.title), catalog.TextCopy(3, HeaderWithUnit(col));
        catalog.Text(4, UnitName(col.unit)), catalog.Text(5, col.role == Role::kKey ? "key" : "measure");
        catalog.Text(6, col.description);
        if (!catalog.Step()) return Internal(fmt::format("SQLite: {}", sqlite3_errmsg(db)));
      }
      RETURN_IF_ERROR(Exec(db, (create + ");").c_str()));
      std::string insert = "INSERT INTO " + quote(name) + " VALUES(";
      for (size_t c = 0; c < t.columns.size(); ++c) insert += c ? ",?" : "?";
      Stmt ins(db, (insert + ")").c_str());
      if (!ins.ok()) return Internal(fmt::format("SQLite: {}", ins.error()));
      for (const auto& row : t.rows) {
        for (size_t c = 0; c < t.columns.size(); ++c) {
          const int k = static_cast<int>(c) + 1;
          if (c >= row.size()) {
            ins.Null(k);
          } else if (const auto* i = std::get_if<int64_t>(&row[c].value)) {
            ins.Int(k, *i);
          } else if (const auto* d = std::get_if<double>(&row[c].value)) {
            if (std::isfinite(*d))
              ins.Real(k, *d);
            else
              ins.Null(k);
          } else if (const auto* s = std::get_if<std::string>(&row[c].value)) {
            ins.Text(k, *s);
          } else {
            ins.Null(k);
          }
        }
        if (!ins.Step()) return Internal(fmt::format("SQLite: {}", sqlite3_errmsg(db)));
      }
    }
  }
  return Exec(db, "COMMIT;");
}

const char* SqliteSchemaText() {
  static const std::string text = fmt::format("CREATE TABLE slice({});\n{}{}\n", SliceColumns(), kSchema, ArgsView());
  return text.c_str();
}

SqliteTables SqliteTables::For(std::string_view query) {
  auto names = [&](std::string_view word) {
    for (size_t i = 0; i + word.size() <= query.size(); ++i) {
      bool match = true;
      for (size_t k = 0; k < word.size() && match; ++k)
        match = std::tolower(static_cast<unsigned char>(query[i + k])) == word[k];
      if (!match) continue;
      auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
      if ((i == 0 || !is_word(query[i - 1])) && (i + word.size() == query.size() || !is_word(query[i + word.size()])))
        return true;
    }
    return false;
  };
  SqliteTables t;
  t.slices = names("slice");
  t.args = names("args") || names("slice_arg") || names("arg_key");
  t.flows = names("flow");
  // Counter tracks are rows of `track`: a query over tracks needs them too.
  t.counters = names("counter") || names("counter_track") || names("track");
  t.track_index = names("track") || names("thread_track") || names("process_track") || names("track_id");
  // mlprof's own tables: any word starting mlprof_ (mlprof_kernels, mlprof_tables).
  std::string lower(query);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  t.typed = lower.find("mlprof_") != std::string::npos;
  if (!t.slices && !t.args && !t.flows && !t.counters && !names("track") && !names("thread") && !names("process") &&
      !names("thread_track") && !names("process_track") && !t.typed)
    t = SqliteTables{};  // names none of them (sqlite_master, ...): fill everything
  return t;
}

StatusOr<SqliteStats> LoadIntoSqlite(const Profile& p, sqlite3* db, const SqliteTables& which) {
  RETURN_IF_ERROR(Exec(db,
                       "PRAGMA page_size=65536; PRAGMA cache_size=-65536; "
                       "PRAGMA locking_mode=EXCLUSIVE; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;"));
  RETURN_IF_ERROR(Exec(db, kSchema));
  if (which.slice_view) {
    RETURN_IF_ERROR(AddSliceTable(p, db));
  } else {
    RETURN_IF_ERROR(Exec(db, fmt::format("CREATE TABLE slice({});", SliceColumns()).c_str()));
  }
  RETURN_IF_ERROR(Exec(db, ArgsView().c_str()));
  Stmt process(db, "INSERT INTO process VALUES(?,?,?,?,?)");
  Stmt thread(db, "INSERT INTO thread VALUES(?,?,?,?)");
  Stmt track(db, "INSERT INTO track VALUES(?,?,?,?,?,?,?,?)");
  // (A slice view is read-only: nothing to insert.)
  std::string insert_slice = "INSERT INTO slice VALUES(?,?,?,?,?,?,?,?,?";
  for (size_t k = 0; k <= kArgCount; ++k) insert_slice += ",?";  // args, launch_id
  insert_slice += ")";
  Stmt slice(db, which.slice_view ? "SELECT 1" : insert_slice.c_str());
  Stmt counter(db, "INSERT INTO counter VALUES(?,?,?,?)");
  Stmt slice_arg(db, "INSERT INTO slice_arg VALUES(?,?,?,?,?,?)");
  Stmt arg_key(db, "INSERT INTO arg_key VALUES(?,?)");
  for (Stmt* s : {&process, &thread, &track, &slice, &counter, &slice_arg, &arg_key})
    if (!s->ok()) return Internal(fmt::format("SQLite: {}", s->error()));
  SqliteStats st;
  std::map<std::string, int64_t, std::less<>> arg_keys;  // the other args' keys -> arg_key.id
  auto fail = [&]() { return Internal(fmt::format("SQLite: {}", sqlite3_errmsg(db))); };

  // One clock for every rank, as the Perfetto export.
  Ps128 shift = 0;
  for (const RankProfile& r : p.ranks) shift = std::max<Ps128>(shift, -r.origin_abs_ps);
  int64_t next_slice = 0, next_track = 0, next_utid = 0, next_counter = 0;
  // Track ids: every rank's model tracks first, in rank order (so that a
  // slice's track id is its rank's base + its track), counter tracks after.
  int64_t next_counter_track = 0;
  for (const RankProfile& r : p.ranks) next_counter_track += static_cast<int64_t>(r.tracks.size());
  for (size_t ri = 0; ri < p.ranks.size(); ++ri) {
    const RankProfile& r = p.ranks[ri];
    const OpTable& o = r.ops;
    auto ns = [&](Ps ps) -> int64_t {
      const Ps128 abs = r.origin_abs_ps + ps + shift;
      return static_cast<int64_t>(abs / 1000);
    };
    const int64_t upid = static_cast<int64_t>(ri) + 1, rank = r.rank_or(static_cast<int64_t>(ri));
    process.Int(1, upid), process.Int(2, upid), process.TextCopy(3, fmt::format("rank {}", rank)), process.Int(4, rank);
    process.Text(5, r.path);
    if (!process.Step()) return fail();
    ++st.processes;
    // Tracks: one per model track; host threads also a thread row.
    const int64_t track_base = next_track;
    for (size_t t = 0; t < r.tracks.size(); ++t) {
      const Track& tr = r.tracks[t];
      std::string name(r.str(tr.name));
      const char* type = "other";
      int64_t utid = -1;
      if (tr.kind == TrackKind::kGpuStream) {
        type = "gpu_stream";
        if (name.empty()) name = fmt::format("GPU {} stream {}", tr.device, tr.stream);
      } else if (tr.kind == TrackKind::kHostThread) {
        type = "thread";
        utid = next_utid++;
        thread.Int(1, utid), thread.Int(2, tr.tid), thread.Text(3, name), thread.Int(4, upid);
        if (!thread.Step()) return fail();
        ++st.threads;
        if (name.empty()) name = fmt::format("thread {}", tr.tid);
      } else if (name.empty()) {
        name = std::string(r.str(tr.process_name));
      }
      track.Int(1, next_track++), track.Text(2, name), track.Text(3, type), track.Null(4), track.Int(5, upid);
      if (utid >= 0)
        track.Int(6, utid);
      else
        track.Null(6);
      if (tr.device >= 0)
        track.Int(7, tr.device);
      else
        track.Null(7);
      if (tr.stream >= 0)
        track.Int(8, tr.stream);
      else
        track.Null(8);
      if (!track.Step()) return fail();
      ++st.tracks;
    }
    // Slices with their args, flows.
    const int64_t slice_base = next_slice;
    // The args and flow views read slice's columns.
    const bool fill_slices = (which.slices || which.args || which.flows) && !which.slice_view;
    for (size_t i = 0; i < o.size() && (fill_slices || which.flows || which.args); ++i) {
      const int64_t id = slice_base + static_cast<int64_t>(i);
      if (fill_slices) {
        slice.Int(1, id), slice.Int(2, ns(o.ts[i])), slice.Int(3, o.dur[i] / 1000);
        slice.Int(4, track_base + o.track[i]);
        if (o.cat[i])
          slice.Text(5, r.str(o.cat[i]));
        else
          slice.Null(5);
        slice.Text(6, r.str(o.name[i])), slice.Int(7, o.depth[i]);
        if (o.parent[i] >= 0)
          slice.Int(8, slice_base + o.parent[i]);
        else
          slice.Null(8);
        bool any = false;
        for (size_t k = 0; k < kArgCount; ++k) {
          const SliceArg v = kArgColumns[k].get(r, i);
          const int col = kFirstArgColumn + 1 + static_cast<int>(k);
          switch (v.kind) {
            case SliceArg::kInt:
              slice.Int(col, v.i);
              break;
            case SliceArg::kReal:
              slice.Real(col, v.d);
              break;
            case SliceArg::kText:
              slice.Text(col, v.s);
              break;
            default:
              slice.Null(col);
              continue;
          }
          any = true;
          ++st.args;
        }
        // The trace's other args (ReadOptions::all_args), in the reader's order.
        const std::span<const Arg> other = r.args.Of(ArgOwner::kOp, static_cast<uint32_t>(i));
        if (!other.empty() && !WriteOtherArgs(r, other, id, slice_arg, arg_key, arg_keys, st)) return fail();
        any = any || !other.empty();
        if (any)
          slice.Int(9, id);
        else
          slice.Null(9);
        const int64_t launch = LaunchOf(o, i, slice_base);
        if (launch >= 0) {
          slice.Int(kLaunchColumn + 1, launch);
          ++st.flows;
        } else {
          slice.Null(kLaunchColumn + 1);
        }
        if (!slice.Step()) return fail();
        ++st.slices;
      } else {
        if (which.flows && LaunchOf(o, i, slice_base) >= 0) ++st.flows;
        if (which.args) {
          const std::span<const Arg> other = r.args.Of(ArgOwner::kOp, static_cast<uint32_t>(i));
          if (!other.empty() && !WriteOtherArgs(r, other, id, slice_arg, arg_key, arg_keys, st)) return fail();
        }
      }
    }
    next_slice += static_cast<int64_t>(o.size());
    // Counters: a counter track per (track, name, series).
    std::map<std::tuple<uint32_t, StringId, StringId>, int64_t> counter_tracks;
    static const std::vector<CounterSample> kNoCounters;
    for (const CounterSample& c : which.counters ? r.counters : kNoCounters) {
      auto [it, fresh] = counter_tracks.try_emplace({c.track, c.name, c.series}, next_counter_track);
      if (fresh) {
        const std::string_view n = r.str(c.name), s = r.str(c.series);
        track.Int(1, next_counter_track++),
            track.TextCopy(2, s.empty() || s == n ? std::string(n) : fmt::format("{}.{}", n, s));
        track.Text(3, "counter"), track.Null(4), track.Int(5, upid), track.Null(6), track.Null(7), track.Null(8);
        if (!track.Step()) return fail();
        ++st.tracks;
      }
      counter.Int(1, next_counter++), counter.Int(2, ns(c.ts)), counter.Int(3, it->second), counter.Real(4, c.value);
      if (!counter.Step()) return fail();
      ++st.counters;
    }
  }
  // Indexes for the joins people write (slice to track, slice to args).
  if (which.slices && which.track_index && !which.slice_view)
    RETURN_IF_ERROR(Exec(db, "CREATE INDEX slice_track ON slice(track_id);"));
  RETURN_IF_ERROR(Exec(db, "COMMIT;"));
  return st;
}

StatusOr<SqliteStats> WriteSqliteFile(const Profile& p, const std::string& path, bool force,
                                      const TypedReportsFn& typed) {
  SqliteStats stats;
  RETURN_IF_ERROR(WriteFileAtomically(path, force, [&](const std::string& tmp) -> Status {
    sqlite3* db = nullptr;
    // One connection, one thread: no mutexes (SQLITE_OPEN_NOMUTEX).
    if (sqlite3_open_v2(tmp.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr) !=
        SQLITE_OK) {
      const std::string m = db ? sqlite3_errmsg(db) : "out of memory";
      sqlite3_close(db);
      return DataLoss(fmt::format("{}: cannot write: {}", path, m));
    }
    auto loaded = LoadIntoSqlite(p, db);
    if (loaded.ok() && typed) {
      // After the trace tables (LoadIntoSqlite committed them), one more
      // transaction for mlprof's own; none: the report failed, so no file is
      // left.
      const auto reports = typed();
      const Status st = reports ? AddTypedTables(db, *reports) : Internal("the report was not completed");
      if (!st.ok()) loaded = st;
    }
    sqlite3_close(db);
    if (!loaded.ok()) return loaded.status();
    stats = *loaded;
    return OkStatus();
  }));
  return stats;
}

namespace {

// Whether the query gives a `t.*` an alias (`s.* AS x`): a '.', blanks, '*',
// blanks, then the word AS.
bool HasStarAlias(std::string_view q) {
  auto blank = [&](size_t i) { return i < q.size() && std::isspace(static_cast<unsigned char>(q[i])); };
  for (size_t i = 0; i < q.size(); ++i) {
    if (q[i] != '.') continue;
    size_t j = i + 1;
    while (blank(j)) ++j;
    if (j >= q.size() || q[j] != '*') continue;
    size_t k = ++j;
    while (blank(k)) ++k;
    if (k == j || k + 2 > q.size()) continue;  // AS needs a blank before it
    const bool as = std::tolower(static_cast<unsigned char>(q[k])) == 'a' &&
                    std::tolower(static_cast<unsigned char>(q[k + 1])) == 's';
    const bool word_end = k + 2 == q.size() || !(std::isalnum(static_cast<unsigned char>(q[k + 2])) || q[k + 2] == '_');
    if (as && word_end) return true;
  }
  return false;
}

// Closes the database (and finalizes the statement) on every way out.
struct Connection {
  sqlite3* db = nullptr;
  sqlite3_stmt* stmt = nullptr;
  ~Connection() {
    sqlite3_finalize(stmt);
    sqlite3_close(db);
  }
};

}  // namespace

StatusOr<SqlQueryResult> RunSqlQuery(const Profile& p, const std::string& query, const TypedReportsFn& typed) {
  Connection c;
  if (sqlite3_open_v2(":memory:", &c.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK)
    return Internal("SQLite: cannot open an in-memory database");
  SqliteTables which = SqliteTables::For(query);
  which.slice_view = true;  // no copy of the slices for one query
  auto loaded = LoadIntoSqlite(p, c.db, which);
  if (loaded.ok() && which.typed && typed) {
    // mlprof's own tables only when the query names one (they cost analyses).
    const auto reports = typed();
    const Status st = reports ? AddTypedTables(c.db, *reports) : Internal("the report was not completed");
    if (!st.ok()) loaded = st;
  }
  if (!loaded.ok()) return loaded.status();
  const char* tail = nullptr;
  const int prepared = sqlite3_prepare_v2(c.db, query.c_str(), static_cast<int>(query.size()), &c.stmt, &tail);
  if (prepared == SQLITE_OK && !c.stmt) return DataLoss("SQL error: the query is empty (only blanks or comments)");
  if (prepared == SQLITE_OK && tail && std::string_view(tail).find_first_not_of(" \t\r\n;") != std::string_view::npos)
    return DataLoss(fmt::format("SQL error: one statement per query; this one goes on after the first: '{}'",
                                std::string_view(tail).substr(0, 60)));
  if (prepared != SQLITE_OK) {
    // `s.* AS x` (as one vendor tool documents a query) is not SQL: say how
    // to write it.
    std::string hint;
    if (HasStarAlias(query))
      hint =
          "; `t.* AS name` gives a name to all of a table's columns, which SQL does not allow: name the one "
          "column instead, e.g. SELECT a.real_value AS name, s.* FROM ...";
    return DataLoss(
        fmt::format("SQL error: {}{} (the tables: slice, track, thread_track, process_track, "
                    "counter_track, thread, process, args, counter, flow)",
                    sqlite3_errmsg(c.db), hint));
  }
  SqlQueryResult out;
  const int n = sqlite3_column_count(c.stmt);
  for (int k = 0; k < n; ++k) out.columns.emplace_back(sqlite3_column_name(c.stmt, k));
  out.numeric.assign(static_cast<size_t>(n), true);
  int rc;
  while ((rc = sqlite3_step(c.stmt)) == SQLITE_ROW) {
    std::vector<Cell> row;
    for (int k = 0; k < n; ++k) {
      switch (sqlite3_column_type(c.stmt, k)) {
        case SQLITE_INTEGER:
          row.push_back(Cell::Int(sqlite3_column_int64(c.stmt, k)));
          break;
        case SQLITE_FLOAT:
          row.push_back(Cell::Real(sqlite3_column_double(c.stmt, k)));
          break;
        case SQLITE_NULL:
          row.push_back(Cell::Null());
          break;
        case SQLITE_BLOB: {
          // Bytes as hex, as sqlite3's shell shows them with hex().
          out.numeric[static_cast<size_t>(k)] = false;
          const auto* b = static_cast<const unsigned char*>(sqlite3_column_blob(c.stmt, k));
          const int len = sqlite3_column_bytes(c.stmt, k);
          std::string hex;
          for (int i = 0; i < len; ++i) hex += fmt::format("{:02X}", b[i]);
          row.push_back(Cell::Text(hex));
          break;
        }
        default: {
          // Text the query made may not be UTF-8 (CAST(x'ff' AS TEXT)).
          out.numeric[static_cast<size_t>(k)] = false;
          const char* t = reinterpret_cast<const char*>(sqlite3_column_text(c.stmt, k));
          row.push_back(Cell::Text(
              ValidUtf8(std::string_view(t ? t : "", static_cast<size_t>(sqlite3_column_bytes(c.stmt, k))))));
        }
      }
    }
    out.rows.push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) return DataLoss(fmt::format("SQL error: {}", sqlite3_errmsg(c.db)));
  return out;
}

}  // namespace mlprof
