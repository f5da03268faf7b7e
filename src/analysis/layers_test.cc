// mlprof layers on a hand-made trace: two instances of a block, each with an
// attention module inside, a backward op on the autograd thread and an
// optimizer step. Times in us.
#include "analysis/layers.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "../../tests/corpus_util.h"
#include "../../tests/test_util.h"
#include "io/load.h"

namespace mlprof {
namespace {

constexpr Ps kUsL = kPsPerUs;

// Block_0 [0,40) holds Attn_0 [0,20) whose kernel takes 10 us, and its own
// kernel of 6 us; Block_1 [40,80) holds Attn_1 (kernel 14 us) and its own
// 6 us. Blocks: 16 and 20 us, median 18; Attn 24 of the blocks' 36 us (66.7
// %), own ops 12 (33.3 %). Backward: a 30 us kernel under an autograd node
// (torch <= 1.10 name); optimizer: 5 us under Optimizer.step#SGD.step.
TEST(Layers, BlockPhasesAndParts) {
  const std::string k =
      R"J({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":%H%,"ts":%T%,"dur":1,"args":{"correlation":%C%}},
    {"ph":"X","cat":"kernel","name":"k%C%","pid":0,"tid":7,"ts":%G%,"dur":%D%,"args":{"stream":7,"correlation":%C%}})J";
  auto launch = [&](int t, int c, int g, int d, int tid = 1) {
    std::string s = k;
    for (auto [key, v] : {std::pair<std::string, int>{"%T%", t}, {"%C%", c}, {"%G%", g}, {"%D%", d}, {"%H%", tid}})
      for (size_t at; (at = s.find(key)) != std::string::npos;) s.replace(at, key.size(), std::to_string(v));
    return s;
  };
  const std::string json = std::string(R"J({"traceEvents":[
    {"ph":"X","cat":"python_function","name":"nn.Module: Block_0","pid":1,"tid":1,"ts":0,"dur":40},
    {"ph":"X","cat":"python_function","name":"nn.Module: Attn_0","pid":1,"tid":1,"ts":0,"dur":20},
    )J") + launch(2, 1, 100, 10) +
                           ",\n" + launch(25, 2, 110, 6) + R"J(,
    {"ph":"X","cat":"python_function","name":"nn.Module: Block_1","pid":1,"tid":1,"ts":40,"dur":40},
    {"ph":"X","cat":"python_function","name":"nn.Module: Attn_1","pid":1,"tid":1,"ts":40,"dur":20},
    )J" + launch(42, 3, 120, 14) +
                           ",\n" + launch(65, 4, 134, 6) + R"J(,
    {"ph":"X","cat":"cpu_op","name":"CudnnConvolutionBackward","pid":1,"tid":2,"ts":85,"dur":5},
    )J" + launch(86, 5, 140, 30, 2) +
                           R"J(,
    {"ph":"X","cat":"user_annotation","name":"Optimizer.step#SGD.step","pid":1,"tid":1,"ts":95,"dur":5},
    )J" + launch(96, 6, 170, 5) +
                           "]}";
  const LayerReport r = ComputeLayers(BuildProfileView(testing::ProfileFromJson(json), {}), -1);
  ASSERT_EQ(r.phases.size(), 1u);
  EXPECT_EQ(r.phases[0].steps, 1);  // one Optimizer.step range: no iteration between two, the whole trace
  EXPECT_EQ(r.phases[0].forward, 36 * kUsL);
  EXPECT_EQ(r.phases[0].backward, 30 * kUsL);
  EXPECT_EQ(r.phases[0].optimizer, 5 * kUsL);
  ASSERT_EQ(r.layers.size(), 2u);
  EXPECT_EQ(r.layers[0].module, "Block");
  EXPECT_TRUE(r.layers[0].block);
  EXPECT_EQ(r.layers[0].instances, 2);
  EXPECT_EQ(r.layers[0].median, 18 * kUsL);
  EXPECT_EQ(r.layers[0].max, 20 * kUsL);
  EXPECT_EQ(r.layers[0].slowest, "Block_1");
  EXPECT_EQ(r.layers[1].module, "Attn");
  EXPECT_FALSE(r.layers[1].block);  // a leaf: nothing inside it
  ASSERT_EQ(r.block.size(), 2u);
  EXPECT_EQ(r.block[0].part, "Attn");
  EXPECT_EQ(r.block[0].per_instance, 12 * kUsL);
  EXPECT_NEAR(r.block[0].pct, 100.0 * 24 / 36, 1e-9);
  EXPECT_EQ(r.block[1].part, "(own ops)");
}

