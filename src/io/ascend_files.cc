#include "io/ascend_files.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>

#include "base/csv.h"
#include "base/file_loader.h"
#include "base/time.h"
#include "io/readers.h"

namespace mlprof {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kOutputDir = "ASCEND_PROFILER_OUTPUT";

// The folder's own name, however the path was written ("." and "x/" too).
std::string FolderName(const fs::path& p) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec).lexically_normal();
  if (!a.has_filename()) a = a.parent_path();
  return a.filename().string();
}

bool IsDir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}
bool IsFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// The trace of one ASCEND_PROFILER_OUTPUT folder: trace_view.json, else
// kernel_details.csv (the device side alone), else "" (named in missing).
std::string TraceIn(const fs::path& out_dir, std::vector<std::string>* missing) {
  for (const char* name : {"trace_view.json", "kernel_details.csv"})
    if (IsFile(out_dir / name)) return (out_dir / name).string();
  // The database form: ascend_pytorch_profiler_<rank>.db.
  std::error_code ec;
  std::vector<std::string> dbs;
  for (const auto& e : fs::directory_iterator(out_dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("ascend_pytorch_profiler") && name.ends_with(".db") && IsFile(e.path()))
      dbs.push_back(e.path().string());
  }
  std::sort(dbs.begin(), dbs.end());
  if (!dbs.empty()) return dbs.front();
  if (missing) missing->push_back(out_dir.string());
  return "";
}

bool ParseReal(std::string_view s, double* out) {
  s = TrimCsvField(s);
  if (s.empty()) return false;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, *out);
  return ec == std::errc() && p == end && std::isfinite(*out);
}

// The fields of kernel_details.csv rows given to their kernels as args: the
// op type and a few descriptive columns as text, and the PMU columns (every
// column after "Context ID") as numbers.
class KernelRowArgs {
 public:
  KernelRowArgs(const CsvReader& t, ProfileBuilder& b) : t_(t), b_(b) {
    type_col_ = t.Column("Type");
    type_key_ = b.strings().Intern("OP Type");
    for (const char* name :
         {"Accelerator Core", "Input Shapes", "Input Data Types", "Output Shapes", "Block Dim", "Mix Block Dim"}) {
      const int c = t.Column(name);
      if (c >= 0) text_.push_back({c, b.strings().Intern(name)});
    }
    // The PMU columns follow "Context ID"; headers without it (profiler
    // level 0) have none.
    const int pmu_from = t.Column("Context ID");
    for (size_t c = static_cast<size_t>(pmu_from) + 1; pmu_from >= 0 && c < t.header().size(); ++c)
      pmu_.push_back({static_cast<int>(c), b.strings().Intern(TrimCsvField(t.header()[c]))});
  }
  // The most args a row gives.
  size_t per_row() const { return 1 + text_.size() + pmu_.size(); }
  // The current row of the reader.
  void Add(size_t op) {
    const std::string_view type = TrimCsvField(t_.Get(type_col_));
    if (!type.empty() && type != "N/A") b_.AddOpArg(op, ArgValue::String(type_key_, b_.strings().Intern(type)));
    for (const Col& c : text_) {
      const std::string_view v = TrimCsvField(t_.Get(c.col));
      if (!v.empty() && v != "N/A") b_.AddOpArg(op, ArgValue::String(c.key, b_.strings().Intern(v)));
    }
    for (const Col& c : pmu_) {
      double v = 0;
      if (ParseReal(t_.Get(c.col), &v)) b_.AddOpArg(op, ArgValue::Real(c.key, v));
    }
  }

 private:
  struct Col {
    int col;
    StringId key;
  };
  const CsvReader& t_;
  ProfileBuilder& b_;
  int type_col_ = -1;
  StringId type_key_ = 0;
  std::vector<Col> text_, pmu_;
};

}  // namespace

Ps AscendMsToPs(double ms) {
  return std::isfinite(ms) && ms >= 0 && ms <= 1e9 ? static_cast<Ps>(std::llround(ms * static_cast<double>(kPsPerMs)))
                                                   : Ps{-1};
}

