#include "base/collective.h"

#include <gtest/gtest.h>

namespace mlprof {
namespace {

TEST(Collective, HloOpcodes) {
  auto ar = CollectiveFromHloOpcode("all-reduce");
  ASSERT_TRUE(ar);
  EXPECT_EQ(ar->kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(ar->part, AsyncPart::kSync);
  auto ags = CollectiveFromHloOpcode("all-gather-start");
  ASSERT_TRUE(ags);
  EXPECT_EQ(ags->kind, CollectiveKind::kAllGather);
  EXPECT_EQ(ags->part, AsyncPart::kStart);
  auto cpd = CollectiveFromHloOpcode("collective-permute-done");
  ASSERT_TRUE(cpd);
  EXPECT_EQ(cpd->kind, CollectiveKind::kCollectivePermute);
  EXPECT_EQ(cpd->part, AsyncPart::kDone);
  EXPECT_EQ(CollectiveFromHloOpcode("collective-broadcast")->kind, CollectiveKind::kCollectiveBroadcast);
  EXPECT_EQ(CollectiveFromHloOpcode("ragged-all-to-all")->kind, CollectiveKind::kRaggedAllToAll);
  // Not collectives, or not HLO spellings.
  for (const char* op : {"add", "reduce", "broadcast", "send", "-start", "all-reduce-", "copy-start", "allreduce"})
    EXPECT_FALSE(CollectiveFromHloOpcode(op)) << op;
  EXPECT_EQ(CollectiveKindName(CollectiveKind::kReduceScatter), "reduce-scatter");
}

TEST(Collective, C10dNames) {
  EXPECT_EQ(CollectiveFromC10dName("_allgather_base"), CollectiveKind::kAllGather);
  EXPECT_EQ(CollectiveFromC10dName("reduce_scatter_tensor"), CollectiveKind::kReduceScatter);
  EXPECT_EQ(CollectiveFromC10dName("all_to_all_single"), CollectiveKind::kAllToAll);
  EXPECT_EQ(CollectiveFromC10dName("allreduce_coalesced"), CollectiveKind::kAllReduce);
  EXPECT_EQ(CollectiveFromC10dName("barrier"), CollectiveKind::kBarrier);
  EXPECT_FALSE(CollectiveFromC10dName("all-reduce"));
  EXPECT_FALSE(CollectiveFromC10dName(""));
}

// Ring factors by hand: 8 ranks, all-reduce 2 x 7/8, one-phase 7/8; the
// point-to-point kinds send the buffer once when there is anyone to send to.
TEST(Collective, RingFactorsAndSteps) {
  EXPECT_DOUBLE_EQ(RingWireFactor(CollectiveKind::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(RingWireFactor(CollectiveKind::kAllGather, 8), 0.875);
  EXPECT_DOUBLE_EQ(RingWireFactor(CollectiveKind::kReduceScatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(RingWireFactor(CollectiveKind::kAllToAll, 2), 0.5);
  EXPECT_DOUBLE_EQ(RingWireFactor(CollectiveKind::kAllReduce, 1), 0);
  EXPECT_DOUBLE_EQ(RingWireFactor(CollectiveKind::kBroadcast, 1), 0);
  EXPECT_DOUBLE_EQ(RingWireFactor(CollectiveKind::kSend, 2), 1);
  EXPECT_DOUBLE_EQ(RingWireFactor(CollectiveKind::kCollectivePermute, 16), 1);
  EXPECT_DOUBLE_EQ(RingWireFactor(CollectiveKind::kBarrier, 8), 0);
  EXPECT_LT(RingWireFactor(CollectiveKind::kAllReduce, 0), 0);
  EXPECT_EQ(RingSteps(CollectiveKind::kAllReduce, 8), 14);
  EXPECT_EQ(RingSteps(CollectiveKind::kAllGather, 8), 7);
  EXPECT_EQ(RingSteps(CollectiveKind::kSend, 2), 1);
  EXPECT_EQ(RingSteps(CollectiveKind::kAllReduce, 1), 0);
}

}  // namespace
}  // namespace mlprof
