#include "hlo/cost.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include "base/collective.h"
#include "hlo/attrs.h"

namespace mlprof::hlo {

namespace {

constexpr std::array<std::string_view, 52> kElementwise = {"abs",
                                                           "add",
                                                           "and",
                                                           "atan2",
                                                           "cbrt",
                                                           "ceil",
                                                           "clamp",
                                                           "clz",
                                                           "compare",
                                                           "complex",
                                                           "convert",
                                                           "cosine",
                                                           "divide",
                                                           "erf",
                                                           "exponential",
                                                           "exponential-minus-one",
                                                           "floor",
                                                           "imag",
                                                           "is-finite",
                                                           "log",
                                                           "log-plus-one",
                                                           "logistic",
                                                           "maximum",
                                                           "minimum",
                                                           "multiply",
                                                           "negate",
                                                           "not",
                                                           "or",
                                                           "popcnt",
                                                           "power",
                                                           "real",
                                                           "reduce-precision",
                                                           "remainder",
                                                           "round-nearest-afz",
                                                           "round-nearest-even",
                                                           "rsqrt",
                                                           "select",
                                                           "shift-left",
                                                           "shift-right-arithmetic",
                                                           "shift-right-logical",
                                                           "sign",
                                                           "sine",
                                                           "sqrt",
                                                           "stochastic-convert",
                                                           "subtract",
                                                           "tan",
                                                           "tanh",
                                                           "xor",
                                                           "bitcast-convert",
                                                           "atan",
                                                           "acos",
                                                           "asin"};

// HloCostAnalysis::HandleElementwiseOp counts these as transcendentals.
constexpr std::array<std::string_view, 16> kTranscendental = {"exponential", "exponential-minus-one",
                                                              "log",         "log-plus-one",
                                                              "logistic",    "power",
                                                              "sqrt",        "cbrt",
                                                              "rsqrt",       "tanh",
                                                              "sine",        "cosine",
                                                              "tan",         "atan2",
                                                              "erf",         "atan"};

constexpr std::array<std::string_view, 10> kFreeCustomCalls = {
    "AllocateBuffer", "X64Combine", "X64SplitLow", "X64SplitHigh", "Sharding", "SPMDFullToShardShape",
    "SPMDShardToFullShape", "AssumeGatherIndicesInBound",
    // TPU async collective fusions mark their ends with these; the fusion's
    // bytes are its operands and results.
    "AsyncCollectiveStart", "AsyncCollectiveDone"};

bool In(std::string_view s, const auto& list) { return std::find(list.begin(), list.end(), s) != list.end(); }

int64_t Elements(const Shape& s) {
  if (s.is_tuple()) {
    int64_t n = 0;
    for (const auto& t : s.tuple) n += Elements(t);
    return n;
  }
  return s.elements();
}

// First array leaf (element 0 of tuples, recursively).
const Shape& FirstArray(const Shape& s) {
  const Shape* p = &s;
  while (p->is_tuple() && !p->tuple.empty()) p = &p->tuple[0];
  return *p;
}

// "lhs_contracting_dimensions":["1"] inside a GPU gemm backend_config.
std::vector<int64_t> JsonIntList(std::string_view json, std::string_view key) {
  std::vector<int64_t> v;
  size_t at = json.find("\"" + std::string(key) + "\"");
  if (at == std::string_view::npos) return v;
  size_t open = json.find('[', at), close = json.find(']', at);
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return v;
  std::string_view list = json.substr(open + 1, close - open - 1);
  int64_t x = 0;
  bool in_num = false;
  for (char c : list) {
    if (c >= '0' && c <= '9') {
      x = x * 10 + (c - '0');
      in_num = true;
    } else if (in_num) {
      v.push_back(x);
      x = 0;
      in_num = false;
    }
  }
  if (in_num) v.push_back(x);
  return v;
}

// Valid (output position, kernel position) pairs along one spatial dim:
// those that read a real input element (not padding, not a dilation hole).
// For each kernel position the valid outputs form an interval, counted in
// closed form; with base (lhs) dilation only every base_dilation-th input
// position is real, counted exactly when the interval is short.
int64_t ValidPositions(int64_t in_size, int64_t out_size, const WindowDim& w) {
  if (in_size <= 0 || out_size <= 0 || w.size <= 0) return 0;
  const int64_t bd = std::max<int64_t>(1, w.base_dilation), stride = std::max<int64_t>(1, w.stride),
                wd = std::max<int64_t>(1, w.window_dilation);
  // Absurd windows (no real module has them) count every pair, saturated;
  // the bounds keep the arithmetic below inside int64.
  constexpr int64_t kBig = int64_t{1} << 30;
  int64_t dilated_in;
  if (w.size > (int64_t{1} << 20) || bd > kBig || stride > kBig || wd > kBig || w.pad_lo > kBig || w.pad_lo < -kBig ||
      __builtin_mul_overflow(in_size - 1, bd, &dilated_in) || dilated_in > Shape::kMaxElements) {
    int64_t all;
    if (__builtin_mul_overflow(out_size, std::min(w.size, kBig), &all) || all > Shape::kMaxElements)
      return Shape::kMaxElements;
    return all;
  }
  dilated_in += 1;
  auto floor_div = [](int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
  int64_t count = 0;
  for (int64_t k = 0; k < w.size; ++k) {
    const int64_t c = k * wd - w.pad_lo;  // input position of output 0
    // 0 <= o*stride + c <= dilated_in - 1, 0 <= o < out_size
    int64_t lo = std::max<int64_t>(0, floor_div(-c + stride - 1, stride));
    int64_t hi = std::min<int64_t>(out_size - 1, floor_div(dilated_in - 1 - c, stride));
    if (hi < lo) continue;
    if (count >= Shape::kMaxElements) return Shape::kMaxElements;
    if (bd == 1) {
      count += hi - lo + 1;
    } else if (hi - lo < (int64_t{1} << 16)) {
      for (int64_t o = lo; o <= hi; ++o) count += (o * stride + c) % bd == 0;
    } else {
      count += (hi - lo + 1) / bd;
    }
  }
  return count;
}

}  // namespace

bool IsElementwise(std::string_view opcode) { return In(opcode, kElementwise); }
bool IsFreeCustomCall(std::string_view target) { return In(target, kFreeCustomCalls); }
bool IsTranscendental(std::string_view opcode) { return In(opcode, kTranscendental); }

double DotFlops(const Shape& lhs, const Shape& out, const std::vector<int64_t>& lhs_contracting) {
  double k = 1;
  for (int64_t d : lhs_contracting)
    if (d >= 0 && static_cast<size_t>(d) < lhs.dims.size()) k *= static_cast<double>(lhs.dims[static_cast<size_t>(d)]);
  return 2.0 * static_cast<double>(Elements(FirstArray(out))) * k;
}

int64_t CostModel::ShapeBytes(const Shape& s) const {
  if (s.is_tuple()) {
    int64_t b = 0;
    for (const auto& t : s.tuple) b = std::min(b + ShapeBytes(t), Shape::kMaxElements * 128);  // saturating
    return b;
  }
  if (s.type == ElementType::kToken || s.type == ElementType::kOpaque || s.type == ElementType::kInvalid) return 0;
  return o_.physical ? Physical(s).bytes : LogicalBytes(s);
}

const Shape* CostModel::OperandShape(const Computation& c, const Instruction& in, size_t i) const {
  if (i >= in.operands.size() || in.operands[i] < 0) return nullptr;
  return &c.instructions[static_cast<size_t>(in.operands[i])].shape;
}

int64_t CostModel::OperandBytes(const Computation& c, const Instruction& in, size_t i) const {
  const Shape* s = OperandShape(c, in, i);
  return s ? ShapeBytes(*s) : 0;
}

double CostModel::ReducerFlops(const Instruction& in) {
  if (in.called_ids.empty() || in.called_ids[0] < 0) return 1;
  const Computation& r = m_.computations[static_cast<size_t>(in.called_ids[0])];
  Cost c = OfComputation(r);
  return std::max(1.0, c.flops + c.transcendentals);
}

int64_t CostModel::GroupSize(const Instruction& in) const {
  ReplicaGroups g;
  const std::string_view* text = in.Attr("replica_groups");
  if (text && ParseReplicaGroups(*text, &g) && !g.all && g.max_group_size() > 0) return g.max_group_size();
  if (in.opcode.rfind("collective-permute", 0) == 0) return 2;
  if (o_.default_group > 0) return o_.default_group;
  return std::max<int64_t>(1, m_.num_partitions * m_.replica_count);
}

Cost CostModel::OfComputation(const Computation& c) {
  auto it = memo_.find(&c);
  if (it != memo_.end()) return it->second;
  memo_[&c] = Cost{};  // recursion guard
  Cost total;
  // Real modules nest computations a handful of levels deep; a chain of
  // thousands would exhaust the stack, so past the bound it is marked uncostable.
  if (call_depth_ >= 256) {
    total.unknown = true;
    memo_[&c] = total;
    return total;
  }
  ++call_depth_;
  for (const auto& in : c.instructions) total += Of(c, in);
  --call_depth_;
  memo_[&c] = total;
  return total;
}

// XLA's FusionParameterReadBytes, as far as the profiles checked agree:
// a parameter read only through slices (slice, dynamic-slice, gather as
// operand 0) or nested fusions that read it partly reads those parts; a
// tuple read only through get-tuple-element reads the elements taken, each
// once; a dynamic-update-slice's operand 0 is updated in place (not read);
// otherwise the whole parameter, once.
namespace {
// Each instruction's users in a computation (an instruction using another
// twice is listed once), built once per fusion body.
std::vector<std::vector<const Instruction*>> UsersOf(const Computation& c) {
  std::vector<std::vector<const Instruction*>> users(c.instructions.size());
  for (const auto& u : c.instructions)
    for (int32_t o : u.operands)
      if (o >= 0 && static_cast<size_t>(o) < users.size() &&
          (users[static_cast<size_t>(o)].empty() || users[static_cast<size_t>(o)].back() != &u))
        users[static_cast<size_t>(o)].push_back(&u);
  return users;
}
}  // namespace

double CostModel::ParamReadBytes(const Computation& body, const std::vector<std::vector<const Instruction*>>& users,
                                 size_t i, int depth) const {
  const Instruction& p = body.instructions[i];
  const std::vector<const Instruction*>& us = users[i];
  if (us.empty()) return static_cast<double>(ShapeBytes(p.shape));  // unused: as XLA sizes a parameter
  bool partial = true, aliased_only = true, gte_only = true;
  double part_bytes = 0;
  std::set<int64_t> taken;
  for (const Instruction* u : us) {
    const bool first = !u->operands.empty() && u->operands[0] == static_cast<int32_t>(i);
    if (u->opcode == "dynamic-update-slice" && first) continue;
    aliased_only = false;
    if (u->opcode == "get-tuple-element") {
      taken.insert(u->IntAttr("index", -1));
    } else {
      gte_only = false;
    }
    if ((u->opcode == "slice" || u->opcode == "dynamic-slice" || u->opcode == "gather") && first) {
      part_bytes += static_cast<double>(ShapeBytes(u->shape));
    } else if (u->opcode == "fusion" && depth < 8 && !u->called_ids.empty() && u->called_ids[0] >= 0) {
      // Reads follow into a nested fusion: what it reads of that operand.
      const Computation& nested = m_.computations[static_cast<size_t>(u->called_ids[0])];
      const auto nested_users = UsersOf(nested);
      for (size_t k = 0; k < u->operands.size(); ++k) {
        if (u->operands[k] != static_cast<int32_t>(i)) continue;
        for (size_t j = 0; j < nested.instructions.size(); ++j)
          if (nested.instructions[j].opcode == "parameter" &&
              nested.instructions[j].parameter_number == static_cast<int64_t>(k))
            part_bytes += std::max(0.0, ParamReadBytes(nested, nested_users, j, depth + 1));
      }
    } else {
      partial = false;
    }
  }
  if (aliased_only) return -1;
  if (p.shape.is_tuple() && gte_only) {
    double b = 0;
    for (int64_t k : taken)
      if (k >= 0 && static_cast<size_t>(k) < p.shape.tuple.size())
        b += static_cast<double>(ShapeBytes(p.shape.tuple[static_cast<size_t>(k)]));
    return b;
  }
  return partial ? part_bytes : static_cast<double>(ShapeBytes(p.shape));
}

Cost CostModel::Fusion(const Computation& c, const Instruction& in) {
  Cost cost;
  if (in.called_ids.empty() || in.called_ids[0] < 0) return cost;
  const Computation& body = m_.computations[static_cast<size_t>(in.called_ids[0])];
  Cost inner = OfComputation(body);
  cost.flops = inner.flops;
  cost.transcendentals = inner.transcendentals;
  cost.unknown = inner.unknown;
  cost.network_bytes = inner.network_bytes;
  // Written: what the root produces; a dynamic-update-slice root writes
  // only the update (its operand 0 aliases the output).
  auto written = [&](const Instruction& root, auto&& self) -> double {
    if (root.opcode == "tuple") {
      double b = 0;
      for (int32_t o : root.operands)
        if (o >= 0) b += self(body.instructions[static_cast<size_t>(o)], self);
      return b;
    }
    if (root.opcode == "dynamic-update-slice" && root.operands.size() > 1 && root.operands[1] >= 0)
      return static_cast<double>(ShapeBytes(body.instructions[static_cast<size_t>(root.operands[1])].shape));
    return static_cast<double>(ShapeBytes(root.shape));
  };
  // Outputs that share a buffer with an operand (output_to_operand_aliasing,
  // e.g. the all-gather buffers threaded through a TPU collective matmul)
  // are updated in place: neither the output nor that operand is a transfer.
  // TPU async collective fusions (kind=kCustom) alias their buffers too but
  // are recorded with every byte of the collective, so they keep them.
  std::vector<Aliasing> aliases;
  const std::string_view* kind = in.Attr("kind");
  if (const std::string_view* a = in.Attr("output_to_operand_aliasing"); a && !(kind && *kind == "kCustom"))
    ParseAliasing(*a, &aliases);
  std::set<int64_t> aliased_outputs, aliased_operands;
  for (const auto& a : aliases) {
    aliased_operands.insert(a.operand);
    aliased_outputs.insert(a.output_index.empty() ? -1 : a.output_index[0]);
  }
  if (body.root >= 0) {
    const Instruction& root = body.root_instruction();
    if (aliased_outputs.empty()) {
      cost.bytes_written = written(root, written);
    } else if (root.opcode == "tuple" && !aliased_outputs.count(-1)) {
      for (size_t k = 0; k < root.operands.size(); ++k)
        if (!aliased_outputs.count(static_cast<int64_t>(k)) && root.operands[k] >= 0)
          cost.bytes_written += written(body.instructions[static_cast<size_t>(root.operands[k])], written);
    }
  }
  // Read: each parameter once, or less (ParamReadBytes).
  const auto users = UsersOf(body);
  for (size_t i = 0; i < body.instructions.size(); ++i) {
    const Instruction& p = body.instructions[i];
    if (p.opcode != "parameter" || aliased_operands.count(p.parameter_number)) continue;
    if (!p.shape.is_tuple() && p.shape.dims.empty() && p.shape.layout.memory_space != 0) continue;  // as in Of()
    const double b = ParamReadBytes(body, users, i, 0);
    if (b > 0) cost.bytes_read += b;
  }
  // Constants inside the fusion that are not scalars are read too.
  for (const auto& k : body.instructions)
    if (o_.fusion_constants && k.opcode == "constant" && !k.shape.is_tuple() && Elements(k.shape) > 1)
      cost.bytes_read += static_cast<double>(ShapeBytes(k.shape));
  cost.bytes_accessed = cost.bytes_read + cost.bytes_written;
  return cost;
}

Cost CostModel::Of(const Computation& c, const Instruction& in) {
  Cost cost;
  const std::string_view op = in.opcode;
  const double out_elems = static_cast<double>(Elements(in.shape));
  // A tuple result is its pointer table (HloCostAnalysis sizes tuples so).
  auto result_bytes = [&](const Shape& s) {
    return s.is_tuple() ? static_cast<double>(o_.tuple_pointer_bytes) * static_cast<double>(s.tuple.size())
                        : static_cast<double>(ShapeBytes(s));
  };
  auto default_bytes = [&] {
    cost.bytes_written = result_bytes(in.shape);
    for (size_t i = 0; i < in.operands.size(); ++i) {
      // A scalar in a non-default memory space (TPU SMEM, S(6) and the
      // like) is not a memory access the TPU runtime counts.
      const Shape* s = OperandShape(c, in, i);
      if (s && !s->is_tuple() && s->dims.empty() && s->layout.memory_space != 0) continue;
      cost.bytes_read += static_cast<double>(OperandBytes(c, in, i));
    }
  };
  auto finish = [&] {
    cost.bytes_accessed = cost.bytes_read + cost.bytes_written;
    return cost;
  };

  if (op == "parameter" || op == "constant" || op == "get-tuple-element" || op == "bitcast" || op == "domain" ||
      op == "after-all" || op == "add-dependency" || op == "partition-id" || op == "replica-id" ||
      op == "opt-barrier" || op == "async-done" || op == "async-update" || op == "send" || op == "recv" ||
      op == "send-done" || op == "recv-done") {
    return cost;
  }
  // The -done half of an async collective waits; its -start did the work.
  if (const auto coll = CollectiveFromHloOpcode(op); coll && coll->part == AsyncPart::kDone) return cost;
  if (op == "tuple") {
    cost.bytes_written = 8.0 * static_cast<double>(in.shape.tuple.size());  // the pointer table
    return finish();
  }
  if (IsElementwise(op)) {
    default_bytes();
    (IsTranscendental(op) ? cost.transcendentals : cost.flops) = out_elems;
    return finish();
  }
  if (op == "dot" || op == "ragged-dot" || op == "scaled-dot") {
    default_bytes();
    const Shape* lhs = OperandShape(c, in, 0);
    if (lhs) cost.flops = DotFlops(*lhs, in.shape, IntListAttr(in, "lhs_contracting_dims"));
    return finish();
  }
  if (op == "convolution" || (op == "custom-call" && in.Attr("custom_call_target") &&
                              in.Attr("custom_call_target")->find("__cudnn$conv") != std::string::npos)) {
    const Shape* lhs = OperandShape(c, in, 0);
    const Shape* rhs = OperandShape(c, in, 1);
    const Shape& out = FirstArray(in.shape);
    cost.bytes_written = static_cast<double>(ShapeBytes(out));
    for (size_t i = 0; i < in.operands.size(); ++i) cost.bytes_read += static_cast<double>(OperandBytes(c, in, i));
    ConvDims d;
    std::vector<WindowDim> w;
    const std::string_view* labels = in.Attr("dim_labels");
    const std::string_view* window = in.Attr("window");
    if (lhs && rhs && labels && ParseConvDimLabels(*labels, &d)) {
      if (!window || !ParseWindow(*window, &w)) w.assign(d.input_spatial.size(), WindowDim{});
      int64_t fgc = 1, bgc = 1;
      fgc = std::max<int64_t>(1, in.IntAttr("feature_group_count", 1));
      bgc = std::max<int64_t>(1, in.IntAttr("batch_group_count", 1));
      auto dim = [](const Shape& s, int64_t i) {
        return i >= 0 && static_cast<size_t>(i) < s.dims.size() ? s.dims[static_cast<size_t>(i)] : int64_t{1};
      };
      double fma = static_cast<double>(dim(*lhs, d.input_feature) / fgc) *
                   static_cast<double>(dim(out, d.output_feature)) *
                   static_cast<double>(dim(*lhs, d.input_batch) / bgc);
      for (size_t k = 0; k < d.input_spatial.size() && k < w.size(); ++k)
        fma *= static_cast<double>(ValidPositions(dim(*lhs, d.input_spatial[k]), dim(out, d.output_spatial[k]), w[k]));
      cost.flops = 2.0 * fma;
    }
    return finish();
  }
  if (op == "custom-call") {
    const std::string_view* target = in.Attr("custom_call_target");
    // Bookkeeping calls the compiler turns into nothing (buffer allocation,
    // 64-bit splits on TPU, sharding annotations): no memory traffic.
    std::string unquoted;
    if (target && Unquote(*target, &unquoted) && IsFreeCustomCall(unquoted)) return cost;
    const std::string_view* cfg = in.Attr("backend_config");
    if (target &&
        (target->find("__cublas$gemm") != std::string::npos ||
         target->find("__cublas$lt$matmul") != std::string::npos) &&
        cfg) {
      const Shape* lhs = OperandShape(c, in, 0);
      const Shape& out = FirstArray(in.shape);
      cost.bytes_written = static_cast<double>(ShapeBytes(out));
      for (size_t i = 0; i < in.operands.size(); ++i) cost.bytes_read += static_cast<double>(OperandBytes(c, in, i));
      if (lhs) cost.flops = DotFlops(*lhs, out, JsonIntList(*cfg, "lhs_contracting_dimensions"));
      return finish();
    }
    default_bytes();
    cost.unknown = true;  // XLA reports -1: it cannot see inside
    return finish();
  }
  if (op == "reduce") {
    default_bytes();
    const Shape* in0 = OperandShape(c, in, 0);
    double reduced =
        in0 ? static_cast<double>(Elements(*in0)) - static_cast<double>(Elements(FirstArray(in.shape))) : 0;
    cost.flops = std::max(0.0, reduced) * ReducerFlops(in);
    return finish();
  }
  if (op == "reduce-window") {
    default_bytes();
    std::vector<WindowDim> w;
    double window_elems = 1;
    if (const std::string_view* t = in.Attr("window"); t && ParseWindow(*t, &w))
      for (const auto& d : w) window_elems *= static_cast<double>(d.size);
    const double out = static_cast<double>(Elements(FirstArray(in.shape)));
    double reductions = (window_elems - 1) * out;
    // XLA's special case (HandleReduceWindow): a window that spans one
    // whole dimension d of the output (size 2(n-1)+1 with n-1 padding on
    // both sides, n = the output's extent in d; every other window dimension
    // 1 and unpadded) is a cumulative reduction, costed as one reduce of d
    // plus its broadcast back: out/n + n - 1 applications, not (2n-2) x out.
    int reduced_dims = 0, padded_dims = 0;
    for (const auto& d : w) reduced_dims += d.size != 1, padded_dims += d.pad_lo != 0 || d.pad_hi != 0;
    if (reduced_dims == 1 && padded_dims == 1 && !in.shape.is_tuple() && w.size() == in.shape.dims.size()) {
      for (size_t k = 0; k < w.size(); ++k) {
        const WindowDim& d = w[k];
        if (d.size == 1 || d.pad_lo == 0 || d.pad_lo != d.pad_hi || d.size != 2 * d.pad_lo + 1) continue;
        const int64_t n = in.shape.dims[k];
        if (n > 0 && d.pad_lo == n - 1) reductions = out / static_cast<double>(n) + static_cast<double>(n - 1);
        break;
      }
    }
    cost.flops = reductions * ReducerFlops(in);
    return finish();
  }
  if (op == "map") {
    default_bytes();
    cost.flops = out_elems * ReducerFlops(in);
    return finish();
  }
  if (op == "sort") {
    default_bytes();
    const Shape* in0 = OperandShape(c, in, 0);
    double n = in0 ? static_cast<double>(Elements(*in0)) : 0;
    cost.flops = n > 1 ? n * std::ceil(std::log2(n)) : 0;
    return finish();
  }
  if (op == "slice") {
    cost.bytes_read = cost.bytes_written = static_cast<double>(ShapeBytes(in.shape));
    return finish();
  }
  // XLA's HandleDynamicSlice / HandleDynamicUpdateSlice read the slice (or
  // the update) and only the FIRST start index (operand 1, resp. 2): with
  // scalar indices, one per dimension, the others are not counted.
  if (op == "dynamic-slice" || op == "gather") {
    cost.bytes_read = cost.bytes_written = static_cast<double>(ShapeBytes(in.shape));
    if (in.operands.size() > 1) cost.bytes_read += static_cast<double>(OperandBytes(c, in, 1));
    return finish();
  }
  if (op == "dynamic-update-slice") {
    double update = static_cast<double>(OperandBytes(c, in, 1));
    cost.bytes_read = update;
    cost.bytes_written = update;
    if (in.operands.size() > 2) cost.bytes_read += static_cast<double>(OperandBytes(c, in, 2));
    return finish();
  }
  if (op == "scatter") {
    // operands: inputs..., indices, updates... (one input in practice)
    size_t n = in.operands.size();
    double updates = n >= 3 ? static_cast<double>(OperandBytes(c, in, n - 1)) : 0;
    double indices = n >= 3 ? static_cast<double>(OperandBytes(c, in, n - 2)) : 0;
    cost.bytes_read = 2 * updates + indices;
    cost.bytes_written = updates;
    const Shape* u = n >= 3 ? OperandShape(c, in, n - 1) : nullptr;
    cost.flops = u ? static_cast<double>(Elements(*u)) * ReducerFlops(in) : 0;
    return finish();
  }
  if (op == "fusion") return Fusion(c, in);
  if (op == "while") {
    for (int32_t id : in.called_ids)
      if (id >= 0) cost += OfComputation(m_.computations[static_cast<size_t>(id)]);
    return cost;
  }
  if (op == "conditional") {
    for (int32_t id : in.called_ids) {
      if (id < 0) continue;
      Cost b = OfComputation(m_.computations[static_cast<size_t>(id)]);
      if (b.flops + b.bytes_accessed > cost.flops + cost.bytes_accessed) cost = b;
    }
    return cost;
  }
  if (op == "call" || op == "async-start") {
    for (int32_t id : in.called_ids)
      if (id >= 0) cost += OfComputation(m_.computations[static_cast<size_t>(id)]);
    return cost;
  }
  // Collectives: HloCostAnalysis bytes = operands + result (the result of a
  // -start op is its last tuple element); ring network bytes per participant.
  const std::optional<HloCollectiveOpcode> coll = CollectiveFromHloOpcode(op);
  if (coll && coll->part != AsyncPart::kDone) {
    const CollectiveKind kind = coll->kind;
    const bool start = coll->part == AsyncPart::kStart;
    const bool all_reduce = kind == CollectiveKind::kAllReduce;
    const Shape& result = start && in.shape.is_tuple() && in.shape.tuple.size() >= 2 ? in.shape.tuple[1] : in.shape;
    // A tuple-shaped all-reduce's result is sized as its pointer table, as
    // the TPU runtime records it (the corpus v5 training profile: 3 tuple
    // all-reduces match only so); XLA's HloCostAnalysis tests sum the
    // arrays. Deliberate; said in docs/ANALYSES.md.
    cost.bytes_written = all_reduce ? result_bytes(in.shape) : static_cast<double>(ShapeBytes(result));
    for (size_t i = 0; i < in.operands.size(); ++i) cost.bytes_read += static_cast<double>(OperandBytes(c, in, i));
    const int64_t n = GroupSize(in);
    cost.group_size = n;
    const double out_bytes = static_cast<double>(ShapeBytes(all_reduce ? in.shape : result));
    if (all_reduce) cost.flops = static_cast<double>(Elements(in.shape)) * ReducerFlops(in);
    if (kind == CollectiveKind::kCollectivePermute || kind == CollectiveKind::kCollectiveBroadcast) {
      // Point to point: the operand once, whatever the group (XLA's rule).
      cost.network_bytes = static_cast<double>(OperandBytes(c, in, 0));
    } else if (n > 1) {
      // The ring: reduce-scatter's factor applies to its input, the others'
      // to their output.
      cost.network_bytes =
          RingWireFactor(kind, n) * (kind == CollectiveKind::kReduceScatter ? cost.bytes_read : out_bytes);
    }
    return finish();
  }
  // An async copy between memory spaces (prefetch to VMEM, offload to host):
  // the start reads the source, the done writes the destination, as the TPU
  // runtime records them (corpus TPU v6e profile).
  if (op == "copy-start") {
    cost.bytes_read = static_cast<double>(OperandBytes(c, in, 0));
    return finish();
  }
  if (op == "copy-done") {
    cost.bytes_written = static_cast<double>(ShapeBytes(in.shape));
    return finish();
  }
  // infeed: its result (data, token) is the data it writes, every array of
  // it (XLA's HandleInfeed), not a pointer table.
  if (op == "infeed") {
    cost.bytes_written = static_cast<double>(ShapeBytes(in.shape));
    return finish();
  }
  // copy, transpose, broadcast, reshape, concatenate, pad, reverse, iota,
  // rng, outfeed...: data movement, no flops.
  default_bytes();
  return finish();
}

}  // namespace mlprof::hlo