int64_t AscendStep(std::string_view key) {
  if (key.substr(0, 4) != "step") return -1;
  int64_t n = -1;
  auto [p, ec] = std::from_chars(key.data() + 4, key.data() + key.size(), n);
  return ec == std::errc() && p == key.data() + key.size() ? n : -1;
}

CommOpJoin::CommOpJoin(const ProfileBuilder& b) : p_(b.partial()) {
  for (size_t i = 0; i < p_.ops.size(); ++i)
    if (p_.ops.kind[i] == OpKind::kKernel) by_name_.emplace(p_.str(p_.ops.name[i]), static_cast<uint32_t>(i));
}

bool CommOpJoin::Join(const ProfileBuilder& b, double start_us, CommOpStat* c) const {
  c->op = -1;
  // Epoch microseconds are about 1.7e15; past 9e15 the ns below would overflow.
  if (!std::isfinite(start_us) || std::abs(start_us) > 9e15) return false;
  // ns from the double (about 0.25 us apart at epoch microseconds).
  Ps start = 0;
  if (!b.ToPartialTime(static_cast<Ps128>(std::llround(start_us * 1e3)) * 1000, &start)) return false;
  c->start = start;
  c->has_start = true;
  // Within 2 us, or within the op's own time: the database form's analysis
  // starts an op at its first task, up to tens of us after the op.
  Ps best = std::max<Ps>(2 * kPsPerUs, c->elapse);
  auto [lo, hi] = by_name_.equal_range(p_.str(c->name));
  for (auto it = lo; it != hi; ++it) {
    const Ps d = std::abs(p_.ops.ts[it->second] - start);
    if (d <= best) best = d, c->op = static_cast<int32_t>(it->second);
  }
  if (c->op >= 0) c->start = p_.ops.ts[c->op];
  return c->op >= 0;
}

namespace {}  // namespace

NpuMemoryEvents::NpuMemoryEvents(ProfileBuilder& b) : b_(b) {
  StringPool& sp = b.strings();
  memory_ = sp.Intern("[memory]");
  cat_ = sp.Intern("cpu_instant_event");
  bytes_ = sp.Intern("Bytes");
  total_ = sp.Intern("Total Allocated");
  reserved_ = sp.Intern("Total Reserved");
  type_ = sp.Intern("Device Type");
  id_ = sp.Intern("Device Id");
  addr_ = sp.Intern("Addr");
  op_ = sp.Intern("Op Name");
}

void NpuMemoryEvents::Add(const NpuAllocation& a) {
  constexpr int64_t kMemoryPid = int64_t{1} << 42;
  if (events_ == 0) b_.SetProcessName(kMemoryPid, b_.strings().Intern("NPU memory (per-op allocations)"));
  const int64_t device = a.device >= 0 && a.device <= 65535 ? a.device : 0;
  for (bool release : {false, true}) {
    // Not released in the window, or a release before the allocation (a
    // damaged row): the block stays allocated.
    if (release && (!a.has_release || a.release_ts < a.alloc_ts)) continue;
    EventRecord e;
    e.ph = 'i';
    e.name = memory_;
    e.cat = cat_;
    e.has_cat = true;
    e.kind = OpKind::kInstant;
    e.pid = kMemoryPid;
    e.tid = device;
    e.offset = a.offset;
    e.ts = release ? a.release_ts : a.alloc_ts;
    e.has_ts = true;
    ArgValue args[7];
    uint32_t n = 0;
    args[n++] = ArgValue::Int(bytes_, release ? -a.bytes : a.bytes);
    const int64_t total = release ? a.release_total : a.alloc_total;
    const int64_t reserved = release ? a.release_reserved : a.alloc_reserved;
    if (total >= 0) args[n++] = ArgValue::Int(total_, total);
    if (reserved >= 0) args[n++] = ArgValue::Int(reserved_, reserved);
    args[n++] = ArgValue::Int(type_, 20);  // PrivateUse1: torch_npu's device
    args[n++] = ArgValue::Int(id_, device);
    args[n++] = ArgValue::Int(addr_, a.addr);
    args[n++] = ArgValue::String(op_, a.op);
    e.args = args;
    e.arg_count = n;
    b_.AddEvent(e);
    ++events_;
  }
}