// Communication kernels are their own phase whichever phase launched them:
// a forward gemm (10 us), under the autograd engine a 5 us kernel and a 7
// us all-reduce (DDP's, from the backward pass), and a 3 us all-gather from
// the forward (FSDP's). Forward 10, backward 5, communication 10.
TEST(Layers, CommunicationIsItsOwnPhase) {
  const std::string json = R"J({"traceEvents":[
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":1,"args":{"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":1,"args":{"correlation":2}},
    {"ph":"X","cat":"cpu_op","name":"autograd::engine::evaluate_function: MmBackward0","pid":1,"tid":2,"ts":20,"dur":10},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":21,"dur":1,"args":{"correlation":3}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":23,"dur":1,"args":{"correlation":4}},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":5,"dur":10,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"kernel","name":"ncclKernel_AllGather_RING_LL_Sum_float","pid":0,"tid":9,"ts":5,"dur":3,"args":{"stream":9,"correlation":2}},
    {"ph":"X","cat":"kernel","name":"gemm_bw","pid":0,"tid":7,"ts":25,"dur":5,"args":{"stream":7,"correlation":3}},
    {"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float","pid":0,"tid":9,"ts":25,"dur":7,"args":{"stream":9,"correlation":4}}
  ]})J";
  const LayerReport r = ComputeLayers(BuildProfileView(testing::ProfileFromJson(json), {}), -1);
  ASSERT_EQ(r.phases.size(), 1u);
  EXPECT_EQ(r.phases[0].forward, 10 * kUsL);
  EXPECT_EQ(r.phases[0].backward, 5 * kUsL);
  EXPECT_EQ(r.phases[0].communication, 10 * kUsL);
  EXPECT_EQ(r.phases[0].optimizer, 0);
}

TEST(Layers, BackwardOpNames) {
  EXPECT_TRUE(IsBackwardOpName("autograd::engine::evaluate_function: ReluBackward0"));
  EXPECT_TRUE(IsBackwardOpName("CudnnConvolutionBackward"));
  EXPECT_TRUE(IsBackwardOpName("ReluBackward1"));
  EXPECT_FALSE(IsBackwardOpName("aten::convolution_backward"));
  EXPECT_FALSE(IsBackwardOpName("Backward"));
  EXPECT_FALSE(IsBackwardOpName("aten::mm"));
}

TEST(Layers, BackwardLookingNames) {
  for (const char* yes : {"mlp(B)", "attn(W)", "dispatch(B) ", "backward_step", "## backward ##", "flash_attn_bwd",
                          "aten::convolution_backward", "FusedBwd"})
    EXPECT_TRUE(LooksBackwardName(yes)) << yes;
  for (const char* no : {"mlp(F)", "attn(F)", "Optimizer.step#AdamW.step", "aten::mm", "(B)x", "1F1B", "B", "W"})
    EXPECT_FALSE(LooksBackwardName(no)) << no;
}

// A DualPipe-like step: the main thread runs chunks under annotations,
// forward ones (mlp(F): 10 us) and backward ones outside the autograd
// engine (mlp(B): 20 us, attn(W): 8 us), and the engine's thread one
// backward node (5 us). 28 of the 43 us of forward + backward were launched
// under backward-named ranges outside the engine: the split is not told,
// and the repeating kernel sequence is looked for over both ("all").
TEST(Layers, BackwardOutsideTheEngineLeavesTheSplitUntold) {
  const std::string json = R"J({"traceEvents":[
    {"ph":"X","cat":"user_annotation","name":"mlp(F)","pid":1,"tid":1,"ts":0,"dur":5},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":1,"args":{"correlation":1}},
    {"ph":"X","cat":"user_annotation","name":"mlp(B)","pid":1,"tid":1,"ts":10,"dur":5},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":11,"dur":1,"args":{"correlation":2}},
    {"ph":"X","cat":"user_annotation","name":"attn(W)","pid":1,"tid":1,"ts":20,"dur":5},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":21,"dur":1,"args":{"correlation":3}},
    {"ph":"X","cat":"cpu_op","name":"autograd::engine::evaluate_function: MmBackward0","pid":1,"tid":2,"ts":30,"dur":5},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":31,"dur":1,"args":{"correlation":4}},
    {"ph":"X","cat":"kernel","name":"gemm_f","pid":0,"tid":7,"ts":2,"dur":10,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"kernel","name":"gemm_dgrad","pid":0,"tid":7,"ts":12,"dur":20,"args":{"stream":7,"correlation":2}},
    {"ph":"X","cat":"kernel","name":"gemm_wgrad","pid":0,"tid":7,"ts":32,"dur":8,"args":{"stream":7,"correlation":3}},
    {"ph":"X","cat":"kernel","name":"gemm_bw","pid":0,"tid":7,"ts":40,"dur":5,"args":{"stream":7,"correlation":4}}
  ]})J";
  const LayerReport r = ComputeLayers(BuildProfileView(testing::ProfileFromJson(json), {}), -1);
  ASSERT_EQ(r.phases.size(), 1u);
  const PhaseRow& p = r.phases[0];
  EXPECT_FALSE(p.split_known);
  EXPECT_EQ(p.forward, 38 * kUsL);  // raw, as classified; not shown
  EXPECT_EQ(p.backward, 5 * kUsL);
  EXPECT_EQ(p.backward_outside_engine, 28 * kUsL);
  ASSERT_EQ(p.backward_ranges.size(), 2u);
  EXPECT_EQ(p.backward_ranges[0], (std::pair<std::string, Ps>{"mlp(B)", 20 * kUsL}));
  EXPECT_EQ(p.backward_ranges[1], (std::pair<std::string, Ps>{"attn(W)", 8 * kUsL}));
  for (const KernelBlock& b : r.kernel_blocks) EXPECT_EQ(b.phase, "all");
}

