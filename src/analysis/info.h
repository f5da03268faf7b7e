// What `mlprof info` reports of each rank's profile, as values: the time
// span of its ops, events by category (most first), tracks by kind, the
// devices with GPU streams, and ops per track.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "model/profile.h"

namespace mlprof {

struct RankInfo {
  const RankProfile* profile = nullptr;
  bool has_ops = false;
  Ps first = 0, last_end = 0;                             // over all ops, when has_ops
  std::vector<std::pair<uint64_t, StringId>> categories;  // (events, category), most first
  int64_t host_tracks = 0, gpu_streams = 0;
  int64_t gpus = 0;                    // distinct devices with a GPU stream
  std::vector<int64_t> ops_per_track;  // by track index
};
std::vector<RankInfo> SummarizeRanks(const Profile& p);

}  // namespace mlprof
