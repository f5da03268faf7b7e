// mlprof diagnose's rules on hand-made traces: each must fire where its
// saving is worked out below, and stay silent on a trace without the
// problem. Times in us; traces without ProfilerSteps count as one step, the
// trace window (first op start to last op end), so saving = the time lost.
#include "analysis/diagnose.h"

#include <gtest/gtest.h>

#include "../../tests/test_util.h"

namespace mlprof {
namespace {

constexpr Ps us = kPsPerUs;

std::vector<Finding> Of(const std::vector<Finding>& all, Rule r) {
  std::vector<Finding> out;
  for (const Finding& f : all)
    if (f.rule == r) out.push_back(f);
  return out;
}

std::vector<Finding> DiagnoseJson(const std::string& json) {
  return Diagnose(BuildProfileView(testing::ProfileFromJson(json), {}), {});
}

// gemm [0,40) on stream 7, all-reduce [30,90) on stream 9: communication 60,
// overlapped 10 (30-40), exposed 50; window [0,90): saving 50 of 90 us.
TEST(Diagnose, ExposedCommunicationFires) {
  const auto f = Of(DiagnoseJson(R"J({"traceEvents":[
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":0,"dur":40,"args":{"stream":7}},
    {"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float","pid":0,"tid":9,"ts":30,"dur":60,"args":{"stream":9}}
  ]})J"),
                    Rule::exposed_communication);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].saving, 50 * us);
  EXPECT_EQ(f[0].step, 90 * us);
  EXPECT_NEAR(f[0].saving_pct(), 100.0 * 50 / 90, 1e-9);
  EXPECT_NE(f[0].formula.find("communication 0.060 ms - overlapped 0.010 ms"), std::string::npos) << f[0].formula;
}

// The all-reduce [10,30) runs wholly under the gemm [0,40): nothing exposed.
TEST(Diagnose, ExposedCommunicationSilentWhenOverlapped) {
  EXPECT_TRUE(Of(DiagnoseJson(R"J({"traceEvents":[
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":0,"dur":40,"args":{"stream":7}},
    {"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float","pid":0,"tid":9,"ts":10,"dur":20,"args":{"stream":9}}
  ]})J"),
                 Rule::exposed_communication)
                  .empty());
}

// Kernel A [10,20) launched by [0,5); kernel B [70,80) launched by [60,65),
// after the GPU drained at 20: a host-wait gap of 50 in a window [0,80).
TEST(Diagnose, HostWaitFires) {
  const auto all = DiagnoseJson(R"J({"traceEvents":[
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":5,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":10,"dur":10,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":60,"dur":5,"args":{"correlation":2}},
    {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":70,"dur":10,"args":{"stream":7,"correlation":2}}
  ]})J");
  const auto f = Of(all, Rule::host_wait_idle);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].saving, 50 * us);
  EXPECT_EQ(f[0].step, 80 * us);
  EXPECT_TRUE(Of(all, Rule::sync_stalls).empty());      // no synchronisation
  EXPECT_TRUE(Of(all, Rule::launch_overhead).empty());  // kernels longer than their launches
}

// The same gap, but B was launched at [12,15), before the GPU drained: the
// GPU idles for another reason (not the host), so no finding.
TEST(Diagnose, HostWaitSilentWhenWorkWasQueued) {
  EXPECT_TRUE(Of(DiagnoseJson(R"J({"traceEvents":[
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":5,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":10,"dur":10,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":12,"dur":3,"args":{"correlation":2}},
    {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":70,"dur":10,"args":{"stream":7,"correlation":2}}
  ]})J"),
                 Rule::host_wait_idle)
                  .empty());
}

// As HostWaitFires, with the host in cudaDeviceSynchronize [15,21) as the
// GPU drains at 20: the 50 us gap that follows is a sync stall (and host
// wait); window [0,80).
TEST(Diagnose, SyncStallFires) {
  const auto all = DiagnoseJson(R"J({"traceEvents":[
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":5,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":10,"dur":10,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":15,"dur":6},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":60,"dur":5,"args":{"correlation":2}},
    {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":70,"dur":10,"args":{"stream":7,"correlation":2}}
  ]})J");
  const auto f = Of(all, Rule::sync_stalls);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].saving, 50 * us);
  EXPECT_NE(f[0].evidence.find("cudaDeviceSynchronize x1"), std::string::npos) << f[0].evidence;
  EXPECT_EQ(Of(all, Rule::host_wait_idle).size(), 1u);
}

