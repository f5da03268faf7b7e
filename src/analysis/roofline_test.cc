// Roofline of XLA ops on a hand-built profile and a made-up chip (peak 100
// TFLOP/s, 1 TB/s HBM: ridge 100 FLOP/byte; 100 GB/s scale-up link), every
// figure computed by hand.
#include "analysis/roofline.h"

#include <gtest/gtest.h>

#include "model/builder.h"

namespace mlprof {
namespace {

hw::Chip TestChip() {
  auto c = hw::ParseChipJson(R"({"id":"test","name":"Test","peak_tflops":{"bf16":100},"hbm_bytes":1e9,
    "hbm_bytes_per_s":1e12,"interconnect":[{"name":"L","scope":"scale-up","links":2,
    "bytes_per_s_per_dir_per_link":5e10}]})",
                             "test.json");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return *c;
}

struct Built {
  RankProfile p;
  XlaOps x;
};

// A: matmul, 2e12 FLOPs, 1e10 bytes, 2 runs of 40 ms.  B: elementwise, 1e9
// FLOPs, 1e10 bytes, 1 run of 20 ms.  C: all-reduce, 1e9 bytes, 1 run of 50
// ms.  D: no cost, 1 run of 5 ms.
void Build(Built* b) {
  ProfileBuilder pb(&b->p);
  const StringId cat = pb.strings().Intern("XLA Ops");
  int32_t ids[4];
  for (int k = 0; k < 4; ++k) {
    XlaOp op;
    op.hlo_op = pb.strings().Intern(std::string(1, static_cast<char>('A' + k)));
    ids[k] = pb.AddXlaOp(op);
  }
  ProfileBuilder::LeanLine line;
  line.track = pb.TrackFor(1, 1);
  const Ps ms = 1'000'000'000;
  struct Ev {
    int op;
    Ps start, dur;
  } evs[] = {
      {0, 0, 40 * ms}, {0, 100 * ms, 40 * ms}, {1, 200 * ms, 20 * ms}, {2, 300 * ms, 50 * ms}, {3, 400 * ms, 5 * ms}};
  for (const Ev& e : evs) {
    pb.LineBase(0, &line);
    pb.AddLean(line, 0, pb.strings().Intern("op"), cat, OpKind::kOther, static_cast<uint64_t>(e.start),
               static_cast<uint64_t>(e.dur), -1, ids[e.op], 0);
  }
  ASSERT_TRUE(pb.Finish().ok());
  b->x.ops.resize(4);
  const OpCategory groups[] = {OpCategory::kMatmul, OpCategory::kElementwise, OpCategory::kCollective,
                               OpCategory::kOther};
  const double flops[] = {2e12, 1e9, -1, -1}, bytes[] = {1e10, 1e10, 1e9, -1};
  for (int k = 0; k < 4; ++k) {
    b->x.ops[static_cast<size_t>(ids[k])].hlo_op = std::string(1, static_cast<char>('A' + k));
    b->x.ops[static_cast<size_t>(ids[k])].group = groups[k];
    b->x.ops[static_cast<size_t>(ids[k])].flops = flops[k];
    b->x.ops[static_cast<size_t>(ids[k])].bytes = bytes[k];
  }
}

const RooflineRow& Op(const RooflineResult& r, const std::string& name) {
  for (const auto& row : r.ops)
    if (row.name == name) return row;
  static RooflineRow none;
  ADD_FAILURE() << "no op " << name;
  return none;
}

