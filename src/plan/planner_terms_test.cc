// The planner's terms one by one against hand-computed figures: virtual
// pipeline degrees, recompute policies, low precision, schedules, experts'
// all-to-alls, matmul sizes (shared/reference/planner-formulas.md).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "plan/planner.h"
#include "plan/planner_test_util.h"

namespace mlprof::plan {
namespace planner_terms_test {
using namespace test;

// --vpp pins any virtual-pipeline degree with a layer per virtual stage:
// Llama 3 70B's 80 layers over PP 4 are 20 per stage, so V 5 (4 layers per
// virtual stage) is offered and can be pinned; V 40 (half a layer) cannot.
TEST(Planner, VppAnyDivisorOfTheStage) {
  const hw::ChipDb& db = hw::ChipDb::BuiltIn();
  Cluster c = MakeCluster(*db.Find("h100-sxm"), 64, 8, {});
  TrainSpec t;
  t.global_batch = 512, t.seq = 8192;
  PlanFilter f;
  f.pp = 4, f.vpp = 5;
  f.include_dominated = true;
  PlanSearch s = SearchPlans(Preset("llama3-70b"), c, t, {}, f);
  ASSERT_FALSE(s.plans.empty());
  for (const Plan& p : s.plans) EXPECT_EQ(p.vpp, 5);
  // Searched too, without the pin.
  PlanFilter free_v;
  free_v.pp = 4;
  free_v.include_dominated = true;
  bool five = false;
  for (const Plan& p : SearchPlans(Preset("llama3-70b"), c, t, {}, free_v).plans) five = five || p.vpp == 5;
  EXPECT_TRUE(five);
  f.vpp = 40;
  EXPECT_TRUE(SearchPlans(Preset("llama3-70b"), c, t, {}, f).plans.empty());
}

}  // namespace planner_terms_test
}  // namespace mlprof::plan

