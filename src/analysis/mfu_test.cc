// MFU and the roofline basics against the seed figures of issue 4 and
// hand-computed cases.
#include "analysis/mfu.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "../../bench/trace_synth.h"
#include "../../bench/xla_synth.h"
#include "../../tests/test_util.h"
#include "analysis/xla.h"

namespace mlprof {
namespace {

const hw::Chip& ChipNamed(const char* id) { return *hw::ChipDb::BuiltIn().Find(id); }

// 2*32*1024*8192*32768 FLOPs on 8 TPU v2 cores at 23 TFLOP/s each: 95.6 ms.
TEST(Roofline, ComputeBoundSeed) {
  const hw::Chip& v2 = ChipNamed("tpu-v2");
  const double flops = 2.0 * 32 * 1024 * 8192 * 32768;
  const double s = flops / (8 * v2.peak(hw::DType::kBf16) / v2.cores_per_chip);  // the chip's figures
  EXPECT_NEAR(s * 1e3, 95.6, 0.05);                                              // 17.59e12 / 184e12 = 95.60 ms
}

// 64 TPU v7x chips (2307 TFLOP/s), a 12 s step of 20,971,520 tokens at
// 39.96 TFLOPs per 4096-token sample: 3,196.8 TFLOPs per chip per step,
// 266.4 TFLOP/s per chip, MFU 11.5 %.
TEST(Mfu, TpuV7xSeed) {
  MfuInput in;
  in.chip = &ChipNamed("tpu-v7x");
  in.devices = 64;
  in.step_seconds = 12;
  in.tokens_per_step = 20971520;
  in.flops_per_sample = 39.96e12;
  in.tokens_per_sample = 4096;
  ASSERT_EQ(CheckMfu(in), std::nullopt);
  const MfuResult r = ComputeMfu(in);
  EXPECT_NEAR(r.flops_per_device_per_step / 1e12, 3196.8, 1e-6);
  EXPECT_NEAR(r.achieved_flops_per_device / 1e12, 266.4, 1e-6);
  EXPECT_NEAR(r.mfu * 100, 11.547, 0.001);  // 266.4 / 2307
  EXPECT_NEAR(100 * r.mfu, 11.547, 0.001);
  EXPECT_NEAR(r.tokens_per_device_per_s, 20971520.0 / 12 / 64, 1e-6);
}

// 1280 H200 (989 TFLOP/s bf16) processing 1133 B tokens per day at 39.96
// TFLOPs per 4096-token sample. Exactly: 1133e9 / 86400 / 4096 x 39.96e12 /
// 1280 = 99.95 TFLOP/s per GPU, MFU 10.11 %. The issue's seed says "about
// 100.5 TFLOP/s, 10.2 %", 0.55 % higher than these inputs give (it matches
// 1139 B tokens/day); the formula is checked here, the seed within its
// "about".
TEST(Mfu, H200TokensPerDaySeed) {
  MfuInput in;
  in.chip = &ChipNamed("h200");
  in.devices = 1280;
  in.tokens_per_day = 1133e9;
  in.flops_per_sample = 39.96e12;
  in.tokens_per_sample = 4096;
  ASSERT_EQ(CheckMfu(in), std::nullopt);
  const MfuResult r = ComputeMfu(in);
  const double want = 1133e9 / 86400 / 4096 * 39.96e12 / 1280;
  EXPECT_DOUBLE_EQ(r.achieved_flops_per_device, want);
  EXPECT_NEAR(r.achieved_flops_per_device / 1e12, 99.95, 0.01);
  EXPECT_NEAR(r.achieved_flops_per_device / 1e12, 100.5, 0.6);  // the seed's "about"
  EXPECT_NEAR(r.mfu * 100, 10.106, 0.001);
  EXPECT_NEAR(r.tokens_per_s, 1133e9 / 86400, 1e-3);
  EXPECT_EQ(r.flops_per_device_per_step, 0);  // no step given
}

// 6 N per token plus 12 L s d for attention scores; causal halves the
// attention term. 8e9 params, 32 layers, 8192 context, d_model 4096, 4M
// tokens per 10 s step on 64 H100 SXM (989.4 TFLOP/s).
TEST(Mfu, ParamsAndAttentionTerm) {
  MfuInput in;
  in.chip = &ChipNamed("h100-sxm");
  in.devices = 64;
  in.step_seconds = 10;
  in.tokens_per_step = 4194304;
  in.params = 8e9;
  in.layers = 32;
  in.context = 8192;
  in.d_model = 4096;
  ASSERT_EQ(CheckMfu(in), std::nullopt);
  const MfuResult full = ComputeMfu(in);
  const double per_token = 6 * 8e9 + 12.0 * 32 * 8192 * 4096;  // 48e9 + 12.88e9
  EXPECT_DOUBLE_EQ(full.flops_per_token, per_token);
  EXPECT_DOUBLE_EQ(full.model_flops_per_step, per_token * 4194304);
  EXPECT_NEAR(full.mfu, per_token * 4194304 / 10 / 64 / 989.4e12, 1e-12);
  in.causal = true;
  ASSERT_EQ(CheckMfu(in), std::nullopt);
  const MfuResult causal = ComputeMfu(in);
  EXPECT_DOUBLE_EQ(causal.flops_per_token, 6 * 8e9 + 6.0 * 32 * 8192 * 4096);
  EXPECT_TRUE(causal.attention_counted && causal.causal);
  in.layers.reset();
  ASSERT_EQ(CheckMfu(in), std::nullopt);
  const MfuResult no_attn = ComputeMfu(in);
  EXPECT_DOUBLE_EQ(no_attn.flops_per_token, 48e9);
  EXPECT_FALSE(no_attn.attention_counted);
}

// Per core (TPU v4: 2 TensorCores per chip) halves the peak; a given model
// FLOPs per step is used as is.
TEST(Mfu, PerCoreAndFlopsPerStep) {
  MfuInput in;
  in.chip = &ChipNamed("tpu-v4");
  in.devices = 16;
  in.per_core = true;
  in.step_seconds = 2;
  in.model_flops_per_step = 1.1e15;
  ASSERT_EQ(CheckMfu(in), std::nullopt);
  const MfuResult r = ComputeMfu(in);
  EXPECT_DOUBLE_EQ(r.peak_flops_per_device, 137.5e12);
  EXPECT_DOUBLE_EQ(r.mfu, 1.1e15 / 2 / 16 / 137.5e12);  // 25 %
  EXPECT_DOUBLE_EQ(r.tokens_per_s, 0);
}

TEST(Mfu, MissingInputsAreProblems) {
  MfuInput in;
  EXPECT_EQ(CheckMfu(in), MfuProblem::kNoPeak);
  in.peak_override = 1e15;  // a peak without a chip is enough
  EXPECT_EQ(CheckMfu(in), MfuProblem::kNoDevices);
  in.peak_override = 0;
  in.chip = &ChipNamed("h200");
  EXPECT_EQ(CheckMfu(in), MfuProblem::kNoDevices);
  in.devices = 8;
  EXPECT_EQ(CheckMfu(in), MfuProblem::kNoThroughput);
  in.step_seconds = 2;  // a step time alone is no throughput
  EXPECT_EQ(CheckMfu(in), MfuProblem::kNoThroughput);
  in.step_seconds.reset();
  in.tokens_per_day = 1e9;
  EXPECT_EQ(CheckMfu(in), MfuProblem::kNoModelFlops);
  in.model_flops_per_step = 1e15;  // per step, but no step time
  EXPECT_EQ(CheckMfu(in), MfuProblem::kFlopsPerStepNoStepTime);
  in.model_flops_per_step.reset();
  in.flops_per_sample = 1e12;
  EXPECT_EQ(CheckMfu(in), MfuProblem::kFlopsPerSampleNoTokens);
  in.tokens_per_sample = 4096;
  EXPECT_EQ(CheckMfu(in), std::nullopt);
  in.flops_per_sample.reset();
  in.flops_per_token = 1e9;
  EXPECT_EQ(CheckMfu(in), std::nullopt);
  in.dtype = hw::DType::kTf32;
  in.chip = &ChipNamed("tpu-v7x");  // no tf32 figure
  EXPECT_EQ(CheckMfu(in), MfuProblem::kNoDTypePeak);
  in.peak_override = 1e15;  // a given peak replaces the chip's
  EXPECT_EQ(CheckMfu(in), std::nullopt);
  // The first problem counts: no devices before no throughput.
  in.devices = 0;
  in.tokens_per_day.reset();
  EXPECT_EQ(CheckMfu(in), MfuProblem::kNoDevices);
}

}  // namespace
}  // namespace mlprof

