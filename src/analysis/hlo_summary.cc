#include "analysis/hlo_summary.h"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

#include "base/collective.h"
#include "hlo/attrs.h"

namespace mlprof {

int64_t ShardingDevices(std::string_view s) {
  // Each "devices=[d0,d1,...]" (tile assignment dims) tiles over their
  // product; a tuple sharding has several: the largest counts.
  int64_t best = 0;
  for (size_t at = s.find("devices=["); at != std::string_view::npos; at = s.find("devices=[", at + 1)) {
    int64_t product = 1, v = 0;
    bool digit = false;
    for (size_t i = at + 9; i < s.size() && s[i] != ']'; ++i) {
      if (s[i] >= '0' && s[i] <= '9') {
        v = v * 10 + (s[i] - '0'), digit = true;
        if (v > (int64_t{1} << 24)) return best;  // absurd: ignore the rest
      } else if (s[i] == ',') {
        product *= digit ? v : 1, v = 0, digit = false;
      } else {
        break;
      }
      if (product > (int64_t{1} << 24)) return best;
    }
    if (digit) product *= v;
    best = std::max(best, product);
  }
  return best;
}

std::vector<HloCollectiveGroup> GroupHloCollectives(const std::vector<HloCollective>& collectives) {
  std::vector<HloCollectiveGroup> out;
  std::map<std::tuple<const hlo::Module*, std::string_view, std::string_view, std::string>, size_t> index;
  for (const HloCollective& c : collectives) {
    auto key = std::make_tuple(c.module, c.instruction->opcode, c.groups.text, c.per_shard->ToString());
    auto [it, fresh] = index.try_emplace(std::move(key), out.size());
    if (fresh) out.push_back({c, 0, 0});
    HloCollectiveGroup& g = out[it->second];
    ++g.count;
    g.network_bytes += c.network_bytes;
  }
  return out;
}

std::vector<HloModuleSummary> SummarizeHloModules(const std::vector<hlo::Module>& modules) {
  std::vector<HloModuleSummary> out;
  for (const auto& m : modules) {
    HloModuleSummary s;
    s.module = &m;
    s.computations = static_cast<int64_t>(m.computations.size());
    s.instructions = static_cast<int64_t>(m.instruction_count());
    hlo::CostModel cm(m);
    for (const auto& c : m.computations)
      for (const auto& in : c.instructions) {
        s.fusions += in.opcode == "fusion";
        s.collectives += GroupFromCategory(XprofCategory(m, in), in.name) == OpCategory::kCollective;
        if (in.opcode == "custom-call" && cm.Of(c, in).unknown) ++s.unknown_custom_calls;
        if (const std::string_view* sh = in.Attr("sharding"))
          s.partitions = std::max(s.partitions, ShardingDevices(*sh));
      }
    s.partitions_from_shardings = m.num_partitions <= 1 && s.partitions > 1;
    if (m.num_partitions > 1) s.partitions = m.num_partitions;
    // Every non-fused instruction of the entry computation (what runs as a
    // kernel/op); fusion bodies, reducers and loop bodies count through
    // their callers.
    if (const hlo::Computation* e = m.entry_computation()) s.entry_cost = cm.OfComputation(*e);
    out.push_back(s);
  }
  return out;
}

std::vector<HloCategoryRow> HloOpsByCategory(const std::vector<hlo::Module>& modules) {
  // Keyed by the category's name, then the xprof category: the order rows
  // with equal FLOPs and bytes keep.
  std::map<std::pair<std::string_view, std::string>, HloCategoryRow> by;
  for (const auto& m : modules) {
    hlo::CostModel cm(m);
    const hlo::Computation* e = m.entry_computation();
    if (!e) continue;
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
        const OpCategory g = GroupFromCategory(cat, gname);
        HloCategoryRow& row = by[{OpCategoryName(g), cat}];
        row.group = g;
        row.xla_category = cat;
        hlo::Cost k = cm.Of(*c, in);
        ++row.count;
        row.flops += k.flops;
        row.bytes += k.bytes_accessed;
      }
    }
  }
  std::vector<HloCategoryRow> rows;
  for (auto& [key, row] : by) rows.push_back(std::move(row));
  std::sort(rows.begin(), rows.end(), [](const HloCategoryRow& a, const HloCategoryRow& b) {
    return a.flops != b.flops ? a.flops > b.flops : a.bytes > b.bytes;
  });
  return rows;
}

