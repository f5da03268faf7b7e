#include "analysis/xla.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_map>

#include "analysis/stats.h"
#include "analysis/steps.h"
#include "base/collective.h"
#include "hlo/cost.h"
#include "hlo/proto_reader.h"

namespace mlprof {

namespace {

bool Contains(std::string_view s, std::string_view sub) { return s.find(sub) != std::string_view::npos; }
bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}
std::string Lower(std::string_view s) {
  std::string l(s);
  for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return l;
}

bool LooksLikeAttention(std::string_view name) {
  std::string l = Lower(name);
  return Contains(l, "attn") || Contains(l, "attention") || Contains(l, "fmha") || Contains(l, "flash") ||
         Contains(l, "splash") || Contains(l, "_mha") || StartsWith(l, "mha");
}
// An array (not a scalar: a host-resident constant read once bounds
// nothing) in S(5) / S(6), host memory (pinned / unpinned): host offload.
bool InHostMemory(const hlo::Shape& s) {
  if (s.is_tuple()) return std::any_of(s.tuple.begin(), s.tuple.end(), InHostMemory);
  return !s.dims.empty() && (s.layout.memory_space == 5 || s.layout.memory_space == 6);
}

// An instruction whose result or operands live in host memory.
bool TouchesHostMemory(const hlo::Computation& c, const hlo::Instruction& in) {
  if (InHostMemory(in.shape)) return true;
  for (int32_t o : in.operands)
    if (o >= 0 && static_cast<size_t>(o) < c.instructions.size() &&
        InHostMemory(c.instructions[static_cast<size_t>(o)].shape))
      return true;
  return false;
}

bool LooksLikeGemm(std::string_view name) {
  std::string l = Lower(name);
  return Contains(l, "gemm") || Contains(l, "cublas") || Contains(l, "matmul") || StartsWith(l, "cijk_") ||
         Contains(l, "dot_general") || Contains(l, "cudnn-conv") || Contains(l, "cudnn$conv") ||
         Contains(l, "conv_general");
}

// Does a computation (or what it calls) contain a dot or convolution?
bool ContainsDot(const hlo::Module& m, const hlo::Computation& c, int depth = 0) {
  if (depth > 8) return false;
  for (const auto& in : c.instructions) {
    if (in.opcode == "dot" || in.opcode == "convolution" || in.opcode == "ragged-dot" || in.opcode == "scaled-dot")
      return true;
    if (in.opcode == "custom-call" && in.Attr("custom_call_target") && LooksLikeGemm(*in.Attr("custom_call_target")))
      return true;
    if (in.opcode == "fusion")
      for (int32_t id : in.called_ids)
        if (id >= 0 && ContainsDot(m, m.computations[static_cast<size_t>(id)], depth + 1)) return true;
  }
  return false;
}

}  // namespace

const char* XlaPassName(XlaPass p) {
  switch (p) {
    case XlaPass::kForward:
      return "forward";
    case XlaPass::kBackward:
      return "backward";
    case XlaPass::kRemat:
      return "remat";
    case XlaPass::kOptimizer:
      return "optimizer";
    case XlaPass::kUnknown:
      return "unknown";
    case XlaPass::kCount:
      break;
  }
  return "?";
}

XlaPass PassFromName(std::string_view op_name) {
  if (op_name.empty() || op_name == "XlaModule:" || op_name == ":") return XlaPass::kUnknown;
  std::string l = Lower(op_name);
  if (Contains(l, "remat") || Contains(l, "checkpoint")) return XlaPass::kRemat;
  if (Contains(l, "transpose(")) return XlaPass::kBackward;
  if (Contains(l, "optax") || Contains(l, "optimizer") || Contains(l, "opt_state") || Contains(l, "adam") ||
      Contains(l, "apply_updates"))
    return XlaPass::kOptimizer;
  return XlaPass::kForward;
}

