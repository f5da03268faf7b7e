#include "report/xla_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

#include "hlo/attrs.h"
#include "hlo/cost.h"

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

// The cost of every non-fused instruction of the entry computation (what
// runs as a kernel/op); fusion bodies, reducers and loop bodies count
// through their callers.
hlo::Cost EntryCost(const hlo::Module& m, hlo::CostModel& cm) {
  hlo::Cost total;
  if (const hlo::Computation* e = m.entry_computation()) total = cm.OfComputation(*e);
  return total;
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
    t.rows.push_back({Cell::Int(rank), Cell::Text(XlaGroupName(row.group)), Cell::Real(Ms(row.time), 3),
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

Table XlaTopOpsTable(int64_t rank, const RankProfile& r, const XlaOps& x, int top, int width) {
  struct Agg {
    Ps time = 0;
    int64_t count = 0;
  };
  std::vector<Agg> agg(x.ops.size());
  Ps total = 0;
  for (size_t i = 0; i < r.ops.size(); ++i) {
    int32_t xi = r.ops.xla[i];
    if (xi < 0) continue;
    agg[static_cast<size_t>(xi)].time += r.ops.dur[i];
    ++agg[static_cast<size_t>(xi)].count;
    total += r.ops.dur[i];
  }
  // Merge identical (module, op) across devices.
  std::map<std::pair<std::string, std::string>, std::pair<Agg, size_t>> by;
  for (size_t k = 0; k < x.ops.size(); ++k) {
    if (agg[k].count == 0) continue;
    auto& e = by[{x.ops[k].module, x.ops[k].hlo_op}];
    e.first.time += agg[k].time;
    e.first.count += agg[k].count;
    e.second = k;
  }
  std::vector<std::pair<Agg, size_t>> v;
  for (auto& [key, e] : by) v.push_back(e);
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first.time > b.first.time; });
  Table t;
  t.id = "xla_ops";
  t.title = "Heaviest HLO ops";
  t.AddColumn("rank", true).AddColumn("module", false).AddColumn("hlo_op", false).AddColumn("category", false);
  t.AddColumn("mlprof_category", false).AddColumn("pass", false).AddColumn("time_ms", true).AddColumn("pct", true);
  t.AddColumn("count", true).AddColumn("mean_us", true).AddColumn("gflop_per_exec", true);
  t.AddColumn("mb_per_exec", true).AddColumn("tflops_s", true).AddColumn("cost_source", false);
  for (size_t i = 0; i < v.size() && (top <= 0 || static_cast<int>(i) < top); ++i) {
    const XlaOpInfo& info = x.ops[v[i].second];
    const Agg& a = v[i].first;
    double mean_s = static_cast<double>(a.time) / 1e12 / static_cast<double>(a.count);
    t.rows.push_back({Cell::Int(rank), Cell::Text(info.module), Cell::Text(info.hlo_op), Cell::Text(info.category),
                      Cell::Text(XlaGroupName(info.group)), Cell::Text(XlaPassName(info.pass)),
                      Cell::Real(Ms(a.time), 3), Cell::Real(Pct(a.time, total)), Cell::Int(a.count),
                      Cell::Real(Us(a.time) / static_cast<double>(a.count), 3),
                      info.flops >= 0 ? Cell::Real(info.flops / 1e9, 3) : Cell::Null(),
                      info.bytes >= 0 ? Cell::Real(info.bytes / 1e6, 3) : Cell::Null(),
                      info.flops > 0 && mean_s > 0 ? Cell::Real(info.flops / mean_s / 1e12, 3) : Cell::Null(),
                      Cell::Text(info.flops < 0 && info.bytes < 0 ? "none"
                                 : info.cost_from_model           ? "mlprof HLO cost model"
                                                                  : "recorded by the runtime")});
  }
  (void)width;
  return t;
}

Table HloModulesTable(const std::vector<hlo::Module>& modules) {
  Table t;
  t.id = "hlo_modules";
  t.title = "HLO modules";
  t.AddColumn("module", false).AddColumn("entry", false).AddColumn("computations", true);
  t.AddColumn("instructions", true).AddColumn("fusions", true).AddColumn("collectives", true);
  t.AddColumn("partitions", true).AddColumn("replicas", true).AddColumn("gflop", true);
  t.AddColumn("transcendentals", true).AddColumn("gb_accessed", true).AddColumn("unknown_custom_calls", true);
  for (const auto& m : modules) {
    int64_t fusions = 0, collectives = 0, unknown = 0;
    hlo::CostModel cm(m);
    for (const auto& c : m.computations)
      for (const auto& in : c.instructions) {
        fusions += in.opcode == "fusion";
        std::string cat = XprofCategory(m, in);
        XlaGroup g = GroupFromCategory(cat, in.name);
        collectives += g == XlaGroup::kCollective;
        if (in.opcode == "custom-call" && cm.Of(c, in).unknown) ++unknown;
      }
    hlo::Cost cost = EntryCost(m, cm);
    t.rows.push_back({Cell::Text(m.name), Cell::Text(m.entry_computation() ? m.entry_computation()->name : ""),
                      Cell::Int(static_cast<int64_t>(m.computations.size())),
                      Cell::Int(static_cast<int64_t>(m.instruction_count())), Cell::Int(fusions),
                      Cell::Int(collectives), Cell::Int(m.num_partitions), Cell::Int(m.replica_count),
                      Cell::Real(cost.flops / 1e9, 3), Cell::Real(cost.transcendentals, 0),
                      Cell::Real(cost.bytes_accessed / 1e9, 3), Cell::Int(unknown)});
  }
  t.notes.push_back(
      "Cost of the entry computation by XLA's HloCostAnalysis rules (while loops: one iteration; custom calls "
      "other than cuBLAS GEMMs and cuDNN convolutions cannot be costed and count 0).");
  return t;
}

Table HloCategoryTable(const std::vector<hlo::Module>& modules) {
  struct Agg {
    int64_t count = 0;
    double flops = 0, bytes = 0;
  };
  std::map<std::pair<std::string, std::string>, Agg> by;
  for (const auto& m : modules) {
    hlo::CostModel cm(m);
    const hlo::Computation* e = m.entry_computation();
    if (!e) continue;
    // Ops that run: the entry's instructions and those of while bodies,
    // conditionals and calls reached from it (not fusion bodies or reducers).
    std::vector<const hlo::Computation*> todo{e};
    std::vector<bool> seen(m.computations.size(), false);
    while (!todo.empty()) {
      const hlo::Computation* c = todo.back();
      todo.pop_back();
      for (const auto& in : c->instructions) {
        if (in.opcode == "while" || in.opcode == "conditional" || in.opcode == "call") {
          for (int32_t id : in.called_ids)
            if (id >= 0 && !seen[static_cast<size_t>(id)]) {
              seen[static_cast<size_t>(id)] = true;
              todo.push_back(&m.computations[static_cast<size_t>(id)]);
            }
          continue;
        }
        if (in.opcode == "parameter" || in.opcode == "constant" || in.opcode == "get-tuple-element" ||
            in.opcode == "tuple" || in.opcode == "bitcast")
          continue;
        std::string cat = XprofCategory(m, in);
        std::string_view gname = in.name;
        if (const std::string_view* tgt = in.Attr("custom_call_target")) gname = *tgt;
        auto& a = by[{XlaGroupName(GroupFromCategory(cat, gname)), cat}];
        hlo::Cost k = cm.Of(*c, in);
        ++a.count;
        a.flops += k.flops;
        a.bytes += k.bytes_accessed;
      }
    }
  }
  Table t;
  t.id = "hlo_categories";
  t.title = "HLO ops that run, by category (one execution of each loop body)";
  t.AddColumn("category", false).AddColumn("xla_category", false).AddColumn("ops", true);
  t.AddColumn("gflop", true).AddColumn("gb_accessed", true).AddColumn("flop_per_byte", true);
  std::vector<std::pair<std::pair<std::string, std::string>, Agg>> rows(by.begin(), by.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second.flops != b.second.flops ? a.second.flops > b.second.flops : a.second.bytes > b.second.bytes;
  });
  for (const auto& [k, a] : rows)
    t.rows.push_back({Cell::Text(k.first), Cell::Text(k.second), Cell::Int(a.count), Cell::Real(a.flops / 1e9, 3),
                      Cell::Real(a.bytes / 1e9, 3), a.bytes > 0 ? Cell::Real(a.flops / a.bytes, 2) : Cell::Null()});
  return t;
}

