#include "report/tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace mlprof {

namespace {
Cell Us(Ps ps) { return Cell::Real(PsToUs(ps), 3); }
Cell UsD(double us) { return Cell::Real(us, 3); }
Cell Pct(double v) { return Cell::Real(v, 2); }
}  // namespace

Table TemporalTable(const std::vector<TemporalBreakdown>& v) {
  Table t{"temporal", "GPU time breakdown per rank (HTA temporal breakdown; us)", {}, {}, {}};
  t.AddColumn("rank", true)
      .AddColumn("idle_us", true)
      .AddColumn("compute_us", true)
      .AddColumn("non_compute_us", true)
      .AddColumn("kernel_time_us", true)
      .AddColumn("idle_pct", true)
      .AddColumn("compute_pct", true)
      .AddColumn("non_compute_pct", true)
      .AddColumn("comm_us", true)
      .AddColumn("memory_us", true);
  for (const auto& r : v) {
    bool any = r.kernel_time > 0;  // no GPU activity: percentages are undefined, not 0
    t.rows.push_back({Cell::Int(r.rank), Us(r.idle), Us(r.compute), Us(r.non_compute), Us(r.kernel_time),
                      any ? Pct(r.idle_pct()) : Cell::Null(), any ? Pct(r.compute_pct()) : Cell::Null(),
                      any ? Pct(r.non_compute_pct()) : Cell::Null(), Us(r.communication), Us(r.memory)});
  }
  t.notes.push_back(
      "kernel_time = last GPU end - first GPU start; idle = no op on any stream; "
      "compute = COMPUTATION kernels; non_compute = only communication/memory/other busy");
  return t;
}

Table OverlapTable(const std::vector<Overlap>& v) {
  Table t{"overlap", "Communication overlapped by computation per rank", {}, {}, {}};
  t.AddColumn("rank", true)
      .AddColumn("comm_us", true)
      .AddColumn("overlapped_us", true)
      .AddColumn("exposed_comm_us", true)
      .AddColumn("comp_comm_overlap_pct", true);
  for (const auto& r : v)
    t.rows.push_back({Cell::Int(r.rank), Us(r.comm), Us(r.overlapped), Us(r.comm - r.overlapped),
                      r.has_comm() ? Pct(r.pct()) : Cell::Null()});
  return t;
}

Table KernelTypeTable(const KernelBreakdown& k) {
  Table t{"kernel_types", "GPU time by active kernel types, all ranks (us)", {}, {}, {}};
  t.AddColumn("kernel_type", false).AddColumn("time_us", true).AddColumn("pct", true);
  for (const auto& r : k.types)
    t.rows.push_back({Cell::Text(KernelTypeLabel(r.mask)), Us(r.time), Cell::Real(r.pct, 1)});
  return t;
}

Table KernelStatTable(const KernelBreakdown& k, int) {
  Table t{"kernels", "Kernels by class and name (top names per rank and class; us)", {}, {}, {}};
  t.AddColumn("rank", true)
      .AddColumn("class", false)
      .AddColumn("count", true)
      .AddColumn("sum_us", true)
      .AddColumn("pct_of_class", true)
      .AddColumn("mean_us", true)
      .AddColumn("min_us", true)
      .AddColumn("max_us", true)
      .AddColumn("std_us", true)
      .AddColumn("name", false);
  for (const auto& r : k.kernels)
    t.rows.push_back({Cell::Int(r.rank), Cell::Text(KernelClassName(r.cls)), Cell::Int(r.count), Us(r.sum),
                      Pct(r.pct_of_class), UsD(r.mean / kPsPerUs), Us(r.min), Us(r.max), UsD(r.std / kPsPerUs),
                      Cell::Text(r.names > 1 ? fmt::format("others ({} names)", r.names) : r.name)});
  return t;
}

Table IdleTable(const std::vector<StreamIdle>& v) {
  Table t{"idle", "Idle time per GPU stream (HTA idle time breakdown; us)", {}, {}, {}};
  t.AddColumn("rank", true)
      .AddColumn("stream", true)
      .AddColumn("category", false)
      .AddColumn("idle_us", true)
      .AddColumn("ratio", true)
      .AddColumn("gaps", true);
  for (const auto& s : v)
    for (int c = 0; c < 3; ++c) {
      auto cat = static_cast<IdleCategory>(c);
      double ratio = s.ratio(cat);
      t.rows.push_back({Cell::Int(s.rank), Cell::Int(s.stream), Cell::Text(IdleCategoryName(cat)), Us(s.idle[c]),
                        std::isnan(ratio) ? Cell::Null() : Pct(ratio),
                        Cell::Int(static_cast<int64_t>(s.gaps_us[c].size()))});
    }
  t.notes.push_back(
      "host_wait: launched after the stream drained; kernel_wait: gap < 30 us; "
      "other: longer gaps (syncs, other streams)");
  return t;
}