namespace {

class Sidecars {
 public:
  Sidecars(const fs::path& dir, ProfileBuilder& b) : dir_(dir), b_(b), p_(b.partial()) {}

  void Rank() {
    // profiler_info_<R>.json sits in the run folder, above ASCEND_PROFILER_OUTPUT.
    std::error_code ec;
    const fs::path run = dir_.has_parent_path() ? dir_.parent_path() : dir_ / "..";
    for (const auto& e : fs::directory_iterator(run, ec)) {
      const std::string name = e.path().filename().string();
      if (!name.starts_with("profiler_info") || !name.ends_with(".json")) continue;
      simdjson::dom::parser parser;
      simdjson::dom::element root;
      if (auto err = parser.load(e.path().string()).get(root)) {
        b_.WarnSidecar(fmt::format("{}: not read: {}", e.path().string(), simdjson::error_message(err)));
        return;
      }
      int64_t rank = -1;
      if (root["rank_id"].get(rank) == simdjson::SUCCESS && rank >= 0) {
        if (b_.meta().rank < 0) b_.meta().rank = rank;
        b_.NoteSidecar(fmt::format("{}: rank {}", e.path().string(), rank));
      }
      return;
    }
  }

  void KernelDetails() {
    const fs::path path = dir_ / "kernel_details.csv";
    if (!IsFile(path)) return;
    auto file = LoadFile(path.string());
    if (!file.ok()) return Warn(path, file.status().message());
    CsvReader t(file->bytes.view(), path.string());
    if (Status st = t.ReadHeader(); !st.ok()) return Warn(path, st.message());
    const int c_name = t.Column("Name"), c_start = t.Column("Start Time(us)");
    for (auto [col, name] : {std::pair{c_name, "Name"}, {c_start, "Start Time(us)"}})
      if (col < 0) return Warn(path, fmt::format("no \"{}\" column, so its rows cannot be joined to kernels", name));
    KernelRowArgs args(t, b_);
    // The device ops by start: a row joins the kernel of its name starting
    // within 1 ns (HCCL rows are 1 ns off the trace), on its stream where
    // the row names one, each kernel once.
    std::multimap<Ps, uint32_t> by_start;
    for (size_t i = 0; i < p_.ops.size(); ++i)
      if (p_.ops.kind[i] == OpKind::kKernel) by_start.emplace(p_.ops.ts[i], static_cast<uint32_t>(i));
    std::vector<bool> used(p_.ops.size(), false);
    const int c_stream = t.Column("Stream ID");
    size_t joined = 0, unjoined = 0;
    uint32_t first_unjoined = 0;
    size_t rows = 0;
    while (t.Next()) {
      ++rows;
      const std::string_view name = TrimCsvField(t.Get(c_name));
      Ps128 abs = 0;
      Ps start = 0;
      int32_t op = -1;
      if (ParseDecimalPs(TrimCsvField(t.Get(c_start)), kPsPerUs, &abs) == DecimalError::kOk &&
          b_.ToPartialTime(abs, &start)) {
        int64_t stream = -1;
        const std::string_view st = TrimCsvField(t.Get(c_stream));
        if (std::from_chars(st.data(), st.data() + st.size(), stream).ec != std::errc()) stream = -1;
        for (auto it = by_start.lower_bound(start - 1000); it != by_start.end() && it->first <= start + 1000; ++it) {
          const uint32_t i = it->second;
          if (used[i] || p_.str(p_.ops.name[i]) != name) continue;
          const Track& track = p_.tracks[p_.ops.track[i]];
          // HCCL lanes carry no hardware stream id: only compute lanes are compared.
          if (stream >= 0 && track.stream >= 0 && track.stream < (int64_t{1} << 20) && track.stream != stream) continue;
          op = static_cast<int32_t>(i);
          used[i] = true;
          break;
        }
      }
      if (op < 0) {
        if (unjoined++ == 0) first_unjoined = t.line();
        continue;
      }
      ++joined;
      args.Add(static_cast<size_t>(op));
    }
    if (!t.status().ok()) Warn(path, fmt::format("{}; the rows before it were read", t.status().message()));
    b_.NoteSidecar(fmt::format("{}: {} rows joined to the trace's kernels", path.string(), joined));
    if (unjoined)
      Warn(path, fmt::format("{} of {} rows match no kernel of the trace by name and start (first at line {}); "
                             "their fields are left out",
                             unjoined, rows, first_unjoined));
  }

