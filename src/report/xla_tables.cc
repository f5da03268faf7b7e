#include "report/xla_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "report/columns.h"

namespace mlprof {

namespace {

double Pct(Ps part, Ps whole) { return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0; }
Cell Flops(double f) { return f > 0 ? Cell::Real(f) : Cell::Null(); }
Column Gflop(std::string name, std::string description) {
  return Measure(std::move(name), Unit::kFlops, std::move(description)).Show("gflop", 1e9, 3);
}

std::string Dims(std::span<const int64_t> d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += fmt::format("{}{}", i ? "," : "", d[i]);
  return s + "]";
}

}  // namespace

Table XlaSummaryTable(int64_t rank, const XlaBreakdown& b) {
  Table t("xla_breakdown", "XLA device time by category");
  t.Add(RankKey())
      .Add(Key("category", Unit::kText, "mlprof's op category"))
      .Add(TimeMs("time", "device time of the category's ops"))
      .Add(Pct("pct", "time / all device op time"))
      .Add(TimeMs("per_step", "time / (steps x devices)"))
      .Add(Pct("pct_of_step", "per_step / the main module's mean execution time"))
      .Add(Count("ops", "op executions"))
      .Add(Measure("mean", Unit::kTime, "time / ops").Us())
      .Add(Pct("forward_pct", "share of the time in the forward pass"))
      .Add(Pct("backward_pct", "share in the backward pass (JAX transpose)"))
      .Add(Pct("remat_pct", "share rematerialised (remat / checkpoint)"))
      .Add(Pct("optimizer_pct", "share in the optimizer update"))
      .Add(Gflop("flops", "FLOPs of the category's executions (null when none are known)"));
  const double per = static_cast<double>(std::max<int64_t>(1, b.steps) * std::max(1, b.devices));
  for (const auto& row : b.rows) {
    auto pass = [&](XlaPass p) { return Cell::Real(Pct(row.by_pass[static_cast<size_t>(p)], row.time)); };
    const double per_step = static_cast<double>(row.time) / per;
    t.rows.push_back({Cell::Int(rank), Cell::Text(OpCategoryName(row.group)), Cell::Int(row.time),
                      Cell::Real(Pct(row.time, b.total)), TimeCell(per_step),
                      b.step_time > 0 ? Cell::Real(100.0 * per_step / static_cast<double>(b.step_time)) : Cell::Null(),
                      Cell::Int(row.count), TimeCell(static_cast<double>(row.time) / static_cast<double>(row.count)),
                      pass(XlaPass::kForward), pass(XlaPass::kBackward), pass(XlaPass::kRemat),
                      pass(XlaPass::kOptimizer), Flops(row.flops)});
  }
  t.notes.push_back(fmt::format(
      "{} device(s); main module '{}': {} execution(s) per device{}. per_step_ms = time / (steps x devices).",
      b.devices, b.main_module, b.steps,
      b.step_time > 0 ? fmt::format(", mean {:.3f} ms each", static_cast<double>(b.step_time) / 1e9)
                      : std::string(" (no XLA Modules line)")));
  t.notes.push_back(
      "Passes come from the JAX name stack: transpose(...) = backward, remat/checkpoint = rematerialised, "
      "optax/optimizer/opt_state = optimizer; ops without a name stack count as unknown.");
  return t;
}

Table XlaAttributionTable(int64_t rank, const XlaBreakdown& b) {
  Table t("xla_attribution", "Where device time goes (four-way attribution)");
  t.Add(RankKey())
      .Add(Key("bucket", Unit::kText, "efficient compute, model-specific kernels, memory-bound or overhead"))
      .Add(TimeMs("time", "device time of the bucket's ops"))
      .Add(Pct("pct", "time / all device op time"))
      .Add(Text("includes", "the categories in the bucket"));
  auto add = [&](const char* name, Ps v, const char* what) {
    t.rows.push_back({Cell::Int(rank), Cell::Text(name), Cell::Int(v), Cell::Real(Pct(v, b.total)), Cell::Text(what)});
  };
  add("efficient compute", b.efficient_compute, "matmul/convolution");
  add("model-specific kernels", b.model_specific, "attention, custom calls");
  add("memory-bound", b.memory_bound, "elementwise, reduce, data formatting");
  add("non-compute overhead", b.overhead, "collectives, transfers, async waits, control flow, other");
  return t;
}

Table XlaScopesTable(int64_t rank, const std::vector<ScopeRow>& rows, Ps total, int top) {
  Table t("scopes", "Device time by named scope (inclusive)");
  t.Add(RankKey())
      .Add(Key("scope", Unit::kText, "the scope's last name, indented by depth"))
      .Add(Measure("depth", Unit::kCount, "nesting depth (0: top level)"))
      .Add(TimeMs("time", "device time of the scope's ops, children included"))
      .Add(Pct("pct", "time / all device op time"))
      .Add(Count("ops", "op executions"))
      .Add(Gflop("flops", "FLOPs of the scope's executions (null when none are known)"));
  // --top limits the children listed per parent; a hidden scope's children
  // are hidden with it (rows come parents first).
  std::map<std::string, int> shown;
  std::set<std::string> hidden;
  for (const auto& r : rows) {
    std::string parent = r.path.substr(0, r.path.rfind('/') == std::string::npos ? 0 : r.path.rfind('/'));
    if (hidden.count(parent) || (top > 0 && shown[parent]++ >= top)) {
      hidden.insert(r.path);
      continue;
    }
    std::string leaf = r.path.substr(r.path.rfind('/') == std::string::npos ? 0 : r.path.rfind('/') + 1);
    t.rows.push_back({Cell::Int(rank), Cell::Text(std::string(2 * r.depth, ' ') + leaf), Cell::Int(r.depth),
                      Cell::Int(r.time), Cell::Real(Pct(r.time, total)), Cell::Int(r.count), Flops(r.flops)});
  }
  NoteHiddenRows(t, rows.size() - t.rows.size());
  t.notes.push_back(
      "Scopes are the JAX name stack (op_name metadata / tf_op) without jit wrappers, transforms and the primitive; "
      "each row includes its children. --top N limits children per scope, --depth the levels.");
  return t;
}

Table XlaTopOpsTable(int64_t rank, const XlaOps& x, const XlaOpTimes& times, int top) {
  Table t("xla_ops", "Heaviest HLO ops");
  t.Add(RankKey())
      .Add(Key("module", Unit::kText, "HLO module"))
      .Add(Key("hlo_op", Unit::kText, "HLO instruction"))
      .Add(Text("category", "the profiler's category"))
      .Add(Text("mlprof_category", "mlprof's op category"))
      .Add(Text("pass", "forward, backward, remat, optimizer or unknown"))
      .Add(TimeMs("time", "device time over all executions"))
      .Add(Pct("pct", "time / all device op time"))
      .Add(Count("count", "executions"))
      .Add(Measure("mean", Unit::kTime, "time / count").Us())
      .Add(Measure("flops_per_exec", Unit::kFlops, "FLOPs of one execution").Show("gflop_per_exec", 1e9, 3))
      .Add(Measure("bytes_per_exec", Unit::kBytes, "bytes accessed by one execution").Show("mb_per_exec", 1e6, 3))
      .Add(Measure("flops_per_s", Unit::kFlopRate, "FLOPs per execution / mean time").Show("tflops_s", 1e12, 3))
      .Add(Text("cost_source", "where the FLOPs and bytes come from"));
  const std::vector<XlaOpTime>& v = times.rows;
  const Ps total = times.total;
  for (size_t i = 0; i < v.size() && (top <= 0 || static_cast<int>(i) < top); ++i) {
    const XlaOpInfo& info = x.ops[v[i].op];
    const XlaOpTime& a = v[i];
    double mean_s = static_cast<double>(a.time) / 1e12 / static_cast<double>(a.count);
    t.rows.push_back({Cell::Int(rank), Cell::Text(info.module), Cell::Text(info.hlo_op), Cell::Text(info.category),
                      Cell::Text(OpCategoryName(info.group)), Cell::Text(XlaPassName(info.pass)), Cell::Int(a.time),
                      Cell::Real(Pct(a.time, total)), Cell::Int(a.count),
                      TimeCell(static_cast<double>(a.time) / static_cast<double>(a.count)), Known(info.flops),
                      Known(info.bytes), info.flops > 0 && mean_s > 0 ? Cell::Real(info.flops / mean_s) : Cell::Null(),
                      Cell::Text(info.flops < 0 && info.bytes < 0 ? "none"
                                 : info.cost_from_model           ? "mlprof HLO cost model"
                                                                  : "recorded by the runtime")});
  }
  NoteHiddenRows(t, v.size() - t.rows.size());
  return t;
}

std::vector<Table> XlaStepTables(int64_t rank, const XlaSteps& s) {
  Table steps("xla_steps", "Steps per device (XLA)");
  steps.Add(RankKey())
      .Add(Key("device", Unit::kText, "the device plane"))
      .Add(Key("step", Unit::kId, "the step's number (a Steps line's own, else the execution's index)"))
      .Add(TimeMs("start", "start, from the profile's origin"))
      .Add(TimeMs("time", "the step's wall time on the device"))
      .Add(Text("warmup", "'yes' for a warm-up step, left out of the steady state"));
  for (const XlaStep& x : s.steps)
    steps.rows.push_back({Cell::Int(rank), Cell::Text(x.device), Cell::Int(x.number), Cell::Int(x.ts), Cell::Int(x.dur),
                          Cell::Text(x.warmup ? "yes" : "")});
  steps.notes.push_back(
      s.source == XlaSteps::Source::kStepsLine
          ? std::string("Steps: the events of the device's Steps line.")
          : fmt::format("Steps: the executions of the main module '{}' on the XLA Modules line.", s.module));
  Table sum("xla_steady_state", "Steady state per device (steps after warm-up; XLA)");
  sum.Add(RankKey())
      .Add(Key("device", Unit::kText, "the device plane"))
      .Add(Count("steps", "steps"))
      .Add(Count("steady_steps", "steps after the warm-up"))
      .Add(TimeMs("median", "median step time of the steady steps"))
      .Add(TimeMs("mean", "mean step time of the steady steps"));
  for (const XlaStepSummary& x : s.summary)
    sum.rows.push_back({Cell::Int(rank), Cell::Text(x.device), Cell::Int(x.steps), Cell::Int(x.steady_steps),
                        x.steady_steps > 0 ? TimeCell(x.median) : Cell::Null(),
                        x.steady_steps > 0 ? TimeCell(x.mean) : Cell::Null()});
  return {std::move(steps), std::move(sum)};
}

Table HloModulesTable(const std::vector<HloModuleSummary>& modules) {
  Table t("hlo_modules", "HLO modules");
  t.Add(Key("module", Unit::kText, "module name"))
      .Add(Text("entry", "entry computation"))
      .Add(Count("computations", "computations"))
      .Add(Count("instructions", "instructions in all computations"))
      .Add(Count("fusions", "fusion instructions"))
      .Add(Count("collectives", "collective instructions"))
      .Add(Count("partitions", "SPMD partitions: num_partitions, else the most devices a sharding tiles over"))
      .Add(Count("replicas", "replica_count"))
      .Add(Gflop("flops", "FLOPs of one execution of the entry computation"))
      .Add(Measure("transcendentals", Unit::kCount, "transcendental operations").Decimals(0))
      .Add(Measure("bytes_accessed", Unit::kBytes, "bytes read and written").Show("gb_accessed", 1e9, 3))
      .Add(Count("unknown_custom_calls", "custom calls the cost model cannot see into (counted 0)"));
  for (const auto& s : modules) {
    const hlo::Module& m = *s.module;
    t.rows.push_back({Cell::Text(m.name), Cell::Text(m.entry_computation() ? m.entry_computation()->name : ""),
                      Cell::Int(s.computations), Cell::Int(s.instructions), Cell::Int(s.fusions),
                      Cell::Int(s.collectives), Cell::Int(s.partitions), Cell::Int(m.replica_count),
                      Cell::Real(s.entry_cost.flops), Cell::Real(s.entry_cost.transcendentals),
                      Cell::Real(s.entry_cost.bytes_accessed), Cell::Int(s.unknown_custom_calls)});
  }
  for (const auto& s : modules)
    if (s.partitions_from_shardings)
      t.notes.push_back(
          fmt::format("{}: {} partitions read from its sharding annotations (its header gives no num_partitions).",
                      s.module->name, s.partitions));
  t.notes.push_back(
      "Cost of the entry computation by XLA's HloCostAnalysis rules (while loops: one iteration; custom calls "
      "other than cuBLAS GEMMs and cuDNN convolutions cannot be costed and count 0).");
  return t;
}

Table HloCategoryTable(const std::vector<HloCategoryRow>& rows) {
  Table t("hlo_categories", "HLO ops that run, by category (one execution of each loop body)");
  t.Add(Key("category", Unit::kText, "mlprof's op category"))
      .Add(Key("xla_category", Unit::kText, "the profiler's category"))
      .Add(Count("ops", "instructions"))
      .Add(Gflop("flops", "FLOPs"))
      .Add(Measure("bytes_accessed", Unit::kBytes, "bytes read and written").Show("gb_accessed", 1e9, 3))
      .Add(Measure("intensity", Unit::kIntensity, "flops / bytes_accessed").Show("flop_per_byte", 1, 2));
  for (const auto& a : rows)
    t.rows.push_back({Cell::Text(OpCategoryName(a.group)), Cell::Text(a.xla_category), Cell::Int(a.count),
                      Cell::Real(a.flops), Cell::Real(a.bytes),
                      a.bytes > 0 ? Cell::Real(a.flops / a.bytes) : Cell::Null()});
  return t;
}

Table HloCollectivesTable(const std::vector<HloCollectiveGroup>& groups, int top) {
  Table t("hlo_collectives", "Collectives: replica groups read as parallelism (alike ones merged)");
  t.Add(Key("module", Unit::kText, "module name"))
      .Add(Key("opcode", Unit::kText, "HLO opcode"))
      .Add(Count("count", "instructions alike: same opcode, replica groups and per-shard shape"))
      .Add(Text("instruction", "the first of them"))
      .Add(Count("groups", "replica groups"))
      .Add(Count("group_size", "devices per group: the parallelism degree"))
      .Add(Measure("stride", Unit::kCount, "device id step between neighbours in a group (0: irregular)"))
      .Add(Text("axis", "the mesh axis the groups read as"))
      .Add(Key("per_shard_shape", Unit::kText, "the result shape on one device"))
      .Add(Text("global_shape", "the result shape over the group"))
      .Add(Measure("result_bytes", Unit::kBytes, "bytes of one result on one device").Show("mb", 1e6, 3))
      .Add(Measure("network_bytes", Unit::kBytes, "bytes each device sends, all of them together (ring)")
               .Show("network_mb", 1e6, 3))
      .Add(Key("replica_groups", Unit::kText, "replica_groups as written"));
  for (const HloCollectiveGroup& grp : groups) {
    if (top > 0 && t.rows.size() >= static_cast<size_t>(top)) break;
    const HloCollective& k = grp.first;
    const HloGroups& g = k.groups;
    std::string axis = g.size <= 1     ? "-"
                       : g.stride == 1 ? fmt::format("innermost ({}-way, contiguous devices)", g.size)
                       : g.stride > 1  ? fmt::format("outer ({}-way, device stride {})", g.size, g.stride)
                                       : fmt::format("{}-way, irregular groups", g.size);
    if (k.kind == CollectiveKind::kCollectivePermute) axis = "point-to-point (pipeline / ring)";
    t.rows.push_back({Cell::Text(k.module->name), Cell::Text(k.instruction->opcode), Cell::Int(grp.count),
                      Cell::Text(k.instruction->name), g.count ? Cell::Int(g.count) : Cell::Null(),
                      g.size ? Cell::Int(g.size) : Cell::Null(), g.size > 1 ? Cell::Int(g.stride) : Cell::Null(),
                      Cell::Text(axis), Cell::Text(k.per_shard->ToString()), Cell::Text(k.global->ToString()),
                      Cell::Int(static_cast<int64_t>(k.result_bytes)), Cell::Real(grp.network_bytes),
                      Cell::Text(std::string(g.text))});
  }
  NoteHiddenRows(t, groups.size() - t.rows.size());
  if (groups.empty()) t.notes.push_back("No collectives in these modules.");
  t.notes.push_back(
      "group_size = the parallelism degree of the mesh axis the collective runs over; stride 1 = the innermost "
      "(fastest) axis, larger strides = outer axes. network_mb = bytes each device sends (ring: all-reduce "
      "2(N-1)/N, all-gather/reduce-scatter/all-to-all (N-1)/N of the full buffer), summed over the row's count.");
  return t;
}

Table HloExplainTable(const HloInstructionFacts& f) {
  const hlo::Module& m = *f.module;
  const hlo::Computation& c = *f.computation;
  const hlo::Instruction* in = f.instruction;
  const hlo::Cost& k = f.cost;
  Table t("hlo_op", fmt::format("HLO instruction %{}", in->name));
  t.Add(Key("field", Unit::kText, "what is described")).Add(Text("value", "its value"));
  auto add = [&](std::string field, std::string_view v) {
    t.rows.push_back({Cell::Text(std::move(field)), Cell::Text(std::string(v))});
  };
  add("module", m.name);
  add("computation", std::string(c.name) + (c.is_fusion ? " (fusion body)" : c.is_entry ? " (entry)" : ""));
  if (in->line) add("position", fmt::format("{}:{}:{}", m.source, in->line, in->column));
  add("opcode", in->opcode);
  add("category", f.xla_category);
  add("mlprof category", OpCategoryName(f.group));
  add("shape", in->shape.ToString());
  for (size_t i = 0; i < f.outputs.size(); ++i) {
    const hlo::Shape& s = *f.outputs[i].shape;
    const hlo::PhysicalShape& ph = f.outputs[i].physical;
    std::string p = f.outputs.size() > 1 ? fmt::format("output {}: ", i) : "output: ";
    add(p + "dtype", hlo::ElementTypeName(s.type));
    add(p + "dims", Dims(s.dims));
    add(p + "dimension order (major to minor)", Dims(ph.logical_major_to_minor));
    std::string tiles;
    for (const auto& tile : s.layout.tiles) tiles += Dims(tile);
    add(p + "tiling", tiles.empty() ? "none" : tiles);
    add(p + "padded physical shape", Dims(ph.padded_major_to_minor));
    add(p + "bytes (logical / physical)", fmt::format("{} / {} ({:.2f}x)", ph.logical_bytes, ph.bytes, ph.expansion()));
    add(p + "memory space", hlo::MemorySpaceName(s.layout.memory_space));
  }
  for (size_t i = 0; i < in->operand_names.size(); ++i) {
    const hlo::Shape* s = f.operand_shapes[i];
    add(fmt::format("operand {}", i), "%" + std::string(in->operand_names[i]) + (s ? " " + s->ToString() : ""));
  }
  for (const auto& callee : in->called) add("calls", "%" + std::string(callee));
  for (const auto& [key, value] : in->attrs)
    if (key != "backend_config") add("attr " + std::string(key), value.substr(0, 200));
  add("flops", fmt::format("{:.0f}", k.flops));
  if (k.transcendentals > 0) add("transcendentals", fmt::format("{:.0f}", k.transcendentals));
  add("bytes accessed",
      fmt::format("{:.0f} (read {:.0f}, written {:.0f})", k.bytes_accessed, k.bytes_read, k.bytes_written));
  if (k.bytes_accessed > 0) add("arithmetic intensity (flop/byte)", fmt::format("{:.3f}", k.flops / k.bytes_accessed));
  if (k.unknown) add("cost note", "custom call: XLA cannot see inside (it reports -1)");
  const HloGroups& g = f.groups;
  if (g.size > 0) {
    add("replica groups", fmt::format("{} group(s) of {} (device stride {})", g.count, g.size, g.stride));
    add("parallelism degree", std::to_string(g.size));
    add("network bytes per device (ring)", fmt::format("{:.0f}", k.network_bytes));
  }
  if (!in->metadata.op_name.empty()) {
    add("op_name", in->metadata.op_name);
    add("pass", XlaPassName(f.pass));
    std::string scope;
    for (const auto& s : f.scope) scope += (scope.empty() ? "" : "/") + s;
    add("scope", scope);
  }
  if (!in->metadata.source_file.empty())
    add("source", fmt::format("{}:{}", in->metadata.source_file, in->metadata.source_line));
  return t;
}

}  // namespace mlprof