Table IdleStatsTable(const std::vector<StreamIdle>& v) {
  Table t{"idle_intervals", "Idle interval statistics (us)", {}, {}, {}};
  t.AddColumn("rank", true)
      .AddColumn("stream", true)
      .AddColumn("category", false)
      .AddColumn("count", true)
      .AddColumn("mean", true)
      .AddColumn("std", true)
      .AddColumn("min", true)
      .AddColumn("p25", true)
      .AddColumn("p50", true)
      .AddColumn("p75", true)
      .AddColumn("max", true);
  for (const auto& s : v)
    for (int c = 0; c < 3; ++c) {
      Describe d = s.Stats(static_cast<IdleCategory>(c));
      if (d.count == 0) continue;
      auto r = [](double x) { return std::isnan(x) ? Cell::Null() : Cell::Real(x, 2); };
      t.rows.push_back({Cell::Int(s.rank), Cell::Int(s.stream),
                        Cell::Text(IdleCategoryName(static_cast<IdleCategory>(c))), Cell::Int(d.count), r(d.mean),
                        r(d.std), r(d.min), r(d.p25), r(d.p50), r(d.p75), r(d.max)});
    }
  return t;
}

Table LaunchSummaryTable(const std::vector<RankLaunchStats>& v) {
  Table t{"launches", "Kernel launch statistics per rank (us)", {}, {}, {}};
  t.AddColumn("rank", true)
      .AddColumn("launches", true)
      .AddColumn("cpu_mean", true)
      .AddColumn("cpu_p50", true)
      .AddColumn("cpu_p95", true)
      .AddColumn("gpu_mean", true)
      .AddColumn("gpu_p50", true)
      .AddColumn("delay_mean", true)
      .AddColumn("delay_p50", true)
      .AddColumn("delay_p95", true)
      .AddColumn("delay_max", true)
      .AddColumn("short_kernels", true)
      .AddColumn("runtime_outliers", true)
      .AddColumn("delay_outliers", true)
      .AddColumn("unlinked", true);
  auto r = [](double x) { return std::isnan(x) ? Cell::Null() : Cell::Real(x, 3); };
  for (const auto& s : v)
    t.rows.push_back({Cell::Int(s.rank), Cell::Int(s.cpu_us.count), r(s.cpu_us.mean), r(s.cpu_us.p50), r(s.cpu_us.p95),
                      r(s.gpu_us.mean), r(s.gpu_us.p50), r(s.delay_us.mean), r(s.delay_us.p50), r(s.delay_us.p95),
                      r(s.delay_us.max), Cell::Int(s.short_kernels), Cell::Int(s.runtime_outliers),
                      Cell::Int(s.delay_outliers), Cell::Int(s.unlinked_gpu_ops)});
  t.notes.push_back(
      "short_kernels: GPU time < launch call time and call <= 50 us; runtime_outliers: call > 50 us; "
      "delay_outliers: launch delay > 100 us");
  return t;
}

Table StepTable(const StepReport& s) {
  Table t{"steps", "Per-step breakdown (ProfilerStep#N; us)", {}, {}, {}};
  t.AddColumn("rank", true)
      .AddColumn("step", true)
      .AddColumn("wall_us", true)
      .AddColumn("gpu_span_us", true)
      .AddColumn("gpu_busy_us", true)
      .AddColumn("compute_us", true)
      .AddColumn("comm_us", true)
      .AddColumn("memory_us", true)
      .AddColumn("gpu_idle_us", true)
      .AddColumn("gpu_ops", true)
      .AddColumn("warmup", false);
  for (const auto& b : s.steps)
    t.rows.push_back({Cell::Int(b.rank), Cell::Int(b.number), Us(b.wall), Us(b.gpu_span), Us(b.gpu_busy), Us(b.compute),
                      Us(b.communication), Us(b.memory), Us(b.idle), Cell::Int(b.gpu_ops),
                      Cell::Text(b.warmup ? "yes" : "")});
  return t;
}

