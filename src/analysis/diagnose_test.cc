// mlprof diagnose's rules on hand-made traces: each must fire where its
// saving is worked out below, and stay silent on a trace without the
// problem. Times in us; traces without ProfilerSteps count as one step, the
// trace window (first op start to last op end), so saving = the time lost.
#include "analysis/diagnose.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "../../tests/test_util.h"
#include "analysis/xla.h"
#include "io/load.h"

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

// Protobuf pieces for a hand-built HloProto (field numbers as
// hlo/proto_reader.cc reads them: xla/service/hlo.proto).
std::string PbVarint(uint64_t v) { return testing::EncodeVarint(v); }
std::string PbLen(uint32_t field, const std::string& body) {
  return PbVarint(field << 3 | 2) + PbVarint(body.size()) + body;
}
std::string PbInt(uint32_t field, uint64_t v) { return PbVarint(field << 3) + PbVarint(v); }
std::string PbPacked(uint32_t field, const std::vector<int64_t>& v) {
  std::string b;
  for (int64_t x : v) b += PbVarint(static_cast<uint64_t>(x));
  return PbLen(field, b);
}
std::string PbShape(const std::vector<int64_t>& dims) {  // f32, row-major
  std::vector<int64_t> order;
  for (size_t i = dims.size(); i-- > 0;) order.push_back(static_cast<int64_t>(i));
  return PbInt(2, 11) + PbPacked(3, dims) + PbLen(5, PbPacked(1, order));
}
// An instruction: name, opcode, shape, id, operands, op_name metadata.
std::string PbInstr(const std::string& name, const std::string& opcode, const std::string& shape, int id,
                    const std::vector<int64_t>& operands, const std::string& op_name, const std::string& extra = "") {
  return PbLen(1, name) + PbLen(2, opcode) + PbLen(3, shape) + PbInt(35, static_cast<uint64_t>(id)) +
         (operands.empty() ? "" : PbPacked(36, operands)) + (op_name.empty() ? "" : PbLen(7, PbLen(2, op_name))) +
         extra;
}

