// Renderers of the chip, MFU and roofline results: what they print comes
// from the results unchanged, and names from traces are escaped in SVG.
#include "report/hw_tables.h"

#include <gtest/gtest.h>

namespace mlprof {
namespace {

RooflineResult Sample() {
  RooflineResult r;
  r.chip = "test";
  r.dtype = hw::DType::kBf16;
  r.peak = 100e12;
  r.hbm_bw = 1e12;
  r.ridge = 100;
  RooflineRow a;
  a.name = "<script>alert('x')</script>&";
  a.category = "matmul/convolution";
  a.count = 2;
  a.time_s = 0.08;
  a.flops = 2e12;
  a.bytes = 1e10;
  a.intensity = 200;
  a.vs_ridge = 2;
  a.ceiling_pct = 100;
  a.expected_s = 0.02;
  a.measured_s = 0.04;
  a.efficiency = 0.5;
  a.achieved_flops_per_s = 50e12;
  a.bound = RoofBound::kCompute;
  r.ops.push_back(a);
  RooflineRow fast = a;
  fast.name = "too_fast";
  fast.efficiency = 2;
  r.ops.push_back(fast);
  r.above_roof_ops = 1;  // as RooflineFrameworkOps / RooflineXla count it
  r.above_roof_s = 0.08;
  r.time_s = r.time_with_cost_s = 0.16;
  r.expected_s = 0.08;
  return r;
}

TEST(HwTables, RooflineSvgEscapesNamesAndDrawsTheRoof) {
  const std::string svg = RooflineSvg(Sample(), "t <b>");
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(svg.find("<script>"), std::string::npos);
  EXPECT_NE(svg.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;"), std::string::npos);
  EXPECT_NE(svg.find("t &lt;b&gt;"), std::string::npos);
  EXPECT_NE(svg.find("ridge 100 FLOP/B, peak 100 TFLOP/s (test bf16)"), std::string::npos);
  size_t circles = 0;
  for (size_t at = svg.find("<circle"); at != std::string::npos; at = svg.find("<circle", at + 1)) ++circles;
  EXPECT_EQ(circles, 2u);
}

TEST(HwTables, RooflineTablesCarryTheNumbers) {
  const RooflineResult r = Sample();
  Table s = RooflineSummaryTable(0, r);
  ASSERT_EQ(s.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(std::get<double>(s.rows[0][10].value), 0.5);  // efficiency = 0.08 / 0.16
  bool flagged = false;
  for (const auto& n : s.notes)
    flagged |= n.find("1 ops (80.000 ms, 50.0 % of the costed time) ran faster than the roofline") != std::string::npos;
  EXPECT_TRUE(flagged);
  Table ops = RooflineOpsTable(0, r, 1);
  ASSERT_EQ(ops.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(std::get<double>(ops.rows[0][5].value), 2e12);         // FLOPs per execution
  EXPECT_EQ(std::get<int64_t>(ops.rows[0][10].value), 20000 * kPsPerUs);  // expected: 20000 us, in ps
  EXPECT_EQ(std::get<std::string>(ops.rows[0][14].value), "compute");
  ASSERT_EQ(ops.notes.size(), 1u);
  EXPECT_NE(ops.notes[0].find("1 more row (--top 0 for all)."), std::string::npos);
}

}  // namespace
}  // namespace mlprof
