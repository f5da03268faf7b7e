// The HLO cost model against what xprof recorded for a real TPU v5 training
// profile (corpus/xla/xprof_golden_tpu_v5_training.op_profile.json.gz).
//
// xprof's op_profile holds, for every HLO instruction the TPU ran, its full
// after-optimisation text (`xla.expression`), how often it ran
// (`occurrences`) and the totals of flops (`rawFlops`) and bytes accessed
// (`rawBytesAccessedArray`, one entry per memory kind) the TPU compiler
// attached to it. A fusion node's children are the instructions of its fused
// computation (nested fusions have their own children); a node named
// "X and its duplicate(s)" groups identical instructions, each a child with
// its own numbers. The input xplane is not public, so there is no module to
// read: each instruction is rebuilt into a small module here (its operands
// become parameters with the shapes written inline, its fusion body comes
// from its children, reducers and comparators are one-flop stand-ins) and
// costed by hlo::CostModel.
//
// "TPU v5" here is a megacore chip (v5p: two TensorCores run one program);
// the profile's numbers are per TensorCore, half of the per-program cost
// (docs/ANALYSES.md, "XLA cost model"). The comparison divides by two.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/file_loader.h"
#include "hlo/cost.h"
#include "hlo/text_parser.h"
#include "test_util.h"

