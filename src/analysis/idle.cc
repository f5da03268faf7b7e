#include "analysis/idle.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace mlprof {

const char* IdleCategoryName(IdleCategory c) {
  switch (c) {
    case IdleCategory::kHostWait:
      return "host_wait";
    case IdleCategory::kKernelWait:
      return "kernel_wait";
    case IdleCategory::kOther:
      return "other";
  }
  return "?";
}

double StreamIdle::ratio(IdleCategory c) const {
  Ps t = total();
  return t != 0 ? static_cast<double>(idle[static_cast<int>(c)]) / static_cast<double>(t) : std::nan("");
}

std::vector<StreamIdle> ComputeIdleBreakdown(const ProfileView& view, const IdleOptions& opt) {
  std::vector<StreamIdle> out;
  for (const RankView& rv : view.ranks) {
    const RankProfile& p = *rv.profile;
    std::map<uint32_t, std::vector<const GpuOpRef*>> by_track;
    for (const GpuOpRef& g : rv.gpu) {
      OpKind k = p.ops.kind[g.op];
      if (k == OpKind::kKernel || k == OpKind::kMemcpy || k == OpKind::kMemset || k == OpKind::kOtherGpu)
        by_track[g.track].push_back(&g);
    }
    for (auto& [track, ops] : by_track) {
      StreamIdle s;
      s.rank = rv.rank;
      s.device = p.tracks[track].device;
      s.stream = p.tracks[track].stream;
      // rv.gpu is sorted by (ts, end), so each stream's list is too.
      for (size_t i = 1; i < ops.size(); ++i) {
        Ps prev_end = ops[i - 1]->end;
        Ps gap = ops[i]->ts - prev_end;
        int32_t launch = p.ops.launch[ops[i]->op];
        IdleCategory c;
        if (launch >= 0 && rv.Ts(static_cast<uint32_t>(launch)) > prev_end)
          c = IdleCategory::kHostWait;
        else if (gap < opt.kernel_wait_threshold)
          c = IdleCategory::kKernelWait;
        else
          c = IdleCategory::kOther;
        s.idle[static_cast<int>(c)] += gap;
        s.gaps_us[static_cast<int>(c)].push_back(PsToUs(gap));
      }
      out.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace mlprof
