#include "report/info_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "analysis/grade.h"
#include "model/steps.h"
#include "report/columns.h"
#include "report/tables_common.h"

namespace mlprof {

Table SummaryTable(std::string_view report, const std::vector<SummaryRow>& rows) {
  struct Kind {
    std::string_view id, title, what;
  };
  static constexpr Kind kKinds[] = {
      {"cuda_gpu_kern_sum", "GPU kernels by name (nsys stats cuda_gpu_kern_sum; us)", "kernel name"},
      {"cuda_api_sum", "CUDA API calls by name (nsys stats cuda_api_sum; us)", "runtime or driver call"},
      {"cuda_gpu_mem_time_sum", "GPU copies and fills by operation: time (nsys stats cuda_gpu_mem_time_sum; us)",
       "operation"},
      {"cuda_gpu_mem_size_sum", "GPU copies and fills by operation: size (nsys stats cuda_gpu_mem_size_sum; MB)",
       "operation"},
      {"nvtx_sum", "Annotation ranges by name (nsys stats nvtx_sum: NVTX ranges, record_function; us)", "range"}};
  const Kind* k = &kKinds[0];
  for (const Kind& x : kKinds)
    if (x.id == report) k = &x;
  const bool bytes = k->id == "cuda_gpu_mem_size_sum";
  Table t(std::string(k->id), std::string(k->title));
  auto measure = [&](const char* name, const char* description) {
    return bytes ? Measure(name, Unit::kBytes, description).Show(std::string(name) + "_mb", 1e6, 3)
                 : TimeUs(name, description);
  };
  t.Add(RankKey())
      .Add(Pct(bytes ? "size_pct" : "time_pct", "share of the rows' total (not of the wall time, as nsys)", 1))
      .Add(measure("total", "sum"))
      .Add(Count("instances", "how many"))
      .Add(measure("avg", "mean"))
      .Add(measure("med", "median (the mean of the middle two for an even count)"))
      .Add(measure("min", "smallest"))
      .Add(measure("max", "largest"))
      .Add(measure("stddev", "sample standard deviation (n - 1; 0 for one)"));
  if (k->id == "nvtx_sum") t.Add(Text("style", "PushPop or StartEnd"));
  t.Add(Key("name", Unit::kText, std::string(k->what)).Symbol());
  for (const SummaryRow& r : rows) {
    std::vector<Cell> row = {
        Cell::Int(r.rank),       Cell::Real(r.pct),     TimeCell(r.time.sum),
        Cell::Int(r.time.count), TimeCell(r.time.mean), TimeCell(r.time.p50),
        TimeCell(r.time.min),    TimeCell(r.time.max),  TimeCell(r.time.count == 1 ? 0 : r.time.std)};
    if (k->id == "nvtx_sum") row.push_back(Cell::Text(r.style));
    row.push_back(Cell::Text(r.name));
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table KernExecTable(const std::vector<KernExecRow>& rows) {
  Table t("cuda_kern_exec_sum",
          "Kernel launch and execution (nsys stats cuda_kern_exec_sum: API time, queue time, kernel time; us)");
  t.Add(RankKey())
      .Add(Count("count", "kernels launched by this call"))
      .Add(TimeUs("api_avg", "the launch call's duration, mean"))
      .Add(TimeUs("queue_avg", "kernel start - the launch call's end (0 when it started before), mean"))
      .Add(TimeUs("queue_med", "its median"))
      .Add(TimeUs("kernel_avg", "kernel duration, mean"))
      .Add(TimeUs("kernel_total", "kernel durations, sum"))
      .Add(Key("api", Unit::kText, "the launch call"))
      .Add(Key("kernel", Unit::kText, "the kernel").Symbol());
  for (const KernExecRow& r : rows)
    t.rows.push_back({Cell::Int(r.rank), Cell::Int(r.kernel_time.count), TimeCell(r.api_time.mean),
                      TimeCell(r.queue.mean), TimeCell(r.queue.p50), TimeCell(r.kernel_time.mean),
                      TimeCell(r.kernel_time.sum), Cell::Text(r.api), Cell::Text(r.kernel)});
  t.notes.push_back(
      "Queue time near 0 for most kernels means the GPU waited for the launches (starved); a long queue means work "
      "was submitted well ahead.");
  return t;
}

Table OpStatisticTable(const std::vector<SummaryRow>& rows) {
  Table t("op_statistic", "Kernels by op type and core type (torch_npu op_statistic.csv; us)");
  t.Add(RankKey())
      .Add(Key("op_type", Unit::kText, "kernel_details.csv's Type").Symbol())
      .Add(Key("core_type", Unit::kText, "its Accelerator Core"))
      .Add(Count("count", "kernels"))
      .Add(TimeUs("total", "sum of their durations on the trace"))
      .Add(TimeUs("min", "shortest"))
      .Add(TimeUs("avg", "mean"))
      .Add(TimeUs("max", "longest"))
      .Add(Pct("ratio", "share of all kernels' total (HCCL left out, as torch_npu)", 3));
  for (const SummaryRow& r : rows)
    t.rows.push_back({Cell::Int(r.rank), Cell::Text(r.name), Cell::Text(r.style), Cell::Int(r.time.count),
                      TimeCell(r.time.sum), TimeCell(r.time.min), TimeCell(r.time.mean), TimeCell(r.time.max),
                      Cell::Real(r.pct)});
  return t;
}

Table RanksTable(const Profile& p) {
  Table t("ranks", "Inputs");
  t.Add(RankKey())
      .Add(Measure("world_size", Unit::kCount, "distributedInfo.world_size"))
      .Add(Count("ops", "events kept as ops"))
      .Add(Count("steps", "ProfilerSteps"))
      .Add(Text("gpus", "device names (deviceProperties)"))
      .Add(Text("file", "the input file"));
  for (const auto& r : p.ranks) {
    std::string gpus;
    for (const auto& d : r.meta.devices) {
      if (!gpus.empty()) gpus += ", ";
      gpus += d.name;
      if (gpus.size() > 40) break;
    }
    t.rows.push_back({Cell::Int(r.rank_or(-1)), r.meta.world_size >= 0 ? Cell::Int(r.meta.world_size) : Cell::Null(),
                      Cell::Int(static_cast<int64_t>(r.ops.size())), Cell::Int(static_cast<int64_t>(r.steps.size())),
                      Cell::Text(gpus), Cell::Text(r.path)});
  }
  return t;
}

std::vector<Table> InfoTables(const std::vector<RankInfo>& infos) {
  std::vector<Table> out;
  Table files("files", "Files");
  files.Add(RankKey())
      .Add(Text("format", "the reader that read the file"))
      .Add(Text("compression", "gzip, zstd or none"))
      .Add(Measure("file_bytes", Unit::kBytes, "size on disk"))
      .Add(Measure("json_bytes", Unit::kBytes, "size decoded"))
      .Add(Count("ops", "events kept as ops"))
      .Add(Count("flows", "flow events"))
      .Add(Count("counters", "counter samples"))
      .Add(Measure("span", Unit::kTime, "last op end - first op start").Ms())
      .Add(Text("path", "the input file"));
  Table phases("phases", "Events by phase");
  phases.Add(RankKey()).Add(Key("phase", Unit::kText, "the event's ph")).Add(Count("events", "events"));
  Table cats("categories", "Events by category");
  cats.Add(RankKey()).Add(Key("category", Unit::kText, "the event's cat")).Add(Count("events", "events"));
  Table tracks("tracks", "Tracks");
  tracks.Add(RankKey())
      .Add(Count("host_threads", "host threads and other non-GPU tracks"))
      .Add(Count("gpu_streams", "GPU streams"))
      .Add(Count("gpus", "GPUs with a stream"))
      .Add(Count("steps", "ProfilerSteps"))
      .Add(Measure("first_step", Unit::kId, "the first step's number"))
      .Add(Measure("last_step", Unit::kId, "the last step's number"))
      .Add(Text("devices", "device names"));
  Table problems("import_problems", "Import problems");
  problems.Add(RankKey())
      .Add(Key("problem", Unit::kText, "what was wrong"))
      .Add(Text("severity", "info, warning or error"))
      .Add(Count("count", "occurrences"))
      .Add(Measure("first_byte", Unit::kBytes, "byte offset of the first, in the decoded input"))
      .Add(Text("meaning", "what it means and what mlprof did"));
  for (const RankInfo& info : infos) {
    const RankProfile& r = *info.profile;
    int64_t rank = r.rank_or(-1);
    files.rows.push_back(
        {Cell::Int(rank), Cell::Text(std::string(TraceFormatName(r.format))), Cell::Text(r.compression),
         Cell::Int(static_cast<int64_t>(r.file_bytes)), Cell::Int(static_cast<int64_t>(r.decoded_bytes)),
         Cell::Int(static_cast<int64_t>(r.ops.size())), Cell::Int(static_cast<int64_t>(r.flows.size())),
         Cell::Int(static_cast<int64_t>(r.counters.size())),
         info.has_ops ? Time(info.last_end - info.first) : Cell::Null(), Cell::Text(r.path)});
    for (int ph = 0; ph < 128; ++ph)
      if (r.phase_counts[ph])
        phases.rows.push_back({Cell::Int(rank), Cell::Text(std::string(1, static_cast<char>(ph))),
                               Cell::Int(static_cast<int64_t>(r.phase_counts[ph]))});
    for (auto& [n, id] : info.categories)
      cats.rows.push_back({Cell::Int(rank), Cell::Text(std::string(r.str(id))), Cell::Int(static_cast<int64_t>(n))});
    std::string dev_names;
    for (const auto& d : r.meta.devices) dev_names += (dev_names.empty() ? "" : ", ") + d.name;
    tracks.rows.push_back({Cell::Int(rank), Cell::Int(info.host_tracks), Cell::Int(info.gpu_streams),
                           Cell::Int(info.gpus), Cell::Int(static_cast<int64_t>(r.steps.size())),
                           r.steps.empty() ? Cell::Null() : Cell::Int(r.steps.front().number),
                           r.steps.empty() ? Cell::Null() : Cell::Int(r.steps.back().number), Cell::Text(dev_names)});
    for (size_t k = 0; k < kImportStatCount; ++k) {
      if (!r.stats.count[k]) continue;
      const auto& info = GetImportStatInfo(static_cast<ImportStat>(k));
      problems.rows.push_back({Cell::Int(rank), Cell::Text(info.name), Cell::Text(SeverityName(info.severity)),
                               Cell::Int(static_cast<int64_t>(r.stats.count[k])),
                               Cell::Int(static_cast<int64_t>(r.stats.first_offset[k])), Cell::Text(info.help)});
    }
  }
  // Ops per track (XPlane: per plane and line; Kineto: per thread and stream).
  Table lines("track_ops", "Ops per track");
  lines.Add(RankKey())
      .Add(Key("process", Unit::kText, "process (Kineto pid name; XPlane plane)"))
      .Add(Key("thread", Unit::kText, "thread or stream (XPlane line)"))
      .Add(Text("kind", "gpu stream or host/other"))
      .Add(Count("ops", "ops on the track"));
  for (const RankInfo& info : infos) {
    const RankProfile& r = *info.profile;
    const std::vector<int64_t>& per_track = info.ops_per_track;
    for (size_t t = 0; t < r.tracks.size(); ++t) {
      const Track& tr = r.tracks[t];
      if (per_track[t] == 0) continue;
      std::string thread = tr.name                   ? std::string(r.str(tr.name))
                           : tr.tid >= kStringIdBase ? std::string(r.str(static_cast<StringId>(tr.tid - kStringIdBase)))
                                                     : std::to_string(tr.tid);
      lines.rows.push_back(
          {Cell::Int(r.rank_or(-1)), Cell::Text(std::string(r.str(tr.process_name))), Cell::Text(thread),
           Cell::Text(tr.kind == TrackKind::kGpuStream ? "gpu stream" : "host/other"), Cell::Int(per_track[t])});
    }
  }
  out.push_back(std::move(files));
  out.push_back(std::move(tracks));
  out.push_back(std::move(lines));
  out.push_back(std::move(phases));
  out.push_back(std::move(cats));
  out.push_back(std::move(problems));
  // Files read beside the traces (torch_npu's CSV and JSON outputs).
  Table side("sidecars", "Files read beside the traces");
  side.Add(RankKey()).Add(Text("read", "the file and what it gave"));
  for (const RankInfo& info : infos)
    for (const std::string& line : info.profile->sidecars)
      side.rows.push_back({Cell::Int(info.profile->rank_or(-1)), Cell::Text(line)});
  if (!side.rows.empty()) out.push_back(std::move(side));
  return out;
}

namespace {
std::string Dims(std::span<const int64_t> v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}
}  // namespace

Table ShapeTable(const std::vector<ShapeElement>& elements) {
  Table t("shapes", "HLO shapes: memory order (major to minor), tiling and the padded physical size");
  t.Add(Key("element", Unit::kText, "tuple index (empty for an array)"))
      .Add(Text("type", "element type"))
      .Add(Text("dims", "logical dimensions"))
      .Add(Text("major_to_minor", "dimension numbers in memory order, outermost first"))
      .Add(Text("tiles", "the layout's tiles; * = the dimension is not tiled"))
      .Add(Text("padded", "physical dimensions in memory order, each tiled one rounded up to its tile"))
      .Add(Measure("logical_bytes", Unit::kBytes, "elements x element size"))
      .Add(Measure("physical_bytes", Unit::kBytes, "padded elements x element size"))
      .Add(Measure("expansion", Unit::kRatio, "physical_bytes / logical_bytes").Decimals(3))
      .Add(Text("memory", "memory space (TPU naming)"))
      .Add(Text("shape", "the shape as XLA prints it"));
  for (const ShapeElement& e : elements) {
    const hlo::Shape& s = *e.shape;
    const hlo::PhysicalShape& p = e.physical;
    std::string tiles;
    for (const auto& tile : s.layout.tiles) {
      tiles += "(";
      for (size_t i = 0; i < tile.size(); ++i)
        tiles += (i ? "," : "") + (tile[i] < 0 ? std::string("*") : std::to_string(tile[i]));
      tiles += ")";
    }
    std::string order;
    for (size_t i = 0; i < s.layout.minor_to_major.size(); ++i)
      order += (i ? "," : "") + std::to_string(s.layout.minor_to_major[s.layout.minor_to_major.size() - 1 - i]);
    t.rows.push_back({Cell::Text(e.index), Cell::Text(hlo::ElementTypeName(s.type)), Cell::Text(Dims(s.dims)),
                      Cell::Text(order.empty() ? "default" : order), Cell::Text(tiles),
                      Cell::Text(Dims(p.padded_major_to_minor)), Cell::Int(p.logical_bytes), Cell::Int(p.bytes),
                      Cell::Real(p.expansion()), Cell::Text(hlo::MemorySpaceName(s.layout.memory_space)),
                      Cell::Text(s.ToString())});
  }
  t.notes.push_back(
      "Tiles cover the minor-most dims, each rounded up to the tile; later tiles tile the tile. "
      "Memory: S(0) HBM, S(1) VMEM, S(2) SMEM, S(5)/S(6) host (TPU naming).");
  return t;
}

std::vector<std::string> RankImportWarnings(const RankProfile& r) {
  std::vector<std::string> out = GradeWarnings(GradeRank(r, r.rank_or(0)), r.path);
  for (size_t k = 0; k < kImportStatCount; ++k) {
    if (!r.stats.count[k]) continue;
    const auto& info = GetImportStatInfo(static_cast<ImportStat>(k));
    if (info.severity < Severity::kWarning) continue;
    out.push_back(fmt::format("{}: {} x {} (first at {}byte {}): {}", r.path, r.stats.count[k], info.name,
                              r.compression == "none" || r.compression.empty()                        ? ""
                              : static_cast<ImportStat>(k) == ImportStat::compressed_trailing_garbage ? "compressed "
                                                                                                      : "decompressed ",
                              r.stats.first_offset[k], info.help));
  }
  return out;
}

std::vector<std::string> ImportWarnings(const Profile& p) {
  std::vector<std::string> out;
  for (const auto& s : p.notes) out.push_back(s);
  for (const auto& s : p.skipped) out.push_back("skipped: " + s);
  for (const auto& r : p.ranks)
    for (const auto& w : r.sidecar_warnings) out.push_back(w);
  for (const auto& r : p.ranks)
    for (std::string& w : RankImportWarnings(r)) out.push_back(std::move(w));
  return out;
}

}  // namespace mlprof