std::vector<std::string> ScopeFromName(std::string_view op_name) {
  // Split at '/' outside brackets (primitive params contain parentheses).
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= op_name.size(); ++i) {
    char c = i < op_name.size() ? op_name[i] : '/';
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == '/' && depth <= 0) {
      parts.push_back(op_name.substr(start, i - start));
      start = i + 1;
    }
  }
  if (!parts.empty()) parts.pop_back();  // the primitive ("dot_general[...]:", "add")
  static const char* kTransforms[] = {"jvp",
                                      "transpose",
                                      "vmap",
                                      "pmap",
                                      "remat",
                                      "checkpoint",
                                      "shard_map",
                                      "xmap",
                                      "custom_jvp_call",
                                      "custom_vjp_call",
                                      "pjit",
                                      "jit",
                                      "named_call"};
  std::vector<std::string> scope;
  for (size_t k = 0; k < parts.size(); ++k) {
    std::string_view p = parts[k];
    // Unwrap transform(inner) repeatedly.
    for (bool changed = true; changed;) {
      changed = false;
      for (const char* t : kTransforms) {
        std::string_view tv(t);
        if (p.size() > tv.size() + 2 && StartsWith(p, tv) && p[tv.size()] == '(' && p.back() == ')') {
          p = p.substr(tv.size() + 1, p.size() - tv.size() - 2);
          changed = true;
        }
      }
    }
    if (k < 2 && (p == "main" || StartsWith(parts[k], "jit(") || StartsWith(parts[k], "pjit("))) continue;
    if (p.empty() || p == "while" || p == "body" || p == "cond" || p == "remat" || p == "checkpoint" ||
        p == "rematted_computation")
      continue;
    scope.emplace_back(p);
  }
  return scope;
}

OpCategory GroupFromCategory(std::string_view cat, std::string_view name) {
  if (LooksLikeAttention(name)) return OpCategory::kAttention;
  const bool done = EndsWith(name, "-done") || Contains(name, "-done.") || EndsWith(cat, "-done");
  if (Contains(cat, "copy-start") || Contains(cat, "copy-done") || Contains(cat, "infeed") ||
      Contains(cat, "outfeed") || Contains(cat, "host") || cat == "send" || cat == "recv" || cat == "send-done" ||
      cat == "recv-done")
    return OpCategory::kMemoryTransfer;
  if (Contains(cat, "all-gather") || Contains(cat, "all-reduce") || Contains(cat, "reduce-scatter") ||
      Contains(cat, "all-to-all") || Contains(cat, "collective") || StartsWith(name, "async-collective") ||
      StartsWith(name, "all-reduce") || StartsWith(name, "all-gather") || StartsWith(name, "reduce-scatter") ||
      StartsWith(name, "all-to-all") || StartsWith(name, "collective-permute") || Contains(Lower(name), "nccl") ||
      Contains(Lower(name), "rccl"))
    return done ? OpCategory::kAsyncWait : OpCategory::kCollective;
  if (cat == "async-done" || (done && cat.empty())) return OpCategory::kAsyncWait;
  if (Contains(cat, "convolution") || cat == "dot" || cat == "output fusion") return OpCategory::kMatmul;
  if (cat == "custom-call" || cat == "custom fusion" || cat.empty()) {
    if (LooksLikeGemm(name)) return OpCategory::kMatmul;
    if (!cat.empty()) return OpCategory::kCustomCall;
  }
  // XLA GPU names a fusion after its hero: a transpose or copy emitter is
  // data formatting whatever its fusion kind (input_transpose_fusion is an
  // input fusion that reduces nothing).
  if (cat == "loop fusion" || cat == "input fusion") {
    const std::string l = Lower(name);
    if (Contains(l, "transpose") || StartsWith(l, "copy") || Contains(l, "_copy") || Contains(l, "concatenate"))
      return OpCategory::kDataFormatting;
  }
  if (cat == "loop fusion" || cat == "non-fusion elementwise" || cat == "broadcast" || cat == "iota" ||
      StartsWith(cat, "rng") || cat == "select")
    return OpCategory::kElementwise;
  if (cat == "input fusion" || cat == "reduce" || cat == "reduce-window" || cat == "sort" ||
      cat == "select-and-scatter")
    return OpCategory::kReduction;
  if (cat == "data formatting" || cat == "copy" || cat == "transpose" || cat == "bitcast" || cat == "reshape" ||
      Contains(cat, "slice") || cat == "concatenate" || cat == "pad" || cat == "gather" || cat == "scatter" ||
      Contains(cat, "gather fusion") || Contains(cat, "scatter fusion"))
    return OpCategory::kDataFormatting;
  if (cat == "while" || cat == "conditional" || cat == "call") return OpCategory::kControlFlow;
  if (cat.empty()) {  // name only (GPU kernels without an HloProto)
    std::string l = Lower(name);
    if (StartsWith(l, "loop_") || Contains(l, "elementwise") || Contains(l, "broadcast"))
      return OpCategory::kElementwise;
    if (StartsWith(l, "input_") || Contains(l, "reduce")) return OpCategory::kReduction;
    if (Contains(l, "transpose") || Contains(l, "copy") || Contains(l, "slice") || Contains(l, "concatenate"))
      return OpCategory::kDataFormatting;
    if (Contains(l, "memcpy") || Contains(l, "memset")) return OpCategory::kMemoryTransfer;
  }
  return OpCategory::kOther;
}

