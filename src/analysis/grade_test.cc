// The grade of what a profile holds, on hand-made traces counted by hand.
#include "analysis/grade.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "../../tests/test_util.h"

namespace mlprof {
namespace grade_test {

using testing::ProfileFromJson;

const GradeItem* Find(const std::vector<GradeItem>& v, GradeId id) {
  for (const GradeItem& g : v)
    if (g.id == id) return &g;
  return nullptr;
}

// Two launches, one flow start each, no GPU op: activity lost, an error.
TEST(Grade, LaunchesWithoutAnyGpuWorkAreAnError) {
  const Profile p = ProfileFromJson(R"J({"traceEvents":[
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":10,"args":{"External id":1}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":2,"args":{"correlation":5}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":4,"dur":2,"args":{"correlation":6}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":1,"tid":1,"ts":7,"dur":2,"args":{"correlation":7}},
 {"ph":"s","cat":"ac2g","name":"ac2g","id":5,"pid":1,"tid":1,"ts":1},
 {"ph":"s","cat":"ac2g","name":"ac2g","id":6,"pid":1,"tid":1,"ts":4}
]})J");
  const auto g = GradeRank(p.ranks[0], 0);
  const GradeItem* lost = Find(g, GradeId::gpu_activity_lost);
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ(lost->severity, Severity::kError);
  EXPECT_EQ(lost->value, 2);  // the sync queues no GPU work
  EXPECT_NE(lost->text.find("cudaLaunchKernel 1, cudaMemcpyAsync 1"), std::string::npos);
  EXPECT_NE(lost->text.find("2 flow events with one end"), std::string::npos);
  EXPECT_EQ(GradeWarnings(g, "t.json").size(), 2u);  // and no iterations
}

// A Chrome trace with a process named "GPU 0" whose events carry no
// category: read as host events, which the grade calls an error, with the
// process named, before any figure.
TEST(Grade, UnreadDeviceLanesAreAnError) {
  const Profile p = ProfileFromJson(R"J({"traceEvents":[
 {"ph":"M","pid":1,"name":"process_name","args":{"name":"GPU 0"}},
 {"ph":"M","pid":2,"name":"process_name","args":{"name":"python"}},
 {"ph":"X","pid":2,"tid":5,"name":"forward","ts":0,"dur":1000},
 {"ph":"X","pid":1,"tid":7,"name":"gemm_kernel","ts":100,"dur":300},
 {"ph":"X","pid":1,"tid":7,"name":"relu_kernel","ts":500,"dur":100}
]})J");
  const auto g = GradeRank(p.ranks[0], 0);
  const GradeItem* lanes = Find(g, GradeId::device_lanes_unread);
  ASSERT_NE(lanes, nullptr);
  EXPECT_EQ(lanes->severity, Severity::kError);
  EXPECT_EQ(lanes->value, 2);
  EXPECT_NE(lanes->text.find("process 'GPU 0' (2 events) is named like device lanes"), std::string::npos)
      << lanes->text;
  const auto w = GradeWarnings(g, "t.json");
  EXPECT_EQ(std::count_if(w.begin(), w.end(), [](const std::string& s) { return s.find("device lanes") != s.npos; }),
            1);
}

// Two launched kernels, one starting 3 us before its launch call: the
// clocks disagree (1 of 2 linked ops, above 1 %: a warning).
TEST(Grade, GpuOpBeforeItsLaunchIsClockSkew) {
  const Profile p = ProfileFromJson(R"J({"traceEvents":[
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":2,"args":{"correlation":1}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":2,"args":{"correlation":2}},
 {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":15,"dur":3,"args":{"correlation":1,"device":0,"stream":7}},
 {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":17,"dur":3,"args":{"correlation":2,"device":0,"stream":7}}
]})J");
  const auto g = GradeRank(p.ranks[0], 0);
  const GradeItem* skew = Find(g, GradeId::clock_skew);
  ASSERT_NE(skew, nullptr);
  EXPECT_EQ(skew->severity, Severity::kWarning);
  EXPECT_EQ(skew->value, 1);
  EXPECT_NE(skew->text.find("1 of 2 GPU ops start before the call that launched them (by up to 0.003 ms)"),
            std::string::npos)
      << skew->text;
}

// 1 of 3 launches lost (33 %: a warning); a kernel with no launch (10 of 30
// us: a warning); two kernels overlapping on stream 7; one launch made while
// capturing a graph elsewhere would make the lost launch expected.
TEST(Grade, PartlyLostOverlapsAndCapture) {
  const std::string ops = R"J(
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":2,"args":{"correlation":5}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":4,"dur":2,"args":{"correlation":6}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":7,"dur":2,"args":{"correlation":7}},
 {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":10,"dur":10,"args":{"stream":7,"correlation":5}},
 {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":15,"dur":10,"args":{"stream":7,"correlation":6}},
 {"ph":"X","cat":"kernel","name":"c","pid":0,"tid":7,"ts":40,"dur":10,"args":{"stream":7,"correlation":99}})J";
  const auto g = GradeRank(ProfileFromJson(R"({"traceEvents":[)" + ops + "]}").ranks[0], 3);
  const GradeItem* lost = Find(g, GradeId::gpu_activity_lost);
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ(lost->severity, Severity::kWarning);
  EXPECT_EQ(lost->value, 1);
  EXPECT_EQ(lost->rank, 3);
  const GradeItem* orphan = Find(g, GradeId::gpu_ops_without_launch);
  ASSERT_NE(orphan, nullptr);
  EXPECT_EQ(orphan->value, 1);
  EXPECT_EQ(orphan->severity, Severity::kWarning);  // 10 of 30 us
  const GradeItem* overlap = Find(g, GradeId::stream_overlap);
  ASSERT_NE(overlap, nullptr);
  EXPECT_EQ(overlap->value, 1);  // b starts at 15, a ends at 20
  const auto captured = GradeRank(
      ProfileFromJson(
          R"({"traceEvents":[{"ph":"X","cat":"cuda_runtime","name":"cudaStreamBeginCapture","pid":1,"tid":1,"ts":0,"dur":1,"args":{"correlation":1}},)" +
          ops + "]}")
          .ranks[0],
      0);
  ASSERT_NE(Find(captured, GradeId::gpu_activity_lost), nullptr);
  EXPECT_EQ(Find(captured, GradeId::gpu_activity_lost)->severity, Severity::kInfo);
}

}  // namespace grade_test
}  // namespace mlprof
