// Analyses on a hand-made trace whose every figure is computed by hand in the
// comments below, plus a randomized check of the interval algebra against a
// brute-force per-nanosecond sweep.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "../../tests/test_util.h"
#include "analysis/gpu_time.h"
#include "analysis/host_ops.h"
#include "analysis/idle.h"
#include "analysis/kernel_class.h"
#include "analysis/launches.h"
#include "analysis/ops.h"
#include "analysis/steps.h"
#include "io/load.h"

namespace mlprof {
namespace {

using testing::ProfileFromJson;
constexpr Ps US = kPsPerUs;

// Host thread 1: ProfilerStep#1 [0,100)
//   aten::mm  [0,20)  ext 1 { cudaLaunchKernel [2,5)  corr 101 }
//   aten::add [30,40) ext 2 { cudaLaunchKernel [31,33) corr 102 }
//   aten::mm  [42,50) ext 4 { cudaLaunchKernel [43,45) corr 105 }
// Host thread 2: cudaMemcpyAsync [38,40) corr 103 (no cpu_op)
// Host thread 3: record_param_comms [50,55) ext 3 { cudaLaunchKernel [51,53) corr 104 }
// GPU stream 7:  gemm [10,30)  add [35,40)  Memcpy [48,49)  gemm [85,95)
// GPU stream 20: ncclKernel_AllReduce [53,90)
const char* kTrace = R"J({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":20,"args":{"External id":1,"Input Dims":[[4,4],[4,4]],"Input type":["float","float"]}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":3,"args":{"External id":1,"correlation":101}},
 {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":30,"dur":10,"args":{"External id":2,"Input Dims":[[4,4],[4,4],[]]}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":31,"dur":2,"args":{"External id":2,"correlation":102}},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":42,"dur":8,"args":{"External id":4,"Input Dims":[[4,4],[4,4]],"Input type":["float","float"]}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":43,"dur":2,"args":{"External id":4,"correlation":105}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":2,"ts":38,"dur":2,"args":{"correlation":103}},
 {"ph":"X","cat":"cpu_op","name":"record_param_comms","pid":1,"tid":3,"ts":50,"dur":5,"args":{"External id":3}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":3,"ts":51,"dur":2,"args":{"External id":3,"correlation":104}},
 {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":10,"dur":20,"args":{"stream":7,"correlation":101}},
 {"ph":"X","cat":"kernel","name":"void at::native::add_kernel","pid":0,"tid":7,"ts":35,"dur":5,"args":{"stream":7,"correlation":102}},
 {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":7,"ts":48,"dur":1,"args":{"stream":7,"correlation":103}},
 {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":85,"dur":10,"args":{"stream":7,"correlation":105}},
 {"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float","pid":0,"tid":20,"ts":53,"dur":37,"args":{"stream":20,"correlation":104}}
]})J";

class HandTrace : public ::testing::Test {
 protected:
  void SetUp() override {
    profile_ = ProfileFromJson(kTrace);
    view_ = BuildProfileView(profile_, {});
  }
  Profile profile_;
  ProfileView view_;
};

TEST_F(HandTrace, TemporalBreakdown) {
  auto t = ComputeTemporalBreakdown(view_);
  ASSERT_EQ(t.size(), 1u);
  // first GPU start 10, last end 95
  EXPECT_EQ(t[0].kernel_time, 85 * US);
  // union: [10,30) + [35,40) + [48,49) + [53,95) = 20 + 5 + 1 + 42 = 68
  EXPECT_EQ(t[0].idle, 17 * US);
  // COMPUTATION: 20 + 5 + 10
  EXPECT_EQ(t[0].compute, 35 * US);
  // 85 - 35 - 17: memcpy 1 + all-reduce alone [53,85) 32
  EXPECT_EQ(t[0].non_compute, 33 * US);
  EXPECT_EQ(t[0].communication, 37 * US);
  EXPECT_EQ(t[0].memory, 1 * US);
  EXPECT_NEAR(t[0].idle_pct(), 100.0 * 17 / 85, 1e-9);
}

TEST_F(HandTrace, Overlap) {
  auto o = ComputeOverlap(view_);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].comm, 37 * US);
  EXPECT_EQ(o[0].overlapped, 5 * US);  // gemm [85,95) & nccl [53,90)
  EXPECT_NEAR(o[0].pct(), 100.0 * 5 / 37, 1e-9);
}

// With HTA's rounding a sub-microsecond op ends before it starts
// ([10.2, 10.7] -> ts ceil 11, end floor 10): it covers no time and must not
// turn the sweep's running mask negative (which printed every class as
// overlapping on a trace with no communication kernel at all). By hand:
// gemm [12,20) = 8 us of COMPUTATION, the copy [14.5,16.5] -> [15,16) = 1 us
// of COMPUTATION overlapping MEMORY, so COMPUTATION alone is 7 us.
TEST(KernelTypes, RoundedNegativeOpsCoverNoTime) {
  Profile p = ProfileFromJson(R"({"traceEvents":[
   {"ph":"X","cat":"kernel","name":"tiny","pid":0,"tid":7,"ts":10.2,"dur":0.5,"args":{"stream":7}},
   {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":12,"dur":8,"args":{"stream":7}},
   {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":8,"ts":14.5,"dur":2,"args":{"stream":8}}]})");
  AnalysisOptions o;
  o.hta_rounding = true;
  KernelBreakdown k = ComputeKernelBreakdown(BuildProfileView(p, o), {});
  std::map<std::string, Ps> got;
  for (const auto& s : k.types) got[KernelTypeLabel(s.mask)] = s.time;
  EXPECT_EQ(got.size(), 2u);
  EXPECT_EQ(got["COMPUTATION"], 7 * US);
  EXPECT_EQ(got["COMPUTATION overlapping MEMORY"], 1 * US);
}

// A GPU category without a stream (MTIA's dma_request on its DMA_REQUEST
// thread) is not GPU work: HTA keeps only ops with a stream. The kernel span
// is the one real kernel's [0,10), not [0,40) with the DMA event.
TEST(GpuOps, WithoutAStreamAreNotGpuWork) {
  Profile p = ProfileFromJson(R"({"traceEvents":[
   {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":0,"dur":10,"args":{"stream":7}},
   {"ph":"X","cat":"mtia_ccp_events","name":"dma_request","pid":0,"tid":801,"ts":30,"dur":10}]})");
  const RankProfile& r = p.ranks[0];
  EXPECT_EQ(r.ops.size(), 2u);  // kept
  EXPECT_EQ(r.stats.count[static_cast<size_t>(ImportStat::gpu_op_without_stream)], 1u);
  int gpu_streams = 0;
  for (const auto& t : r.tracks) gpu_streams += t.kind == TrackKind::kGpuStream;
  EXPECT_EQ(gpu_streams, 1);
  auto t = ComputeTemporalBreakdown(BuildProfileView(p, {}));
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].kernel_time, 10 * US);
  EXPECT_EQ(t[0].idle, 0);
}