Table StepSummaryTable(const StepReport& s) {
  Table t{"steady_state", "Steady state (median over steps after warm-up; us)", {}, {}, {}};
  t.AddColumn("rank", true)
      .AddColumn("steps", true)
      .AddColumn("steady_steps", true)
      .AddColumn("median_wall_us", true)
      .AddColumn("median_gpu_span_us", true)
      .AddColumn("median_gpu_busy_us", true)
      .AddColumn("median_compute_us", true);
  for (const auto& r : s.summary)
    t.rows.push_back({Cell::Int(r.rank), Cell::Int(r.steps), Cell::Int(r.steady_steps), UsD(r.median_wall_us),
                      UsD(r.median_gpu_span_us), UsD(r.median_busy_us), UsD(r.median_compute_us)});
  return t;
}

Table OpsTable(const std::vector<OpGpuTime>& ops, int top) {
  Table t{"ops", "GPU time per framework op (kernels attributed to the cpu_op that launched them; us)", {}, {}, {}};
  t.notes.push_back(
      "gflop_per_call, tflops_s (FLOPs x calls / GPU time) and tb_s (bytes x calls / GPU time) come from the input "
      "shapes and scalar arguments, for the ops mlprof has a cost model for (GEMM, convolution, attention, "
      "elementwise, softmax, norms, reductions, embedding; `cost` names the model); record the trace with "
      "record_shapes=True to have them. GPU time under an op without a model (cudnn_convolution) goes to the "
      "nearest enclosing op with one (convolution).");
  t.AddColumn("rank", true)
      .AddColumn("gpu_us", true)
      .AddColumn("pct", true)
      .AddColumn("calls", true)
      .AddColumn("gpu_ops", true)
      .AddColumn("cpu_us", true)
      .AddColumn("gflop_per_call", true)
      .AddColumn("tflops_s", true)
      .AddColumn("tb_s", true)
      .AddColumn("cost", false)
      .AddColumn("op", false)
      .AddColumn("input_dims", false)
      .AddColumn("input_types", false)
      .AddColumn("concrete_inputs", false);
  int64_t cur_rank = INT64_MIN;
  int shown = 0;
  for (const auto& r : ops) {
    if (r.rank != cur_rank) cur_rank = r.rank, shown = 0;
    if (top > 0 && shown++ >= top) continue;
    t.rows.push_back({Cell::Int(r.rank), Us(r.gpu_time), Pct(r.pct_gpu), Cell::Int(r.calls), Cell::Int(r.gpu_ops),
                      Us(r.cpu_time), r.flops_per_call >= 0 ? Cell::Real(r.flops_per_call / 1e9, 6) : Cell::Null(),
                      r.flops_per_s() >= 0 ? Cell::Real(r.flops_per_s() / 1e12, 3) : Cell::Null(),
                      r.bytes_per_s() >= 0 ? Cell::Real(r.bytes_per_s() / 1e12, 3) : Cell::Null(),
                      Cell::Text(r.cost_kind), Cell::Text(r.name), Cell::Text(r.input_dims), Cell::Text(r.input_types),
                      Cell::Text(r.concrete_inputs)});
  }
  return t;
}

