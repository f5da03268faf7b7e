// Kernel launch statistics (HTA get_cuda_kernel_launch_stats): for each GPU op
// launched by a host runtime/driver call: CPU duration of the call, GPU
// duration of the op, launch delay = max(0, gpu.ts - (cpu.ts + cpu.dur)).
// mlprof counts every launch API (cudaLaunchKernel, cuLaunchKernel for Triton,
// hipLaunchKernel, cudaMemcpyAsync, ...), where HTA lists a fixed set.
#pragma once

#include <vector>

#include "analysis/stats.h"
#include "analysis/view.h"

namespace mlprof {

struct LaunchOptions {
  Ps runtime_cutoff = 50 * kPsPerUs;        // HTA runtime_cutoff
  Ps launch_delay_cutoff = 100 * kPsPerUs;  // HTA launch_delay_cutoff
};

struct LaunchRecord {
  uint32_t gpu_op;
  uint32_t launch_op;
  Ps cpu_dur, gpu_dur, delay;
};

struct RankLaunchStats {
  int64_t rank = 0;
  std::vector<LaunchRecord> launches;
  Describe cpu_us, gpu_us, delay_us;
  int64_t short_kernels = 0;     // gpu_dur < cpu_dur and cpu_dur <= runtime_cutoff
  int64_t runtime_outliers = 0;  // cpu_dur > runtime_cutoff
  int64_t delay_outliers = 0;    // delay > launch_delay_cutoff
  int64_t unlinked_gpu_ops = 0;  // GPU ops with no host launch found
};

std::vector<RankLaunchStats> ComputeLaunchStats(const ProfileView& view, const LaunchOptions& opt);

}  // namespace mlprof
