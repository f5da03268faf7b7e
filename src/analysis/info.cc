#include "analysis/info.h"

#include <algorithm>

namespace mlprof {

std::vector<RankInfo> SummarizeRanks(const Profile& p) {
  std::vector<RankInfo> out;
  for (const auto& r : p.ranks) {
    RankInfo info;
    info.profile = &r;
    Ps lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < r.ops.size(); ++i) lo = std::min(lo, r.ops.ts[i]), hi = std::max(hi, r.ops.end(i));
    info.has_ops = r.ops.size() > 0;
    if (info.has_ops) info.first = lo, info.last_end = hi;
    for (size_t id = 0; id < r.cat_counts.size(); ++id)
      if (r.cat_counts[id]) info.categories.emplace_back(r.cat_counts[id], static_cast<StringId>(id));
    std::sort(info.categories.rbegin(), info.categories.rend());
    std::vector<int32_t> devs;
    for (const auto& tr : r.tracks) {
      if (tr.kind == TrackKind::kGpuStream) {
        ++info.gpu_streams;
        if (std::find(devs.begin(), devs.end(), tr.device) == devs.end()) devs.push_back(tr.device);
      } else {
        ++info.host_tracks;
      }
    }
    info.gpus = static_cast<int64_t>(devs.size());
    info.ops_per_track.assign(r.tracks.size(), 0);
    for (size_t i = 0; i < r.ops.size(); ++i) info.ops_per_track[r.ops.track[i]]++;
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace mlprof
