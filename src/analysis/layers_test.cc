// mlprof layers on a hand-made trace: two instances of a block, each with an
// attention module inside, a backward op on the autograd thread and an
// optimizer step. Times in us.
#include "analysis/layers.h"

#include <gtest/gtest.h>

#include "../../tests/test_util.h"

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
  EXPECT_EQ(r.phases[0].steps, 0);
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

TEST(Layers, BackwardOpNames) {
  EXPECT_TRUE(IsBackwardOpName("autograd::engine::evaluate_function: ReluBackward0"));
  EXPECT_TRUE(IsBackwardOpName("CudnnConvolutionBackward"));
  EXPECT_TRUE(IsBackwardOpName("ReluBackward1"));
  EXPECT_FALSE(IsBackwardOpName("aten::convolution_backward"));
  EXPECT_FALSE(IsBackwardOpName("Backward"));
  EXPECT_FALSE(IsBackwardOpName("aten::mm"));
}

}  // namespace
}  // namespace mlprof
