#include "io/nsys.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cctype>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "io/ascend_db.h"
#include "io/readers.h"
#include "io/sqlite_db.h"
#include "model/builder.h"

namespace mlprof {
namespace {

constexpr Ps128 kPsPerNs = 1000;

// pid and tid from nsys's serialized global ids: (globalTid >> 24) & 0xFFFFFF
// is the process, globalTid & 0xFFFFFF the thread (the high bits carry a
// host/VM id).
int64_t PidOf(int64_t global) { return (global >> 24) & 0xFFFFFF; }
int64_t TidOf(int64_t global) { return global & 0xFFFFFF; }

// Start/end NVTX ranges may cross threads and need not nest with push/pop
// ranges: they go on a track of their own per thread, tid offset by this.
constexpr int64_t kStartEndTidBase = int64_t{1} << 32;
// GPU ops go on (device, stream) tracks: their pid is the device offset by
// this, apart from the OS's pids (Windows' "Idle" process is pid 0).
constexpr int64_t kGpuPidBase = int64_t{1} << 40;
// The GPU metrics' counter track on a GPU's pid.
constexpr int64_t kGpuMetricsTid = -2;
// CUDA synchronization records: a track of their own on their process.
constexpr int64_t kSyncTid = -3;

// CUPTI's enums, for exports without ENUM_* tables (schema 2.x).
const char* CopyKindName(int64_t k) {
  switch (k) {
    case 1:
      return "HtoD";
    case 2:
      return "DtoH";
    case 3:
      return "HtoA";
    case 4:
      return "AtoH";
    case 5:
      return "AtoA";
    case 6:
      return "AtoD";
    case 7:
      return "DtoA";
    case 8:
      return "DtoD";
    case 9:
      return "HtoH";
    case 10:
      return "PtoP";
    default:
      return "Unknown";
  }
}
const char* MemKindName(int64_t k) {
  switch (k) {
    case 0:
      return "Pageable";
    case 1:
      return "Pinned";
    case 2:
      return "Device";
    case 3:
      return "Array";
    case 4:
      return "Managed";
    case 5:
      return "Device Static";
    case 6:
      return "Managed Static";
    default:
      return "Unknown";
  }
}
// Kineto's names for CUPTI synchronisation records; event and context
// syncs have no stream (device-wide).
const char* SyncName(int64_t type) {
  switch (type) {
    case 1:
      return "Event Sync";
    case 2:
      return "Stream Wait Event";
    case 3:
      return "Stream Sync";
    case 4:
      return "Context Sync";
    default:
      return "Unknown Sync";
  }
}

using Stmt = SqliteStmt;

class NsysReader {
 public:
  NsysReader(LoadedFile& f, RankProfile* out) : f_(f), b_(out) {}

  Status Read() {
    RETURN_IF_ERROR(Open());
    RETURN_IF_ERROR(CheckIsNsys());
    RETURN_IF_ERROR(LoadStrings());
    RETURN_IF_ERROR(ReadDevices());
    RETURN_IF_ERROR(ReadNames());
    RETURN_IF_ERROR(ReadRank());
    RETURN_IF_ERROR(ReadRuntime());
    RETURN_IF_ERROR(ReadKernels());
    RETURN_IF_ERROR(ReadMemcpy());
    RETURN_IF_ERROR(ReadMemset());
    RETURN_IF_ERROR(ReadSync());
    RETURN_IF_ERROR(ReadNvtx());
    RETURN_IF_ERROR(ReadOsrt());
    RETURN_IF_ERROR(ReadGpuMetrics());
    // Names for the threads that have ops (ThreadNames lists every thread
    // the process ever had).
    for (const auto& [pt, name] : thread_names_)
      if (threads_.count(pt)) b_.SetThreadName(pt.first, pt.second, Str(name));
    return b_.Finish();
  }

 private:
  Status Open() { return file_.Open(f_); }
  Status Corrupt(std::string_view what) const { return file_.Corrupt(what); }