  void Communication() {
    const fs::path path = dir_ / "communication.json";
    if (!IsFile(path)) return;
    simdjson::dom::parser parser;
    simdjson::dom::object root;
    if (auto err = parser.load(path.string()).get(root)) return Warn(path, simdjson::error_message(err));
    const CommOpJoin join(b_);
    size_t ops = 0, unjoined = 0, bad = 0;
    for (auto [step_key, step_val] : root) {
      simdjson::dom::object kinds;
      if (step_val.get(kinds)) {
        ++bad;
        continue;
      }
      for (auto [kind, kind_val] : kinds) {
        simdjson::dom::object entries;
        if (kind_val.get(entries)) continue;
        for (auto [key, op_val] : entries) {
          if (key == "Total Op Info") continue;  // the sum of the others
          CommOpStat c;
          const size_t at = key.find('@');
          c.name = b_.strings().Intern(key.substr(0, at));
          if (at != std::string_view::npos) c.group = b_.strings().Intern(key.substr(at + 1));
          c.step = AscendStep(step_key);
          c.p2p = kind == "p2p";
          simdjson::dom::object info;
          if (op_val["Communication Time Info"].get(info)) {
            ++bad;
            continue;
          }
          auto ms = [&](const char* field) {
            double v = 0;
            if (info[field].get(v) != simdjson::SUCCESS) return Ps{-1};  // not recorded
            const Ps ps = AscendMsToPs(v);
            if (ps < 0) ++bad;
            return ps;
          };
          c.elapse = ms("Elapse Time(ms)");
          c.transit = ms("Transit Time(ms)");
          c.wait = ms("Wait Time(ms)");
          c.sync = ms("Synchronization Time(ms)");
          c.idle = ms("Idle Time(ms)");
          double start_us = 0;
          if (info["Start Timestamp(us)"].get(start_us) != simdjson::SUCCESS) start_us = NAN;
          join.Join(b_, start_us, &c);
          if (c.op < 0) ++unjoined;
          const uint32_t index = b_.AddCommOp(c);
          ++ops;
          simdjson::dom::object bw;
          if (op_val["Communication Bandwidth Info"].get(bw)) continue;
          for (auto [transport, tv] : bw) {
            LinkTransfer l;
            l.comm_op = static_cast<int32_t>(index);
            l.step = c.step;
            l.transport = b_.strings().Intern(transport);
            if (!ReadTransfer(tv, &l)) {
              ++bad;
              continue;
            }
            if (l.megabytes > 0 || l.time > 0) b_.AddLinkTransfer(l);
          }
        }
      }
    }
    b_.NoteSidecar(fmt::format("{}: {} communication ops", path.string(), ops));
    if (unjoined) Warn(path, fmt::format("{} of {} ops match no op of the trace by name and start", unjoined, ops));
    if (bad) Warn(path, fmt::format("{} entries are not objects with the expected fields; left out", bad));
  }

