#include "analysis/launches.h"

#include <algorithm>

namespace mlprof {

std::vector<RankLaunchStats> ComputeLaunchStats(const ProfileView& view, const LaunchOptions& opt) {
  std::vector<RankLaunchStats> out;
  for (const RankView& rv : view.ranks) {
    const OpTable& o = rv.profile->ops;
    RankLaunchStats s;
    s.rank = rv.rank;
    std::vector<double> cpu, gpu, delay;
    for (const GpuOpRef& g : rv.gpu) {
      OpKind k = o.kind[g.op];
      if (k != OpKind::kKernel && k != OpKind::kMemcpy && k != OpKind::kMemset) continue;
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
      if (r.delay > opt.launch_delay_cutoff) s.delay_outliers++;
    }
    s.cpu_us = DescribeValues(std::move(cpu));
    s.gpu_us = DescribeValues(std::move(gpu));
    s.delay_us = DescribeValues(std::move(delay));
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace mlprof