// The loss gradient's fill under "## backward ##" (1 us) beside 40 us of
// forward and 60 of backward under the engine: 1 % is no reason to doubt
// the split.
TEST(Layers, SmallBackwardOutsideTheEngineKeepsTheSplit) {
  const std::string json = R"J({"traceEvents":[
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":1,"args":{"correlation":1}},
    {"ph":"X","cat":"user_annotation","name":"## backward ##","pid":1,"tid":1,"ts":10,"dur":5},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":11,"dur":1,"args":{"correlation":2}},
    {"ph":"X","cat":"cpu_op","name":"autograd::engine::evaluate_function: MmBackward0","pid":1,"tid":2,"ts":30,"dur":5},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":31,"dur":1,"args":{"correlation":3}},
    {"ph":"X","cat":"kernel","name":"gemm_f","pid":0,"tid":7,"ts":2,"dur":40,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"kernel","name":"fill","pid":0,"tid":7,"ts":42,"dur":1,"args":{"stream":7,"correlation":2}},
    {"ph":"X","cat":"kernel","name":"gemm_bw","pid":0,"tid":7,"ts":43,"dur":60,"args":{"stream":7,"correlation":3}}
  ]})J";
  const LayerReport r = ComputeLayers(BuildProfileView(testing::ProfileFromJson(json), {}), -1);
  ASSERT_EQ(r.phases.size(), 1u);
  EXPECT_TRUE(r.phases[0].split_known);
  EXPECT_EQ(r.phases[0].forward, 41 * kUsL);
  EXPECT_EQ(r.phases[0].backward, 60 * kUsL);
  EXPECT_EQ(r.phases[0].backward_outside_engine, 1 * kUsL);
}

// Symbols: 0 A, 1 B, 2 C, ...; weights 1 unless said.
std::vector<Ps> Ones(size_t n) { return std::vector<Ps>(n, 1); }

TEST(RepeatingRun, FindsTheLayerBetweenPrologueAndEpilogue) {
  // E | A B C | A B C | A B C | F: period 3 from 1, three repeats.
  const std::vector<uint32_t> s = {9, 0, 1, 2, 0, 1, 2, 0, 1, 2, 8};
  const RepeatingRun r = FindRepeatingRun(s, Ones(s.size()));
  EXPECT_EQ(r.start, 1u);
  EXPECT_EQ(r.period, 3u);
  EXPECT_EQ(r.repeats, 3u);
}

TEST(RepeatingRun, LayerWithRepeatsInside) {
  // X | A B A C | A B A C | A B A C | Y: "A B A" repeats with period 2 inside a
  // layer, but period 4 covers 12 symbols.
  const std::vector<uint32_t> s = {9, 0, 1, 0, 2, 0, 1, 0, 2, 0, 1, 0, 2, 8};
  const RepeatingRun r = FindRepeatingRun(s, Ones(s.size()));
  EXPECT_EQ(r.start, 1u);
  EXPECT_EQ(r.period, 4u);
  EXPECT_EQ(r.repeats, 3u);
}

