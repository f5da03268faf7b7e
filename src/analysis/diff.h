// What changed between two profiles (mlprof diff BASE NEW): per rank (ranks
// matched by number), the steady-state step time of each with a Mann-Whitney
// test over the per-step times, the step's breakdown side by side (medians
// over steady steps), and per GPU op name the count and time per step of
// each, new and vanished ones included.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "analysis/stats.h"
#include "analysis/view.h"

namespace mlprof {

struct StepDiff {
  int64_t rank = 0;
  std::vector<double> base, neu;  // steady-state step wall times, ps
  double base_median = 0, new_median = 0;
  MannWhitney test;
};

// Medians over the steady steps of one rank, ps.
struct BreakdownDiff {
  int64_t rank = 0;
  std::string measure;  // step_time, gpu_busy, compute, communication, memory, idle
  double base = 0, neu = 0;
};

// One GPU op name (kernel, memcpy, memset), over all ranks: executions, and
// time per step (each rank's total / its steps, summed over ranks; a rank
// without steps counts its trace as one step).
struct OpDiff {
  std::string name;
  int64_t base_count = 0, new_count = 0;
  double base_time = 0, new_time = 0;  // ps per step
};

struct DiffResult {
  std::vector<StepDiff> steps;
  std::vector<BreakdownDiff> breakdown;
  std::vector<OpDiff> ops;                   // by |new - base| descending, then name
  std::vector<int64_t> only_base, only_new;  // ranks on one side only
  // One rank on each side with different numbers (two single-rank traces):
  // compared with each other, reported under the base's number.
  int64_t paired_base = -1, paired_new = -1;
};

struct DiffOptions {
  int warmup = -1;  // steps left out of the steady state (-1: the steps' default)
};

// One side's rank, all that the diff needs of it: so that a side's ranks can
// be summarised on different processes (MPI) and combined.
struct DiffRank {
  int64_t rank = 0;
  bool whole_trace = false;  // no iterations found: its one step is the trace
  // Per steady step: wall, gpu_busy, compute, communication, memory, idle (ps).
  std::vector<std::array<Ps, 6>> steady;
  struct Op {
    std::string name;
    int64_t count = 0;
    double time = 0;  // ps per step: the rank's total / its steps
  };
  std::vector<Op> ops;  // GPU op names, each once
};
inline constexpr const char* kDiffMeasures[6] = {"step_time", "gpu_busy", "compute", "communication", "memory", "idle"};

// The view's ranks, in view order.
std::vector<DiffRank> SummarizeDiffSide(const ProfileView& v, const DiffOptions& o);
// The diff from both sides' ranks (each in rank order).
DiffResult CombineDiff(const std::vector<DiffRank>& base, const std::vector<DiffRank>& neu);
// CombineDiff of the two views' summaries.
DiffResult ComputeDiff(const ProfileView& base, const ProfileView& neu, const DiffOptions& o);

}  // namespace mlprof
