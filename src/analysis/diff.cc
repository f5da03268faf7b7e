#include "analysis/diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/steps.h"

namespace mlprof {
namespace {

// Per rank: the steady steps' breakdowns.
std::map<int64_t, std::vector<const StepBreakdown*>> SteadySteps(const StepReport& r) {
  std::map<int64_t, std::vector<const StepBreakdown*>> out;
  for (const StepBreakdown& s : r.steps)
    if (!s.warmup && !s.last) out[s.rank].push_back(&s);
  return out;
}

double MedianOf(const std::vector<const StepBreakdown*>& steps, Ps StepBreakdown::*field) {
  std::vector<double> v;
  for (const StepBreakdown* s : steps) v.push_back(static_cast<double>(s->*field));
  return v.empty() ? NAN : Median(v);
}

// Per GPU op name: (count, time per step), summed over ranks.
std::map<std::string, std::pair<int64_t, double>> OpsPerStep(const ProfileView& view) {
  std::map<std::string, std::pair<int64_t, double>> out;
  for (const RankView& rv : view.ranks) {
    const RankProfile& p = *rv.profile;
    std::map<StringId, std::pair<int64_t, Ps>> by_name;
    for (size_t i = 0; i < p.ops.size(); ++i) {
      if (!rv.keep.empty() && !rv.keep[i]) continue;
      const OpKind k = p.ops.kind[i];
      if (k != OpKind::kKernel && k != OpKind::kMemcpy && k != OpKind::kMemset) continue;
      auto& [n, t] = by_name[p.ops.name[i]];
      ++n, t += rv.End(static_cast<uint32_t>(i)) - rv.Ts(static_cast<uint32_t>(i));
    }
    const double steps = static_cast<double>(std::max<int64_t>(1, rv.KeptSteps()));
    for (const auto& [name, nt] : by_name) {
      auto& [n, t] = out[std::string(p.str(name))];
      n += nt.first;
      t += static_cast<double>(nt.second) / steps;
    }
  }
  return out;
}

}  // namespace

DiffResult ComputeDiff(const ProfileView& base, const ProfileView& neu, const DiffOptions& o) {
  DiffResult d;
  StepOptions so;
  so.warmup = o.warmup;
  const StepReport bs = ComputeSteps(base, so), ns = ComputeSteps(neu, so);
  const auto b_steady = SteadySteps(bs);
  auto n_steady = SteadySteps(ns);
  std::set<int64_t> b_ranks, n_ranks;
  for (const RankView& rv : base.ranks) b_ranks.insert(rv.rank);
  for (const RankView& rv : neu.ranks) n_ranks.insert(rv.rank);
  if (b_ranks.size() == 1 && n_ranks.size() == 1 && *b_ranks.begin() != *n_ranks.begin()) {
    // Two single-rank traces: compare them whatever their rank numbers.
    d.paired_base = *b_ranks.begin(), d.paired_new = *n_ranks.begin();
    if (auto it = n_steady.find(d.paired_new); it != n_steady.end()) {
      auto steps = std::move(it->second);
      n_steady.erase(it);
      n_steady[d.paired_base] = std::move(steps);
    }
    n_ranks = b_ranks;
  }
  for (int64_t r : b_ranks) {
    if (!n_ranks.count(r)) {
      d.only_base.push_back(r);
      continue;
    }
    const auto bi = b_steady.find(r);
    const auto ni = n_steady.find(r);
    if (bi == b_steady.end() || ni == n_steady.end()) continue;  // no steady steps on a side
    StepDiff s;
    s.rank = r;
    for (const StepBreakdown* x : bi->second) s.base.push_back(static_cast<double>(x->wall));
    for (const StepBreakdown* x : ni->second) s.neu.push_back(static_cast<double>(x->wall));
    s.base_median = Median(s.base);
    s.new_median = Median(s.neu);
    s.test = MannWhitneyU(s.base, s.neu);
    d.steps.push_back(std::move(s));
    const std::pair<const char*, Ps StepBreakdown::*> fields[] = {
        {"step_time", &StepBreakdown::wall},  {"gpu_busy", &StepBreakdown::gpu_busy},
        {"compute", &StepBreakdown::compute}, {"communication", &StepBreakdown::communication},
        {"memory", &StepBreakdown::memory},   {"idle", &StepBreakdown::idle}};
    for (const auto& [name, field] : fields)
      d.breakdown.push_back({r, name, MedianOf(bi->second, field), MedianOf(ni->second, field)});
  }
  for (int64_t r : n_ranks)
    if (!b_ranks.count(r)) d.only_new.push_back(r);

  const auto b_ops = OpsPerStep(base), n_ops = OpsPerStep(neu);
  std::set<std::string> names;
  for (const auto& [n, v] : b_ops) names.insert(n);
  for (const auto& [n, v] : n_ops) names.insert(n);
  for (const std::string& n : names) {
    OpDiff x;
    x.name = n;
    if (auto it = b_ops.find(n); it != b_ops.end()) x.base_count = it->second.first, x.base_time = it->second.second;
    if (auto it = n_ops.find(n); it != n_ops.end()) x.new_count = it->second.first, x.new_time = it->second.second;
    d.ops.push_back(std::move(x));
  }
  std::stable_sort(d.ops.begin(), d.ops.end(), [](const OpDiff& a, const OpDiff& b) {
    const double da = std::abs(a.new_time - a.base_time), db = std::abs(b.new_time - b.base_time);
    if (da != db) return da > db;
    const double ta = std::max(a.base_time, a.new_time), tb = std::max(b.base_time, b.new_time);
    if (ta != tb) return ta > tb;
    return a.name < b.name;
  });
  return d;
}

}  // namespace mlprof
