#include "io/ascend_db.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "base/time.h"
#include "io/ascend_files.h"
#include "io/readers.h"
#include "model/builder.h"

namespace mlprof {
namespace {

namespace fs = std::filesystem;

constexpr Ps128 kPsPerNs = 1000;
// Device lanes: pid = base + device (apart from the host's OS pids); HCCL
// groups get stream ids apart from the hardware streams (as the text form's
// HCCL lanes do).
constexpr int64_t kDevicePidBase = int64_t{1} << 40;
constexpr int64_t kHcclStreamBase = int64_t{1} << 20;
// CANN calls go on a process of their own, as in trace_view.json.
constexpr int64_t kCannPid = int64_t{1} << 41;

class AscendDbReader {
 public:
  AscendDbReader(LoadedFile& f, RankProfile* out) : f_(f), b_(out) {}

  Status Read() {
    RETURN_IF_ERROR(db_.Open(f_));
    RETURN_IF_ERROR(LoadStrings());
    ReadDevice();
    RETURN_IF_ERROR(ReadPmu());
    RETURN_IF_ERROR(ReadKernels());
    RETURN_IF_ERROR(ReadCommunication());
    RETURN_IF_ERROR(ReadHost("PYTORCH_API", OpKind::kCpuOp, "cpu_op"));
    RETURN_IF_ERROR(ReadHost("CANN_API", OpKind::kOther, "cann"));
    RETURN_IF_ERROR(ReadOpMemory());
    ReadAnalysisDb();
    // A WAL-mode database is read from its own pages (io/sqlite_db.h): a
    // non-empty -wal file beside it holds transactions not read.
    std::error_code ec;
    if (!f_.path.empty() && fs::file_size(f_.path + "-wal", ec) > 0 && !ec)
      b_.WarnSidecar(
          fmt::format("{}-wal: not read: the database's write-ahead log holds transactions not yet "
                      "written to the database (open and close it with sqlite3 to checkpoint them)",
                      f_.path));
    return b_.Finish();
  }

 private:
  Status Need(const std::string& table, std::initializer_list<const char*> columns) {
    if (!db_.Has(table))
      return WrongFormat(fmt::format("{}: an Ascend profiler database without a {} table", f_.path, table));
    const std::set<std::string> have = db_.Columns(table);
    for (const char* c : columns)
      if (!have.count(c))
        return WrongFormat(
            fmt::format("{}: table {} has no column {} (an Ascend profiler database of an unknown "
                        "schema?)",
                        f_.path, table, c));
    return OkStatus();
  }

  Status LoadStrings() {
    RETURN_IF_ERROR(Need("STRING_IDS", {"id", "value"}));
    SqliteStmt s(db_.db(), "SELECT id, value FROM STRING_IDS");
    if (!s.ok()) return db_.Corrupt("STRING_IDS");
    while (s.Next()) strings_.emplace(s.Int(0), std::string(s.Text(1)));
    if (!s.done()) return db_.Corrupt("STRING_IDS");
    return OkStatus();
  }

  // A STRING_IDS id, interned; a missing id is named "(string N)" and counted.
  StringId Str(int64_t id) {
    auto it = interned_.find(id);
    if (it != interned_.end()) return it->second;
    auto s = strings_.find(id);
    StringId v;
    if (s != strings_.end()) {
      v = b_.strings().Intern(s->second);
    } else {
      b_.Warn(ImportStat::unknown_string_id, 0);
      v = b_.strings().Intern(fmt::format("(string {})", id));
    }
    interned_.emplace(id, v);
    return v;
  }
  std::string_view StrView(int64_t id) {
    auto s = strings_.find(id);
    return s != strings_.end() ? std::string_view(s->second) : std::string_view();
  }

  void ReadDevice() {
    if (db_.Has("NPU_INFO")) {
      SqliteStmt s(db_.db(), "SELECT id, name FROM NPU_INFO ORDER BY id");
      while (s.ok() && s.Next()) {
        DeviceProperties d;
        d.id = s.Int(0);
        d.name = std::string(s.Text(1));
        d.vendor = "Huawei";
        b_.meta().devices.push_back(std::move(d));
      }
    }
    if (db_.Has("RANK_DEVICE_MAP")) {
      SqliteStmt s(db_.db(), "SELECT rankId FROM RANK_DEVICE_MAP");
      if (s.ok() && s.Next() && s.Int(0) >= 0 && s.Int(0) < (int64_t{1} << 31)) b_.meta().rank = s.Int(0);
    }
  }