std::string XprofCategory(const hlo::Module& m, const hlo::Instruction& in) {
  const std::string_view op = in.opcode;
  if (op == "fusion") {
    for (int32_t id : in.called_ids)
      if (id >= 0 && ContainsDot(m, m.computations[static_cast<size_t>(id)])) return "convolution fusion";
    const std::string_view* kind = in.Attr("kind");
    if (kind && *kind == "kLoop") return "loop fusion";
    if (kind && *kind == "kInput") return "input fusion";
    if (kind && *kind == "kOutput") return "output fusion";
    return "custom fusion";
  }
  if (op == "convolution") return "convolution";
  if (op == "transpose" || op == "copy" || op == "reshape" || op == "dynamic-reshape") return "data formatting";
  if (hlo::IsElementwise(op)) return "non-fusion elementwise";
  return std::string(op);
}

XlaOps ResolveXlaOps(const RankProfile& r) {
  XlaOps x;
  // Modules by "(program_id)" and by name.
  std::unordered_map<std::string, size_t> by_id, by_name;
  for (const auto& blob : r.hlo_protos) {
    auto m = hlo::ReadHloProto(blob.bytes, blob.key);
    if (!m.ok()) {
      x.problems.push_back(m.status().message());
      continue;
    }
    size_t i = x.modules.size();
    x.modules.push_back(std::move(m).value());
    size_t open = blob.key.rfind('(');
    if (open != std::string::npos && blob.key.back() == ')')
      by_id[blob.key.substr(open + 1, blob.key.size() - open - 2)] = i;
    by_name[open != std::string::npos ? blob.key.substr(0, open) : blob.key] = i;
  }
  std::vector<hlo::CostModel> cost;
  cost.reserve(x.modules.size());
  for (const auto& m : x.modules) cost.emplace_back(m);

  x.ops.reserve(r.xla_ops.size());
  for (const XlaOp& op : r.xla_ops) {
    XlaOpInfo info;
    info.hlo_op = std::string(r.str(op.hlo_op));
    info.module = std::string(r.str(op.module));
    info.category = std::string(r.str(op.category));
    info.flops = op.flops;
    info.bytes = op.bytes_accessed;
    std::string_view tf_op = r.str(op.tf_op);
    if (tf_op != "XlaModule:" && tf_op != ":") info.op_name = std::string(tf_op);
    // The instruction, when the module is in the profile.
    const hlo::Module* mod = nullptr;
    size_t mod_index = 0;
    if (op.program_id != -1) {
      auto it = by_id.find(std::to_string(static_cast<uint64_t>(op.program_id)));
      if (it != by_id.end()) mod = &x.modules[mod_index = it->second];
    }
    if (!mod && !info.module.empty()) {
      auto it = by_name.find(info.module);
      if (it != by_name.end()) mod = &x.modules[mod_index = it->second];
    }
    if (mod && info.module.empty()) info.module = mod->name;
    const hlo::Instruction* in = nullptr;
    const hlo::Computation* comp = nullptr;
    if (mod) {
      if (const auto* e = mod->entry_computation(); e && (in = e->Find(info.hlo_op))) comp = e;
      for (size_t k = 0; !in && k < mod->computations.size(); ++k)
        if ((in = mod->computations[k].Find(info.hlo_op))) comp = &mod->computations[k];
    }
    if (in) {
      info.host_memory = TouchesHostMemory(*comp, *in);
      if (info.category.empty()) info.category = XprofCategory(*mod, *in);
      if (info.op_name.empty()) info.op_name = in->metadata.op_name;
      const std::optional<HloCollectiveOpcode> coll = CollectiveFromHloOpcode(in->opcode);
      const bool collective = coll.has_value();
      if (collective) info.collective = std::string(CollectiveKindName(coll->kind));
      if (info.flops < 0 || info.bytes < 0 || collective) {
        hlo::Cost c = cost[mod_index].Of(*comp, *in);
        if (!c.unknown) {
          if (info.flops < 0 || info.bytes < 0) {
            if (info.flops < 0) info.flops = c.flops;  // flops only; XLA counts transcendentals apart
            if (info.bytes < 0) info.bytes = c.bytes_accessed;
            info.cost_from_model = true;
            ++x.costed_from_model;
          }
          // -done moves nothing of its own: the -start carries the transfer.
          const bool done = in->opcode.size() > 5 && in->opcode.compare(in->opcode.size() - 5, 5, "-done") == 0;
          if (collective && !done) {
            info.network_bytes = c.network_bytes;
            info.group_size = cost[mod_index].GroupSize(*in);
          }
        }
      }
    }
    if (in && !info.collective.empty()) {
      // The groups: on the op, or for a -done on the -start it waits on.
      const hlo::Instruction* src = in;
      const bool done = in->opcode.size() > 5 && in->opcode.compare(in->opcode.size() - 5, 5, "-done") == 0;
      if (done && !in->operands.empty() && in->operands[0] >= 0 &&
          static_cast<size_t>(in->operands[0]) < comp->instructions.size())
        src = &comp->instructions[static_cast<size_t>(in->operands[0])];
      info.participants = cost[mod_index].GroupSize(*src);
      const std::string_view* g = src->Attr("replica_groups");
      if (!g) g = src->Attr("source_target_pairs");
      if (g) info.replica_groups = g->size() > 64 ? std::string(g->substr(0, 61)) + "..." : std::string(*g);
    }
    std::string_view name_for_group = info.hlo_op;
    if (in && in->opcode == "custom-call" && in->Attr("custom_call_target"))
      name_for_group = *in->Attr("custom_call_target");
    info.group = GroupFromCategory(info.category, name_for_group);
    if (info.group != OpCategory::kAttention && LooksLikeAttention(info.op_name) && info.category == "custom-call")
      info.group = OpCategory::kAttention;
    info.pass = PassFromName(info.op_name);
    x.ops.push_back(std::move(info));
  }
  if (r.format == TraceFormat::kXprofTraceJson &&
      std::none_of(x.ops.begin(), x.ops.end(), [](const XlaOpInfo& i) { return i.flops >= 0; }))
    x.problems.push_back(
        "no FLOP counts: the trace viewer's JSON leaves out the runtime's flops (an internal stat), and the "
        "HLO modules are not in it; read the .xplane.pb next to it for FLOP rates");
  return x;
}