namespace {
struct GroupView {
  int64_t count = 0, size = 0, stride = 0;
  std::string text;
};
GroupView ReadGroups(const hlo::Module& m, const hlo::Instruction& in) {
  GroupView g;
  const std::string_view* rg = in.Attr("replica_groups");
  if (!rg) {
    if (const std::string_view* st = in.Attr("source_target_pairs")) g.text = *st;
    return g;
  }
  g.text = *rg;
  hlo::ReplicaGroups r;
  if (hlo::ParseReplicaGroups(*rg, &r)) {
    if (r.all) {
      g.count = 1;
      g.size = m.num_partitions * m.replica_count;
      g.stride = 1;
    } else {
      g.count = r.group_count();
      g.size = r.max_group_size();
      g.stride = r.stride();
    }
  }
  return g;
}
}  // namespace

Table HloCollectivesTable(const std::vector<hlo::Module>& modules, int top) {
  Table t;
  t.id = "hlo_collectives";
  t.title = "Collectives: replica groups read as parallelism";
  t.AddColumn("module", false).AddColumn("instruction", false).AddColumn("opcode", false);
  t.AddColumn("groups", true).AddColumn("group_size", true).AddColumn("stride", true).AddColumn("axis", false);
  t.AddColumn("per_shard_shape", false).AddColumn("global_shape", false).AddColumn("mb", true);
  t.AddColumn("network_mb", true).AddColumn("replica_groups", false);
  int n = 0;
  for (const auto& m : modules) {
    hlo::CostModel cm(m);
    for (const auto& c : m.computations)
      for (const auto& in : c.instructions) {
        std::string base(in.opcode);
        if (base.size() > 6 && base.substr(base.size() - 6) == "-start") base.resize(base.size() - 6);
        if (base != "all-reduce" && base != "all-gather" && base != "reduce-scatter" && base != "all-to-all" &&
            base != "collective-permute" && base != "ragged-all-to-all")
          continue;
        if (top > 0 && n >= top) continue;
        ++n;
        GroupView g = ReadGroups(m, in);
        const hlo::Shape* operand = !in.operands.empty() && in.operands[0] >= 0
                                        ? &c.instructions[static_cast<size_t>(in.operands[0])].shape
                                        : nullptr;
        const hlo::Shape& result =
            in.opcode != base && in.shape.is_tuple() && in.shape.tuple.size() >= 2 ? in.shape.tuple[1] : in.shape;
        std::string per_shard, global;
        if (base == "all-gather" && operand) {
          per_shard = operand->ToString(), global = result.ToString();
        } else if (base == "reduce-scatter" && operand) {
          per_shard = result.ToString(), global = operand->ToString();
        } else {
          per_shard = global = result.ToString();
        }
        std::string axis = g.size <= 1     ? "-"
                           : g.stride == 1 ? fmt::format("innermost ({}-way, contiguous devices)", g.size)
                           : g.stride > 1  ? fmt::format("outer ({}-way, device stride {})", g.size, g.stride)
                                           : fmt::format("{}-way, irregular groups", g.size);
        if (base == "collective-permute") axis = "point-to-point (pipeline / ring)";
        hlo::Cost k = cm.Of(c, in);
        t.rows.push_back({Cell::Text(m.name), Cell::Text(in.name), Cell::Text(in.opcode),
                          g.count ? Cell::Int(g.count) : Cell::Null(), g.size ? Cell::Int(g.size) : Cell::Null(),
                          g.size > 1 ? Cell::Int(g.stride) : Cell::Null(), Cell::Text(axis), Cell::Text(per_shard),
                          Cell::Text(global), Cell::Real(static_cast<double>(cm.ShapeBytes(result)) / 1e6, 3),
                          Cell::Real(k.network_bytes / 1e6, 3), Cell::Text(g.text)});
      }
  }
  if (n == 0) t.notes.push_back("No collectives in these modules.");
  t.notes.push_back(
      "group_size = the parallelism degree of the mesh axis the collective runs over; stride 1 = the innermost "
      "(fastest) axis, larger strides = outer axes. network_mb = bytes each device sends (ring: all-reduce "
      "2(N-1)/N, all-gather/reduce-scatter/all-to-all (N-1)/N of the full buffer).");
  return t;
}