  Status ReadPmu() {
    if (!db_.Has("TASK_PMU_INFO")) return OkStatus();
    SqliteStmt s(db_.db(), "SELECT globalTaskId, name, value FROM TASK_PMU_INFO");
    if (!s.ok()) return db_.Corrupt("TASK_PMU_INFO");
    while (s.Next()) {
      const double v = s.Real(2);
      if (std::isfinite(v)) pmu_[s.Int(0)].push_back(ArgValue::Real(Str(s.Int(1)), v));
    }
    if (!s.done()) return db_.Corrupt("TASK_PMU_INFO");
    return OkStatus();
  }

  // An event's start and end (ns, integers or decimal text) into `e`; false
  // (counted) when unusable.
  bool Times(const SqliteStmt& s, int start, int end, EventRecord& e) {
    auto read = [&](int i, Ps128* out) {
      if (s.Null(i)) return DecimalError::kEmpty;
      if (s.IsText(i)) return ParseDecimalPs(s.Text(i), kPsPerNs, out);
      *out = static_cast<Ps128>(s.Int(i)) * kPsPerNs;
      return DecimalError::kOk;
    };
    Ps128 a = 0, z = 0;
    const DecimalError ea = read(start, &a), ez = read(end, &z);
    if (ea != DecimalError::kOk || ez != DecimalError::kOk) {
      b_.Warn(
          ea == DecimalError::kEmpty || ez == DecimalError::kEmpty ? ImportStat::missing_ts : ImportStat::bad_number,
          e.offset);
      return false;
    }
    e.ts = a;
    e.dur = z - a;
    e.has_ts = e.has_dur = true;
    return true;
  }

  Status ReadKernels() {
    RETURN_IF_ERROR(Need("TASK", {"startNs", "endNs", "deviceId", "globalTaskId", "streamId"}));
    if (!db_.Has("COMPUTE_TASK_INFO")) return OkStatus();
    RETURN_IF_ERROR(Need("COMPUTE_TASK_INFO", {"name", "globalTaskId", "taskType", "opType"}));
    const std::set<std::string> have = db_.Columns("COMPUTE_TASK_INFO");
    // Optional text columns, as the CSV names them.
    const std::pair<const char*, const char*> kText[] = {
        {"inputShapes", "Input Shapes"}, {"inputDataTypes", "Input Data Types"}, {"outputShapes", "Output Shapes"}};
    std::string sql =
        "SELECT t.startNs, t.endNs, t.deviceId, t.streamId, t.globalTaskId, c.name, c.opType, c.taskType, ";
    sql += have.count("blockDim") ? "c.blockDim" : "NULL";
    for (const auto& [col, key] : kText) sql += have.count(col) ? fmt::format(", c.{}", col) : ", NULL";
    sql += " FROM TASK t JOIN COMPUTE_TASK_INFO c ON t.globalTaskId = c.globalTaskId";
    SqliteStmt s(db_.db(), sql);
    if (!s.ok()) return db_.Corrupt("TASK and COMPUTE_TASK_INFO");
    const StringId cat = b_.strings().Intern("ascend_task"), op_type = b_.strings().Intern("OP Type"),
                   core = b_.strings().Intern("Accelerator Core"), block = b_.strings().Intern("Block Dim");
    std::vector<StringId> text_keys;
    for (const auto& [col, key] : kText) text_keys.push_back(b_.strings().Intern(key));
    std::vector<ArgValue> args;
    while (s.Next()) {
      EventRecord e;
      e.ph = 'X';
      e.offset = static_cast<uint64_t>(s.Int(4));  // the task's id: where to look in the database
      if (!Times(s, 0, 1, e)) continue;
      const int64_t device = s.Int(2), stream = s.Int(3);
      if (device < 0 || device > 65535 || stream < 0 || stream >= kHcclStreamBase) {
        b_.Warn(ImportStat::bad_device_id, e.offset);
        continue;
      }
      e.name = Str(s.Int(5));
      e.cat = cat;
      e.has_cat = true;
      e.kind = OpKind::kKernel;
      e.device = device;
      e.stream = stream;
      e.pid = kDevicePidBase + device;
      e.tid = stream;
      Lane(e.pid, e.tid, fmt::format("Stream {}", stream));
      args.clear();
      if (!s.Null(6) && StrView(s.Int(6)) != "N/A") args.push_back(ArgValue::String(op_type, Str(s.Int(6))));
      if (!s.Null(7)) args.push_back(ArgValue::String(core, Str(s.Int(7))));
      if (!s.Null(8)) args.push_back(ArgValue::Int(block, s.Int(8)));
      for (size_t k = 0; k < text_keys.size(); ++k)
        if (!s.Null(9 + static_cast<int>(k)) && !StrView(s.Int(9 + static_cast<int>(k))).empty())
          args.push_back(ArgValue::String(text_keys[k], Str(s.Int(9 + static_cast<int>(k)))));
      auto pmu = pmu_.find(s.Int(4));
      if (pmu != pmu_.end()) args.insert(args.end(), pmu->second.begin(), pmu->second.end());
      e.args = args.data();
      e.arg_count = static_cast<uint32_t>(args.size());
      b_.AddEvent(e);
    }
    if (!s.done()) return db_.Corrupt("TASK and COMPUTE_TASK_INFO");
    return OkStatus();
  }

