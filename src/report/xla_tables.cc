#include "report/xla_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace mlprof {

namespace {

double Ms(Ps p) { return static_cast<double>(p) / 1e9; }
double Us(Ps p) { return static_cast<double>(p) / 1e6; }
double Pct(Ps part, Ps whole) { return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0; }
Cell Gflop(double f) { return f > 0 ? Cell::Real(f / 1e9, 3) : Cell::Null(); }

std::string Dims(std::span<const int64_t> d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += fmt::format("{}{}", i ? "," : "", d[i]);
  return s + "]";
}

}  // namespace

Table XlaSummaryTable(int64_t rank, const XlaBreakdown& b) {
  Table t;
  t.id = "xla_breakdown";
  t.title = "XLA device time by category";
  t.AddColumn("rank", true).AddColumn("category", false).AddColumn("time_ms", true).AddColumn("pct", true);
  t.AddColumn("per_step_ms", true).AddColumn("pct_of_step", true).AddColumn("ops", true).AddColumn("mean_us", true);
  t.AddColumn("forward_pct", true).AddColumn("backward_pct", true).AddColumn("remat_pct", true);
  t.AddColumn("optimizer_pct", true).AddColumn("gflop", true);
  const double per = static_cast<double>(std::max<int64_t>(1, b.steps) * std::max(1, b.devices));
  for (const auto& row : b.rows) {
    auto pass = [&](XlaPass p) { return Cell::Real(Pct(row.by_pass[static_cast<size_t>(p)], row.time)); };
    double per_step_ms = Ms(row.time) / per;
    t.rows.push_back({Cell::Int(rank), Cell::Text(OpCategoryName(row.group)), Cell::Real(Ms(row.time), 3),
                      Cell::Real(Pct(row.time, b.total)), Cell::Real(per_step_ms, 3),
                      b.step_time > 0 ? Cell::Real(100.0 * per_step_ms / Ms(b.step_time)) : Cell::Null(),
                      Cell::Int(row.count), Cell::Real(Us(row.time) / static_cast<double>(row.count), 3),
                      pass(XlaPass::kForward), pass(XlaPass::kBackward), pass(XlaPass::kRemat),
                      pass(XlaPass::kOptimizer), Gflop(row.flops)});
  }
  t.notes.push_back(fmt::format(
      "{} device(s); main module '{}': {} execution(s) per device{}. per_step_ms = time / (steps x devices).",
      b.devices, b.main_module, b.steps,
      b.step_time > 0 ? fmt::format(", mean {:.3f} ms each", Ms(b.step_time)) : std::string(" (no XLA Modules line)")));
  t.notes.push_back(
      "Passes come from the JAX name stack: transpose(...) = backward, remat/checkpoint = rematerialised, "
      "optax/optimizer/opt_state = optimizer; ops without a name stack count as unknown.");
  return t;
}

Table XlaAttributionTable(int64_t rank, const XlaBreakdown& b) {
  Table t;
  t.id = "xla_attribution";
  t.title = "Where device time goes (four-way attribution)";
  t.AddColumn("rank", true).AddColumn("bucket", false).AddColumn("time_ms", true).AddColumn("pct", true);
  t.AddColumn("includes", false);
  auto add = [&](const char* name, Ps v, const char* what) {
    t.rows.push_back(
        {Cell::Int(rank), Cell::Text(name), Cell::Real(Ms(v), 3), Cell::Real(Pct(v, b.total)), Cell::Text(what)});
  };
  add("efficient compute", b.efficient_compute, "matmul/convolution");
  add("model-specific kernels", b.model_specific, "attention, custom calls");
  add("memory-bound", b.memory_bound, "elementwise, reduce, data formatting");
  add("non-compute overhead", b.overhead, "collectives, transfers, async waits, control flow, other");
  return t;
}