StatusOr<Table> HloExplainTable(const std::vector<hlo::Module>& modules, std::string_view name) {
  std::string want(name.substr(0, 1) == "%" ? name.substr(1) : name);
  for (const auto& m : modules)
    for (const auto& c : m.computations) {
      const hlo::Instruction* in = c.Find(want);
      if (!in) continue;
      hlo::CostModel cm(m);
      hlo::Cost k = cm.Of(c, *in);
      Table t;
      t.id = "hlo_op";
      t.title = fmt::format("HLO instruction %{}", in->name);
      t.AddColumn("field", false).AddColumn("value", false);
      auto add = [&](std::string f, std::string_view v) {
        t.rows.push_back({Cell::Text(std::move(f)), Cell::Text(std::string(v))});
      };
      add("module", m.name);
      add("computation", std::string(c.name) + (c.is_fusion ? " (fusion body)" : c.is_entry ? " (entry)" : ""));
      if (in->line) add("position", fmt::format("{}:{}:{}", m.source, in->line, in->column));
      add("opcode", in->opcode);
      add("category", XprofCategory(m, *in));
      std::string gname(in->name);
      if (const std::string_view* tgt = in->Attr("custom_call_target")) gname = *tgt;
      add("mlprof category", XlaGroupName(GroupFromCategory(XprofCategory(m, *in), gname)));
      std::vector<const hlo::Shape*> leaves;
      std::function<void(const hlo::Shape&)> collect = [&](const hlo::Shape& s) {
        if (s.is_tuple())
          for (const auto& e : s.tuple) collect(e);
        else
          leaves.push_back(&s);
      };
      collect(in->shape);
      add("shape", in->shape.ToString());
      for (size_t i = 0; i < leaves.size() && i < 8; ++i) {
        const hlo::Shape& s = *leaves[i];
        std::string p = leaves.size() > 1 ? fmt::format("output {}: ", i) : "output: ";
        hlo::PhysicalShape ph = hlo::Physical(s);
        add(p + "dtype", hlo::ElementTypeName(s.type));
        add(p + "dims", Dims(s.dims));
        add(p + "dimension order (major to minor)", Dims(ph.logical_major_to_minor));
        std::string tiles;
        for (const auto& tile : s.layout.tiles) tiles += Dims(tile);
        add(p + "tiling", tiles.empty() ? "none" : tiles);
        add(p + "padded physical shape", Dims(ph.padded_major_to_minor));
        add(p + "bytes (logical / physical)",
            fmt::format("{} / {} ({:.2f}x)", ph.logical_bytes, ph.bytes, ph.expansion()));
        add(p + "memory space", hlo::MemorySpaceName(s.layout.memory_space));
      }
      for (size_t i = 0; i < in->operand_names.size(); ++i) {
        const hlo::Shape* s = in->operands.size() > i && in->operands[i] >= 0
                                  ? &c.instructions[static_cast<size_t>(in->operands[i])].shape
                                  : nullptr;
        add(fmt::format("operand {}", i), "%" + std::string(in->operand_names[i]) + (s ? " " + s->ToString() : ""));
      }
      for (const auto& callee : in->called) add("calls", "%" + std::string(callee));
      for (const auto& [key, value] : in->attrs)
        if (key != "backend_config") add("attr " + std::string(key), value.substr(0, 200));
      add("flops", fmt::format("{:.0f}", k.flops));
      if (k.transcendentals > 0) add("transcendentals", fmt::format("{:.0f}", k.transcendentals));
      add("bytes accessed",
          fmt::format("{:.0f} (read {:.0f}, written {:.0f})", k.bytes_accessed, k.bytes_read, k.bytes_written));
      if (k.bytes_accessed > 0)
        add("arithmetic intensity (flop/byte)", fmt::format("{:.3f}", k.flops / k.bytes_accessed));
      if (k.unknown) add("cost note", "custom call: XLA cannot see inside (it reports -1)");
      GroupView g = ReadGroups(m, *in);
      if (g.size > 0) {
        add("replica groups", fmt::format("{} group(s) of {} (device stride {})", g.count, g.size, g.stride));
        add("parallelism degree", std::to_string(g.size));
        add("network bytes per device (ring)", fmt::format("{:.0f}", k.network_bytes));
      }
      if (!in->metadata.op_name.empty()) {
        add("op_name", in->metadata.op_name);
        add("pass", XlaPassName(PassFromName(in->metadata.op_name)));
        std::string scope;
        for (const auto& s : ScopeFromName(in->metadata.op_name)) scope += (scope.empty() ? "" : "/") + s;
        add("scope", scope);
      }
      if (!in->metadata.source_file.empty())
        add("source", fmt::format("{}:{}", in->metadata.source_file, in->metadata.source_line));
      return t;
    }
  // Not found: suggest names that contain it.
  std::vector<std::string> near;
  for (const auto& m : modules)
    for (const auto& c : m.computations)
      for (const auto& in : c.instructions)
        if (near.size() < 8 && in.name.find(want) != std::string::npos) near.push_back(std::string(in.name));
  return NotFound(fmt::format(
      "--op {}: no such instruction in the module(s){}", want,
      near.empty() ? std::string() : " (names containing it: " + [&] {
        std::string s;
        for (const auto& n : near) s += (s.empty() ? "" : ", ") + n;
        return s;
      }() + ")"));
}

}  // namespace mlprof
