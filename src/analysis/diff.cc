#include "analysis/diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/steps.h"

namespace mlprof {
namespace {

double MedianOf(const std::vector<std::array<Ps, 6>>& steps, size_t field) {
  std::vector<double> v;
  for (const auto& s : steps) v.push_back(static_cast<double>(s[field]));
  return v.empty() ? NAN : Median(v);
}

}  // namespace

std::vector<DiffRank> SummarizeDiffSide(const ProfileView& view, const DiffOptions& o) {
  StepOptions so;
  so.warmup = o.warmup;
  const StepReport steps = ComputeSteps(view, so);
  std::vector<DiffRank> out;
  std::map<int64_t, size_t> at;  // rank -> index in out
  for (const RankView& rv : view.ranks) {
    at[rv.rank] = out.size();
    DiffRank d;
    d.rank = rv.rank;
    const RankProfile& p = *rv.profile;
    std::map<std::string_view, std::pair<int64_t, Ps>> by_name;
    for (size_t i = 0; i < p.ops.size(); ++i) {
      if (!rv.keep.empty() && !rv.keep[i]) continue;
      const OpKind k = p.ops.kind[i];
      if (k != OpKind::kKernel && k != OpKind::kMemcpy && k != OpKind::kMemset) continue;
      auto& [n, t] = by_name[p.str(p.ops.name[i])];
      ++n, t += rv.End(static_cast<uint32_t>(i)) - rv.Ts(static_cast<uint32_t>(i));
    }
    // A rank without steps counts its trace as one step.
    const double per = static_cast<double>(std::max<int64_t>(1, rv.KeptSteps()));
    for (const auto& [name, nt] : by_name)
      d.ops.push_back({std::string(name), nt.first, static_cast<double>(nt.second) / per});
    out.push_back(std::move(d));
  }
  for (const StepBreakdown& s : steps.steps) {
    if (s.warmup || s.last) continue;
    const auto it = at.find(s.rank);
    if (it == at.end()) continue;
    out[it->second].steady.push_back({s.wall, s.gpu_busy, s.compute, s.communication, s.memory, s.idle});
  }
  return out;
}

DiffResult CombineDiff(const std::vector<DiffRank>& base, const std::vector<DiffRank>& neu) {
  DiffResult d;
  // Ranks with steady steps.
  std::map<int64_t, const DiffRank*> b_steady, n_steady;
  std::set<int64_t> b_ranks, n_ranks;
  for (const DiffRank& r : base) {
    b_ranks.insert(r.rank);
    if (!r.steady.empty()) b_steady[r.rank] = &r;
  }
  for (const DiffRank& r : neu) {
    n_ranks.insert(r.rank);
    if (!r.steady.empty()) n_steady[r.rank] = &r;
  }
  if (b_ranks.size() == 1 && n_ranks.size() == 1 && *b_ranks.begin() != *n_ranks.begin()) {
    // Two single-rank traces: compare them whatever their rank numbers.
    d.paired_base = *b_ranks.begin(), d.paired_new = *n_ranks.begin();
    if (auto it = n_steady.find(d.paired_new); it != n_steady.end()) {
      const DiffRank* r = it->second;
      n_steady.erase(it);
      n_steady[d.paired_base] = r;
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
    for (const auto& x : bi->second->steady) s.base.push_back(static_cast<double>(x[0]));
    for (const auto& x : ni->second->steady) s.neu.push_back(static_cast<double>(x[0]));
    s.base_median = Median(s.base);
    s.new_median = Median(s.neu);
    s.test = MannWhitneyU(s.base, s.neu);
    d.steps.push_back(std::move(s));
    for (size_t f = 0; f < 6; ++f)
      d.breakdown.push_back({r, kDiffMeasures[f], MedianOf(bi->second->steady, f), MedianOf(ni->second->steady, f)});
  }
  for (int64_t r : n_ranks)
    if (!b_ranks.count(r)) d.only_new.push_back(r);

  // Per GPU op name: (count, time per step), summed over ranks in rank order.
  auto ops_per_step = [](const std::vector<DiffRank>& side) {
    std::map<std::string, std::pair<int64_t, double>> out;
    for (const DiffRank& r : side)
      for (const DiffRank::Op& op : r.ops) {
        auto& [n, t] = out[op.name];
        n += op.count;
        t += op.time;
      }
    return out;
  };
  const auto b_ops = ops_per_step(base), n_ops = ops_per_step(neu);
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

DiffResult ComputeDiff(const ProfileView& base, const ProfileView& neu, const DiffOptions& o) {
  return CombineDiff(SummarizeDiffSide(base, o), SummarizeDiffSide(neu, o));
}

}  // namespace mlprof
