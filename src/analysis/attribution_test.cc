// OpAttribution on a hand-made trace: each GPU op's owner and how it was
// found, counted by hand in the comments.
#include "analysis/attribution.h"

#include <gtest/gtest.h>

#include "../../tests/test_util.h"
#include "analysis/ops.h"

namespace mlprof {
namespace attribution_test {

using testing::ProfileFromJson;
constexpr Ps US = kPsPerUs;

// Host thread 1:
//   ProfilerStep#1 [0,200)
//     aten::linear [0,40) ext 1
//       aten::addmm [1,30) ext 2 { launch [2,4) ext 2 corr 11 }   verified: addmm
//       aten::reshape [31,33) ext 3                                 launches nothing
//     aten::addmm [50,60) ext 4 { launch [51,53) ext 3 corr 12 }  ext 3 = reshape, outside: addmm by time
//     aten::gelu [70,80) ext 5 { launch [71,73) ext 999 corr 13 } no cpu_op has 999: gelu by time
//     combine(F) [100,150) user_annotation { launch [101,103) corr 14 }  no cpu_op: the annotation
//     launch [160,162) corr 15                                    nothing above but the step: GPU side
// Host thread 2: aten::reshape [50,60) ext 3 (the op the broken id names, on another thread)
// GPU stream 7: k1 [10,20) k2 [60,65) k3 [80,90) k4 [110,140)
//   gpu_user_annotation attn [165,190) { k5 [170,180) }
//   k6 [195,197) corr 99: no launch
const char* kTrace = R"J({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":200},
 {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":0,"dur":40,"args":{"External id":1}},
 {"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":1,"dur":29,"args":{"External id":2}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":2,"args":{"External id":2,"correlation":11}},
 {"ph":"X","cat":"cpu_op","name":"aten::reshape","pid":1,"tid":1,"ts":31,"dur":2,"args":{"External id":3}},
 {"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":50,"dur":10,"args":{"External id":4}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":51,"dur":2,"args":{"External id":3,"correlation":12}},
 {"ph":"X","cat":"cpu_op","name":"aten::gelu","pid":1,"tid":1,"ts":70,"dur":10,"args":{"External id":5}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":71,"dur":2,"args":{"External id":999,"correlation":13}},
 {"ph":"X","cat":"user_annotation","name":"combine(F)","pid":1,"tid":1,"ts":100,"dur":50},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":101,"dur":2,"args":{"correlation":14}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":160,"dur":2,"args":{"correlation":15}},
 {"ph":"X","cat":"cpu_op","name":"aten::reshape","pid":1,"tid":2,"ts":50,"dur":10,"args":{"External id":3}},
 {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":10,"dur":10,"args":{"stream":7,"device":0,"correlation":11}},
 {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":60,"dur":5,"args":{"stream":7,"device":0,"correlation":12}},
 {"ph":"X","cat":"kernel","name":"k3","pid":0,"tid":7,"ts":80,"dur":10,"args":{"stream":7,"device":0,"correlation":13}},
 {"ph":"X","cat":"kernel","name":"k4","pid":0,"tid":7,"ts":110,"dur":30,"args":{"stream":7,"device":0,"correlation":14}},
 {"ph":"X","cat":"gpu_user_annotation","name":"attn","pid":0,"tid":7,"ts":165,"dur":25,"args":{"stream":7,"device":0}},
 {"ph":"X","cat":"kernel","name":"k5","pid":0,"tid":7,"ts":170,"dur":10,"args":{"stream":7,"device":0,"correlation":15}},
 {"ph":"X","cat":"kernel","name":"k6","pid":0,"tid":7,"ts":195,"dur":2,"args":{"stream":7,"device":0,"correlation":99}}
]})J";

size_t Find(const RankProfile& p, std::string_view name) {
  for (size_t i = 0; i < p.ops.size(); ++i)
    if (p.str(p.ops.name[i]) == name) return i;
  ADD_FAILURE() << "no op " << name;
  return 0;
}

TEST(Attribution, ExternalIdOnlyWhereItsOpContainsTheLaunch) {
  const Profile prof = ProfileFromJson(kTrace);
  const RankProfile& p = prof.ranks[0];
  const OpAttribution a(p);
  auto owner = [&](std::string_view kernel) { return a.Of(Find(p, kernel)); };
  auto name = [&](const OpAttribution::Owner& w) {
    return w.op < 0 ? std::string() : std::string(p.str(p.ops.name[w.op]));
  };

  EXPECT_EQ(name(owner("k1")), "aten::addmm");
  EXPECT_EQ(owner("k1").by, AttributedBy::kExternalId);
  EXPECT_EQ(owner("k1").op, static_cast<int32_t>(Find(p, "aten::addmm")));

  // ext 3 names aten::reshape, which does not contain the launch (on this
  // thread or any): the second addmm, by time.
  EXPECT_EQ(name(owner("k2")), "aten::addmm");
  EXPECT_EQ(owner("k2").by, AttributedBy::kContainment);
  EXPECT_EQ(owner("k2").repair, ExternalIdRepair::kOutside);

  EXPECT_EQ(name(owner("k3")), "aten::gelu");
  EXPECT_EQ(owner("k3").by, AttributedBy::kContainment);
  EXPECT_EQ(owner("k3").repair, ExternalIdRepair::kUnmatched);

  EXPECT_EQ(name(owner("k4")), "combine(F)");
  EXPECT_EQ(owner("k4").by, AttributedBy::kAnnotation);

  // Only the step is above the launch: the step is not an owner; the GPU-side
  // annotation around the kernel is.
  EXPECT_EQ(name(owner("k5")), "attn");
  EXPECT_EQ(owner("k5").by, AttributedBy::kAnnotation);

  EXPECT_EQ(owner("k6").op, -1);
  EXPECT_EQ(owner("k6").by, AttributedBy::kNone);
}

TEST(Attribution, SummaryCountsEachWayAndRepair) {
  const Profile prof = ProfileFromJson(kTrace);
  const ProfileView view = BuildProfileView(prof, {});
  const auto all = SummarizeAttribution(view);
  ASSERT_EQ(all.size(), 1u);
  const AttributionSummary& s = all[0].second;
  // k1 10 + k2 5 + k3 10 + k4 30 + k5 10 + k6 2 = 67 us.
  EXPECT_EQ(s.total, 67 * US);
  EXPECT_EQ(s.total_ops, 6);
  EXPECT_EQ(s.time[static_cast<size_t>(AttributedBy::kExternalId)], 10 * US);
  EXPECT_EQ(s.time[static_cast<size_t>(AttributedBy::kContainment)], 15 * US);
  EXPECT_EQ(s.time[static_cast<size_t>(AttributedBy::kAnnotation)], 40 * US);
  EXPECT_EQ(s.time[static_cast<size_t>(AttributedBy::kNone)], 2 * US);
  EXPECT_EQ(s.unmatched_time, 10 * US);
  EXPECT_EQ(s.outside_time, 5 * US);
  EXPECT_EQ(s.without_launch_ops, 1);
  EXPECT_EQ(s.without_launch_time, 2 * US);
}

TEST(Attribution, OpTableAgreesWithHostOps) {
  // The per-op GPU table: addmm owns k1 and k2 (2 calls, 15 us), reshape
  // owns nothing, the annotations own theirs as rows of their own kind.
  const Profile prof = ProfileFromJson(kTrace);
  const ProfileView view = BuildProfileView(prof, {});
  OpsOptions oo;
  oo.by_shape = false;
  const std::vector<OpGpuTime> rows = ComputeOpGpuTime(view, oo);
  std::map<std::string, const OpGpuTime*> by;
  for (const OpGpuTime& r : rows) by[r.name] = &r;
  ASSERT_TRUE(by.count("aten::addmm"));
  EXPECT_EQ(by["aten::addmm"]->calls, 2);
  EXPECT_EQ(by["aten::addmm"]->gpu_time, 15 * US);
  EXPECT_EQ(by["aten::addmm"]->kind, "cpu_op");
  EXPECT_FALSE(by.count("aten::reshape"));
  ASSERT_TRUE(by.count("combine(F)"));
  EXPECT_EQ(by["combine(F)"]->kind, "user_annotation");
  EXPECT_EQ(by["combine(F)"]->gpu_time, 30 * US);
  ASSERT_TRUE(by.count("attn"));
  EXPECT_EQ(by["attn"]->kind, "gpu_user_annotation");
  ASSERT_TRUE(by.count("(no cpu_op)"));
  EXPECT_EQ(by["(no cpu_op)"]->gpu_time, 2 * US);
}

}  // namespace attribution_test
}  // namespace mlprof