  Status CheckIsNsys() {
    const bool strings = Has("StringIds");
    const bool activity = Has("CUPTI_ACTIVITY_KIND_KERNEL") || Has("CUPTI_ACTIVITY_KIND_RUNTIME") ||
                          Has("NVTX_EVENTS") || Has("OSRT_API");
    if (strings && activity) return OkStatus();
    std::string some;
    size_t k = 0;
    for (const std::string& t : file_.tables()) {
      if (k++ == 8) {
        some += ", ...";
        break;
      }
      some += (some.empty() ? "" : ", ") + t;
    }
    return WrongFormat(fmt::format(
        "{}: an SQLite database, but not an Nsight Systems export (expected StringIds and CUPTI_ACTIVITY_KIND_*, "
        "NVTX_EVENTS or OSRT_API tables; it has {} table(s){}{})",
        f_.path, file_.tables().size(), some.empty() ? "" : ": ", some));
  }

  bool Has(const std::string& table) const { return file_.Has(table); }
  std::set<std::string> Columns(const std::string& table) const { return file_.Columns(table); }

  // SELECT of `want` from `table`: a column the table lacks reads as NULL;
  // a required one (marked with a leading '!') missing is an error.
  StatusOr<std::string> Select(const std::string& table, const std::vector<std::string>& want,
                               const std::string& tail = "") {
    const std::set<std::string> have = Columns(table);
    std::string sql = "SELECT ";
    for (size_t i = 0; i < want.size(); ++i) {
      const bool required = want[i][0] == '!';
      const std::string c = required ? want[i].substr(1) : want[i];
      if (!have.count(c)) {
        if (required)
          return WrongFormat(fmt::format(
              "{}: table {} has no column {} (an Nsight Systems export of an unknown schema?)", f_.path, table, c));
        sql += (i ? ", NULL" : "NULL");
      } else {
        sql += (i ? ", \"" : "\"") + c + "\"";
      }
    }
    return sql + " FROM \"" + table + "\"" + tail;
  }

  Status LoadStrings() {
    Stmt s(file_.db(), "SELECT id, value FROM StringIds");
    if (!s.ok()) return Corrupt("StringIds");
    while (s.Next()) strings_.emplace(s.Int(0), std::string(s.Text(1)));
    if (!s.done()) return Corrupt("StringIds");
    return OkStatus();
  }

  // A StringIds id, interned.
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

  Status ReadDevices() {
    if (!Has("TARGET_INFO_GPU")) return OkStatus();
    // The device id column: "id" (schema 3.x), "deviceId" (2021 exports).
    const std::string id = Columns("TARGET_INFO_GPU").count("id") ? "!id" : "!deviceId";
    ASSIGN_OR_RETURN(const std::string sql,
                     Select("TARGET_INFO_GPU", {id, "name", "totalMemory", "smCount", "computeMajor", "computeMinor",
                                                "memoryBandwidth", "clockRate", "chipName"}));
    Stmt s(file_.db(), sql + " ORDER BY 1");
    if (!s.ok()) return Corrupt("TARGET_INFO_GPU");
    std::set<int64_t> seen;
    while (s.Next()) {
      if (!seen.insert(s.Int(0)).second) continue;  // one row per device (several VMs list it again)
      DeviceProperties d;
      d.id = s.Int(0);
      d.name = std::string(s.Text(1));
      if (!s.Null(2)) d.total_global_mem = s.Int(2);
      if (!s.Null(3)) d.num_sms = s.Int(3);
      if (!s.Null(4)) d.compute_major = s.Int(4);
      if (!s.Null(5)) d.compute_minor = s.Int(5);
      if (!s.Null(6)) d.memory_bandwidth_bps = static_cast<double>(s.Int(6));
      if (!s.Null(7)) d.clock_khz = s.Int(7) / 1000;
      d.vendor = "NVIDIA";
      b_.SetProcessName(kGpuPidBase + d.id, b_.strings().Intern(fmt::format("GPU {} ({})", d.id, d.name)));
      b_.meta().devices.push_back(std::move(d));
    }
    if (!s.done()) return Corrupt("TARGET_INFO_GPU");
    return OkStatus();
  }

