// The TensorBoard plugin's overview on a hand-made trace; every figure below
// is counted by hand in the comments. The corpus check against the plugin's
// own responses is in tests/torch_golden_test.cc.
#include "analysis/overview.h"

#include <gtest/gtest.h>

#include "../../tests/test_util.h"

namespace mlprof {
namespace {

using testing::ProfileFromJson;
constexpr Ps kOvUs = kPsPerUs;

// Host thread 1 (times in us):
//   cudaLaunchKernel [10,12) corr 7            -> pre_kernel [20,105) (launched outside every step)
//   ProfilerStep#1 [100,200)
//     enumerate(DataLoader)#...__next__ [100,120) (user_annotation, as torch 2 records it)
//     aten::mm [120,140)  { cudaLaunchKernel [122,125) corr 1 -> volta_h884gemm [130,160) }
//     aten::add [150,160) { cudaLaunchKernel [152,154) corr 2 -> add_kernel [155,170) }
//     cudaMemcpyAsync [170,175) corr 3         -> Memcpy [180,190)
//   ProfilerStep#2 [200,300)
//     aten::mm [210,230) { cudaLaunchKernel [212,215) corr 4 -> volta_h884gemm [250,330)
//                          cudaMemsetAsync  [220,222) corr 5 -> Memset [240,245)
//                          cudaLaunchKernel [224,226) corr 6 -> add_kernel [260,270)
//                          cudaLaunchKernel [227,229) corr 8 -> ncclKernel_AllReduce [232,238) }
//   ProfilerStep#3 [300,360)
//     aten::relu [310,320) (launches nothing)
const char* kOverviewTrace = R"J({"traceEvents":[
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":2,"args":{"correlation":7}},
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":100,"dur":100},
 {"ph":"X","cat":"user_annotation","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","pid":1,"tid":1,"ts":100,"dur":20},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":120,"dur":20},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":122,"dur":3,"args":{"correlation":1}},
 {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":150,"dur":10},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":152,"dur":2,"args":{"correlation":2}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":170,"dur":5,"args":{"correlation":3}},
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":200,"dur":100},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":210,"dur":20},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":212,"dur":3,"args":{"correlation":4}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaMemsetAsync","pid":1,"tid":1,"ts":220,"dur":2,"args":{"correlation":5}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":224,"dur":2,"args":{"correlation":6}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":227,"dur":2,"args":{"correlation":8}},
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":300,"dur":60},
 {"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":1,"ts":310,"dur":10},
 {"ph":"X","cat":"kernel","name":"pre_kernel","pid":0,"tid":7,"ts":20,"dur":85,"args":{"device":0,"stream":7,"correlation":7,"blocks per SM":1.0,"est. achieved occupancy %":90}},
 {"ph":"X","cat":"kernel","name":"volta_h884gemm_64x64","pid":0,"tid":7,"ts":130,"dur":30,"args":{"device":0,"stream":7,"correlation":1,"blocks per SM":0.5,"est. achieved occupancy %":40}},
 {"ph":"X","cat":"kernel","name":"add_kernel","pid":0,"tid":8,"ts":155,"dur":15,"args":{"device":0,"stream":8,"correlation":2,"blocks per SM":0.75,"est. achieved occupancy %":20}},
 {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":180,"dur":10,"args":{"device":0,"stream":7,"correlation":3}},
 {"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":8,"ts":240,"dur":5,"args":{"device":0,"stream":8,"correlation":5}},
 {"ph":"X","cat":"kernel","name":"volta_h884gemm_64x64","pid":0,"tid":7,"ts":250,"dur":80,"args":{"device":0,"stream":7,"correlation":4,"blocks per SM":2.0,"est. achieved occupancy %":60}},
 {"ph":"X","cat":"kernel","name":"add_kernel","pid":0,"tid":8,"ts":260,"dur":10,"args":{"device":0,"stream":8,"correlation":6,"blocks per SM":1.0,"est. achieved occupancy %":50}},
 {"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float","pid":0,"tid":9,"ts":232,"dur":6,"args":{"device":0,"stream":9,"correlation":8}}
],"deviceProperties":[{"id":0,"name":"Tesla V100-SXM2-16GB","totalGlobalMem":16945512448,"computeMajor":7,"computeMinor":0,"numSms":80}]})J";

