// What a profile holds, graded before anything is reported on it: how much
// of the GPU time is attributed to an op and how, GPU activity that is
// missing (launch calls with no GPU work, GPU work with no launch, flows
// that point nowhere), steps that could not be found, GPU ops that overlap
// on one stream. `mlprof info` shows every item; every command warns of the
// items that are warnings; summary, diagnose and the report put the grade
// first when one is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/attribution.h"
#include "model/import_stats.h"
#include "model/profile.h"

namespace mlprof {

//  X(id, what it checks)
#define MLPROF_GRADE_ITEMS(X)                                                                              \
  X(gpu_activity_lost, "launch calls whose GPU work the trace does not hold (CUPTI activity lost or off)") \
  X(gpu_ops_without_launch, "GPU ops whose launch call is not in the trace")                               \
  X(flows_unpaired, "launch-to-GPU flows with only one end")                                               \
  X(attribution, "the share of GPU time attributed to an op, and how")                                     \
  X(stream_overlap, "GPU ops that start before the previous op on their stream ends")                      \
  X(steps, "where the steps come from")                                                                    \
  X(device_lanes_unread, "processes named like device lanes whose events were read as host events")        \
  X(clock_skew, "GPU ops that start before the host call that launched them")

enum class GradeId : uint8_t {
#define MLPROF_X(id, what) id,
  MLPROF_GRADE_ITEMS(MLPROF_X)
#undef MLPROF_X
      kCount
};
const char* GradeIdName(GradeId id);

struct GradeItem {
  GradeId id = GradeId::kCount;
  Severity severity = Severity::kInfo;
  int64_t rank = 0;
  double value = 0;  // the measure behind it (a count, or a share in percent for attribution)
  std::string text;  // what it means, with its figures
};

// One rank's grade: every item that applies (a clean rank has the
// attribution and steps items only, as info).
std::vector<GradeItem> GradeRank(const RankProfile& p, int64_t rank);

// The lines every command warns of: the items of warning severity or worse.
std::vector<std::string> GradeWarnings(const std::vector<GradeItem>& items, const std::string& path);

}  // namespace mlprof