// Host ops by hand. Thread 1: outer [0,100) { aten::div [10,60) { aten::div
// [12,58) { cudaLaunchKernel [20,25) corr 1 } } aten::mul [70,80) {
// cudaLaunchKernel [72,74) corr 2 } }. Kernels: 30 us (corr 1), 5 us (corr 2).
// The inner aten::div is the only child of an aten::div: merged into it, as
// torch does, so its launch is the outer div's child.
//   outer: total 100, self 100 - 50 - 10 = 40, device total 35, self 0
//   aten::div: 1 call, total 50, self 50 - 5 = 45, device self = total = 30
//   aten::mul: total 10, self 8, device self = total = 5
//   cudaLaunchKernel: 2 calls, total = self = 7, no device time
TEST(HostOps, SelfTimeDuplicatesAndDeviceTime) {
  Profile p = ProfileFromJson(R"({"traceEvents":[
   {"ph":"X","cat":"cpu_op","name":"outer","pid":1,"tid":1,"ts":0,"dur":100},
   {"ph":"X","cat":"cpu_op","name":"aten::div","pid":1,"tid":1,"ts":10,"dur":50},
   {"ph":"X","cat":"cpu_op","name":"aten::div","pid":1,"tid":1,"ts":12,"dur":46},
   {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":5,"args":{"correlation":1}},
   {"ph":"X","cat":"cpu_op","name":"aten::mul","pid":1,"tid":1,"ts":70,"dur":10},
   {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":72,"dur":2,"args":{"correlation":2}},
   {"ph":"X","cat":"kernel","name":"div_kernel","pid":0,"tid":7,"ts":30,"dur":30,"args":{"stream":7,"correlation":1}},
   {"ph":"X","cat":"kernel","name":"mul_kernel","pid":0,"tid":7,"ts":80,"dur":5,"args":{"stream":7,"correlation":2}}]})");
  std::map<std::string, HostOpRow> got;
  for (const HostOpRow& r : ComputeHostOps(BuildProfileView(p, {}), {})) got[r.name] = r;
  ASSERT_EQ(got.size(), 4u);
  const HostOpRow &outer = got["outer"], &div = got["aten::div"], &mul = got["aten::mul"],
                  &launch = got["cudaLaunchKernel"];
  EXPECT_EQ(outer.calls, 1);
  EXPECT_EQ(outer.host_total, 100 * US);
  EXPECT_EQ(outer.host_self, 40 * US);
  EXPECT_EQ(outer.device_total, 35 * US);
  EXPECT_EQ(outer.device_self, 0);
  EXPECT_EQ(div.calls, 1);
  EXPECT_EQ(div.host_total, 50 * US);
  EXPECT_EQ(div.host_self, 45 * US);
  EXPECT_EQ(div.device_self, 30 * US);
  EXPECT_EQ(div.device_total, 30 * US);
  EXPECT_EQ(mul.host_self, 8 * US);
  EXPECT_EQ(mul.device_self, 5 * US);
  EXPECT_EQ(launch.calls, 2);
  EXPECT_EQ(launch.host_total, 7 * US);
  EXPECT_EQ(launch.host_self, 7 * US);
  EXPECT_EQ(launch.device_total, 0);
  EXPECT_EQ(launch.kind, OpKind::kRuntime);
}

// A CPU-only trace with shapes: aten::linear x[4,8] w[16,8] b[16] calls
// aten::addmm b[16] x[4,8] w^T[8,16]. Each costs 2·4·8·16 + 4·16 (bias) =
// 1088 FLOPs in its own row, but the nest is one GEMM: 1088 once, not 2176.
// An aten::mm outside it counts on its own: 2·2·3·4 = 48.
TEST(HostOps, FlopsOfNestedOpsCountedOnce) {
  Profile p = ProfileFromJson(R"({"traceEvents":[
   {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":0,"dur":10,
    "args":{"Input Dims":[[4,8],[16,8],[16]],"Input type":["float","float","float"]}},
   {"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":2,"dur":6,
    "args":{"Input Dims":[[16],[4,8],[8,16],[],[]],"Input type":["float","float","float","Scalar","Scalar"]}},
   {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":20,"dur":5,
    "args":{"Input Dims":[[2,3],[3,4]],"Input type":["float","float"]}}]})");
  const ProfileView v = BuildProfileView(p, {});
  std::map<std::string, HostOpRow> got;
  for (const HostOpRow& r : ComputeHostOps(v, {true})) got[r.name] = r;
  EXPECT_DOUBLE_EQ(got["aten::linear"].flops, 1088);
  EXPECT_DOUBLE_EQ(got["aten::addmm"].flops, 1088);
  EXPECT_DOUBLE_EQ(got["aten::mm"].flops, 48);
  const std::vector<HostFlops> f = ComputeHostFlops(v);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_DOUBLE_EQ(f[0].flops, 1088 + 48);
  EXPECT_EQ(f[0].costed_calls, 2);
  EXPECT_EQ(f[0].nested_calls, 1);
}

