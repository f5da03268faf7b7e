#include "analysis/launches.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace mlprof {

std::vector<RankLaunchStats> ComputeLaunchStats(const ProfileView& view, const LaunchOptions& opt) {
  std::vector<RankLaunchStats> out;
  for (const RankView& rv : view.ranks) {
    const OpTable& o = rv.profile->ops;
    RankLaunchStats s;
    s.rank = rv.rank;
    std::vector<double> cpu, gpu, delay;
    // The latest end of the earlier GPU ops of each stream (rv.gpu is in
    // start order): an op launched while its stream still runs earlier work
    // waits in the queue, whatever the launch path.
    std::unordered_map<uint32_t, Ps> stream_busy_until;
    for (const GpuOpRef& g : rv.gpu) {
      OpKind k = o.kind[g.op];
      if (k != OpKind::kKernel && k != OpKind::kMemcpy && k != OpKind::kMemset) continue;
      Ps& busy = stream_busy_until.try_emplace(g.track, std::numeric_limits<Ps>::min()).first->second;
      const Ps prev_end = busy;
      busy = std::max(busy, g.end);
      int32_t l = o.launch[g.op];
      if (l < 0 || !IsLaunchOp(o.kind[l])) {
        s.unlinked_gpu_ops++;
        continue;
      }
      auto lop = static_cast<uint32_t>(l);
      Ps cpu_ts = rv.Ts(lop), cpu_end = rv.End(lop);
      LaunchRecord r{g.op, lop, cpu_end - cpu_ts, g.end - g.ts, std::max<Ps>(0, g.ts - cpu_end)};
      s.launches.push_back(r);
      cpu.push_back(PsToUs(r.cpu_dur));
      gpu.push_back(PsToUs(r.gpu_dur));
      delay.push_back(PsToUs(r.delay));
      if (r.gpu_dur < r.cpu_dur && r.cpu_dur <= opt.runtime_cutoff) s.short_kernels++;
      if (r.cpu_dur > opt.runtime_cutoff) s.runtime_outliers++;
      if (r.delay > opt.launch_delay_cutoff) {
        s.delay_outliers++;
        // Late beyond the queue: from the later of the call's end and the
        // stream's earlier work's end.
        if (g.ts - std::max(cpu_end, prev_end) > opt.launch_delay_cutoff)
          s.delay_late++;
        else
          s.delay_queued++;
      }
    }
    s.cpu_us = DescribeValues(std::move(cpu));
    s.gpu_us = DescribeValues(std::move(gpu));
    s.delay_us = DescribeValues(std::move(delay));
    out.push_back(std::move(s));
  }
  return out;
}

namespace {

// Per GPU track: the queue's (time, +1 call / -1 op start) edges in the
// order described (calls first at equal times); the rank's first and last
// times.
std::map<uint32_t, std::vector<std::pair<Ps, int>>> QueueEdges(const RankProfile& p, Ps* first_out, Ps* last_out) {
  static constexpr std::string_view kLaunches[] = {"cudaLaunchKernel", "cudaLaunchKernelExC",      "cuLaunchKernel",
                                                   "cuLaunchKernelEx", "cudaMemcpyAsync",          "cudaMemsetAsync",
                                                   "hipLaunchKernel",  "hipExtModuleLaunchKernel", "hipMemcpyAsync",
                                                   "hipMemsetAsync",   "hipMemcpyWithStream"};
  const OpTable& o = p.ops;
  auto launch_name = [&](StringId id) {
    const std::string_view n = p.str(id);
    for (std::string_view l : kLaunches)
      if (n == l) return true;
    return false;
  };
  std::unordered_map<StringId, bool> name_ok;
  // Per track: (ts, +1 call / -1 op start), in the order described.
  std::map<uint32_t, std::vector<std::pair<Ps, int>>> events;
  Ps first = INT64_MAX, last = INT64_MIN;
  for (size_t i = 0; i < o.size(); ++i) {
    first = std::min(first, o.ts[i]);
    last = std::max(last, o.end(i));
    if (!IsGpuOp(o.kind[i]) || o.launch[i] < 0) continue;
    const size_t l = static_cast<size_t>(o.launch[i]);
    auto [it, fresh] = name_ok.try_emplace(o.name[l], false);
    if (fresh) it->second = launch_name(o.name[l]);
    if (!it->second) continue;
    auto& v = events[o.track[i]];
    v.emplace_back(o.ts[l], +1);
    v.emplace_back(o.ts[i], -1);
  }
  for (auto& [track, v] : events)
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
  *first_out = first;
  *last_out = last;
  return events;
}

}  // namespace

std::vector<QueueSeries> QueueLengthSeriesOf(const RankProfile& p) {
  Ps first = 0, last = 0;
  std::vector<QueueSeries> out;
  for (const auto& [track, v] : QueueEdges(p, &first, &last)) {
    QueueSeries s;
    s.device = p.tracks[track].device;
    s.stream = p.tracks[track].stream;
    int64_t q = 0;
    for (const auto& [ts, d] : v) s.points.emplace_back(ts, q += d);
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<QueueLengthRow> ComputeQueueLength(const Profile& profile, int64_t max_queue) {
  std::vector<QueueLengthRow> out;
  for (size_t ri = 0; ri < profile.ranks.size(); ++ri) {
    const RankProfile& p = profile.ranks[ri];
    Ps first = 0, last = 0;
    auto events = QueueEdges(p, &first, &last);
    const Ps duration = last > first ? last - first : 0;
    for (auto& [track, v] : events) {
      QueueLengthRow r;
      r.rank = p.rank_or(static_cast<int64_t>(ri));
      r.device = p.tracks[track].device;
      r.stream = p.tracks[track].stream;
      std::vector<double> values;
      values.reserve(v.size());
      int64_t q = 0;
      for (size_t k = 0; k < v.size(); ++k) {
        q += v[k].second;
        values.push_back(static_cast<double>(q));
        if (q >= max_queue && k + 1 < v.size()) r.at_max += v[k + 1].first - v[k].first;
      }
      r.length = DescribeValues(std::move(values));
      r.at_max_pct = duration > 0 ? 100.0 * static_cast<double>(r.at_max) / static_cast<double>(duration) : 0;
      out.push_back(std::move(r));
    }
  }
  std::sort(out.begin(), out.end(), [](const QueueLengthRow& a, const QueueLengthRow& b) {
    return std::tie(a.rank, a.device, a.stream) < std::tie(b.rank, b.device, b.stream);
  });
  return out;
}

}  // namespace mlprof