  // operator_memory.csv: each allocation an op made (size, allocation and
  // release time, the allocator's totals after each) as the allocator events
  // a Kineto trace records ([memory] instants: Bytes, Total Allocated, Total
  // Reserved, Device Type 20 = torch_npu's device, Addr = the row), with the
  // op's name as "Op Name": `mlprof memory` reads them like Kineto's.
  void OperatorMemory() {
    const fs::path path = dir_ / "operator_memory.csv";
    if (!IsFile(path)) return;
    auto file = LoadFile(path.string());
    if (!file.ok()) return Warn(path, file.status().message());
    auto table = ParseCsv(file->bytes.view(), path.string());
    if (!table.ok()) return Warn(path, table.status().message());
    const CsvTable& t = *table;
    const int c_name = t.Column("Name"), c_size = t.Column("Size(KB)"), c_alloc = t.Column("Allocation Time(us)"),
              c_release = t.Column("Release Time(us)"), c_a_total = t.Column("Allocation Total Allocated(MB)"),
              c_a_res = t.Column("Allocation Total Reserved(MB)"), c_r_total = t.Column("Release Total Allocated(MB)"),
              c_r_res = t.Column("Release Total Reserved(MB)"), c_device = t.Column("Device Type");
    for (auto [col, name] : {std::pair{c_name, "Name"}, {c_size, "Size(KB)"}, {c_alloc, "Allocation Time(us)"}})
      if (col < 0) return Warn(path, fmt::format("no \"{}\" column; the file is left out", name));
    // MB and KB in these files are binary (MiB, KiB): sizes are whole bytes.
    auto bytes_of = [](std::string_view text, double unit, int64_t* out) {
      double v = 0;
      if (!ParseReal(text, &v) || v < 0 || v * unit > 1e18) return false;
      *out = std::llround(v * unit);
      return true;
    };
    NpuMemoryEvents out(b_);
    size_t bad = 0;
    uint32_t first_bad = 0;
    for (size_t r = 0; r < t.rows.size(); ++r) {
      NpuAllocation a;
      const std::string_view dev = TrimCsvField(t.Get(r, c_device));  // "NPU:0"
      const size_t colon = dev.find(':');
      if (colon != std::string_view::npos &&
          std::from_chars(dev.data() + colon + 1, dev.data() + dev.size(), a.device).ec != std::errc())
        a.device = 0;
      const std::string_view alloc = TrimCsvField(t.Get(r, c_alloc)), release = TrimCsvField(t.Get(r, c_release));
      if (!bytes_of(t.Get(r, c_size), 1024, &a.bytes) ||
          ParseDecimalPs(alloc, kPsPerUs, &a.alloc_ts) != DecimalError::kOk ||
          (!release.empty() && ParseDecimalPs(release, kPsPerUs, &a.release_ts) != DecimalError::kOk)) {
        if (bad++ == 0) first_bad = t.line[r];
        continue;
      }
      a.has_release = !release.empty();
      a.op = b_.strings().Intern(TrimCsvField(t.Get(r, c_name)));
      a.addr = static_cast<int64_t>(r) + 1;
      a.offset = t.offset[r];
      if (!bytes_of(t.Get(r, c_a_total), 1048576, &a.alloc_total)) a.alloc_total = -1;
      if (!bytes_of(t.Get(r, c_a_res), 1048576, &a.alloc_reserved)) a.alloc_reserved = -1;
      if (!bytes_of(t.Get(r, c_r_total), 1048576, &a.release_total)) a.release_total = -1;
      if (!bytes_of(t.Get(r, c_r_res), 1048576, &a.release_reserved)) a.release_reserved = -1;
      out.Add(a);
    }
    const size_t events = out.events();
    if (events) {
      b_.NoteSidecar(fmt::format("{}: {} allocator events from {} allocations", path.string(), events, t.rows.size()));
    }
    if (bad)
      Warn(path, fmt::format("{} rows without a usable size or time (first at line {}); left out", bad, first_bad));
  }