  Status ReadCommunication() {
    if (!db_.Has("COMMUNICATION_OP")) return OkStatus();
    RETURN_IF_ERROR(Need("COMMUNICATION_OP", {"opName", "startNs", "endNs", "groupName"}));
    SqliteStmt s(db_.db(), "SELECT opName, startNs, endNs, groupName, rowid FROM COMMUNICATION_OP");
    if (!s.ok()) return db_.Corrupt("COMMUNICATION_OP");
    const StringId cat = b_.strings().Intern("hccl");
    const int64_t device = b_.meta().devices.empty() ? 0 : b_.meta().devices.front().id;
    std::map<int64_t, int64_t> groups;  // groupName id -> lane
    while (s.Next()) {
      EventRecord e;
      e.ph = 'X';
      e.offset = static_cast<uint64_t>(s.Int(4));
      if (!Times(s, 1, 2, e)) continue;
      auto [it, fresh] = groups.emplace(s.Int(3), static_cast<int64_t>(groups.size()));
      e.name = Str(s.Int(0));
      e.cat = cat;
      e.has_cat = true;
      e.kind = OpKind::kKernel;
      e.device = device;
      e.stream = kHcclStreamBase + it->second;
      e.pid = kDevicePidBase + device;
      e.tid = e.stream;
      if (fresh) Lane(e.pid, e.tid, fmt::format("Group {} Communication", it->second));
      b_.AddEvent(e);
    }
    if (!s.done()) return db_.Corrupt("COMMUNICATION_OP");
    return OkStatus();
  }

  // PYTORCH_API / CANN_API: host calls on their threads (globalTid = pid << 32 | tid).
  Status ReadHost(const std::string& table, OpKind kind, const char* cat_name) {
    if (!db_.Has(table)) return OkStatus();
    RETURN_IF_ERROR(Need(table, {"startNs", "endNs", "globalTid", "name"}));
    SqliteStmt s(db_.db(), "SELECT startNs, endNs, globalTid, name, rowid FROM \"" + table + "\"");
    if (!s.ok()) return db_.Corrupt(table);
    const StringId cat = b_.strings().Intern(cat_name);
    const bool cann = kind == OpKind::kOther;
    while (s.Next()) {
      EventRecord e;
      e.ph = 'X';
      e.offset = static_cast<uint64_t>(s.Int(4));
      if (!Times(s, 0, 1, e)) continue;
      const int64_t global = s.Int(2);
      const int64_t pid = (global >> 32) & 0xFFFFFFFF, tid = global & 0xFFFFFFFF;
      e.name = Str(s.Int(3));
      e.cat = cat;
      e.has_cat = true;
      e.kind = kind;
      e.pid = cann ? kCannPid : pid;
      e.tid = tid;
      if (cann) {
        if (named_.insert({e.pid, tid}).second)
          b_.SetThreadName(e.pid, tid, b_.strings().Intern(fmt::format("Thread {}", tid)));
        if (!cann_named_) b_.SetProcessName(kCannPid, b_.strings().Intern("CANN")), cann_named_ = true;
      } else if (python_pids_.insert(pid).second) {
        b_.SetProcessName(pid, b_.strings().Intern("Python"));
      }
      b_.AddEvent(e);
    }
    if (!s.done()) return db_.Corrupt(table);
    return OkStatus();
  }