XlaSteps ComputeXlaSteps(const RankProfile& r, const XlaBreakdown& b, int warmup) {
  XlaSteps out;
  // Per device plane (process), in time order: a Steps line's events, else
  // the main module's executions.
  std::map<std::string, std::vector<XlaStep>> by_device;
  auto collect = [&](bool steps_line) {
    for (size_t i = 0; i < r.ops.size(); ++i) {
      const Track& t = r.track_of(i);
      const std::string_view line = r.str(t.name);
      if (steps_line ? line != "Steps" : line != "XLA Modules") continue;
      if (!steps_line) {
        std::string_view n = r.str(r.ops.name[i]);
        const size_t open = n.rfind('(');
        if ((open == std::string_view::npos ? n : n.substr(0, open)) != b.main_module) continue;
      }
      XlaStep s;
      s.device = std::string(r.str(t.process_name));
      s.ts = r.ops.ts[i], s.dur = r.ops.dur[i];
      s.number = -1;
      if (steps_line) {  // TensorFlow names a step by its number
        const std::string_view n = r.str(r.ops.name[i]);
        // At most 17 digits: a longer "number" would overflow (and is none).
        int64_t v = 0;
        bool digits = !n.empty() && n.size() < 18;
        for (size_t k = 0; digits && k < n.size(); ++k) {
          digits = n[k] >= '0' && n[k] <= '9';
          v = v * 10 + (n[k] - '0');
        }
        if (digits) s.number = v;
      }
      by_device[s.device].push_back(s);
    }
  };
  collect(true);
  out.source = XlaSteps::Source::kStepsLine;
  if (by_device.empty()) {
    if (b.main_module.empty()) return XlaSteps{};
    collect(false);
    out.source = XlaSteps::Source::kModuleExecutions;
    out.module = b.main_module;
  }
  if (by_device.empty()) return XlaSteps{};
  for (auto& [device, steps] : by_device) {
    std::stable_sort(steps.begin(), steps.end(), [](const XlaStep& a, const XlaStep& c) { return a.ts < c.ts; });
    const int w = WarmupSteps(steps.size(), {warmup});
    std::vector<double> steady;
    for (size_t k = 0; k < steps.size(); ++k) {
      if (steps[k].number < 0) steps[k].number = static_cast<int64_t>(k);
      steps[k].warmup = static_cast<int>(k) < w;
      if (!steps[k].warmup) steady.push_back(static_cast<double>(steps[k].dur));
    }
    XlaStepSummary sum;
    sum.device = device;
    sum.steps = static_cast<int64_t>(steps.size());
    sum.steady_steps = static_cast<int64_t>(steady.size());
    if (!steady.empty()) {
      double total = 0;
      for (double d : steady) total += d;
      sum.mean = total / static_cast<double>(steady.size());
      sum.median = Median(steady);
    }
    out.summary.push_back(sum);
    out.steps.insert(out.steps.end(), steps.begin(), steps.end());
  }
  return out;
}