// A sync the GPU does not wait on: the host syncs [30,40) while kernel B
// [25,75) (launched [20,22)) keeps the GPU busy; no gap follows it.
TEST(Diagnose, SyncStallSilentWhenTheGpuStaysBusy) {
  EXPECT_TRUE(Of(DiagnoseJson(R"J({"traceEvents":[
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":5,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":10,"dur":15,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":2,"args":{"correlation":2}},
    {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":25,"dur":50,"args":{"stream":7,"correlation":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":1,"tid":1,"ts":30,"dur":10}
  ]})J"),
                 Rule::sync_stalls)
                  .empty());
}

// Ten launches of 10 us back to back ([10i, 10i+10)), each kernel 2 us at
// [10i+11, 10i+13): the GPU idles 8 us between kernels, waiting for the next
// launch (9 gaps: 72 us); launch time beyond the kernels 10 x 8 = 80 us;
// saving min(80, 72) = 72 us in a window [0,103). The gaps are under the
// 30 us kernel-wait threshold, so host_wait_idle stays silent.
TEST(Diagnose, LaunchOverheadFires) {
  std::string ev;
  for (int i = 0; i < 10; ++i)
    ev += (i ? "," : "") +
          std::string(R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)") +
          std::to_string(10 * i) + R"(,"dur":10,"args":{"correlation":)" + std::to_string(i + 1) + "}}," +
          R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(10 * i + 11) +
          R"(,"dur":2,"args":{"stream":7,"correlation":)" + std::to_string(i + 1) + "}}";
  const auto all = DiagnoseJson(R"({"traceEvents":[)" + ev + "]}");
  const auto f = Of(all, Rule::launch_overhead);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].saving, 72 * us);
  EXPECT_EQ(f[0].step, 103 * us);
  EXPECT_NE(f[0].evidence.find("10 of 10 kernels (100 %)"), std::string::npos) << f[0].evidence;
  EXPECT_TRUE(Of(all, Rule::host_wait_idle).empty());
}

// The same launches with 20 us kernels: longer than their launches; silent.
TEST(Diagnose, LaunchOverheadSilentForLongKernels) {
  std::string ev;
  for (int i = 0; i < 10; ++i)
    ev += (i ? "," : "") +
          std::string(R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)") +
          std::to_string(10 * i) + R"(,"dur":10,"args":{"correlation":)" + std::to_string(i + 1) + "}}," +
          R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(20 * i + 11) +
          R"(,"dur":20,"args":{"stream":7,"correlation":)" + std::to_string(i + 1) + "}}";
  EXPECT_TRUE(Of(DiagnoseJson(R"({"traceEvents":[)" + ev + "]}"), Rule::launch_overhead).empty());
}

// A launch call longer than 50 us (a lazy module load) is not launch cost:
// one 100 us call for a 2 us kernel, then a 5 us call for a 20 us kernel.
TEST(Diagnose, LaunchOverheadLeavesOutLongCalls) {
  EXPECT_TRUE(Of(DiagnoseJson(R"J({"traceEvents":[
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":100,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":101,"dur":2,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":100,"dur":5,"args":{"correlation":2}},
    {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":106,"dur":20,"args":{"stream":7,"correlation":2}}
  ]})J"),
                 Rule::launch_overhead)
                  .empty());
}

