// Counters over time that HTA's TraceCounters and CuptiCounterAnalysis
// compute: memory bandwidth from memcpy / memset ops, and the CUPTI range
// profiler's per-kernel hardware counters. (The launch queue length is in
// analysis/launches.h.)
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/stats.h"
#include "model/profile.h"

namespace mlprof {

// HTA's memory kind of a memcpy / memset op, from its name (Kineto's and
// mlprof's nsys names): "Memset" for names starting so, the first 11
// characters ("Memcpy HtoD", "Memcpy DtoH", "Memcpy DtoD", "Memcpy PtoP",
// "Memcpy HtoH") for names starting "Memcpy", else "Memcpy Unknown".
std::string MemoryKindOf(std::string_view name);

// One memory kind's bandwidth series on a rank: at each memcpy / memset
// start +its bandwidth, at its end -it (bandwidth = bytes / duration, what
// Kineto writes as "memory bandwidth (GB/s)"; a 0-length op lasts 1 us, as
// HTA makes it), summed over the kind's ops in time order (ends before
// starts at equal times, and exactly 0 whenever none runs).
struct MemoryBwSeries {
  int64_t rank = 0;
  std::string kind;
  std::vector<std::pair<Ps, double>> points;  // (time, bytes per second)
};
std::vector<MemoryBwSeries> ComputeMemoryBwSeries(const Profile& profile);
// One rank's series (the Perfetto export's counter tracks).
std::vector<MemoryBwSeries> MemoryBwSeriesOf(const RankProfile& p, int64_t rank);

// HTA's get_memory_bw_summary: describe() of a series' values above 0, per
// rank and kind; with the ops, bytes and busy time behind it.
struct MemoryBwRow {
  int64_t rank = 0;
  std::string kind;
  int64_t ops = 0;
  int64_t bytes = 0;  // summed
  Ps time = 0;        // durations summed (0-length ops count 1 us)
  Describe bw;        // bytes per second, over the points > 0
};
std::vector<MemoryBwRow> ComputeMemoryBw(const Profile& profile);

// The CUPTI range profiler's output (`cuda_profiler_range` events, one per
// kernel, the counters in their args), each attributed as HTA attributes
// it: the i-th range (by start) to the i-th kernel launch call (by start)
// of the rank, and through that call to the cpu_ops around it (outermost
// first). HTA matches `cudaLaunchKernel*` calls only; mlprof takes every
// kernel launch call (cuLaunchKernel*, hipLaunchKernel,
// hipExtModuleLaunchKernel, cudaLaunchCooperativeKernel* too), which
// is the same on traces launched through the runtime. When the counts
// differ nothing is attributed (HTA gives up on the rank).
struct CuptiRange {
  uint32_t op = 0;                 // the range
  int32_t launch = -1;             // the launch call matched to it
  std::vector<uint32_t> op_stack;  // cpu_ops around the launch, outermost first
  std::vector<double> values;      // per metric (NaN: not in this range)
  double sass_flops = -1;          // from the SASS FLOP counters present (-1 none)
};
struct CuptiRanks {
  int64_t rank = 0;
  const RankProfile* profile = nullptr;
  std::vector<StringId> metrics;  // in first-seen order
  std::vector<CuptiRange> ranges;
  int64_t launches = 0;  // kernel launch calls on the rank
  bool attributed = false;
};
std::vector<CuptiRanks> ComputeCuptiRanges(const Profile& profile);

// HTA's CUDA_SASS_INSTRUCTION_COUNTER_FLOPS: the FLOPs one thread
// instruction counted by `smsp__sass_thread_inst_executed_op_<op>_pred_on.sum`
// does (2 for ffma, hfma, dfma; 1 for the add and mul counters); 0 for other
// metrics.
int SassFlopsPerInstruction(std::string_view metric);

// Per bottom-level op (name and shapes): the ranges' counters summed, beside
// the cost model's FLOPs of the op instances (op_cost.h) where it has one.
struct CuptiOpRow {
  int64_t rank = 0;
  std::string op;      // the bottom-level cpu_op ("" when unattributed)
  std::string shapes;  // its Input Dims
  int64_t instances = 0, ranges = 0;
  std::vector<double> values;  // per metric, summed
  double sass_flops = -1;
  double model_flops = -1;  // summed over the instances the model covers (-1 none)
  int64_t modelled = 0;     // instances the cost model covers
};
std::vector<CuptiOpRow> CuptiByOp(const CuptiRanks& r);

}  // namespace mlprof
