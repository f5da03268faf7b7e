// Framework-op costs from Kineto shapes, hand-computed.
#include "analysis/op_cost.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mlprof {
namespace {

TEST(OpCost, GemmShapesAndDtypes) {
  // mm: 2 x 64 x 32 x 16 FLOPs; (64*16 + 16*32 + 64*32) x 2 bytes.
  auto mm = GemmCost("aten::mm", "[[64,16],[16,32]]", R"(["c10::BFloat16","c10::BFloat16"])");
  ASSERT_TRUE(mm);
  EXPECT_EQ(mm->m, 64);
  EXPECT_EQ(mm->n, 32);
  EXPECT_EQ(mm->k, 16);
  EXPECT_DOUBLE_EQ(mm->flops, 2.0 * 64 * 32 * 16);
  EXPECT_DOUBLE_EQ(mm->bytes, (64.0 * 16 + 16 * 32 + 64 * 32) * 2);
  // addmm: bias [32] adds M*N FLOPs and N elements.
  auto addmm =
      GemmCost("aten::addmm", "[[32], [64, 16], [16, 32], [], []]", "['float', 'float', 'float', 'Scalar', 'Scalar']");
  ASSERT_TRUE(addmm);
  EXPECT_DOUBLE_EQ(addmm->flops, 2.0 * 64 * 32 * 16 + 64 * 32);
  EXPECT_DOUBLE_EQ(addmm->bytes, (64.0 * 16 + 16 * 32 + 64 * 32 + 32) * 4);
  // bmm: 8 batches.
  auto bmm = GemmCost("aten::bmm", "[[8,4,5],[8,5,6]]", R"(["c10::Half","c10::Half"])");
  ASSERT_TRUE(bmm);
  EXPECT_EQ(bmm->batch, 8);
  EXPECT_DOUBLE_EQ(bmm->flops, 2.0 * 8 * 4 * 6 * 5);
  EXPECT_DOUBLE_EQ(bmm->bytes, 8.0 * (4 * 5 + 5 * 6 + 4 * 6) * 2);
  // linear: x[2,3,10] @ W[7,10]^T + b[7]: M = 6.
  auto lin = GemmCost("aten::linear", "[[2,3,10],[7,10],[7]]", R"(["float","float","float"])");
  ASSERT_TRUE(lin);
  EXPECT_EQ(lin->m, 6);
  EXPECT_EQ(lin->n, 7);
  EXPECT_DOUBLE_EQ(lin->flops, 2.0 * 6 * 7 * 10 + 6 * 7);
  EXPECT_DOUBLE_EQ(lin->bytes, (6.0 * 10 + 10 * 7 + 6 * 7 + 7) * 4);
  // Not GEMMs, or shapes that do not fit.
  EXPECT_FALSE(GemmCost("aten::add", "[[2],[2]]", R"(["float","float"])"));
  EXPECT_FALSE(GemmCost("aten::mm", "[[2,3],[4,5]]", R"(["float","float"])"));      // inner dims differ
  EXPECT_FALSE(GemmCost("aten::mm", "[[2,3]]", R"(["float"])"));                    // one input
  EXPECT_FALSE(GemmCost("aten::mm", "[[2,3],[3,5]]", R"(["mystery","mystery"])"));  // unknown dtype
  EXPECT_FALSE(GemmCost("aten::mm", "[[2,x],[3,5]]", R"(["float","float"])"));      // not numbers
  // Leading dims whose product passes 2^53: refused, not wrapped.
  EXPECT_FALSE(
      GemmCost("aten::bmm", "[[4294967296,4294967296,2,3],[4294967296,4294967296,3,5]]", R"(["float","float"])"));
  EXPECT_FALSE(GemmCost("aten::linear", "[[4294967296,4294967296,3],[5,3]]", R"(["float","float"])"));
  // Unterminated lists.
  EXPECT_FALSE(GemmCost("aten::mm", "[[2,3],[3,5]", R"(["float","float"])"));
  EXPECT_FALSE(GemmCost("aten::mm", "[[2,3],[3,5]]", R"(["float","float)"));
}

TEST(OpCost, AttentionForwardCausalAndGqa) {
  // SDPA flash, q/k/v [B=2, H=8, N=128, d=64], non-causal: 4·B·H·N²·d.
  const std::string bf16x3 = R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar","Scalar","Scalar"])";
  auto f = FrameworkOpCost("aten::_scaled_dot_product_flash_attention",
                           "[[2,8,128,64],[2,8,128,64],[2,8,128,64],[],[],[],[]]", bf16x3,
                           R"(["","","","0.","False","False",""])");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, "attention_fwd");
  EXPECT_DOUBLE_EQ(f->flops, 4.0 * 2 * 8 * 128 * 128 * 64);
  EXPECT_DOUBLE_EQ(f->bytes, 4.0 * 2 * 8 * 128 * 64 * 2);
  // Causal with Nq == Nkv: half.
  auto c = FrameworkOpCost("aten::_scaled_dot_product_flash_attention",
                           "[[2,8,128,64],[2,8,128,64],[2,8,128,64],[],[],[],[]]", bf16x3,
                           R"(["","","","0.","True","False",""])");
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->flops, f->flops / 2);
  // GQA: 8 query heads over 2 KV heads; K and V are a quarter of Q.
  auto g = FrameworkOpCost("aten::_scaled_dot_product_efficient_attention",
                           "[[1,8,16,32],[1,2,16,32],[1,2,16,32],[],[],[],[],[]]",
                           R"(["float","float","float","","Scalar","Scalar","Scalar","Scalar"])",
                           R"(["","","","","False","0.","False",""])");
  ASSERT_TRUE(g);
  EXPECT_DOUBLE_EQ(g->flops, 4.0 * 8 * 16 * 16 * 32);
  EXPECT_DOUBLE_EQ(g->bytes, (8.0 * 16 * 32 * 2 + 2.0 * 16 * 32 * 2) * 4);
  // flash-attn [B, N, H, d], causal, 4 queries over 8 keys (decode with a
  // cache): the mask is aligned to the end, so query i sees 5 + i keys:
  // 5+6+7+8 = 26 of 32 scores.
  auto d = FrameworkOpCost("flash_attn::_flash_attn_forward", "[[1,4,2,16],[1,8,2,16],[1,8,2,16],[],[],[]]",
                           R"(["c10::Half","c10::Half","c10::Half","Scalar","Scalar","Scalar"])",
                           R"(["","","","0.0","0.25","True"])");
  ASSERT_TRUE(d);
  EXPECT_DOUBLE_EQ(d->flops, 4.0 * 1 * 2 * 26 * 16);
  // The same shapes through SDPA (mask aligned to the start): 1+2+3+4 = 10.
  auto s = FrameworkOpCost("aten::scaled_dot_product_attention", "[[1,2,4,16],[1,2,8,16],[1,2,8,16],[],[],[],[]]",
                           R"(["c10::Half","c10::Half","c10::Half","","Scalar","Scalar","Scalar"])",
                           R"(["","","","","0.","True",""])");
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->flops, 4.0 * 1 * 2 * 10 * 16);
  // Mismatched K and V, or query heads not a multiple of KV heads: refused.
  EXPECT_FALSE(FrameworkOpCost("aten::_scaled_dot_product_flash_attention", "[[1,6,4,8],[1,4,4,8],[1,4,4,8]]",
                               R"(["float","float","float"])", ""));
  EXPECT_FALSE(FrameworkOpCost("aten::_scaled_dot_product_flash_attention", "[[1,4,4,8],[1,4,5,8],[1,4,4,8]]",
                               R"(["float","float","float"])", ""));
}