TEST(Roofline, OpsAgainstTheRoofline) {
  Built b;
  Build(&b);
  const hw::Chip chip = TestChip();
  RooflineResult r = RooflineXla(b.p, b.x, chip, hw::DType::kBf16);
  EXPECT_DOUBLE_EQ(r.ridge, 100);
  EXPECT_DOUBLE_EQ(r.link_bw, 1e11);
  ASSERT_EQ(r.ops.size(), 4u);
  EXPECT_EQ(r.ops[0].name, "A");  // 80 ms, the most time
  const RooflineRow& a = Op(r, "A");
  EXPECT_EQ(a.count, 2);
  EXPECT_DOUBLE_EQ(a.intensity, 200);
  EXPECT_DOUBLE_EQ(a.vs_ridge, 2);
  EXPECT_DOUBLE_EQ(a.ceiling_pct, 100);
  EXPECT_DOUBLE_EQ(a.expected_s, 0.02);  // 2e12 / 1e14 (memory: 0.01)
  EXPECT_DOUBLE_EQ(a.measured_s, 0.04);
  EXPECT_DOUBLE_EQ(a.efficiency, 0.5);
  EXPECT_DOUBLE_EQ(a.achieved_flops_per_s, 50e12);
  EXPECT_EQ(a.bound, RoofBound::kCompute);
  const RooflineRow& e = Op(r, "B");
  EXPECT_DOUBLE_EQ(e.intensity, 0.1);
  EXPECT_DOUBLE_EQ(e.ceiling_pct, 0.1);
  EXPECT_DOUBLE_EQ(e.expected_s, 0.01);  // 1e10 / 1e12
  EXPECT_DOUBLE_EQ(e.efficiency, 0.5);
  EXPECT_EQ(e.bound, RoofBound::kMemory);
  const RooflineRow& c = Op(r, "C");
  EXPECT_DOUBLE_EQ(c.expected_s, 0.01);  // 1e9 / 1e11
  EXPECT_DOUBLE_EQ(c.efficiency, 0.2);
  EXPECT_EQ(c.bound, RoofBound::kCommunication);
  EXPECT_EQ(Op(r, "D").bound, RoofBound::kUnknown);
  EXPECT_EQ(r.ops_without_cost, 1);
  EXPECT_NEAR(r.time_s, 0.155, 1e-12);
  EXPECT_NEAR(r.time_with_cost_s, 0.150, 1e-12);
  EXPECT_NEAR(r.expected_s, 0.04 + 0.01 + 0.01, 1e-12);

  // Categories: totals over executions.
  ASSERT_EQ(r.categories.size(), 4u);
  const RooflineRow& mm = r.categories[0];
  EXPECT_EQ(mm.name, "matmul/convolution");
  EXPECT_DOUBLE_EQ(mm.flops, 4e12);
  EXPECT_DOUBLE_EQ(mm.bytes, 2e10);
  EXPECT_DOUBLE_EQ(mm.intensity, 200);
  EXPECT_DOUBLE_EQ(mm.efficiency, 0.5);
  EXPECT_DOUBLE_EQ(mm.achieved_flops_per_s, 50e12);
  EXPECT_EQ(mm.bound, RoofBound::kCompute);
}

}  // namespace
}  // namespace mlprof