TEST(RepeatingRun, EveryKernelTwiceInTheLayer) {
  // (A B B A) x 3: no symbol occurs once per layer; the distance to the
  // second-previous occurrence still gives 4. Period 4 from 0 covers 12;
  // the rotation from 1 (B B A A) covers only 11 symbols, two whole repeats.
  const std::vector<uint32_t> s = {0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0};
  const RepeatingRun r = FindRepeatingRun(s, Ones(s.size()));
  EXPECT_EQ(r.start, 0u);
  EXPECT_EQ(r.period, 4u);
  EXPECT_EQ(r.repeats, 3u);
}

TEST(RepeatingRun, ShortestPeriodAndHeaviestRun) {
  // (A B) x 4 repeats with period 2 (4 would cover the same 8 symbols).
  const std::vector<uint32_t> ab = {0, 1, 0, 1, 0, 1, 0, 1};
  RepeatingRun r = FindRepeatingRun(ab, Ones(ab.size()));
  EXPECT_EQ(r.period, 2u);
  EXPECT_EQ(r.repeats, 4u);
  // (A B) x 3 weighing 6, then (C D E) x 2 weighing 10 each: 60 wins.
  const std::vector<uint32_t> s = {0, 1, 0, 1, 0, 1, 2, 3, 4, 2, 3, 4};
  std::vector<Ps> w = Ones(6);
  for (int i = 0; i < 6; ++i) w.push_back(10);
  r = FindRepeatingRun(s, w);
  EXPECT_EQ(r.start, 6u);
  EXPECT_EQ(r.period, 3u);
  EXPECT_EQ(r.repeats, 2u);
}

TEST(RepeatingRun, NoneWithoutRepeats) {
  const std::vector<uint32_t> s = {0, 1, 2, 3, 4, 5, 0, 6};
  EXPECT_EQ(FindRepeatingRun(s, Ones(s.size())).repeats, 0u);
  // A single kernel run many times is no block (period >= 2).
  const std::vector<uint32_t> same(10, 3);
  EXPECT_EQ(FindRepeatingRun(same, Ones(same.size())).repeats, 0u);
  EXPECT_EQ(FindRepeatingRun({}, {}).repeats, 0u);
}