// With ProfilerSteps the window is the steady steps the view keeps: four
// 100 us steps, step 0 is warm-up and step 3 is dropped by the last-step
// filter, so the window is [100,300) (200 us) and the median step 100 us.
// Kernels: W [10,20) (step 0), A [110,120), B [170,180) (step 1), C
// [210,290) (step 2), D [310,320) (step 3, dropped), each launched by a
// 5 us call at its step's start or at 160 for B. Host-wait gaps: [20,110)
// (A's call ends at 105, after the GPU drained) of which 10 us fall in the
// window, [120,170) 50 us, [180,210) 30 us: 90 of 200 us, x the 100 us step
// = 45 us per step.
TEST(Diagnose, StepsWindowClipsLosses) {
  const auto f = Of(DiagnoseJson(R"J({"traceEvents":[
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#0","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":100,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":200,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":300,"dur":100},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":5,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"w","pid":0,"tid":7,"ts":10,"dur":10,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":100,"dur":5,"args":{"correlation":2}},
    {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":110,"dur":10,"args":{"stream":7,"correlation":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":160,"dur":5,"args":{"correlation":3}},
    {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":170,"dur":10,"args":{"stream":7,"correlation":3}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":200,"dur":5,"args":{"correlation":4}},
    {"ph":"X","cat":"kernel","name":"c","pid":0,"tid":7,"ts":210,"dur":80,"args":{"stream":7,"correlation":4}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":300,"dur":5,"args":{"correlation":5}},
    {"ph":"X","cat":"kernel","name":"d","pid":0,"tid":7,"ts":310,"dur":10,"args":{"stream":7,"correlation":5}}
  ]})J"),
                    Rule::host_wait_idle);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].step, 100 * us);
  EXPECT_EQ(f[0].saving, 45 * us);
  EXPECT_NE(f[0].formula.find("0.090 ms of the 0.200 ms of steady steps (45.0 %)"), std::string::npos) << f[0].formula;
}

// An XLA device line of 100 us: a convolution fusion [0,60), copy.2 [60,80)
// (data formatting), all-gather-done.3 [80,100) (async wait): each 20 of the
// 100 us traced (no steps: the trace is the step), 20 %.
TEST(Diagnose, XlaAsyncWaitAndDataFormatting) {
  const auto all = DiagnoseJson(R"J({"traceEvents":[
    {"ph":"M","name":"process_name","pid":3,"args":{"name":"/device:TPU:0"}},
    {"ph":"M","name":"thread_name","pid":3,"tid":1,"args":{"name":"XLA Ops"}},
    {"ph":"X","pid":3,"tid":1,"ts":0,"dur":60,"name":"fusion.1","args":{"hlo_op":"fusion.1","hlo_category":"convolution fusion"}},
    {"ph":"X","pid":3,"tid":1,"ts":60,"dur":20,"name":"copy.2","args":{"hlo_op":"copy.2","hlo_category":"data formatting"}},
    {"ph":"X","pid":3,"tid":1,"ts":80,"dur":20,"name":"all-gather-done.3","args":{"hlo_op":"all-gather-done.3","hlo_category":"async wait"}}
  ]})J");
  const auto w = Of(all, Rule::async_wait), d = Of(all, Rule::data_formatting);
  ASSERT_EQ(w.size(), 1u);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(w[0].saving, 20 * us);
  EXPECT_EQ(w[0].step, 100 * us);
  EXPECT_NE(w[0].evidence.find("all-gather-done.3 0.020 ms"), std::string::npos) << w[0].evidence;
  EXPECT_EQ(d[0].saving, 20 * us);
  EXPECT_NE(d[0].evidence.find("copy.2"), std::string::npos) << d[0].evidence;
  // A 3 us copy in the same 100 us is 3 %: under the 5 % threshold.
  EXPECT_TRUE(Of(DiagnoseJson(R"J({"traceEvents":[
    {"ph":"X","pid":3,"tid":1,"ts":0,"dur":97,"name":"fusion.1","args":{"hlo_op":"fusion.1","hlo_category":"convolution fusion"}},
    {"ph":"X","pid":3,"tid":1,"ts":97,"dur":3,"name":"copy.2","args":{"hlo_op":"copy.2","hlo_category":"data formatting"}}
  ]})J"),
                 Rule::data_formatting)
                  .empty());
}