namespace mlprof {
namespace {

// PyTorch ops on the made-up chip (bf16 100 TFLOP/s, fp32 50, 1 TB/s): a
// bf16 GEMM held to the bf16 peak, a float GEMM to the fp32 one (per-op
// dtype), and an op without a cost.
TEST(Roofline, FrameworkOpsUseEachOpsDtype) {
  auto chip = hw::ParseChipJson(R"({"id":"t","name":"T","peak_tflops":{"bf16":100,"fp32":50},
    "hbm_bytes":1e9,"hbm_bytes_per_s":1e12})",
                                "t.json");
  ASSERT_TRUE(chip.ok()) << chip.status().message();
  std::vector<OpGpuTime> ops(3);
  ops[0].name = "aten::mm";
  ops[0].input_dims = "[[4096,4096],[4096,4096]]";
  ops[0].calls = 2;
  ops[0].gpu_time = 8'000'000'000;  // 8 ms: 4 ms per call
  ops[0].flops_per_call = 2.0 * 4096 * 4096 * 4096;
  ops[0].bytes_per_call = 3.0 * 4096 * 4096 * 2;
  ops[0].cost_kind = "gemm";
  ops[0].cost_dtype = "c10::BFloat16";
  ops[1] = ops[0];
  ops[1].input_dims = "[[4096,4096],[4096,4096]] float";
  ops[1].calls = 1;
  ops[1].gpu_time = 10'000'000'000;  // 10 ms
  ops[1].bytes_per_call = 3.0 * 4096 * 4096 * 4;
  ops[1].cost_dtype = "float";
  ops[2].name = "aten::relu";
  ops[2].calls = 5;
  ops[2].gpu_time = 1'000'000'000;
  RooflineResult r = RooflineFrameworkOps(ops, 0, *chip, hw::DType::kBf16, true);
  ASSERT_EQ(r.ops.size(), 3u);
  const double f = 2.0 * 4096 * 4096 * 4096;     // 137.4 GFLOP
  const RooflineRow& fp32 = r.ops[0];            // 10 ms, the most time
  EXPECT_DOUBLE_EQ(fp32.expected_s, f / 50e12);  // compute bound at the fp32 peak
  EXPECT_DOUBLE_EQ(fp32.efficiency, f / 50e12 / 0.010);
  EXPECT_EQ(fp32.bound, RoofBound::kCompute);
  const RooflineRow& bf16 = r.ops[1];
  EXPECT_DOUBLE_EQ(bf16.measured_s, 0.004);
  EXPECT_DOUBLE_EQ(bf16.expected_s, f / 100e12);
  EXPECT_DOUBLE_EQ(bf16.achieved_flops_per_s, f / 0.004);
  EXPECT_EQ(r.ops[2].bound, RoofBound::kUnknown);
  EXPECT_EQ(r.ops_without_cost, 1);
  EXPECT_NEAR(r.expected_s, f / 50e12 + 2 * f / 100e12, 1e-12);
  EXPECT_NEAR(r.time_with_cost_s, 0.018, 1e-12);
  // Categories: the two GEMMs' totals (3 calls, 18 ms); relu has no cost.
  ASSERT_EQ(r.categories.size(), 2u);
  const RooflineRow& mm = r.categories[0];
  EXPECT_EQ(mm.name, "matmul/convolution");
  EXPECT_EQ(mm.count, 3);
  EXPECT_DOUBLE_EQ(mm.flops, 3 * f);
  EXPECT_DOUBLE_EQ(mm.bytes, 2 * 3.0 * 4096 * 4096 * 2 + 3.0 * 4096 * 4096 * 4);
  EXPECT_DOUBLE_EQ(mm.efficiency, (f / 50e12 + 2 * f / 100e12) / 0.018);
  EXPECT_DOUBLE_EQ(mm.achieved_flops_per_s, 3 * f / 0.018);
  EXPECT_EQ(mm.bound, RoofBound::kCompute);  // intensity ~1024 above the bf16 ridge 100
  EXPECT_EQ(r.categories[1].bound, RoofBound::kUnknown);
  // Held to bf16 alone, the float GEMM looks twice as efficient.
  RooflineResult one = RooflineFrameworkOps(ops, 0, *chip, hw::DType::kBf16, false);
  EXPECT_DOUBLE_EQ(one.ops[0].efficiency, f / 100e12 / 0.010);
  // The header's dtype: the float GEMM holds 10 of the 18 costed ms, so the
  // summary's peak and ridge are fp32's (50 TFLOP/s, 50 FLOP/B), not bf16's.
  ASSERT_EQ(r.dtype_time.size(), 2u);
  EXPECT_EQ(r.dtype_time[0].first, hw::DType::kFp32);
  EXPECT_DOUBLE_EQ(r.dtype_time[0].second, 0.010);
  EXPECT_DOUBLE_EQ(r.dtype_time[1].second, 0.008);
  EXPECT_EQ(r.dtype, hw::DType::kFp32);
  EXPECT_DOUBLE_EQ(r.peak, 50e12);
  EXPECT_DOUBLE_EQ(r.ridge, 50);
  EXPECT_TRUE(one.dtype_time.empty());  // --dtype bf16 given: bf16's header
  EXPECT_EQ(one.dtype, hw::DType::kBf16);
  EXPECT_EQ(r.above_roof_ops, 0);
  // 200 GFLOP in 1 ms is 200 TFLOP/s on a 100 TFLOP/s chip: expected 2 ms,
  // efficiency 2, above the roof.
  std::vector<OpGpuTime> fast(1);
  fast[0].name = "aten::mm";
  fast[0].calls = 1;
  fast[0].gpu_time = 1'000'000'000;
  fast[0].flops_per_call = 2e11;
  fast[0].bytes_per_call = 1e6;
  fast[0].cost_kind = "gemm";
  RooflineResult above = RooflineFrameworkOps(fast, 0, *chip, hw::DType::kBf16, false);
  EXPECT_DOUBLE_EQ(above.ops[0].efficiency, 2);
  EXPECT_EQ(above.above_roof_ops, 1);
  EXPECT_DOUBLE_EQ(above.above_roof_s, 0.001);
  EXPECT_DOUBLE_EQ(above.above_roof_fp32_s, 0);  // held to bf16
  fast[0].cost_dtype = "float";                  // 200 TFLOP/s against fp32's 50: TF32 at least
  RooflineResult tf32 = RooflineFrameworkOps(fast, 0, *chip, hw::DType::kBf16, true);
  EXPECT_DOUBLE_EQ(tf32.above_roof_fp32_s, 0.001);
  // An elementwise op above the fp32 roof is an error, but not TF32's doing.
  fast[0].name = "aten::gelu";
  fast[0].cost_kind = "elementwise";
  fast[0].flops_per_call = 1e6;
  fast[0].bytes_per_call = 4e9;  // 4 GB in 1 ms: 4 TB/s against the chip's 1 TB/s
  RooflineResult gelu = RooflineFrameworkOps(fast, 0, *chip, hw::DType::kBf16, true);
  ASSERT_EQ(gelu.above_roof_ops, 1) << gelu.ops[0].efficiency;
  EXPECT_DOUBLE_EQ(gelu.above_roof_fp32_s, 0);
}

}  // namespace
}  // namespace mlprof

