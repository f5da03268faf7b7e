#include "analysis/host_ops.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/op_cost.h"

namespace mlprof {

namespace {

// The nearest enclosing host op on the same thread (-1 none).
int32_t HostParent(const OpTable& o, int32_t i) {
  for (int32_t p = o.parent[static_cast<size_t>(i)]; p >= 0; p = o.parent[static_cast<size_t>(p)])
    if (IsHostOp(o.kind[static_cast<size_t>(p)])) return p;
  return -1;
}

struct InstanceCost {
  double flops = -1, bytes = -1;
};

// Each host op's cost from its name, shapes, dtypes and scalar arguments,
// computed once per distinct combination.
std::vector<InstanceCost> HostOpCosts(const RankProfile& r) {
  const OpTable& o = r.ops;
  std::vector<InstanceCost> out(o.size());
  std::map<std::tuple<StringId, StringId, StringId, StringId>, InstanceCost> cache;
  for (size_t i = 0; i < o.size(); ++i) {
    if (o.kind[i] != OpKind::kCpuOp || o.input_dims_of(i) == 0 || !HasCostModel(r.str(o.name[i]))) continue;
    const auto key = std::make_tuple(o.name[i], o.input_dims_of(i), o.input_types_of(i), o.concrete_inputs_of(i));
    auto it = cache.find(key);
    if (it == cache.end()) {
      InstanceCost c;
      if (auto cost = FrameworkOpCost(r.str(o.name[i]), r.str(o.input_dims_of(i)), r.str(o.input_types_of(i)),
                                      r.str(o.concrete_inputs_of(i))))
        c.flops = cost->flops, c.bytes = cost->bytes;
      it = cache.emplace(key, c).first;
    }
    out[i] = it->second;
  }
  return out;
}

}  // namespace

std::vector<HostFlops> ComputeHostFlops(const ProfileView& view) {
  std::vector<HostFlops> out;
  for (const RankView& rv : view.ranks) {
    const RankProfile& r = *rv.profile;
    const std::vector<InstanceCost> cost = HostOpCosts(r);
    HostFlops f;
    f.rank = rv.rank;
    for (size_t i = 0; i < cost.size(); ++i) {
      if (cost[i].flops < 0) continue;
      bool nested = false;
      for (int32_t p = HostParent(r.ops, static_cast<int32_t>(i)); p >= 0 && !nested; p = HostParent(r.ops, p))
        nested = cost[static_cast<size_t>(p)].flops >= 0;
      if (nested) {
        ++f.nested_calls;
      } else {
        ++f.costed_calls;
        f.flops += cost[i].flops;
      }
    }
    out.push_back(f);
  }
  return out;
}

std::string HostOpStack(const RankProfile& r, size_t i, int frames) {
  const OpTable& o = r.ops;
  std::string out;
  int taken = 0;
  if (const StringId s = o.stack_of(i)) {
    std::string_view rest = r.str(s);
    while (taken < frames && !rest.empty()) {
      const size_t semi = rest.find(';');
      std::string_view frame = rest.substr(0, semi);
      rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
      if (frame.empty()) continue;
      if (taken++) out += ';';
      out += frame;
    }
    return out;
  }
  for (int32_t p = o.parent[i]; p >= 0 && taken < frames; p = o.parent[static_cast<size_t>(p)]) {
    if (o.kind[static_cast<size_t>(p)] != OpKind::kPythonFunction) continue;
    if (taken++) out += ';';
    out += r.str(o.name[static_cast<size_t>(p)]);
  }
  return out;
}

std::vector<HostOpRow> ComputeHostOps(const ProfileView& view, const HostOpsOptions& opt) {
  std::vector<HostOpRow> out;
  for (const RankView& rv : view.ranks) {
    const RankProfile& r = *rv.profile;
    const OpTable& o = r.ops;
    const size_t n = o.size();
    // torch's _remove_dup_nodes (and so key_averages and the TensorBoard
    // plugin): an op that is the only host child of an op of the same name
    // (aten::div inside aten::div) is not an op of its own; its children
    // belong to the outer one.
    std::vector<int32_t> host_parent(n, -1), children(n, 0);
    for (size_t i = 0; i < n; ++i) {
      if (!IsHostOp(o.kind[i])) continue;
      host_parent[i] = HostParent(o, static_cast<int32_t>(i));
      if (host_parent[i] >= 0) ++children[static_cast<size_t>(host_parent[i])];
    }
    std::vector<uint8_t> dup(n, 0);
    for (size_t i = 0; i < n; ++i) {
      const int32_t p = host_parent[i];
      dup[i] = p >= 0 && children[static_cast<size_t>(p)] == 1 && o.name[static_cast<size_t>(p)] == o.name[i];
    }
    auto up = [&](int32_t i) {  // the enclosing host op that stays
      int32_t p = host_parent[static_cast<size_t>(i)];
      while (p >= 0 && dup[static_cast<size_t>(p)]) p = host_parent[static_cast<size_t>(p)];
      return p;
    };
    // Per op: self time and device times, then summed into rows.
    std::vector<Ps> self(n, 0), dev_self(n, 0), dev_total(n, 0);
    for (size_t i = 0; i < n; ++i) {
      if (!IsHostOp(o.kind[i]) || dup[i]) continue;
      self[i] += o.dur[i];
      const int32_t p = up(static_cast<int32_t>(i));
      if (p >= 0) self[static_cast<size_t>(p)] -= o.dur[i];
    }
    for (size_t g = 0; g < n; ++g) {
      if (!OccupiesStream(o.kind[g]) || o.launch[g] < 0) continue;
      // The launch call (cudaLaunchKernel) gets no device time: the op that
      // made it does, and every op above that.
      int32_t a = o.launch[g];
      if (!IsHostOp(o.kind[static_cast<size_t>(a)])) continue;
      while (a >= 0 && (dup[static_cast<size_t>(a)] || o.kind[static_cast<size_t>(a)] == OpKind::kRuntime ||
                        o.kind[static_cast<size_t>(a)] == OpKind::kDriver))
        a = up(a);
      if (a < 0) continue;
      dev_self[static_cast<size_t>(a)] += o.dur[g];
      for (int32_t u = a; u >= 0; u = up(u)) dev_total[static_cast<size_t>(u)] += o.dur[g];
    }
    const std::vector<InstanceCost> cost = HostOpCosts(r);
    // Rows keyed by interned ids (strings only once per row); every
    // ProfilerStep#N shares one key, as key_averages' "ProfilerStep*".
    constexpr StringId kProfilerStep = UINT32_MAX;
    std::vector<int8_t> is_step;  // by name id: -1 not looked at yet
    std::map<std::tuple<StringId, StringId, std::string>, HostOpRow> rows;
    for (size_t i = 0; i < n; ++i) {
      if (!IsHostOp(o.kind[i]) || dup[i]) continue;
      const StringId id = o.name[i];
      if (id >= is_step.size()) is_step.resize(id + 1, -1);
      if (is_step[id] < 0) is_step[id] = r.str(id).rfind("ProfilerStep#", 0) == 0;
      const StringId dims = opt.by_shape ? o.input_dims_of(i) : 0;
      std::string stack = opt.stack_frames > 0 ? HostOpStack(r, i, opt.stack_frames) : std::string();
      HostOpRow& row = rows[{is_step[id] ? kProfilerStep : id, dims, stack}];
      if (row.calls == 0) {
        row.rank = rv.rank, row.kind = o.kind[i];
        row.name = is_step[id] ? std::string("ProfilerStep*") : std::string(r.str(id));
        row.input_dims = std::string(r.str(dims));
        row.stack = std::move(stack);
        row.flops = row.bytes = 0;
      }
      // Unknown once any call has no cost.
      row.flops = row.flops < 0 || cost[i].flops < 0 ? -1 : row.flops + cost[i].flops;
      row.bytes = row.bytes < 0 || cost[i].bytes < 0 ? -1 : row.bytes + cost[i].bytes;
      ++row.calls;
      row.host_total += o.dur[i];
      row.host_self += self[i];
      row.device_self += dev_self[i];
      row.device_total += dev_total[i];
    }
    const size_t first = out.size();
    for (auto& [key, row] : rows) out.push_back(std::move(row));
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), [](const HostOpRow& a, const HostOpRow& b) {
      if (a.device_self != b.device_self) return a.device_self > b.device_self;
      if (a.host_self != b.host_self) return a.host_self > b.host_self;
      return std::tie(a.name, a.input_dims, a.stack) < std::tie(b.name, b.input_dims, b.stack);
    });
  }
  return out;
}

}  // namespace mlprof
