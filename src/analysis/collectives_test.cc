#include "analysis/collectives.h"

#include <gtest/gtest.h>

#include <cmath>

#include "../../tests/test_util.h"
#include "base/csv.h"
#include "io/load.h"

namespace mlprof {
namespace {

constexpr Ps kCollUs = kPsPerUs;

// One rank's trace: NCCL kernels with their args (newer Kineto writes them
// on the kernel), process group "0" of ranks [0, 1, 2].
std::string RankTrace(int rank, const std::vector<std::tuple<const char*, const char*, int, int, int, int>>& kernels) {
  std::string s = R"({"distributedInfo":{"rank":)" + std::to_string(rank) + R"(,"world_size":3},"traceEvents":[)";
  bool first = true;
  int corr = 1;
  for (const auto& [name, dtype, in, out, ts, dur] : kernels) {
    if (!first) s += ",";
    first = false;
    s += R"({"ph":"X","cat":"kernel","name":"ncclDevKernel_Generic","pid":0,"tid":7,"ts":)" + std::to_string(ts) +
         R"(,"dur":)" + std::to_string(dur) + R"(,"args":{"stream":7,"correlation":)" + std::to_string(corr++) +
         R"(,"Collective name":")" + name + R"(","dtype":")" + dtype + R"(","In msg nelems":)" + std::to_string(in) +
         R"(,"Out msg nelems":)" + std::to_string(out) +
         R"(,"Group size":3,"Process Group Name":"0","Process Group Ranks":"[0, 1, 2]"}})";
  }
  return s + "]}";
}

// Three ranks, three instances (us):
//   allreduce Float 1 Mi elements: r0 [100,150) r1 [120,150) r2 [110,155)
//     comm = shortest = 30; skew start 20, end 5; waits 20, 0, 10 (mean 10);
//     last r1; bytes 4 MiB; algo 4194304 B / 30 us; bus x 2(3-1)/3 = 4/3
//   allreduce:                  r0 [300,320) r1 [290,325) r2 [310,320)
//     comm 10; skew start 20, end 5; waits 10, 20, 0; last r2
//   _allgather_base BFloat16 1000 -> 3000: all [400, 410|410|412)
//     comm 10, no skew; last: a tie, the lower rank r0; bytes 3000 x 2 = 6000
//     (the output); algo 6e8 B/s, bus x 2/3
// Last arrivals in group 0: each rank once; waits 30 (r0), 20 (r1), 10 (r2);
// held: r0 0 (the tie), r1 30, r2 30; time after the last arrival (its end -
// the last start) 50, 55, 57.
Profile ThreeRanks() {
  Profile p;
  const char* ar = "allreduce";
  const char* ag = "_allgather_base";
  std::vector<std::string> texts = {RankTrace(0, {{ar, "Float", 1048576, 1048576, 100, 50},
                                                  {ar, "Float", 1048576, 1048576, 300, 20},
                                                  {ag, "BFloat16", 1000, 3000, 400, 10}}),
                                    RankTrace(1, {{ar, "Float", 1048576, 1048576, 120, 30},
                                                  {ar, "Float", 1048576, 1048576, 290, 35},
                                                  {ag, "BFloat16", 1000, 3000, 400, 10}}),
                                    RankTrace(2, {{ar, "Float", 1048576, 1048576, 110, 45},
                                                  {ar, "Float", 1048576, 1048576, 310, 10},
                                                  {ag, "BFloat16", 1000, 3000, 400, 12}})};
  for (const std::string& t : texts) {
    Profile one = testing::ProfileFromJson(t);
    p.ranks.push_back(std::move(one.ranks[0]));
  }
  return p;
}

TEST(Collectives, HandWorkedThreeRanks) {
  Profile p = ThreeRanks();
  const CollectiveReport c = ComputeCollectives(BuildProfileView(p, {}), {});
  ASSERT_EQ(c.instances.size(), 3u);
  EXPECT_EQ(c.kernels, 9);
  EXPECT_EQ(c.mismatched, 0);
  const CollectiveInstance& a = c.instances[0];
  EXPECT_EQ(a.group, "0");
  EXPECT_EQ(a.kind, "all-reduce");
  EXPECT_EQ(a.ranks, 3);
  EXPECT_EQ(a.comm, 30 * kCollUs);
  EXPECT_EQ(a.skew_start, 20 * kCollUs);
  EXPECT_EQ(a.skew_end, 5 * kCollUs);
  EXPECT_EQ(a.mean_wait, 10 * kCollUs);
  EXPECT_EQ(a.last_rank, 1);
  EXPECT_EQ(a.first_rank, 0);
  EXPECT_EQ(a.bytes, 4194304);
  EXPECT_DOUBLE_EQ(a.algo_bw, 4194304 / 30e-6);
  EXPECT_NEAR(a.bus_bw, 4194304 / 30e-6 * 4 / 3, 1);
  EXPECT_EQ(c.instances[1].last_rank, 2);
  EXPECT_EQ(c.instances[1].comm, 10 * kCollUs);
  const CollectiveInstance& g = c.instances[2];
  EXPECT_EQ(g.kind, "all-gather");
  EXPECT_EQ(g.bytes, 6000);
  EXPECT_EQ(g.skew_start, 0);
  EXPECT_EQ(g.skew_end, 2 * kCollUs);
  EXPECT_EQ(g.last_rank, 0);
  EXPECT_NEAR(g.algo_bw, 6e8, 1e-3);
  EXPECT_NEAR(g.bus_bw, 4e8, 1e-3);
  // Summary: the all-reduces first (40 us in all).
  ASSERT_EQ(c.summary.size(), 2u);
  const CollectiveSummaryRow& s = c.summary[0];
  EXPECT_EQ(s.name, "allreduce");
  EXPECT_EQ(s.count, 2);
  EXPECT_EQ(s.comm_total, 40 * kCollUs);
  EXPECT_DOUBLE_EQ(s.comm_mean, 20.0 * kCollUs);
  EXPECT_DOUBLE_EQ(s.comm_max, 30.0 * kCollUs);
  EXPECT_DOUBLE_EQ(s.skew_start_mean, 20.0 * kCollUs);
  EXPECT_DOUBLE_EQ(s.skew_end_mean, 5.0 * kCollUs);
  EXPECT_NEAR(s.algo_bw_mean, (4194304 / 30e-6 + 4194304 / 10e-6) / 2, 1);
  EXPECT_EQ(s.span, "intra_node");  // 8 GPUs per node by default
  // Last arrivals.
  ASSERT_EQ(c.last_arrival.size(), 3u);
  // After the last arrival: r0 30 + 10 + 10, r1 30 + 15 + 10, r2 35 + 10 + 12.
  const Ps wait[] = {30, 20, 10}, held[] = {0, 30, 30}, after[] = {50, 55, 57};
  for (size_t r = 0; r < 3; ++r) {
    SCOPED_TRACE(r);
    EXPECT_EQ(c.last_arrival[r].rank, static_cast<int64_t>(r));
    EXPECT_EQ(c.last_arrival[r].instances, 3);
    EXPECT_EQ(c.last_arrival[r].last, 1);
    EXPECT_EQ(c.last_arrival[r].wait, wait[r] * kCollUs);
    EXPECT_EQ(c.last_arrival[r].held, held[r] * kCollUs);
    EXPECT_EQ(c.last_arrival[r].after, after[r] * kCollUs);
  }
  // Long table: rank 0's all-reduces 50 and 20 us: sum 70, mean 35, sample std 15 x sqrt(2).
  bool found = false;
  for (const CollectiveLongRow& l : c.long_rows)
    if (l.rank == 0 && l.name == "allreduce") {
      found = true;
      EXPECT_EQ(l.count, 2);
      EXPECT_DOUBLE_EQ(l.dur_sum, 70.0 * kCollUs);
      EXPECT_NEAR(l.dur_std, 15 * std::sqrt(2.0) * kCollUs, 1);
      EXPECT_EQ(l.span, "intra_node");
    }
  EXPECT_TRUE(found);
  // Two GPUs per node: ranks 0-1 and 2 on two nodes.
  CollectiveOptions two;
  two.gpus_per_node = 2;
  EXPECT_EQ(ComputeCollectives(BuildProfileView(p, {}), two).summary[0].span, "inter_node");
}

// A rank that skipped a collective shifts the call-order matching: said.
TEST(Collectives, MismatchCounted) {
  Profile p;
  for (int r = 0; r < 2; ++r) {
    std::vector<std::tuple<const char*, const char*, int, int, int, int>> k = {{"allreduce", "Float", 100, 100, 10, 5},
                                                                               {"broadcast", "Float", 7, 7, 30, 5}};
    if (r == 1) k.erase(k.begin());
    Profile one = testing::ProfileFromJson(RankTrace(r, k));
    p.ranks.push_back(std::move(one.ranks[0]));
  }
  const CollectiveReport c = ComputeCollectives(BuildProfileView(p, {}), {});
  EXPECT_EQ(c.mismatched, 1);
}

// TraceLens's coll_analysis.csv (its long table) for its single-rank ResNet
// trace: every row's count and durations equal (all steps, as TraceLens
// keeps them; its 5 kernels without args are left out by both).
TEST(CollectivesCorpus, LongTableEqualsTraceLens) {
  MLPROF_CORPUS_FILE(trace, "tracelens/tests/traces/mi300/resnet_act_checkpoint.json.gz");
  MLPROF_CORPUS_FILE(csv_path,
                     "tracelens/tests/traces/mi300/resnet_act_checkpoint_recompute_perf_report_csvs/coll_analysis.csv");
  auto loaded = LoadProfile({trace}, {});
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  AnalysisOptions ao;
  ao.drop_last_step = false;
  const CollectiveReport c = ComputeCollectives(BuildProfileView(*loaded, ao), {});
  EXPECT_EQ(c.kernels, 17);
  EXPECT_EQ(c.kernels_without_args, 5);
  const std::string text = testing::ReadFile(csv_path);
  CsvReader csv(text, csv_path);
  ASSERT_TRUE(csv.ReadHeader().ok());
  size_t rows = 0;
  while (csv.Next()) {
    ++rows;
    const std::string name(csv.Get(csv.Column("Collective name"))), dtype(csv.Get(csv.Column("dtype")));
    const int64_t in = std::llround(std::stod(std::string(csv.Get(csv.Column("In msg nelems")))));
    const CollectiveLongRow* got = nullptr;
    for (const CollectiveLongRow& l : c.long_rows)
      if (l.name == name && l.dtype == dtype && l.in_nelems == in) got = &l;
    ASSERT_NE(got, nullptr) << name << " " << in;
    EXPECT_EQ(got->count, std::stoll(std::string(csv.Get(csv.Column("operation_count")))));
    EXPECT_EQ(got->group, std::string(csv.Get(csv.Column("Process Group Name"))));
    EXPECT_EQ(got->group_ranks, std::string(csv.Get(csv.Column("Process Group Ranks"))));
    for (const char* col : {"dur_sum", "dur_mean", "dur_std", "dur_min", "dur_max"}) {
      const double want = std::stod(std::string(csv.Get(csv.Column(col))));
      const double have = std::string(col) == "dur_sum"    ? got->dur_sum
                          : std::string(col) == "dur_mean" ? got->dur_mean
                          : std::string(col) == "dur_std"  ? got->dur_std
                          : std::string(col) == "dur_min"  ? got->dur_min
                                                           : got->dur_max;
      EXPECT_NEAR(have / kCollUs, want, 1e-6) << name << " " << in << " " << col;
    }
  }
  EXPECT_EQ(rows, 4u);
  EXPECT_EQ(c.long_rows.size(), 4u);
}

}  // namespace
}  // namespace mlprof