// Two steps, no module frames. Each step's forward: an embedding kernel (4
// us), three layers of gemm (10 us) + relu (2 us), with layer 3's gemm 13 us
// in step 2, and a loss kernel (3 us); backward under the autograd engine:
// three layers of relu_bw (3) + gemm_bw (20). Forward block: 2 kernels, 6
// instances, times 12 x 5 and 15, median 12, slowest step 2 #3, total 75
// of a forward of 22+4+3+... = 43 + 46 = 89 us (84.3 %). Parts: aten::mm
// (launching op of the gemm) 63/6 = 10.5 us, aten::relu 2 us. Backward: 6
// instances of 23 us, 100 % of the backward.
TEST(Layers, KernelSequenceWithoutModules) {
  std::string ev;
  int corr = 0;
  auto op = [&](const std::string& name, const std::string& cat, int tid, int ts, int dur) {
    ev += fmt::format(R"J({{"ph":"X","cat":"{}","name":"{}","pid":1,"tid":{},"ts":{},"dur":{}}},)J", cat, name, tid, ts,
                      dur) +
          "\n";
  };
  // A cpu op at host time t launching a kernel at GPU time g.
  auto kernel = [&](const std::string& cpu, const std::string& kname, int tid, int t, int g, int d) {
    ++corr;
    op(cpu, "cpu_op", tid, t, 3);
    ev += fmt::format(
        R"J({{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":{},"ts":{},"dur":1,"args":{{"correlation":{}}}}},
{{"ph":"X","cat":"kernel","name":"{}","pid":0,"tid":7,"ts":{},"dur":{},"args":{{"stream":7,"correlation":{}}}}},
)J",
        tid, t + 1, corr, kname, g, d, corr);
  };
  for (int step = 0; step < 2; ++step) {
    const int t0 = step * 1000;
    op(fmt::format("ProfilerStep#{}", step + 1), "user_annotation", 1, t0, 900);
    int t = t0 + 10, g = t0 + 100;
    kernel("aten::embedding", "embed_k", 1, t, g, 4);
    t += 10, g += 10;
    for (int l = 0; l < 3; ++l) {
      const int gemm = step == 1 && l == 2 ? 13 : 10;
      kernel("aten::mm", "gemm_k", 1, t, g, gemm);
      kernel("aten::relu", "relu_k", 1, t + 5, g + 20, 2);
      t += 10, g += 30;
    }
    kernel("aten::nll_loss", "loss_k", 1, t, g, 3);
    t += 10, g += 10;
    op("autograd::engine::evaluate_function: Layers", "cpu_op", 2, t, 200);
    for (int l = 0; l < 3; ++l) {
      kernel("aten::threshold_backward", "relu_bw_k", 2, t + 1, g, 3);
      kernel("aten::mm", "gemm_bw_k", 2, t + 6, g + 10, 20);
      t += 20, g += 40;
    }
  }
  // Three steps seen; the last one is dropped, so add a third, empty step.
  op("ProfilerStep#3", "user_annotation", 1, 2000, 100);
  ev.pop_back(), ev.pop_back();
  const LayerReport r =
      ComputeLayers(BuildProfileView(testing::ProfileFromJson("{\"traceEvents\":[" + ev + "]}"), {}), 0);
  ASSERT_EQ(r.phases.size(), 1u);
  EXPECT_EQ(r.phases[0].steps, 2);
  ASSERT_EQ(r.kernel_blocks.size(), 2u);
  const KernelBlock& f = r.kernel_blocks[0];
  EXPECT_EQ(f.phase, "forward");
  EXPECT_EQ(f.kernels, 2);
  EXPECT_EQ(f.instances, 6);
  EXPECT_DOUBLE_EQ(f.per_step, 3);
  EXPECT_EQ(f.median, 12 * kUsL);
  EXPECT_EQ(f.min, 12 * kUsL);
  EXPECT_EQ(f.max, 15 * kUsL);
  EXPECT_EQ(f.slowest, "step 2 #3");
  EXPECT_EQ(f.span, 22 * kUsL);  // gemm start to relu end: 20 + 2
  EXPECT_EQ(f.total, 75 * kUsL);
  EXPECT_NEAR(f.pct, 100.0 * 75 / 89, 1e-9);
  EXPECT_EQ(f.first_kernel, "gemm_k");
  const KernelBlock& b = r.kernel_blocks[1];
  EXPECT_EQ(b.phase, "backward");
  EXPECT_EQ(b.instances, 6);
  EXPECT_EQ(b.median, 23 * kUsL);
  EXPECT_NEAR(b.pct, 100.0, 1e-9);
  ASSERT_EQ(r.kernel_block_parts.size(), 4u);
  EXPECT_EQ(r.kernel_block_parts[0].part, "aten::mm");
  EXPECT_EQ(r.kernel_block_parts[0].per_instance, 10500000);  // 63 us / 6
  EXPECT_EQ(r.kernel_block_parts[1].part, "aten::relu");
  EXPECT_EQ(r.kernel_block_parts[1].per_instance, 2 * kUsL);
  EXPECT_EQ(r.kernel_block_parts[2].part, "aten::mm");  // backward: gemm_bw_k
  EXPECT_EQ(r.kernel_block_parts[2].phase, "backward");
}

TEST(RepeatingRun, EveryKernelFiveTimesInTheLayer) {
  // (A x5, B x5) x 3: the distance to the previous four A's never reaches
  // the period 10; the pair (A, B) occurs once per layer and gives it.
  std::vector<uint32_t> s;
  for (int l = 0; l < 3; ++l)
    for (uint32_t k : {0u, 1u})
      for (int i = 0; i < 5; ++i) s.push_back(k);
  const RepeatingRun r = FindRepeatingRun(s, Ones(s.size()));
  EXPECT_EQ(r.period, 10u);
  EXPECT_EQ(r.repeats, 3u);
}