// Module m: p0 = f32[4,8] parameter(0); ag-start = all-gather-start(p0),
// replica_groups {{0,1},{2,3}} (groups of 2); ag-done = all-gather-done
// (f32[8,8]); a fusion named by JAX as recomputed (rematted_computation)
// and one in the backward pass (transpose(jvp(...))). The device line runs
// fusion.fwd [0,40), fusion.remat [40,60), fusion.bwd [60,80),
// all-gather-done [80,100): 100 us traced, no steps, so the trace is the
// step. Async wait: 20 us (20 %) behind an all-gather of groups of 2.
// Recompute: 20 us (20 %); backward = remat + bwd = 40 us, so recompute is
// 50 % of it.
TEST(Diagnose, XlaWaitNamesItsCollectiveAndRecomputeFromHlo) {
  const std::string p0 = PbInstr("p0", "parameter", PbShape({4, 8}), 1, {}, "", PbInt(9, 0));
  const std::string tuple = PbInt(2, 13) + PbLen(4, PbShape({4, 8})) + PbLen(4, PbShape({8, 8}));
  const std::string start =
      PbInstr("all-gather-start.3", "all-gather-start", tuple, 2, {1}, "jit(f)/all_gather",
              PbPacked(14, {0}) + PbLen(49, PbPacked(1, {0, 1})) + PbLen(49, PbPacked(1, {2, 3})));
  const std::string done =
      PbInstr("all-gather-done.3", "all-gather-done", PbShape({8, 8}), 3, {2}, "jit(f)/all_gather");
  const std::string fwd = PbInstr("fusion.fwd", "negate", PbShape({8, 8}), 4, {3}, "jit(f)/jvp(layer)/mul");
  const std::string remat = PbInstr("fusion.remat", "negate", PbShape({8, 8}), 5, {4},
                                    "jit(f)/transpose(jvp(layer))/rematted_computation/mul");
  const std::string bwd = PbInstr("fusion.bwd", "negate", PbShape({8, 8}), 6, {5}, "jit(f)/transpose(jvp(layer))/mul");
  const std::string comp = PbLen(1, "main") + PbLen(2, p0) + PbLen(2, start) + PbLen(2, done) + PbLen(2, fwd) +
                           PbLen(2, remat) + PbLen(2, bwd) + PbInt(5, 10) + PbInt(6, 6);
  const std::string proto = PbLen(1, PbLen(1, "m") + PbLen(2, "main") + PbLen(3, comp) + PbInt(6, 10));

  Profile p = testing::ProfileFromJson(R"J({"traceEvents":[
    {"ph":"M","name":"process_name","pid":3,"args":{"name":"/device:TPU:0"}},
    {"ph":"M","name":"thread_name","pid":3,"tid":1,"args":{"name":"XLA Ops"}},
    {"ph":"X","pid":3,"tid":1,"ts":0,"dur":40,"name":"fusion.fwd","args":{"hlo_op":"fusion.fwd","hlo_module":"m","hlo_category":"loop fusion"}},
    {"ph":"X","pid":3,"tid":1,"ts":40,"dur":20,"name":"fusion.remat","args":{"hlo_op":"fusion.remat","hlo_module":"m","hlo_category":"loop fusion"}},
    {"ph":"X","pid":3,"tid":1,"ts":60,"dur":20,"name":"fusion.bwd","args":{"hlo_op":"fusion.bwd","hlo_module":"m","hlo_category":"loop fusion"}},
    {"ph":"X","pid":3,"tid":1,"ts":80,"dur":20,"name":"all-gather-done.3","args":{"hlo_op":"all-gather-done.3","hlo_module":"m","hlo_category":"async wait"}}
  ]})J");
  ASSERT_EQ(p.ranks.size(), 1u);
  p.ranks[0].hlo_protos.push_back({"m", proto});
  const XlaOps x = ResolveXlaOps(p.ranks[0]);
  ASSERT_TRUE(x.problems.empty()) << x.problems.front();
  ASSERT_EQ(x.modules.size(), 1u);
  DiagnoseInputs in;
  in.xla[0] = &x;
  const auto all = Diagnose(BuildProfileView(p, {}), {}, in);
  const auto w = Of(all, Rule::async_wait);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].saving, 20 * us);
  EXPECT_NE(w[0].evidence.find("all-gather-done.3 0.020 ms (all-gather, groups of 2: {{0,1},{2,3}})"),
            std::string::npos)
      << w[0].evidence;
  const auto r = Of(all, Rule::recompute);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].saving, 20 * us);
  EXPECT_NE(r[0].evidence.find("fusion.remat 0.020 ms"), std::string::npos) << r[0].evidence;
  EXPECT_NE(r[0].evidence.find("the backward pass takes 0.040 ms, so recompute is 50.0 % of it"), std::string::npos)
      << r[0].evidence;
}

// tf.data: two IteratorGetNext ops on the host, [0,30) and [100,120), with
// the async DoCompute of the second [100,125) overlapping it, and a 60 us
// kernel [40,100) and another [130,200): no steps, so the window is the
// trace [0,200) and the step 200 us. Input wait = union 30 + 25 = 55 us
// (27.5 %). Waits of 3 and 2 us in the same trace are 2.5 %: silent.
TEST(Diagnose, InputPipelineTfData) {
  auto trace = [](int dur) {
    return fmt::format(R"J({{"traceEvents":[
    {{"ph":"X","cat":"cpu_op","name":"IteratorGetNext","pid":1,"tid":1,"ts":0,"dur":{}}},
    {{"ph":"X","cat":"cpu_op","name":"IteratorGetNextAsOptional","pid":1,"tid":1,"ts":100,"dur":{}}},
    {{"ph":"X","cat":"cpu_op","name":"IteratorGetNextAsOptionalOp::DoCompute","pid":1,"tid":2,"ts":100,"dur":{}}},
    {{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":40,"dur":60,"args":{{"stream":7}}}},
    {{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":130,"dur":70,"args":{{"stream":7}}}}
  ]}})J",
                       dur, dur * 2 / 3, dur * 5 / 6);
  };
  const auto f = Of(DiagnoseJson(trace(30)), Rule::input_pipeline);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].step, 200 * us);
  EXPECT_EQ(f[0].saving, 55 * us);
  EXPECT_NE(f[0].evidence.find("IteratorGetNext* ops run while no GPU op does for 0.055 ms, in 3 calls (the "
                               "longest 0.030 ms)"),
            std::string::npos)
      << f[0].evidence;
  EXPECT_TRUE(Of(DiagnoseJson(trace(3)), Rule::input_pipeline).empty());  // 3 + 2 us: 2.5 %
  // The same 30 us wait under a kernel: the GPU is busy, the step does not
  // wait for input.
  EXPECT_TRUE(Of(DiagnoseJson(R"J({"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"IteratorGetNext","pid":1,"tid":1,"ts":0,"dur":60},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":100,"args":{"stream":7}}
  ]})J"),
                 Rule::input_pipeline)
                  .empty());
}

