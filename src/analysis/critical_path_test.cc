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

}  // namespace
}  // namespace mlprof