  Status ReadNames() {
    if (Has("PROCESSES")) {
      ASSIGN_OR_RETURN(const std::string sql, Select("PROCESSES", {"!globalPid", "pid", "name"}));
      Stmt s(file_.db(), sql);
      if (!s.ok()) return Corrupt("PROCESSES");
      while (s.Next())
        if (!s.Null(0) && !s.Text(2).empty()) b_.SetProcessName(PidOf(s.Int(0)), b_.strings().Intern(s.Text(2)));
      if (!s.done()) return Corrupt("PROCESSES");
    }
    if (Has("ThreadNames")) {
      ASSIGN_OR_RETURN(const std::string sql, Select("ThreadNames", {"!nameId", "!globalTid"}));
      Stmt s(file_.db(), sql);
      if (!s.ok()) return Corrupt("ThreadNames");
      while (s.Next())
        if (!s.Null(1)) thread_names_[{PidOf(s.Int(1)), TidOf(s.Int(1))}] = s.Int(0);
      if (!s.done()) return Corrupt("ThreadNames");
    }
    return OkStatus();
  }

  // correlationId is unique within a process: the key joins it with the pid.
  static int64_t Correlation(int64_t pid, int64_t corr) { return (pid << 32) | (corr & 0xFFFFFFFF); }

  // Adds an 'X' op; false when its times cannot be one (end before start).
  bool Add(EventRecord& e, int64_t start, int64_t end) {
    if (end < start) {
      b_.Warn(ImportStat::negative_duration, 0);
      return false;
    }
    e.ph = 'X';
    e.has_ts = e.has_dur = e.has_cat = true;
    e.ts = static_cast<Ps128>(start) * kPsPerNs;
    e.dur = (static_cast<Ps128>(end) - start) * kPsPerNs;  // 128-bit: no overflow on absurd values
    threads_.insert({e.pid, e.tid});
    b_.AddEvent(e);
    return true;
  }

  Status ReadRuntime() {
    if (!Has("CUPTI_ACTIVITY_KIND_RUNTIME")) return OkStatus();
    ASSIGN_OR_RETURN(const std::string sql, Select("CUPTI_ACTIVITY_KIND_RUNTIME",
                                                   {"!start", "!end", "!globalTid", "correlationId", "!nameId"}));
    Stmt s(file_.db(), sql);
    if (!s.ok()) return Corrupt("CUPTI_ACTIVITY_KIND_RUNTIME");
    const StringId runtime = b_.strings().Intern("cuda_runtime"), driver = b_.strings().Intern("cuda_driver");
    std::unordered_map<int64_t, std::pair<StringId, bool>> names;  // nameId -> (name, driver)
    while (s.Next()) {
      auto it = names.find(s.Int(4));
      if (it == names.end()) {
        const StringId raw = Str(s.Int(4));
        const std::string_view n = StripApiVersion(b_.strings().Get(raw));
        const bool drv = n.substr(0, 2) == "cu" && n.substr(0, 4) != "cuda";
        it = names.emplace(s.Int(4), std::pair<StringId, bool>{b_.strings().Intern(n), drv}).first;
      }
      EventRecord e;
      e.name = it->second.first;
      e.kind = it->second.second ? OpKind::kDriver : OpKind::kRuntime;
      e.cat = it->second.second ? driver : runtime;
      e.pid = PidOf(s.Int(2)), e.tid = TidOf(s.Int(2));
      if (!s.Null(3)) e.correlation = Correlation(e.pid, s.Int(3));
      Add(e, s.Int(0), s.Int(1));
    }
    if (!s.done()) return Corrupt("CUPTI_ACTIVITY_KIND_RUNTIME");
    return OkStatus();
  }