// Kernel a [0,10) launched at 0; cudaStreamWaitEvent at 12, then kernel b
// launched [14,16) and run at [80,90): the host had submitted b at 16, six
// us after the GPU drained at 10, so 6 us are the host's (under the 30 us
// threshold: no host-wait gap) and [16,80) = 64 us the GPU idled with b
// queued. Window [0,90): 64 of 90 us. Kernel c from a cudaGraphLaunch
// waiting likewise is left out (graph kernels may run unrecorded).
TEST(Diagnose, QueuedIdleFires) {
  const auto all = DiagnoseJson(R"J({"traceEvents":[
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":1,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":0,"dur":10,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaStreamWaitEvent","pid":1,"tid":1,"ts":12,"dur":1,"args":{"correlation":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":14,"dur":2,"args":{"correlation":3}},
    {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":80,"dur":10,"args":{"stream":7,"correlation":3}}
  ]})J");
  const auto q = Of(all, Rule::queued_idle);
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].saving, 64 * us);
  EXPECT_EQ(q[0].step, 90 * us);
  EXPECT_NE(q[0].evidence.find("0.064 ms in 1 gaps"), std::string::npos) << q[0].evidence;
  EXPECT_NE(q[0].evidence.find("before b (submitted by cudaLaunchKernel 0.064 ms earlier); a cudaStreamWaitEvent "
                               "call 0.002 ms before the launch"),
            std::string::npos)
      << q[0].evidence;
  EXPECT_TRUE(Of(all, Rule::host_wait_idle).empty());
  // The same wait behind a graph launch: not counted, but said in a note.
  std::vector<DiagnoseNote> notes;
  const auto g = Diagnose(BuildProfileView(testing::ProfileFromJson(R"J({"traceEvents":[
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":1,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":0,"dur":10,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":14,"dur":2,"args":{"correlation":3}},
    {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":80,"dur":10,"args":{"stream":7,"correlation":3}}
  ]})J"),
                                           {}),
                          {}, {}, &notes);
  EXPECT_TRUE(Of(g, Rule::queued_idle).empty());
  EXPECT_TRUE(Of(g, Rule::host_wait_idle).empty());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rank, 0);
  EXPECT_NE(notes[0].text.find("Rank 0: the GPU shows nothing for 0.064 ms in 1 gaps"), std::string::npos)
      << notes[0].text;
}

// Launch latency is no queue: b runs 20 us after its launch returned (under
// the 30 us threshold), so the 50 us gap [10,60) stays the host's.
TEST(Diagnose, QueuedIdleSilentForLaunchLatency) {
  const auto all = DiagnoseJson(R"J({"traceEvents":[
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":1,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":0,"dur":10,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":38,"dur":2,"args":{"correlation":2}},
    {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":60,"dur":10,"args":{"stream":7,"correlation":2}}
  ]})J");
  EXPECT_TRUE(Of(all, Rule::queued_idle).empty());
  const auto h = Of(all, Rule::host_wait_idle);
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0].saving, 50 * us);
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

