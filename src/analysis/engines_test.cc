// Engines on a hand-made trace; every figure counted by hand below.
#include "analysis/engines.h"

#include <gtest/gtest.h>

#include <map>

#include "../../tests/test_util.h"
#include "report/gpu_tables.h"

namespace mlprof {
namespace {

// Times in us. Host thread 1: aten::mm [0,10) { cudaLaunchKernel [0,2) corr 1,
// cudaMemcpyAsync [3,4) corr 2 }; host thread 2: aten::relu [20,30) (launches
// nothing: not an engine). Stream 7: gemm [10,30) under a gpu_user_annotation
// [10,50) (an annotation, not GPU work: not busy time); stream 8: a 1 MB copy
// [25,35); stream 9: an NCCL all-reduce [40,50). Window [0,50): 50 us.
TEST(Engines, BusyIdleBytesOnAHandTrace) {
  Profile p = testing::ProfileFromJson(R"J({"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":10},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":2,"args":{"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":3,"dur":1,"args":{"correlation":2}},
    {"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":2,"ts":20,"dur":10},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":10,"dur":20,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"gpu_user_annotation","name":"fwd","pid":0,"tid":7,"ts":10,"dur":40,"args":{"stream":7}},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":8,"ts":25,"dur":10,"args":{"stream":8,"correlation":2,"bytes":1000000}},
    {"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float","pid":0,"tid":9,"ts":40,"dur":10,"args":{"stream":9}}
  ]})J");
  const std::vector<EngineRow> rows = ComputeEngines(BuildProfileView(p, {}));
  std::map<std::string, EngineRow> by;
  for (const EngineRow& r : rows) by[r.engine] = r;
  ASSERT_EQ(rows.size(), 5u);  // 3 streams, thread 1, all devices
  constexpr Ps us = kPsPerUs;
  const EngineRow& s7 = by.at("GPU 0 stream 7");
  EXPECT_EQ(s7.window, 50 * us);
  EXPECT_EQ(s7.busy, 20 * us);
  EXPECT_EQ(s7.ops, 1);
  EXPECT_EQ(s7.idle(), 30 * us);
  EXPECT_DOUBLE_EQ(s7.utilisation(), 0.4);
  EXPECT_EQ(s7.compute, 20 * us);
  EXPECT_EQ(s7.transfer, 0);
  EXPECT_EQ(s7.bytes, -1);
  const EngineRow& s8 = by.at("GPU 0 stream 8");
  EXPECT_EQ(s8.busy, 10 * us);
  EXPECT_EQ(s8.transfer, 10 * us);
  EXPECT_EQ(s8.bytes, 1000000);
  EXPECT_EQ(s8.bytes_time, 10 * us);  // 1 MB in 10 us: 100 GB/s
  const EngineRow& s9 = by.at("GPU 0 stream 9");
  EXPECT_EQ(s9.transfer, 10 * us);  // communication
  EXPECT_EQ(s9.compute, 0);
  const EngineRow& host = by.at("thread 1");
  EXPECT_EQ(host.kind, "host");
  EXPECT_EQ(host.ops, 3);
  EXPECT_EQ(host.busy, 10 * us);
  const EngineRow& all = by.at("all devices");
  EXPECT_EQ(all.busy, 35 * us);  // [10,35) and [40,50)
  EXPECT_DOUBLE_EQ(all.utilisation(), 0.7);
  EXPECT_EQ(all.compute, 20 * us);
  EXPECT_EQ(all.transfer, 20 * us);
  EXPECT_EQ(all.bytes, 1000000);
  EXPECT_EQ(all.ops, 3);
  // The table's bandwidth column: 1 MB in 10 us = 1e11 B/s.
  const Table t = EngineTable(rows);
  const int bw = t.ColumnIndex("bandwidth"), eng = t.ColumnIndex("engine");
  ASSERT_GE(bw, 0);
  ASSERT_GE(eng, 0);
  bool seen = false;
  for (const auto& row : t.rows)
    if (std::get<std::string>(row[static_cast<size_t>(eng)].value) == "GPU 0 stream 8") {
      EXPECT_DOUBLE_EQ(std::get<double>(row[static_cast<size_t>(bw)].value), 1e11);
      seen = true;
    }
  EXPECT_TRUE(seen);
}

