// torch_npu's trace_view.json: the device lanes read as torch_npu reads them.
// For each of the corpus' 2-rank job at profiler levels 0, 1 and 2, mlprof's
// temporal breakdown and overlap of the step equal torch_npu's own
// step_trace_time.csv in the same folder: Computing = compute, Communication
// = communication, Overlapped, Communication(Not Overlapped) = exposed,
// Free = idle. Within 0.01 us: the JSON's times are rounded (ts to 1 ns,
// durations to fractions of ns), torch_npu computed from its exact ones.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "../../tests/corpus_util.h"
#include "analysis/gpu_time.h"
#include "analysis/view.h"
#include "io/load.h"

namespace mlprof {
namespace {

TEST(AscendCorpus, StepBreakdownEqualsStepTraceTime) {
  MLPROF_CORPUS_FILE(root, "ascend/msinsight_2rank/text");
  int checked = 0;
  for (const char* level : {"level0", "level1", "level2"})
    for (int rank : {0, 1}) {
      const std::string dir =
          root + "/" + level + "/rank" + std::to_string(rank) + "_ascend_pt/ASCEND_PROFILER_OUTPUT/";
      // Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,...
      std::ifstream csv(dir + "step_trace_time.csv");
      std::string header, row;
      ASSERT_TRUE(std::getline(csv, header) && std::getline(csv, row)) << dir;
      std::vector<double> f;
      std::stringstream ss(row);
      for (std::string c; std::getline(ss, c, ',');) f.push_back(std::stod(c));
      ASSERT_GE(f.size(), 6u);
      auto p = LoadProfile({dir + "trace_view.json"}, {});
      ASSERT_TRUE(p.ok()) << p.status().message();
      EXPECT_EQ(p->ranks[0].format, "ascend-trace-view");
      const ProfileView v = BuildProfileView(*p, {});
      const TemporalBreakdown t = ComputeTemporalBreakdown(v).at(0);
      const Overlap o = ComputeOverlap(v).at(0);
      auto us = [](Ps x) { return static_cast<double>(x) / kPsPerUs; };
      const std::string at = std::string(level) + " rank " + std::to_string(rank);
      EXPECT_NEAR(us(t.compute), f[1], 0.01) << at;
      EXPECT_NEAR(us(o.comm - o.overlapped), f[2], 0.01) << at;
      EXPECT_NEAR(us(o.overlapped), f[3], 0.01) << at;
      EXPECT_NEAR(us(o.comm), f[4], 0.01) << at;
      EXPECT_NEAR(us(t.idle), f[5], 0.01) << at;
      ++checked;
    }
  EXPECT_EQ(checked, 6);
}

// An older torch_npu trace (msprof-analyze's fixture) whose kernels all have
// Task Type "Other": kernels by name. Its own "Overlap Analysis" lanes
// (Computing, Free: torch_npu's figures, in the same file) are the reference.
TEST(AscendCorpus, OlderTraceMatchesItsOverlapLanes) {
  MLPROF_CORPUS_FILE(path, "ascend/trace_view.json");
  auto p = LoadProfile({path}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const RankProfile& r = p->ranks[0];
  double computing = 0, free = 0;
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const Track& t = r.tracks[r.ops.track[i]];
    if (r.str(t.process_name) != "Overlap Analysis") continue;
    const double us = static_cast<double>(r.ops.dur[i]) / kPsPerUs;
    if (r.str(t.name) == "Computing") computing += us;
    if (r.str(t.name) == "Free") free += us;
  }
  ASSERT_GT(computing, 0);
  const ProfileView v = BuildProfileView(*p, {});
  const TemporalBreakdown t = ComputeTemporalBreakdown(v).at(0);
  EXPECT_NEAR(static_cast<double>(t.compute) / kPsPerUs, computing, 0.01);
  EXPECT_NEAR(static_cast<double>(t.idle) / kPsPerUs, free, 0.01);
}

}  // namespace
}  // namespace mlprof