// The evidence counts the ranks with steady steps, not every rank (the
// cross-rank rule's input as the MPI combine gives it).
TEST(Diagnose, StragglerCountsRanksWithSteadySteps) {
  std::vector<StepSummary> summary = {{0, 4, 3, 200, 190, 150, 100, StepSource::kProfilerStep, ""},
                                      {1, 4, 3, 200, 190, 180, 150, StepSource::kProfilerStep, ""},
                                      {2, 1, 0, 0, 0, 0, 0, StepSource::kProfilerStep, ""}};
  const auto f = CrossRankFindings(summary, {});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].subject, "rank 1");
  EXPECT_EQ(f[0].saving, 50 * us);
  EXPECT_NE(f[0].evidence.find("; 2 ranks with steady steps"), std::string::npos) << f[0].evidence;
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

namespace mlprof {
namespace {

// TraceLens's own report on its ResNet activation-checkpointing trace
// (corpus tracelens/tests/traces/mi300/resnet_act_checkpoint_recompute_
// perf_report_csvs/ops_summary_by_category.csv, is_recompute=True rows):
// CONV_fwd 2.228345 ms (aten::miopen_convolution x57), NORM_fwd 1.368784 ms
// (aten::native_batch_norm x57), elementwise 0.525108 ms (aten::add_ 0.296041
// + aten::clamp_min_ 0.229068), 4.122238 ms in all. Over every step (no
// warm-up, the last step kept) the recompute rule's total is the same.
TEST(DiagnoseCorpus, RecomputeMatchesTraceLens) {
  MLPROF_CORPUS_FILE(path, "tracelens/tests/traces/mi300/resnet_act_checkpoint.json.gz");
  auto p = LoadProfile({path}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  AnalysisOptions ao;
  ao.drop_last_step = false;
  DiagnoseOptions o;
  o.warmup = 0;
  const auto f = Of(Diagnose(BuildProfileView(*p, ao), o, {}), Rule::recompute);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].evidence.find("591 ops, 4.122 ms; the largest: aten::miopen_convolution 2.228 ms, "
                               "aten::native_batch_norm 1.369 ms, aten::add_ 0.296 ms"),
            std::string::npos)
      << f[0].evidence;
  // 3 steps: 4.122238 / 3 per step.
  EXPECT_NEAR(static_cast<double>(f[0].saving) / us, 4122.238 / 3, 0.01);
}

}  // namespace
}  // namespace mlprof

namespace mlprof {
namespace wait_split_test {

// Rank 0's all-to-all starts at 0 us and runs 100 us, none of it
// overlapped; rank 1's starts at 80 and runs 20. Rank 0 waits 80 us for
// rank 1 and transfers 20: its exposed_communication keeps 20 us as the
// saving, and rank 1 is the straggler the others wait 80 us for.
TEST(Diagnose, ExposedCommunicationSplitIntoWaitAndTransfer) {
  constexpr Ps US = kPsPerUs;
  std::vector<CommArrival> arrivals = {{0, "all-to-all", 0, 0, 100 * US, {{0, 100 * US}}},
                                       {1, "all-to-all", 0, 80 * US, 20 * US, {{0, 20 * US}}}};
  // Rank 1, the late one, has the shorter step (it does not wait).
  std::vector<RankBasis> bases = {{0, 1000 * US, 1000 * US, 2}, {1, 800 * US, 800 * US, 2}};
  Finding f;
  f.rule = Rule::exposed_communication;
  f.rank = 0;
  f.saving = 100 * US;
  f.step = 1000 * US;
  std::vector<Finding> findings = {f};
  DiagnoseOptions o;
  o.min_saving = 1 * US;
  o.min_share = 0.001;
  std::vector<std::string> notes;
  SplitCommunicationWait(findings, arrivals, bases, o, &notes);
  ASSERT_EQ(findings.size(), 2u);
  const Finding* straggler = nullptr;
  const Finding* exposed = nullptr;
  for (const Finding& x : findings) (x.rule == Rule::stragglers ? straggler : exposed) = &x;
  ASSERT_NE(straggler, nullptr);
  ASSERT_NE(exposed, nullptr);
  EXPECT_EQ(exposed->saving, 20 * US);
  EXPECT_NE(exposed->evidence.find("0.080 ms per step is waiting for the last rank to arrive (mostly rank 1)"),
            std::string::npos);
  EXPECT_EQ(straggler->subject, "rank 1");
  EXPECT_EQ(straggler->saving, 80 * US);
  EXPECT_EQ(straggler->step, 1000 * US);  // the waiting rank 0's step, not rank 1's 800 us
  EXPECT_TRUE(notes.empty());
  // Ranks with different numbers of a kind's kernels are not matched: said.
  arrivals.push_back({1, "all-to-all", 1, 200 * US, 20 * US, {}});
  findings = {f};
  SplitCommunicationWait(findings, arrivals, bases, o, &notes);
  EXPECT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].saving, 100 * US);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("Not split into waiting and transfer: all-to-all"), std::string::npos);
  // Two ranks of a job of 8: the rank everyone waits for may be missing.
  for (RankBasis& b : bases) b.world_size = 8;
  findings = {f};
  notes.clear();
  SplitCommunicationWait(findings, arrivals, bases, o, &notes);
  EXPECT_EQ(findings.size(), 1u);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("these inputs hold 2 of the job's 8 ranks"), std::string::npos);
}

}  // namespace wait_split_test
}  // namespace mlprof

