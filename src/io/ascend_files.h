// torch_npu's output folders (`<name>_ascend_pt/`, holding
// `ASCEND_PROFILER_OUTPUT/` and `profiler_info_<rank>.json`): where the trace
// is, and what the files beside it add to the trace's ops.
//
// Beside trace_view.json, read when present (each named in
// RankProfile::sidecars; a file that cannot be used is named with the reason
// in RankProfile::sidecar_warnings and the rest is kept):
// * ../profiler_info_<R>.json: the rank (rank_id).
// * kernel_details.csv: each row is joined to its kernel on the trace (same
//   name, start within 1 ns, same stream where the row names one; each
//   kernel once; HCCL rows to the communication op) and gives it args: "OP
//   Type", "Accelerator Core", "Input Shapes", "Input Data Types",
//   "Output Shapes", "Block Dim", and every PMU column (aic_mac_ratio,
//   aiv_vec_time(us), cube_utilization(%) ...) as a real number.
// * communication.json: HCCL's times of each op (elapse, transit, wait,
//   synchronization, idle) as RankProfile::comm_ops, joined to the op of
//   that name and start, and its per-transport totals as links.
// * communication_matrix.json: bytes, time and bandwidth per link between
//   two ranks, as RankProfile::links.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/file_loader.h"
#include "base/status.h"
#include "io/read_options.h"
#include "model/builder.h"

namespace mlprof {

// The traces of the torch_npu runs at or under `dir`: `dir` itself being an
// ASCEND_PROFILER_OUTPUT folder, a run folder holding one, or a folder of run
// folders (one per rank). Empty when `dir` is none of these. A run whose
// ASCEND_PROFILER_OUTPUT has no trace_view.json is named in `missing`.
std::vector<std::string> AscendTraceFiles(const std::string& dir, std::vector<std::string>* missing);

// torch_npu's kernel_details.csv read as a trace of its own (a run folder
// whose trace_view.json is missing, or the CSV alone): each row a kernel on
// its stream, HCCL rows on communication streams, the row's fields as args
// (as above); beside it, the run's rank and communication files as for a
// trace. Format "ascend-kernel-details". No host side, so no launches or
// steps.
bool LooksLikeAscendKernelDetails(std::string_view bytes);
Status ReadAscendKernelDetails(LoadedFile& file, const ReadOptions& options, RankProfile* out);

// A time in ms from torch_npu's files as ps, or -1 when it is not one
// (negative, not finite, or over 10^9 ms = 11.6 days: no op lasts that long,
// and more would overflow ps).
Ps AscendMsToPs(double ms);
// "step50" -> 50 (-1 otherwise).
int64_t AscendStep(std::string_view key);

// The op on the trace a communication op of torch_npu's files stands for:
// the kernel of that name starting nearest its start (an epoch-us double,
// so to about 0.25 us), within 2 us or the op's elapse time, whichever is
// longer (analysis.db starts an op at its first task). Build it after the
// trace's ops.
class CommOpJoin {
 public:
  explicit CommOpJoin(const ProfileBuilder& b);
  // Sets c->start (as the partial profile holds times) and c->op (-1: none).
  bool Join(const ProfileBuilder& b, double start_us, CommOpStat* c) const;

 private:
  const RankProfile& p_;
  std::unordered_multimap<std::string_view, uint32_t> by_name_;
};

// One allocation an op made, as torch_npu lists them (operator_memory.csv,
// OP_MEMORY): bytes, device, allocation and release time (absolute), the
// allocator's totals after each (-1: not given).
struct NpuAllocation {
  StringId op = 0;
  int64_t bytes = 0, device = 0, addr = 0;
  Ps128 alloc_ts = 0, release_ts = 0;
  bool has_release = false;
  int64_t alloc_total = -1, alloc_reserved = -1, release_total = -1, release_reserved = -1;
  uint64_t offset = 0;
};
// Adds allocations as the allocator events a Kineto trace records ([memory]
// instants with Bytes, Total Allocated, Total Reserved, Device Type 20 =
// PrivateUse1, Addr, and "Op Name"), on a track of their own, so that
// `mlprof memory` reads them as it reads Kineto's.
class NpuMemoryEvents {
 public:
  explicit NpuMemoryEvents(ProfileBuilder& b);
  void Add(const NpuAllocation& a);
  size_t events() const { return events_; }

 private:
  ProfileBuilder& b_;
  StringId memory_, cat_, bytes_, total_, reserved_, type_, id_, addr_, op_;
  size_t events_ = 0;
};

// Reads the files beside `trace_path` (see above) into the builder of its
// trace, after AdoptAscendConventions. Nothing when there are none.
void ReadAscendSidecars(const std::string& trace_path, ProfileBuilder& b);

}  // namespace mlprof
