#include "hlo/shape.h"

#include <gtest/gtest.h>

namespace mlprof::hlo {
namespace {

Shape P(std::string_view text) {
  auto s = ParseShape(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status().message();
  return s.ok() ? std::move(s).value() : Shape{};
}

// The first example: 3x5 f32 in 2x2 tiles pads to 4x6, 1.6x the memory.
TEST(HloShape, TilingPadsToTheTile) {
  Shape s = P("f32[3,5]{1,0:T(2,2)}");
  EXPECT_EQ(s.type, ElementType::kF32);
  EXPECT_EQ(std::vector<int64_t>(s.dims.begin(), s.dims.end()), (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(std::vector<int64_t>(s.layout.minor_to_major.begin(), s.layout.minor_to_major.end()),
            (std::vector<int64_t>{1, 0}));
  ASSERT_EQ(s.layout.tiles.size(), 1u);
  PhysicalShape p = Physical(s);
  EXPECT_EQ(p.logical_major_to_minor, (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(p.padded_major_to_minor, (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(p.logical_bytes, 3 * 5 * 4);
  EXPECT_EQ(p.bytes, 4 * 6 * 4);
  EXPECT_DOUBLE_EQ(p.expansion(), 1.6);
  // Column-major: memory order [5, 3] pads to [6, 4], the same bytes.
  PhysicalShape q = Physical(P("f32[3,5]{0,1:T(2,2)}"));
  EXPECT_EQ(q.padded_major_to_minor, (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(q.bytes, 96);
}

// The second example: VMEM, tiles (8,128) then (2,1), no padding.
TEST(HloShape, MemorySpaceAndSubTiles) {
  Shape s = P("bf16[32,32,8192]{2,1,0:T(8,128)(2,1)S(1)}");
  EXPECT_EQ(s.layout.memory_space, 1);
  EXPECT_EQ(MemorySpaceName(s.layout.memory_space), "VMEM");
  ASSERT_EQ(s.layout.tiles.size(), 2u);
  EXPECT_EQ(std::vector<int64_t>(s.layout.tiles[0].begin(), s.layout.tiles[0].end()), (std::vector<int64_t>{8, 128}));
  EXPECT_EQ(std::vector<int64_t>(s.layout.tiles[1].begin(), s.layout.tiles[1].end()), (std::vector<int64_t>{2, 1}));
  PhysicalShape p = Physical(s);
  EXPECT_EQ(p.tile, (std::vector<int64_t>{8, 128}));
  EXPECT_EQ(p.padded_major_to_minor, (std::vector<int64_t>{32, 32, 8192}));
  EXPECT_EQ(p.bytes, int64_t{32} * 32 * 8192 * 2);
  EXPECT_EQ(s.ToString(), "bf16[32,32,8192]{2,1,0:T(8,128)(2,1)S(1)}");
  // A sub-tile pads the tile: (3,128) tiled by (2,1) becomes (4,128).
  PhysicalShape odd = Physical(P("bf16[6,256]{1,0:T(3,128)(2,1)}"));
  EXPECT_EQ(odd.tile, (std::vector<int64_t>{4, 128}));
  EXPECT_EQ(odd.padded_major_to_minor, (std::vector<int64_t>{8, 256}));
}

TEST(HloShape, ScalarsSpacesAndPackedTypes) {
  EXPECT_EQ(MemorySpaceName(P("u32[]{:S(2)}").layout.memory_space), "SMEM");
  EXPECT_EQ(MemorySpaceName(0), "HBM");
  EXPECT_EQ(MemorySpaceName(5), "host (pinned)");
  // A scalar in a 128-element tile occupies 128 elements.
  PhysicalShape sc = Physical(P("f32[]{:T(128)S(6)}"));
  EXPECT_EQ(sc.padded_major_to_minor, (std::vector<int64_t>{128}));
  EXPECT_EQ(sc.bytes, 512);
  EXPECT_EQ(LogicalBytes(P("s4[64]{0:E(4)}")), 32);  // packed
  EXPECT_EQ(LogicalBytes(P("s4[64]")), 64);          // a byte each unpacked
  EXPECT_EQ(LogicalBytes(P("pred[10]")), 10);
  EXPECT_EQ(LogicalBytes(P("c128[2]")), 32);
  EXPECT_EQ(ElementBits(ElementType::kBF16), 16);
}

TEST(HloShape, TuplesDynamicDimsAndTokens) {
  Shape t = P("(s32[], f32[<=10,4]{1,0}, token[], (bf16[8], u8[?]), /*index=4*/f16[2,2])");
  ASSERT_TRUE(t.is_tuple());
  ASSERT_EQ(t.tuple.size(), 5u);
  EXPECT_TRUE(t.tuple[1].is_dynamic(0));
  EXPECT_FALSE(t.tuple[1].is_dynamic(1));
  EXPECT_TRUE(t.tuple[3].tuple[1].is_dynamic(0));
  EXPECT_FALSE(t.tuple[3].tuple[0].is_dynamic(0));
  EXPECT_EQ(t.tuple[1].dims[0], 10);
  EXPECT_EQ(t.tuple[2].type, ElementType::kToken);
  EXPECT_TRUE(t.tuple[3].is_tuple());
  EXPECT_EQ(LogicalBytes(t), 4 + 10 * 4 * 4 + 0 + 16 + 0 + 8);
  EXPECT_TRUE(P("()").is_tuple());
  size_t used = 0;
  ASSERT_TRUE(ParseShape("f32[2]{0} all-reduce(x)", &used).ok());
  EXPECT_EQ(used, 9u);
}

TEST(HloShape, ErrorsSayColumnAndWhatWasExpected) {
  struct Case {
    const char* text;
    const char* want;
  } cases[] = {
      {"f32[3,5", "column 8: expected ',' or ']'"},
      {"f33[1]", "column 1: expected a known element type, not 'f33'"},
      {"f32[3]{1}", "a dimension number below the rank 1"},
      {"f32[3,4]{0}", "a layout listing all 2 dimensions"},
      {"f32[3,4]{0,0}", "each dimension once"},
      {"f32[2]{0:T(0)}", "a tile size"},
      {"f32[2]{0:Q}", "a layout tag"},
      {"(f32[1] f32[2])", "',' or ')' in a tuple shape"},
      {"", "an element type"},
  };
  // Deeply nested tuples are refused with an error, not a stack overflow.
  {
    std::string deep(5000, '(');
    auto s = ParseShape(deep + "f32[1]" + std::string(5000, ')'));
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.status().message().find("nested less deeply"), std::string::npos) << s.status().message();
    std::string ok(10, '(');
    EXPECT_TRUE(ParseShape(ok + "f32[1]" + std::string(10, ')')).ok());
  }
  for (const Case& c : cases) {
    auto s = ParseShape(c.text);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_NE(s.status().message().find(c.want), std::string::npos) << c.text << " -> " << s.status().message();
  }
}

}  // namespace
}  // namespace mlprof::hlo