// A trace of forward kernels only: per step, the kernels named in `steps`
// back to back on one stream (10 us each, or "name:us"), each launched by a
// cpu_op "op_<name>".
Profile StepsOfKernels(const std::vector<std::vector<std::string>>& steps) {
  std::string ev;
  int corr = 0, t = 0;
  for (size_t s = 0; s < steps.size() + 1; ++s) {  // one more, empty: the dropped last step
    const int t0 = t;
    const std::vector<std::string> none;
    for (const std::string& spec : s < steps.size() ? steps[s] : none) {
      const size_t colon = spec.find(':');  // "C:30": kernel C of 30 us
      const std::string k = spec.substr(0, colon);
      const int dur = colon == std::string::npos ? 10 : std::stoi(spec.substr(colon + 1));
      ++corr;
      ev += fmt::format(
          R"J({{"ph":"X","cat":"cpu_op","name":"op_{}","pid":1,"tid":1,"ts":{},"dur":3}},
{{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":{},"dur":1,"args":{{"correlation":{}}}}},
{{"ph":"X","cat":"kernel","name":"{}","pid":0,"tid":7,"ts":{},"dur":{},"args":{{"stream":7,"correlation":{}}}}},
)J",
          k, t, t + 1, corr, k, t + 2, dur, corr);
      t += dur + 10;
    }
    ev +=
        fmt::format(R"J({{"ph":"X","cat":"user_annotation","name":"ProfilerStep#{}","pid":1,"tid":1,"ts":{},"dur":{}}},
)J",
                    s + 1, t0, std::max(1, t - t0));
    t += 20;
  }
  ev.erase(ev.find_last_of(','));
  return testing::ProfileFromJson("{\"traceEvents\":[" + ev + "]}");
}

// Step 1: P (A B C) x3; step 2: C (A B C) x3. Step 2's best run starts at C
// (C A B x3, a rotation of the block); the block is A B C, and rescanning
// finds its three repeats in both steps: 6 instances, 3 per step, 180 of the
// 200 us of forward GPU time (90 %).
TEST(Layers, KernelSequenceRotatedInOneStep) {
  const Profile p = StepsOfKernels(
      {{"P", "A", "B", "C", "A", "B", "C", "A", "B", "C"}, {"C", "A", "B", "C", "A", "B", "C", "A", "B", "C"}});
  const LayerReport r = ComputeLayers(BuildProfileView(p, {}), 0);
  ASSERT_EQ(r.kernel_blocks.size(), 1u);
  EXPECT_EQ(r.kernel_blocks[0].kernels, 3);
  EXPECT_EQ(r.kernel_blocks[0].instances, 6);
  EXPECT_DOUBLE_EQ(r.kernel_blocks[0].per_step, 3);
  EXPECT_EQ(r.kernel_blocks[0].first_kernel, "A");
  EXPECT_NEAR(r.kernel_blocks[0].pct, 90.0, 1e-9);
}

// Both steps (A B) x3 (C D) x3; step 1's A is 20 us (A B weighs 90 against
// C D's 60), step 2's C is 20 us (C D 90 against A B 60). Over the steps A B
// and C D weigh 150 each; the tie goes to the smaller sequence (A B). Both
// steps' runs of it count: 6 instances, 150 of the 300 us (50 %), not step
// 1's alone.
TEST(Layers, KernelSequenceRescansEveryStep) {
  const LayerReport r = ComputeLayers(
      BuildProfileView(StepsOfKernels({{"A:20", "B", "A:20", "B", "A:20", "B", "C", "D", "C", "D", "C", "D"},
                                       {"A", "B", "A", "B", "A", "B", "C:20", "D", "C:20", "D", "C:20", "D"}}),
                       {}),
      0);
  ASSERT_EQ(r.kernel_blocks.size(), 1u);
  EXPECT_EQ(r.kernel_blocks[0].instances, 6);
  EXPECT_DOUBLE_EQ(r.kernel_blocks[0].per_step, 3);
  EXPECT_EQ(r.kernel_blocks[0].first_kernel, "A");
  EXPECT_NEAR(r.kernel_blocks[0].pct, 50.0, 1e-9);
}

// The kernel sequence finder against the module frames on a real trace:
// Qwen1.5-0.5B (TraceLens's H100 inference trace) has 24 Qwen2DecoderLayer
// instances; the repeating kernel sequence found without looking at the
// frames must be the same 24 layers with the same GPU time (its run starts
// at the layer's first kernel, the RMSNorm's cast).
TEST(LayersCorpus, KernelSequenceIsTheDecoderLayer) {
  MLPROF_CORPUS_FILE(path, "tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
  auto p = LoadProfile({path}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const LayerReport r = ComputeLayers(BuildProfileView(*p, {}), -1);
  ASSERT_FALSE(r.layers.empty());
  const LayerRow& block = r.layers[0];
  ASSERT_TRUE(block.block);
  EXPECT_EQ(block.module, "Qwen2DecoderLayer");
  ASSERT_EQ(r.kernel_blocks.size(), 1u);  // inference: no backward
  EXPECT_EQ(r.kernel_blocks[0].instances, block.instances);
  EXPECT_EQ(r.kernel_blocks[0].median, block.median);
  EXPECT_EQ(r.kernel_blocks[0].total, block.total);
}

}  // namespace
}  // namespace mlprof