// The busy timeline on the same trace: window [0,50) in 5 bins of 10 us.
// Stream 7 (gemm [10,30)): bins 1 and 2 full. Stream 8 (copy [25,35)): half
// of bin 2, half of bin 3. All devices ([10,35), [40,50)): 0, 1, 1, 0.5, 1.
TEST(Engines, BusyTimelineBinsCountedByHand) {
  Profile p = testing::ProfileFromJson(R"J({"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":10},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":2,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":10,"dur":20,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":8,"ts":25,"dur":10,"args":{"stream":8,"bytes":100}},
    {"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float","pid":0,"tid":9,"ts":40,"dur":10,"args":{"stream":9}}
  ]})J");
  EngineTimeline tl;
  tl.bins = 5;
  const std::vector<EngineRow> rows = ComputeEngines(BuildProfileView(p, {}), &tl);
  EXPECT_EQ(tl.start, 0);
  EXPECT_EQ(tl.end, 50 * kPsPerUs);
  std::map<std::string, std::vector<float>> by;
  for (const EngineRow& r : rows) by[r.engine] = r.busy_bins;
  EXPECT_EQ(by.at("GPU 0 stream 7"), (std::vector<float>{0, 1, 1, 0, 0}));
  EXPECT_EQ(by.at("GPU 0 stream 8"), (std::vector<float>{0, 0, 0.5f, 0.5f, 0}));
  EXPECT_EQ(by.at("all devices"), (std::vector<float>{0, 1, 1, 0.5f, 1}));
  EXPECT_EQ(by.at("thread 1"), (std::vector<float>{1, 0, 0, 0, 0}));
  // Without a timeline no bins are kept.
  for (const EngineRow& r : ComputeEngines(BuildProfileView(p, {}))) EXPECT_TRUE(r.busy_bins.empty());
}

// Bins that do not divide the window: [0,9) in 3 bins of 3 ps: [0,5) fills
// bin 0 and 2/3 of bin 1. [0,10) in 3 bins of 10/3 ps: edges at 0, 3
// (floor 3.33), 6 (floor 6.67), 10; [0,5) fills bin 0 (3 of 3) and 2 of
// bin 1's 3 ps, [5,10) the rest of bin 1 (1 of 3) and all of bin 2.
TEST(Engines, AddToBinsUnevenBins) {
  std::vector<float> bins(3, 0.0f);
  AddToBins({{0, 5}}, 0, 9, bins);  // bins [0,3) [3,6) [6,9): 1, 2/3, 0
  EXPECT_FLOAT_EQ(bins[0], 1.0f);
  EXPECT_FLOAT_EQ(bins[1], 2.0f / 3.0f);
  EXPECT_FLOAT_EQ(bins[2], 0.0f);
  std::vector<float> uneven(3, 0.0f);
  AddToBins({{0, 5}}, 0, 10, uneven);
  EXPECT_FLOAT_EQ(uneven[0], 1.0f);
  EXPECT_FLOAT_EQ(uneven[1], 2.0f / 3.0f);
  EXPECT_FLOAT_EQ(uneven[2], 0.0f);
  AddToBins({{5, 10}}, 0, 10, uneven);
  EXPECT_FLOAT_EQ(uneven[1], 1.0f);
  EXPECT_FLOAT_EQ(uneven[2], 1.0f);
  std::vector<float> one(1, 0.0f);
  AddToBins({{2, 4}, {6, 8}}, 0, 10, one);
  EXPECT_FLOAT_EQ(one[0], 0.4f);
  std::vector<float> empty;
  AddToBins({{0, 5}}, 0, 10, empty);  // no bins: nothing to do
  EXPECT_TRUE(empty.empty());
}

}  // namespace
}  // namespace mlprof