Table XlaScopesTable(int64_t rank, const std::vector<ScopeRow>& rows, Ps total, int top) {
  Table t;
  t.id = "scopes";
  t.title = "Device time by named scope (inclusive)";
  t.AddColumn("rank", true).AddColumn("scope", false).AddColumn("depth", true).AddColumn("time_ms", true);
  t.AddColumn("pct", true).AddColumn("ops", true).AddColumn("gflop", true);
  // --top limits the children listed per parent.
  std::map<std::string, int> shown;
  for (const auto& r : rows) {
    std::string parent = r.path.substr(0, r.path.rfind('/') == std::string::npos ? 0 : r.path.rfind('/'));
    if (top > 0 && shown[parent]++ >= top) continue;
    std::string leaf = r.path.substr(r.path.rfind('/') == std::string::npos ? 0 : r.path.rfind('/') + 1);
    t.rows.push_back({Cell::Int(rank), Cell::Text(std::string(2 * r.depth, ' ') + leaf), Cell::Int(r.depth),
                      Cell::Real(Ms(r.time), 3), Cell::Real(Pct(r.time, total)), Cell::Int(r.count), Gflop(r.flops)});
  }
  t.notes.push_back(
      "Scopes are the JAX name stack (op_name metadata / tf_op) without jit wrappers, transforms and the primitive; "
      "each row includes its children. --top N limits children per scope, --depth the levels.");
  return t;
}

Table XlaTopOpsTable(int64_t rank, const XlaOps& x, const XlaOpTimes& times, int top) {
  Table t;
  t.id = "xla_ops";
  t.title = "Heaviest HLO ops";
  t.AddColumn("rank", true).AddColumn("module", false).AddColumn("hlo_op", false).AddColumn("category", false);
  t.AddColumn("mlprof_category", false).AddColumn("pass", false).AddColumn("time_ms", true).AddColumn("pct", true);
  t.AddColumn("count", true).AddColumn("mean_us", true).AddColumn("gflop_per_exec", true);
  t.AddColumn("mb_per_exec", true).AddColumn("tflops_s", true).AddColumn("cost_source", false);
  const std::vector<XlaOpTime>& v = times.rows;
  const Ps total = times.total;
  for (size_t i = 0; i < v.size() && (top <= 0 || static_cast<int>(i) < top); ++i) {
    const XlaOpInfo& info = x.ops[v[i].op];
    const XlaOpTime& a = v[i];
    double mean_s = static_cast<double>(a.time) / 1e12 / static_cast<double>(a.count);
    t.rows.push_back({Cell::Int(rank), Cell::Text(info.module), Cell::Text(info.hlo_op), Cell::Text(info.category),
                      Cell::Text(OpCategoryName(info.group)), Cell::Text(XlaPassName(info.pass)),
                      Cell::Real(Ms(a.time), 3), Cell::Real(Pct(a.time, total)), Cell::Int(a.count),
                      Cell::Real(Us(a.time) / static_cast<double>(a.count), 3),
                      info.flops >= 0 ? Cell::Real(info.flops / 1e9, 3) : Cell::Null(),
                      info.bytes >= 0 ? Cell::Real(info.bytes / 1e6, 3) : Cell::Null(),
                      info.flops > 0 && mean_s > 0 ? Cell::Real(info.flops / mean_s / 1e12, 3) : Cell::Null(),
                      Cell::Text(info.flops < 0 && info.bytes < 0 ? "none"
                                 : info.cost_from_model           ? "mlprof HLO cost model"
                                                                  : "recorded by the runtime")});
  }
  return t;
}

Table HloModulesTable(const std::vector<HloModuleSummary>& modules) {
  Table t;
  t.id = "hlo_modules";
  t.title = "HLO modules";
  t.AddColumn("module", false).AddColumn("entry", false).AddColumn("computations", true);
  t.AddColumn("instructions", true).AddColumn("fusions", true).AddColumn("collectives", true);
  t.AddColumn("partitions", true).AddColumn("replicas", true).AddColumn("gflop", true);
  t.AddColumn("transcendentals", true).AddColumn("gb_accessed", true).AddColumn("unknown_custom_calls", true);
  for (const auto& s : modules) {
    const hlo::Module& m = *s.module;
    t.rows.push_back({Cell::Text(m.name), Cell::Text(m.entry_computation() ? m.entry_computation()->name : ""),
                      Cell::Int(s.computations), Cell::Int(s.instructions), Cell::Int(s.fusions),
                      Cell::Int(s.collectives), Cell::Int(m.num_partitions), Cell::Int(m.replica_count),
                      Cell::Real(s.entry_cost.flops / 1e9, 3), Cell::Real(s.entry_cost.transcendentals, 0),
                      Cell::Real(s.entry_cost.bytes_accessed / 1e9, 3), Cell::Int(s.unknown_custom_calls)});
  }
  t.notes.push_back(
      "Cost of the entry computation by XLA's HloCostAnalysis rules (while loops: one iteration; custom calls "
      "other than cuBLAS GEMMs and cuDNN convolutions cannot be costed and count 0).");
  return t;
}

