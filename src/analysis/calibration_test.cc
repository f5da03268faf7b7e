// `plan --calibrate`: what a run measured, on a hand-made trace whose
// kernels' times and shapes give every figure by construction.
#include "analysis/calibration.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "../../bench/xla_synth.h"
#include "../../tests/test_util.h"
#include "analysis/xla.h"

namespace mlprof {
namespace {

using testing::ProfileFromJson;

// Four 1000 us steps; the view leaves out the last, the first is the
// warm-up, so steps 1 and 2 are measured. In each, on stream 7: a
// 1024^3 matmul (100 us in step 1, 140 us in step 2), a 4096^3 matmul (200
// us), flash attention on [1, 8, 1024, 64] (50 us), an add (30 us), the
// optimizer's foreach kernel (40 us, under Optimizer.step#AdamW.step); on
// stream 9 an all-reduce (60 us) whose first 20 us overlap the optimizer's
// kernel.
std::string CalibrationTrace() {
  std::string ev;
  int corr = 0;
  auto add = [&](const std::string& e) { ev += (ev.empty() ? "" : ",") + e; };
  // A cpu_op at `ts` launching one kernel `kernel` at `kts` for `kdur` us.
  auto op = [&](const std::string& name, const std::string& dims, int ts, const std::string& kernel, int stream,
                int kts, int kdur) {
    ++corr;
    add(fmt::format(
        R"J({{"ph":"X","cat":"cpu_op","name":"{}","pid":1,"tid":1,"ts":{},"dur":8,"args":{{"Input Dims":{},"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16"]}}}})J",
        name, ts, dims));
    add(fmt::format(
        R"J({{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":{},"dur":2,"args":{{"correlation":{}}}}})J",
        ts + 1, corr));
    add(fmt::format(
        R"J({{"ph":"X","cat":"kernel","name":"{}","pid":0,"tid":{},"ts":{},"dur":{},"args":{{"stream":{},"correlation":{}}}}})J",
        kernel, stream, kts, kdur, stream, corr));
  };
  for (int k = 0; k < 4; ++k) {
    const int t = 1000 * k;
    add(fmt::format(
        R"J({{"ph":"X","cat":"user_annotation","name":"ProfilerStep#{}","pid":1,"tid":1,"ts":{},"dur":1000}})J", k, t));
    const int dm = k == 2 ? 140 : 100;
    op("aten::mm", "[[1024,1024],[1024,1024]]", t + 10, "gemm_small", 7, t + 100, dm);
    op("aten::mm", "[[4096,4096],[4096,4096]]", t + 20, "gemm_large", 7, t + 260, 200);
    op("aten::_scaled_dot_product_flash_attention", "[[1,8,1024,64],[1,8,1024,64],[1,8,1024,64],[],[]]", t + 30,
       "flash_fwd_kernel", 7, t + 470, 50);
    op("aten::add", "[[1024,1024],[1024,1024]]", t + 40, "elementwise_kernel", 7, t + 530, 30);
    add(fmt::format(
        R"J({{"ph":"X","cat":"user_annotation","name":"Optimizer.step#AdamW.step","pid":1,"tid":1,"ts":{},"dur":20}})J",
        t + 50));
    op("aten::_foreach_add_", "[[],[]]", t + 52, "multi_tensor_apply_kernel", 7, t + 570, 40);
    op("c10d::allreduce_", "[[]]", t + 80, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 9, t + 590, 60);
  }
  return R"({"traceEvents":[)" + ev + "]}";
}

TEST(Calibration, MeasuresEachFigureOfTheSteadySteps) {
  const Profile p = ProfileFromJson(CalibrationTrace());
  const RunMeasurement m = MeasureRun(BuildProfileView(p, {}), nullptr);
  EXPECT_EQ(m.ranks, 1);
  EXPECT_EQ(m.steps, 2);
  const double small = 2.0 * 1024 * 1024 * 1024, large = 2.0 * 4096 * 4096 * 4096;
  EXPECT_DOUBLE_EQ(m.gemm_flops, small + large);
  EXPECT_NEAR(m.gemm_s, (120 + 200) * 1e-6, 1e-12);  // (100 + 140) / 2 + 200
  EXPECT_EQ(m.gemm_calls, 2);
  ASSERT_EQ(m.gemm_sizes.size(), 2u);  // 2.1 GFLOP and 137 GFLOP per call
  EXPECT_DOUBLE_EQ(m.gemm_sizes[0].lo, 1e9);
  EXPECT_NEAR(m.gemm_sizes[0].seconds, 120e-6, 1e-12);
  EXPECT_DOUBLE_EQ(m.gemm_sizes[1].lo, 1e11);
  EXPECT_NEAR(m.gemm_sizes[1].seconds, 200e-6, 1e-12);
  // Attention, not causal: 4 b h s^2 d.
  EXPECT_DOUBLE_EQ(m.attention_flops, 4.0 * 1 * 8 * 1024 * 1024 * 64);
  EXPECT_NEAR(m.attention_s, 50e-6, 1e-12);
  EXPECT_NEAR(m.optimizer_s, 40e-6, 1e-12);
  EXPECT_NEAR(m.other_compute_s, 30e-6, 1e-12);  // the add
  EXPECT_NEAR(m.comm_s, 60e-6, 1e-12);
  EXPECT_NEAR(m.exposed_comm_s, 40e-6, 1e-12);  // 20 us under the optimizer's kernel
  // Busy: the matmuls, 200 + 50 + 30, and 570..650 = 80: 460 and 500 us,
  // median 480; the wall 1000 us.
  EXPECT_NEAR(m.step_s, 1000e-6, 1e-12);
  EXPECT_NEAR(m.busy_s, 480e-6, 1e-12);
}

TEST(Calibration, TurnsTheFiguresIntoKnobs) {
  const Profile p = ProfileFromJson(CalibrationTrace());
  const RunMeasurement m = MeasureRun(BuildProfileView(p, {}), nullptr);
  plan::ModelSpec model;
  model.id = model.name = "tiny";
  model.layers = 2, model.hidden = 256, model.heads = 4, model.kv_heads = 4, model.head_dim = 64;
  model.ffn = 1024, model.vocab = 1000, model.seq_len = 1024;
  model.groups.push_back({2, false, 0, 0});
  const hw::Chip& h100 = *hw::ChipDb::BuiltIn().Find("h100-sxm");
  const plan::Cluster c = plan::MakeCluster(h100, 1, 8, {});
  plan::TrainSpec t;
  // 10 sequences of 1024: the model's matmul FLOPs (6 x 2.35 M weights x
  // 10240 tokens = 145 GFLOP) are near the trace's 140, so the model check
  // passes and the figures per token and parameter apply.
  t.global_batch = 10, t.seq = 1024;
  ASSERT_TRUE(plan::ParseMemoryConvention("megatron", &t.memory));
  plan::Plan run;  // one chip, one micro-batch of 10 sequences, no remat
  run.mb = 10;
  const plan::Calibration cal = plan::Calibrate(m, model, c, t, plan::Knobs{}, run);
  const double peak = 989.4e12, hbm = 3.35e12;
  // The measured matmul efficiency, at this run's sizes; the knob is for
  // large matmuls: divided by what the run's sizes reach.
  const double measured_gemm = (2.0 * 1024 * 1024 * 1024 + 2.0 * 4096 * 4096 * 4096) / (320e-6 * peak);
  EXPECT_NEAR(cal.figures[0].measured, measured_gemm, 1e-9);
  const double run_shape = plan::Explain(model, c, t, plan::Knobs{}, run).gemm_shape;
  EXPECT_LT(run_shape, 1);
  EXPECT_NEAR(cal.knobs.gemm, std::min(1.0, measured_gemm / run_shape), 1e-9);  // at most 1
  EXPECT_NEAR(cal.knobs.attention, 4.0 * 8 * 1024 * 1024 * 64 / (50e-6 * peak), 1e-9);
  // 30 us of other compute at 3.35 TB/s over 1024 tokens x 2 layers x 256.
  EXPECT_NEAR(cal.knobs.other_bytes, 30e-6 * hbm / (10240.0 * 2 * 256), 1e-9);
  const double params = plan::CountParams(model).total;
  EXPECT_NEAR(cal.knobs.hbm, 34 * params / (40e-6 * hbm), 1e-9);
  EXPECT_NEAR(cal.knobs.step_overhead, 520e-6, 1e-12);
  // No collective of 1 MiB: the default stays. All communication would be
  // data-parallel (one chip, no TP/PP/CP/EP): 1 - 40/60 hidden.
  EXPECT_DOUBLE_EQ(cal.knobs.collective, 0.80);
  EXPECT_NEAR(cal.knobs.overlap, 1.0 / 3, 1e-12);
  // The calibrated step of this plan, term by term: matmuls at the measured
  // efficiency (model FLOPs less the scores), the scores' executed half at
  // the attention efficiency, the other ops, the optimizer, the overhead.
  const plan::Explanation e = plan::Explain(model, c, t, cal.knobs, run);
  const double scores = 3 * 2.0 * 1024 * 4 * (64 + 64) * 2 * 10240;  // 3 x fwd, 2 layers, 10240 tokens
  EXPECT_DOUBLE_EQ(e.score_flops, scores);
  EXPECT_DOUBLE_EQ(e.gemm_shape, run_shape);
  EXPECT_NEAR(e.t_matmul, (e.plan.model_flops - scores) / (peak * cal.knobs.gemm * run_shape), 1e-15);
  EXPECT_NEAR(e.t_scores, scores / 2 / (peak * cal.knobs.attention), 1e-15);
  EXPECT_NEAR(e.t_other, 30e-6, 1e-12);  // the measured time back
  EXPECT_NEAR(e.plan.t_opt, 40e-6, 1e-12);
  EXPECT_NEAR(e.plan.t_step, e.t_matmul + e.t_scores + 30e-6 + 40e-6 + 520e-6, 1e-12);
  EXPECT_DOUBLE_EQ(cal.run.t_step, e.plan.t_step);
}

// An XLA profile (the synthetic TPU one, 2 devices): per device and
// execution of the main module, summed here from the ops themselves.
TEST(Calibration, XlaRunPerDeviceAndStep) {
  synth::XSpaceOptions o;
  o.devices = 2;
  synth::XSpaceStats st;
  const Profile p = ProfileFromJson(synth::MakeXSpace(o, &st), "s.xplane.pb");  // any format, by content
  ASSERT_EQ(p.ranks.size(), 1u);
  const RankProfile& rp = p.ranks[0];
  const XlaOps x = ResolveXlaOps(rp);
  Ps module_time = 0;
  int64_t executions = 0;
  double mm_flops = 0, mm_ps = 0, opt_ps = 0, coll_ps = 0, wait_ps = 0, all_ps = 0, other_ps = 0;
  for (size_t i = 0; i < rp.ops.size(); ++i) {
    if (rp.str(rp.track_of(i).name) == "XLA Modules") module_time += rp.ops.dur[i], ++executions;
    if (rp.ops.xla[i] < 0) continue;
    const XlaOpInfo& op = x.ops[static_cast<size_t>(rp.ops.xla[i])];
    const double d = static_cast<double>(rp.ops.dur[i]);
    all_ps += d;
    if (op.pass == XlaPass::kOptimizer) {
      opt_ps += d;
    } else if (op.group == OpCategory::kMatmul) {
      mm_ps += d;
    } else if (op.group != OpCategory::kAttention && op.group != OpCategory::kCollective &&
               op.group != OpCategory::kAsyncWait && op.group != OpCategory::kMemoryTransfer) {
      other_ps += d;
    }
    if (op.group == OpCategory::kMatmul && op.flops > 0) mm_flops += op.flops;
    if (op.group == OpCategory::kCollective) coll_ps += d;
    if (op.group == OpCategory::kAsyncWait) wait_ps += d;
  }
  ASSERT_EQ(executions, 2 * st.steps);
  const double per = static_cast<double>(executions);  // devices x steps
  const RunMeasurement m = MeasureXlaRun(p);
  EXPECT_EQ(m.ranks, 1);
  EXPECT_EQ(m.steps, st.steps);
  EXPECT_EQ(m.world_size, 2);
  EXPECT_NEAR(m.step_s, static_cast<double>(module_time / executions) * 1e-12, 1e-15);
  EXPECT_NEAR(m.busy_s, all_ps / per * 1e-12, 1e-12);
  ASSERT_GT(mm_flops, 0);
  EXPECT_NEAR(m.gemm_flops, mm_flops / per, mm_flops * 1e-12);
  EXPECT_NEAR(m.gemm_s, mm_ps / per * 1e-12, 1e-12);
  EXPECT_NEAR(m.optimizer_s, opt_ps / per * 1e-12, 1e-12);
  EXPECT_NEAR(m.comm_s, coll_ps / per * 1e-12, 1e-12);
  EXPECT_NEAR(m.exposed_comm_s, wait_ps / per * 1e-12, 1e-12);
  EXPECT_NEAR(m.other_compute_s, other_ps / per * 1e-12, 1e-12);
  EXPECT_TRUE(m.xla);
}

// The same trace against a model that is not the run's (Llama 3 8B): the
// model check fails, and the figures per token, parameter and step stay at
// their defaults; the matmul and attention efficiencies still apply.
TEST(Calibration, ModelMismatchKeepsTheDefaults) {
  const Profile p = ProfileFromJson(CalibrationTrace());
  const RunMeasurement m = MeasureRun(BuildProfileView(p, {}), nullptr);
  auto model = plan::BuiltInModel("llama3-8b");
  ASSERT_TRUE(model.ok());
  const plan::Cluster c = plan::MakeCluster(*hw::ChipDb::BuiltIn().Find("h100-sxm"), 1, 8, {});
  plan::TrainSpec t;
  t.global_batch = 1, t.seq = 8192;
  ASSERT_TRUE(plan::ParseMemoryConvention("megatron", &t.memory));
  plan::Plan run;
  const plan::Calibration cal = plan::Calibrate(m, *model, c, t, plan::Knobs{}, run);
  EXPECT_LT(cal.model_ratio, 0.5);
  using K = plan::CalibratedKnob;
  for (const plan::CalibratedFigure& f : cal.figures) {
    if (f.knob == K::kOtherBytes || f.knob == K::kOptimizerHbm || f.knob == K::kStepOverhead) {
      EXPECT_FALSE(f.applied);
      EXPECT_EQ(f.skip, plan::CalibrationSkip::kModelMismatch);
    }
    if (f.knob == K::kGemm || f.knob == K::kAttention) {
      EXPECT_TRUE(f.applied);
    }
  }
  EXPECT_EQ(cal.knobs.other_bytes, 0);
  EXPECT_EQ(cal.knobs.step_overhead, 0);
  EXPECT_DOUBLE_EQ(cal.knobs.hbm, 0.80);
}

}  // namespace
}  // namespace mlprof
