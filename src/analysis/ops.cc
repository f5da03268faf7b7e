#include "analysis/ops.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "analysis/attribution.h"
#include "analysis/op_cost.h"
#include "analysis/steps.h"

namespace mlprof {

namespace {
const char* OwnerKindName(OpKind k) {
  switch (k) {
    case OpKind::kUserAnnotation:
      return "user_annotation";
    case OpKind::kGpuUserAnnotation:
      return "gpu_user_annotation";
    case OpKind::kRuntime:
    case OpKind::kDriver:
      return "graph_launch";
    default:
      return "cpu_op";
  }
}
}  // namespace

std::vector<OpGpuTime> ComputeOpGpuTime(const ProfileView& view, const OpsOptions& opt) {
  std::vector<OpGpuTime> out;
  for (const RankView& rv : view.ranks) {
    const RankProfile& p = *rv.profile;
    const OpTable& o = p.ops;
    const OpAttribution attribution(p);
    // The op a GPU op's cost is read from: the launching cpu_op if mlprof
    // has a cost model for it, else its nearest enclosing cpu_op that has
    // one (aten::cudnn_convolution -> aten::_convolution,
    // aten::_flash_attention_forward -> aten::_scaled_dot_product_flash_attention),
    // else the launching op itself.
    std::unordered_map<StringId, bool> costable;
    auto cost_owner = [&](int32_t op) -> int32_t {
      for (int32_t q = op; q >= 0; q = o.parent[q]) {
        if (!p.IsFrameworkOp(static_cast<size_t>(q))) continue;
        auto [it, ins] = costable.emplace(o.name[q], false);
        if (ins) it->second = HasCostModel(p.str(o.name[q]));
        if (it->second) return q;
      }
      return op;
    };
    struct Key {
      StringId name, dims, types, concrete, comm;
      OpKind kind;
      bool operator<(const Key& k) const {
        return std::tie(name, dims, types, concrete, comm, kind) <
               std::tie(k.name, k.dims, k.types, k.concrete, k.comm, k.kind);
      }
    };
    std::map<Key, OpGpuTime> groups;
    std::unordered_map<int32_t, Key> seen_instance;
    Ps total = 0;
    OpGpuTime none;
    none.rank = rv.rank;
    none.name = "(no cpu_op)";
    StepOptions so;
    so.warmup = opt.warmup;
    const int warmup = WarmupSteps(p.steps.size(), so);
    for (const GpuOpRef& g : rv.gpu) {
      OpKind k = o.kind[g.op];
      if (k != OpKind::kKernel && k != OpKind::kMemcpy && k != OpKind::kMemset) continue;
      if (opt.steady_steps_only && o.step[g.op] < warmup) continue;  // warm-up, or outside every step (-1)
      Ps d = g.end - g.ts;
      total += d;
      const OpAttribution::Owner w = attribution.Of(g.op);
      int32_t op = w.op;
      if (op < 0) {
        none.gpu_ops++;
        none.gpu_time += d;
        continue;
      }
      const bool framework = w.by == AttributedBy::kExternalId || w.by == AttributedBy::kContainment;
      if (framework) op = cost_owner(op);
      const OpKind owner_kind = o.kind[op] == OpKind::kCapturedOp ? OpKind::kCpuOp : o.kind[op];
      Key key{o.name[op],
              opt.by_shape ? o.input_dims_of(op) : 0,
              opt.by_shape ? o.input_types_of(op) : 0,
              opt.by_shape ? o.concrete_inputs_of(op) : 0,
              opt.by_shape ? o.comm_of(op) : 0,
              owner_kind};
      OpGpuTime& row = groups[key];
      if (row.calls == 0 && row.gpu_ops == 0) {
        row.rank = rv.rank;
        row.name = std::string(p.str(key.name));
        row.input_dims = std::string(p.str(key.dims));
        row.input_types = std::string(p.str(key.types));
        row.concrete_inputs = std::string(p.str(key.concrete));
        row.comm = std::string(p.str(key.comm));
        row.kind = OwnerKindName(owner_kind);
        std::optional<OpCost> c;
        if (framework)
          c = row.comm.empty() ? FrameworkOpCost(row.name, row.input_dims, row.input_types, row.concrete_inputs)
                               : CollectiveOpCost(row.comm);
        if (c && c->kind == "collective") {
          row.group_size = c->batch;
          row.collective = c->collective;
        }
        if (c) {
          row.flops_per_call = c->flops;
          row.cost_kind = c->kind;
          row.cost_dtype = c->dtype;
          row.bytes_per_call = c->bytes;
        }
      }
      row.gpu_ops++;
      row.gpu_time += d;
      if (seen_instance.emplace(op, key).second) {
        row.calls++;
        if (o.kind[op] != OpKind::kCapturedOp) row.cpu_time += o.dur[op];  // a copy took no host time here
      }
    }
    std::vector<OpGpuTime> rows;
    for (auto& [k, v] : groups) rows.push_back(std::move(v));
    if (none.gpu_ops > 0) rows.push_back(none);
    for (auto& r : rows) r.pct_gpu = total > 0 ? 100.0 * r.gpu_time / total : 0.0;
    std::sort(rows.begin(), rows.end(), [](const OpGpuTime& a, const OpGpuTime& b) {
      return a.gpu_time != b.gpu_time ? a.gpu_time > b.gpu_time : a.name < b.name;
    });
    for (auto& r : rows) out.push_back(std::move(r));
  }
  return out;
}

namespace {
// The cpu_ops `pick` selects, by name, with their calls.
template <class Pick>
std::vector<std::pair<std::string, int64_t>> CpuOpsWhere(const ProfileView& view, Pick pick) {
  std::map<std::string, int64_t> found;
  for (const RankView& rv : view.ranks) {
    const RankProfile& p = *rv.profile;
    const OpTable& o = p.ops;
    for (size_t i = 0; i < o.size(); ++i)
      if (o.kind[i] == OpKind::kCpuOp && pick(p, i)) ++found[std::string(p.str(o.name[i]))];
  }
  return {found.begin(), found.end()};
}
}  // namespace

std::vector<std::pair<std::string, int64_t>> CostableOpsWithoutShapes(const ProfileView& view) {
  return CpuOpsWhere(view, [](const RankProfile& p, size_t i) {
    return p.ops.input_dims_of(i) == 0 && HasCostModel(p.str(p.ops.name[i]));
  });
}

std::vector<std::pair<std::string, int64_t>> ConvolutionsWithoutStride(const ProfileView& view) {
  return CpuOpsWhere(view, [](const RankProfile& p, size_t i) {
    return ConvStrideUnknown(p.str(p.ops.name[i]), p.str(p.ops.input_dims_of(i)), p.str(p.ops.concrete_inputs_of(i)));
  });
}

}  // namespace mlprof