  // The GPU op columns every CUPTI activity table shares, then `extra`.
  StatusOr<std::string> GpuSelect(const std::string& table, std::vector<std::string> extra) {
    std::vector<std::string> cols = {"!start", "!end", "!deviceId", "!streamId", "correlationId", "globalPid"};
    cols.insert(cols.end(), extra.begin(), extra.end());
    return Select(table, cols);
  }
  // Fills the shared columns (0-5) of a GPU op; false for a device id no GPU
  // has (a damaged row), counted.
  bool GpuCommon(const Stmt& s, EventRecord& e) {
    if (s.Int(2) < 0 || s.Int(2) > 0xFFFF) {
      b_.Warn(ImportStat::bad_device_id, 0);
      return false;
    }
    e.device = s.Int(2);
    e.stream = s.Int(3);
    e.pid = kGpuPidBase + e.device;
    e.tid = e.stream;
    if (!s.Null(4)) e.correlation = Correlation(s.Null(5) ? 0 : PidOf(s.Int(5)), s.Int(4));
    return true;
  }

  Status ReadKernels() {
    if (!Has("CUPTI_ACTIVITY_KIND_KERNEL")) return OkStatus();
    ASSIGN_OR_RETURN(const std::string sql,
                     GpuSelect("CUPTI_ACTIVITY_KIND_KERNEL", {"demangledName", "shortName", "gridX", "gridY", "gridZ",
                                                              "blockX", "blockY", "blockZ"}));
    Stmt s(file_.db(), sql);
    if (!s.ok()) return Corrupt("CUPTI_ACTIVITY_KIND_KERNEL");
    const StringId cat = b_.strings().Intern("kernel");
    std::map<std::array<int64_t, 3>, StringId> dims;
    auto dim = [&](int64_t x, int64_t y, int64_t z) {
      auto [it, fresh] = dims.try_emplace({x, y, z}, 0);
      if (fresh) it->second = b_.strings().Intern(fmt::format("[{},{},{}]", x, y, z));
      return it->second;
    };
    while (s.Next()) {
      EventRecord e;
      if (!GpuCommon(s, e)) continue;
      e.kind = OpKind::kKernel;
      e.cat = cat;
      e.name = Str(!s.Null(6) ? s.Int(6) : s.Int(7));
      if (!s.Null(8)) e.grid = dim(s.Int(8), s.Int(9), s.Int(10));
      if (!s.Null(11)) e.block = dim(s.Int(11), s.Int(12), s.Int(13));
      Add(e, s.Int(0), s.Int(1));
    }
    if (!s.done()) return Corrupt("CUPTI_ACTIVITY_KIND_KERNEL");
    return OkStatus();
  }

  Status ReadMemcpy() {
    if (!Has("CUPTI_ACTIVITY_KIND_MEMCPY")) return OkStatus();
    ASSIGN_OR_RETURN(const std::string sql,
                     GpuSelect("CUPTI_ACTIVITY_KIND_MEMCPY", {"!bytes", "!copyKind", "srcKind", "dstKind"}));
    Stmt s(file_.db(), sql);
    if (!s.ok()) return Corrupt("CUPTI_ACTIVITY_KIND_MEMCPY");
    const StringId cat = b_.strings().Intern("gpu_memcpy");
    std::map<std::array<int64_t, 3>, StringId> names;
    while (s.Next()) {
      EventRecord e;
      if (!GpuCommon(s, e)) continue;
      e.kind = OpKind::kMemcpy;
      e.cat = cat;
      e.bytes = s.Int(6);
      const std::array<int64_t, 3> key = {s.Int(7), s.Null(8) ? -1 : s.Int(8), s.Null(9) ? -1 : s.Int(9)};
      auto [it, fresh] = names.try_emplace(key, 0);
      if (fresh)  // Kineto's names: "Memcpy HtoD (Pageable -> Device)"
        it->second =
            b_.strings().Intern(key[1] < 0 || key[2] < 0 ? fmt::format("Memcpy {}", CopyKindName(key[0]))
                                                         : fmt::format("Memcpy {} ({} -> {})", CopyKindName(key[0]),
                                                                       MemKindName(key[1]), MemKindName(key[2])));
      e.name = it->second;
      Add(e, s.Int(0), s.Int(1));
    }
    if (!s.done()) return Corrupt("CUPTI_ACTIVITY_KIND_MEMCPY");
    return OkStatus();
  }