  void Matrix() {
    const fs::path path = dir_ / "communication_matrix.json";
    if (!IsFile(path)) return;
    simdjson::dom::parser parser;
    simdjson::dom::object root;
    if (auto err = parser.load(path.string()).get(root)) return Warn(path, simdjson::error_message(err));
    size_t links = 0, bad = 0;
    for (auto [step_key, step_val] : root) {
      simdjson::dom::object kinds;
      if (step_val.get(kinds)) {
        ++bad;
        continue;
      }
      for (auto [kind, kind_val] : kinds) {
        simdjson::dom::object groups;
        if (kind_val.get(groups)) continue;
        for (auto [group, group_val] : groups) {
          simdjson::dom::object pairs;
          if (group_val.get(pairs)) {
            ++bad;
            continue;
          }
          const StringId g = b_.strings().Intern(group);
          for (auto [pair, pv] : pairs) {
            LinkTransfer l;
            l.group = g;
            l.step = AscendStep(step_key);
            const size_t dash = pair.find('-');
            int src = -1, dst = -1;
            auto whole = [](std::string_view t, int* out) {
              auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), *out);
              return ec == std::errc() && end == t.data() + t.size() && !t.empty() && *out >= 0;
            };
            if (dash == std::string_view::npos || !whole(pair.substr(0, dash), &src) ||
                !whole(pair.substr(dash + 1), &dst)) {
              ++bad;
              continue;
            }
            l.src = src, l.dst = dst;
            std::string_view transport, op_name;
            if (pv["Transport Type"].get(transport) == simdjson::SUCCESS) l.transport = b_.strings().Intern(transport);
            if (pv["Op Name"].get(op_name) == simdjson::SUCCESS) l.op_name = b_.strings().Intern(op_name);
            if (!ReadTransfer(pv, &l)) {
              ++bad;
              continue;
            }
            b_.AddLinkTransfer(l);
            ++links;
          }
        }
      }
    }
    b_.NoteSidecar(fmt::format("{}: {} links", path.string(), links));
    if (bad) Warn(path, fmt::format("{} entries are not objects with the expected fields; left out", bad));
  }

 private:
  static bool ReadTransfer(simdjson::dom::element v, LinkTransfer* l) {
    double mb = 0, ms = 0, gbps = -1;
    if (v["Transit Size(MB)"].get(mb) || v["Transit Time(ms)"].get(ms)) return false;
    // Sizes up to 10^12 MB (10^18 bytes), times as MsToPs.
    if (!std::isfinite(mb) || mb < 0 || mb > 1e12 || AscendMsToPs(ms) < 0) return false;
    if (v["Bandwidth(GB/s)"].get(gbps) || !std::isfinite(gbps)) gbps = -1;
    l->megabytes = mb;
    l->time = AscendMsToPs(ms);
    l->reported_gbps = gbps;
    return true;
  }

  void Warn(const fs::path& path, std::string_view why) { b_.WarnSidecar(fmt::format("{}: {}", path.string(), why)); }

  fs::path dir_;
  ProfileBuilder& b_;
  const RankProfile& p_;
};

}  // namespace

bool LooksLikeAscendKernelDetails(std::string_view b) {
  if (b.substr(0, 3) == "\xEF\xBB\xBF") b.remove_prefix(3);
  const std::string_view header = b.substr(0, b.find('\n'));
  return header.find("Start Time(us)") != std::string_view::npos &&
         (header.find("Accelerator Core") != std::string_view::npos || header.starts_with("Step Id,Model ID"));
}

