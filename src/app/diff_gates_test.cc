// mlprof diff's gates on two hand-made profiles whose change is known: the
// base's steady steps take 200 us with a 100 us gemm, the new's 250 us with
// a 150 us gemm, so step_time changes by +25 % (+0.05 ms) and compute by
// +50 % (+0.05 ms).
#include <gtest/gtest.h>

#include <cmath>

#include "../../tests/test_util.h"
#include "app/commands.h"

namespace mlprof::app {
namespace {

Session GateSession(int wall, int gemm) {
  std::string ev;
  for (int s = 0; s < 4; ++s) {
    const int t = wall * s;
    ev += (s ? "," : "") + std::string(R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)") +
          std::to_string(s) + R"(","pid":1,"tid":1,"ts":)" + std::to_string(t) + R"(,"dur":)" + std::to_string(wall) +
          R"(},{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" + std::to_string(t) +
          R"(,"dur":1,"args":{"correlation":)" + std::to_string(s + 1) + "}}," +
          R"({"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":)" + std::to_string(t + 1) + R"(,"dur":)" +
          std::to_string(gemm) + R"(,"args":{"stream":7,"correlation":)" + std::to_string(s + 1) + "}}";
  }
  Session s;
  s.profile = testing::ProfileFromJson(R"({"traceEvents":[)" + ev + "]}");
  s.view = BuildProfileView(s.profile, {});
  return s;
}

// The gates table's change column and whether the report fails, per gate.
std::pair<double, bool> Gate(const Session& b, const Session& n, const std::string& gate) {
  DiffOptions o;
  o.gates = {gate};
  auto r = Diff(b, n, o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return {NAN, false};
  const Table& t = r->tables.back();
  EXPECT_EQ(t.id, "diff_gates");
  EXPECT_EQ(t.rows.size(), 1u);
  return {std::get<double>(t.rows[0][static_cast<size_t>(t.ColumnIndex("change"))].value), r->gate_failed};
}

TEST(DiffGates, ChangesAgainstTheirLimits) {
  const Session b = GateSession(200, 100), n = GateSession(250, 150);
  auto [c1, f1] = Gate(b, n, "step_time>+20%");
  EXPECT_DOUBLE_EQ(c1, 25.0);
  EXPECT_TRUE(f1);
  auto [c2, f2] = Gate(b, n, "step_time>+30%");
  EXPECT_DOUBLE_EQ(c2, 25.0);
  EXPECT_FALSE(f2);
  auto [c3, f3] = Gate(b, n, "compute>+40us");  // +50 us
  EXPECT_DOUBLE_EQ(c3, 0.05);                   // shown in ms
  EXPECT_TRUE(f3);
  auto [c4, f4] = Gate(b, n, "compute<-10%");  // +50 % is not below -10 %
  EXPECT_DOUBLE_EQ(c4, 50.0);
  EXPECT_FALSE(f4);
  // A gate that names no measure is a usage error.
  DiffOptions o;
  o.gates = {"steps>+5%"};
  EXPECT_EQ(Diff(b, n, o).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace mlprof::app