Ps OvRole(const OverviewStep& s, StepRole r) { return s.role[static_cast<int>(r)]; }

TEST(Overview, StepsWidenedToTheirGpuWorkAndCutByRole) {
  Profile p = ProfileFromJson(kOverviewTrace);
  ASSERT_EQ(p.ranks.size(), 1u);
  const RankOverview o = ComputeRankOverview(p.ranks[0], 0);
  const Ps origin = 10 * kOvUs;  // the rank's origin is its first event
  ASSERT_EQ(o.steps.size(), 2u);
  EXPECT_TRUE(o.gpu_adjusted);
  // Step 3 launched nothing: dropped (step 2 launched 4 ops, not under 80 % of step 1's 3).
  EXPECT_EQ(o.dropped_tail_steps, 1);
  // Step 1 starts at the end of pre_kernel (105), launched outside every step
  // and done before the step's own GPU work (130); it ends at its host end
  // (200, after its GPU work ends at 190). Step 2 starts there and ends with
  // its last kernel (330).
  const OverviewStep& a = o.steps[0];
  const OverviewStep& b = o.steps[1];
  EXPECT_EQ(a.number, 1);
  EXPECT_EQ(a.start + origin, 105 * kOvUs);
  EXPECT_EQ(a.end + origin, 200 * kOvUs);
  EXPECT_EQ(b.start + origin, 200 * kOvUs);
  EXPECT_EQ(b.end + origin, 330 * kOvUs);
  // Step 1 [105,200): kernel [130,170) 40; memcpy [180,190) 10; runtime in
  // what is left: [122,125) 3 + [170,175) 5 = 8; dataloader [105,120) 15;
  // cpu_exec [120,122) + [125,130) = 7; other [175,180) + [190,200) = 15.
  EXPECT_EQ(OvRole(a, StepRole::kKernel), 40 * kOvUs);
  EXPECT_EQ(OvRole(a, StepRole::kMemcpy), 10 * kOvUs);
  EXPECT_EQ(OvRole(a, StepRole::kMemset), 0);
  EXPECT_EQ(OvRole(a, StepRole::kCommunication), 0);
  EXPECT_EQ(OvRole(a, StepRole::kRuntime), 8 * kOvUs);
  EXPECT_EQ(OvRole(a, StepRole::kDataLoader), 15 * kOvUs);
  EXPECT_EQ(OvRole(a, StepRole::kCpuExec), 7 * kOvUs);
  EXPECT_EQ(OvRole(a, StepRole::kOther), 15 * kOvUs);
  // Step 2 [200,330): kernel [250,330) 80; memset [240,245) 5; communication
  // [232,238) 6; runtime 3 + 2 + 2 + 2 = 9; cpu_exec (aten::mm less its
  // launches) 2 + 5 + 2 + 1 + 1 = 11; other [200,210) + [230,232) +
  // [238,240) + [245,250) = 19.
  EXPECT_EQ(OvRole(b, StepRole::kKernel), 80 * kOvUs);
  EXPECT_EQ(OvRole(b, StepRole::kMemcpy), 0);
  EXPECT_EQ(OvRole(b, StepRole::kMemset), 5 * kOvUs);
  EXPECT_EQ(OvRole(b, StepRole::kCommunication), 6 * kOvUs);
  EXPECT_EQ(OvRole(b, StepRole::kRuntime), 9 * kOvUs);
  EXPECT_EQ(OvRole(b, StepRole::kDataLoader), 0);
  EXPECT_EQ(OvRole(b, StepRole::kCpuExec), 11 * kOvUs);
  EXPECT_EQ(OvRole(b, StepRole::kOther), 19 * kOvUs);
  // Means over the two steps.
  EXPECT_DOUBLE_EQ(o.mean_total, 112.5 * kOvUs);
  EXPECT_DOUBLE_EQ(o.mean[static_cast<int>(StepRole::kKernel)], 60.0 * kOvUs);
  EXPECT_DOUBLE_EQ(o.mean[static_cast<int>(StepRole::kRuntime)], 8.5 * kOvUs);
  EXPECT_DOUBLE_EQ(o.mean[static_cast<int>(StepRole::kOther)], 17.0 * kOvUs);
}

