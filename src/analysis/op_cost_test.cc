// GEMM costs from Kineto shapes, hand-computed.
#include "analysis/op_cost.h"

#include <gtest/gtest.h>

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
  auto addmm = GemmCost("aten::addmm", "[[32], [64, 16], [16, 32], [], []]",
                        "['float', 'float', 'float', 'Scalar', 'Scalar']");
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
  EXPECT_FALSE(GemmCost("aten::mm", "[[2,3],[4,5]]", R"(["float","float"])"));       // inner dims differ
  EXPECT_FALSE(GemmCost("aten::mm", "[[2,3]]", R"(["float"])"));                      // one input
  EXPECT_FALSE(GemmCost("aten::mm", "[[2,3],[3,5]]", R"(["mystery","mystery"])"));   // unknown dtype
  EXPECT_FALSE(GemmCost("aten::mm", "[[2,x],[3,5]]", R"(["float","float"])"));       // not numbers
  // Leading dims whose product passes 2^53: refused, not wrapped.
  EXPECT_FALSE(GemmCost("aten::bmm", "[[4294967296,4294967296,2,3],[4294967296,4294967296,3,5]]",
                        R"(["float","float"])"));
  EXPECT_FALSE(GemmCost("aten::linear", "[[4294967296,4294967296,3],[5,3]]", R"(["float","float"])"));
  // Unterminated lists.
  EXPECT_FALSE(GemmCost("aten::mm", "[[2,3],[3,5]", R"(["float","float"])"));
  EXPECT_FALSE(GemmCost("aten::mm", "[[2,3],[3,5]]", R"(["float","float)"));
}

}  // namespace
}  // namespace mlprof