// One process driving two GPUs (JAX, TensorFlow): a row per device, then
// the rank's all-device row. Device 0: gemm [0,10); device 1: gemm [20,30).
// Per device: kernel span 10, idle 0; all: span 30, idle 10, compute 20.
TEST(GpuTime, PerDeviceRowsThenTheRank) {
  Profile p = ProfileFromJson(R"({"traceEvents":[
   {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":0,"dur":10,"args":{"device":0,"stream":7}},
   {"ph":"X","cat":"kernel","name":"gemm","pid":1,"tid":7,"ts":20,"dur":10,"args":{"device":1,"stream":7}}]})");
  const auto t = ComputeTemporalBreakdown(BuildProfileView(p, {}));
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].device, 0);
  EXPECT_EQ(t[1].device, 1);
  EXPECT_EQ(t[2].device, -1);
  for (int d = 0; d < 2; ++d) {
    EXPECT_EQ(t[static_cast<size_t>(d)].kernel_time, 10 * US);
    EXPECT_EQ(t[static_cast<size_t>(d)].idle, 0);
  }
  EXPECT_EQ(t[2].kernel_time, 30 * US);
  EXPECT_EQ(t[2].idle, 10 * US);
  EXPECT_EQ(t[2].compute, 20 * US);
  EXPECT_EQ(ComputeOverlap(BuildProfileView(p, {})).size(), 3u);
}

TEST_F(HandTrace, KernelTypeSweep) {
  KernelBreakdown k = ComputeKernelBreakdown(view_, {});
  std::map<std::string, Ps> got;
  for (const auto& s : k.types) got[KernelTypeLabel(s.mask)] = s.time;
  EXPECT_EQ(got["COMPUTATION"], 30 * US);    // [10,30) [35,40) [90,95)
  EXPECT_EQ(got["COMMUNICATION"], 32 * US);  // [53,85)
  EXPECT_EQ(got["COMPUTATION overlapping COMMUNICATION"], 5 * US);
  EXPECT_EQ(got["MEMORY"], 1 * US);
  EXPECT_EQ(got.size(), 4u);
  double pct_sum = 0;
  for (const auto& s : k.types) pct_sum += s.pct;
  EXPECT_NEAR(pct_sum, 100.0, 1e-9);
  // Per kernel: gemm twice, 20 and 10 us.
  bool found = false;
  for (const auto& s : k.kernels) {
    if (s.name != "gemm") continue;
    found = true;
    EXPECT_EQ(s.count, 2);
    EXPECT_EQ(s.sum, 30 * US);
    EXPECT_EQ(s.min, 10 * US);
    EXPECT_EQ(s.max, 20 * US);
    EXPECT_NEAR(s.std, std::sqrt(50.0) * US, 1e-3);  // sample std of {10, 20}
    EXPECT_DOUBLE_EQ(s.mean, 15.0 * US);
    EXPECT_DOUBLE_EQ(s.median, 15.0 * US);  // the mean of the middle two, as nsys stats
    EXPECT_NEAR(s.pct_of_class, 100.0 * 30 / 35, 1e-9);
  }
  EXPECT_TRUE(found);
}

TEST_F(HandTrace, IdlePerStream) {
  auto idle = ComputeIdleBreakdown(view_, {});
  ASSERT_EQ(idle.size(), 2u);
  const StreamIdle* s7 = idle[0].stream == 7 ? &idle[0] : &idle[1];
  // add: gap 5, launched at 31 after gemm ended at 30 -> host_wait
  EXPECT_EQ(s7->idle[0], 5 * US);
  // memcpy: gap 8, launched at 38 before add ended -> kernel_wait (< 30)
  EXPECT_EQ(s7->idle[1], 8 * US);
  // gemm: gap 36, launched at 43 before memcpy ended at 49 -> other
  EXPECT_EQ(s7->idle[2], 36 * US);
  EXPECT_NEAR(s7->ratio(IdleCategory::kOther), 36.0 / 49, 1e-12);
  const StreamIdle* s20 = idle[0].stream == 20 ? &idle[0] : &idle[1];
  EXPECT_EQ(s20->total(), 0);
  EXPECT_TRUE(std::isnan(s20->ratio(IdleCategory::kHostWait)));
}

TEST_F(HandTrace, LaunchStats) {
  auto l = ComputeLaunchStats(view_, {});
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].launches.size(), 5u);
  // delays: gemm 10-5=5, add 35-33=2, memcpy 48-40=8, nccl 53-53=0, gemm 85-45=40
  EXPECT_NEAR(l[0].delay_us.mean, (5 + 2 + 8 + 0 + 40) / 5.0, 1e-9);
  EXPECT_NEAR(l[0].delay_us.max, 40, 1e-9);
  EXPECT_NEAR(l[0].delay_us.p50, 5, 1e-9);
  EXPECT_NEAR(l[0].cpu_us.mean, (3 + 2 + 2 + 2 + 2) / 5.0, 1e-9);
  // GPU durations {20, 5, 1, 37, 10}: mean 14.6, median 10, p95 = 20 + 0.8 * (37 - 20)
  EXPECT_NEAR(l[0].gpu_us.mean, 14.6, 1e-9);
  EXPECT_NEAR(l[0].gpu_us.p50, 10, 1e-9);
  EXPECT_NEAR(l[0].gpu_us.p95, 33.6, 1e-9);
  EXPECT_NEAR(l[0].delay_us.p95, 8 + 0.8 * (40 - 8), 1e-9);  // delays {0, 2, 5, 8, 40}
  EXPECT_EQ(l[0].short_kernels, 1);                          // memcpy: 1 us on the GPU, 2 us to launch
  EXPECT_EQ(l[0].runtime_outliers, 0);
  EXPECT_EQ(l[0].delay_outliers, 0);
}

