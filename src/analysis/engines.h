// How busy each engine was: per rank, every track that does device work (a
// GPU stream, an XLA line such as "XLA Ops" of a TPU core, a DMA or copy
// engine) and every host thread that launches it. For each: busy time (the
// union of its ops), idle = the rank's window - busy, utilisation = busy /
// window, where the window runs from the rank's first op start to its last
// op end (the profiler's envelope span left out); the bytes its copies and fills moved, and their bandwidth (bytes /
// the time those ops ran); compute time (COMPUTATION kernels and XLA ops
// that are not transfers) and transfer time (copies, fills, collectives).
// An overall row per rank: the union over its device tracks.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/intervals.h"
#include "analysis/view.h"

namespace mlprof {

struct EngineRow {
  int64_t rank = 0;
  std::string engine;  // "GPU 0 stream 7", "/device:TPU:0 XLA Ops", "thread 1234 (launches)", "all devices"
  std::string kind;    // "stream" (GPU), "device" (an XLA line, a DMA engine), "host" (launches), "all"
  int64_t ops = 0;
  Ps window = 0, busy = 0;
  Ps compute = 0, transfer = 0;  // device tracks only
  int64_t bytes = -1;            // copied/filled bytes (-1: none recorded)
  Ps bytes_time = 0;             // time of the ops with bytes
  // With a timeline: the fraction of each bin the engine was busy (0 to 1).
  std::vector<float> busy_bins;
  double utilisation() const { return window > 0 ? static_cast<double>(busy) / static_cast<double>(window) : 0; }
  Ps idle() const { return window - busy; }
};

// A busy timeline for every engine: `bins` equal bins over one window, from
// the first op start to the last op end over all ranks (one clock), so rows
// of different ranks line up. ComputeEngines sets start and end.
struct EngineTimeline {
  int bins = 0;
  Ps start = 0, end = 0;
  bool given = false;  // start and end set by the caller (the whole job's, under MPI)
};
// The window the timeline bins: the first kept op's start to the last one's
// end over the view's ranks (not the profiler's envelope span); first > last
// when there is none.
std::pair<Ps, Ps> EngineWindow(const ProfileView& view);

std::vector<EngineRow> ComputeEngines(const ProfileView& view, EngineTimeline* timeline = nullptr);

// The hardware units inside the kernels, where the profile carries per-kernel
// counters (Ascend's PMU columns: the share of a kernel's time each unit was
// busy, e.g. aic_mac_ratio = the cube unit, aic_scalar_ratio, aic_mte2_ratio
// = loads from global memory, aiv_vec_ratio = the vector unit): every
// kernel arg whose name ends in "_ratio", per rank and (op type, core
// type), each ratio averaged over the group's kernels weighted by their
// durations (kernels without that counter left out of its average). Groups
// by time, largest first; an "all" row per rank and core type.
struct UnitRow {
  int64_t rank = 0;
  std::string op_type, core;  // op_type "all": every kernel of the core type
  int64_t kernels = 0;
  Ps time = 0;
  std::vector<double> ratios;  // per UnitReport::units; -1: none of the group's kernels has it
};
struct UnitReport {
  std::vector<std::string> units;  // counter names, in first-seen order
  std::vector<UnitRow> rows;
};
UnitReport ComputeUnitUtilisation(const Profile& profile);

// Device counters sampled over time (nsys GPU metrics: SMs Active, Tensor
// Active, DRAM bandwidth ..., on a GPU's counter track named "GPU metrics"):
// per rank, device and metric, the samples' count, mean and max over the
// trace; and aligned to kernels: for the `top` kernel names with the most
// time on that device (0: all), the mean of the samples taken while one of
// them ran (start <= sample < end).
struct MetricRow {
  int64_t rank = 0;
  int32_t device = -1;
  std::string metric;
  std::string kernel;  // empty: the whole trace
  int64_t samples = 0;
  double mean = 0, max = 0;
  Ps kernel_time = 0;  // kernel rows: the kernel's total time on the device
};
std::vector<MetricRow> ComputeGpuMetrics(const Profile& profile, int top);

// Adds the part of each of `busy` (sorted, disjoint) that falls in each of
// `bins.size()` equal bins of [start, end) to that bin, as a fraction of the
// bin's length.
void AddToBins(const std::vector<Interval>& busy, Ps start, Ps end, std::vector<float>& bins);

}  // namespace mlprof