Table RanksTable(const Profile& p) {
  Table t{"ranks", "Inputs", {}, {}, {}};
  t.AddColumn("rank", true)
      .AddColumn("world_size", true)
      .AddColumn("ops", true)
      .AddColumn("steps", true)
      .AddColumn("gpus", false)
      .AddColumn("file", false);
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
  Table files{"files", "Files", {}, {}, {}};
  files.AddColumn("rank", true)
      .AddColumn("format", false)
      .AddColumn("compression", false)
      .AddColumn("file_bytes", true)
      .AddColumn("json_bytes", true)
      .AddColumn("ops", true)
      .AddColumn("flows", true)
      .AddColumn("counters", true)
      .AddColumn("span_ms", true)
      .AddColumn("path", false);
  Table phases{"phases", "Events by phase", {}, {}, {}};
  phases.AddColumn("rank", true).AddColumn("phase", false).AddColumn("events", true);
  Table cats{"categories", "Events by category", {}, {}, {}};
  cats.AddColumn("rank", true).AddColumn("category", false).AddColumn("events", true);
  Table tracks{"tracks", "Tracks", {}, {}, {}};
  tracks.AddColumn("rank", true)
      .AddColumn("host_threads", true)
      .AddColumn("gpu_streams", true)
      .AddColumn("gpus", true)
      .AddColumn("steps", true)
      .AddColumn("first_step", true)
      .AddColumn("last_step", true)
      .AddColumn("devices", false);
  Table problems{"import_problems", "Import problems", {}, {}, {}};
  problems.AddColumn("rank", true)
      .AddColumn("problem", false)
      .AddColumn("severity", false)
      .AddColumn("count", true)
      .AddColumn("first_byte", true)
      .AddColumn("meaning", false);
  for (const RankInfo& info : infos) {
    const RankProfile& r = *info.profile;
    int64_t rank = r.rank_or(-1);
    files.rows.push_back(
        {Cell::Int(rank), Cell::Text(r.format), Cell::Text(r.compression),
         Cell::Int(static_cast<int64_t>(r.file_bytes)), Cell::Int(static_cast<int64_t>(r.decoded_bytes)),
         Cell::Int(static_cast<int64_t>(r.ops.size())), Cell::Int(static_cast<int64_t>(r.flows.size())),
         Cell::Int(static_cast<int64_t>(r.counters.size())),
         info.has_ops ? Cell::Real(PsToMs(info.last_end - info.first), 3) : Cell::Null(), Cell::Text(r.path)});
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
  Table lines{"track_ops", "Ops per track", {}, {}, {}};
  lines.AddColumn("rank", true)
      .AddColumn("process", false)
      .AddColumn("thread", false)
      .AddColumn("kind", false)
      .AddColumn("ops", true);
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
  return out;
}

namespace {
std::string Dims(std::span<const int64_t> v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}
void ShapeRows(const hlo::Shape& s, const std::string& index, Table& t) {
  if (s.is_tuple()) {
    for (size_t i = 0; i < s.tuple.size(); ++i)
      ShapeRows(s.tuple[i], index.empty() ? std::to_string(i) : index + "." + std::to_string(i), t);
    return;
  }
  hlo::PhysicalShape p = hlo::Physical(s);
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
  t.rows.push_back({Cell::Text(index), Cell::Text(hlo::ElementTypeName(s.type)), Cell::Text(Dims(s.dims)),
                    Cell::Text(order.empty() ? "default" : order), Cell::Text(tiles),
                    Cell::Text(Dims(p.padded_major_to_minor)), Cell::Int(p.logical_bytes), Cell::Int(p.bytes),
                    Cell::Real(p.expansion(), 3), Cell::Text(hlo::MemorySpaceName(s.layout.memory_space)),
                    Cell::Text(s.ToString())});
}
}  // namespace

Table ShapeTable(const std::vector<hlo::Shape>& shapes) {
  Table t{"shapes", "HLO shapes: memory order (major to minor), tiling and the padded physical size", {}, {}, {}};
  t.AddColumn("element", false)
      .AddColumn("type", false)
      .AddColumn("dims", false)
      .AddColumn("major_to_minor", false)
      .AddColumn("tiles", false)
      .AddColumn("padded", false)
      .AddColumn("logical_bytes", true)
      .AddColumn("physical_bytes", true)
      .AddColumn("expansion", true)
      .AddColumn("memory", false)
      .AddColumn("shape", false);
  for (const auto& s : shapes) ShapeRows(s, "", t);
  t.notes.push_back(
      "Tiles cover the minor-most dims, each rounded up to the tile; later tiles tile the tile. "
      "Memory: S(0) HBM, S(1) VMEM, S(2) SMEM, S(5)/S(6) host (TPU naming).");
  return t;
}

std::vector<std::string> ImportWarnings(const Profile& p) {
  std::vector<std::string> out;
  for (const auto& s : p.skipped) out.push_back("skipped: " + s);
  for (const auto& r : p.ranks)
    for (size_t k = 0; k < kImportStatCount; ++k) {
      if (!r.stats.count[k]) continue;
      const auto& info = GetImportStatInfo(static_cast<ImportStat>(k));
      if (info.severity < Severity::kWarning) continue;
      out.push_back(fmt::format("{}: {} x {} (first at byte {}): {}", r.path, r.stats.count[k], info.name,
                                r.stats.first_offset[k], info.help));
    }
  return out;
}

}  // namespace mlprof
