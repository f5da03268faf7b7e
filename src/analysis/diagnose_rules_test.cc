// More of diagnose's rules on hand-made traces (recompute, data formatting,
// step-boundary idle, the matmul rules, exposed communication by kind):
// each fires where its saving is worked out below and stays silent on a
// trace without the problem. Times in us.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "../../tests/test_util.h"
#include "analysis/diagnose.h"
#include "analysis/xla.h"
#include "io/load.h"

namespace mlprof {
namespace diagnose_rules_test {

constexpr Ps us = kPsPerUs;

std::vector<Finding> Of(const std::vector<Finding>& all, Rule r) {
  std::vector<Finding> out;
  for (const Finding& f : all)
    if (f.rule == r) out.push_back(f);
  return out;
}

std::vector<Finding> DiagnoseWith(const std::string& json, const DiagnoseInputs& in, const DiagnoseOptions& o = {}) {
  return Diagnose(BuildProfileView(testing::ProfileFromJson(json), {}), o, in);
}

// The backward of a ReLU [0,100) on the autograd thread: inside it,
// torch.utils.checkpoint's recompute_fn [5,50) reruns a convolution whose
// kernel takes 30 us [20,50); the convolution's own backward kernel takes
// 40 us [70,110). Window [0,110) (no steps): recompute saves 30 us, and
// is 30 / (30 + 40) = 42.9 % of the backward pass (TraceLens's is_recompute
// rule: ops under a recompute_fn python frame).
constexpr const char* kRecomputeTrace = R"J({"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"autograd::engine::evaluate_function: ReluBackward0","pid":1,"tid":2,"ts":0,"dur":100},
    {"ph":"X","cat":"python_function","name":"torch/utils/checkpoint.py(1500): recompute_fn","pid":1,"tid":2,"ts":5,"dur":45},
    {"ph":"X","cat":"cpu_op","name":"aten::convolution","pid":1,"tid":2,"ts":10,"dur":30},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":12,"dur":3,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"conv_fwd","pid":0,"tid":7,"ts":20,"dur":30,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"cpu_op","name":"aten::convolution_backward","pid":1,"tid":2,"ts":60,"dur":30},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":62,"dur":3,"args":{"correlation":2}},
    {"ph":"X","cat":"kernel","name":"conv_bwd","pid":0,"tid":7,"ts":70,"dur":40,"args":{"stream":7,"correlation":2}}
  ]})J";

TEST(DiagnoseRules, RecomputeFires) {
  const auto f = Of(DiagnoseWith(kRecomputeTrace, {}), Rule::recompute);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].saving, 30 * us);
  EXPECT_EQ(f[0].step, 110 * us);
  EXPECT_NE(f[0].evidence.find("aten::convolution 0.030 ms"), std::string::npos) << f[0].evidence;
  EXPECT_NE(f[0].evidence.find("backward pass takes 0.070 ms, so recompute is 42.9 %"), std::string::npos)
      << f[0].evidence;
}

// The same trace without the recompute_fn frame: nothing is recomputed.
TEST(DiagnoseRules, RecomputeSilentWithoutCheckpoint) {
  std::string json = kRecomputeTrace;
  const std::string frame = "torch/utils/checkpoint.py(1500): recompute_fn";
  json.replace(json.find(frame), frame.size(), "model.py(12): forward");
  EXPECT_TRUE(Of(DiagnoseWith(json, {}), Rule::recompute).empty());
}

// aten::copy_ launches a 30 us copy kernel [10,40); aten::mm a 50 us gemm
// [40,90). Window [0,90): data formatting saves 30 us, named with its shapes.
TEST(DiagnoseRules, DataFormattingPyTorchFires) {
  const auto f = Of(DiagnoseWith(R"J({"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":1,"ts":0,"dur":8,"args":{"Input Dims":[[4,8],[4,8],[]]}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":3,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"elementwise_copy","pid":0,"tid":7,"ts":10,"dur":30,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":8},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":12,"dur":3,"args":{"correlation":2}},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":40,"dur":50,"args":{"stream":7,"correlation":2}}
  ]})J",
                                 {}),
                    Rule::data_formatting);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].saving, 30 * us);
  EXPECT_EQ(f[0].step, 90 * us);
  EXPECT_NE(f[0].evidence.find("aten::copy_ [[4,8],[4,8],[]] 0.030 ms"), std::string::npos) << f[0].evidence;
}