namespace mlprof {
namespace diagnose_advice_test {

std::vector<Finding> DiagnoseOn(const std::string& device, const std::string& events) {
  const std::string props = device.empty() ? "" : R"("deviceProperties":[{"id":0,"name":")" + device + R"("}],)";
  return DiagnoseJson("{" + props + R"("traceEvents":[)" + events + "]}");
}

// An A100 (fp32 19.5, tf32 156 TFLOP/s: a ratio of 8): an sgemm [0,800)
// and another kernel [800,1000); window 1000 us. Saving: 800 x (1 - 1/8) = 700.
constexpr const char* kSgemm = R"J(
    {"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_tn","pid":0,"tid":7,"ts":0,"dur":800,"args":{"stream":7}},
    {"ph":"X","cat":"kernel","name":"elementwise","pid":0,"tid":7,"ts":800,"dur":200,"args":{"stream":7}})J";

TEST(DiagnoseAdvice, Fp32MatmulFires) {
  const auto f = Of(DiagnoseOn("NVIDIA A100-SXM4-80GB", kSgemm), Rule::fp32_matmul);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].saving, 700 * us);
  EXPECT_NE(f[0].evidence.find(
                "1 SIMT fp32 GEMM kernels (sgemm) run 0.800 ms in the trace (80.0 % of the GPU's kernel time there)"),
            std::string::npos)
      << f[0].evidence;
}

// The same kernels with no device named (no chip: no ratio), and on an A100
// with a tensor-core GEMM instead: silent.
TEST(DiagnoseAdvice, Fp32MatmulSilent) {
  EXPECT_TRUE(Of(DiagnoseOn("", kSgemm), Rule::fp32_matmul).empty());
  EXPECT_TRUE(Of(DiagnoseOn("NVIDIA A100-SXM4-80GB", R"J(
    {"ph":"X","cat":"kernel","name":"ampere_bf16_s16816gemm_bf16_128x64","pid":0,"tid":7,"ts":0,"dur":800,"args":{"stream":7}},
    {"ph":"X","cat":"kernel","name":"elementwise","pid":0,"tid":7,"ts":800,"dur":200,"args":{"stream":7}})J"),
                 Rule::fp32_matmul)
                  .empty());
}

// A pageable copy [0,100) of 1 MB beside a kernel [50,150): 50 us with no
// computation beside it, of a 150 us window.
TEST(DiagnoseAdvice, PageableCopiesFire) {
  const auto f = Of(DiagnoseOn("", R"J(
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":0,"dur":100,"args":{"stream":7,"bytes":1000000}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":8,"ts":50,"dur":100,"args":{"stream":8}})J"),
                    Rule::pageable_copies);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].saving, 50 * us);
  EXPECT_NE(f[0].evidence.find("1 host-to-device copies from pageable memory: 0.100 ms, 0.001 GB"), std::string::npos)
      << f[0].evidence;
}

