// mlprof diff: the Mann-Whitney test against scipy, and the diff of two
// hand-made profiles whose changes are worked out below.
#include "analysis/diff.h"

#include <gtest/gtest.h>

#include "../../tests/test_util.h"

namespace mlprof {
namespace {

// Expected values from scipy 1.10.1 (Debian python3-scipy):
//   scipy.stats.mannwhitneyu(a, b) -> statistic (U of a), pvalue
// The first two are also counted by hand: with 3 (5) values each and every
// a below every b, U = 0 is the one arrangement of C(6,3) = 20 (C(10,5) =
// 252) at that end, so p = 2/20 = 0.1 (2/252).
TEST(MannWhitney, AgreesWithScipy) {
  struct Case {
    std::vector<double> a, b;
    double u, p;
    bool exact;
  };
  const Case cases[] = {
      {{1, 2, 3}, {4, 5, 6}, 0, 0.1, true},
      {{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, 0, 0.007936507936507936, true},
      {{1, 2, 2, 3}, {2, 3, 4, 5, 6, 7, 8, 9}, 2.5, 0.02591406278957709, false},  // ties: normal
      {{1, 3, 5, 7, 9, 11, 13, 15, 17}, {2, 4, 6, 8, 10, 12, 14, 16, 18, 20}, 36, 0.48766835345893045, false},
      {{5, 5, 5}, {5, 5, 5}, 4.5, 1.0, false},
      {{10, 11, 12, 13, 14, 15, 16, 17},
       {12.5, 13.5, 14.5, 15.5, 16.5, 17.5, 18.5, 19.5},
       15,
       0.08298368298368297,
       true},
  };
  for (const Case& c : cases) {
    const MannWhitney r = MannWhitneyU(c.a, c.b);
    EXPECT_DOUBLE_EQ(r.u, c.u);
    EXPECT_NEAR(r.p, c.p, 1e-12) << c.a.size() << " vs " << c.b.size();
    EXPECT_EQ(r.exact, c.exact);
  }
  EXPECT_EQ(MannWhitneyU({}, {1.0}).p, 1.0);
}

// A rank with four ProfilerSteps of `wall` us, each launching a gemm of
// `gemm` us and, when `copy`, a 10 us memcpy (GPU ops belong to the step
// of their launch).
Profile Steps(int wall, int gemm, bool copy) {
  std::string ev;
  for (int s = 0; s < 4; ++s) {
    const int t = wall * s;
    ev += (s ? "," : "") + std::string(R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)") +
          std::to_string(s) + R"(","pid":1,"tid":1,"ts":)" + std::to_string(t) + R"(,"dur":)" + std::to_string(wall) +
          R"(},{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" + std::to_string(t) +
          R"(,"dur":1,"args":{"correlation":)" + std::to_string(2 * s + 1) + "}}," +
          R"({"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":)" + std::to_string(t + 1) + R"(,"dur":)" +
          std::to_string(gemm) + R"(,"args":{"stream":7,"correlation":)" + std::to_string(2 * s + 1) + "}}";
    if (copy)
      ev += R"(,{"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":)" +
            std::to_string(t + 1) + R"(,"dur":1,"args":{"correlation":)" + std::to_string(2 * s + 2) + "}}," +
            R"({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":7,"ts":)" +
            std::to_string(t + gemm + 2) + R"(,"dur":10,"args":{"stream":7,"correlation":)" +
            std::to_string(2 * s + 2) + "}}";
  }
  return testing::ProfileFromJson(R"({"traceEvents":[)" + ev + "]}");
}

// Base: steps of 200 us with a 100 us gemm; new: 250 us steps, 150 us gemm
// and a new 10 us copy. Four steps; the last is dropped by the view's
// last-step filter, the first is warm-up: steps 1-2 are steady.
TEST(Diff, StepsBreakdownAndOps) {
  const Profile b = Steps(200, 100, false), n = Steps(250, 150, true);
  const DiffResult d = ComputeDiff(BuildProfileView(b, {}), BuildProfileView(n, {}), {});
  ASSERT_EQ(d.steps.size(), 1u);
  EXPECT_EQ(d.steps[0].base.size(), 2u);
  EXPECT_DOUBLE_EQ(d.steps[0].base_median, 200.0 * kPsPerUs);
  EXPECT_DOUBLE_EQ(d.steps[0].new_median, 250.0 * kPsPerUs);
  // 200, 200 against 250, 250: tied values, so the normal approximation as
  // scipy.stats.mannwhitneyu takes it: U = 4, mean 2, variance n1 n2 / 12 x
  // ((N + 1) - sum(t^3 - t) / (N (N - 1))) = 4/12 x (5 - 12/12) = 4/3;
  // z = (4 - 2 - 0.5) / sqrt(4/3) (continuity correction), p = erfc(z /
  // sqrt 2) = 0.1939308522824107 (python3 math.erfc).
  EXPECT_NEAR(d.steps[0].test.p, 0.1939308522824107, 1e-12);
  EXPECT_FALSE(d.steps[0].test.exact);
  double compute_base = -1, compute_new = -1;
  for (const BreakdownDiff& x : d.breakdown)
    if (x.measure == "compute") compute_base = x.base, compute_new = x.neu;
  EXPECT_DOUBLE_EQ(compute_base, 100.0 * kPsPerUs);
  EXPECT_DOUBLE_EQ(compute_new, 150.0 * kPsPerUs);
  // Ops per step: the view keeps steps 0-2 (3 kept steps); gemm 3 x 100 / 3
  // = 100 us per step in the base, 150 in the new; the copy is new (10 us).
  ASSERT_EQ(d.ops.size(), 2u);
  EXPECT_EQ(d.ops[0].name, "gemm");
  EXPECT_EQ(d.ops[0].base_count, 3);
  EXPECT_DOUBLE_EQ(d.ops[0].base_time, 100.0 * kPsPerUs);
  EXPECT_DOUBLE_EQ(d.ops[0].new_time, 150.0 * kPsPerUs);
  EXPECT_EQ(d.ops[1].name, "Memcpy HtoD");
  EXPECT_EQ(d.ops[1].base_count, 0);
  EXPECT_EQ(d.ops[1].new_count, 3);
  EXPECT_DOUBLE_EQ(d.ops[1].new_time, 10.0 * kPsPerUs);
}

// The same profile against itself: nothing changes, p = 1.
TEST(Diff, ItselfIsNoChange) {
  const Profile b = Steps(200, 100, true);
  const DiffResult d = ComputeDiff(BuildProfileView(b, {}), BuildProfileView(b, {}), {});
  ASSERT_EQ(d.steps.size(), 1u);
  EXPECT_EQ(d.steps[0].test.p, 1.0);
  for (const BreakdownDiff& x : d.breakdown) EXPECT_EQ(x.base, x.neu) << x.measure;
  for (const OpDiff& x : d.ops) EXPECT_EQ(x.base_time, x.new_time) << x.name;
}

}  // namespace
}  // namespace mlprof