// The same copy_ between dtypes (bf16 -> float, written with spaces as
// torch does) is a cast, not formatting; between equal dtypes it counts.
TEST(DiagnoseRules, DataFormattingLeavesOutCasts) {
  auto trace = [](const char* types) {
    return std::string(R"J({"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":1,"ts":0,"dur":8,"args":{"Input Dims":[[4,8],[4,8],[]],"Input type":)J") +
           types + R"J(}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":3,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"elementwise_copy","pid":0,"tid":7,"ts":10,"dur":30,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":40,"dur":50,"args":{"stream":7}}
  ]})J";
  };
  EXPECT_TRUE(Of(DiagnoseWith(trace(R"(["c10::BFloat16", "float", ""])"), {}), Rule::data_formatting).empty());
  const auto f = Of(DiagnoseWith(trace(R"(["float", "float", ""])"), {}), Rule::data_formatting);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].saving, 30 * us);
}

// A copy_ that moves the batch to the device (Memcpy HtoD) is input
// transfer, not data formatting.
TEST(DiagnoseRules, DataFormattingSilentForHostToDeviceCopies) {
  EXPECT_TRUE(Of(DiagnoseWith(R"J({"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":1,"ts":0,"dur":8},
    {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":2,"dur":3,"args":{"correlation":1}},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":7,"ts":10,"dur":30,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":8},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":12,"dur":3,"args":{"correlation":2}},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":40,"dur":50,"args":{"stream":7,"correlation":2}}
  ]})J",
                              {}),
                 Rule::data_formatting)
                  .empty());
}