namespace mlprof {
namespace {

struct GoldenNode {
  std::string name;
  std::string category;
  std::string expression;
  double flops = 0;  // total over occurrences
  double bytes = 0;  // total over occurrences, all memory kinds
  double occurrences = 0;
  std::vector<GoldenNode> children;
};

GoldenNode ReadNode(simdjson::dom::element e) {
  GoldenNode n;
  std::string_view s;
  if (!e["name"].get_string().get(s)) n.name = s;
  simdjson::dom::element xla;
  if (!e["xla"].get(xla)) {
    if (!xla["expression"].get_string().get(s)) n.expression = s;
    if (!xla["category"].get_string().get(s)) n.category = s;
  }
  simdjson::dom::element m;
  if (!e["metrics"].get(m)) {
    double d;
    if (!m["rawFlops"].get_double().get(d)) n.flops = d;
    if (!m["occurrences"].get_double().get(d)) n.occurrences = d;
    simdjson::dom::array arr;
    if (!m["rawBytesAccessedArray"].get_array().get(arr))
      for (auto v : arr)
        if (!v.get_double().get(d)) n.bytes += d;
  }
  simdjson::dom::array kids;
  if (!e["children"].get_array().get(kids))
    for (auto k : kids) n.children.push_back(ReadNode(k));
  return n;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

// The operand list of an after-optimisation instruction is
// "opcode(SHAPE %name, SHAPE %name, ...)": name -> shape.
std::vector<std::pair<std::string, hlo::Shape>> InlineOperands(std::string_view expr, std::string_view opcode) {
  std::vector<std::pair<std::string, hlo::Shape>> out;
  size_t eq = expr.find(" = ");
  size_t at = expr.find(std::string(opcode) + "(", eq == std::string_view::npos ? 0 : eq);
  // The shape before the opcode may itself contain "opcode(" only in
  // pathological names; the first hit after " = " past the shape is it.
  if (at == std::string_view::npos) return out;
  size_t i = at + opcode.size() + 1;
  int depth = 0;
  size_t piece = i;
  for (; i < expr.size(); ++i) {
    char c = expr[i];
    if (c == '(' || c == '{' || c == '[') ++depth;
    if ((c == ')' || c == '}' || c == ']') && depth > 0) {
      --depth;
      continue;
    }
    if ((c == ',' && depth == 0) || (c == ')' && depth == 0)) {
      std::string_view p = Trim(expr.substr(piece, i - piece));
      // Drop "/*index=5*/" comments.
      while (p.substr(0, 2) == "/*") {
        size_t end = p.find("*/");
        if (end == std::string_view::npos) break;
        p = Trim(p.substr(end + 2));
      }
      size_t pct = p.rfind('%');
      if (pct != std::string_view::npos) {
        auto shape = hlo::ParseShape(Trim(p.substr(0, pct)));
        if (shape.ok()) out.emplace_back(std::string(p.substr(pct + 1)), std::move(shape).value());
      }
      piece = i + 1;
      if (c == ')') break;
    }
  }
  return out;
}

// Builds a module around one golden instruction.
class ModuleBuilder {
 public:
  // Returns false (with a reason) if an expression does not parse.
  bool Build(const GoldenNode& node, hlo::Module* out, std::string* why) {
    m_ = hlo::Module{};
    m_.name = "golden";
    auto top = hlo::ParseHloInstruction(Keep(node.expression), m_.strings.get());
    if (!top.ok()) {
      *why = top.status().message();
      return false;
    }
    hlo::Computation entry;
    entry.name = "entry";
    entry.is_entry = true;
    auto ops = InlineOperands(node.expression, top->opcode);
    for (size_t i = 0; i < top->operand_names.size(); ++i) {
      const std::string_view name = top->operand_names[i];
      bool dup = false;
      for (const auto& in : entry.instructions) dup = dup || in.name == name;
      if (dup) continue;
      hlo::Instruction p;
      p.name = name;
      p.opcode = "parameter";
      p.parameter_number = static_cast<int64_t>(i);
      for (const auto& [n, s] : ops)
        if (n == name) p.shape = s;
      entry.instructions.push_back(std::move(p));
    }
    if (!AddCallees(*top, node, ops, why)) return false;
    top->is_root = true;
    entry.instructions.push_back(std::move(top).value());
    m_.computations.push_back(std::move(entry));
    Status st = m_.Link();
    if (!st.ok()) {
      *why = st.message();
      return false;
    }
    *out = std::move(m_);
    return true;
  }

 private:
  // Adds the computations `in` calls: a fusion body from the node's
  // children, a one-flop stand-in for reducers and comparators.
  bool AddCallees(const hlo::Instruction& in, const GoldenNode& node,
                  const std::vector<std::pair<std::string, hlo::Shape>>& operand_shapes, std::string* why) {
    for (size_t k = 0; k < in.called.size(); ++k) {
      const std::string_view callee = in.called[k];
      if (done_.count(callee)) continue;
      done_.insert(std::string(callee));
      if (in.opcode == "fusion" && k == 0) {
        if (!AddFusionBody(callee, in, node, operand_shapes, why)) return false;
      } else {
        AddStandIn(callee);
      }
    }
    return true;
  }

  void AddStandIn(std::string_view name) {
    hlo::Computation c;
    c.name = name;
    for (int i = 0; i < 2; ++i) {
      hlo::Instruction p;
      p.name = Keep(fmt::format("p{}", i));
      p.opcode = "parameter";
      p.parameter_number = i;
      p.shape.type = hlo::ElementType::kF32;
      c.instructions.push_back(std::move(p));
    }
    hlo::Instruction r;
    r.name = "r";
    r.opcode = "add";
    r.shape.type = hlo::ElementType::kF32;
    r.operand_names = {"p0", "p1"};
    r.is_root = true;
    c.instructions.push_back(std::move(r));
    m_.computations.push_back(std::move(c));
  }

  bool AddFusionBody(std::string_view name, const hlo::Instruction& fusion, const GoldenNode& node,
                     const std::vector<std::pair<std::string, hlo::Shape>>& fusion_operands, std::string* why) {
    hlo::Computation c;
    c.name = name;
    std::vector<std::pair<const GoldenNode*, hlo::Instruction>> body;
    for (const GoldenNode& k : node.children) {
      auto in = hlo::ParseHloInstruction(Keep(k.expression), m_.strings.get());
      if (!in.ok()) {
        *why = in.status().message();
        return false;
      }
      body.emplace_back(&k, std::move(in).value());
    }
    std::set<std::string, std::less<>> defined, used;
    for (const auto& [k, in] : body) defined.insert(std::string(in.name));
    // Operands defined nowhere in the body are the fusion's parameters.
    std::vector<bool> taken(fusion.operand_names.size(), false);
    std::vector<hlo::Instruction> params;
    for (const auto& [k, in] : body) {
      auto shapes = InlineOperands(k->expression, in.opcode);
      for (const std::string_view o : in.operand_names) {
        used.insert(std::string(o));
        if (defined.count(o)) continue;
        defined.insert(std::string(o));
        hlo::Instruction p;
        p.name = o;
        p.opcode = "parameter";
        for (const auto& [n, s] : shapes)
          if (n == o) p.shape = s;
        // XLA names fused parameters param_N.M after their operand number.
        int64_t number = -1;
        if (o.rfind("param_", 0) == 0) number = std::atoll(std::string(o.substr(6)).c_str());
        if (number < 0 || static_cast<size_t>(number) >= taken.size() || taken[static_cast<size_t>(number)]) {
          number = -1;
          for (size_t j = 0; j < fusion.operand_names.size() && number < 0; ++j) {
            if (taken[j]) continue;
            for (const auto& [n, s] : fusion_operands)
              if (n == fusion.operand_names[j] && s.dims == p.shape.dims && s.type == p.shape.type)
                number = static_cast<int64_t>(j);
          }
        }
        if (number >= 0) taken[static_cast<size_t>(number)] = true;
        p.parameter_number = number;
        params.push_back(std::move(p));
      }
    }
    // The root: the one instruction no other uses (a tuple if several).
    int root = -1;
    for (size_t i = 0; i < body.size(); ++i) {
      if (used.count(body[i].second.name)) continue;
      if (root < 0 || body[i].second.opcode == "tuple") root = static_cast<int>(i);
    }
    if (root < 0) {
      *why = "no root in the fusion body of " + std::string(fusion.name);
      return false;
    }
    // xprof leaves the root tuple of a multi-output fusion out of the
    // children: rebuild it from the unused instructions, then from any with
    // the element's shape.
    std::optional<hlo::Instruction> tuple;
    std::vector<hlo::Instruction> extra;
    if (fusion.shape.is_tuple() && body[static_cast<size_t>(root)].second.opcode != "tuple") {
      tuple.emplace();
      tuple->name = "rebuilt_root_tuple";
      tuple->opcode = "tuple";
      tuple->shape = fusion.shape;
      tuple->is_root = true;
      std::set<size_t> picked;
      for (const hlo::Shape& e : fusion.shape.tuple) {
        size_t best = body.size();
        for (size_t i = 0; i < body.size(); ++i) {
          const hlo::Shape& s = body[i].second.shape;
          if (picked.count(i) || s.type != e.type || s.dims != e.dims) continue;
          if (best == body.size() || (!used.count(body[i].second.name) && used.count(body[best].second.name))) best = i;
        }
        if (best == body.size()) {
          // Not among the children (TPU sync flags, pass-through values):
          // a stand-in of the element's shape, so the bytes written count it.
          hlo::Instruction out;
          out.name = Keep(fmt::format("rebuilt_output_{}", tuple->operand_names.size()));
          out.opcode = "constant";
          out.shape = e;
          tuple->operand_names.push_back(out.name);
          extra.push_back(std::move(out));
          continue;
        }
        picked.insert(best);
        tuple->operand_names.push_back(body[best].second.name);
      }
    } else {
      body[static_cast<size_t>(root)].second.is_root = true;
    }
    for (auto& p : params) c.instructions.push_back(std::move(p));
    for (auto& [k, in] : body) {
      if (!AddCallees(in, *k, InlineOperands(k->expression, in.opcode), why)) return false;
      c.instructions.push_back(std::move(in));
    }
    for (auto& e : extra) c.instructions.push_back(std::move(e));
    if (tuple) c.instructions.push_back(std::move(*tuple));
    m_.computations.push_back(std::move(c));
    return true;
  }

  hlo::Module m_;
  std::set<std::string, std::less<>> done_;
  // A copy of `s` in the module's arena: instruction strings are views.
  std::string_view Keep(std::string_view s) { return m_.strings->Copy(s); }
};

// Every instruction node with its own numbers: top-level ops and the members
// of "X and its duplicate(s)" groups (the group's totals are their sums).
void Collect(const GoldenNode& n, int depth, std::vector<const GoldenNode*>* out) {
  if (depth == 3 && n.occurrences > 0 && !n.expression.empty()) {
    if (n.name.find(" and its duplicate(s)") != std::string::npos) {
      for (const auto& k : n.children)
        if (k.occurrences > 0) out->push_back(&k);
    } else {
      out->push_back(&n);
    }
    return;
  }
  for (const auto& k : n.children) Collect(k, depth + 1, out);
}

// Within 0.1 %, or one unit (the TPU halves per-program integers with a
// floor: 19 flops on two cores are recorded as 9).
bool Near(double got, double want) { return std::abs(got - want) <= std::max(1.0, 0.001 * std::abs(want)); }

TEST(XprofGolden, TpuV5CostModelAgreesWithRecordedFlopsAndBytes) {
  MLPROF_CORPUS_FILE(path, "xla/xprof_golden_tpu_v5_training.op_profile.json.gz");
  auto file = LoadFile(path);
  ASSERT_TRUE(file.ok()) << file.status().message();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_FALSE(parser.parse(file->bytes.data(), file->bytes.size(), false).get(doc));
  simdjson::dom::element by_program;
  ASSERT_FALSE(doc["byProgram"].get(by_program));
  GoldenNode root = ReadNode(by_program);
  std::vector<const GoldenNode*> ops;
  Collect(root, 0, &ops);
  ASSERT_GT(ops.size(), 250u);

  const bool verbose = std::getenv("MLPROF_GOLDEN_VERBOSE") != nullptr;
  constexpr double kCoresPerProgram = 2;  // megacore
  int flops_ok = 0, bytes_ok = 0, both_ok = 0, costable = 0, bytes_explained = 0;
  std::vector<std::string> unexplained;
  for (const GoldenNode* n : ops) {
    ModuleBuilder b;
    hlo::Module m;
    std::string why;
    ASSERT_TRUE(b.Build(*n, &m, &why)) << n->name << ": " << why;
    hlo::CostOptions o;
    o.tuple_pointer_bytes = 0;   // the TPU's convention
    o.fusion_constants = false;  // the TPU's records leave a fusion's constants out
    hlo::CostModel cm(m, o);
    const hlo::Computation& e = *m.entry_computation();
    const hlo::Instruction& op = e.root_instruction();
    hlo::Cost c = cm.Of(e, op);
    // An op XLA placed "in_megacore_fusion" runs whole on one core.
    const double cores = n->name.find("in_megacore_fusion") != std::string::npos ? 1 : kCoresPerProgram;
    const double want_flops = n->flops / n->occurrences;
    const double want_bytes = n->bytes / n->occurrences;
    const bool f = Near(c.flops / cores, want_flops);
    const bool by = Near(c.bytes_accessed / cores, want_bytes);
    flops_ok += f;
    bytes_ok += by;
    both_ok += f && by;
    costable += !c.unknown;
    // The documented exceptions (docs/ANALYSES.md):
    //  - Pallas/Mosaic kernels (tpu_custom_call): the compiler takes their
    //    cost from the kernel's own estimate, which the expression does not
    //    carry; the model marks them uncostable.
    //  - TPU collective matmuls (a kOutput fusion of an all-gather and a
    //    convolution): the compiler leaves out the HBM operands of the
    //    convolution's streamed side; flops agree.
    //  - A scatter fusion (kCustom, scatter inside): recorded as its output
    //    and the scalar only.
    bool has_all_gather = false, has_conv = false, has_scatter = false;
    for (const auto& comp : m.computations)
      for (const auto& in : comp.instructions) {
        has_all_gather = has_all_gather || in.opcode == "all-gather";
        has_conv = has_conv || in.opcode == "convolution";
        has_scatter = has_scatter || in.opcode == "scatter";
      }
    const bool collective_matmul = op.opcode == "fusion" && has_all_gather && has_conv;
    if (!c.unknown && !f) unexplained.push_back(n->name + " (flops)");
    if (!c.unknown && !by) {
      if (collective_matmul || has_scatter)
        ++bytes_explained;
      else
        unexplained.push_back(n->name + " (bytes)");
    }
    if (verbose && (!(f && by) || c.unknown))
      fmt::print("{:<28} {:<40} flops {:>16.0f} want {:>16.0f}  bytes {:>14.0f} want {:>14.0f}{}\n", n->category,
                 n->name.substr(0, 40), c.flops / cores, want_flops, c.bytes_accessed / cores, want_bytes,
                 c.unknown ? "  (uncostable)" : "");
  }
  if (verbose)
    fmt::print("ops {}  costable {}  flops agree {}  bytes agree {}  both {}  bytes exceptions {}\n", ops.size(),
               costable, flops_ok, bytes_ok, both_ok, bytes_explained);
  // 352 instructions with their own numbers in this profile.
  EXPECT_EQ(ops.size(), 352u);
  // Every op the model can cost has the recorded flops (4 Pallas kernels
  // cannot be costed from HLO); bytes agree for all but the exceptions.
  EXPECT_EQ(costable, 348);
  EXPECT_EQ(flops_ok, 348);
  EXPECT_EQ(bytes_ok, 339);
  EXPECT_LE(bytes_explained, 9);
  EXPECT_TRUE(unexplained.empty()) << fmt::format("{}", fmt::join(unexplained, ", "));
}

}  // namespace
}  // namespace mlprof