namespace mlprof {
namespace {

// all_to_allv between two ranks, Float: rank 0 sends [1, 3] elements to
// ranks [0, 1], rank 1 sends [2, 2]: bytes 0->0 4, 0->1 12, 1->0 8, 1->1 8.
// Not implicitly synchronising (TraceLens): no summary row.
TEST(Collectives, AllToAllBytesFromSplits) {
  Profile p;
  const char* splits[] = {"[1, 3]", "[2, 2]"};
  for (int r = 0; r < 2; ++r) {
    Profile one = testing::ProfileFromJson(
        std::string(R"({"distributedInfo":{"rank":)") + std::to_string(r) +
        R"(},"traceEvents":[{"ph":"X","cat":"kernel","name":"ncclDevKernel_SendRecv","pid":0,"tid":7,"ts":10,"dur":5,)"
        R"("args":{"stream":7,"correlation":1,"Collective name":"all_to_allv","dtype":"Float","In msg nelems":4,)"
        R"("Out msg nelems":4,"Group size":2,"Process Group Name":"3","Process Group Ranks":"[0, 1]","In split size":")" +
        splits[r] + R"("}}]})");
    p.ranks.push_back(std::move(one.ranks[0]));
  }
  const CollectiveReport c = ComputeCollectives(BuildProfileView(p, {}), {});
  ASSERT_EQ(c.alltoall.size(), 4u);
  const int64_t want[2][2] = {{4, 12}, {8, 8}};
  for (const AllToAllCell& a : c.alltoall) {
    EXPECT_EQ(a.group, "3");
    EXPECT_EQ(a.bytes, want[a.src][a.dst]) << a.src << "->" << a.dst;
  }
  EXPECT_TRUE(c.summary.empty());
  ASSERT_EQ(c.instances.size(), 1u);
  EXPECT_FALSE(c.instances[0].implicit_sync);
}

}  // namespace
}  // namespace mlprof