Table HloCategoryTable(const std::vector<HloCategoryRow>& rows) {
  Table t;
  t.id = "hlo_categories";
  t.title = "HLO ops that run, by category (one execution of each loop body)";
  t.AddColumn("category", false).AddColumn("xla_category", false).AddColumn("ops", true);
  t.AddColumn("gflop", true).AddColumn("gb_accessed", true).AddColumn("flop_per_byte", true);
  for (const auto& a : rows)
    t.rows.push_back({Cell::Text(OpCategoryName(a.group)), Cell::Text(a.xla_category), Cell::Int(a.count),
                      Cell::Real(a.flops / 1e9, 3), Cell::Real(a.bytes / 1e9, 3),
                      a.bytes > 0 ? Cell::Real(a.flops / a.bytes, 2) : Cell::Null()});
  return t;
}

Table HloCollectivesTable(const std::vector<HloCollective>& collectives) {
  Table t;
  t.id = "hlo_collectives";
  t.title = "Collectives: replica groups read as parallelism";
  t.AddColumn("module", false).AddColumn("instruction", false).AddColumn("opcode", false);
  t.AddColumn("groups", true).AddColumn("group_size", true).AddColumn("stride", true).AddColumn("axis", false);
  t.AddColumn("per_shard_shape", false).AddColumn("global_shape", false).AddColumn("mb", true);
  t.AddColumn("network_mb", true).AddColumn("replica_groups", false);
  for (const HloCollective& k : collectives) {
    const HloGroups& g = k.groups;
    std::string axis = g.size <= 1     ? "-"
                       : g.stride == 1 ? fmt::format("innermost ({}-way, contiguous devices)", g.size)
                       : g.stride > 1  ? fmt::format("outer ({}-way, device stride {})", g.size, g.stride)
                                       : fmt::format("{}-way, irregular groups", g.size);
    if (k.kind == CollectiveKind::kCollectivePermute) axis = "point-to-point (pipeline / ring)";
    t.rows.push_back({Cell::Text(k.module->name), Cell::Text(k.instruction->name), Cell::Text(k.instruction->opcode),
                      g.count ? Cell::Int(g.count) : Cell::Null(), g.size ? Cell::Int(g.size) : Cell::Null(),
                      g.size > 1 ? Cell::Int(g.stride) : Cell::Null(), Cell::Text(axis),
                      Cell::Text(k.per_shard->ToString()), Cell::Text(k.global->ToString()),
                      Cell::Real(static_cast<double>(k.result_bytes) / 1e6, 3), Cell::Real(k.network_bytes / 1e6, 3),
                      Cell::Text(std::string(g.text))});
  }
  if (collectives.empty()) t.notes.push_back("No collectives in these modules.");
  t.notes.push_back(
      "group_size = the parallelism degree of the mesh axis the collective runs over; stride 1 = the innermost "
      "(fastest) axis, larger strides = outer axes. network_mb = bytes each device sends (ring: all-reduce "
      "2(N-1)/N, all-gather/reduce-scatter/all-to-all (N-1)/N of the full buffer).");
  return t;
}

Table HloExplainTable(const HloInstructionFacts& f) {
  const hlo::Module& m = *f.module;
  const hlo::Computation& c = *f.computation;
  const hlo::Instruction* in = f.instruction;
  const hlo::Cost& k = f.cost;
  Table t;
  t.id = "hlo_op";
  t.title = fmt::format("HLO instruction %{}", in->name);
  t.AddColumn("field", false).AddColumn("value", false);
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