  // OP_MEMORY: the allocations ops made (bytes, ns), as operator_memory.csv.
  Status ReadOpMemory() {
    if (!db_.Has("OP_MEMORY")) return OkStatus();
    // name, size and allocationTime are needed (else the table is left out,
    // with a warning); the rest read as NULL where a schema lacks them.
    const std::set<std::string> have = db_.Columns("OP_MEMORY");
    for (const char* c : {"name", "size", "allocationTime"})
      if (!have.count(c)) {
        b_.WarnSidecar(fmt::format("{}: table OP_MEMORY has no column {}; its allocations are left out", f_.path, c));
        return OkStatus();
      }
    std::string sql = "SELECT name, size, allocationTime";
    for (const char* c : {"releaseTime", "allocationTotalAllocated", "allocationTotalReserved", "releaseTotalAllocated",
                          "releaseTotalReserved", "deviceId"})
      sql += have.count(c) ? fmt::format(", \"{}\"", c) : std::string(", NULL");
    SqliteStmt s(db_.db(), sql + ", rowid FROM OP_MEMORY");
    if (!s.ok()) return db_.Corrupt("OP_MEMORY");
    NpuMemoryEvents out(b_);
    auto bytes = [&](int i) { return s.Null(i) || s.Int(i) < 0 || s.Int(i) > (int64_t{1} << 60) ? -1 : s.Int(i); };
    while (s.Next()) {
      NpuAllocation a;
      a.offset = static_cast<uint64_t>(s.Int(9));
      a.bytes = bytes(1);
      if (a.bytes < 0 || s.Null(2)) {
        b_.Warn(ImportStat::bad_number, a.offset);
        continue;
      }
      a.op = Str(s.Int(0));
      a.alloc_ts = static_cast<Ps128>(s.Int(2)) * kPsPerNs;
      a.has_release = !s.Null(3);
      if (a.has_release) a.release_ts = static_cast<Ps128>(s.Int(3)) * kPsPerNs;
      a.alloc_total = bytes(4), a.alloc_reserved = bytes(5), a.release_total = bytes(6), a.release_reserved = bytes(7);
      a.device = s.Int(8);
      a.addr = s.Int(9);
      out.Add(a);
    }
    if (!s.done()) return db_.Corrupt("OP_MEMORY");
    return OkStatus();
  }

  void Lane(int64_t pid, int64_t tid, std::string name) {
    if (!named_.insert({pid, tid}).second) return;
    b_.SetThreadName(pid, tid, b_.strings().Intern(name));
    if (lane_pids_.insert(pid).second) b_.SetProcessName(pid, b_.strings().Intern("Ascend Hardware"));
  }