TEST(Overview, GpuSummaryOverTheStepsSpan) {
  Profile p = ProfileFromJson(kOverviewTrace);
  const RankOverview o = ComputeRankOverview(p.ranks[0], 0);
  ASSERT_EQ(o.gpus.size(), 1u);
  const OverviewGpu& g = o.gpus[0];
  EXPECT_EQ(g.device, 0);
  EXPECT_EQ(g.name, "Tesla V100-SXM2-16GB");
  EXPECT_EQ(g.memory, 16945512448);
  EXPECT_EQ(g.compute_major, 7);
  EXPECT_EQ(g.kernels, 6);
  // The span is [105,330), 225 us. Kernels in it: [130,170) + [232,238) +
  // [250,330) = 126 us.
  EXPECT_NEAR(g.utilization, 126.0 / 225.0, 1e-12);
  // Blocks per SM: [130,155) 0.5 -> 12.5; [155,160) 1.25 capped to 1 -> 5;
  // [160,170) 0.75 -> 7.5; [250,330) 2 (3 with add_kernel) capped -> 80. The
  // NCCL kernel records none; pre_kernel lies outside the span.
  EXPECT_NEAR(g.sm_efficiency, 105.0 / 225.0, 1e-12);
  // Occupancy weighted by time in the span: 30*40 + 15*20 + 80*60 + 10*50 over 135.
  EXPECT_NEAR(g.occupancy, 6800.0 / 135.0, 1e-9);
  // Tensor Core kernels (h884): 30 + 80 of 30 + 15 + 80 + 10 + 6 = 141 us.
  EXPECT_NEAR(g.tensor_cores, 110.0 / 141.0, 1e-12);
}

TEST(Overview, NoStepsOneStepOverTheHostOps) {
  Profile p = ProfileFromJson(R"J({"traceEvents":[
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":10},
 {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":20,"dur":5}
]})J");
  const RankOverview o = ComputeRankOverview(p.ranks[0], 0);
  ASSERT_EQ(o.steps.size(), 1u);
  EXPECT_TRUE(o.host_span_step);
  EXPECT_FALSE(o.gpu_adjusted);
  EXPECT_EQ(o.steps[0].total(), 25 * kOvUs);
  EXPECT_EQ(OvRole(o.steps[0], StepRole::kCpuExec), 15 * kOvUs);
  EXPECT_EQ(OvRole(o.steps[0], StepRole::kOther), 10 * kOvUs);
  EXPECT_TRUE(o.gpus.empty());
}

// No ProfilerStep: the overview takes the rank's steps (here from three
// Optimizer.step ranges, [10,60) and [60,110) us), as `steps` and `diagnose`
// do, and widens them to their GPU work like ProfilerStep spans.
//   aten::mm [20,40) { cudaLaunchKernel [22,25) corr 1 -> gemm [30,70) }
//   aten::mm [70,90) { cudaLaunchKernel [72,75) corr 2 -> gemm [80,130) }
TEST(Overview, OptimizerStepsAreTheSteps) {
  Profile p = ProfileFromJson(R"J({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"Optimizer.step#SGD.step","pid":1,"tid":1,"ts":0,"dur":10},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":20,"dur":20},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":22,"dur":3,"args":{"correlation":1}},
 {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":30,"dur":40,"args":{"correlation":1,"device":0,"stream":7}},
 {"ph":"X","cat":"user_annotation","name":"Optimizer.step#SGD.step","pid":1,"tid":1,"ts":50,"dur":10},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":70,"dur":20},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":72,"dur":3,"args":{"correlation":2}},
 {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":80,"dur":50,"args":{"correlation":2,"device":0,"stream":7}},
 {"ph":"X","cat":"user_annotation","name":"Optimizer.step#SGD.step","pid":1,"tid":1,"ts":100,"dur":10}
]})J");
  ASSERT_EQ(p.ranks[0].step_source, StepSource::kOptimizer);
  const RankOverview o = ComputeRankOverview(p.ranks[0], 0);
  EXPECT_EQ(o.source, StepSource::kOptimizer);
  EXPECT_FALSE(o.host_span_step);
  EXPECT_TRUE(o.gpu_adjusted);
  ASSERT_EQ(o.steps.size(), 2u);
  // Step 0: [10,60) widened to the gemm's end, 70.
  EXPECT_EQ(o.steps[0].number, 0);
  EXPECT_EQ(o.steps[0].start, 10 * kOvUs);
  EXPECT_EQ(o.steps[0].end, 70 * kOvUs);
  EXPECT_EQ(OvRole(o.steps[0], StepRole::kKernel), 40 * kOvUs);  // [30,70)
  EXPECT_EQ(OvRole(o.steps[0], StepRole::kRuntime), 3 * kOvUs);  // [22,25)
  EXPECT_EQ(OvRole(o.steps[0], StepRole::kCpuExec), 7 * kOvUs);  // [20,22) + [25,30)
  EXPECT_EQ(OvRole(o.steps[0], StepRole::kOther), 10 * kOvUs);   // [10,20) (the optimizer range is no CPU work)
  // Step 1: from 70 (where step 0 ended) to the second gemm's end, 130.
  EXPECT_EQ(o.steps[1].number, 1);
  EXPECT_EQ(o.steps[1].start, 70 * kOvUs);
  EXPECT_EQ(o.steps[1].end, 130 * kOvUs);
  EXPECT_EQ(OvRole(o.steps[1], StepRole::kKernel), 50 * kOvUs);  // [80,130)
  EXPECT_EQ(OvRole(o.steps[1], StepRole::kRuntime), 3 * kOvUs);  // [72,75)
  EXPECT_EQ(OvRole(o.steps[1], StepRole::kCpuExec), 7 * kOvUs);  // [70,72) + [75,80)
  EXPECT_EQ(OvRole(o.steps[1], StepRole::kOther), 0);
}

