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
  int64_t delay_outliers = 0;    // delay > launch_delay_cutoff (HTA's count)
  // Of delay_outliers: the op waited behind earlier work on its stream
  // (that work ended within the cutoff of its start: the host ran ahead of
  // a busy GPU, which is healthy) ...
  int64_t delay_queued = 0;
  // ... or started more than the cutoff after both the call's end and its
  // stream's earlier work (the stream idle: cross-stream waits, a slow
  // driver, a descheduled launch thread).
  int64_t delay_late = 0;
  int64_t unlinked_gpu_ops = 0;  // GPU ops with no host launch found
};

std::vector<RankLaunchStats> ComputeLaunchStats(const ProfileView& view, const LaunchOptions& opt);

// HTA's queue length (TraceCounters.get_queue_length_*): per stream, the
// work submitted and not yet started: +1 at each launch call (HTA's list:
// cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel, cuLaunchKernelEx,
// cudaMemcpyAsync, cudaMemsetAsync, hipLaunchKernel, hipExtModuleLaunchKernel,
// hipMemcpyAsync, hipMemsetAsync, hipMemcpyWithStream) whose GPU op is on
// the stream, -1 when that op starts (HTA takes the op's start, not its
// end); the series in time order (a call before an op start at the same
// time), over the whole trace. Summary as pandas' describe() of the series'
// values (count, mean, sample std, min, quartiles, max), and the time the
// queue held `max_queue` or more (HTA's time blocked on a full queue: CUDA
// queues 1024 launches per stream) with its share of the rank's trace
// duration.
struct QueueLengthRow {
  int64_t rank = 0;
  int32_t device = -1;
  int64_t stream = -1;
  Describe length;
  Ps at_max = 0;          // time with the queue at max_queue or more
  double at_max_pct = 0;  // of the rank's trace duration
};
std::vector<QueueLengthRow> ComputeQueueLength(const Profile& profile, int64_t max_queue = 1024);
// One rank's queue length per stream as a series (the Perfetto export's
// counter tracks).
struct QueueSeries {
  int32_t device = -1;
  int64_t stream = -1;
  std::vector<std::pair<Ps, int64_t>> points;
};
std::vector<QueueSeries> QueueLengthSeriesOf(const RankProfile& p);

}  // namespace mlprof