  // analysis.db beside the database: HCCL's op times and link transfers.
  void ReadAnalysisDb() {
    const fs::path path = fs::path(f_.path).parent_path() / "analysis.db";
    std::error_code ec;
    if (f_.path.empty() || !fs::is_regular_file(path, ec)) return;
    auto loaded = LoadFile(path.string());
    if (!loaded.ok()) return b_.WarnSidecar(std::string(loaded.status().message()));
    SqliteFile a;
    if (Status st = a.Open(*loaded); !st.ok()) return b_.WarnSidecar(std::string(st.message()));
    const CommOpJoin join(b_);
    auto ms = [](const SqliteStmt& s, int i) { return s.Null(i) ? Ps{-1} : AscendMsToPs(s.Real(i)); };
    // Sizes up to 10^12 MB (10^18 bytes), as the JSON form takes them.
    auto size_ok = [](double mb) { return std::isfinite(mb) && mb >= 0 && mb <= 1e12; };
    size_t ops = 0, links = 0, unjoined = 0;
    std::map<std::string, int32_t> op_index;  // op name -> comm_ops index
    if (a.Has("CommAnalyzerTime")) {
      SqliteStmt s(a.db(),
                   "SELECT hccl_op_name, group_name, start_timestamp, elapse_time, transit_time, wait_time, "
                   "synchronization_time, idle_time, step, type FROM CommAnalyzerTime");
      while (s.ok() && s.Next()) {
        CommOpStat c;
        c.name = b_.strings().Intern(s.Text(0));
        c.group = b_.strings().Intern(s.Text(1));
        c.elapse = ms(s, 3), c.transit = ms(s, 4), c.wait = ms(s, 5), c.sync = ms(s, 6), c.idle = ms(s, 7);
        c.step = AscendStep(s.Text(8));
        c.p2p = s.Text(9) == "p2p";
        if (!join.Join(b_, s.Null(2) ? NAN : s.Real(2), &c)) ++unjoined;
        op_index[std::string(s.Text(0))] = static_cast<int32_t>(b_.AddCommOp(c));
        ++ops;
      }
    }
    if (a.Has("CommAnalyzerBandwidth")) {
      // One row per (op, transport, packet size): the op's totals repeat.
      SqliteStmt s(a.db(),
                   "SELECT hccl_op_name, transport_type, transit_size, transit_time, bandwidth, step FROM "
                   "CommAnalyzerBandwidth");
      std::set<std::pair<std::string, std::string>> seen;
      while (s.ok() && s.Next()) {
        auto it = op_index.find(std::string(s.Text(0)));
        if (it == op_index.end() || !seen.insert({std::string(s.Text(0)), std::string(s.Text(1))}).second) continue;
        LinkTransfer l;
        l.comm_op = it->second;
        l.transport = b_.strings().Intern(s.Text(1));
        l.megabytes = s.Real(2);
        l.time = ms(s, 3);
        l.reported_gbps = s.Real(4);
        l.step = AscendStep(s.Text(5));
        if (l.time < 0 || !size_ok(l.megabytes)) continue;
        if (l.megabytes > 0 || l.time > 0) b_.AddLinkTransfer(l), ++links;
      }
    }
    if (a.Has("CommAnalyzerMatrix")) {
      SqliteStmt s(a.db(),
                   "SELECT hccl_op_name, group_name, src_rank, dst_rank, transport_type, transit_size, transit_time, "
                   "bandwidth, step, op_name FROM CommAnalyzerMatrix");
      while (s.ok() && s.Next()) {
        LinkTransfer l;
        // The text form keys the matrix "<size class>@<group>".
        l.group = b_.strings().Intern(fmt::format("{}@{}", s.Text(0), s.Text(1)));
        l.src = static_cast<int32_t>(s.Int(2));
        l.dst = static_cast<int32_t>(s.Int(3));
        l.transport = b_.strings().Intern(s.Text(4));
        l.megabytes = s.Real(5);
        l.time = ms(s, 6);
        l.reported_gbps = s.Real(7);
        l.step = AscendStep(s.Text(8));
        l.op_name = b_.strings().Intern(s.Text(9));
        if (l.time < 0 || !size_ok(l.megabytes)) continue;
        b_.AddLinkTransfer(l), ++links;
      }
    }
    b_.NoteSidecar(fmt::format("{}: {} communication ops, {} link rows", path.string(), ops, links));
    if (unjoined)
      b_.WarnSidecar(
          fmt::format("{}: {} of {} ops match no op of the trace by name and start", path.string(), unjoined, ops));
  }

  LoadedFile& f_;
  ProfileBuilder b_;
  SqliteFile db_;
  std::unordered_map<int64_t, std::string> strings_;
  std::unordered_map<int64_t, StringId> interned_;
  std::unordered_map<int64_t, std::vector<ArgValue>> pmu_;  // globalTaskId -> PMU values
  std::set<std::pair<int64_t, int64_t>> named_;
  std::set<int64_t> lane_pids_, python_pids_;
  bool cann_named_ = false;
};

}  // namespace

bool IsAscendDb(const SqliteFile& db) { return db.Has("STRING_IDS") && db.Has("TASK"); }

Status ReadAscendDb(LoadedFile& file, const ReadOptions& options, RankProfile* out) {
  DescribeFile(file, TraceFormat::kAscendDb, out);
  RETURN_IF_ERROR(RefuseTruncated(file));
  AscendDbReader r(file, out);
  RETURN_IF_ERROR(r.Read());
  if (options.progress) options.progress(file.bytes.size(), file.bytes.size());
  return OkStatus();
}

}  // namespace mlprof
