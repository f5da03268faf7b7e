// The critical path (analysis/critical_path.h) against HTA's own tests and
// expected output on its corpus traces, and hand-made traces.
#include "analysis/critical_path.h"

#include <gtest/gtest.h>

#include <map>

#include "../../tests/corpus_util.h"
#include "../../tests/test_util.h"
#include "io/load.h"

namespace mlprof {
namespace {

struct CpCounts {
  size_t nodes = 0, ops = 0;
  Ps length = 0;
  std::map<CpEdgeType, int> types;
};

CpCounts RunCp(const std::string& rel, const std::string& annotation, int64_t instance, bool zero_launch,
               CriticalPath* out = nullptr) {
  const std::string path = testing::CorpusDir() + "/" + rel;
  auto p = LoadProfile({path}, {});
  EXPECT_TRUE(p.ok()) << p.status().message();
  if (!p.ok()) return {};
  CpOptions o;
  o.annotation = annotation;
  o.first = o.last = instance;
  o.zero_weight_launch_edges = zero_launch;
  CpResult r = ComputeCriticalPath(p->ranks[0], 0, o);
  EXPECT_TRUE(r.error.empty()) << r.error;
  CpCounts c;
  c.nodes = r.path.path.size();
  c.ops = r.path.critical_ops.size();
  c.length = r.path.length;
  for (uint32_t e : r.path.path_edges) c.types[r.path.edges[e].type]++;
  if (out) *out = std::move(r.path);
  return c;
}

constexpr const char* kAlexNetForward = "[param|pytorch.model.alex_net|0|0|0|measure|forward]";

// HTA's test_critical_path_analysis (tests/test_critical_path_analysis.py;
// the exact figures from its version at 4f71f3ba): simple_add, the second
// measured forward pass, with CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1:
// 315 path nodes, 159 events marked critical. The path's length and edge
// mix are from the same algorithm rewritten apart in Python (241,724 us;
// 288 operator, 20 dependency, 5 kernel-kernel, 1 launch edges).
TEST(CriticalPathCorpus, SimpleAddEqualsHtasTest) {
  MLPROF_CORPUS_FILE(f, "kineto/hta_critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz");
  const CpCounts c = RunCp("kineto/hta_critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz",
                           kAlexNetForward, 1, true);
  EXPECT_EQ(c.nodes, 315u);
  EXPECT_EQ(c.ops, 159u);
  EXPECT_EQ(c.length, 241724 * kPsPerUs);
  EXPECT_EQ(c.types.at(CpEdgeType::kOperator), 288);
  EXPECT_EQ(c.types.at(CpEdgeType::kDependency), 20);
  EXPECT_EQ(c.types.at(CpEdgeType::kKernelKernel), 5);
  EXPECT_EQ(c.types.at(CpEdgeType::kLaunchDelay), 1);
}

// alexnet: 149 path nodes (HTA's test at 4f71f3ba); 77 events, 35,834 us.
TEST(CriticalPathCorpus, AlexNetEqualsHtasTest) {
  MLPROF_CORPUS_FILE(f, "kineto/hta_critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz");
  const CpCounts c = RunCp("kineto/hta_critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz",
                           kAlexNetForward, 1, true);
  EXPECT_EQ(c.nodes, 149u);
  EXPECT_EQ(c.ops, 77u);
  EXPECT_EQ(c.length, 35834 * kPsPerUs);
  EXPECT_GT(c.types.count(CpEdgeType::kSync), 0u);
}

// cuda_event_sync (ProfilerStep, instance 0): 40 nodes, 21 events, 2,411 us;
// multi_stream (the whole trace): 59 nodes, 31 events, 1,178 us.
TEST(CriticalPathCorpus, EventSyncTracesEqualTheRewrite) {
  MLPROF_CORPUS_FILE(f, "kineto/hta_critical_path/cuda_event_sync/event_sync_trace.json.gz");
  CpCounts c = RunCp("kineto/hta_critical_path/cuda_event_sync/event_sync_trace.json.gz", "ProfilerStep", 0, true);
  EXPECT_EQ(c.nodes, 40u);
  EXPECT_EQ(c.ops, 21u);
  EXPECT_EQ(c.length, 2411 * kPsPerUs);
  c = RunCp("kineto/hta_critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz", "", 0, true);
  EXPECT_EQ(c.nodes, 59u);
  EXPECT_EQ(c.ops, 31u);
  EXPECT_EQ(c.length, 1178 * kPsPerUs);
}

// HTA's expected overlay (simple_add_expected_output, the whole trace,
// without zero-weight launch edges): 624 events marked critical; its 192
// flow pairs are the path's 158 dependency, 17 sync and 17 launch edges.
TEST(CriticalPathCorpus, SimpleAddWholeTraceEqualsHtasOverlay) {
  MLPROF_CORPUS_FILE(f, "kineto/hta_critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz");
  const CpCounts c =
      RunCp("kineto/hta_critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz", "", 0, false);
  EXPECT_EQ(c.nodes, 1212u);
  EXPECT_EQ(c.ops, 624u);
  EXPECT_EQ(c.types.at(CpEdgeType::kDependency), 158);
  EXPECT_EQ(c.types.at(CpEdgeType::kSync), 17);
  EXPECT_EQ(c.types.at(CpEdgeType::kLaunchDelay), 17);
}

// A hand-made step. Thread 1: cpu_op A [0,10) launches gemm_kernel (call
// [2,4), kernel [5,25) on stream 7), then cudaDeviceSynchronize [11,27)
// waits for it (Context Sync). Edges: A start -> call start 2 (A's own),
// call 2 (the lock edge), call end -> A end 6, A end -> sync start 0
// (top level), sync 0 (blocking); launch delay call start -> kernel start 3
// (the queue was empty), the kernel 20, kernel end -> sync end 0 (sync).
// Longest: A start, call start, kernel start, kernel end = 2 + 3 + 20 = 25
// us (CPU 2, launch 3, GPU compute 20) against 10 us through the CPU. The
// sync end is 25 us in too, but networkx takes the first node with the
// longest distance in topological order: the kernel's end.
// What-if: the kernel 2x faster gives 2 + 3 + 10 = 15 (still GPU-bound); 5x
// gives 9 < 10, so the CPU path (10 us, all CPU) bounds it; no launch delay
// gives 22.
TEST(CriticalPath, HandMadeStepAndWhatIf) {
  const Profile p = testing::ProfileFromJson(R"J({"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"A","pid":1,"tid":1,"ts":0,"dur":10},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":2,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"gemm_kernel","pid":0,"tid":7,"ts":5,"dur":20,"args":{"stream":7,"device":0,"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":11,"dur":16,"args":{"correlation":2}},
    {"ph":"X","cat":"cuda_sync","name":"Context Sync","pid":0,"tid":-1,"ts":25,"dur":2,"args":{"cuda_sync_kind":"Context Sync","stream":-1,"correlation":2,"device":0}}
  ]})J");
  const RankProfile& r = p.ranks[0];
  CpResult res = ComputeCriticalPath(r, 0, CpOptions{});
  ASSERT_TRUE(res.error.empty()) << res.error;
  const CriticalPath& cp = res.path;
  EXPECT_EQ(cp.window, "whole trace");
  EXPECT_EQ(cp.nodes.size(), 8u);
  EXPECT_EQ(cp.length, 25 * kPsPerUs);
  ASSERT_EQ(cp.path.size(), 4u);
  std::vector<std::string> names;
  for (uint32_t n : cp.path) names.push_back(std::string(r.str(r.ops.name[cp.nodes[n].op])));
  EXPECT_EQ(names, (std::vector<std::string>{"A", "cudaLaunchKernel", "gemm_kernel", "gemm_kernel"}));
  EXPECT_EQ(cp.by_bound[static_cast<size_t>(CpBound::kCpu)], 2 * kPsPerUs);
  EXPECT_EQ(cp.by_bound[static_cast<size_t>(CpBound::kLaunch)], 3 * kPsPerUs);
  EXPECT_EQ(cp.by_bound[static_cast<size_t>(CpBound::kGpuCompute)], 20 * kPsPerUs);
  EXPECT_EQ(cp.critical_ops.size(), 3u);

  auto scaled = [&](double kernel, double launch) {
    std::vector<double> scale(cp.edges.size(), 1.0);
    for (size_t e = 0; e < cp.edges.size(); ++e) {
      const CpEdge& x = cp.edges[e];
      if (x.type == CpEdgeType::kOperator && x.op >= 0 && r.str(r.ops.name[static_cast<size_t>(x.op)]) == "gemm_kernel")
        scale[e] = kernel;
      if (x.type == CpEdgeType::kLaunchDelay) scale[e] = launch;
    }
    return RecomputeCriticalPath(r, cp, scale);
  };
  CpWhatIf w = scaled(0.5, 1);
  EXPECT_EQ(w.length, 15 * kPsPerUs);
  EXPECT_EQ(w.by_bound[static_cast<size_t>(CpBound::kGpuCompute)], 10 * kPsPerUs);
  w = scaled(0.2, 1);
  EXPECT_EQ(w.length, 10 * kPsPerUs);
  EXPECT_EQ(w.by_bound[static_cast<size_t>(CpBound::kCpu)], 10 * kPsPerUs);
  EXPECT_EQ(w.by_bound[static_cast<size_t>(CpBound::kGpuCompute)], 0);
  w = scaled(1, 0);
  EXPECT_EQ(w.length, 22 * kPsPerUs);

  CpOptions missing;
  missing.annotation = "ProfilerStep";
  EXPECT_NE(ComputeCriticalPath(r, 0, missing).error.find("no instance 0"), std::string::npos);
}

}  // namespace
}  // namespace mlprof
