#include "report/ops_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "model/steps.h"
#include "report/columns.h"
#include "report/tables_common.h"

namespace mlprof {

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

}  // namespace mlprof