namespace mlprof {
namespace {

// Two ranks with ProfilerStep#1..#4 of known wall times: warm-up leaves out
// step 1 (4 steps >= 3) and the last (as HTA does), so the medians are 25 ms
// and 30 ms; the slowest
// rank sets the step time. One device per rank; no FLOPs.
std::string RankJson(int rank, const int (&walls_ms)[4], int world_size = 2) {
  std::string ev;
  long long ts = 0;
  for (int i = 0; i < 4; ++i) {
    ev += fmt::format(
        "{}{{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#{}\",\"pid\":1,\"tid\":1,"
        "\"ts\":{},\"dur\":{}}}",
        i ? "," : "", i + 1, ts, walls_ms[i] * 1000);
    ts += walls_ms[i] * 1000 + 100;
  }
  return fmt::format("{{\"distributedInfo\":{{\"rank\":{},\"world_size\":{}}},\"traceEvents\":[{}]}}", rank, world_size,
                     ev);
}

TEST(Mfu, StepTimeAndDevicesFromKinetoTraces) {
  Profile p = testing::ProfileFromJson(RankJson(0, {10, 20, 30, 40}), "r0.json");
  Profile p1 = testing::ProfileFromJson(RankJson(1, {10, 25, 35, 45}), "r1.json");
  p.ranks.push_back(std::move(p1.ranks[0]));
  ProfileFigures f = MeasureProfile(p, BuildProfileView(p, {}));
  EXPECT_DOUBLE_EQ(f.step_seconds, 0.030);
  EXPECT_DOUBLE_EQ(f.devices, 2);
  EXPECT_DOUBLE_EQ(f.hardware_flops_per_device_per_step, 0);
  EXPECT_EQ(f.step_source, ProfileFigures::StepSource::kProfilerStep);
  EXPECT_EQ(f.ranks, 2);
  EXPECT_EQ(f.devices_source, ProfileFigures::DevicesSource::kRanksRead);
}

// One rank's trace of a 16-rank job: the devices are the job's 16 (its
// distributedInfo.world_size), not the one trace read (which gave 16x the
// MFU: 583 % on the corpus's ws16 trace).
TEST(Mfu, DevicesFromTheWorldSizeWhenOneRankIsRead) {
  Profile p = testing::ProfileFromJson(RankJson(0, {10, 20, 30, 40}, 16), "r0.json");
  ProfileFigures f = MeasureProfile(p, BuildProfileView(p, {}));
  EXPECT_DOUBLE_EQ(f.devices, 16);
  EXPECT_EQ(f.devices_source, ProfileFigures::DevicesSource::kWorldSize);
  EXPECT_EQ(f.ranks_read, 1);
}

// The calculator's inputs as `mlprof mfu PROFILE` fills them.
MfuInput FromProfile(const ProfileFigures& f, const hw::Chip* chip) {
  MfuInput in;
  in.chip = chip;
  in.devices = f.devices;
  in.step_seconds = f.step_seconds;
  in.hardware_flops_per_device_per_step = f.hardware_flops_per_device_per_step;
  return in;
}

// Hardware FLOPs from a Kineto trace: the ops costed from their shapes, in
// the steady-state steps only. Steps 1-3 (100, 200, 300 us; step 1 is the
// warm-up). Each step runs aten::mm [64,128] x [128,32] (2*64*128*32 =
// 524,288 FLOPs, a 10 us kernel) and an op mlprof cannot cost (a 30 us
// kernel); step 2 runs the mm twice. An mm outside every step does not
// count.
TEST(Mfu, HardwareFlopsFromKinetoShapes) {
  std::string ev;
  int corr = 100;
  auto cpu_op = [&](const char* name, long long ts, bool shapes) {
    ++corr;
    ev += fmt::format(
        R"(,{{"ph":"X","cat":"cpu_op","name":"{}","pid":1,"tid":1,"ts":{},"dur":5,"args":{{"External id":{}{}}}}})",
        name, ts, corr, shapes ? R"(,"Input Dims":[[64,128],[128,32]],"Input type":["float","float"])" : "");
    ev += fmt::format(
        R"(,{{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":{},"dur":2,"args":{{"External id":{},"correlation":{}}}}})",
        ts + 1, corr, corr);
    ev += fmt::format(
        R"(,{{"ph":"X","cat":"kernel","name":"k{}","pid":0,"tid":7,"ts":{},"dur":{},"args":{{"stream":7,"correlation":{}}}}})",
        corr, ts + 2, shapes ? 10 : 30, corr);
  };
  const long long starts[3] = {0, 1000, 2000}, walls[3] = {100, 200, 300};
  for (int i = 0; i < 3; ++i) {
    ev += fmt::format(
        R"(,{{"ph":"X","cat":"user_annotation","name":"ProfilerStep#{}","pid":1,"tid":1,"ts":{},"dur":{}}})", i + 1,
        starts[i], walls[i]);
    cpu_op("aten::mm", starts[i] + 10, true);
    cpu_op("my::custom_op", starts[i] + 40, false);
    if (i == 1) cpu_op("aten::mm", starts[i] + 80, true);
  }
  cpu_op("aten::mm", 5000, true);  // after the last step
  Profile p = testing::ProfileFromJson(
      R"({"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"}],"traceEvents":[)" + ev.substr(1) + "]}",
      "r.json");
  // By default the view drops the last step (HTA's rule): the steady state
  // is step 2 alone, 2 x 524,288 FLOPs; mm holds 20 of its 50 us.
  ProfileFigures d = MeasureProfile(p, BuildProfileView(p, {}));
  EXPECT_DOUBLE_EQ(d.hardware_flops_per_device_per_step, 2 * 524288.0);
  EXPECT_DOUBLE_EQ(d.costed_gpu_fraction, 20.0 / 50);
  // Keeping it (--all-steps): steps 2 and 3.
  AnalysisOptions ao;
  ao.drop_last_step = false;
  ProfileFigures f = MeasureProfile(p, BuildProfileView(p, ao));
  EXPECT_DOUBLE_EQ(f.step_seconds, 250e-6);  // median of 200 and 300 us
  EXPECT_DOUBLE_EQ(f.hardware_flops_per_device_per_step, 3 * 524288.0 / 2);
  EXPECT_DOUBLE_EQ(f.costed_gpu_fraction, 30.0 / 90);
  EXPECT_EQ(f.flops_source, ProfileFigures::FlopsSource::kCostedShapes);
  MfuInput in = FromProfile(f, &ChipNamed("h100-sxm"));
  in.model_flops_per_step = 1e6;
  ASSERT_EQ(CheckMfu(in), std::nullopt);
  const MfuResult m = ComputeMfu(in);
  EXPECT_NEAR(m.hfu, 786432 / 250e-6 / 989.4e12, 1e-15);
}

