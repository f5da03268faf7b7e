// The critical path of a window of one rank's trace (HTA's
// critical_path_analysis, as its code and tests define it): a graph of the
// window's CPU ops, runtime calls and GPU work, and its longest path.
//
// Nodes: a start and an end per cpu_op, CUDA runtime / driver call and GPU op
// (kernel, memcpy, memset) whose launch call is in the window. Edges, in
// HTA's order (the order breaks ties between equally long paths):
//  - the CUDA runtime lock: cudaLaunchKernel / cudaMemcpyAsync /
//    cudaHostAlloc calls serialise across threads;
//  - each thread's call stack: parent start -> first child -> ... -> parent
//    end, the gaps between siblings counted (to the parent), the gaps
//    between top-level ops not (weight 0);
//  - each GPU op: its own duration; a launch-delay edge from its call's
//    start when it waited for the call (the stream's queue was empty),
//    else a kernel-kernel edge from the previous op on the stream (gaps
//    under 1500 us);
//  - synchronisation: Stream / Context Sync from the last op on the
//    stream(s) to the sync call's end, Event Sync from the event's kernel,
//    and cudaStreamWaitEvent from the event's kernel to the next kernel
//    launched on the waiting stream.
// The longest path is networkx's dag_longest_path (its tie-breaks).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/profile.h"

namespace mlprof {

enum class CpEdgeType : uint8_t { kOperator, kDependency, kLaunchDelay, kKernelKernel, kSync };
// HTA's type strings ("critical_path_operator", ...).
const char* CpEdgeTypeName(CpEdgeType t);

// What bounds a stretch of the path (HTA's bound_by, with GPU memory split
// out of GPU compute).
enum class CpBound : uint8_t { kCpu, kGpuCompute, kGpuCommunication, kGpuMemory, kKernelKernel, kLaunch, kWait };
const char* CpBoundName(CpBound b);  // "cpu_bound", ..., "dependency" for kWait
inline constexpr int kCpBoundCount = 7;

struct CpOptions {
  // The window: the instances [first, last] (0-based, in file order) of the
  // events whose name contains `annotation`; the whole trace when empty.
  std::string annotation;
  bool exact = false;  // names equal to `annotation` (a ProfilerStep#N) rather than containing it
  int64_t first = 0, last = 0;
  // Or a time window [from, to) when to > from (a step found without
  // ProfilerStep#N: model/steps.h), shown as `label`.
  Ps from = 0, to = 0;
  std::string label;
  // HTA's CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE: a weight-0 edge from
  // every launch call to its GPU op (HTA's tests set it; its end-to-end
  // output was made without).
  bool zero_weight_launch_edges = false;
  Ps max_kernel_gap = 1500 * kPsPerUs;  // longer gaps on a stream get no edge
};

struct CpNode {
  uint32_t op = 0;
  Ps ts = 0;
  bool start = true;
};

struct CpEdge {
  uint32_t from = 0, to = 0;  // node ids
  CpEdgeType type = CpEdgeType::kOperator;
  Ps weight = 0;
  int32_t op = -1;  // the op an operator / kernel-kernel edge is attributed to (-1 none)
};

struct CriticalPath {
  int64_t rank = 0;
  std::string window;  // "ProfilerStep#5", "whole trace", ...
  Ps start = 0, end = 0;
  std::vector<CpNode> nodes;         // by (ts, file order)
  std::vector<CpEdge> edges;         // in insertion order
  std::vector<uint32_t> path;        // node ids, first to last
  std::vector<uint32_t> path_edges;  // edge ids along the path
  Ps length = 0;
  std::vector<uint32_t> critical_ops;  // ops with a node on the path, by index
  // The path's time by bound (edge weights; negative ones count 0).
  Ps by_bound[kCpBoundCount] = {};
  int64_t edges_by_bound[kCpBoundCount] = {};
  // Per node: the longest path from any source to it and from it to any
  // sink, for the slack of ops off the path (length - to - from).
  std::vector<Ps> to, from;
};

// The bound of an edge (HTA's bound_by: operator edges by the op they are
// attributed to: CPU when on a host thread, else communication for NCCL /
// gloo kernels, memory for memcpy / memset, compute otherwise).
CpBound BoundOf(const RankProfile& p, const CpEdge& e);

// One window. Fails (a message) when the annotation or instance is not in
// the trace or the window holds no GPU or CPU op.
struct CpResult {
  CriticalPath path;
  std::string error;
};
CpResult ComputeCriticalPath(const RankProfile& p, int64_t rank, const CpOptions& o);

// Several windows of one rank, sharing the work every window needs (the
// events in file order, correlations, queue lengths, sync lookups).
std::vector<CpResult> ComputeCriticalPaths(const RankProfile& p, int64_t rank, const std::vector<CpOptions>& windows);

// The windows mlprof takes by default: every ProfilerStep but the last (as
// HTA loads traces), at most the last kMaxDefaultWindows of them (the steady
// state; each window costs a pass over the rank), or the whole trace when
// there are fewer than two steps. Without ProfilerStep#N, the rank's steps
// from elsewhere (serving, optimizer, annotated or repeated iterations; the
// last left out only for serving steps, which the engine marked) as time
// windows, so critical-path measures the steps every command uses.
inline constexpr size_t kMaxDefaultWindows = 8;
std::vector<CpOptions> DefaultCpWindows(const RankProfile& p);

// What-if: edge weights scaled by `scale` per edge (1 = as measured), the
// longest path recomputed over the same graph. Returns its length and the
// path's time by bound.
struct CpWhatIf {
  Ps length = 0;
  Ps by_bound[kCpBoundCount] = {};
};
CpWhatIf RecomputeCriticalPath(const RankProfile& p, const CriticalPath& cp, const std::vector<double>& scale);

}  // namespace mlprof
