// Idle time per GPU stream, HTA's definition (get_idle_time_breakdown): ops
// (kernels, memcpy, memset) on one stream sorted by start; the gap before op i
// is ts_i - end_{i-1} (may be negative when ops overlap on a stream). A gap is
//   host_wait   if op i was launched on the host after op i-1 had finished,
//   kernel_wait if the gap is under `kernel_wait_threshold` (HTA: 30 us),
//   other       otherwise (waiting on events, other streams, syncs).
#pragma once

#include <vector>

#include "analysis/stats.h"
#include "analysis/view.h"

namespace mlprof {

enum class IdleCategory : uint8_t { kHostWait, kKernelWait, kOther };
const char* IdleCategoryName(IdleCategory c);

struct StreamIdle {
  int64_t rank = 0;
  int32_t device = -1;
  int64_t stream = -1;
  Ps idle[3] = {0, 0, 0};          // by IdleCategory
  std::vector<double> gaps_us[3];  // each gap, for interval statistics
  Ps total() const { return idle[0] + idle[1] + idle[2]; }
  double ratio(IdleCategory c) const;  // NaN when total is 0
  Describe Stats(IdleCategory c) const { return DescribeValues(gaps_us[static_cast<int>(c)]); }
};

struct IdleOptions {
  Ps kernel_wait_threshold = 30 * kPsPerUs;
};

std::vector<StreamIdle> ComputeIdleBreakdown(const ProfileView& view, const IdleOptions& opt);

}  // namespace mlprof
