#include "analysis/gpu_time.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "analysis/stats.h"

namespace mlprof {

double Overlap::pct() const { return comm > 0 ? 100.0 * overlapped / comm : std::nan(""); }

namespace {

// The unions of each device of a rank that drives several (device ->
// unions); empty for a rank with one device.
std::map<int32_t, ClassUnions> PerDeviceUnions(const RankView& rv) {
  std::map<int32_t, std::vector<GpuOpRef>> by_device;
  for (const GpuOpRef& g : rv.gpu) by_device[rv.profile->tracks[g.track].device].push_back(g);
  std::map<int32_t, ClassUnions> out;
  if (by_device.size() < 2) return out;
  for (const auto& [device, ops] : by_device) out[device] = UnionsByClass(ops);  // ops keep rv.gpu's order
  return out;
}

TemporalBreakdown Temporal(int64_t rank, int32_t device, const ClassUnions& u) {
  TemporalBreakdown t;
  t.rank = rank, t.device = device;
  if (u.all.empty()) return t;
  t.kernel_time = u.all.back().end - u.all.front().start;
  t.idle = t.kernel_time - TotalLength(u.all);
  t.compute = TotalLength(u.by_class[static_cast<int>(KernelClass::kComputation)]);
  t.non_compute = t.kernel_time - t.compute - t.idle;
  t.communication = TotalLength(u.by_class[static_cast<int>(KernelClass::kCommunication)]);
  t.memory = TotalLength(u.by_class[static_cast<int>(KernelClass::kMemory)]);
  t.other = TotalLength(u.by_class[static_cast<int>(KernelClass::kOther)]);
  return t;
}

Overlap OverlapOf(int64_t rank, int32_t device, const ClassUnions& u) {
  Overlap o;
  o.rank = rank, o.device = device;
  const auto& comp = u.by_class[static_cast<int>(KernelClass::kComputation)];
  const auto& comm = u.by_class[static_cast<int>(KernelClass::kCommunication)];
  o.comm = TotalLength(comm);
  o.comp = TotalLength(comp);
  o.overlapped = IntersectionLength(comp, comm);
  return o;
}

}  // namespace

std::vector<TemporalBreakdown> ComputeTemporalBreakdown(const ProfileView& view) {
  std::vector<TemporalBreakdown> out;
  for (const RankView& rv : view.ranks) {
    for (const auto& [device, u] : PerDeviceUnions(rv)) out.push_back(Temporal(rv.rank, device, u));
    out.push_back(Temporal(rv.rank, -1, rv.unions));
  }
  return out;
}

std::vector<Overlap> ComputeOverlap(const ProfileView& view) {
  std::vector<Overlap> out;
  for (const RankView& rv : view.ranks) {
    for (const auto& [device, u] : PerDeviceUnions(rv)) out.push_back(OverlapOf(rv.rank, device, u));
    out.push_back(OverlapOf(rv.rank, -1, rv.unions));
  }
  return out;
}

std::string KernelTypeLabel(int mask) {
  static const char* kNames[] = {"COMPUTATION", "COMMUNICATION", "MEMORY"};
  std::string s;
  for (int b = 0; b < 3; ++b) {
    if (!(mask & (1 << b))) continue;
    if (!s.empty()) s += " overlapping ";
    s += kNames[b];
  }
  return s;
}

std::vector<KernelTypeShare> KernelTypeShares(const std::map<int, Ps>& by_mask) {
  std::vector<KernelTypeShare> out;
  Ps total = 0;
  for (auto& [m, t] : by_mask) total += t;
  for (auto& [m, t] : by_mask) {
    if (t == 0) continue;
    out.push_back({m, t, total > 0 ? 100.0 * t / total : 0.0});
  }
  std::sort(out.begin(), out.end(), [](const KernelTypeShare& a, const KernelTypeShare& b) { return a.time > b.time; });
  return out;
}

KernelBreakdown ComputeKernelBreakdown(const ProfileView& view, const KernelBreakdownOptions& opt) {
  KernelBreakdown out;
  // 1. Time by set of active kernel types: sweep over the per-type unions.
  std::map<int, Ps> by_mask;
  for (const RankView& rv : view.ranks) {
    const ClassUnions& u = rv.unions;
    struct Edge {
      Ps t;
      int delta;  // +bit or -bit
    };
    std::vector<Edge> edges;
    const int classes[3] = {static_cast<int>(KernelClass::kComputation), static_cast<int>(KernelClass::kCommunication),
                            static_cast<int>(KernelClass::kMemory)};
    for (int b = 0; b < 3; ++b) {
      if (b == 2 && !opt.include_memory) continue;
      for (const Interval& iv : u.by_class[classes[b]]) {
        // An op that ends before it starts (HTA's rounding of a sub-us op)
        // covers no time; its edges would leave the running mask negative.
        if (iv.end <= iv.start) continue;
        edges.push_back({iv.start, 1 << b});
        edges.push_back({iv.end, -(1 << b)});
      }
    }
    std::sort(edges.begin(), edges.end(),
              [](const Edge& a, const Edge& b) { return a.t != b.t ? a.t < b.t : a.delta < b.delta; });
    int mask = 0;
    for (size_t i = 0; i < edges.size(); ++i) {
      if (i > 0 && mask != 0 && edges[i].t > edges[i - 1].t) by_mask[mask] += edges[i].t - edges[i - 1].t;
      mask += edges[i].delta;
    }
  }
  out.types = KernelTypeShares(by_mask);

  // 2. Per-kernel statistics per (rank, class), top names plus "others".
  for (const RankView& rv : view.ranks) {
    const RankProfile& p = *rv.profile;
    struct Acc {
      int64_t count = 0;
      Ps sum = 0, min = INT64_MAX, max = INT64_MIN;
      double sumsq = 0;
      std::vector<Ps> durs;  // for the median
    };
    std::unordered_map<StringId, Acc> per_name[kKernelClassCount];
    for (const GpuOpRef& g : rv.gpu) {
      if (g.cls == KernelClass::kOther) continue;
      if (g.cls == KernelClass::kMemory && !opt.include_memory) continue;
      Acc& a = per_name[static_cast<int>(g.cls)][p.ops.name[g.op]];
      Ps d = g.end - g.ts;
      a.count++;
      a.sum += d;
      a.min = std::min(a.min, d);
      a.max = std::max(a.max, d);
      a.sumsq += static_cast<double>(d) * static_cast<double>(d);
      a.durs.push_back(d);
    }
    for (int c = 0; c < kKernelClassCount; ++c) {
      if (per_name[c].empty()) continue;
      std::vector<std::pair<StringId, Acc>> rows(per_name[c].begin(), per_name[c].end());
      std::sort(rows.begin(), rows.end(), [&p](const auto& a, const auto& b) {
        if (a.second.sum != b.second.sum) return a.second.sum > b.second.sum;
        return p.str(a.first) < p.str(b.first);
      });
      Ps class_total = 0;
      for (auto& r : rows) class_total += r.second.sum;
      // HTA's fold rule: with more names than `top`, a name goes to "others"
      // if its position >= top or the running sum passes the duration_ratio
      // quantile of the running sums.
      std::vector<bool> fold(rows.size(), false);
      if (static_cast<int>(rows.size()) > opt.top) {
        std::vector<double> cum;
        double run = 0;
        for (auto& r : rows) cum.push_back(run += static_cast<double>(r.second.sum));
        std::vector<double> sorted = cum;
        std::sort(sorted.begin(), sorted.end());
        double q = QuantileSorted(sorted, opt.duration_ratio);
        for (size_t i = 0; i < rows.size(); ++i) fold[i] = cum[i] > q || static_cast<int>(i) >= opt.top;
      }
      Acc others;
      int64_t others_names = 0;
      auto emit = [&](std::string name, Acc& a, int64_t names) {
        KernelStat k;
        k.rank = rv.rank;
        k.cls = static_cast<KernelClass>(c);
        k.name = std::move(name);
        k.count = a.count;
        k.names = names;
        k.sum = a.sum;
        k.min = a.min;
        k.max = a.max;
        k.mean = static_cast<double>(a.sum) / static_cast<double>(a.count);
        if (a.count > 1) {
          double var = (a.sumsq - static_cast<double>(a.count) * k.mean * k.mean) / static_cast<double>(a.count - 1);
          k.std = std::sqrt(std::max(0.0, var));
        }
        k.pct_of_class = class_total > 0 ? 100.0 * a.sum / class_total : 0.0;
        // The median (the mean of the middle two for an even count, as nsys
        // stats and numpy take it).
        if (!a.durs.empty()) {
          const size_t n = a.durs.size(), mid = n / 2;
          std::nth_element(a.durs.begin(), a.durs.begin() + static_cast<std::ptrdiff_t>(mid), a.durs.end());
          const double upper = static_cast<double>(a.durs[mid]);
          if (n % 2 == 1) {
            k.median = upper;
          } else {
            const Ps lower = *std::max_element(a.durs.begin(), a.durs.begin() + static_cast<std::ptrdiff_t>(mid));
            k.median = (static_cast<double>(lower) + upper) / 2;
          }
        }
        out.kernels.push_back(std::move(k));
      };
      for (size_t i = 0; i < rows.size(); ++i) {
        Acc& a = rows[i].second;
        if (!fold[i]) {
          emit(std::string(p.str(rows[i].first)), a, 1);
        } else {
          others.count += a.count;
          others.sum += a.sum;
          others.min = std::min(others.min, a.min);
          others.max = std::max(others.max, a.max);
          others.sumsq += a.sumsq;
          others.durs.insert(others.durs.end(), a.durs.begin(), a.durs.end());
          ++others_names;
        }
      }
      if (others_names > 0) emit("others", others, others_names);
    }
  }
  return out;
}

}  // namespace mlprof