HloGroups ReadHloGroups(const hlo::Module& m, const hlo::Instruction& in) {
  HloGroups g;
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

std::vector<HloCollective> FindHloCollectives(const std::vector<hlo::Module>& modules) {
  std::vector<HloCollective> out;
  for (const auto& m : modules) {
    hlo::CostModel cm(m);
    for (const auto& c : m.computations)
      for (const auto& in : c.instructions) {
        const std::optional<HloCollectiveOpcode> coll = CollectiveFromHloOpcode(in.opcode);
        if (!coll || coll->part == AsyncPart::kDone) continue;
        const CollectiveKind kind = coll->kind;
        HloCollective k;
        k.module = &m;
        k.instruction = &in;
        k.groups = ReadHloGroups(m, in);
        const hlo::Shape* operand = !in.operands.empty() && in.operands[0] >= 0
                                        ? &c.instructions[static_cast<size_t>(in.operands[0])].shape
                                        : nullptr;
        const hlo::Shape& result = coll->part == AsyncPart::kStart && in.shape.is_tuple() && in.shape.tuple.size() >= 2
                                       ? in.shape.tuple[1]
                                       : in.shape;
        if (kind == CollectiveKind::kAllGather && operand) {
          k.per_shard = operand, k.global = &result;
        } else if (kind == CollectiveKind::kReduceScatter && operand) {
          k.per_shard = &result, k.global = operand;
        } else {
          k.per_shard = k.global = &result;
        }
        k.result_bytes = cm.ShapeBytes(result);
        k.network_bytes = cm.Of(c, in).network_bytes;
        k.kind = kind;
        out.push_back(std::move(k));
      }
  }
  return out;
}

namespace {
// "%name", "name", "computation/name" or "%computation/%name" -> (computation
// or "", name).
std::pair<std::string, std::string> SplitOpName(std::string_view name) {
  auto strip = [](std::string_view s) { return std::string(s.substr(0, 1) == "%" ? s.substr(1) : s); };
  const size_t slash = name.rfind('/');
  if (slash == std::string_view::npos) return {"", strip(name)};
  return {strip(name.substr(0, slash)), strip(name.substr(slash + 1))};
}
}  // namespace

std::vector<std::string> HloComputationsWith(const std::vector<hlo::Module>& modules, std::string_view name) {
  const auto [comp, want] = SplitOpName(name);
  std::vector<std::string> out;
  for (const auto& m : modules)
    for (const auto& c : m.computations)
      if ((comp.empty() || c.name == comp) && c.Find(want)) out.push_back(std::string(c.name));
  return out;
}

std::optional<HloInstructionFacts> FindHloInstruction(const std::vector<hlo::Module>& modules, std::string_view name) {
  const auto [comp, want] = SplitOpName(name);
  for (const auto& m : modules)
    for (const auto& c : m.computations) {
      if (!comp.empty() && c.name != comp) continue;
      const hlo::Instruction* in = c.Find(want);
      if (!in) continue;
      HloInstructionFacts f;
      f.module = &m;
      f.computation = &c;
      f.instruction = in;
      hlo::CostModel cm(m);
      f.cost = cm.Of(c, *in);
      f.xla_category = XprofCategory(m, *in);
      std::string_view gname = in->name;
      if (const std::string_view* tgt = in->Attr("custom_call_target")) gname = *tgt;
      f.group = GroupFromCategory(f.xla_category, gname);
      std::function<void(const hlo::Shape&)> collect = [&](const hlo::Shape& s) {
        if (s.is_tuple())
          for (const auto& e : s.tuple) collect(e);
        else if (f.outputs.size() < 8)
          f.outputs.push_back({&s, hlo::Physical(s)});
      };
      collect(in->shape);
      for (size_t i = 0; i < in->operand_names.size(); ++i)
        f.operand_shapes.push_back(in->operands.size() > i && in->operands[i] >= 0
                                       ? &c.instructions[static_cast<size_t>(in->operands[i])].shape
                                       : nullptr);
      f.groups = ReadHloGroups(m, *in);
      if (!in->metadata.op_name.empty()) {
        f.pass = PassFromName(in->metadata.op_name);
        f.scope = ScopeFromName(in->metadata.op_name);
      }
      return f;
    }
  return std::nullopt;
}

std::vector<std::string> HloNamesContaining(const std::vector<hlo::Module>& modules, std::string_view part,
                                            size_t max) {
  std::vector<std::string> near;
  for (const auto& m : modules)
    for (const auto& c : m.computations)
      for (const auto& in : c.instructions)
        if (near.size() < max && in.name.find(part) != std::string::npos) near.push_back(std::string(in.name));
  return near;
}

namespace {
void AddElements(const hlo::Shape& s, const std::string& index, std::vector<ShapeElement>& out) {
  if (s.is_tuple()) {
    for (size_t i = 0; i < s.tuple.size(); ++i)
      AddElements(s.tuple[i], index.empty() ? std::to_string(i) : index + "." + std::to_string(i), out);
    return;
  }
  out.push_back({index, &s, hlo::Physical(s)});
}
}  // namespace

std::vector<ShapeElement> ShapeElements(const std::vector<hlo::Shape>& shapes) {
  std::vector<ShapeElement> out;
  for (const auto& s : shapes) AddElements(s, "", out);
  return out;
}

}  // namespace mlprof
