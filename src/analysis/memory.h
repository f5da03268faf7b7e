// Memory over time from PyTorch's allocator events (Kineto `[memory]`
// instant events, profile_memory=True): per rank and device, in time order
// (ties in file order), each event's Bytes (+ allocated, - freed) and, in
// traces since 2022, the allocator's own Total Allocated / Total Reserved
// after it and the block's Addr.
//
// Per device: events, allocations and frees and their bytes; the peak of
// Total Allocated and Total Reserved and when (and in which step); the peak
// of the running sum of Bytes from the first event (`peak_net`: what the
// profiled window itself added, defined for old traces without totals);
// the bytes allocated before the first event (Total Allocated at the first
// event that has it, less the window's Bytes up to it). Byte counts over
// 2^50 or not numbers are skipped and counted. Check: the running sum from
// there must equal Total
// Allocated at every event; an event where it does not is a `mismatch`
// (events lost or out of order) and the sum restarts from the trace's total.
//
// Attribution: an event belongs to the cpu_ops enclosing it on its thread
// (ProfilerStep#N, a cpu_op in 2021 traces, left out):
// `op` the outermost (what the program called: aten::linear,
// Optimizer.step), `inner` the innermost (aten::empty_strided, ...).
// Alive at the peak: the blocks allocated (by Addr) and not freed when Total
// Allocated peaked, grouped by op; what the trace cannot place (allocated
// before it started) is `before_trace`. Allocators: every allocation in the
// window, grouped by op. Events that name their op ("Op Name": torch_npu's
// operator_memory.csv, io/ascend_files.h) are attributed to it.
#pragma once

#include <string>
#include <vector>

#include "model/profile.h"

namespace mlprof {

struct MemorySite {
  std::string op, inner;  // inner: the most common innermost op of the group
  int64_t count = 0;
  int64_t bytes = 0;
};

struct DeviceMemory {
  int64_t rank = 0;
  std::string device;  // "cuda:0", "cpu", "hip:0", "type 9:0"
  int64_t events = 0, allocs = 0, frees = 0;
  int64_t allocated_bytes = 0, freed_bytes = 0;  // sums of Bytes > 0 and of -Bytes < 0
  bool has_totals = false;                       // the events carry Total Allocated
  int64_t before_trace = -1;                     // Total Allocated - Bytes at the first event
  int64_t peak = -1, peak_reserved = -1;         // max Total Allocated / Reserved
  Ps peak_ts = 0, peak_reserved_ts = 0;          // first time each was reached
  int64_t peak_step = -1;                        // the step holding peak_ts (-1 none)
  int64_t end_allocated = -1;                    // Total Allocated after the last event
  int64_t peak_net = 0;                          // max running sum of Bytes from 0
  Ps peak_net_ts = 0;
  bool op_file = false;    // events read from a per-op file (torch_npu's operator_memory.csv), which lists
                           // the allocations ops made, not every allocation
  int64_t skipped = 0;     // the rank's memory events without a usable Bytes (over 2^50, text)
  int64_t mismatches = 0;  // events where the running sum != Total Allocated
  Ps first_mismatch_ts = -1;
  int64_t alive_known = 0;                // bytes alive at the peak that the trace allocated
  std::vector<MemorySite> alive_at_peak;  // by bytes, largest first
  std::vector<MemorySite> allocators;     // by bytes, largest first
  // Total Allocated (else the running sum) after each event, for tracks and
  // charts.
  std::vector<std::pair<Ps, int64_t>> series;
};

std::vector<DeviceMemory> ComputeMemory(const Profile& profile);

// Memory by category over time (torch.profiler's memory timeline, read as
// counters "memory by category" per category and "Total": io/memory_timeline.h):
// the peak of the total and when, each category's bytes at that moment, its
// own largest and its last value.
struct CategoryMemory {
  int64_t rank = 0;
  int64_t peak = 0;
  Ps peak_ts = 0;
  struct Category {
    std::string name;
    int64_t at_peak = 0, max = 0, end = 0;
  };
  std::vector<Category> categories;  // in the file's order, "Total" left out
};
std::vector<CategoryMemory> ComputeMemoryCategories(const Profile& profile);

}  // namespace mlprof
