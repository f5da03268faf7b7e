#include "report/gpu_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "model/steps.h"
#include "report/columns.h"
#include "report/tables_common.h"

namespace mlprof {

namespace {
// A device column when some rank drives several devices: its rows per
// device, then its all-device row (device null, shown "-").
template <class Row>
bool PerDevice(const std::vector<Row>& v) {
  return std::any_of(v.begin(), v.end(), [](const Row& r) { return r.device >= 0; });
}
Column DeviceKey() { return Key("device", Unit::kId, "the device (null: all the rank's devices together)"); }
Cell DeviceCell(int32_t d) { return d >= 0 ? Cell::Int(d) : Cell::Null(); }
}  // namespace
const char* const kPerDeviceNote =
    "A rank that drives several devices has a row per device, then its all-device row (device -).";

Table TemporalTable(const std::vector<TemporalBreakdown>& v) {
  Table t("temporal", "GPU time breakdown per rank (HTA temporal breakdown; us)");
  const bool per_device = PerDevice(v);
  t.Add(RankKey());
  if (per_device) t.Add(DeviceKey());
  t.Add(TimeUs("idle", "time within the kernel span when no GPU op runs on any stream"))
      .Add(TimeUs("compute", "time a COMPUTATION kernel runs"))
      .Add(TimeUs("non_compute", "time only communication, memory or other GPU ops run"))
      .Add(TimeUs("kernel_time", "last GPU op end - first GPU op start"))
      .Add(Pct("idle_pct", "idle / kernel_time"))
      .Add(Pct("compute_pct", "compute / kernel_time"))
      .Add(Pct("non_compute_pct", "non_compute / kernel_time"))
      .Add(TimeUs("comm", "union of the COMMUNICATION kernels' intervals"))
      .Add(TimeUs("memory", "union of the MEMORY ops' intervals (copies, fills)"));
  for (const auto& r : v) {
    bool any = r.kernel_time > 0;  // no GPU activity: percentages are undefined, not 0
    std::vector<Cell> row = {Cell::Int(r.rank)};
    if (per_device) row.push_back(DeviceCell(r.device));
    for (Cell c : {Time(r.idle), Time(r.compute), Time(r.non_compute), Time(r.kernel_time),
                   any ? Cell::Real(r.idle_pct()) : Cell::Null(), any ? Cell::Real(r.compute_pct()) : Cell::Null(),
                   any ? Cell::Real(r.non_compute_pct()) : Cell::Null(), Time(r.communication), Time(r.memory)})
      row.push_back(std::move(c));
    t.rows.push_back(std::move(row));
  }
  if (per_device) t.notes.push_back(kPerDeviceNote);
  t.notes.push_back(
      "kernel_time = last GPU end - first GPU start; idle = no op on any stream; "
      "compute = COMPUTATION kernels; non_compute = only communication/memory/other busy");
  return t;
}

Table OverlapTable(const std::vector<Overlap>& v) {
  Table t("overlap", "Communication overlapped by computation per rank");
  const bool per_device = PerDevice(v);
  t.Add(RankKey());
  if (per_device) t.Add(DeviceKey());
  t.Add(TimeUs("comm", "union of the COMMUNICATION kernels' intervals"))
      .Add(TimeUs("overlapped", "communication time during which a COMPUTATION kernel runs"))
      .Add(TimeUs("exposed_comm", "comm - overlapped"))
      .Add(Pct("comp_comm_overlap_pct", "overlapped / comm"));
  for (const auto& r : v) {
    std::vector<Cell> row = {Cell::Int(r.rank)};
    if (per_device) row.push_back(DeviceCell(r.device));
    for (Cell c : {Time(r.comm), Time(r.overlapped), Time(r.comm - r.overlapped),
                   r.has_comm() ? Cell::Real(r.pct()) : Cell::Null()})
      row.push_back(std::move(c));
    t.rows.push_back(std::move(row));
  }
  if (per_device) t.notes.push_back(kPerDeviceNote);
  return t;
}

Table KernelTypeTable(const KernelBreakdown& k) {
  Table t("kernel_types", "GPU time by active kernel types, all ranks (us)");
  t.Add(Key("kernel_type", Unit::kText, "the set of kernel classes running at once"))
      .Add(Measure("time", Unit::kTime, "time exactly this set runs, summed over ranks").Show("time_us", 1e6, 3))
      .Add(Pct("pct", "time / all GPU-busy time", 1));
  for (const auto& r : k.types)
    t.rows.push_back({Cell::Text(KernelTypeLabel(r.mask)), Time(r.time), Cell::Real(r.pct)});
  return t;
}

Table KernelStatTable(const KernelBreakdown& k) {
  Table t("kernels", "Kernels by class and name (top names per rank and class; us)");
  t.Add(RankKey())
      .Add(Key("class", Unit::kText, "HTA's kernel class: COMPUTATION, COMMUNICATION or MEMORY"))
      .Add(Count("count", "executions"))
      .Add(TimeUs("sum", "total GPU time"))
      .Add(Pct("pct_of_class", "sum / the class's total"))
      .Add(TimeUs("mean", "mean duration"))
      .Add(TimeUs("median", "median duration (the mean of the middle two for an even count, as nsys stats)"))
      .Add(TimeUs("min", "shortest execution"))
      .Add(TimeUs("max", "longest execution"))
      .Add(TimeUs("std", "standard deviation of the duration (ddof 1)"))
      .Add(Key("name", Unit::kText, "kernel name; 'others (N names)' folds the rest of the class").Symbol());
  for (const auto& r : k.kernels)
    t.rows.push_back({Cell::Int(r.rank), Cell::Text(KernelClassName(r.cls)), Cell::Int(r.count), Time(r.sum),
                      Cell::Real(r.pct_of_class), TimeCell(r.mean), TimeCell(r.median), Time(r.min), Time(r.max),
                      TimeCell(r.std), Cell::Text(r.names > 1 ? fmt::format("others ({} names)", r.names) : r.name)});
  return t;
}

Table QueueLengthTable(const std::vector<QueueLengthRow>& rows, int64_t max_queue) {
  Table t("queue_length", "Launch queue length per stream (HTA's queue length; describe() of the series)");
  auto value = [](const char* name, const char* description) {
    return Measure(name, Unit::kCount, description).Show(name, 1, 2);
  };
  t.Add(RankKey())
      .Add(Key("device", Unit::kId, "the GPU"))
      .Add(Key("stream", Unit::kId, "the stream"))
      .Add(Count("count", "points of the series (a launch call or an op start each)"))
      .Add(value("mean", "mean queue length over the points"))
      .Add(value("std", "sample standard deviation"))
      .Add(value("min", "smallest"))
      .Add(value("p25", "25th percentile"))
      .Add(value("p50", "median"))
      .Add(value("p75", "75th percentile"))
      .Add(value("max", "largest"))
      .Add(TimeUs("at_max", fmt::format("time with {} or more queued (a full CUDA launch queue)", max_queue)))
      .Add(Pct("at_max_pct", "of the rank's trace duration", 2));
  for (const QueueLengthRow& r : rows) {
    const Describe& d = r.length;
    t.rows.push_back({Cell::Int(r.rank), Cell::Int(r.device), Cell::Int(r.stream), Cell::Int(d.count),
                      Cell::Real(d.mean), d.count > 1 ? Cell::Real(d.std) : Cell::Null(), Cell::Real(d.min),
                      Cell::Real(d.p25), Cell::Real(d.p50), Cell::Real(d.p75), Cell::Real(d.max), Cell::Int(r.at_max),
                      Cell::Real(r.at_max_pct)});
  }
  t.notes.push_back(
      "Queue length: +1 at each launch call, -1 when its op starts on the stream (HTA's definition). A queue near "
      "0 means the GPU waits for the host; a long queue means the host is ahead. at_max is the time the queue was "
      "full (" +
      std::to_string(max_queue) + " launches: the host blocks), not the time at the series' max.");
  return t;
}

Table MemoryBwTable(const std::vector<MemoryBwRow>& rows) {
  Table t("memory_bw", "Memory bandwidth per kind (HTA's memory bandwidth summary; GB/s)");
  auto bw = [](const char* name, const char* description) {
    return Measure(name, Unit::kByteRate, description).Show(std::string(name) + "_gb_s", 1e9, 3);
  };
  t.Add(RankKey())
      .Add(Key("kind", Unit::kText, "Memcpy HtoD / DtoH / DtoD / PtoP / HtoH, Memset (HTA's name prefix)"))
      .Add(Count("ops", "memcpy / memset ops of this kind with a byte count"))
      .Add(Measure("bytes", Unit::kBytes, "bytes moved or set").Show("mb", 1e6, 3))
      .Add(TimeUs("time", "their durations summed (a 0-length op counts 1 us, as in HTA)"))
      .Add(bw("achieved", "bytes / time"))
      .Add(Count("count", "points of the series above 0 (a start or an end each)"))
      .Add(bw("mean", "mean of the series' points above 0"))
      .Add(bw("std", "sample standard deviation"))
      .Add(bw("min", "smallest"))
      .Add(bw("p25", "25th percentile"))
      .Add(bw("p50", "median"))
      .Add(bw("p75", "75th percentile"))
      .Add(bw("max", "largest: the most bandwidth of this kind at one time"));
  for (const MemoryBwRow& r : rows) {
    const Describe& d = r.bw;
    const bool any = d.count > 0;
    auto v = [&](double x) { return any ? Cell::Real(x) : Cell::Null(); };
    t.rows.push_back(
        {Cell::Int(r.rank), Cell::Text(r.kind), Cell::Int(r.ops), Cell::Int(r.bytes), Cell::Int(r.time),
         r.time > 0 ? Cell::Real(static_cast<double>(r.bytes) / (static_cast<double>(r.time) * 1e-12)) : Cell::Null(),
         Cell::Int(d.count), v(d.mean), d.count > 1 ? Cell::Real(d.std) : Cell::Null(), v(d.min), v(d.p25), v(d.p50),
         v(d.p75), v(d.max)});
  }
  t.notes.push_back(
      "The series: +bandwidth (bytes / duration) at each op's start, -bandwidth at its end, summed per kind; the "
      "statistics are describe() of its points above 0, as HTA's get_memory_bw_summary.");
  return t;
}

namespace {

std::string OpStackText(const RankProfile& p, const std::vector<uint32_t>& stack) {
  std::string s;
  for (uint32_t i : stack) {
    if (!s.empty()) s += " > ";
    s += p.str(p.ops.name[i]);
  }
  return s;
}

// A counter's column: its CUPTI name in JSON and CSV; in text the SASS
// counters as "sass_ffma" and the rest as named.
Column MetricColumn(std::string_view metric, const char* description) {
  static constexpr std::string_view kPrefix = "smsp__sass_thread_inst_executed_op_";
  std::string label(metric);
  if (SassFlopsPerInstruction(metric) > 0) label = "sass_" + std::string(metric.substr(kPrefix.size(), 4));
  return Measure(std::string(metric), Unit::kCount, description).Show(label, 1, 0);
}

}  // namespace

Table CuptiRangesTable(const CuptiRanks& r, int top, size_t* hidden) {
  const RankProfile& p = *r.profile;
  Table t("cupti_ranges", "CUPTI range profiler: counters per kernel (HTA's counter data with operators)");
  t.Add(RankKey()).Add(Key("range", Unit::kId, "the range's position by start time"));
  t.Add(Text("top_op", "the outermost cpu_op around the kernel's launch call").Symbol());
  t.Add(Text("bottom_op", "the innermost cpu_op around it").Symbol());
  for (StringId m : r.metrics) t.Add(MetricColumn(p.str(m), "the counter as recorded"));
  t.Add(Measure("sass_flops", Unit::kFlops, "FLOPs from the SASS counters (fma x2, add and mul x1)")
            .Show("sass_gflop", 1e9, 3));
  t.Add(Key("kernel", Unit::kText, "the range's name: the kernel ('__missing__' when CUPTI gave none)").Symbol());
  const size_t n = top > 0 ? std::min(r.ranges.size(), static_cast<size_t>(top)) : r.ranges.size();
  for (size_t k = 0; k < n; ++k) {
    const CuptiRange& c = r.ranges[k];
    std::vector<Cell> row{Cell::Int(r.rank), Cell::Int(static_cast<int64_t>(k))};
    row.push_back(c.op_stack.empty() ? Cell::Null() : Cell::Text(p.str(p.ops.name[c.op_stack.front()])));
    row.push_back(c.op_stack.empty() ? Cell::Null() : Cell::Text(p.str(p.ops.name[c.op_stack.back()])));
    for (double v : c.values) row.push_back(std::isnan(v) ? Cell::Null() : Cell::Real(v));
    row.push_back(c.sass_flops >= 0 ? Cell::Real(c.sass_flops) : Cell::Null());
    row.push_back(Cell::Text(p.str(p.ops.name[c.op])));
    t.rows.push_back(std::move(row));
  }
  if (hidden) *hidden = r.ranges.size() - n;
  if (!r.attributed)
    t.notes.push_back(fmt::format(
        "Rank {}: {} ranges but {} kernel launch calls, so the ranges are not attributed to ops (HTA gives up on "
        "such a rank too).",
        r.rank, r.ranges.size(), r.launches));
  else if (!r.ranges.empty() && !r.ranges.front().op_stack.empty())
    t.notes.push_back(fmt::format("Range 0 ran under: {}", OpStackText(p, r.ranges.front().op_stack)));
  return t;
}

Table CuptiByOpTable(const CuptiRanks& r, const std::vector<CuptiOpRow>& rows) {
  const RankProfile& p = *r.profile;
  Table t("cupti_by_op", "CUPTI counters per op: the ranges summed by the innermost cpu_op, beside the cost model");
  t.Add(RankKey())
      .Add(Count("instances", "calls of the op with ranges"))
      .Add(Count("ranges", "kernels (ranges) they ran"));
  for (StringId m : r.metrics) t.Add(MetricColumn(p.str(m), "summed"));
  t.Add(Measure("sass_flops", Unit::kFlops, "FLOPs from the SASS counters, summed").Show("sass_gflop", 1e9, 3))
      .Add(Measure("model_flops", Unit::kFlops, "the cost model's FLOPs of the instances it covers (op_cost)")
               .Show("model_gflop", 1e9, 3))
      .Add(Count("modelled", "instances the cost model covers"))
      .Add(Measure("sass_per_model", Unit::kRatio, "sass_flops / model_flops, when every instance is modelled")
               .Decimals(3))
      .Add(Key("op", Unit::kText, "the innermost cpu_op ('' when not attributed)").Symbol())
      .Add(Key("shapes", Unit::kText, "its Input Dims"));
  for (const CuptiOpRow& o : rows) {
    std::vector<Cell> row{Cell::Int(o.rank), Cell::Int(o.instances), Cell::Int(o.ranges)};
    for (double v : o.values) row.push_back(Cell::Real(v));
    row.push_back(o.sass_flops >= 0 ? Cell::Real(o.sass_flops) : Cell::Null());
    row.push_back(o.model_flops >= 0 ? Cell::Real(o.model_flops) : Cell::Null());
    row.push_back(Cell::Int(o.modelled));
    row.push_back(o.sass_flops >= 0 && o.model_flops > 0 && o.modelled == o.instances
                      ? Cell::Real(o.sass_flops / o.model_flops)
                      : Cell::Null());
    row.push_back(Cell::Text(o.op));
    row.push_back(Cell::Text(o.shapes));
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back(
      "SASS counters count CUDA-core instructions only: tensor-core (HMMA / GMMA) FLOPs are not in them, so a "
      "GEMM on tensor cores shows far fewer SASS FLOPs than its model FLOPs.");
  return t;
}

Table IdleTable(const std::vector<StreamIdle>& v) {
  Table t("idle", "Idle time per GPU stream (HTA idle time breakdown; us)");
  t.Add(RankKey())
      .Add(Key("stream", Unit::kId, "GPU stream"))
      .Add(Key("category", Unit::kText, "why the stream was idle: host_wait, kernel_wait or other"))
      .Add(TimeUs("idle", "idle time of this category"))
      .Add(Measure("ratio", Unit::kRatio, "idle of this category / the stream's idle time").Decimals(2))
      .Add(Count("gaps", "idle intervals of this category"));
  for (const auto& s : v)
    for (int c = 0; c < 3; ++c) {
      auto cat = static_cast<IdleCategory>(c);
      double ratio = s.ratio(cat);
      t.rows.push_back({Cell::Int(s.rank), Cell::Int(s.stream), Cell::Text(IdleCategoryName(cat)), Time(s.idle[c]),
                        std::isnan(ratio) ? Cell::Null() : Cell::Real(ratio),
                        Cell::Int(static_cast<int64_t>(s.gaps_us[c].size()))});
    }
  t.notes.push_back(
      "host_wait: launched after the stream drained; kernel_wait: gap < 30 us; "
      "other: longer gaps (syncs, other streams)");
  return t;
}

Table IdleStatsTable(const std::vector<StreamIdle>& v) {
  Table t("idle_intervals", "Idle interval statistics (us)");
  auto stat = [](const char* name, const char* what) { return Measure(name, Unit::kTime, what).Show(name, 1e6, 2); };
  t.Add(RankKey())
      .Add(Key("stream", Unit::kId, "GPU stream"))
      .Add(Key("category", Unit::kText, "host_wait, kernel_wait or other"))
      .Add(Count("count", "idle intervals"))
      .Add(stat("mean", "mean interval"))
      .Add(stat("std", "standard deviation (ddof 1)"))
      .Add(stat("min", "shortest interval"))
      .Add(stat("p25", "25th percentile (linear interpolation)"))
      .Add(stat("p50", "median"))
      .Add(stat("p75", "75th percentile"))
      .Add(stat("max", "longest interval"));
  for (const auto& s : v)
    for (int c = 0; c < 3; ++c) {
      Describe d = s.Stats(static_cast<IdleCategory>(c));
      if (d.count == 0) continue;
      t.rows.push_back({Cell::Int(s.rank), Cell::Int(s.stream),
                        Cell::Text(IdleCategoryName(static_cast<IdleCategory>(c))), Cell::Int(d.count), UsCell(d.mean),
                        UsCell(d.std), UsCell(d.min), UsCell(d.p25), UsCell(d.p50), UsCell(d.p75), UsCell(d.max)});
    }
  return t;
}

Table LaunchSummaryTable(const std::vector<RankLaunchStats>& v) {
  Table t("launches", "Kernel launch statistics per rank (us)");
  auto stat = [](const char* name, const char* what) { return Measure(name, Unit::kTime, what).Show(name, 1e6, 3); };
  t.Add(RankKey())
      .Add(Count("launches", "GPU ops with a host launch call"))
      .Add(stat("cpu_mean", "mean duration of the launch call"))
      .Add(stat("cpu_p50", "median duration of the launch call"))
      .Add(stat("cpu_p95", "95th percentile of the launch call's duration"))
      .Add(stat("gpu_mean", "mean duration of the launched GPU op"))
      .Add(stat("gpu_p50", "median duration of the launched GPU op"))
      .Add(stat("delay_mean", "mean launch delay: max(0, GPU start - launch call end)"))
      .Add(stat("delay_p50", "median launch delay"))
      .Add(stat("delay_p95", "95th percentile of the launch delay"))
      .Add(stat("delay_max", "longest launch delay"))
      .Add(Count("short_kernels", "GPU time < launch call time and call <= 50 us"))
      .Add(Count("runtime_outliers", "launch calls over 50 us"))
      .Add(Count("delayed", "launch delays over 100 us (HTA's delay outliers)"))
      .Add(Count("queued", "of delayed: waited behind earlier work on its stream (a busy GPU, the host ahead)"))
      .Add(Count("late", "of delayed: started over 100 us after both the call and its stream's earlier work"))
      .Add(Count("unlinked", "GPU ops with no host launch found"));
  for (const auto& s : v)
    t.rows.push_back({Cell::Int(s.rank), Cell::Int(s.cpu_us.count), UsCell(s.cpu_us.mean), UsCell(s.cpu_us.p50),
                      UsCell(s.cpu_us.p95), UsCell(s.gpu_us.mean), UsCell(s.gpu_us.p50), UsCell(s.delay_us.mean),
                      UsCell(s.delay_us.p50), UsCell(s.delay_us.p95), UsCell(s.delay_us.max),
                      Cell::Int(s.short_kernels), Cell::Int(s.runtime_outliers), Cell::Int(s.delay_outliers),
                      Cell::Int(s.delay_queued), Cell::Int(s.delay_late), Cell::Int(s.unlinked_gpu_ops)});
  t.notes.push_back(
      "short_kernels: GPU time < launch call time and call <= 50 us; runtime_outliers: call > 50 us; "
      "delayed: launch delay > 100 us (HTA's delay outliers), split into queued (the op's stream still ran earlier "
      "work: the host is ahead of a busy GPU, not a launch problem) and late (the stream was idle: a real outlier)");
  for (const auto& s : v)
    if (s.delay_outliers > 0 && s.delay_queued * 2 > s.delay_outliers)
      t.notes.push_back(fmt::format(
          "Rank {}: {} of the {} launches delayed over 100 us waited behind earlier work on their stream: the host "
          "queues ahead of a busy GPU, so their delay is queueing, not launch cost; {} late.",
          s.rank, s.delay_queued, s.delay_outliers, s.delay_late));
  return t;
}

namespace {
const char* const kRoleDescriptions[kStepRoleCount] = {
    "time a GPU kernel runs (communication kernels apart)",
    "time a GPU copy runs and no kernel",
    "time a GPU fill runs and no kernel or copy",
    "time a collective kernel runs and none of the above",
    "time a CUDA runtime call runs on the host and none of the above",
    "time the DataLoader's __next__ runs and none of the above",
    "time a host op runs and none of the above",
    "the rest of the step",
};
}  // namespace

Table GpuMetricsTable(const std::vector<MetricRow>& rows) {
  Table t("gpu_metrics", "GPU metrics sampled over time (nsys --gpu-metrics-devices): whole trace and during kernels");
  t.Add(RankKey())
      .Add(Key("device", Unit::kId, "the GPU"))
      .Add(Key("metric", Unit::kText, "as nsys names it; most are percentages of peak"))
      .Add(Key("kernel", Unit::kText, "empty: the whole trace; else the samples taken while this kernel ran").Symbol())
      .Add(TimeUs("kernel_time", "the kernel's total time on the GPU"))
      .Add(Count("samples", "samples"))
      .Add(Measure("mean", Unit::kPerRow, "their mean").Show("mean", 1, 2))
      .Add(Measure("max", Unit::kPerRow, "their largest").Show("max", 1, 2));
  for (const MetricRow& r : rows)
    t.rows.push_back({Cell::Int(r.rank), Cell::Int(r.device), Cell::Text(r.metric), Cell::Text(r.kernel),
                      r.kernel.empty() ? Cell::Null() : Cell::Int(r.kernel_time), Cell::Int(r.samples),
                      Cell::Real(r.mean), Cell::Real(r.max)});
  t.notes.push_back(
      "A kernel's mean is over the samples taken while it ran: with a sampling period near or above the kernel's "
      "length, few samples land in it (see samples).");
  return t;
}

Table UnitsTable(const UnitReport& u, int top, size_t* hidden) {
  Table t("units", "Hardware units inside the kernels: the share of kernel time each unit was busy (PMU counters)");
  t.Add(RankKey())
      .Add(Key("core", Unit::kText, "the core type the kernels ran on"))
      .Add(Key("op_type", Unit::kText, "the kernels' op type; all: every kernel of the core type").Symbol())
      .Add(Count("kernels", "kernels with counters"))
      .Add(TimeUs("time", "their time on the trace"));
  for (const std::string& name : u.units)
    t.Add(Measure(name, Unit::kRatio, "the counter, averaged weighted by kernel time").Show(name, 1, 3));
  *hidden = 0;
  std::map<int64_t, int> shown;
  for (const UnitRow& r : u.rows) {
    if (r.op_type != "all" && top > 0 && shown[r.rank]++ >= top) {
      ++*hidden;
      continue;
    }
    std::vector<Cell> row = {Cell::Int(r.rank), Cell::Text(r.core), Cell::Text(r.op_type), Cell::Int(r.kernels),
                             Cell::Int(r.time)};
    for (double v : r.ratios) row.push_back(Known(v));
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back(
      "aic_* counters are the cube core's units (mac: the matrix unit; mte1/mte2: moves into the core and from "
      "global memory; fixpipe: results out), aiv_* the vector core's (vec: the vector unit; mte3: stores). A kernel "
      "near 1 on an mte ratio and low on mac or vec waits on memory; high scalar means control overhead.");
  return t;
}

const char* const kNoBytesNote = "No op records the bytes it moved (Kineto writes them for memcpy and memset).";

Table EngineTable(const std::vector<EngineRow>& rows) {
  Table t("engines", "Engines: busy, idle and utilisation over each rank's window (ms)");
  t.Add(RankKey())
      .Add(Key("engine", Unit::kText,
               "a GPU stream, a device line (XLA Ops of a core, a DMA engine), a host thread that launches work "
               "(its name), or 'all devices' (the union over the rank's devices)")
               .Whole())
      .Add(Count("ops", "ops on the engine"))
      .Add(TimeMs("busy", "time some op of the engine runs (union)"))
      .Add(TimeMs("idle", "window - busy"))
      .Add(Pct("util", "busy / window (first op start to last op end on the rank)", 1))
      .Add(Measure("compute", Unit::kTime, "time COMPUTATION kernels or XLA compute ops run (devices)")
               .Show("comp_ms", 1e9, 3))
      .Add(Measure("transfer", Unit::kTime, "time copies, fills, memory and collective work run (devices)")
               .Show("xfer_ms", 1e9, 3))
      .Add(Measure("bytes", Unit::kBytes, "bytes the engine's copies and fills moved (where recorded)")
               .Show("mb", 1e6, 3))
      .Add(Measure("bandwidth", Unit::kByteRate, "bytes / the time the ops with bytes ran").Show("gb_s", 1e9, 1));
  bool any_bytes = false;
  for (const EngineRow& r : rows) {
    any_bytes = any_bytes || r.bytes >= 0;
    const bool device = r.kind != "host";
    t.rows.push_back({Cell::Int(r.rank), Cell::Text(r.engine), Cell::Int(r.ops), Cell::Int(r.busy), Cell::Int(r.idle()),
                      Cell::Real(100.0 * r.utilisation()), device ? Cell::Int(r.compute) : Cell::Null(),
                      device ? Cell::Int(r.transfer) : Cell::Null(), r.bytes >= 0 ? Cell::Int(r.bytes) : Cell::Null(),
                      r.bytes >= 0 && r.bytes_time > 0
                          ? Cell::Real(static_cast<double>(r.bytes) / (static_cast<double>(r.bytes_time) / 1e12))
                          : Cell::Null()});
  }
  if (!any_bytes) t.notes.push_back(kNoBytesNote);
  return t;
}

Table OverviewStepTable(const std::vector<RankOverview>& o) {
  Table t("overview_steps", "Step time by what ran (TensorBoard plugin overview; us)");
  t.Add(RankKey()).Add(Key(
      "step", Unit::kId, "N of ProfilerStep#N; for steps found otherwise, 0.. in time order (0: the host ops' span)"));
  for (int i = 0; i < kStepRoleCount; ++i) {
    t.Add(TimeUs(StepRoleName(static_cast<StepRole>(i)), kRoleDescriptions[i]));
  }
  t.Add(TimeUs("total", "the step's span, widened to the GPU work it launched"));
  bool host_span = false, adjusted = false;
  int dropped = 0;
  uint32_t sources = 0;
  for (const RankOverview& r : o) {
    host_span = host_span || r.host_span_step;
    sources |= OverviewSourceBit(r.source);
    adjusted = adjusted || r.gpu_adjusted;
    dropped += r.dropped_tail_steps;
    for (const OverviewStep& st : r.steps) {
      std::vector<Cell> row{Cell::Int(r.rank), Cell::Int(st.number)};
      for (Ps v : st.role) row.push_back(Cell::Int(v));
      row.push_back(Cell::Int(st.total()));
      t.rows.push_back(std::move(row));
    }
  }
  t.notes = OverviewStepNotes(adjusted, dropped, host_span, sources);
  return t;
}

uint32_t OverviewSourceBit(StepSource s) {
  return s == StepSource::kProfilerStep || s == StepSource::kNone || s == StepSource::kTrace
             ? 0
             : 1u << static_cast<unsigned>(s);
}

std::vector<std::string> OverviewStepNotes(bool adjusted, int64_t dropped, bool host_span, uint32_t sources) {
  std::vector<std::string> notes = {
      "Each instant of a step goes to the first of kernel, memcpy, memset, comm, runtime, dataloader, cpu_exec that "
      "covers it (as the TensorBoard PyTorch profiler plugin counts); other is the rest."};
  if (adjusted)
    notes.push_back(
        "Steps are widened to the GPU work they launched: each starts where the previous one ended and ends at the "
        "later of its host end and its last GPU op's end.");
  if (dropped > 0)
    notes.push_back(std::to_string(dropped) + (dropped == 1 ? " last step was" : " last steps were") +
                    " left out: it launched no GPU work, or under 80 % of the step before (the profiler stopped "
                    "before its kernels ran).");
  for (StepSource src : {StepSource::kServing, StepSource::kOptimizer, StepSource::kAnnotation, StepSource::kRepeat})
    if (sources & OverviewSourceBit(src))
      notes.push_back(
          fmt::format("No ProfilerStep#N: the steps are {}, as in `mlprof steps`.", StepSourceDescription(src)));
  if (host_span)
    notes.push_back(
        "The whole trace is the step (no iterations found, or --steps-from trace): one step spans the host ops.");
  return notes;
}

Table OverviewMeanTable(const std::vector<RankOverview>& o) {
  Table t("overview_mean", "Mean step time by what ran (TensorBoard plugin overview; us)");
  t.Add(RankKey())
      .Add(Count("steps", "steps averaged"))
      .Add(Key("role", Unit::kText, "what ran; 'step' is the whole step"))
      .Add(TimeUs("mean", "mean time per step"))
      .Add(Pct("pct", "mean / the mean step"));
  for (const RankOverview& r : o) {
    if (r.steps.empty()) continue;
    const auto steps = static_cast<int64_t>(r.steps.size());
    auto pct = [&](double v) { return r.mean_total > 0 ? Cell::Real(100.0 * v / r.mean_total) : Cell::Null(); };
    t.rows.push_back(
        {Cell::Int(r.rank), Cell::Int(steps), Cell::Text("step"), TimeCell(r.mean_total), pct(r.mean_total)});
    for (int i = 0; i < kStepRoleCount; ++i)
      t.rows.push_back({Cell::Int(r.rank), Cell::Int(steps), Cell::Text(StepRoleName(static_cast<StepRole>(i))),
                        TimeCell(r.mean[i]), pct(r.mean[i])});
  }
  return t;
}

Table GpuSummaryTable(const std::vector<RankOverview>& o) {
  Table t("gpu_summary", "GPU summary (TensorBoard plugin overview, over the steps)");
  t.Add(RankKey())
      .Add(Key("device", Unit::kId, "GPU index"))
      .Add(Text("name", "deviceProperties name"))
      .Add(Measure("memory", Unit::kBytes, "deviceProperties totalGlobalMem").Show("memory_gib", 1073741824.0, 2))
      .Add(Text("cc", "compute capability: deviceProperties computeMajor.computeMinor"))
      .Add(Count("kernels", "kernels on the device"))
      .Add(Pct("utilization", "time a kernel runs / the steps' span"))
      .Add(Pct("sm_efficiency", "sum over time of min(1, running kernels' blocks per SM) / the steps' span"))
      .Add(Pct("occupancy", "running kernels' est. achieved occupancy, weighted by their time"))
      .Add(Pct("tensor_cores",
               "time of kernels the TensorBoard plugin's name list calls Tensor Core kernels / kernel time"))
      .Add(Pct("tensor_cores_ext",
               "the same with the names the plugin's list predates: Hopper wgmma/gmma, tensorop, xmma, nvjet, fused "
               "attention, FP8 GEMMs"));
  auto pct = [](double v) { return std::isnan(v) ? Cell::Null() : Cell::Real(100.0 * v); };
  for (const RankOverview& r : o)
    for (const OverviewGpu& g : r.gpus)
      t.rows.push_back({Cell::Int(r.rank), Cell::Int(g.device), Cell::Text(g.name),
                        g.memory >= 0 ? Cell::Int(g.memory) : Cell::Null(),
                        g.compute_major >= 0
                            ? Cell::Text(std::to_string(g.compute_major) + "." + std::to_string(g.compute_minor))
                            : Cell::Null(),
                        Cell::Int(g.kernels), pct(g.utilization), pct(g.sm_efficiency),
                        std::isnan(g.occupancy) ? Cell::Null() : Cell::Real(g.occupancy), pct(g.tensor_cores),
                        pct(g.tensor_cores_ext)});
  t.notes.push_back(
      "sm_efficiency and occupancy need the kernels' \"blocks per SM\" and \"est. achieved occupancy %\" (recorded "
      "by torch.profiler on CUDA); empty when the trace has none.");
  t.notes.push_back(
      "tensor_cores knows only the TensorBoard plugin's kernel names (Volta to Ampere cuBLAS / cuDNN); "
      "tensor_cores_ext adds Hopper, FP8 and fused-attention names. Neither sees Triton's or AMD's matrix-core "
      "kernels, whose names do not say.");
  return t;
}

}  // namespace mlprof