TEST(Overview, TensorCoreKernelNames) {
  EXPECT_TRUE(IsTensorCoreKernelName("volta_h884gemm_128x128_ldg8_nn"));
  EXPECT_TRUE(IsTensorCoreKernelName("sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32"));
  EXPECT_TRUE(IsTensorCoreKernelName("ampere_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn"));
  EXPECT_FALSE(IsTensorCoreKernelName("volta_sgemm_128x64_nn"));
  EXPECT_FALSE(IsTensorCoreKernelName("void at::native::vectorized_elementwise_kernel"));
}

// The names the plugin's list predates, from the wild DeepSeek (H800) trace
// and public kernel names; casts to fp8 and attention pre/post-processing
// are not matrix kernels.
TEST(Overview, TensorCoreKernelNamesExt) {
  for (const char* n :
       {"void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel>(dpsk::grouped_gemm::cuda::x)",
        "void cutlass::device_kernel<flash::FlashAttnBwd<flash::CollectiveMainloopBwd<2, cute::tuple<cute::C<1>>>>>()",
        "void flash::compute_attn_ws<Flash_fwd_kernel_traits<192, 128, 128, 12, 2, false, 1, cutlass::bfloat16_t>>()",
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off",
        "cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_128x256x64_2x1x1_0_tnn_align8_warpspecialized",
        "nvjet_tst_128x256_64x4_2x1_v_bz_coopA_TNT", "fmha_cutlassF_f16_aligned_64x64_rf_sm80",
        "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::half_t>>()"}) {
    EXPECT_TRUE(IsTensorCoreKernelNameExt(n)) << n;
  }
  for (const char* n : {"void cuda::per_token_cast_to_fp8_with_channels<__nv_bfloat16, 128>()",
                        "void cuda::cast_back_impl<__nv_fp8x2_e4m3>(void const*, void*)",
                        "void cutlass::device_kernel<flash::FlashAttnBwdPreprocess<cute::tuple<cute::C<64>>>>()",
                        "volta_sgemm_128x64_nn", "triton_poi_fused_add_0"})
    EXPECT_FALSE(IsTensorCoreKernelNameExt(n)) << n;
  EXPECT_TRUE(IsTensorCoreKernelNameExt("volta_h884gemm_128x128_ldg8_nn"));  // the plugin's list too
  // What the plugin's list misses: nvjet, tensorop and FP8 GEMMs.
  EXPECT_FALSE(IsTensorCoreKernelName("nvjet_tst_128x256_64x4_2x1_v_bz_coopA_TNT"));
  EXPECT_FALSE(
      IsTensorCoreKernelName("void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel>()"));
}

}  // namespace
}  // namespace mlprof