// Four steps of 100 us; each launches one kernel at 100k+5 that runs
// [100k+10, 100k+60). Steady steps (warm-up 1, the last left out): 1 and 2.
// The GPU idles from 100(k-1)+60 to 100k+10 at each of their starts: 50 us,
// the median; half of the 100 us step.
TEST(DiagnoseRules, StepBoundaryIdleFires) {
  std::string ev;
  for (int k = 0; k < 4; ++k) {
    ev += fmt::format(
        R"J({{"ph":"X","cat":"user_annotation","name":"ProfilerStep#{0}","pid":1,"tid":1,"ts":{1},"dur":100}},
        {{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":{2},"dur":3,"args":{{"correlation":{0}}}}},
        {{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":{3},"dur":50,"args":{{"stream":7,"correlation":{0}}}}},)J",
        k, 100 * k, 100 * k + 5, 100 * k + 10);
  }
  ev.pop_back();
  const auto f = Of(DiagnoseWith("{\"traceEvents\":[" + ev + "]}", {}), Rule::step_boundary_idle);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].saving, 50 * us);
  EXPECT_EQ(f[0].step, 100 * us);
  EXPECT_NE(f[0].evidence.find("over 2 step boundaries"), std::string::npos) << f[0].evidence;
}

// The same steps with each kernel running to the next one's start: no gap.
TEST(DiagnoseRules, StepBoundaryIdleSilentWhenBusy) {
  std::string ev;
  for (int k = 0; k < 4; ++k) {
    ev += fmt::format(
        R"J({{"ph":"X","cat":"user_annotation","name":"ProfilerStep#{0}","pid":1,"tid":1,"ts":{1},"dur":100}},
        {{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":{2},"dur":3,"args":{{"correlation":{0}}}}},
        {{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":{3},"dur":100,"args":{{"stream":7,"correlation":{0}}}}},)J",
        k, 100 * k, 100 * k + 5, 100 * k + 10);
  }
  ev.pop_back();
  EXPECT_TRUE(Of(DiagnoseWith("{\"traceEvents\":[" + ev + "]}", {}), Rule::step_boundary_idle).empty());
}

// A trace of one 1000 us kernel (window = step = 1000 us, so a saving is
// the time itself) with a hand-made roofline, attainable efficiency 70 %:
//  - mm, compute-bound, 10 calls of 100 us against 50 us at the roofline:
//    10 x (100 - 50 / 0.7) = 285.714 us;
//  - addmm, memory-bound but with a ceiling of 87 % (above 70 %): held to
//    its own roofline like a compute-bound one: 80 - 50 / 0.7 = 8.571 us;
//  - bmm, memory-bound at 20 % of peak: 4 calls of 200 us against 100 us at
//    its (memory) roofline, held to 70 % of the bandwidth:
//    4 x (200 - 100 / 0.7) = 228.571 us.
RooflineRow MatmulRow(std::string name, int64_t count, double measured_us, double expected_us, RoofBound bound,
                      double vs_ridge, double ceiling_pct) {
  RooflineRow r;
  r.name = std::move(name);
  r.category = "matmul/convolution";
  r.count = count;
  r.measured_s = measured_us * 1e-6;
  r.time_s = r.measured_s * static_cast<double>(count);
  r.expected_s = expected_us * 1e-6;
  r.efficiency = expected_us / measured_us;
  r.bound = bound;
  r.vs_ridge = vs_ridge;
  r.ceiling_pct = ceiling_pct;
  r.intensity = vs_ridge * 100;
  r.flops = 5e10;
  return r;
}

constexpr const char* kOneKernel = R"J({"traceEvents":[
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":0,"dur":1000,"args":{"stream":7}}]})J";

TEST(DiagnoseRules, MatmulRulesFire) {
  RooflineResult rr;
  rr.chip = "h100-sxm";
  rr.ridge = 100;
  rr.ops = {MatmulRow("aten::mm [[4100,136],[136,2816]]", 10, 100, 50, RoofBound::kCompute, 2, 100),
            MatmulRow("aten::addmm [[1024],[512,1024],[1024,1024]]", 1, 80, 50, RoofBound::kMemory, 0.87, 87),
            MatmulRow("aten::bmm [[96,3137,64],[96,64,3137]]", 4, 200, 100, RoofBound::kMemory, 0.2, 20)};
  DiagnoseInputs in;
  in.roofline[0] = &rr;
  const auto all = DiagnoseWith(kOneKernel, in);
  const auto eff = Of(all, Rule::matmul_efficiency);
  ASSERT_EQ(eff.size(), 1u);
  EXPECT_NEAR(static_cast<double>(eff[0].saving) / us, 285.714286 + 8.571429, 1e-3);
  EXPECT_NE(eff[0].evidence.find("dims that waste tiles: 136 (pads to 192), 4100 (not a multiple of 8)"),
            std::string::npos)
      << eff[0].evidence;
  const auto mem = Of(all, Rule::memory_bound_matmul);
  ASSERT_EQ(mem.size(), 1u);
  EXPECT_NEAR(static_cast<double>(mem[0].saving) / us, 228.571429, 1e-3);
  EXPECT_NE(mem[0].evidence.find("aten::bmm"), std::string::npos) << mem[0].evidence;
  // The ridge is the row's own (intensity / vs_ridge: its dtype's peak),
  // not the result's bf16 one: 20 FLOP/B at 0.2 of the ridge = 100.
  EXPECT_NE(mem[0].evidence.find("20.0 FLOP/B against the ridge 100.0"), std::string::npos) << mem[0].evidence;
  EXPECT_EQ(mem[0].evidence.find("aten::addmm"), std::string::npos) << mem[0].evidence;
}

TEST(DiagnoseRules, UnalignedDims) {
  // 8944 pads to 8960 (0.2 %): no waste worth naming; 1024 and 2816 whole tiles.
  EXPECT_EQ(UnalignedDims("aten::mm [[8944,1024],[1024,2816]]"), "");
  // Batch dims (96) are no GEMM dims; 3137 is odd; 64 is a whole tile.
  EXPECT_EQ(UnalignedDims("aten::bmm [[96,3137,64],[96,64,3137]]"), "3137 (not a multiple of 8)");
  // 16, 32, 48: small dims on small tiles; 136 pads to 192 (+41 %); 200 to 256 (+28 %).
  EXPECT_EQ(UnalignedDims("aten::addmm [[200],[48,136],[136,200],[],[]]"), "136 (pads to 192), 200 (pads to 256)");
  EXPECT_EQ(UnalignedDims("aten::mm [[16,32],[32,48]]"), "");
  EXPECT_EQ(UnalignedDims("aten::add [[100,100],[100,100]]"), "");  // not a GEMM
  EXPECT_EQ(UnalignedDims("aten::mm"), "");
}

// Matmuls at 80 % of their roofline, above the 70 % a good kernel reaches:
// nothing to find. A matmul far from its roofline without a chip (no
// roofline given): the rules cannot run.
TEST(DiagnoseRules, MatmulRulesSilent) {
  RooflineResult rr;
  rr.ops = {MatmulRow("aten::mm [[1024,1024],[1024,1024]]", 10, 100, 80, RoofBound::kCompute, 2, 100)};
  DiagnoseInputs in;
  in.roofline[0] = &rr;
  EXPECT_TRUE(Of(DiagnoseWith(kOneKernel, in), Rule::matmul_efficiency).empty());
  EXPECT_TRUE(Of(DiagnoseWith(kOneKernel, {}), Rule::matmul_efficiency).empty());
}

// Exposed communication by collective kind: the kernel's name says which.
TEST(DiagnoseRules, ExposedCommunicationByKind) {
  const auto f = Of(DiagnoseWith(R"J({"traceEvents":[
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":0,"dur":40,"args":{"stream":7}},
    {"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float","pid":0,"tid":9,"ts":30,"dur":60,"args":{"stream":9}},
    {"ph":"X","cat":"kernel","name":"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t","pid":0,"tid":9,"ts":100,"dur":20,"args":{"stream":9}}
  ]})J",
                                 {}),
                    Rule::exposed_communication);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].evidence.find("exposed by kind: all-reduce 0.050 ms, send/recv 0.020 ms"), std::string::npos)
      << f[0].evidence;
}

// The kind comes from the op that launched the kernel before the kernel's
// name: NCCL runs all-to-all as SendRecv kernels. Kernel 1 [0,30) under
// c10d::alltoall_ (the op's name), kernel 2 [40,50) under
// record_param_comms with "Collective name" _allgather_base (the comm
// args), kernel 3 [60,65) launched from no op (its name: send/recv). No
// compute: every microsecond is exposed; window [0,65).
TEST(DiagnoseRules, ExposedCommunicationKindFromTheLaunchingOp) {
  const auto f = Of(DiagnoseWith(R"J({"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"c10d::alltoall_","pid":1,"tid":1,"ts":0,"dur":10},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":2,"args":{"correlation":1}},
    {"ph":"X","cat":"cpu_op","name":"record_param_comms","pid":1,"tid":1,"ts":20,"dur":10,"args":{"Collective name":"_allgather_base","Group size":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":21,"dur":2,"args":{"correlation":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":35,"dur":2,"args":{"correlation":3}},
    {"ph":"X","cat":"kernel","name":"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)","pid":0,"tid":9,"ts":0,"dur":30,"args":{"stream":9,"correlation":1}},
    {"ph":"X","cat":"kernel","name":"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)","pid":0,"tid":9,"ts":40,"dur":10,"args":{"stream":9,"correlation":2}},
    {"ph":"X","cat":"kernel","name":"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)","pid":0,"tid":9,"ts":60,"dur":5,"args":{"stream":9,"correlation":3}}
  ]})J",
                                 {}),
                    Rule::exposed_communication);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].evidence.find("exposed by kind: all-to-all 0.030 ms, all-gather 0.010 ms, send/recv 0.005 ms"),
            std::string::npos)
      << f[0].evidence;
}

}  // namespace diagnose_rules_test
}  // namespace mlprof