namespace mlprof::plan {
namespace planner_terms_test {
using namespace test;

TEST(PlannerRemat, FrameworkNames) {
  RematSpec r;
  ASSERT_TRUE(ParseRemat("full:2", &r));  // Megatron --recompute-num-layers 2
  EXPECT_EQ(r.policy, Remat::kFull);
  EXPECT_EQ(r.per_stage, 2);
  ASSERT_TRUE(ParseRemat("selective-layer:4", &r));  // torchtitan: every 4th block
  EXPECT_EQ(r.policy, Remat::kFull);
  EXPECT_DOUBLE_EQ(r.fraction, 0.25);
  ASSERT_TRUE(ParseRemat("minimal", &r));  // MaxText: every dot saved
  EXPECT_EQ(r.policy, Remat::kSaveDots);
  ASSERT_TRUE(ParseRemat("selective-op", &r));
  EXPECT_EQ(r.policy, Remat::kSaveDots);
  ASSERT_TRUE(ParseRemat("save_qkv_proj@0.5", &r));
  EXPECT_EQ(r.policy, Remat::kSaveQkvProj);
  EXPECT_DOUBLE_EQ(r.fraction, 0.5);
  for (const char* name : {"save_dot_except_mlp", "minimal_offloaded", "save_out_proj", "minimal_with_context"}) {
    ASSERT_TRUE(ParseRemat(name, &r)) << name;
    EXPECT_STREQ(RematName(r.policy), name);
  }
  for (const char* bad :
       {"most", "full:0", "full:x", "full:", "full@0", "full@1.5", "full@", "selective-layer:0", "minimal@0.5x"})
    EXPECT_FALSE(ParseRemat(bad, &r)) << bad;
  EXPECT_EQ(RematLabel(Remat::kFull, 1, 3), "full:3");
  EXPECT_EQ(RematLabel(Remat::kFull, 0.25, 0), "full@0.25");
}

// Toy7B (h 4096, MHA, SwiGLU 11008): per token per layer, save_dots keeps
// x, the norm output, q, k, v, the context, the output projection, gate,
// up and down (4096 x 6 + 8192 + 2 x 11008 + 4096 = 50688 elements); full
// keeps x (4096); none 2h + q + kv + ctx + lse + MLP (2h + 3f).
TEST(PlannerRemat, PartialAndOffloaded) {
  const ModelSpec m = Toy7B();
  Cluster cl = MakeCluster(*hw::ChipDb::BuiltIn().Find("h100-sxm"), 8, 8, {});
  TrainSpec t = EightSequencesOf2048();
  Knobs k;
  Plan p;
  p.dp = 8, p.mb = 1, p.ga = 1;
  p.remat = Remat::kNone;
  const Explanation none = Explain(m, cl, t, k, p);
  EXPECT_DOUBLE_EQ(none.saved, 2 * (4096.0 * 2 + 4096 + 8192 + 4096 + 2 * 32 + 2 * 4096 + 3 * 11008));
  p.remat = Remat::kFull;
  const Explanation full = Explain(m, cl, t, k, p);
  EXPECT_DOUBLE_EQ(full.saved, 2 * 4096.0);
  // full@0.25: a quarter of the layers keep x, the rest everything; a
  // quarter of the recompute.
  p.remat_fraction = 0.25;
  const Explanation quarter = Explain(m, cl, t, k, p);
  EXPECT_DOUBLE_EQ(quarter.saved, 0.25 * full.saved + 0.75 * none.saved);
  EXPECT_DOUBLE_EQ(quarter.plan.remat_flops, 0.25 * full.plan.remat_flops);
  EXPECT_DOUBLE_EQ(quarter.remat_share, 0.25);
  // Megatron full:2 with PP 4 (8 layers a stage) is the same quarter.
  Plan q = p;
  q.remat_fraction = 1, q.remat_per_stage = 2, q.pp = 4, q.dp = 2, q.ga = 4;
  Plan q2 = q;
  q2.remat_per_stage = 0, q2.remat_fraction = 0.25;
  EXPECT_DOUBLE_EQ(Explain(m, cl, t, k, q).saved, Explain(m, cl, t, k, q2).saved);
  EXPECT_DOUBLE_EQ(Evaluate(m, cl, t, k, q).t_step, Evaluate(m, cl, t, k, q2).t_step);
  // minimal_offloaded: x on the chip, the other 46592 dot elements per token
  // per layer in host memory (2048 tokens x 32 layers, bf16), over the H100's
  // 64 GB/s host link out and back, hidden under 0.9 x Comp.
  p.remat = Remat::kMinimalOffloaded, p.remat_fraction = 1;
  const Explanation off = Explain(m, cl, t, k, p);
  EXPECT_DOUBLE_EQ(off.saved, 2 * 4096.0);
  EXPECT_DOUBLE_EQ(off.plan.offloaded, 46592.0 * 2 * 2048 * 32);
  EXPECT_EQ(off.host_bw, 64e9 * 0.8);  // the collective efficiency, as on every link
  EXPECT_FALSE(off.host_bw_assumed);
  EXPECT_DOUBLE_EQ(off.t_offload, 2 * 46592.0 * 2 * 2048 * 32 / (64e9 * 0.8));
  EXPECT_DOUBLE_EQ(off.plan.t_host, std::max(0.0, off.t_offload - 0.9 * off.plan.t_compute));
  EXPECT_DOUBLE_EQ(off.plan.remat_flops, 0);
}

// --precision fp8 on Toy7B (h 4096, MHA, SwiGLU 11008), one H100 per
// replica: the layers' projections (2 x (4 h^2 + 3 h f) per token per layer,
// forward) x 3 at the FP8 peak x GEMM x 0.96; the output layer and the
// scores in bf16; casts of 3 B per element of the linear inputs forward and
// their output gradients backward (2 x (2h + h + f) per token per layer)
// and of the weights; 2 more bytes per parameter for the FP8 weights.
TEST(PlannerPrecision, Fp8LinearLayers) {
  const ModelSpec m = Toy7B();
  Cluster cl = MakeCluster(*hw::ChipDb::BuiltIn().Find("h100-sxm"), 8, 8, {});
  TrainSpec t = EightSequencesOf2048();
  Knobs k;
  k.gemm = 0.5;
  Plan p;
  p.dp = 8, p.mb = 1, p.ga = 1;
  const Plan bf16 = Evaluate(m, cl, t, k, p);
  t.precision = hw::DType::kFp8;
  const Explanation e = Explain(m, cl, t, k, p);
  const double tokens = 8.0 * 2048, h = 4096, f = 11008;
  const double linear = 3 * 32 * 2 * (4 * h * h + 3 * h * f) * tokens;
  EXPECT_DOUBLE_EQ(e.low_flops, linear);
  EXPECT_NEAR(e.t_low, linear / (8 * 1978.9e12 * 0.5 * e.gemm_shape * 0.96), 1e-12);
  const double scores = 3 * 32 * 2 * 2048.0 * 32 * (128 + 128) * tokens;
  EXPECT_DOUBLE_EQ(e.score_flops, scores);
  EXPECT_NEAR(e.t_scores, scores / (8 * 989.4e12 * 0.5), 1e-12);
  const double output_layer = 6 * 32000 * h * tokens;
  EXPECT_NEAR(e.t_matmul, output_layer / (8 * 989.4e12 * 0.5 * e.gemm_shape), 1e-9);
  const double local = CountParams(m).total;
  EXPECT_NEAR(e.cast_bytes, 3 * 32 * 2 * (3 * h + f) * tokens / 8 + 3 * local, 1);
  EXPECT_NEAR(e.t_cast, e.cast_bytes / (3.35e12 * 0.8), 1e-12);
  EXPECT_NEAR(e.plan.t_compute, e.t_low + e.t_cast + e.t_matmul + e.t_scores, 1e-12);
  EXPECT_DOUBLE_EQ(e.plan.weights, bf16.weights + 2 * local);
  EXPECT_LT(e.plan.t_step, bf16.t_step);
  EXPECT_DOUBLE_EQ(e.plan.model_flops, bf16.model_flops);  // MFU against the bf16 peak, same FLOPs
  // A chip without an int8 peak (the MI355X's file states bf16, fp16, fp8) is refused.
  t.precision = hw::DType::kInt8;
  const auto problem = CheckRun(m, MakeCluster(*hw::ChipDb::BuiltIn().Find("mi355x"), 1, 8, {}), t, {});
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(problem->kind, RunProblem::Kind::kNoLowPeak);
  EXPECT_EQ(problem->low, hw::DType::kInt8);
}

// Pipeline schedules on Toy7B, PP 4, 8 micro-batches: the bubble is (4-1)/8
// of the pipelined work for 1F1B, a third of it for zero bubble, and
// (4/2-1)/(3 x 8) for DualPipe, which also holds two copies of the weights
// and one more micro-batch of activations. Async TP hides TP under 0.9 x Comp.
TEST(PlannerSchedule, BubblesCopiesAndOverlap) {
  const ModelSpec m = Toy7B();
  Cluster cl = MakeCluster(Chip(1000, 80, 3, 450), 64, 8, {});
  TrainSpec t;
  t.global_batch = 64, t.seq = 2048;
  ASSERT_TRUE(ParseMemoryConvention("megatron", &t.memory));
  Knobs k;
  Plan p;
  p.tp = 2, p.pp = 4, p.dp = 8, p.mb = 1, p.ga = 8;
  const Explanation one = Explain(m, cl, t, k, p);
  EXPECT_DOUBLE_EQ(one.bubble_slots, 3.0 / 8);
  EXPECT_NEAR(one.bubble, 3.0 / 8 * (one.plan.t_compute + one.plan.t_tp + one.plan.t_ep), 1e-12);
  t.schedule = Schedule::kZeroBubble;
  const Explanation zb = Explain(m, cl, t, k, p);
  EXPECT_DOUBLE_EQ(zb.bubble_slots, 3.0 / 24);
  EXPECT_NEAR(zb.plan.t_pp - zb.t_p2p, one.bubble / 3, 1e-12);
  EXPECT_DOUBLE_EQ(zb.plan.weights, one.plan.weights);
  t.schedule = Schedule::kDualPipe;
  const Explanation dual = Explain(m, cl, t, k, p);
  EXPECT_DOUBLE_EQ(dual.bubble_slots, 1.0 / 24);
  EXPECT_DOUBLE_EQ(dual.plan.weights, 2 * one.plan.weights);
  EXPECT_DOUBLE_EQ(dual.inflight, one.inflight + 1);
  // Async TP: the same all-reduces, less of them exposed.
  t.schedule = Schedule::kAuto;
  t.tp_overlap = true;
  const Explanation async = Explain(m, cl, t, k, p);
  EXPECT_DOUBLE_EQ(async.t_tp_before, one.plan.t_tp);
  EXPECT_NEAR(async.plan.t_tp, std::max(0.0, one.plan.t_tp - 0.9 * one.plan.t_compute), 1e-12);
  // Pins that do not go with the schedule.
  t.tp_overlap = false;
  t.schedule = Schedule::kInterleaved;
  PlanFilter f;
  f.vpp = 1;
  auto bad = CheckRun(m, cl, t, f);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->kind, RunProblem::Kind::kScheduleVpp);
  t.schedule = Schedule::kDualPipe;
  f = PlanFilter{};
  f.pp = 2;
  EXPECT_FALSE(CheckRun(m, cl, t, f).has_value());
  f.pp = 4;
  f.tp = 1;
  EXPECT_FALSE(CheckRun(m, cl, t, f).has_value());
  Schedule parsed;
  EXPECT_TRUE(ParseSchedule("dualpipe", &parsed));
  EXPECT_EQ(parsed, Schedule::kDualPipe);
  EXPECT_FALSE(ParseSchedule("gpipe", &parsed));
  // The search keeps V = 1 and even PP under DualPipe.
  PlanSearch s = SearchPlans(m, cl, t, k, PlanFilter{});
  ASSERT_FALSE(s.plans.empty());
  for (const Plan& q : s.plans) {
    EXPECT_EQ(q.vpp, 1);
    EXPECT_EQ(q.pp % 2 == 0 || q.pp == 1, true) << q.pp;
  }
}

// Mixtral's all-to-alls over 16 ranks on 8-GPU nodes: a GPU's NIC carries
// the share bound for the other node, (16 - 8)/16 of its tokens' k copies,
// at the 50 GB/s node egress.
TEST(PlannerExperts, AllToAllAcrossNodesAndFoldedOverTp) {
  const ModelSpec m = Preset("mixtral-8x7b");
  TrainSpec t;
  t.global_batch = 64, t.seq = 4096;
  ASSERT_TRUE(ParseMemoryConvention("megatron", &t.memory));
  Knobs k;
  k.collective = 1, k.latency = 0;
  ModelSpec m16 = m;
  m16.experts = 16;  // so that EP 16 divides the experts
  Cluster cl = MakeCluster(Chip(1000, 80, 3, 450), 64, 8, {});
  Plan p;
  p.fsdp = 64, p.ep = 16, p.mb = 1, p.ga = 1;
  const Explanation across = Explain(m16, cl, t, k, p);
  EXPECT_DOUBLE_EQ(across.ep_bytes, 4096.0 * 2 * 4096 * 2 * (16 - 8) / 16);
  EXPECT_EQ(across.ep_bw, 5e10);
  EXPECT_FALSE(across.ep_folded);
  // EP 8 over TP 2 x DP 4 (8 chips): folded, the experts split 8 ways and
  // not over TP; the group stays in the node.
  Cluster node = MakeCluster(Chip(1000, 80, 3, 450), 8, 8, {});
  Plan q;
  q.tp = 2, q.dp = 4, q.ep = 8, q.mb = 1, q.ga = 2;
  t.global_batch = 8;
  const Explanation folded = Explain(m, node, t, k, q);
  EXPECT_TRUE(folded.ep_folded);
  const ParamCounts pc = CountParams(m);
  EXPECT_NEAR(folded.local, (pc.total - pc.experts) / 2 + pc.experts / 8, 1);
  EXPECT_EQ(folded.ep_bw, 450e9);
  // The search offers the pinned folded EP.
  PlanFilter f;
  f.tp = 2, f.ep = 8;
  const PlanSearch s = SearchPlans(m, node, t, k, f);
  ASSERT_FALSE(s.plans.empty());
  EXPECT_EQ(s.plans[0].ep, 8);
}

// --precision fp8 on an H100 without --gemm-eff: the matmul kernels reach
// 0.79 (measured in tests/data/h100), the GEMM efficiency 0.73 folds bf16
// work in around them that FP8 does not speed up.
TEST(PlannerPrecision, KernelEfficiencySplit) {
  const ModelSpec m = Toy7B();
  Cluster cl = MakeCluster(*hw::ChipDb::BuiltIn().Find("h100-sxm"), 8, 8, {});
  TrainSpec t = EightSequencesOf2048();
  t.precision = hw::DType::kFp8;
  Knobs k;
  Plan p;
  p.dp = 8, p.mb = 1, p.ga = 1;
  const Explanation e = Explain(m, cl, t, k, p);
  EXPECT_DOUBLE_EQ(e.gemm, 0.73);
  EXPECT_DOUBLE_EQ(e.gemm_kernel, 0.79);
  EXPECT_NEAR(
      e.t_low,
      e.low_flops / (8 * 1978.9e12 * 0.79 * e.gemm_shape * 0.96) + e.low_flops / (8 * 989.4e12) * (1 / 0.73 - 1 / 0.79),
      1e-12);
  EXPECT_DOUBLE_EQ(GemmKernelEfficiency(k, *hw::ChipDb::BuiltIn().Find("a100-80gb"), 0.6), 0.6);
}

// The matmul time model against the H100 trace's kernels (roofline table of
// tests/data/h100/train_none: 32 x [8192,2048]x[2048,2048] in 2.882 ms, 12 x
// [8192,2048]x[2048,5632] in 2.889 ms), and what the sizes do to a plan.
TEST(PlannerGemm, SizesAgainstTheH100Trace) {
  const double peak = 989.4e12, hbm = 3.35e12;
  EXPECT_NEAR(GemmSeconds(8192, 2048, 2048, peak, hbm, true), 2.882e-3 / 32, 0.02 * 2.882e-3 / 32);
  EXPECT_NEAR(GemmSeconds(8192, 5632, 2048, peak, hbm, true), 2.889e-3 / 12, 0.02 * 2.889e-3 / 12);
  EXPECT_GT(GemmShapeFactor(16384, 16384, 16384, peak, hbm, true), 0.99);
  EXPECT_LT(GemmShapeFactor(1024, 512, 4096, peak, hbm, true), 0.7);
  EXPECT_DOUBLE_EQ(GemmShapeFactor(1024, 512, 4096, peak, hbm, false) <= 1, true);
  // Toy7B on 8 H100s: TP 8 splits each matmul 8 ways and reaches less.
  const ModelSpec m = Toy7B();
  Cluster cl = MakeCluster(*hw::ChipDb::BuiltIn().Find("h100-sxm"), 8, 8, {});
  TrainSpec t = EightSequencesOf2048();
  Knobs k;
  Plan p;
  p.dp = 8, p.mb = 1, p.ga = 1;
  const Explanation dp = Explain(m, cl, t, k, p);
  p.dp = 1, p.tp = 8, p.ga = 8;
  const Explanation tp = Explain(m, cl, t, k, p);
  EXPECT_GT(dp.gemm_shape, tp.gemm_shape);
  EXPECT_GT(dp.gemm_shape, 0.95);
  EXPECT_NEAR(dp.plan.t_compute,
              ((dp.plan.model_flops - dp.score_flops) / dp.gemm_shape + dp.score_flops) / (8 * peak * 0.73), 1e-12);
}

}  // namespace planner_terms_test
}  // namespace mlprof::plan