// Delays over 100 us, split: kernel B is launched by [10,15) while A
// [0,1000) still runs on its stream 7 and starts at 1000 (delay 985 us, all
// queueing); kernel C on the idle stream 8 starts at 500 after its call
// [20,25) (475 us late); kernel D at 1100 after its call [1090,1095) on
// stream 7, now idle: 5 us, no outlier.
TEST(Launches, DelaysSplitIntoQueuedAndLate) {
  Profile p = ProfileFromJson(R"({"traceEvents":[
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":5,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"A","pid":0,"tid":7,"ts":0,"dur":1000,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":2}},
    {"ph":"X","cat":"kernel","name":"B","pid":0,"tid":7,"ts":1000,"dur":10,"args":{"stream":7,"correlation":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":5,"args":{"correlation":3}},
    {"ph":"X","cat":"kernel","name":"C","pid":0,"tid":8,"ts":500,"dur":10,"args":{"stream":8,"correlation":3}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1090,"dur":5,"args":{"correlation":4}},
    {"ph":"X","cat":"kernel","name":"D","pid":0,"tid":7,"ts":1100,"dur":10,"args":{"stream":7,"correlation":4}}
  ]})");
  auto l = ComputeLaunchStats(BuildProfileView(p, {}), {});
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].delay_outliers, 2);
  EXPECT_EQ(l[0].delay_queued, 1);
  EXPECT_EQ(l[0].delay_late, 1);
}

TEST_F(HandTrace, OpsAttribution) {
  auto ops = ComputeOpGpuTime(view_, {});
  std::map<std::string, OpGpuTime> by;
  for (auto& o : ops) by[o.name] = o;
  EXPECT_EQ(by["aten::mm"].calls, 2);
  EXPECT_EQ(by["aten::mm"].gpu_ops, 2);
  EXPECT_EQ(by["aten::mm"].gpu_time, 30 * US);
  EXPECT_EQ(by["aten::mm"].cpu_time, 28 * US);
  EXPECT_EQ(by["aten::mm"].input_dims, "[[4,4],[4,4]]");
  // 2 x 4 x 4 x 4 FLOPs per call; 2 calls in 30 us of GPU time.
  EXPECT_DOUBLE_EQ(by["aten::mm"].flops_per_call, 128);
  EXPECT_DOUBLE_EQ(by["aten::mm"].bytes_per_call, 3 * 16 * 4);
  EXPECT_NEAR(by["aten::mm"].flops_per_s(), 256.0 / 30e-6, 1e-3);
  EXPECT_DOUBLE_EQ(by["aten::add"].flops_per_call, -1);
  EXPECT_TRUE(CostableOpsWithoutShapes(view_).empty());  // both aten::mm calls have shapes
  EXPECT_EQ(by["record_param_comms"].gpu_time, 37 * US);
  EXPECT_EQ(by["aten::add"].gpu_time, 5 * US);
  EXPECT_EQ(by["(no cpu_op)"].gpu_time, 1 * US);
  EXPECT_NEAR(by["aten::mm"].pct_gpu, 100.0 * 30 / 73, 1e-9);
  EXPECT_EQ(ops.front().name, "record_param_comms");  // largest GPU time first
}

TEST_F(HandTrace, Steps) {
  StepReport s = ComputeSteps(view_, {});
  ASSERT_EQ(s.steps.size(), 1u);
  const StepBreakdown& b = s.steps[0];
  EXPECT_EQ(b.number, 1);
  EXPECT_EQ(b.wall, 100 * US);
  EXPECT_EQ(b.gpu_ops, 5);
  EXPECT_EQ(b.gpu_span, 85 * US);
  EXPECT_EQ(b.gpu_busy, 68 * US);
  EXPECT_EQ(b.compute, 35 * US);
  EXPECT_EQ(b.communication, 37 * US);
  EXPECT_EQ(b.idle, 17 * US);
  ASSERT_EQ(s.summary.size(), 1u);
  EXPECT_EQ(s.summary[0].steady_steps, 1);  // < 3 steps: no warm-up dropped
  EXPECT_DOUBLE_EQ(s.summary[0].median_wall_us, 100.0);
}