TEST(OpCost, AttentionBackward) {
  // [B=1, Hq=4, Hkv=2, N=8, d=16], not causal. Recompute QK^T (2·S·d),
  // dV, dP, dQ, dK (2·S·d each) with S = B·Hq·N² = 256, plus the GQA head
  // sums for dK and dV: B·N·d·(Hq/Hkv − 1) each.
  auto b = FrameworkOpCost("aten::_scaled_dot_product_efficient_attention_backward",
                           "[[1,4,8,16],[1,4,8,16],[1,2,8,16],[1,2,8,16],[],[1,4,8,16],[1,4,8],[],[],[],[],[],[]]",
                           R"(["float","float","float","float","","float","float","","","Scalar","","Scalar",""])",
                           R"(["","","","","","","","","","0.","[True, True, True, False]","False",""])");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->kind, "attention_bwd");
  const double S = 1.0 * 4 * 8 * 8;
  EXPECT_DOUBLE_EQ(b->flops, 5 * 2 * S * 16 + 2 * (1.0 * 8 * 16 * 1));
  // Read q, k, v, dO; write dq, dk, dv.
  const double q = 4.0 * 8 * 16, kv = 2.0 * 8 * 16;
  EXPECT_DOUBLE_EQ(b->bytes, (2 * (q + kv + kv) + q) * 4);
  // Causal (Nq == Nkv) halves it.
  auto c = FrameworkOpCost("aten::_scaled_dot_product_flash_attention_backward",
                           "[[1,4,8,16],[1,4,8,16],[1,4,8,16],[1,4,8,16],[1,4,8,16],[1,4,8],[],[],[],[],[],[],[],[]]",
                           R"(["float","float","float","float","float","float","","","","","Scalar","Scalar","",""])",
                           R"(["","","","","","","","","8","8","0.","True","",""])");
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->flops, 5 * 2 * S * 16 / 2);
}