// The same copy from pinned memory: silent.
TEST(DiagnoseAdvice, PageableCopiesSilentWhenPinned) {
  EXPECT_TRUE(Of(DiagnoseOn("", R"J(
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":7,"ts":0,"dur":100,"args":{"stream":7,"bytes":1000000}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":8,"ts":50,"dur":100,"args":{"stream":8}})J"),
                 Rule::pageable_copies)
                  .empty());
}

// Twelve launches: eleven of 5 us and one of `slow` us, each at 10k + a
// shift after the slow one, launching a 2 us kernel.
std::string Launches(int slow) {
  std::string ev;
  int64_t t = 0;
  for (int i = 0; i < 12; ++i) {
    const int dur = i == 3 ? slow : 5;
    ev += fmt::format(
        R"J({}{{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":{},"dur":{},"args":{{"correlation":{}}}}},
        {{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":{},"dur":2,"args":{{"stream":7,"correlation":{}}}}})J",
        i ? "," : "", t, dur, i + 1, t + dur + 1, i + 1);
    t += dur + 10;
  }
  return ev;
}

// The 2000 us launch is 400 x the median 5 us and over 1 ms: its excess
// 1995 us over the median is the saving (window: the whole trace).
TEST(DiagnoseAdvice, SlowHostCallFires) {
  const auto f = Of(DiagnoseOn("", Launches(2000)), Rule::slow_host_call);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].saving, 1995 * us);
  EXPECT_NE(f[0].evidence.find("one cudaLaunchKernel took 2.000 ms where the median of its 12 calls is 0.005 ms"),
            std::string::npos)
      << f[0].evidence;
}

// 800 us: 160 x the median but under 1 ms: silent.
TEST(DiagnoseAdvice, SlowHostCallSilentUnderOneMs) {
  EXPECT_TRUE(Of(DiagnoseOn("", Launches(800)), Rule::slow_host_call).empty());
}
}  // namespace diagnose_advice_test
}  // namespace mlprof

namespace mlprof {
namespace diagnose_loader_test {

// No ProfilerStep; three optimizer steps end at 100, 200 and 300 us, so the
// steps are [100,200) and [200,300). In each the DataLoader loads for 40 us
// ([110,150), [210,250)) while no kernel runs (kernels [150,200),
// [250,300)): 40 us of GPU idle per 100 us step, whichever steps the
// warm-up leaves.
TEST(DiagnoseAdvice, InputPipelineWithOptimizerSteps) {
  std::string ev;
  for (int k = 0; k < 3; ++k)
    ev += fmt::format(
        R"J({}{{"ph":"X","cat":"user_annotation","name":"Optimizer.step#SGD.step","pid":1,"tid":1,"ts":{},"dur":5}})J",
        k ? "," : "", 100 * k + 95);
  for (int k = 1; k < 3; ++k)
    ev += fmt::format(
        R"J(,{{"ph":"X","cat":"user_annotation","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","pid":1,"tid":1,"ts":{},"dur":40}},
        {{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":{},"dur":50,"args":{{"stream":7}}}})J",
        100 * k + 10, 100 * k + 50);
  const auto all = Diagnose(BuildProfileView(testing::ProfileFromJson(R"({"traceEvents":[)" + ev + "]}"), {}), {});
  std::vector<Finding> f;
  for (const Finding& x : all)
    if (x.rule == Rule::input_pipeline) f.push_back(x);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].saving, 40 * kPsPerUs);
  EXPECT_EQ(f[0].step, 100 * kPsPerUs);
  EXPECT_NE(f[0].evidence.find("DataLoader __next__ calls (the longest 0.040 ms)"), std::string::npos) << f[0].evidence;
}

}  // namespace diagnose_loader_test
}  // namespace mlprof
