#include "report/tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "model/steps.h"
#include "report/columns.h"

namespace mlprof {

namespace {
Cell Time(Ps ps) { return Cell::Int(ps); }
}  // namespace

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

Table FindingsTable(const std::vector<Finding>& v) {
  Table t("findings", "What to fix first (largest estimated saving per step first)");
  t.Add(Key("rule", Unit::kText, "the rule that found it (mlprof diagnose --rules lists them)"))
      .Add(Key("rank", Unit::kId, "the rank it is about (null: the job)"))
      .Add(Key("subject", Unit::kText, "what it is about: a rank, a stream"))
      .Add(Text("severity", "info, warning or error"))
      .Add(TimeMs("saving", "estimated saving per step"))
      .Add(Measure("saving_pct", Unit::kPercent, "the saving as a share of the step").Decimals(1))
      .Add(TimeMs("step", "the step it is measured against: steady-state median, or the trace window"))
      .Add(Text("confidence", "low, medium or high: how close the saving is likely to come"))
      .Add(Text("evidence", "the figures behind the finding"))
      .Add(Text("formula", "how the saving was computed, with its numbers").Whole());
  for (const Finding& f : v) {
    const RuleInfo& info = InfoOf(f.rule);
    t.rows.push_back({Cell::Text(info.id), f.rank >= 0 ? Cell::Int(f.rank) : Cell::Null(), Cell::Text(f.subject),
                      Cell::Text(SeverityName(info.severity)), Time(f.saving), Cell::Real(f.saving_pct()), Time(f.step),
                      Cell::Text(ConfidenceName(f.confidence)), Cell::Text(f.evidence), Cell::Text(f.formula)});
  }
  if (v.empty()) t.notes.push_back("No rule found anything worth at least its threshold (--rules lists them).");
  std::set<int64_t> per_trace;
  for (const Finding& f : v)
    if (f.per_trace) per_trace.insert(f.rank);
  for (int64_t rank : per_trace)
    t.notes.push_back(fmt::format(
        "Rank {}: no iterations found (no ProfilerStep#N, Optimizer.step range, iteration annotation or repeating "
        "top-level ops): its savings are per trace, and its step_ms is the whole trace.",
        rank));
  // Every finding per trace: say so in the title and the closing note too.
  const bool all_per_trace =
      !v.empty() && std::all_of(v.begin(), v.end(), [](const Finding& f) { return f.per_trace; });
  if (all_per_trace) t.title = "What to fix first (largest estimated saving per trace first: no steps found)";
  t.notes.push_back(fmt::format("Savings are estimates per {}, each on its own: fixing one changes the others.",
                                all_per_trace       ? "trace"
                                : per_trace.empty() ? "step"
                                                    : "step (per trace where said)"));
  return t;
}

Table PhasesTable(const LayerReport& r) {
  Table t("phases", "GPU time per step by phase: forward, backward, optimizer, communication (us)");
  t.Add(RankKey())
      .Add(Count("steps", "steady steps measured (0: no ProfilerSteps, the whole trace as one)"))
      .Add(TimeUs("forward",
                  "GPU time launched outside the autograd engine and the optimizer, per step (median); null where "
                  "forward and backward cannot be told apart"))
      .Add(TimeUs("backward", "launched under autograd::engine::evaluate_function, per step (median); null likewise"))
      .Add(TimeUs("optimizer", "launched under an Optimizer.* annotation (Optimizer.step#..., zero_grad), per step"))
      .Add(TimeUs("communication", "communication kernels, whichever phase launched them, per step (median)"))
      .Add(TimeUs("backward_outside_engine",
                  "of the GPU time outside the engine, what was launched under a host range named as backward "
                  "(...(B), ...(W), *backward*, *bwd*), per step (median)"))
      .Add(Pct("backward_per_forward_pct", "backward / forward (about 200 % for dense models)", 1));
  for (const PhaseRow& p : r.phases)
    t.rows.push_back(
        {Cell::Int(p.rank), Cell::Int(p.steps), p.split_known ? Time(p.forward) : Cell::Null(),
         p.split_known ? Time(p.backward) : Cell::Null(), Time(p.optimizer), Time(p.communication),
         Time(p.backward_outside_engine),
         p.split_known ? PctCell(static_cast<double>(p.backward), static_cast<double>(p.forward)) : Cell::Null()});
  t.notes.push_back(
      "Forward holds every GPU op launched outside the autograd engine and the optimizer annotations: input copies "
      "and the loss too.");
  for (const PhaseRow& p : r.phases) {
    if (p.backward_ranges.empty()) continue;
    std::string ranges;
    for (size_t i = 0; i < p.backward_ranges.size() && i < 5; ++i)
      ranges += fmt::format("{}{} {:.3f} ms", i ? ", " : "", p.backward_ranges[i].first,
                            static_cast<double>(p.backward_ranges[i].second) / 1e9);
    if (p.backward_ranges.size() > 5) ranges += fmt::format(" and {} more", p.backward_ranges.size() - 5);
    const double both = static_cast<double>(p.forward + p.backward);
    const double share = both > 0 ? 100.0 * static_cast<double>(p.backward_outside_engine) / both : 0;
    if (!p.split_known)
      t.notes.push_back(fmt::format(
          "Rank {}: forward and backward cannot be told apart, so neither is given: {:.3f} ms per step ({:.1f} % "
          "of the {:.3f} ms of forward and backward GPU time) was launched outside the autograd engine under host "
          "ranges named as backward ({}): backward work ran outside the engine (as pipeline schedules such as "
          "DualPipe and zero-bubble run their backward chunks), so the engine's {:.3f} ms is not the backward pass.",
          p.rank, static_cast<double>(p.backward_outside_engine) / 1e9, share, both / 1e9, ranges,
          static_cast<double>(p.backward) / 1e9));
    else if (share >= 1)  // below 1 %: the loss gradient's fill under "## backward ##" and the like
      t.notes.push_back(fmt::format(
          "Rank {}: {:.3f} ms per step of forward ({:.1f} % of forward and backward, under the {:g} % from which the "
          "split is not given) was launched outside the autograd engine under host ranges named as backward ({}).",
          p.rank, static_cast<double>(p.backward_outside_engine) / 1e9, share, kPhaseSplitUnknownPct, ranges));
  }
  return t;
}

Table LayersTable(const LayerReport& r) {
  Table t("layers", "Repeated modules: GPU time per instance (forward, us)");
  t.Add(RankKey())
      .Add(Key("module", Unit::kText, "module class (nn.Module frames; with_stack / with_modules)").Symbol())
      .Add(Count("instances", "instances that launched GPU work"))
      .Add(Measure("per_step", Unit::kCount, "instances per step").Decimals(1))
      .Add(TimeUs("median", "GPU time per instance, median"))
      .Add(TimeUs("min", "the fastest instance"))
      .Add(TimeUs("max", "the slowest instance"))
      .Add(Text("slowest", "the slowest instance"))
      .Add(TimeUs("total", "all instances"))
      .Add(Pct("pct", "of the rank's GPU time in the measured steps", 1))
      .Add(Text("block", "yes: the repeating block (the repeated module with modules inside that takes the most)"));
  for (const LayerRow& l : r.layers)
    t.rows.push_back({Cell::Int(l.rank), Cell::Text(l.module), Cell::Int(l.instances), Cell::Real(l.per_step),
                      Time(l.median), Time(l.min), Time(l.max), Cell::Text(l.slowest), Time(l.total), Cell::Real(l.pct),
                      Cell::Text(l.block ? "yes" : "")});
  t.notes.push_back(
      "Forward only: backward kernels run on the autograd thread, outside the module frames (`phases` has the "
      "backward).");
  for (int64_t rank : r.ranks_without_modules)
    t.notes.push_back(fmt::format(
        "Rank {}: no nn.Module frames; record with torch.profiler(with_stack=True) (with_modules) to see layers.",
        rank));
  return t;
}

Table BlockTable(const LayerReport& r) {
  Table t("layer_block", "The repeating block's GPU time by the modules inside it (us per instance)");
  t.Add(RankKey())
      .Add(Key("part", Unit::kText, "module class just inside the block, or (own ops)").Symbol())
      .Add(TimeUs("per_instance", "GPU time per block instance (mean)"))
      .Add(Pct("pct", "of the block's GPU time", 1));
  for (const BlockPart& b : r.block)
    t.rows.push_back({Cell::Int(b.rank), Cell::Text(b.part), Time(b.per_instance), Cell::Real(b.pct)});
  return t;
}

Table KernelBlocksTable(const LayerReport& r) {
  Table t("kernel_blocks", "Repeating kernel sequence per phase: GPU time per instance (us)");
  t.Add(RankKey())
      .Add(Key("phase", Unit::kText,
               "forward or backward (as in phases); all: forward and backward together where phases cannot tell "
               "them apart"))
      .Add(Count("kernels", "GPU ops per instance (the period)"))
      .Add(Count("instances", "back-to-back repeats over the measured steps"))
      .Add(Measure("per_step", Unit::kCount, "instances per step").Decimals(1))
      .Add(TimeUs("median", "GPU time per instance (its ops' durations), median"))
      .Add(TimeUs("min", "the fastest instance"))
      .Add(TimeUs("max", "the slowest instance"))
      .Add(Text("slowest", "the slowest instance: step and position (#1 first)"))
      .Add(TimeUs("span", "first op's start to last op's end, median"))
      .Add(TimeUs("total", "all instances"))
      .Add(Pct("pct", "of the phase's GPU time in the measured steps", 1))
      .Add(Text("first_kernel", "the instance's first GPU op").Symbol());
  for (const KernelBlock& b : r.kernel_blocks)
    t.rows.push_back({Cell::Int(b.rank), Cell::Text(b.phase), Cell::Int(b.kernels), Cell::Int(b.instances),
                      Cell::Real(b.per_step), Time(b.median), Time(b.min), Time(b.max), Cell::Text(b.slowest),
                      Time(b.span), Time(b.total), Cell::Real(b.pct), Cell::Text(b.first_kernel)});
  t.notes.push_back(
      "Found from the kernels alone: per step, the period of GPU ops (communication apart) repeated back to back "
      "that covers the most GPU time; names must match exactly, and an instance starts at the first op of the run.");
  return t;
}

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

Table HcclOpsTable(const std::vector<HcclOpRow>& rows) {
  Table t("hccl_ops", "Communication ops as HCCL measured them (torch_npu communication.json or analysis.db; us)");
  t.Add(RankKey())
      .Add(Measure("step", Unit::kId, "the step the file files it under"))
      .Add(Text("kind", "collective or p2p"))
      .Add(TimeUs("start", "start, from the rank's origin"))
      .Add(TimeUs("elapse", "the op's time (= transit + wait + idle)"))
      .Add(TimeUs("transit", "moving data"))
      .Add(TimeUs("wait", "waiting for the peers (notify waits)"))
      .Add(TimeUs("sync", "the first wait: the peers arriving late"))
      .Add(TimeUs("idle", "neither"))
      .Add(Measure("wait_ratio", Unit::kRatio, "wait / (wait + transit)").Show("wait_ratio", 1, 4))
      .Add(Measure("sync_ratio", Unit::kRatio, "sync / (sync + transit)").Show("sync_ratio", 1, 4))
      .Add(TimeUs("trace_dur", "the op's duration on the trace (empty: no op of that name and start)"))
      .Add(Key("op", Unit::kText, "the op").Symbol());
  for (const HcclOpRow& r : rows) {
    auto time = [](Ps x) { return x < 0 ? Cell::Null() : Cell::Int(x); };
    t.rows.push_back({Cell::Int(r.rank), r.step < 0 ? Cell::Null() : Cell::Int(r.step), Cell::Text(r.kind),
                      r.has_start ? Cell::Int(r.start) : Cell::Null(), time(r.elapse), time(r.transit), time(r.wait),
                      time(r.sync), time(r.idle), Known(r.wait_ratio), Known(r.sync_ratio), time(r.trace_dur),
                      Cell::Text(r.name)});
  }
  t.notes.push_back(
      "A high wait ratio means the op mostly waited for other ranks: look at the slowest rank before the link.");
  return t;
}

Table HcclLinksTable(const std::vector<HcclLinkRow>& rows) {
  Table t("hccl_links",
          "Bytes per transport: each op's totals (communication.json) and each rank pair "
          "(communication_matrix.json)");
  t.Add(RankKey())
      .Add(Measure("step", Unit::kId, "the step the file files it under"))
      .Add(Text("source", "op: an op's total per transport; matrix: one link between two ranks"))
      .Add(Key("group", Unit::kText, "the op (op rows) or the matrix's group"))
      .Add(Measure("src", Unit::kId, "sending rank (matrix rows)"))
      .Add(Measure("dst", Unit::kId, "receiving rank (matrix rows)"))
      .Add(Key("transport", Unit::kText, "HCCS, RDMA, SDMA, PCIE, SIO, LOCAL"))
      .Add(Measure("bytes", Unit::kBytes, "bytes moved (the file's MB x 10^6)").Show("mb", 1e6, 3))
      .Add(TimeMs("time", "transit time"))
      .Add(Measure("bandwidth", Unit::kByteRate, "bytes / transit time").Show("gbps", 1e9, 4))
      .Add(Measure("reported", Unit::kByteRate, "the file's own Bandwidth(GB/s)").Show("reported_gbps", 1e9, 4))
      .Add(Text("op", "the op the matrix names"));
  for (const HcclLinkRow& r : rows)
    t.rows.push_back({Cell::Int(r.rank), r.step < 0 ? Cell::Null() : Cell::Int(r.step), Cell::Text(r.source),
                      Cell::Text(r.group), r.src < 0 ? Cell::Null() : Cell::Int(r.src),
                      r.dst < 0 ? Cell::Null() : Cell::Int(r.dst), Cell::Text(r.transport),
                      Cell::Int(std::llround(r.megabytes * 1e6)), Cell::Int(r.time),
                      r.gbps < 0 ? Cell::Null() : Cell::Real(r.gbps * 1e9),
                      r.reported_gbps < 0 ? Cell::Null() : Cell::Real(r.reported_gbps * 1e9), Cell::Text(r.op)});
  return t;
}

Table MemoryTable(const std::vector<DeviceMemory>& m) {
  Table t("memory", "Memory per device (PyTorch allocator events; MB = 10^6 bytes)");
  auto mb = [](const char* name, const char* description) {
    return Measure(name, Unit::kBytes, description).Show(std::string(name) + "_mb", 1e6, 1);
  };
  t.Add(RankKey())
      .Add(Key("device", Unit::kText, "the allocator's device"))
      .Add(Count("events", "allocator events"))
      .Add(Count("allocs", "allocations"))
      .Add(Count("frees", "frees"))
      .Add(mb("peak", "highest Total Allocated"))
      .Add(TimeMs("peak_at", "when it was first reached, from the rank's origin"))
      .Add(Measure("peak_step", Unit::kId, "the step it fell in"))
      .Add(mb("peak_reserved", "highest Total Reserved (the caching allocator's pool)"))
      .Add(mb("before_trace", "allocated before the first event"))
      .Add(mb("end", "Total Allocated after the last event"))
      .Add(mb("peak_net", "highest running sum of Bytes from the first event (old traces: no totals)"))
      .Add(mb("allocated", "sum of allocations"))
      .Add(mb("freed", "sum of frees"))
      .Add(Count("mismatches", "events where the running sum of Bytes differs from Total Allocated"));
  for (const DeviceMemory& d : m) {
    auto bytes = [](int64_t b) { return b < 0 ? Cell::Null() : Cell::Int(b); };
    t.rows.push_back({Cell::Int(d.rank), Cell::Text(d.device), Cell::Int(d.events), Cell::Int(d.allocs),
                      Cell::Int(d.frees), bytes(d.peak), d.has_totals ? Cell::Int(d.peak_ts) : Cell::Null(),
                      d.peak_step < 0 ? Cell::Null() : Cell::Int(d.peak_step), bytes(d.peak_reserved),
                      bytes(d.before_trace), bytes(d.end_allocated), Cell::Int(d.peak_net),
                      Cell::Int(d.allocated_bytes), Cell::Int(d.freed_bytes),
                      d.has_totals ? Cell::Int(d.mismatches) : Cell::Null()});
    if (d.skipped && (t.rows.size() == 1 || m[t.rows.size() - 2].rank != d.rank))
      t.notes.push_back(fmt::format("rank {}: {} allocator events skipped: Bytes missing, not a number or over 2^50",
                                    d.rank, d.skipped));
    if (d.mismatches && d.op_file)
      t.notes.push_back(fmt::format(
          "rank {} {}: the allocations come from a per-op file (operator_memory.csv), which leaves out allocations "
          "no op made: the running sum of Bytes differs from the file's Total Allocated at {} of {} events",
          d.rank, d.device, d.mismatches, d.events));
    else if (d.mismatches)
      t.notes.push_back(fmt::format(
          "rank {} {}: at {} of {} events the running sum of Bytes differs from the trace's Total Allocated (first at "
          "{:.3f} ms): allocator events were lost or reordered; the sum restarted from the trace's total",
          d.rank, d.device, d.mismatches, d.events, static_cast<double>(d.first_mismatch_ts) / kPsPerMs));
  }
  if (m.empty())
    t.notes.push_back(
        "No allocator events: record with torch.profiler.profile(profile_memory=True) (Kineto [memory] events).");
  return t;
}

Table MemoryCategoriesTable(const std::vector<CategoryMemory>& m) {
  Table t("memory_categories", "Memory by category (torch.profiler's memory timeline, as HTA's MemoryAnalysis; MB)");
  auto mb = [](const char* name, const char* description) {
    return Measure(name, Unit::kBytes, description).Show(std::string(name) + "_mb", 1e6, 1);
  };
  t.Add(RankKey())
      .Add(Key("category", Unit::kText, "what the memory holds, as torch's memory profiler classes it"))
      .Add(mb("at_peak", "bytes when the total peaked"))
      .Add(Pct("pct_of_peak", "share of the peak", 1))
      .Add(mb("max", "the category's own largest"))
      .Add(mb("end", "at the last event"));
  for (const CategoryMemory& c : m) {
    for (const CategoryMemory::Category& x : c.categories)
      t.rows.push_back(
          {Cell::Int(c.rank), Cell::Text(x.name), Cell::Int(x.at_peak),
           c.peak > 0 ? Cell::Real(100.0 * static_cast<double>(x.at_peak) / static_cast<double>(c.peak)) : Cell::Null(),
           Cell::Int(x.max), Cell::Int(x.end)});
    t.notes.push_back(fmt::format(
        "rank {}: the total peaks at {:.1f} MB, at {:.3f} ms (from the whole microsecond before the first event)",
        c.rank, static_cast<double>(c.peak) / 1e6, static_cast<double>(c.peak_ts) / kPsPerMs));
  }
  return t;
}

Table MemorySitesTable(const std::vector<DeviceMemory>& m, bool at_peak, int top, size_t* hidden) {
  Table t(at_peak ? "memory_at_peak" : "memory_allocators",
          at_peak ? "Blocks alive at each device's peak, by the op that allocated them (MB)"
                  : "Allocations by op over the whole trace (MB)");
  t.Add(RankKey())
      .Add(Key("device", Unit::kText, "the allocator's device"))
      .Add(Measure("bytes", Unit::kBytes, at_peak ? "bytes alive at the peak" : "bytes allocated").Show("mb", 1e6, 3))
      .Add(Pct("pct", at_peak ? "of the peak" : "of all bytes allocated on the device", 1))
      .Add(Count("blocks", at_peak ? "blocks alive" : "allocations"))
      .Add(Key("op", Unit::kText, "the outermost cpu_op around the allocation").Symbol())
      .Add(Text("inner", "the innermost cpu_op (the most common in the group)"));
  *hidden = 0;
  for (const DeviceMemory& d : m) {
    const std::vector<MemorySite>& sites = at_peak ? d.alive_at_peak : d.allocators;
    const double whole = static_cast<double>(at_peak ? d.peak : d.allocated_bytes);
    for (size_t i = 0; i < sites.size(); ++i) {
      if (top > 0 && static_cast<int>(i) >= top) {
        *hidden += sites.size() - i;
        break;
      }
      const MemorySite& s = sites[i];
      t.rows.push_back({Cell::Int(d.rank), Cell::Text(d.device), Cell::Int(s.bytes),
                        whole > 0 ? Cell::Real(100.0 * static_cast<double>(s.bytes) / whole) : Cell::Null(),
                        Cell::Int(s.count), Cell::Text(s.op), Cell::Text(s.inner)});
    }
    if (at_peak && d.has_totals && d.peak >= 0)
      t.notes.push_back(fmt::format(
          "rank {} {}: of the {:.1f} MB peak, {:.1f} MB were allocated before the trace began "
          "or without an address (not placed)",
          d.rank, d.device, static_cast<double>(d.peak) / 1e6, static_cast<double>(d.peak - d.alive_known) / 1e6));
  }
  return t;
}

Table KernelBlockPartsTable(const LayerReport& r) {
  Table t("kernel_block_parts", "The repeating kernel sequence by launching op (us per instance)");
  t.Add(RankKey())
      .Add(Key("phase", Unit::kText, "forward or backward"))
      .Add(Key("op", Unit::kText, "the innermost cpu_op that launched the kernels, else the kernel").Symbol())
      .Add(TimeUs("per_instance", "GPU time per instance (mean)"))
      .Add(Pct("pct", "of the sequence's GPU time", 1));
  for (const KernelBlockPart& b : r.kernel_block_parts)
    t.rows.push_back(
        {Cell::Int(b.rank), Cell::Text(b.phase), Cell::Text(b.part), Time(b.per_instance), Cell::Real(b.pct)});
  return t;
}

Table RulesTable() {
  Table t("rules", "The rules of mlprof diagnose");
  t.Add(Key("rule", Unit::kText, "the rule's id"))
      .Add(Text("severity", "info, warning or error"))
      .Add(Text("title", "what it finds"))
      .Add(Text("meaning", "what a finding means").Whole())
      .Add(Text("fix", "how to fix it").Whole());
  for (size_t i = 0; i < kRuleCount; ++i) {
    const RuleInfo& r = InfoOf(static_cast<Rule>(i));
    t.rows.push_back({Cell::Text(r.id), Cell::Text(SeverityName(r.severity)), Cell::Text(r.title),
                      Cell::Text(r.meaning), Cell::Text(r.fix)});
  }
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

std::vector<std::string> StepSourceNotes(const StepReport& s) {
  std::vector<std::string> out;
  for (const StepSummary& r : s.summary) {
    if (!r.note.empty()) {
      out.push_back(fmt::format("Rank {}: {}{}.", r.rank, r.note,
                                r.source == StepSource::kTrace ? "; its figures are per trace" : ""));
      continue;
    }
    if (r.source == StepSource::kProfilerStep || r.source == StepSource::kNone) continue;
    if (r.source == StepSource::kTrace)
      out.push_back(fmt::format(
          "Rank {}: no iterations found (no ProfilerStep#N, serving step, Optimizer.step range, iteration annotation "
          "or repeating top-level ops): the whole trace is one step, and its figures are per trace.",
          r.rank));
    else
      out.push_back(fmt::format(
          "Rank {}: no ProfilerStep#N; the steps are {}{}.", r.rank, StepSourceDescription(r.source),
          r.gpu_ops_outside > 0
              ? fmt::format("; {} GPU ops ({:.3f} ms) were launched before the first step or after the last and "
                            "are in none (the iteration before the first boundary, say)",
                            r.gpu_ops_outside, static_cast<double>(r.gpu_time_outside) / 1e9)
              : ""));
  }
  return out;
}

Table StepTable(const StepReport& s) {
  Table t("steps", "Per-step breakdown (us)");
  t.Add(RankKey())
      .Add(Key("step", Unit::kId, "N of ProfilerStep#N; for steps found otherwise, 0.. in time order"))
      .Add(TimeUs("wall", "the step's span on the host"))
      .Add(TimeUs("gpu_span", "last end - first start of the step's GPU ops"))
      .Add(TimeUs("gpu_busy", "time any of the step's GPU ops runs"))
      .Add(TimeUs("compute", "time a COMPUTATION kernel of the step runs"))
      .Add(TimeUs("comm", "time a COMMUNICATION kernel of the step runs"))
      .Add(TimeUs("memory", "time a MEMORY op of the step runs"))
      .Add(TimeUs("gpu_idle", "gpu_span - gpu_busy"))
      .Add(Count("gpu_ops", "GPU ops launched in the step"))
      .Add(Text("warmup", "'yes' for a warm-up step, left out of the steady state"))
      .Add(Text("last", "'yes' for the last step, left out of the steady state as HTA does (--all-steps keeps it)"));
  for (const auto& b : s.steps)
    t.rows.push_back({Cell::Int(b.rank), Cell::Int(b.number), Time(b.wall), Time(b.gpu_span), Time(b.gpu_busy),
                      Time(b.compute), Time(b.communication), Time(b.memory), Time(b.idle), Cell::Int(b.gpu_ops),
                      Cell::Text(b.warmup ? "yes" : ""), Cell::Text(b.last ? "yes" : "")});
  return t;
}

Table StepSummaryTable(const StepReport& s) {
  Table t("steady_state", "Steady state (median over steps after warm-up; us)");
  t.Add(RankKey())
      .Add(Count("steps", "steps found"))
      .Add(Count("steady_steps", "steps after the warm-up (and before the left-out last step)"))
      .Add(TimeUs("median_wall", "median wall time of the steady steps"))
      .Add(TimeUs("median_gpu_span", "median GPU span"))
      .Add(TimeUs("median_gpu_busy", "median GPU busy time"))
      .Add(TimeUs("median_compute", "median COMPUTATION time"))
      .Add(Text("source",
                "where the steps come from: profiler (ProfilerStep#N), serving, optimizer (Optimizer.step ranges), "
                "annotation (iteration annotations), repeat (repeating top-level ops), trace (the whole trace)"));
  for (const auto& r : s.summary) {
    // No steady step (all warm-up): no median.
    auto med = [&](double us) { return r.steady_steps > 0 ? UsCell(us) : Cell::Null(); };
    t.rows.push_back({Cell::Int(r.rank), Cell::Int(r.steps), Cell::Int(r.steady_steps), med(r.median_wall_us),
                      med(r.median_gpu_span_us), med(r.median_busy_us), med(r.median_compute_us),
                      Cell::Text(StepSourceName(r.source))});
  }
  // Notes about one rank first (an MPI run merges them in rank order
  // before the others).
  t.notes = StepSourceNotes(s);
  if (std::any_of(s.steps.begin(), s.steps.end(), [](const StepBreakdown& b) { return b.last; }))
    t.notes.push_back(
        "The last step is left out of the medians, as HTA does: profiling often stops inside it (--all-steps keeps "
        "it).");
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

Table ModuleTreeTable(const ModuleReport& m, int top, size_t* hidden) {
  Table t("module_tree", "GPU time up the nn.Module tree (per instance path; us)");
  t.Add(RankKey())
      .Add(Key("module", Unit::kText, "the instance path, outermost first (\" > \" between)").Symbol())
      .Add(Text("class", "the module class"))
      .Add(Count("depth", "0 for a top module"))
      .Add(Count("calls", "frames of this path that launched GPU work"))
      .Add(Count("gpu_ops", "kernels, copies and fills launched under it"))
      .Add(TimeUs("gpu", "their GPU time (inclusive)"))
      .Add(TimeUs("self", "of it, launched with no module inside this one"))
      .Add(Pct("pct", "of the rank's GPU time"));
  LimitedRows(t, m.tree, top, hidden, [](const ModuleNodeRow& r) -> std::vector<Cell> {
    return {Cell::Int(r.rank),    Cell::Text(r.path), Cell::Text(r.cls), Cell::Int(r.depth), Cell::Int(r.calls),
            Cell::Int(r.gpu_ops), Time(r.gpu),        Time(r.self),      Cell::Real(r.pct)};
  });
  return t;
}

Table ModuleClassTable(const ModuleReport& m, int top, size_t* hidden) {
  Table t("module_classes", "GPU time per nn.Module class (us)");
  t.Add(RankKey())
      .Add(Key("class", Unit::kText, "the module class").Symbol())
      .Add(Count("instances", "distinct instances (Cls_N names) that launched GPU work"))
      .Add(Count("calls", "their frames"))
      .Add(TimeUs("gpu", "GPU time launched under the class, once however often it nests"))
      .Add(Pct("pct", "of the rank's GPU time"))
      .Add(Text("parent", "the enclosing class it spends the most time under"))
      .Add(Pct("pct_of_parent", "its GPU time under `parent` / the parent class's GPU time", 1));
  LimitedRows(t, m.classes, top, hidden, [](const ModuleClassRow& r) -> std::vector<Cell> {
    return {Cell::Int(r.rank),
            Cell::Text(r.cls),
            Cell::Int(r.instances),
            Cell::Int(r.calls),
            Time(r.gpu),
            Cell::Real(r.pct),
            Cell::Text(r.parent),
            r.pct_of_parent >= 0 ? Cell::Real(r.pct_of_parent) : Cell::Null()};
  });
  return t;
}

Table AnnotationTable(const ModuleReport& m, int top, size_t* hidden) {
  Table t("annotations", "GPU time per user annotation (record_function on the host, gpu_user_annotation; us)");
  t.Add(RankKey())
      .Add(Key("annotation", Unit::kText, "the range's name (ProfilerStep#N as ProfilerStep*)").Symbol())
      .Add(Key("where", Unit::kText, "host: record_function ranges; gpu: gpu_user_annotation ranges"))
      .Add(Count("calls", "ranges"))
      .Add(TimeUs("span", "their durations summed"))
      .Add(Count("gpu_ops", "host: GPU ops launched inside; gpu: GPU ops of the range's stream inside it"))
      .Add(TimeUs("gpu", "their GPU time (a GPU op counted once however deeply the name nests)"))
      .Add(Pct("pct", "of the rank's GPU time"))
      .Add(Text("parent", "host: the enclosing annotation most of its GPU time is under"));
  LimitedRows(t, m.annotations, top, hidden, [](const AnnotationRow& r) -> std::vector<Cell> {
    return {Cell::Int(r.rank),    Cell::Text(r.name), Cell::Text(r.where), Cell::Int(r.calls),  Time(r.span),
            Cell::Int(r.gpu_ops), Time(r.gpu),        Cell::Real(r.pct),   Cell::Text(r.parent)};
  });
  return t;
}

Table AnnotationStepTable(const ModuleReport& m, int top, size_t* hidden) {
  Table t("annotations_by_step", "GPU time per host annotation and step (us)");
  t.Add(RankKey())
      .Add(Key("annotation", Unit::kText, "the range's name").Symbol())
      .Add(Key("step", Unit::kId, "the step (ProfilerStep#N's N, or the serving step's position)"))
      .Add(Count("gpu_ops", "GPU ops launched inside the annotation in this step"))
      .Add(TimeUs("gpu", "their GPU time"));
  LimitedRows(t, m.annotation_steps, top, hidden, [](const AnnotationStepRow& r) -> std::vector<Cell> {
    return {Cell::Int(r.rank), Cell::Text(r.name), Cell::Int(r.step), Cell::Int(r.gpu_ops), Time(r.gpu)};
  });
  return t;
}

Table KernelLaunchersTable(const ModuleReport& m, int top, size_t* hidden) {
  Table t("kernel_launchers", "Who launches each kernel: ops and modules (us)");
  t.Add(RankKey())
      .Add(Key("kernel", Unit::kText, "the GPU op's name").Symbol())
      .Add(Count("count", "launches"))
      .Add(TimeUs("gpu", "their GPU time"))
      .Add(Pct("pct", "of the rank's GPU time"))
      .Add(Text("top_op", "the launching op (innermost cpu_op) with the most of this kernel's time"))
      .Add(Pct("top_op_pct", "its share of the kernel's time", 1))
      .Add(Count("ops", "distinct launching ops ((no cpu_op) counts)"))
      .Add(Text("top_module", "the innermost module class with the most of its time"))
      .Add(Pct("top_module_pct", "its share", 1))
      .Add(Count("modules", "distinct innermost module classes ((no module) counts)"));
  LimitedRows(t, m.kernels, top, hidden, [](const KernelLauncherRow& r) -> std::vector<Cell> {
    return {Cell::Int(r.rank),        Cell::Text(r.kernel),         Cell::Int(r.count),       Time(r.gpu),
            Cell::Real(r.pct),        Cell::Text(r.top_op),         Cell::Real(r.top_op_pct), Cell::Int(r.ops),
            Cell::Text(r.top_module), Cell::Real(r.top_module_pct), Cell::Int(r.modules)};
  });
  return t;
}

namespace {
Column GbS(const char* name, const char* description) {
  return Measure(name, Unit::kByteRate, description).Show(std::string(name) + "_gb_s", 1e9, 3);
}
Cell KnownRate(double v) { return v >= 0 ? Cell::Real(v) : Cell::Null(); }
}  // namespace

Table CollectiveSummaryTable(const CollectiveReport& c, int top, size_t* hidden) {
  Table t("collectives", "Collectives across ranks, per process group and kind (TraceLens's implicit-sync summary)");
  t.Add(Key("group", Unit::kText, "process group name (all: matched by call order per rank)").Symbol())
      .Add(Key("collective", Unit::kText, "Collective name as written"))
      .Add(Key("dtype", Unit::kText, "element type"))
      .Add(Key("in_nelems", Unit::kCount, "In msg nelems"))
      .Add(Count("group_size", "ranks in the group"))
      .Add(Measure("bytes", Unit::kBytes, "the message: all-gather's output, the others' input").Show("mb", 1e6, 3))
      .Add(Count("count", "instances matched across ranks"))
      .Add(TimeUs("comm_mean", "communication time: the instance's shortest kernel (all ranks there), mean"))
      .Add(TimeUs("comm_median", "median"))
      .Add(TimeUs("comm_max", "largest"))
      .Add(TimeUs("skew_start_mean", "last arrival - first arrival (kernel starts), mean"))
      .Add(TimeUs("skew_start_max", "largest"))
      .Add(TimeUs("skew_end_mean", "last end - first end, mean"))
      .Add(GbS("algo_bw_mean", "bytes / communication time, mean over instances"))
      .Add(GbS("bus_bw_mean", "algo bw x 2(n-1)/n (all-reduce) or (n-1)/n, mean"))
      .Add(TimeMs("comm_total", "communication time summed"))
      .Add(Text("span", "intra_node or inter_node (the group's ranks / --gpus-per-node), unknown"));
  LimitedRows(t, c.summary, top, hidden, [](const CollectiveSummaryRow& r) -> std::vector<Cell> {
    auto ps = [](double v) { return v >= 0 ? TimeCell(v) : Cell::Null(); };
    return {Cell::Text(r.group),
            Cell::Text(r.name),
            Cell::Text(r.dtype),
            r.in_nelems >= 0 ? Cell::Int(r.in_nelems) : Cell::Null(),
            r.group_size >= 0 ? Cell::Int(r.group_size) : Cell::Null(),
            r.bytes >= 0 ? Cell::Int(r.bytes) : Cell::Null(),
            Cell::Int(r.count),
            ps(r.comm_mean),
            ps(r.comm_median),
            ps(r.comm_max),
            ps(r.skew_start_mean),
            ps(r.skew_start_max),
            ps(r.skew_end_mean),
            KnownRate(r.algo_bw_mean),
            KnownRate(r.bus_bw_mean),
            Time(r.comm_total),
            Cell::Text(r.span)};
  });
  t.notes.push_back(
      "Matched by process group and call order in it; a rank's collective kernels: names with nccl, rccl, "
      "cross_device_reduce or a symmetric-memory all-reduce. Implicitly synchronising kinds only (all-reduce, "
      "all-gather, reduce-scatter, all-to-all).");
  return t;
}

Table LastArrivalTable(const CollectiveReport& c, int top, size_t* hidden) {
  Table t("last_arrival", "Who arrives last: per process group and rank");
  t.Add(Key("group", Unit::kText, "process group name").Symbol())
      .Add(Key("rank", Unit::kId, "the rank"))
      .Add(Count("instances", "implicitly synchronising instances it took part in"))
      .Add(Count("last", "of them, it arrived last (latest kernel start; ties: the lower rank)"))
      .Add(TimeUs("wait", "its own waits for the last arrival, summed"))
      .Add(TimeUs("held", "when it was last: the other ranks' waits for it, summed"))
      .Add(TimeUs("after_last", "its kernels' time after the last arrival (the transfer once all are there), summed"));
  LimitedRows(t, c.last_arrival, top, hidden, [](const LastArrivalRow& r) -> std::vector<Cell> {
    return {Cell::Text(r.group), Cell::Int(r.rank), Cell::Int(r.instances), Cell::Int(r.last),
            Time(r.wait),        Time(r.held),      Time(r.after)};
  });
  return t;
}

Table CollectiveInstanceTable(const CollectiveReport& c, int top, size_t* hidden) {
  Table t("collective_instances", "Each collective matched across ranks, in time order");
  t.Add(Key("group", Unit::kText, "process group name").Symbol())
      .Add(Key("index", Unit::kId, "its position among the group's collectives"))
      .Add(Text("collective", "Collective name"))
      .Add(Text("kind", "all-reduce, all-gather, ..."))
      .Add(Count("ranks", "ranks that recorded it"))
      .Add(Measure("bytes", Unit::kBytes, "the message").Show("mb", 1e6, 3))
      .Add(Measure("first_arrival", Unit::kTime, "first kernel start, from the earliest trace origin").Ms())
      .Add(TimeUs("comm", "the shortest kernel"))
      .Add(TimeUs("skew_start", "last arrival - first arrival (implicitly synchronising kinds, 2+ ranks)"))
      .Add(TimeUs("skew_end", "last end - first end"))
      .Add(TimeUs("mean_wait", "mean over ranks of (last arrival - its arrival)"))
      .Add(Count("last_rank", "the rank that arrived last"))
      .Add(GbS("algo_bw", "bytes / comm"))
      .Add(GbS("bus_bw", "algo bw x the collective's factor"));
  LimitedRows(t, c.instances, top, hidden, [](const CollectiveInstance& r) -> std::vector<Cell> {
    // Arrival skew only where every rank waits for the others, and with two
    // ranks or more to compare.
    const bool sync = r.implicit_sync && r.ranks > 1;
    return {Cell::Text(r.group),
            Cell::Int(r.index),
            Cell::Text(r.name),
            Cell::Text(r.kind),
            Cell::Int(r.ranks),
            r.bytes >= 0 ? Cell::Int(r.bytes) : Cell::Null(),
            Time(r.first_arrival),
            Time(r.comm),
            sync ? Time(r.skew_start) : Cell::Null(),
            sync ? Time(r.skew_end) : Cell::Null(),
            sync ? Time(r.mean_wait) : Cell::Null(),
            sync ? Cell::Int(r.last_rank) : Cell::Null(),
            KnownRate(r.algo_bw),
            KnownRate(r.bus_bw)};
  });
  return t;
}

Table CollectiveLongTable(const CollectiveReport& c, int top, size_t* hidden) {
  Table t("collective_kernels", "Collective kernel time per rank and description (TraceLens's long table)");
  t.Add(RankKey())
      .Add(Key("group", Unit::kText, "Process Group Name").Symbol())
      .Add(Key("collective", Unit::kText, "Collective name"))
      .Add(Key("dtype", Unit::kText, "dtype"))
      .Add(Key("in_nelems", Unit::kCount, "In msg nelems"))
      .Add(Key("out_nelems", Unit::kCount, "Out msg nelems"))
      .Add(Key("stream", Unit::kId, "the GPU stream"))
      .Add(Count("group_size", "Group size"))
      .Add(Text("group_ranks", "Process Group Ranks"))
      .Add(Count("count", "kernels"))
      .Add(TimeUs("dur_sum", "their durations summed"))
      .Add(TimeUs("dur_mean", "mean"))
      .Add(TimeUs("dur_std", "sample standard deviation"))
      .Add(TimeUs("dur_min", "shortest"))
      .Add(TimeUs("dur_max", "longest"))
      .Add(Count("node", "rank / gpus per node"))
      .Add(Text("span", "intra_node or inter_node group"));
  LimitedRows(t, c.long_rows, top, hidden, [](const CollectiveLongRow& r) -> std::vector<Cell> {
    return {Cell::Int(r.rank),
            Cell::Text(r.group),
            Cell::Text(r.name),
            Cell::Text(r.dtype),
            r.in_nelems >= 0 ? Cell::Int(r.in_nelems) : Cell::Null(),
            r.out_nelems >= 0 ? Cell::Int(r.out_nelems) : Cell::Null(),
            Cell::Int(r.stream),
            r.group_size >= 0 ? Cell::Int(r.group_size) : Cell::Null(),
            Cell::Text(r.group_ranks),
            Cell::Int(r.count),
            TimeCell(r.dur_sum),
            TimeCell(r.dur_mean),
            TimeCell(r.dur_std),
            TimeCell(r.dur_min),
            TimeCell(r.dur_max),
            Cell::Int(r.node),
            Cell::Text(r.span)};
  });
  return t;
}

Table AllToAllTable(const CollectiveReport& c) {
  Table t("alltoall_bytes", "All-to-all bytes from each rank to each (from the split sizes)");
  t.Add(Key("group", Unit::kText, "process group").Symbol())
      .Add(Key("src", Unit::kId, "sending rank"))
      .Add(Key("dst", Unit::kId, "receiving rank"))
      .Add(Measure("bytes", Unit::kBytes, "summed over the group's all-to-alls").Show("mb", 1e6, 3));
  for (const AllToAllCell& a : c.alltoall)
    t.rows.push_back({Cell::Text(a.group), Cell::Int(a.src), Cell::Int(a.dst), Cell::Int(a.bytes)});
  return t;
}

Table ServingStepTable(const ServingReport& s) {
  Table t("serving_steps", "Serving steps (the engine's step annotations; us)");
  auto num = [](int64_t v) { return v >= 0 ? Cell::Int(v) : Cell::Null(); };
  t.Add(RankKey())
      .Add(Key("step", Unit::kId, "the step's position in time (0 first)"))
      .Add(Text("engine", "vllm (execute_...) or sglang (step[...])"))
      .Add(Text("kind", "prefill, decode, mixed (both in one batch) or idle"))
      .Add(Count("requests", "requests in the batch"))
      .Add(Count("tokens", "tokens the step ran (vLLM: scheduled tokens; SGLang decode: one per request)"))
      .Add(Count("prefill_tokens", "query tokens of the requests in prefill"))
      .Add(Count("decode_tokens", "query tokens of the requests in decode"))
      .Add(Count("kv_tokens", "context (key) tokens over all requests: the KV cache the step reads (vLLM)"))
      .Add(TimeUs("host", "the step's range on the host"))
      .Add(TimeUs("blocked", "of it, in calls that wait for the device (syncs, synchronous copies) on its thread"))
      .Add(TimeUs("gpu_busy", "time any GPU op launched in the step runs"))
      .Add(TimeUs("gpu_span", "last end - first start of those GPU ops"))
      .Add(TimeUs("latency", "range start to the later of its end and its last GPU op's end"))
      .Add(TimeUs("gap", "from this step's latency end to the next step's start"))
      .Add(Measure("tokens_per_s", Unit::kRatio, "tokens / latency").Decimals(1))
      .Add(Text("bound", "host: host - blocked > gpu_busy (issuing the step takes longer than its GPU work); else gpu"))
      .Add(Text("warmup", "'yes' for a warm-up step, left out of the steady state"))
      .Add(Text("last", "'yes' for the last step, left out of the steady state (--all-steps keeps it)"));
  for (const ServingStepRow& r : s.steps)
    t.rows.push_back(
        {Cell::Int(r.rank), Cell::Int(r.number), Cell::Text(r.engine), Cell::Text(r.kind), num(r.requests),
         num(r.tokens), num(r.prefill_tokens), num(r.decode_tokens), num(r.kv_tokens), Time(r.host), Time(r.blocked),
         Time(r.gpu_busy), Time(r.gpu_span), Time(r.latency), r.gap >= 0 ? Time(r.gap) : Cell::Null(),
         r.tokens >= 0 && r.latency > 0 ? Cell::Real(static_cast<double>(r.tokens) / (PsToUs(r.latency) * 1e-6))
                                        : Cell::Null(),
         Cell::Text(r.host_bound ? "host" : "gpu"), Cell::Text(r.warmup ? "yes" : ""),
         Cell::Text(r.last ? "yes" : "")});
  return t;
}

Table ServingSummaryTable(const ServingReport& s) {
  Table t("serving_steady_state", "Serving steady state per kind of step (steps after warm-up; us)");
  auto rate = [](double v) { return v >= 0 ? Cell::Real(v) : Cell::Null(); };
  t.Add(RankKey())
      .Add(Key("kind", Unit::kText, "prefill, decode, mixed or idle"))
      .Add(Count("steps", "steps of this kind"))
      .Add(Count("steady_steps", "of them after the warm-up (and before a left-out last step)"))
      .Add(Measure("mean_requests", Unit::kRatio, "mean requests per steady step").Decimals(1))
      .Add(TimeUs("median_latency", "median step latency"))
      .Add(TimeUs("p90_latency", "90th percentile of the latency (linear interpolation)"))
      .Add(TimeUs("median_tpot", "decode: time per output token = the median decode step latency"))
      .Add(TimeUs("median_host", "median host time to issue a step"))
      .Add(TimeUs("median_gpu_busy", "median GPU busy time per step"))
      .Add(TimeUs("median_gap", "median gap to the next step"))
      .Add(Measure("tokens_per_s", Unit::kRatio, "tokens of the steady steps / their latencies summed").Decimals(1))
      .Add(Measure("output_tokens_per_s", Unit::kRatio,
                   "tokens produced (one per decode request; a prefill's first token is not counted) / latency")
               .Decimals(1))
      .Add(Count("host_bound_steps", "steady steps whose host time less blocking calls exceeds their GPU busy time"));
  for (const ServingKindSummary& k : s.summary) {
    const bool any = k.steady_steps > 0;
    auto us = [&](double v) { return any && v >= 0 ? UsCell(v) : Cell::Null(); };
    t.rows.push_back({Cell::Int(k.rank), Cell::Text(k.kind), Cell::Int(k.steps), Cell::Int(k.steady_steps),
                      k.mean_requests >= 0 ? Cell::Real(k.mean_requests) : Cell::Null(), us(k.median_latency_us),
                      us(k.p90_latency_us), us(k.median_tpot_us), us(k.median_host_us), us(k.median_gpu_busy_us),
                      us(k.median_gap_us), rate(k.tokens_per_s), rate(k.output_tokens_per_s),
                      Cell::Int(k.host_bound_steps)});
  }
  return t;
}

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

std::string AttributionNote(int64_t rank, const AttributionSummary& s) {
  if (s.total <= 0) return "";
  auto at = [&](AttributedBy b) { return s.time[static_cast<size_t>(b)]; };
  const Ps by_id = at(AttributedBy::kExternalId), by_time = at(AttributedBy::kContainment);
  const Ps graph = at(AttributedBy::kGraphLaunch), ann = at(AttributedBy::kAnnotation), none = at(AttributedBy::kNone);
  const bool repaired = s.unmatched_ops + s.outside_ops > 0;
  if (!repaired && s.correlation_ops == 0 && ann == 0 && none == 0 && s.without_launch_ops == 0) return "";
  auto pct = [&](Ps v) {
    return fmt::format("{:.1f} %", 100.0 * static_cast<double>(v) / static_cast<double>(s.total));
  };
  auto ms = [](Ps v) { return fmt::format("{:.3f} ms", static_cast<double>(v) / 1e9); };
  std::string out = fmt::format(
      "Rank {}: GPU time attributed: {} to the launching cpu_op ({} by its External id, "
      "checked; {} by time)",
      rank, pct(by_id + by_time), pct(by_id), pct(by_time));
  if (graph > 0) out += fmt::format(", {} to the graph launch that replayed it", pct(graph));
  if (ann > 0) out += fmt::format(", {} to the user annotation around it (no cpu_op above the launch)", pct(ann));
  out += fmt::format(", {} to none", pct(none));
  if (s.without_launch_ops > 0)
    out +=
        fmt::format(" ({} GPU ops, {}, have no launch in the trace)", s.without_launch_ops, ms(s.without_launch_time));
  out += ".";
  if (s.correlation_ops > 0)
    out += fmt::format(
        " {} GPU ops ({}) were launched by calls whose External id is their correlation id (a profiler "
        "that links launches to ops by time only).",
        s.correlation_ops, ms(s.correlation_time));
  if (repaired) {
    out += " External ids not used:";
    if (s.unmatched_ops > 0)
      out += fmt::format(" {} GPU ops ({}) carry an id no cpu_op has", s.unmatched_ops, ms(s.unmatched_time));
    if (s.unmatched_ops > 0 && s.outside_ops > 0) out += ";";
    if (s.outside_ops > 0)
      out += fmt::format(" {} ({}) the id of a cpu_op that does not contain the launch", s.outside_ops,
                         ms(s.outside_time));
    out += ".";
  }
  return out;
}

Table OpsTable(const std::vector<OpGpuTime>& ops, int top,
               const std::vector<std::pair<int64_t, AttributionSummary>>& attribution) {
  Table t("ops", "GPU time per framework op (kernels attributed to the cpu_op that launched them; us)");
  t.notes.push_back(
      "gflop_per_call, tflops_s (FLOPs x calls / GPU time) and tb_s (bytes x calls / GPU time) come from the input "
      "shapes and scalar arguments, for the ops mlprof has a cost model for (GEMM, convolution, attention, "
      "elementwise, softmax, norms, reductions, embedding; `cost` names the model); record the trace with "
      "record_shapes=True to have them. GPU time under an op without a model (cudnn_convolution) goes to the "
      "nearest enclosing op with one (convolution).");
  t.Add(RankKey())
      .Add(Measure("gpu", Unit::kTime, "GPU time of the kernels, copies and fills the op launched").Us())
      .Add(Pct("pct", "gpu / the rank's GPU time"))
      .Add(Count("calls", "op instances that launched GPU work"))
      .Add(Count("gpu_ops", "GPU ops attributed"))
      .Add(TimeUs("cpu", "host time of the op instances"))
      .Add(Measure("flops_per_call", Unit::kFlops, "FLOPs of one call, from its shapes").Show("gflop_per_call", 1e9, 3))
      .Add(Measure("flops_per_s", Unit::kFlopRate, "FLOPs x calls / GPU time").Show("tflops_s", 1e12, 3))
      .Add(Measure("bytes_per_s", Unit::kByteRate, "bytes x calls / GPU time").Show("tb_s", 1e12, 3))
      .Add(Text("cost", "the cost model used"))
      .Add(Key("kind", Unit::kText,
               "what owns the GPU time: cpu_op, user_annotation or gpu_user_annotation (no cpu_op above the "
               "launch), graph_launch"))
      .Add(Key("op", Unit::kText, "the owner's name"))
      .Add(Key("input_dims", Unit::kText, "Input Dims as recorded (compact JSON)"))
      .Add(Key("input_types", Unit::kText, "Input type as recorded"))
      .Add(Key("concrete_inputs", Unit::kText, "Concrete Inputs as recorded (scalar arguments)"));
  int64_t cur_rank = INT64_MIN;
  int shown = 0;
  for (const auto& r : ops) {
    if (r.rank != cur_rank) cur_rank = r.rank, shown = 0;
    if (top > 0 && shown++ >= top) continue;
    t.rows.push_back({Cell::Int(r.rank), Time(r.gpu_time), Cell::Real(r.pct_gpu), Cell::Int(r.calls),
                      Cell::Int(r.gpu_ops), Time(r.cpu_time), Known(r.flops_per_call), Known(r.flops_per_s()),
                      Known(r.bytes_per_s()), Cell::Text(r.cost_kind), Cell::Text(r.kind), Cell::Text(r.name),
                      Cell::Text(r.input_dims), Cell::Text(r.input_types), Cell::Text(r.concrete_inputs)});
  }
  NoteHiddenRows(t, ops.size() - t.rows.size());
  for (const auto& [rank, s] : attribution)
    if (std::string n = AttributionNote(rank, s); !n.empty()) t.notes.push_back(std::move(n));
  return t;
}

namespace {
const char* HostKindName(OpKind k) {
  switch (k) {
    case OpKind::kCpuOp:
      return "cpu_op";
    case OpKind::kUserAnnotation:
      return "user_annotation";
    case OpKind::kRuntime:
      return "runtime";
    case OpKind::kDriver:
      return "driver";
    default:
      return "other";
  }
}
}  // namespace

Table HostOpsTable(const std::vector<HostOpRow>& rows, bool by_shape, int top, const std::vector<HostFlops>& flops,
                   int stack_frames) {
  Table t("host_ops", "Host time per op (torch.profiler key_averages; us)");
  bool costed = false;
  for (const HostOpRow& r : rows) costed = costed || r.flops >= 0;
  t.Add(RankKey()).Add(Key("op", Unit::kText, "op name (ProfilerStep#N merged as ProfilerStep*)").Symbol());
  if (by_shape) t.Add(Key("input_dims", Unit::kText, "Input Dims as recorded (compact JSON)"));
  if (stack_frames > 0)
    t.Add(Key("stack", Unit::kText,
              "the innermost Python frames (Call stack arg, else enclosing python_function events), ';'-separated"));
  t.Add(Text("kind", "cpu_op, user_annotation (record_function), runtime or driver"))
      .Add(Count("calls", "calls"))
      .Add(TimeUs("host_total", "sum of the calls' durations"))
      .Add(TimeUs("host_self", "host_total minus the direct children's durations (same thread)"))
      .Add(TimeUs("host_mean", "host_total / calls"))
      .Add(TimeUs("device_total", "GPU time of the work the op or any op under it launched"))
      .Add(TimeUs("device_self", "GPU time of the work the op launched itself"));
  if (costed)
    t.Add(Measure("flops", Unit::kFlops, "FLOPs of the calls, from their shapes (null unless every call is costed)")
              .Show("gflop", 1e9, 3))
        .Add(Measure("bytes", Unit::kBytes, "bytes the calls read and write, from their shapes").Show("mb", 1e6, 3));
  int64_t cur_rank = INT64_MIN;
  int shown = 0;
  for (const HostOpRow& r : rows) {
    if (r.rank != cur_rank) cur_rank = r.rank, shown = 0;
    if (top > 0 && shown++ >= top) continue;
    std::vector<Cell> row = {Cell::Int(r.rank), Cell::Text(r.name)};
    if (by_shape) row.push_back(Cell::Text(r.input_dims));
    if (stack_frames > 0) row.push_back(Cell::Text(r.stack));
    for (Cell c : {Cell::Text(HostKindName(r.kind)), Cell::Int(r.calls), Time(r.host_total), Time(r.host_self),
                   TimeCell(static_cast<double>(r.host_total) / static_cast<double>(r.calls)), Time(r.device_total),
                   Time(r.device_self)})
      row.push_back(std::move(c));
    if (costed) row.push_back(Known(r.flops)), row.push_back(Known(r.bytes));
    t.rows.push_back(std::move(row));
  }
  NoteHiddenRows(t, rows.size() - t.rows.size());
  for (const HostFlops& f : flops)
    if (f.costed_calls > 0)
      t.notes.push_back(fmt::format(
          "Rank {}: {:.3f} GFLOP in the ops costed from their shapes, each nest counted once at its outermost costed "
          "op ({} calls; {} costed calls inside them not counted again, e.g. aten::addmm inside aten::linear).",
          f.rank, f.flops / 1e9, f.costed_calls, f.nested_calls));
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

Table GradeTable(const std::vector<GradeItem>& items) {
  Table t("grade", "What the profile holds (mlprof's grade of it; figures that rest on a warning say so)");
  t.Add(RankKey())
      .Add(Key("item", Unit::kText, "what was checked (docs/ANALYSES.md, The grade)"))
      .Add(Text("severity", "info, warning or error"))
      .Add(Measure("value", Unit::kRatio, "the measure behind it: a count, or for attribution the share in percent"));
  // What each item means, with its figures: a note each (wrapped in text).
  for (const GradeItem& g : items) {
    t.rows.push_back(
        {Cell::Int(g.rank), Cell::Text(GradeIdName(g.id)), Cell::Text(SeverityName(g.severity)), Cell::Real(g.value)});
    t.notes.push_back(fmt::format("Rank {} {}: {}.", g.rank, GradeIdName(g.id), g.text));
  }
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