TEST(OpCost, ConvolutionGeometry) {
  // conv2d 3x3, stride 2, padding 1, groups 2: x [2,4,9,9], w [6,2,3,3] ->
  // out [2,6,5,5]; FLOPs 2·out·(2·3·3); bias [6] adds out; fp32.
  auto c = FrameworkOpCost(
      "aten::convolution", "[[2,4,9,9],[6,2,3,3],[6],[],[],[],[],[],[]]",
      R"(["float","float","float","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"])",
      R"(["","","","[2, 2]","[1, 1]","[1, 1]","False","[0, 0]","2"])");
  ASSERT_TRUE(c);
  const double out = 2.0 * 6 * 5 * 5;
  EXPECT_DOUBLE_EQ(c->flops, 2 * out * 18 + out);
  EXPECT_DOUBLE_EQ(c->bytes, (2.0 * 4 * 81 + 6 * 18 + out + 6) * 4);
  // Transposed: x [1,4,5,5], w [4,3,3,3] (C_in, C_out/groups, k, k), stride
  // 2, padding 1, output_padding 1 -> out [1,3,10,10]; FLOPs 2·x·(3·3·3).
  auto t =
      FrameworkOpCost("aten::convolution", "[[1,4,5,5],[4,3,3,3],[],[],[],[],[],[],[]]",
                      R"(["float","float","","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"])",
                      R"(["","","","[2]","[1]","[1]","True","[1]","1"])");
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->flops, 2 * 100.0 * 27);
  EXPECT_DOUBLE_EQ(t->bytes, (100.0 + 108 + 300) * 4);
  // Backward with only the weight gradient: one conv's FLOPs; reads dy and
  // x, writes dw.
  auto b =
      FrameworkOpCost("aten::convolution_backward", "[[2,6,5,5],[2,4,9,9],[6,2,3,3],[],[],[],[],[],[],[],[]]",
                      R"(["float","float","float","","","","","","","",""])",
                      R"(["","","","[6]","[2, 2]","[1, 1]","[1, 1]","False","[0, 0]","2","[False, True, False]"])");
  ASSERT_TRUE(b);
  EXPECT_DOUBLE_EQ(b->flops, 2 * out * 18);
  EXPECT_DOUBLE_EQ(b->bytes, (out + 2.0 * 4 * 81 + 6 * 18) * 4);
  // Geometry that leaves no output, or a zero stride: refused.
  EXPECT_FALSE(FrameworkOpCost("aten::convolution", "[[1,1,2,2],[1,1,5,5],[],[],[],[],[],[],[]]",
                               R"(["float","float"])", R"(["","","","[1]","[0]","[1]","False","[0]","1"])"));
  EXPECT_FALSE(FrameworkOpCost("aten::convolution", "[[1,1,8,8],[1,1,3,3],[],[],[],[],[],[],[]]",
                               R"(["float","float"])", R"(["","","","[0]","[0]","[1]","False","[0]","1"])"));
}