// Three 100 us steps: in each, the DataLoader's __next__ runs [t, t+30) with
// no GPU op, then a kernel runs [t+35, t+95) (launched at t+30). The
// plugin's DataLoader role is 30 us per step; the median over the steps
// after the first is 30 us of the 100 us step.
TEST(Diagnose, InputPipelineFires) {
  std::string ev;
  for (int s = 0; s < 3; ++s) {
    const int t = 100 * s;
    ev +=
        (s ? "," : "") + std::string(R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)") + std::to_string(s) +
        R"(","pid":1,"tid":1,"ts":)" + std::to_string(t) + R"(,"dur":100},)" +
        R"({"ph":"X","cat":"user_annotation","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","pid":1,"tid":1,"ts":)" +
        std::to_string(t) + R"(,"dur":30},)" +
        R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" + std::to_string(t + 30) +
        R"(,"dur":3,"args":{"correlation":)" + std::to_string(s + 1) + "}}," +
        R"({"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":)" + std::to_string(t + 35) +
        R"(,"dur":60,"args":{"stream":7,"correlation":)" + std::to_string(s + 1) + "}}";
  }
  const auto f = Of(DiagnoseJson(R"({"traceEvents":[)" + ev + "]}"), Rule::input_pipeline);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].saving, 30 * us);
  EXPECT_EQ(f[0].step, 100 * us);
}

// Two ranks, three 200 us ProfilerSteps each (the first is warm-up); a
// step's gemm runs 100 us on rank 0 and `slow` us on rank 1. With slow =
// 150: rank 1 computes 50 us longer per step, 25 % of its 200 us step.
Profile TwoRanks(int slow) {
  Profile p;
  for (int rank = 0; rank < 2; ++rank) {
    std::string ev;
    const int gemm = rank == 0 ? 100 : slow;
    for (int s = 0; s < 3; ++s) {
      const int t = 200 * s;
      ev += (s ? "," : "") + std::string(R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)") +
            std::to_string(s) + R"(","pid":1,"tid":1,"ts":)" + std::to_string(t) + R"(,"dur":200},)" +
            R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
            std::to_string(t + 1) + R"(,"dur":2,"args":{"correlation":)" + std::to_string(s + 1) + "}}," +
            R"({"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":)" + std::to_string(t + 5) + R"(,"dur":)" +
            std::to_string(gemm) + R"(,"args":{"stream":7,"correlation":)" + std::to_string(s + 1) + "}}";
    }
    Profile one = testing::ProfileFromJson(R"({"distributedInfo":{"rank":)" + std::to_string(rank) +
                                           R"(,"world_size":2},"traceEvents":[)" + ev + "]}");
    p.ranks.push_back(std::move(one.ranks[0]));
  }
  return p;
}

TEST(Diagnose, StragglerFires) {
  const auto f = Of(Diagnose(BuildProfileView(TwoRanks(150), {}), {}), Rule::stragglers);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].subject, "rank 1");
  EXPECT_EQ(f[0].saving, 50 * us);
  EXPECT_EQ(f[0].step, 200 * us);
  EXPECT_DOUBLE_EQ(f[0].saving_pct(), 25.0);
}

// 104 us against 100 us: 4 us, 2 % of the step, under the 5 % threshold.
TEST(Diagnose, StragglerSilentWhenBalanced) {
  EXPECT_TRUE(Of(Diagnose(BuildProfileView(TwoRanks(104), {}), {}), Rule::stragglers).empty());
}

// Findings come largest saving first; every rule is declared with a title,
// a meaning and a fix.
TEST(Diagnose, SortedAndDeclared) {
  const auto all = DiagnoseJson(R"J({"traceEvents":[
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":5,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":10,"dur":10,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":60,"dur":5,"args":{"correlation":2}},
    {"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float","pid":0,"tid":9,"ts":70,"dur":30,"args":{"stream":9,"correlation":2}}
  ]})J");
  ASSERT_GE(all.size(), 2u);
  for (size_t i = 1; i < all.size(); ++i) EXPECT_GE(all[i - 1].saving, all[i].saving);
  for (size_t r = 0; r < kRuleCount; ++r) {
    const RuleInfo& info = InfoOf(static_cast<Rule>(r));
    EXPECT_GT(std::string(info.title).size(), 0u);
    EXPECT_GT(std::string(info.meaning).size(), 20u);
    EXPECT_GT(std::string(info.fix).size(), 20u);
  }
}

}  // namespace
}  // namespace mlprof