XlaBreakdown BreakdownXla(const RankProfile& r, const XlaOps& x) {
  XlaBreakdown b;
  std::array<XlaGroupRow, static_cast<size_t>(OpCategory::kCount)> rows{};
  for (size_t g = 0; g < rows.size(); ++g) rows[g].group = static_cast<OpCategory>(g);
  std::map<int64_t, bool> device_pids;
  std::unordered_map<std::string, Ps> module_time;
  for (size_t i = 0; i < r.ops.size(); ++i) {
    int32_t xi = r.ops.xla[i];
    if (xi < 0) continue;
    const XlaOpInfo& info = x.ops[static_cast<size_t>(xi)];
    XlaGroupRow& row = rows[static_cast<size_t>(info.group)];
    Ps d = r.ops.dur[i];
    row.time += d;
    ++row.count;
    row.by_pass[static_cast<size_t>(info.pass)] += d;
    if (info.flops > 0) row.flops += info.flops;
    if (info.bytes > 0) row.bytes += info.bytes;
    b.total += d;
    device_pids[r.track_of(i).pid] = true;
    module_time[info.module] += d;
  }
  b.devices = static_cast<int>(device_pids.size());
  for (const auto& row : rows)
    if (row.count > 0) b.rows.push_back(row);
  std::sort(b.rows.begin(), b.rows.end(), [](const auto& a, const auto& c) { return a.time > c.time; });
  for (const auto& row : b.rows) {
    switch (row.group) {
      case OpCategory::kMatmul:
        b.efficient_compute += row.time;
        break;
      case OpCategory::kAttention:
      case OpCategory::kCustomCall:
        b.model_specific += row.time;
        break;
      case OpCategory::kElementwise:
      case OpCategory::kNormalization:
      case OpCategory::kReduction:
      case OpCategory::kEmbedding:
      case OpCategory::kDataFormatting:
        b.memory_bound += row.time;
        break;
      default:
        b.overhead += row.time;
    }
  }
  // Steps: executions of the busiest module on the XLA Modules lines (TPU);
  // else the module with the most op time, one execution.
  std::unordered_map<std::string, std::pair<Ps, int64_t>> executions;  // name -> (time, count)
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const Track& t = r.track_of(i);
    if (r.str(t.name) != "XLA Modules") continue;
    std::string_view n = r.str(r.ops.name[i]);
    size_t open = n.rfind('(');
    auto& e = executions[std::string(open == std::string_view::npos ? n : n.substr(0, open))];
    e.first += r.ops.dur[i];
    ++e.second;
  }
  if (!executions.empty()) {
    auto best = std::max_element(executions.begin(), executions.end(),
                                 [](const auto& a, const auto& c) { return a.second.first < c.second.first; });
    b.main_module = best->first;
    int modules_devices = std::max(1, b.devices);
    b.steps = std::max<int64_t>(1, best->second.second / modules_devices);
    b.step_time = best->second.first / std::max<int64_t>(1, best->second.second);
  } else if (!module_time.empty()) {
    auto best = std::max_element(module_time.begin(), module_time.end(),
                                 [](const auto& a, const auto& c) { return a.second < c.second; });
    b.main_module = best->first;
    b.steps = 1;
  }
  return b;
}