namespace mlprof {
namespace {

TEST(Roofline, CollectiveSeconds) {
  // Ring: the wire bytes over the link.
  EXPECT_DOUBLE_EQ(CollectiveSeconds("all-reduce", 1.5e9, 4, 1e11, {}), 0.015);
  // 16 chips on a 4x4x4 torus span two axes: twice the bandwidth.
  EXPECT_DOUBLE_EQ(CollectiveSeconds("all-reduce", 1.875e9, 16, 1e11, {4, 4, 4}), 1.875e9 / 2e11);
  // 8 of 4x4x4: one whole axis and half of the next, still two axes.
  EXPECT_DOUBLE_EQ(CollectiveSeconds("all-gather", 7e8, 8, 1e11, {4, 4, 4}), 7e8 / 2e11);
  // A tiny buffer is latency-bound: 1 us per hop over half of 4 + 4 + 4.
  EXPECT_DOUBLE_EQ(CollectiveSeconds("reduce-scatter", 1e3, 64, 1e11, {4, 4, 4}), 6e-6);
  // A group that is no product of the axes (6 on 4x4), or an op the axes do
  // not apply to, falls back to the ring.
  EXPECT_DOUBLE_EQ(CollectiveSeconds("all-reduce", 1e9, 6, 1e11, {4, 4}), 0.01);
  EXPECT_DOUBLE_EQ(CollectiveSeconds("collective-permute", 1e9, 2, 1e11, {4, 4}), 0.01);
  EXPECT_LT(CollectiveSeconds("all-reduce", 1e9, 4, 0, {}), 0);
  EXPECT_LT(CollectiveSeconds("all-reduce", -1, 4, 1e11, {}), 0);
}

// An XLA all-reduce with the HLO's ring bytes: timed on them, not on its
// HBM bytes.
TEST(Roofline, XlaCollectiveUsesWireBytes) {
  Built b;
  Build(&b);
  for (auto& info : b.x.ops)
    if (info.hlo_op == "C") info.network_bytes = 6e8, info.group_size = 4, info.collective = "all-reduce";
  RooflineResult r = RooflineXla(b.p, b.x, TestChip(), hw::DType::kBf16);
  EXPECT_DOUBLE_EQ(Op(r, "C").expected_s, 6e8 / 1e11);  // the made-up chip: 2 links x 50 GB/s
  EXPECT_DOUBLE_EQ(Op(r, "C").wire_bytes, 6e8);
  EXPECT_EQ(r.link_model, LinkModel::kAllLinksRing);
  EXPECT_EQ(r.link_name, "L");
  EXPECT_DOUBLE_EQ(r.link_bw, 100e9);
  // The same on a 2x2 torus: the 4-chip group spans both axes.
  RooflineResult t = RooflineXla(b.p, b.x, TestChip(), hw::DType::kBf16, {2, 2});
  EXPECT_DOUBLE_EQ(Op(t, "C").expected_s, 6e8 / 2e11);
}

}  // namespace
}  // namespace mlprof