// Without stride, padding and dilation (torch 1.13 writes "", a trace with
// no Concrete Inputs has none) the geometry is unknown: no cost, said by
// ConvStrideUnknown. Assuming stride 1 would give the stride-2 conv above
// 2·(2·6·9·9)·18 FLOPs instead of 2·(2·6·5·5)·18: 3.24x too many.
TEST(OpCost, ConvolutionWithoutStrideIsNotCosted) {
  const char* dims = "[[2,4,9,9],[6,2,3,3],[6],[],[],[],[],[],[]]";
  const char* types =
      R"(["float","float","float","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"])";
  EXPECT_FALSE(FrameworkOpCost("aten::convolution", dims, types, ""));
  EXPECT_TRUE(ConvStrideUnknown("aten::convolution", dims, ""));
  const char* blank = R"(["","","","","","","False","","2"])";
  EXPECT_FALSE(FrameworkOpCost("aten::convolution", dims, types, blank));
  EXPECT_TRUE(ConvStrideUnknown("aten::convolution", dims, blank));
  const char* known = R"(["","","","[2, 2]","[1, 1]","[1, 1]","False","[0, 0]","2"])";
  EXPECT_TRUE(FrameworkOpCost("aten::convolution", dims, types, known));
  EXPECT_FALSE(ConvStrideUnknown("aten::convolution", dims, known));
  EXPECT_TRUE(ConvStrideUnknown("aten::convolution_backward", "[[2,6,5,5],[2,4,9,9],[6,2,3,3]]", ""));
  EXPECT_FALSE(ConvStrideUnknown("aten::mm", "[[2,2],[2,2]]", ""));
  EXPECT_FALSE(ConvStrideUnknown("aten::convolution", "", ""));  // no shapes: another warning
}