namespace {
struct ScopeNode {
  Ps time = 0;
  int64_t count = 0;
  double flops = 0;
  std::map<std::string, ScopeNode> children;
};
void Emit(const ScopeNode& n, const std::string& prefix, int depth, std::vector<ScopeRow>* out) {
  std::vector<const std::pair<const std::string, ScopeNode>*> kids;
  for (const auto& kv : n.children) kids.push_back(&kv);
  std::sort(kids.begin(), kids.end(), [](const auto* a, const auto* b) {
    return a->second.time != b->second.time ? a->second.time > b->second.time : a->first < b->first;
  });
  for (const auto* kv : kids) {
    std::string path = prefix.empty() ? kv->first : prefix + "/" + kv->first;
    out->push_back({path, depth, kv->second.time, kv->second.count, kv->second.flops});
    Emit(kv->second, path, depth + 1, out);
  }
}
}  // namespace

std::vector<ScopeRow> XlaScopes(const RankProfile& r, const XlaOps& x, int max_depth) {
  std::vector<std::vector<std::string>> scopes(x.ops.size());
  for (size_t k = 0; k < x.ops.size(); ++k) scopes[k] = ScopeFromName(x.ops[k].op_name);
  ScopeNode root;
  for (size_t i = 0; i < r.ops.size(); ++i) {
    int32_t xi = r.ops.xla[i];
    if (xi < 0) continue;
    const auto& sc = scopes[static_cast<size_t>(xi)];
    ScopeNode* n = &root;
    const double f = std::max(0.0, x.ops[static_cast<size_t>(xi)].flops);
    if (sc.empty()) {
      n = &root.children["(no scope)"];
      n->time += r.ops.dur[i], ++n->count, n->flops += f;
      continue;
    }
    for (size_t d = 0; d < sc.size() && static_cast<int>(d) < max_depth; ++d) {
      n = &n->children[sc[d]];
      n->time += r.ops.dur[i];
      ++n->count;
      n->flops += f;
    }
  }
  std::vector<ScopeRow> out;
  Emit(root, "", 0, &out);
  return out;
}

XlaOpTimes XlaOpsByTime(const RankProfile& r, const XlaOps& x) {
  XlaOpTimes out;
  std::vector<XlaOpTime> agg(x.ops.size());
  for (size_t i = 0; i < r.ops.size(); ++i) {
    int32_t xi = r.ops.xla[i];
    if (xi < 0) continue;
    agg[static_cast<size_t>(xi)].time += r.ops.dur[i];
    ++agg[static_cast<size_t>(xi)].count;
    out.total += r.ops.dur[i];
  }
  // Merge identical (module, op) across devices.
  std::map<std::pair<std::string, std::string>, XlaOpTime> by;
  for (size_t k = 0; k < x.ops.size(); ++k) {
    if (agg[k].count == 0) continue;
    XlaOpTime& e = by[{x.ops[k].module, x.ops[k].hlo_op}];
    e.time += agg[k].time;
    e.count += agg[k].count;
    e.op = k;
  }
  for (auto& [key, e] : by) out.rows.push_back(e);
  std::sort(out.rows.begin(), out.rows.end(), [](const XlaOpTime& a, const XlaOpTime& b) { return a.time > b.time; });
  return out;
}

}  // namespace mlprof