// The bundled example's generator (4 layers, h 4096, FFN 16384, 8 x 1024
// tokens per rank, both ranks): the FLOPs mlprof sums from the ops' shapes
// must match the closed form for the model. Per layer and step: the GEMMs
// 3 x 2 x 8192 x (4096 x 12288 + 4096 x 4096 + 2 x 4096 x 16384) (forward,
// grad input, grad weight) and flash attention 4 x 8 x 32 x 1024^2 x 128
// forward, 2.5 x that backward (it recomputes the scores), plus
// elementwise and norm FLOPs under 1e-4 of the total. And the model FLOPs of
// 6N + 12 L s d per token are the same less the recompute (0.5 x forward
// attention).
TEST(Mfu, ShapesAgreeWithTheClosedFormOnTheExample) {
  Profile p;
  for (int rank = 0; rank < 2; ++rank) {
    synth::SynthOptions so;
    so.rank = rank, so.world_size = 2, so.steps = 6, so.layers = 4;
    Profile one = testing::ProfileFromJson(synth::MakeKinetoTrace(so), fmt::format("rank-{}.json", rank));
    p.ranks.push_back(std::move(one.ranks[0]));
  }
  const ProfileFigures f = MeasureProfile(p, BuildProfileView(p, {}));
  const double gemm = 3 * 2 * 8192.0 * (4096.0 * 12288 + 4096.0 * 4096 + 2 * 4096.0 * 16384);
  const double attn_fwd = 4 * 8 * 32 * 1024.0 * 1024 * 128;
  const double hardware = 4 * (gemm + 3.5 * attn_fwd);
  EXPECT_NEAR(f.hardware_flops_per_device_per_step, hardware, 1e-4 * hardware);
  EXPECT_GT(f.hardware_flops_per_device_per_step, hardware);  // the elementwise and norm FLOPs
  EXPECT_GT(f.costed_gpu_fraction, 0.95);                     // all but the optimizer and all-reduce
  EXPECT_DOUBLE_EQ(f.devices, 2);
  MfuInput in = FromProfile(f, &ChipNamed("h100-sxm"));
  in.params = 4 * (4096.0 * 12288 + 4096.0 * 4096 + 2 * 4096.0 * 16384);
  in.tokens_per_step = 2 * 8192;
  in.layers = 4, in.context = 1024, in.d_model = 4096;
  ASSERT_EQ(CheckMfu(in), std::nullopt);
  const MfuResult m = ComputeMfu(in);
  EXPECT_NEAR(m.flops_per_device_per_step, hardware - 4 * 0.5 * attn_fwd, 1e-12 * hardware);
  EXPECT_GT(m.hfu, m.mfu);
  EXPECT_NEAR(m.hfu / m.mfu, hardware / (hardware - 2 * attn_fwd), 1e-4);
  EXPECT_LT(m.hfu, 1.0);  // physically possible
}