TEST(OpCost, ElementwiseSoftmaxNormReduceEmbedding) {
  // Binary with broadcasting: [4,1,8] + [3,1] -> [4,3,8]; bf16 and float
  // tensors promote to float.
  auto add = FrameworkOpCost("aten::add", "[[4,1,8],[3,1],[]]", R"(["c10::BFloat16","float","Scalar"])", "");
  ASSERT_TRUE(add);
  EXPECT_DOUBLE_EQ(add->flops, 96);
  EXPECT_DOUBLE_EQ(add->bytes, 32 * 2 + 3 * 4 + 96 * 4);
  // A Python-number operand reads nothing.
  auto mul = FrameworkOpCost("aten::mul", "[[10],[]]", R"(["float","Scalar"])", "");
  ASSERT_TRUE(mul);
  EXPECT_DOUBLE_EQ(mul->bytes, 10 * 4 + 10 * 4);
  EXPECT_FALSE(FrameworkOpCost("aten::add", "[[4,2],[3]]", R"(["float","float"])", ""));  // not broadcastable
  // Unary copy_ float <- bf16.
  auto cp = FrameworkOpCost("aten::copy_", "[[5,6],[5,6],[]]", R"(["float","c10::BFloat16","Scalar"])", "");
  ASSERT_TRUE(cp);
  EXPECT_DOUBLE_EQ(cp->bytes, 30 * 4 + 30 * 2);
  // Softmax [4,10] fp16: 3 FLOPs and 2 accesses per element; backward 4 and 3.
  auto sm = FrameworkOpCost("aten::_softmax", "[[4,10],[],[]]", R"(["c10::Half","Scalar","Scalar"])", "");
  ASSERT_TRUE(sm);
  EXPECT_DOUBLE_EQ(sm->flops, 120);
  EXPECT_DOUBLE_EQ(sm->bytes, 160);
  auto smb = FrameworkOpCost("aten::_softmax_backward_data", "[[4,10],[4,10],[],[]]",
                             R"(["c10::Half","c10::Half","Scalar","Scalar"])", "");
  ASSERT_TRUE(smb);
  EXPECT_DOUBLE_EQ(smb->flops, 160);
  EXPECT_DOUBLE_EQ(smb->bytes, 240);
  // layer_norm over 16 of [2,3,16] float: 5 FLOPs per element + 6 per
  // channel; input, output and six 16-element tensors.
  auto ln = FrameworkOpCost("aten::layer_norm", "[[2,3,16],[],[16],[16],[],[]]",
                            R"(["float","ScalarList","float","float","Scalar","Scalar"])",
                            R"(["","[16]","","","1e-05","True"])");
  ASSERT_TRUE(ln);
  EXPECT_EQ(ln->kind, "norm_fwd");
  EXPECT_DOUBLE_EQ(ln->flops, 5 * 96.0 + 6 * 16);
  EXPECT_DOUBLE_EQ(ln->bytes, 2 * 96.0 * 4 + 6 * 16 * 4);
  // batch_norm in eval mode (running statistics): no statistics pass, four
  // channel tensors.
  auto bn = FrameworkOpCost("aten::batch_norm", "[[2,4,3,3],[4],[4],[4],[4],[],[],[],[]]",
                            R"(["float","float","float","float","float","Scalar","Scalar","Scalar","Scalar"])",
                            R"(["","","","","","False","0.1","1e-05","True"])");
  ASSERT_TRUE(bn);
  EXPECT_DOUBLE_EQ(bn->flops, 6 * 4.0 + 2 * 72);
  EXPECT_DOUBLE_EQ(bn->bytes, 2 * 72.0 * 4 + 4 * 4 * 4);
  // sum over dims [0, 2] of [2,3,4] bf16: 24 in, 3 out.
  auto sum = FrameworkOpCost("aten::sum", "[[2,3,4],[],[],[]]", R"(["c10::BFloat16","ScalarList","Scalar",""])",
                             R"(["","[0, 2]","False",""])");
  ASSERT_TRUE(sum);
  EXPECT_DOUBLE_EQ(sum->flops, 24);
  EXPECT_DOUBLE_EQ(sum->bytes, (24 + 3) * 2);
  EXPECT_FALSE(FrameworkOpCost("aten::sum", "[[2,3],[],[],[]]", R"(["float","ScalarList","Scalar",""])",
                               R"(["","[5]","False",""])"));  // dim out of range
  // embedding: 6 long indices into a [100, 8] bf16 table.
  auto emb =
      FrameworkOpCost("aten::embedding", "[[100,8],[2,3],[],[],[]]",
                      R"(["c10::BFloat16","long int","Scalar","Scalar","Scalar"])", R"(["","","-1","False","False"])");
  ASSERT_TRUE(emb);
  EXPECT_DOUBLE_EQ(emb->flops, 0);
  EXPECT_DOUBLE_EQ(emb->bytes, 6 * 8 + 2 * 6 * 8 * 2);
  auto embb =
      FrameworkOpCost("aten::embedding_dense_backward", "[[2,3,8],[2,3],[],[],[]]",
                      R"(["c10::BFloat16","long int","Scalar","Scalar","Scalar"])", R"(["","","100","-1","False"])");
  ASSERT_TRUE(embb);
  EXPECT_DOUBLE_EQ(embb->flops, 48);
  EXPECT_DOUBLE_EQ(embb->bytes, 48 * 2 + 6 * 8 + 100 * 8 * 2);
}