Status ReadAscendKernelDetails(LoadedFile& file, const ReadOptions& options, RankProfile* out) {
  DescribeFile(file, TraceFormat::kAscendKernelDetails, out);
  RETURN_IF_ERROR(RefuseTruncated(file));
  CsvReader t(file.bytes.view(), file.path);
  RETURN_IF_ERROR(t.ReadHeader());
  const int c_name = t.Column("Name"), c_start = t.Column("Start Time(us)"), c_dur = t.Column("Duration(us)"),
            c_stream = t.Column("Stream ID"), c_core = t.Column("Accelerator Core");
  for (auto [col, name] : {std::pair{c_name, "Name"}, {c_start, "Start Time(us)"}, {c_dur, "Duration(us)"}})
    if (col < 0)
      return DataLoss(
          fmt::format("{}: line 1: no \"{}\" column: expected torch_npu's kernel_details.csv header "
                      "(Name, Start Time(us), Duration(us), ...)",
                      file.path, name));
  ProfileBuilder b(out);
  KernelRowArgs args(t, b);
  // One op a line, and the row's args: reserved once (a million rows of PMU
  // columns are tens of millions of args).
  const std::string_view text = file.bytes.view();
  const auto lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  // Capped by the bytes (a row is more than 16 bytes, an arg more than 2):
  // blank lines or a header of thousands of columns reserve nothing absurd.
  b.ReserveOps(std::min(lines, text.size() / 16 + 1));
  b.ReserveArgs(std::min(lines * args.per_row(), text.size() / 2 + 1));
  const StringId task_cat = b.strings().Intern("ascend_task"), hccl_cat = b.strings().Intern("hccl");
  // HCCL rows go on a stream apart from the compute streams (as the HCCL
  // lanes of trace_view.json do, io/ascend_conventions.cc).
  constexpr int64_t kHcclStreamBase = int64_t{1} << 20;
  b.SetProcessName(0, b.strings().Intern("Ascend Hardware"));
  std::set<int64_t> named_streams;
  while (t.Next()) {
    EventRecord e;
    e.ph = 'X';
    e.offset = t.offset();
    const std::string_view start = TrimCsvField(t.Get(c_start)), dur = TrimCsvField(t.Get(c_dur));
    if (start.empty()) {
      b.Warn(ImportStat::missing_ts, e.offset);
      continue;
    }
    if (dur.empty()) {
      b.Warn(ImportStat::missing_dur, e.offset);
      continue;
    }
    const DecimalError ts_err = ParseDecimalPs(start, kPsPerUs, &e.ts);
    const DecimalError dur_err = ParseDecimalPs(dur, kPsPerUs, &e.dur);
    if (ts_err != DecimalError::kOk || dur_err != DecimalError::kOk) {
      b.Warn(ts_err == DecimalError::kOutOfRange || dur_err == DecimalError::kOutOfRange
                 ? ImportStat::number_out_of_range
                 : ImportStat::bad_number,
             e.offset);
      continue;
    }
    if (e.dur < 0) {
      b.Warn(ImportStat::negative_duration, e.offset);
      continue;
    }
    e.has_ts = e.has_dur = true;
    const bool hccl = TrimCsvField(t.Get(c_core)) == "HCCL";
    int64_t stream = 0;
    const std::string_view s = TrimCsvField(t.Get(c_stream));
    if (std::from_chars(s.data(), s.data() + s.size(), stream).ec != std::errc() || stream < 0 || stream > (1 << 20))
      stream = 0;  // "N/A" on HCCL rows
    e.name = b.strings().Intern(TrimCsvField(t.Get(c_name)));
    e.cat = hccl ? hccl_cat : task_cat;
    e.has_cat = true;
    e.kind = OpKind::kKernel;
    e.device = 0;
    e.stream = hccl ? kHcclStreamBase + stream : stream;
    e.pid = 0;
    e.tid = e.stream;
    if (named_streams.insert(e.stream).second)
      b.SetThreadName(
          0, e.stream,
          b.strings().Intern(hccl ? fmt::format("HCCL (stream {})", stream) : fmt::format("Stream {}", stream)));
    const size_t before = b.partial().ops.size();
    b.AddEvent(e);
    if (b.partial().ops.size() > before) args.Add(before);
  }
  RETURN_IF_ERROR(t.status());
  (void)options;
  ReadAscendSidecars(file.path, b);
  return b.Finish();
}

std::vector<std::string> AscendTraceFiles(const std::string& dir_text, std::vector<std::string>* missing) {
  const fs::path dir(dir_text);
  std::vector<std::string> out;
  auto take = [&](const fs::path& out_dir) {
    const std::string t = TraceIn(out_dir, missing);
    if (!t.empty()) out.push_back(t);
  };
  if (FolderName(dir) == kOutputDir) {
    take(dir);
    return out;
  }
  if (IsDir(dir / kOutputDir)) {
    take(dir / kOutputDir);
    return out;
  }
  std::error_code ec;
  std::vector<fs::path> runs;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (IsDir(e.path()) && IsDir(e.path() / kOutputDir)) runs.push_back(e.path() / kOutputDir);
  std::sort(runs.begin(), runs.end());
  for (const fs::path& r : runs) take(r);
  return out;
}

void ReadAscendSidecars(const std::string& trace_path, ProfileBuilder& b) {
  fs::path dir = fs::path(trace_path).parent_path();
  if (dir.empty()) dir = ".";
  if (FolderName(dir) != kOutputDir || !IsDir(dir)) return;
  Sidecars s(dir, b);
  s.Rank();
  if (fs::path(trace_path).filename() != "kernel_details.csv") s.KernelDetails();
  s.Communication();
  s.Matrix();
  s.OperatorMemory();
}

}  // namespace mlprof