// The synthetic TPU profile: step time = mean execution of the busiest
// module (checked against its events here), devices = TPU planes, hardware
// FLOPs = every op execution's recorded FLOPs / devices / steps.
TEST(Mfu, StepTimeDevicesAndHardwareFlopsFromAnXSpace) {
  synth::XSpaceOptions o;
  o.devices = 2;
  synth::XSpaceStats st;
  auto r = LoadTraceBytes(synth::MakeXSpace(o, &st), "s.xplane.pb");
  ASSERT_TRUE(r.ok()) << r.status().message();
  Profile p;
  p.ranks.push_back(std::move(r).value());
  const RankProfile& rp = p.ranks[0];
  Ps module_time = 0;
  int64_t executions = 0;
  double flops = 0;
  XlaOps x = ResolveXlaOps(rp);
  for (size_t i = 0; i < rp.ops.size(); ++i) {
    if (rp.str(rp.track_of(i).name) == "XLA Modules") module_time += rp.ops.dur[i], ++executions;
    if (rp.ops.xla[i] >= 0 && x.ops[static_cast<size_t>(rp.ops.xla[i])].flops > 0)
      flops += x.ops[static_cast<size_t>(rp.ops.xla[i])].flops;
  }
  ASSERT_EQ(executions, 2 * st.steps);
  ProfileFigures f = MeasureProfile(p, BuildProfileView(p, {}));
  EXPECT_DOUBLE_EQ(f.devices, 2);
  EXPECT_NEAR(f.step_seconds, static_cast<double>(module_time / executions) / 1e12, 1e-15);
  EXPECT_NEAR(f.hardware_flops_per_device_per_step, flops / 2 / st.steps, flops * 1e-12);
  ASSERT_FALSE(p.AllDevices().empty());
  const hw::Chip* chip = hw::ChipDb::BuiltIn().Detect(p.AllDevices()[0].device_type);
  ASSERT_NE(chip, nullptr);
  EXPECT_EQ(chip->id, "tpu-v6e");
  // HFU from those figures.
  MfuInput in = FromProfile(f, chip);
  in.model_flops_per_step = 1e12;
  ASSERT_EQ(CheckMfu(in), std::nullopt);
  const MfuResult m = ComputeMfu(in);
  EXPECT_NEAR(m.hfu, f.hardware_flops_per_device_per_step / f.step_seconds / 918e12, 1e-12);
}

}  // namespace
// Serving steps: the step time is the latency (range start to the last GPU
// op's end), not the host range. Four decode steps (us): [0,10) with its
// kernel to 30, [100,110) to 125, [200,210) to 240, [300,310) to 320:
// latencies 30, 25, 40, 20; the first is warm-up, the last left out: the
// median of 25 and 40 is 32.5 us.
TEST(MfuProfile, ServingStepsTakeTheLatency) {
  std::string ev;
  const int ends[] = {30, 125, 240, 320};
  for (int k = 0; k < 4; ++k) {
    const int t = 100 * k;
    ev +=
        (k ? "," : "") +
        std::string(
            R"J({"ph":"X","cat":"user_annotation","name":"execute_2_context_0(sq0sk0sqsq0sqsk0)_generation_2(sq2sk20sqsq2sqsk20)","pid":1,"tid":1,"ts":)J") +
        std::to_string(t) +
        R"(,"dur":10},{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
        std::to_string(t + 1) + R"(,"dur":2,"args":{"correlation":)" + std::to_string(k + 1) +
        R"(}},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(t + 5) + R"(,"dur":)" +
        std::to_string(ends[k] - t - 5) + R"(,"args":{"stream":7,"correlation":)" + std::to_string(k + 1) + "}}";
  }
  const Profile p = testing::ProfileFromJson(R"({"traceEvents":[)" + ev + "]}");
  const ProfileFigures f = MeasureProfile(p, BuildProfileView(p, {}));
  EXPECT_EQ(f.step_source, ProfileFigures::StepSource::kServingStep);
  EXPECT_DOUBLE_EQ(f.step_seconds, 32.5e-6);
}

}  // namespace mlprof
