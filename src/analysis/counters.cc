#include "analysis/counters.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "analysis/op_cost.h"

namespace mlprof {

std::string MemoryKindOf(std::string_view name) {
  if (name.substr(0, 6) == "Memset") return "Memset";
  if (name.substr(0, 6) != "Memcpy") return "Memcpy Unknown";
  return std::string(name.substr(0, 11));
}

namespace {

struct BwEdge {
  Ps ts;
  int sign;  // +1 start, -1 end
  double bw;
};

// Per (rank, kind): the series' edges and the ops behind them.
struct KindOps {
  std::vector<BwEdge> edges;
  int64_t ops = 0, bytes = 0;
  Ps time = 0;
};

void MemoryOps(const RankProfile& p, int64_t rank, std::map<std::pair<int64_t, std::string>, KindOps>& out) {
  const OpTable& o = p.ops;
  std::map<StringId, std::string> kinds;
  for (size_t i = 0; i < o.size(); ++i) {
    if (o.kind[i] != OpKind::kMemcpy && o.kind[i] != OpKind::kMemset) continue;
    const int64_t bytes = o.bytes_of(i);
    if (bytes < 0) continue;
    auto [it, fresh] = kinds.try_emplace(o.name[i]);
    if (fresh) it->second = MemoryKindOf(p.str(o.name[i]));
    KindOps& k = out[{rank, it->second}];
    const Ps dur = o.dur[i] > 0 ? o.dur[i] : kPsPerUs;
    const double bw = static_cast<double>(bytes) / (static_cast<double>(dur) * 1e-12);
    k.edges.push_back({o.ts[i], +1, bw});
    k.edges.push_back({o.ts[i] + dur, -1, bw});
    k.ops++;
    k.bytes += bytes;
    k.time += dur;
  }
}

std::map<std::pair<int64_t, std::string>, KindOps> MemoryOps(const Profile& profile) {
  std::map<std::pair<int64_t, std::string>, KindOps> out;
  for (size_t ri = 0; ri < profile.ranks.size(); ++ri)
    MemoryOps(profile.ranks[ri], profile.ranks[ri].rank_or(static_cast<int64_t>(ri)), out);
  return out;
}

std::vector<std::pair<Ps, double>> Accumulate(std::vector<BwEdge>& edges) {
  std::stable_sort(edges.begin(), edges.end(),
                   [](const BwEdge& a, const BwEdge& b) { return a.ts != b.ts ? a.ts < b.ts : a.sign < b.sign; });
  std::vector<std::pair<Ps, double>> points;
  points.reserve(edges.size());
  long double sum = 0;
  int64_t active = 0;
  for (const BwEdge& e : edges) {
    sum += e.sign * static_cast<long double>(e.bw);
    active += e.sign;
    if (active == 0) sum = 0;  // no float residue once nothing runs
    points.emplace_back(e.ts, static_cast<double>(sum));
  }
  return points;
}

}  // namespace

std::vector<MemoryBwSeries> ComputeMemoryBwSeries(const Profile& profile) {
  std::vector<MemoryBwSeries> out;
  for (auto& [key, k] : MemoryOps(profile)) out.push_back({key.first, key.second, Accumulate(k.edges)});
  return out;
}

std::vector<MemoryBwSeries> MemoryBwSeriesOf(const RankProfile& p, int64_t rank) {
  std::map<std::pair<int64_t, std::string>, KindOps> ops;
  MemoryOps(p, rank, ops);
  std::vector<MemoryBwSeries> out;
  for (auto& [key, k] : ops) out.push_back({key.first, key.second, Accumulate(k.edges)});
  return out;
}

std::vector<MemoryBwRow> ComputeMemoryBw(const Profile& profile) {
  std::vector<MemoryBwRow> out;
  for (auto& [key, k] : MemoryOps(profile)) {
    MemoryBwRow r;
    r.rank = key.first;
    r.kind = key.second;
    r.ops = k.ops;
    r.bytes = k.bytes;
    r.time = k.time;
    std::vector<double> values;
    for (const auto& [ts, v] : Accumulate(k.edges))
      if (v > 0) values.push_back(v);
    r.bw = DescribeValues(std::move(values));
    out.push_back(std::move(r));
  }
  return out;
}

int SassFlopsPerInstruction(std::string_view metric) {
  static constexpr std::string_view kPrefix = "smsp__sass_thread_inst_executed_op_";
  static constexpr std::string_view kSuffix = "_pred_on.sum";
  if (metric.size() != kPrefix.size() + 4 + kSuffix.size() || metric.substr(0, kPrefix.size()) != kPrefix ||
      metric.substr(kPrefix.size() + 4) != kSuffix)
    return 0;
  const std::string_view op = metric.substr(kPrefix.size(), 4);
  if (op[0] != 'f' && op[0] != 'h' && op[0] != 'd') return 0;
  const std::string_view what = op.substr(1);
  if (what == "fma") return 2;
  if (what == "add" || what == "mul") return 1;
  return 0;
}

namespace {

bool IsKernelLaunchCall(std::string_view n) {
  static constexpr std::string_view kPrefixes[] = {"cudaLaunchKernel", "cuLaunchKernel", "hipLaunchKernel",
                                                   "hipExtModuleLaunchKernel", "cudaLaunchCooperativeKernel"};
  for (std::string_view p : kPrefixes)
    if (n.substr(0, p.size()) == p) return true;
  return false;
}

}  // namespace

std::vector<CuptiRanks> ComputeCuptiRanges(const Profile& profile) {
  std::vector<CuptiRanks> out;
  for (size_t ri = 0; ri < profile.ranks.size(); ++ri) {
    const RankProfile& p = profile.ranks[ri];
    const StringId cat = p.strings.Find("cuda_profiler_range");
    if (cat == StringPool::kNotFound) continue;
    const OpTable& o = p.ops;
    CuptiRanks r;
    r.rank = p.rank_or(static_cast<int64_t>(ri));
    r.profile = &p;
    std::vector<uint32_t> ranges, launches;
    std::map<StringId, bool> launch_name;
    for (size_t i = 0; i < o.size(); ++i) {
      if (o.cat[i] == cat) {
        ranges.push_back(static_cast<uint32_t>(i));
      } else if (IsLaunchOp(o.kind[i])) {
        auto [it, fresh] = launch_name.try_emplace(o.name[i], false);
        if (fresh) it->second = IsKernelLaunchCall(p.str(o.name[i]));
        if (it->second) launches.push_back(static_cast<uint32_t>(i));
      }
    }
    if (ranges.empty()) continue;
    auto by_start = [&](uint32_t a, uint32_t b) { return std::tie(o.ts[a], a) < std::tie(o.ts[b], b); };
    std::sort(ranges.begin(), ranges.end(), by_start);
    std::sort(launches.begin(), launches.end(), by_start);
    r.launches = static_cast<int64_t>(launches.size());
    r.attributed = launches.size() == ranges.size();
    std::map<StringId, size_t> metric_index;
    for (uint32_t i : ranges)
      for (const Arg& a : p.args.Of(ArgOwner::kOp, i))
        if (a.value.type != ArgType::kString && metric_index.try_emplace(a.value.key, r.metrics.size()).second)
          r.metrics.push_back(a.value.key);
    for (size_t k = 0; k < ranges.size(); ++k) {
      CuptiRange c;
      c.op = ranges[k];
      c.values.assign(r.metrics.size(), std::numeric_limits<double>::quiet_NaN());
      for (const Arg& a : p.args.Of(ArgOwner::kOp, c.op)) {
        if (a.value.type == ArgType::kString) continue;
        const double v = a.value.type == ArgType::kInt ? static_cast<double>(a.value.i) : a.value.r;
        const size_t m = metric_index.at(a.value.key);
        c.values[m] = v;
        if (const int w = SassFlopsPerInstruction(p.str(a.value.key)); w > 0)
          c.sass_flops = std::max(0.0, c.sass_flops) + w * v;
      }
      if (r.attributed) {
        c.launch = static_cast<int32_t>(launches[k]);
        for (int32_t q = o.parent[c.launch]; q >= 0; q = o.parent[static_cast<size_t>(q)])
          if (o.kind[static_cast<size_t>(q)] == OpKind::kCpuOp) c.op_stack.push_back(static_cast<uint32_t>(q));
        std::reverse(c.op_stack.begin(), c.op_stack.end());
      }
      r.ranges.push_back(std::move(c));
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<CuptiOpRow> CuptiByOp(const CuptiRanks& r) {
  const RankProfile& p = *r.profile;
  const OpTable& o = p.ops;
  struct Acc {
    CuptiOpRow row;
    std::set<uint32_t> instances;
  };
  std::map<std::pair<std::string, std::string>, Acc> groups;
  for (const CuptiRange& c : r.ranges) {
    const int64_t bottom = c.op_stack.empty() ? int64_t{-1} : static_cast<int64_t>(c.op_stack.back());
    std::string name = bottom < 0 ? std::string() : std::string(p.str(o.name[bottom]));
    std::string shapes = bottom < 0 ? std::string() : std::string(p.str(o.input_dims_of(bottom)));
    Acc& a = groups[{name, shapes}];
    if (a.row.values.empty()) {
      a.row.rank = r.rank;
      a.row.op = name;
      a.row.shapes = shapes;
      a.row.values.assign(r.metrics.size(), 0);
    }
    a.row.ranges++;
    for (size_t m = 0; m < c.values.size(); ++m)
      if (!std::isnan(c.values[m])) a.row.values[m] += c.values[m];
    if (c.sass_flops >= 0) a.row.sass_flops = std::max(0.0, a.row.sass_flops) + c.sass_flops;
    if (bottom >= 0 && a.instances.insert(static_cast<uint32_t>(bottom)).second) {
      const auto i = static_cast<size_t>(bottom);
      if (auto cost = FrameworkOpCost(p.str(o.name[i]), p.str(o.input_dims_of(i)), p.str(o.input_types_of(i)),
                                      p.str(o.concrete_inputs_of(i)))) {
        a.row.model_flops = std::max(0.0, a.row.model_flops) + cost->flops;
        a.row.modelled++;
      }
    }
  }
  std::vector<CuptiOpRow> out;
  for (auto& [key, a] : groups) {
    a.row.instances = static_cast<int64_t>(a.instances.size());
    out.push_back(std::move(a.row));
  }
  std::stable_sort(out.begin(), out.end(), [](const CuptiOpRow& a, const CuptiOpRow& b) {
    return a.sass_flops != b.sass_flops ? a.sass_flops > b.sass_flops : a.ranges > b.ranges;
  });
  return out;
}

}  // namespace mlprof