// Steady state over several steps: the first (warm-up) step and the last
// (cut short by the end of profiling, left out as HTA does) are left out of
// the medians. Steps of 100, 50 and 70 us, one kernel each of 40, 20, 30 us.
TEST(Steps, MediansLeaveOutTheWarmUp) {
  Profile p = ProfileFromJson(R"({"traceEvents":[
   {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
   {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":50},
   {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":150,"dur":70},
   {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":1,"args":{"correlation":1}},
   {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":101,"dur":1,"args":{"correlation":2}},
   {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":151,"dur":1,"args":{"correlation":3}},
   {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":40,"args":{"stream":7,"correlation":1}},
   {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":110,"dur":20,"args":{"stream":7,"correlation":2}},
   {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":160,"dur":30,"args":{"stream":7,"correlation":3}}]})");
  ProfileView v = BuildProfileView(p, {});
  StepReport s = ComputeSteps(v, {});
  ASSERT_EQ(s.steps.size(), 3u);
  EXPECT_TRUE(s.steps[0].warmup);
  EXPECT_FALSE(s.steps[1].warmup);
  EXPECT_FALSE(s.steps[1].last);
  EXPECT_TRUE(s.steps[2].last);
  EXPECT_EQ(s.steps[1].gpu_busy, 20 * US);
  EXPECT_EQ(s.steps[2].gpu_busy, 30 * US);  // still measured, only left out of the medians
  ASSERT_EQ(s.summary.size(), 1u);
  EXPECT_EQ(s.summary[0].steady_steps, 1);
  EXPECT_DOUBLE_EQ(s.summary[0].median_wall_us, 50.0);
  EXPECT_DOUBLE_EQ(s.summary[0].median_busy_us, 20.0);
  EXPECT_DOUBLE_EQ(s.summary[0].median_compute_us, 20.0);
  StepReport warm0 = ComputeSteps(v, {0});                  // --warmup 0
  EXPECT_DOUBLE_EQ(warm0.summary[0].median_wall_us, 75.0);  // median of {100, 50}
  AnalysisOptions keep;
  keep.drop_last_step = false;  // --all-steps
  ProfileView kv = BuildProfileView(p, keep);
  StepReport all = ComputeSteps(kv, {});
  EXPECT_FALSE(all.steps[2].last);
  EXPECT_EQ(all.summary[0].steady_steps, 2);
  EXPECT_DOUBLE_EQ(all.summary[0].median_wall_us, 60.0);  // median of {50, 70}
  EXPECT_DOUBLE_EQ(all.summary[0].median_busy_us, 25.0);  // median of {20, 30}
}

// Two steps: HTA keeps host ops starting before the last step and the GPU ops
// they launched; the last step's kernel disappears, and so does a kernel
// launched before step 1 if its launch is missing.
TEST(HtaFilter, DropsTheLastStep) {
  Profile p = ProfileFromJson(R"({"traceEvents":[
   {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":50},
   {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":50,"dur":50},
   {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":2,"args":{"correlation":1}},
   {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":60,"dur":2,"args":{"correlation":2}},
   {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":20,"dur":10,"args":{"stream":7,"correlation":1}},
   {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":70,"dur":10,"args":{"stream":7,"correlation":2}},
   {"ph":"X","cat":"kernel","name":"orphan","pid":0,"tid":7,"ts":40,"dur":5,"args":{"stream":7,"correlation":99}}]})");
  ProfileView v = BuildProfileView(p, {});
  EXPECT_TRUE(v.multi_step);
  ASSERT_EQ(v.ranks[0].gpu.size(), 1u);
  EXPECT_EQ(ComputeTemporalBreakdown(v)[0].kernel_time, 10 * US);
  AnalysisOptions all;
  all.drop_last_step = false;
  ProfileView v2 = BuildProfileView(p, all);
  EXPECT_EQ(v2.ranks[0].gpu.size(), 3u);
  EXPECT_EQ(ComputeTemporalBreakdown(v2)[0].kernel_time, 60 * US);  // [20, 80)
}

TEST(HtaRounding, CeilStartFloorEnd) {
  // ts 10.4 dur 0.5 -> HTA: ts 11, end floor(10.9) = 10: a negative duration.
  Profile p = ProfileFromJson(R"({"traceEvents":[
   {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":10.4,"dur":0.5,"args":{"stream":7}},
   {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":12.2,"dur":3.9,"args":{"stream":7}}]})");
  AnalysisOptions o;
  o.drop_last_step = false;
  o.hta_rounding = true;
  ProfileView v = BuildProfileView(p, o);
  ASSERT_TRUE(v.ranks[0].rounded);
  // origin = 10 us; a: [1, 0); b: [3, 6)
  EXPECT_EQ(v.ranks[0].gpu[0].ts, 1 * US);
  EXPECT_EQ(v.ranks[0].gpu[0].end, 0);
  EXPECT_EQ(v.ranks[0].gpu[1].ts, 3 * US);
  EXPECT_EQ(v.ranks[0].gpu[1].end, 6 * US);
  o.hta_rounding = false;
  ProfileView exact = BuildProfileView(p, o);
  EXPECT_EQ(exact.ranks[0].gpu[0].end - exact.ranks[0].gpu[0].ts, 500000);
}

TEST(KernelClass, HtaNameRules) {
  EXPECT_EQ(ClassifyKernelName("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*)"),
            KernelClass::kCommunication);
  EXPECT_EQ(ClassifyKernelName("ncclDevKernel_AllReduce_Sum_bf16_RING_LL"), KernelClass::kCommunication);
  EXPECT_EQ(ClassifyKernelName("void foo<ncclKernel>()"), KernelClass::kCommunication);
  EXPECT_EQ(ClassifyKernelName("hipMemcpyAsync"), KernelClass::kCommunication);  // HTA: ^hip is comm
  EXPECT_EQ(ClassifyKernelName("Memcpy HtoD (Pinned -> Device)"), KernelClass::kMemory);
  EXPECT_EQ(ClassifyKernelName("Memset (Device)"), KernelClass::kMemory);
  EXPECT_EQ(ClassifyKernelName("dma_copy"), KernelClass::kMemory);
  EXPECT_EQ(ClassifyKernelName("Stream Sync"), KernelClass::kOther);
  EXPECT_EQ(ClassifyKernelName("Stream Wait Event"), KernelClass::kOther);
  EXPECT_EQ(ClassifyKernelName("cudaLaunchKernel"), KernelClass::kOther);
  EXPECT_EQ(ClassifyKernelName("my_Memcpy_kernel"), KernelClass::kOther);
  EXPECT_EQ(ClassifyKernelName("sm90_xmma_gemm_bf16"), KernelClass::kComputation);
  EXPECT_EQ(ClassifyKernelName("cudaFoo"), KernelClass::kComputation);
}

// Communication libraries HTA's rules miss (issue 36 part 3): their kernels
// are communication, by names taken from real traces (DualPipe's DeepEP
// kernels, vLLM's custom all-reduce); generic names stay computation.
TEST(KernelClass, CommunicationLibrariesBeyondNccl) {
  for (const char* n : {
           "void dpsk::ep::internode::dispatch<false, 8, 16, 24>(int4*, float*)",
           "void deep_ep::intranode::combine<__nv_bfloat16, 8, 768>(...)",
           "void dpsk::ep::internode::notify_dispatch<false>(int const*)",
           "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*)",
           "void sglang::cross_device_reduce_2stage<half, 4>(...)",
           "void tensorrt_llm::kernels::oneShotAllReduceKernel<__nv_bfloat16, 8>(...)",
           "nvshmemi_transfer_rma_nbi",
           "void mscclpp::allreduce_kernel<float>(...)",
           "void c10d::symmetric_memory::one_shot_all_reduce_kernel<float, 8>(...)",
       }) {
    EXPECT_EQ(ClassifyKernelName(n), KernelClass::kCommunication) << n;
    EXPECT_FALSE(CommLibraryOf(n).empty()) << n;
  }
  EXPECT_EQ(CommLibraryOf("void dpsk::ep::internode::combine<8>()"), "DeepEP");
  EXPECT_EQ(CommLibraryOf("ncclDevKernel_AllReduce_Sum_bf16_RING_LL"), "");  // HTA's own rule
  for (const char* n : {"void moe::dispatch_kernel<float>()", "combine_heads_kernel", "notify_kernel",
                        "void at::native::elementwise_kernel<128, 4>()"})
    EXPECT_EQ(ClassifyKernelName(n), KernelClass::kComputation) << n;
}

TEST(KernelClass, UserPatternsFirst) {
  auto p = CommKernelPatterns::Parse({"^my_alltoall", "ring_exchange"});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(ClassifyKernelName("my_alltoall_kernel", p->get()), KernelClass::kCommunication);
  EXPECT_EQ(ClassifyKernelName("void ring_exchange<4>()", p->get()), KernelClass::kCommunication);
  EXPECT_EQ(ClassifyKernelName("x_my_alltoall", p->get()), KernelClass::kComputation);  // anchored
  EXPECT_EQ(ClassifyKernelName("my_alltoall_kernel", nullptr), KernelClass::kComputation);
  auto bad = CommKernelPatterns::Parse({"(unclosed"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--comm-kernel '(unclosed': not a regular expression"), std::string::npos);
}

// The interval algebra against a brute-force sweep over every nanosecond.
TEST(Intervals, RandomTracesMatchBruteForce) {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 50; ++trial) {
    const int horizon = 2000;  // ns
    std::vector<GpuOpRef> ops;
    std::vector<int> busy(horizon, 0);
    int n = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      int s = static_cast<int>(rng() % (horizon - 200));
      int d = static_cast<int>(rng() % 200);
      auto cls = static_cast<KernelClass>(rng() % 4);
      ops.push_back({s * kPsPerNs, (s + d) * kPsPerNs, 0, 0, cls});
      for (int t = s; t < s + d; ++t) busy[t] |= 1 << static_cast<int>(cls);
    }
    ClassUnions u = UnionsByClass(ops);
    Ps all = 0, comp = 0, comm = 0, both = 0;
    for (int t = 0; t < horizon; ++t) {
      all += busy[t] != 0;
      comp += (busy[t] & 1) != 0;
      comm += (busy[t] & 2) != 0;
      both += (busy[t] & 3) == 3;
    }
    EXPECT_EQ(TotalLength(u.all), all * kPsPerNs);
    EXPECT_EQ(TotalLength(u.by_class[0]), comp * kPsPerNs);
    EXPECT_EQ(TotalLength(u.by_class[1]), comm * kPsPerNs);
    EXPECT_EQ(IntersectionLength(u.by_class[0], u.by_class[1]), both * kPsPerNs);
    // Set results: the intersection, the difference and a window's length.
    Ps only_comp = 0, window = 0;
    const int w0 = static_cast<int>(rng() % horizon), w1 = w0 + static_cast<int>(rng() % (horizon - w0 + 1));
    for (int t = 0; t < horizon; ++t) {
      only_comp += (busy[t] & 1) != 0 && (busy[t] & 2) == 0;
      window += t >= w0 && t < w1 && busy[t] != 0;
    }
    std::vector<Interval> inter = Intersection(u.by_class[0], u.by_class[1]);
    std::vector<Interval> diff = Subtract(u.by_class[0], u.by_class[1]);
    EXPECT_EQ(TotalLength(inter), both * kPsPerNs);
    EXPECT_EQ(TotalLength(diff), only_comp * kPsPerNs);
    EXPECT_EQ(IntersectionLength(diff, u.by_class[1]), 0);
    EXPECT_EQ(LengthWithin(u.all, w0 * kPsPerNs, w1 * kPsPerNs), window * kPsPerNs);
  }
}

TEST(Stats, DescribeMatchesPandas) {
  // pandas: Series([1, 2, 3, 4, 10]).describe()
  Describe d = DescribeValues({10, 1, 3, 2, 4});
  EXPECT_EQ(d.count, 5);
  EXPECT_DOUBLE_EQ(d.mean, 4.0);
  EXPECT_NEAR(d.std, 3.535533905932738, 1e-12);
  EXPECT_DOUBLE_EQ(d.p25, 2.0);
  EXPECT_DOUBLE_EQ(d.p50, 3.0);
  EXPECT_DOUBLE_EQ(d.p75, 4.0);
  EXPECT_DOUBLE_EQ(d.max, 10.0);
  EXPECT_NEAR(QuantileSorted({1, 2, 3, 4}, 0.8), 3.4, 1e-12);
}

}  // namespace
}  // namespace mlprof

namespace mlprof {
namespace {

// A GEMM recorded without record_shapes: named, with its call count.
TEST(OpsShapes, CostableOpsWithoutShapesAreListed) {
  Profile p = testing::ProfileFromJson(R"({"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":5},
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":5},
    {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":20,"dur":5,"args":{"Input Dims":[[2,3],[4,3]],"Input type":["float","float"]}},
    {"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":1,"ts":30,"dur":5},
    {"ph":"X","cat":"cpu_op","name":"aten::cat","pid":1,"tid":1,"ts":40,"dur":5}]})");
  auto missing = CostableOpsWithoutShapes(BuildProfileView(p, {}));
  ASSERT_EQ(missing.size(), 2u);  // aten::cat has no cost model, aten::linear has its shapes
  EXPECT_EQ(missing[0].first, "aten::mm");
  EXPECT_EQ(missing[0].second, 2);
  EXPECT_EQ(missing[1].first, "aten::relu");
  EXPECT_EQ(missing[1].second, 1);
}

TEST(OpsShapes, GpuTimeGoesToTheNearestOpWithACostModel) {
  // The flash kernel is launched under aten::_flash_attention_forward (no
  // model), inside aten::_scaled_dot_product_flash_attention (model): the row
  // is the latter, costed from its shapes and is_causal. The NCCL kernel's
  // row is costed from its record_param_comms arguments.
  Profile p = testing::ProfileFromJson(R"({"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aten::_scaled_dot_product_flash_attention","pid":1,"tid":1,"ts":0,"dur":50,"args":{"External id":1,"Input Dims":[[2,8,128,64],[2,8,128,64],[2,8,128,64],[],[],[],[]],"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar","Scalar","Scalar"],"Concrete Inputs":["","","","0.","True","False",""]}},
{"ph":"X","cat":"cpu_op","name":"aten::_flash_attention_forward","pid":1,"tid":1,"ts":1,"dur":40,"args":{"External id":2}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":3,"args":{"External id":2,"correlation":7}},
{"ph":"X","cat":"kernel","name":"flash_fwd","pid":0,"tid":7,"ts":10,"dur":20,"args":{"correlation":7,"device":0,"stream":7,"External id":2}},
{"ph":"X","cat":"cpu_op","name":"aten::convolution","pid":1,"tid":1,"ts":60,"dur":20,"args":{"External id":3,"Input Dims":[[2,4,9,9],[6,2,3,3],[6],[],[],[],[],[],[]],"Input type":["float","float","float","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"],"Concrete Inputs":["","","","[2, 2]","[1, 1]","[1, 1]","False","[0, 0]","2"]}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":61,"dur":3,"args":{"External id":3,"correlation":8}},
{"ph":"X","cat":"kernel","name":"conv","pid":0,"tid":7,"ts":70,"dur":20,"args":{"correlation":8,"device":0,"stream":7,"External id":3}},
{"ph":"X","cat":"cpu_op","name":"record_param_comms","pid":1,"tid":1,"ts":100,"dur":20,"args":{"External id":4,"Collective name":"allreduce","In msg nelems":1000,"Out msg nelems":1000,"Group size":4,"dtype":"Float"}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":101,"dur":3,"args":{"External id":4,"correlation":9}},
{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce","pid":0,"tid":8,"ts":110,"dur":20,"args":{"correlation":9,"device":0,"stream":8,"External id":4}}
]})");
  auto rows = ComputeOpGpuTime(BuildProfileView(p, {}), {});
  std::map<std::string, OpGpuTime> by;
  for (const auto& r : rows) by[r.name] = r;
  ASSERT_EQ(rows.size(), 3u);
  const auto& a = by["aten::_scaled_dot_product_flash_attention"];
  EXPECT_EQ(a.cost_kind, "attention_fwd");
  EXPECT_DOUBLE_EQ(a.flops_per_call, 4.0 * 2 * 8 * 128 * 128 * 64 / 2);  // causal
  EXPECT_EQ(a.gpu_time, 20 * testing::kUs);
  EXPECT_EQ(a.concrete_inputs, R"(["","","","0.","True","False",""])");
  const auto& c = by["aten::convolution"];
  EXPECT_EQ(c.cost_kind, "conv_fwd");
  EXPECT_DOUBLE_EQ(c.flops_per_call, 2 * 300.0 * 18 + 300);  // out [2,6,5,5]
  const auto& n = by["record_param_comms"];
  EXPECT_EQ(n.cost_kind, "collective");
  EXPECT_EQ(n.comm, R"(["allreduce",1000,1000,4,"Float"])");
  EXPECT_DOUBLE_EQ(n.bytes_per_call, 2 * 0.75 * 4000);
  // 6000 bytes in 20 us.
  EXPECT_NEAR(n.bytes_per_s(), 6000 / 20e-6, 1e-3);
}

}  // namespace
}  // namespace mlprof

namespace mlprof {
namespace {

// key_averages(group_by_stack_n=N): the same op under different innermost
// frames is two rows. Thread 1 records stacks as python_function events
// (torch >= 1.11 with_stack=True), thread 2 as "Call stack" args (torch 1.9).
//   t1: f [0,100) { aten::mm [10,20) }   g [100,200) { f [110,190) { aten::mm [120,150) } }
//   t2: aten::mm [0,40) stack "a.py(3): f;a.py(9): main"  aten::mm [50,60) stack "a.py(3): f;a.py(7): g"
TEST(HostOpsStack, GroupsByTheInnermostFrames) {
  Profile p = testing::ProfileFromJson(R"({"traceEvents":[
    {"ph":"X","cat":"python_function","name":"a.py(3): f","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":10},
    {"ph":"X","cat":"python_function","name":"a.py(7): g","pid":1,"tid":1,"ts":100,"dur":100},
    {"ph":"X","cat":"python_function","name":"a.py(3): f","pid":1,"tid":1,"ts":110,"dur":80},
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":120,"dur":30},
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":2,"ts":0,"dur":40,"args":{"Call stack":"a.py(3): f;a.py(9): main"}},
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":2,"ts":50,"dur":10,"args":{"Call stack":"a.py(3): f;a.py(7): g"}}
  ]})");
  ProfileView v = BuildProfileView(p, {});
  auto rows_for = [&](int frames) {
    HostOpsOptions o;
    o.stack_frames = frames;
    std::map<std::string, std::pair<int64_t, Ps>> got;  // stack -> calls, total
    for (const HostOpRow& r : ComputeHostOps(v, o)) got[r.stack] = {r.calls, r.host_total};
    return got;
  };
  // One frame: every mm is under f: 4 calls, 10 + 30 + 40 + 10 = 90 us.
  auto one = rows_for(1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one["a.py(3): f"], std::make_pair(int64_t{4}, 90 * kPsPerUs));
  // Two frames: f alone (t1's first mm), f under g (t1's second, t2's second), f under main.
  auto two = rows_for(2);
  ASSERT_EQ(two.size(), 3u);
  EXPECT_EQ(two["a.py(3): f"], std::make_pair(int64_t{1}, 10 * kPsPerUs));
  EXPECT_EQ(two["a.py(3): f;a.py(7): g"], std::make_pair(int64_t{2}, 40 * kPsPerUs));
  EXPECT_EQ(two["a.py(3): f;a.py(9): main"], std::make_pair(int64_t{1}, 40 * kPsPerUs));
  // Without the option: one row, no stack.
  auto none = rows_for(0);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[""].first, 4);
}

}  // namespace
}  // namespace mlprof

namespace mlprof {
namespace {

// HTA's queue length on a hand-made stream: calls at 0, 1, 2 us launch
// kernels that start at 3, 4 and 5 us (a cudaStreamSynchronize is not a
// launch). Series: +1 +1 +1 -1 -1 -1 -> 1 2 3 2 1 0 (count 6, mean 1.5,
// median 1.5, max 3); with a full queue of 2: at 2 or more from 1 to 4 us
// (values 2 at [1,2), 3 at [2,3), 2 at [3,4)) = 3 us of the 6 us trace.
TEST(QueueLength, HandMadeStream) {
  std::string ev;
  for (int i = 0; i < 3; ++i) {
    ev += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" + std::to_string(i) +
          R"(,"dur":0.5,"args":{"correlation":)" + std::to_string(i + 1) + "}},";
    ev += R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(i + 3) +
          R"(,"dur":1,"args":{"stream":7,"device":0,"correlation":)" + std::to_string(i + 1) + "}},";
  }
  ev +=
      R"({"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":1,"tid":1,"ts":5,"dur":1,"args":{"correlation":9}})";
  const Profile p = ProfileFromJson("{\"traceEvents\":[" + ev + "]}");
  const std::vector<QueueLengthRow> q = ComputeQueueLength(p, 2);
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].stream, 7);
  EXPECT_EQ(q[0].length.count, 6);
  EXPECT_DOUBLE_EQ(q[0].length.mean, 1.5);
  EXPECT_DOUBLE_EQ(q[0].length.p50, 1.5);
  EXPECT_DOUBLE_EQ(q[0].length.max, 3);
  EXPECT_DOUBLE_EQ(q[0].length.min, 0);
  EXPECT_EQ(q[0].at_max, 3 * kPsPerUs);
  EXPECT_NEAR(q[0].at_max_pct, 50.0, 1e-9);
}

// The example's rank 0, against the same definition written apart in Python
// (json module; calls before op starts at equal times; statistics.stdev and
// linear quartiles): stream 7 has 948 points, mean 35.71730, std 22.48271,
// quartiles 16 / 35.5 / 55, max 75; stream 20 has 24 points, mean 0.5.
TEST(QueueLength, ExampleEqualsAPythonCount) {
  auto p = LoadProfile({std::string(MLPROF_SOURCE_DIR) + "/examples/two_rank/rank-0.json.gz"}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const std::vector<QueueLengthRow> q = ComputeQueueLength(*p);
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].stream, 7);
  EXPECT_EQ(q[0].length.count, 948);
  EXPECT_NEAR(q[0].length.mean, 35.71729957805907, 1e-9);
  EXPECT_NEAR(q[0].length.std, 22.48271038835092, 1e-9);
  EXPECT_DOUBLE_EQ(q[0].length.p25, 16);
  EXPECT_DOUBLE_EQ(q[0].length.p50, 35.5);
  EXPECT_DOUBLE_EQ(q[0].length.p75, 55);
  EXPECT_DOUBLE_EQ(q[0].length.max, 75);
  EXPECT_EQ(q[1].stream, 20);
  EXPECT_EQ(q[1].length.count, 24);
  EXPECT_DOUBLE_EQ(q[1].length.mean, 0.5);
  EXPECT_EQ(q[0].at_max, 0);
}

}  // namespace
}  // namespace mlprof