TEST(OpCost, BadArgumentsAreRefused) {
  EXPECT_FALSE(HasCostModel("aten::cat"));
  EXPECT_FALSE(FrameworkOpCost("aten::cat", "[[[1,2],[1,2]],[]]", R"(["TensorList","Scalar"])", ""));
  EXPECT_FALSE(FrameworkOpCost("aten::add", "[[4,", R"(["float"])", ""));                     // truncated
  EXPECT_FALSE(FrameworkOpCost("aten::add", "[[4],[4]]", R"(["float","float"])", R"(["x)"));  // unterminated
  EXPECT_FALSE(FrameworkOpCost("aten::relu", "[[4]]", R"(["mystery"])", ""));                 // unknown dtype
  // Counts past 2^53 elements are refused rather than rounded.
  EXPECT_FALSE(FrameworkOpCost("aten::relu", "[[4294967296,4294967296,2]]", R"(["float"])", ""));
  EXPECT_FALSE(FrameworkOpCost("aten::_scaled_dot_product_flash_attention",
                               "[[67108864,64,65536,64],[67108864,64,65536,64],[67108864,64,65536,64]]",
                               R"(["float","float","float"])", ""));
  // Escaped quotes inside a concrete string are read through.
  std::vector<std::string> t;
  ASSERT_TRUE(ParseTypeList(R"(["a\"b", "c"])", &t));
  EXPECT_EQ(t[0], "a\"b");
  EXPECT_EQ(CostCategory("conv_bwd"), OpCategory::kMatmul);
  EXPECT_EQ(CostCategory("gemm"), OpCategory::kMatmul);
  EXPECT_EQ(CostCategory("attention_fwd"), OpCategory::kAttention);
  EXPECT_EQ(CostCategory("softmax_fwd"), OpCategory::kNormalization);
  EXPECT_EQ(CostCategory("reduce"), OpCategory::kReduction);
  EXPECT_EQ(CostCategory("collective"), OpCategory::kCollective);
}

TEST(OpCost, Collectives) {
  // All-reduce of 1000 floats over 4 ranks: each rank sends 2·3/4 of 4000 B.
  auto ar = CollectiveOpCost(R"(["allreduce",1000,1000,4,"Float"])");
  ASSERT_TRUE(ar);
  EXPECT_EQ(ar->kind, "collective");
  EXPECT_DOUBLE_EQ(ar->bytes, 2 * 0.75 * 4000);
  EXPECT_EQ(ar->batch, 4);
  EXPECT_EQ(ar->collective, "all-reduce");
  // All-gather: 7/8 of the gathered output (8 x 100 bf16).
  auto ag = CollectiveOpCost(R"(["_allgather_base",100,800,8,"BFloat16"])");
  ASSERT_TRUE(ag);
  EXPECT_DOUBLE_EQ(ag->bytes, 7.0 / 8 * 1600);
  EXPECT_EQ(ag->collective, "all-gather");
  // Reduce-scatter: 7/8 of the input.
  auto rs = CollectiveOpCost(R"(["_reduce_scatter_base",800,100,8,"Float"])");
  ASSERT_TRUE(rs);
  EXPECT_DOUBLE_EQ(rs->bytes, 7.0 / 8 * 3200);
  EXPECT_EQ(rs->collective, "reduce-scatter");
  // One rank sends nothing; a broadcast sends the buffer once.
  EXPECT_DOUBLE_EQ(CollectiveOpCost(R"(["allreduce",10,10,1,"Float"])")->bytes, 0);
  EXPECT_DOUBLE_EQ(CollectiveOpCost(R"(["broadcast",10,10,8,"Long"])")->bytes, 80);
  // Unknown collective or dtype, a negative size, a broken text: refused.
  EXPECT_FALSE(CollectiveOpCost(R"(["mystery",10,10,2,"Float"])"));
  EXPECT_FALSE(CollectiveOpCost(R"(["allreduce",10,10,2,"Quux"])"));
  EXPECT_FALSE(CollectiveOpCost(R"(["allreduce",-10,10,2,"Float"])"));
  EXPECT_FALSE(CollectiveOpCost(R"(["allreduce",10,10)"));
  EXPECT_FALSE(CollectiveOpCost(R"(["allreduce",10,10,0,"Float"])"));
  // An escaped quote in the name is read through (and the name is unknown).
  EXPECT_FALSE(CollectiveOpCost(R"(["all\"reduce",10,10,2,"Float"])"));
}

}  // namespace
}  // namespace mlprof
