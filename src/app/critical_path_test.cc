// mlprof critical-path's tables on a hand-made trace whose path and slack
// are worked out below.
#include <gtest/gtest.h>

#include "../../tests/test_util.h"
#include "app/commands.h"

namespace mlprof::app {
namespace {

// One host op A [0,10) launching two kernels (us):
//   L1 cudaLaunchKernel [2,4) -> k1 [5,25) on stream 7
//   L2 cudaLaunchKernel [6,8) -> k2 [9,12) on stream 8
// The path: A start -> L1 start (A's own time, 2) -> k1 start (launch
// delay, 3) -> k1 end (20): 25 us, GPU compute 20 = 80 %, CPU 2 = 8 %.
// k2 is off it: the longest path through it reaches its start at 9 (A 2, L1
// 2, A 2, L2 launch delay 3) and ends at 12, so its slack is 25 - 12 = 13.
TEST(CriticalPathTables, OpsOnThePathAndSlack) {
  Session s;
  s.profile = testing::ProfileFromJson(R"J({"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"A","pid":1,"tid":1,"ts":0,"dur":10},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":2,"args":{"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":6,"dur":2,"args":{"correlation":2}},
    {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":5,"dur":20,"args":{"stream":7,"device":0,"correlation":1}},
    {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":8,"ts":9,"dur":3,"args":{"stream":8,"device":0,"correlation":2}}
  ]})J");
  s.view = BuildProfileView(s.profile, {});
  CriticalPathOptions o;
  o.whole = true;
  auto r = CriticalPathReport(s, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Table* ops = nullptr;
  const Table* slack = nullptr;
  for (const Table& t : r->tables) {
    if (t.id == "critical_ops") ops = &t;
    if (t.id == "critical_slack") slack = &t;
  }
  ASSERT_NE(ops, nullptr);
  ASSERT_NE(slack, nullptr);
  auto cell = [](const Table& t, size_t row, const char* col) {
    return t.rows[row][static_cast<size_t>(t.ColumnIndex(col))].value;
  };
  ASSERT_EQ(ops->rows.size(), 2u);
  EXPECT_EQ(std::get<std::string>(cell(*ops, 0, "name")), "k1");
  EXPECT_EQ(std::get<int64_t>(cell(*ops, 0, "time")), 20 * kPsPerUs);
  EXPECT_DOUBLE_EQ(std::get<double>(cell(*ops, 0, "pct")), 80.0);
  EXPECT_EQ(std::get<std::string>(cell(*ops, 1, "name")), "A");
  EXPECT_EQ(std::get<int64_t>(cell(*ops, 1, "time")), 2 * kPsPerUs);
  EXPECT_DOUBLE_EQ(std::get<double>(cell(*ops, 1, "pct")), 8.0);
  ASSERT_EQ(slack->rows.size(), 1u);
  EXPECT_EQ(std::get<std::string>(cell(*slack, 0, "name")), "k2");
  EXPECT_EQ(std::get<int64_t>(cell(*slack, 0, "time")), 3 * kPsPerUs);
  EXPECT_EQ(std::get<int64_t>(cell(*slack, 0, "min_slack")), 13 * kPsPerUs);
}

}  // namespace
}  // namespace mlprof::app