  Status ReadMemset() {
    if (!Has("CUPTI_ACTIVITY_KIND_MEMSET")) return OkStatus();
    ASSIGN_OR_RETURN(const std::string sql, GpuSelect("CUPTI_ACTIVITY_KIND_MEMSET", {"!bytes", "memKind"}));
    Stmt s(file_.db(), sql);
    if (!s.ok()) return Corrupt("CUPTI_ACTIVITY_KIND_MEMSET");
    const StringId cat = b_.strings().Intern("gpu_memset");
    std::map<int64_t, StringId> names;
    while (s.Next()) {
      EventRecord e;
      if (!GpuCommon(s, e)) continue;
      e.kind = OpKind::kMemset;
      e.cat = cat;
      e.bytes = s.Int(6);
      const int64_t kind = s.Null(7) ? 2 : s.Int(7);  // Kineto: "Memset (Device)"
      auto [it, fresh] = names.try_emplace(kind, 0);
      if (fresh) it->second = b_.strings().Intern(fmt::format("Memset ({})", MemKindName(kind)));
      e.name = it->second;
      Add(e, s.Int(0), s.Int(1));
    }
    if (!s.done()) return Corrupt("CUPTI_ACTIVITY_KIND_MEMSET");
    return OkStatus();
  }

  // CUPTI's synchronization records time the host's wait inside a sync call
  // (cudaStreamSynchronize, cudaEventSynchronize, cudaDeviceSynchronize,
  // cudaStreamWaitEvent): host time, not GPU work, though exported with the
  // device (and stream) waited on. So they are not ops on a GPU stream (that
  // counted the wait as the device's busy time, stretched its span, gave the
  // sync call device time in `ops`, and made a GPU of a device the rank only
  // waited on): each is a device-sync op on its process's "CUDA
  // synchronization" track, with the device and stream it waited on as
  // args. A stream sync keeps its call's correlation (the critical path's
  // sync edge from the stream's last kernel to the call's end); it is not a
  // launch (Finish joins GPU ops to launch calls only).
  Status ReadSync() {
    if (!Has("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")) return OkStatus();
    ASSIGN_OR_RETURN(const std::string sql,
                     Select("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                            {"!start", "!end", "deviceId", "streamId", "correlationId", "globalPid", "!syncType"}));
    Stmt s(file_.db(), sql);
    if (!s.ok()) return Corrupt("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
    const StringId cat = b_.strings().Intern("cuda_sync"), k_device = b_.strings().Intern("device"),
                   k_stream = b_.strings().Intern("stream"), track = b_.strings().Intern("CUDA synchronization");
    std::set<int64_t> named;  // pids whose sync track is named
    std::vector<ArgValue> args;
    while (s.Next()) {
      EventRecord e;
      const int64_t type = s.Int(6), pid = s.Null(5) ? 0 : PidOf(s.Int(5));
      e.kind = OpKind::kDeviceSync;
      e.cat = cat;
      e.name = b_.strings().Intern(SyncName(type));
      e.pid = pid, e.tid = kSyncTid;
      if (named.insert(pid).second) b_.SetThreadName(pid, kSyncTid, track);
      args.clear();
      if (!s.Null(2) && s.Int(2) >= 0 && s.Int(2) <= 0xFFFF) args.push_back(ArgValue::Int(k_device, s.Int(2)));
      // Event and context syncs wait for no stream (CUPTI writes an invalid
      // id, -1 as unsigned): their correlation links to no GPU op either.
      if (type != 1 && type != 4 && !s.Null(3) && s.Int(3) >= 0 && s.Int(3) < 0xFFFFFFFFll) {
        args.push_back(ArgValue::Int(k_stream, s.Int(3)));
        if (!s.Null(4)) e.correlation = Correlation(pid, s.Int(4));
      }
      e.args = args.data();
      e.arg_count = static_cast<uint32_t>(args.size());
      Add(e, s.Int(0), s.Int(1));
    }
    if (!s.done()) return Corrupt("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
    return OkStatus();
  }

  Status ReadNvtx() {
    if (!Has("NVTX_EVENTS")) return OkStatus();
    ASSIGN_OR_RETURN(const std::string sql,
                     Select("NVTX_EVENTS", {"!start", "end", "!eventType", "text", "textId", "globalTid"}));
    Stmt s(file_.db(), sql);
    if (!s.ok()) return Corrupt("NVTX_EVENTS");
    const StringId cat = b_.strings().Intern("nvtx");
    std::unordered_map<StringId, int64_t> step_of;  // names checked for a step number
    std::unordered_map<int64_t, std::string> start_end_threads;
    while (s.Next()) {
      const int64_t type = s.Int(2);
      if (type != 59 && type != 60) continue;  // PushPop and StartEnd ranges (marks, domains: not ranges)
      if (s.Null(1)) {
        b_.Warn(ImportStat::open_range, 0);
        continue;
      }
      EventRecord e;
      e.kind = OpKind::kUserAnnotation;
      e.cat = cat;
      e.name = !s.Null(3) ? b_.strings().Intern(s.Text(3)) : !s.Null(4) ? Str(s.Int(4)) : b_.strings().Intern("");
      const int64_t g = s.Null(5) ? 0 : s.Int(5);
      e.pid = PidOf(g), e.tid = TidOf(g);
      if (type == 60) {
        e.tid += kStartEndTidBase;
        if (start_end_threads.emplace(e.tid, "").second)
          b_.SetThreadName(e.pid, e.tid,
                           b_.strings().Intern(fmt::format("NVTX start/end ranges (thread {})", TidOf(g))));
      }
      auto [it, fresh] = step_of.try_emplace(e.name, -1);
      if (fresh) {
        it->second = StepNumberOfRange(b_.strings().Get(e.name));
        if (it->second >= 0) b_.AddStepName(e.name, it->second);
      }
      Add(e, s.Int(0), s.Int(1));
    }
    if (!s.done()) return Corrupt("NVTX_EVENTS");
    return OkStatus();
  }

  // GPU_METRICS (nsys profile --gpu-metrics-devices): samples of the GPU's
  // counters (SMs Active, Tensor Active, DRAM bandwidth ... as named in
  // TARGET_INFO_GPU_METRICS), on one counter track per GPU (typeId's low
  // byte is the GPU), series = the metric's name.
  Status ReadGpuMetrics() {
    if (!Has("GPU_METRICS") || !Has("TARGET_INFO_GPU_METRICS")) return OkStatus();
    std::map<std::pair<int64_t, int64_t>, StringId> names;  // (typeId, metricId) -> name
    {
      ASSIGN_OR_RETURN(std::string sql, Select("TARGET_INFO_GPU_METRICS", {"typeId", "!metricId", "!metricName"}));
      Stmt s(file_.db(), sql);
      if (!s.ok()) return Corrupt("TARGET_INFO_GPU_METRICS");
      while (s.Next()) names[{s.Null(0) ? -1 : s.Int(0), s.Int(1)}] = b_.strings().Intern(s.Text(2));
      if (!s.done()) return Corrupt("TARGET_INFO_GPU_METRICS");
    }
    // typeId's low byte is nsys's GPU id (TARGET_INFO_GPU.id); kernels carry
    // CUDA's device number: map through TARGET_INFO_GPU.cuDevice where the
    // export has it.
    std::map<int64_t, int64_t> cuda_device;
    if (Has("TARGET_INFO_GPU") && Columns("TARGET_INFO_GPU").count("cuDevice")) {
      Stmt g(file_.db(), "SELECT id, cuDevice FROM TARGET_INFO_GPU");
      while (g.ok() && g.Next())
        if (!g.Null(0) && !g.Null(1)) cuda_device[g.Int(0)] = g.Int(1);
    }
    ASSIGN_OR_RETURN(std::string sql, Select("GPU_METRICS", {"!timestamp", "!typeId", "!metricId", "!value", "rowid"}));
    Stmt s(file_.db(), sql);
    if (!s.ok()) return Corrupt("GPU_METRICS");
    const StringId counter = b_.strings().Intern("GPU metrics");
    std::set<int64_t> devices;
    while (s.Next()) {
      EventRecord e;
      e.offset = static_cast<uint64_t>(s.Int(4));
      if (s.Null(0) || s.Null(3)) {
        b_.Warn(ImportStat::missing_ts, e.offset);
        continue;
      }
      const int64_t type = s.Int(1);
      auto cu = cuda_device.find(type & 0xFF);
      const int64_t device =
          cu != cuda_device.end() && cu->second >= 0 && cu->second < 65536 ? cu->second : type & 0xFF;
      auto it = names.find({type, s.Int(2)});
      if (it == names.end()) it = names.find({-1, s.Int(2)});
      if (it == names.end()) {  // a metric the table does not name: "(metric N)", counted
        b_.Warn(ImportStat::unknown_string_id, e.offset);
        it = names.emplace(std::pair{type, s.Int(2)}, b_.strings().Intern(fmt::format("(metric {})", s.Int(2)))).first;
      }
      e.name = counter;
      e.pid = kGpuPidBase + device;
      e.tid = kGpuMetricsTid;
      e.ts = static_cast<Ps128>(s.Int(0)) * kPsPerNs;
      e.has_ts = true;
      b_.AddCounter(e, it->second, s.Real(3));
      if (devices.insert(device).second) {
        b_.SetThreadName(e.pid, e.tid, b_.strings().Intern(fmt::format("GPU {} metrics", device)));
        b_.SetTrackDevice(e.pid, e.tid, static_cast<int32_t>(device));
      }
    }
    if (!s.done()) return Corrupt("GPU_METRICS");
    return OkStatus();
  }

  Status ReadOsrt() {
    if (!Has("OSRT_API")) return OkStatus();
    ASSIGN_OR_RETURN(const std::string sql, Select("OSRT_API", {"!start", "!end", "!globalTid", "!nameId"}));
    Stmt s(file_.db(), sql);
    if (!s.ok()) return Corrupt("OSRT_API");
    const StringId cat = b_.strings().Intern("osrt");
    while (s.Next()) {
      EventRecord e;
      e.kind = OpKind::kOther;
      e.cat = cat;
      e.name = Str(s.Int(3));
      e.pid = PidOf(s.Int(2)), e.tid = TidOf(s.Int(2));
      Add(e, s.Int(0), s.Int(1));
    }
    if (!s.done()) return Corrupt("OSRT_API");
    return OkStatus();
  }

  // The rank the export recorded: an MPI or launcher variable in the
  // profiled process's environment (META_DATA_CAPTURE, nsys 2023 and later:
  // rows 'PROCESS_n:ENVIRONMENT_VARIABLE' = 'KEY="value"') or, in older
  // exports, in the session's (TARGET_INFO_SYSTEM_ENV 'DeviceEnvironment':
  // KEY=value, NUL-separated). The first variable of kRankVars that names one
  // rank; several processes with different ranks in one export: none.
  Status ReadRank() {
    std::map<std::string, std::set<int64_t>> seen;  // variable -> values
    auto note = [&](std::string_view kv) {
      const size_t eq = kv.find('=');
      if (eq == std::string_view::npos) return;
      const std::string key(kv.substr(0, eq));
      std::string_view v = kv.substr(eq + 1);
      if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
      int64_t n = 0;
      if (v.empty() || v.size() > 9) return;
      for (char c : v) {
        if (c < '0' || c > '9') return;
        n = n * 10 + (c - '0');
      }
      seen[key].insert(n);
    };
    if (Has("META_DATA_CAPTURE") && Columns("META_DATA_CAPTURE").count("name") &&
        Columns("META_DATA_CAPTURE").count("value")) {
      Stmt s(file_.db(), "SELECT value FROM META_DATA_CAPTURE WHERE name LIKE 'PROCESS_%:ENVIRONMENT_VARIABLE'");
      while (s.ok() && s.Next()) note(s.Text(0));
    }
    if (seen.empty() && Has("TARGET_INFO_SYSTEM_ENV") && Columns("TARGET_INFO_SYSTEM_ENV").count("name") &&
        Columns("TARGET_INFO_SYSTEM_ENV").count("value")) {
      Stmt s(file_.db(), "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'DeviceEnvironment'");
      while (s.ok() && s.Next()) {
        std::string_view env = s.Text(0);
        for (size_t at = 0; at < env.size();) {
          size_t end = env.find('\0', at);
          if (end == std::string_view::npos) end = env.size();
          note(env.substr(at, end - at));
          at = end + 1;
        }
      }
    }
    auto one = [&](std::initializer_list<std::string_view> vars) -> int64_t {
      for (std::string_view v : vars) {
        auto it = seen.find(std::string(v));
        if (it != seen.end()) return it->second.size() == 1 ? *it->second.begin() : -1;
      }
      return -1;
    };
    TraceMetadata& meta = b_.meta();
    meta.rank = one({"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK", "SLURM_PROCID", "RANK"});
    if (meta.rank >= 0)
      meta.world_size = one({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE", "SLURM_NTASKS", "WORLD_SIZE"});
    return OkStatus();
  }

  LoadedFile& f_;
  ProfileBuilder b_;
  SqliteFile file_;
  std::unordered_map<int64_t, std::string> strings_;
  std::unordered_map<int64_t, StringId> interned_;
  std::map<std::pair<int64_t, int64_t>, int64_t> thread_names_;  // (pid, tid) -> StringIds id
  std::set<std::pair<int64_t, int64_t>> threads_;                // (pid, tid) with ops
};

}  // namespace

bool LooksLikeSqlite(std::string_view head) { return head.substr(0, 16) == std::string_view("SQLite format 3\0", 16); }

bool LooksLikeNsysReport(std::string_view head) { return head.substr(0, 28) == "NVIDIA Tegra Profiler Report"; }

std::string_view StripApiVersion(std::string_view name) {
  const size_t v = name.rfind("_v");
  if (v == std::string_view::npos || v + 2 >= name.size()) return name;
  for (size_t i = v + 2; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return name;
  return name.substr(0, v);
}

int64_t StepNumberOfRange(std::string_view name) {
  // A word (ProfilerStep, step, iteration, iter, train_step, ...; letters
  // and underscores, ending in "step" or starting "iter"), separators
  // (space, _, #, :, -), then the number and nothing else.
  size_t i = 0;
  while (i < name.size() && (std::isalpha(static_cast<unsigned char>(name[i])) || name[i] == '_')) ++i;
  std::string word(name.substr(0, i));
  for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (!word.empty() && word.back() == '_') word.pop_back();
  const bool stepish =
      (word.size() >= 4 && word.compare(word.size() - 4, 4, "step") == 0) || word.rfind("iter", 0) == 0;
  if (!stepish) return -1;
  while (i < name.size() && (name[i] == ' ' || name[i] == '_' || name[i] == '#' || name[i] == ':' || name[i] == '-'))
    ++i;
  if (i == name.size()) return -1;
  int64_t n = 0;
  for (; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9' || n > (INT64_MAX - 9) / 10) return -1;
    n = n * 10 + (name[i] - '0');
  }
  return n;
}

Status ReadNsysSqlite(LoadedFile& file, const ReadOptions& options, RankProfile* out) {
  {
    // torch_npu's database form is SQLite too.
    SqliteFile probe;
    if (probe.Open(file).ok() && IsAscendDb(probe)) return ReadAscendDb(file, options, out);
  }
  DescribeFile(file, TraceFormat::kNsys, out);
  RETURN_IF_ERROR(RefuseTruncated(file));
  NsysReader r(file, out);
  RETURN_IF_ERROR(r.Read());
  if (options.progress) options.progress(file.bytes.size(), file.bytes.size());
  return OkStatus();
}

}  // namespace mlprof
