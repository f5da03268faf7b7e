// HLO cost model on hand-computed cases; XLA profile analysis against the
// costs the TPU runtime recorded and counts in the corpus.
#include "analysis/xla.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/hlo_summary.h"
#include "analysis/ops.h"
#include "analysis/roofline.h"
#include "hlo/cost.h"
#include "hlo/proto_reader.h"
#include "hlo/text_parser.h"
#include "hw/chip.h"
#include "io/load.h"
#include "report/xla_tables.h"
#include "test_util.h"
#include "xla_synth.h"
#include "xspace_util.h"

namespace mlprof {
namespace {

hlo::Module Parse(std::string_view text) {
  auto r = hlo::ParseHloText(text, "test.hlo");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move((*r)[0]) : hlo::Module{};
}

hlo::Cost CostOf(const hlo::Module& m, std::string_view name) {
  hlo::CostModel cm(m);
  for (const auto& c : m.computations)
    if (const hlo::Instruction* in = c.Find(name)) return cm.Of(c, *in);
  ADD_FAILURE() << "no instruction " << name;
  return {};
}

constexpr std::string_view kModule = R"(HloModule costs, num_partitions=8
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused_slice {
  p0 = f32[1024,64]{1,0} parameter(0)
  p1 = f32[16,64]{1,0} parameter(1)
  s = f32[16,64]{1,0} slice(p0), slice={[0:16], [0:64]}
  ROOT m = f32[16,64]{1,0} multiply(s, p1)
}
ENTRY e {
  x = bf16[32,1024]{1,0} parameter(0)
  w = bf16[1024,256]{1,0} parameter(1)
  dot = f32[32,256]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bx = bf16[4,32,64]{2,1,0} parameter(2)
  by = bf16[4,64,8]{2,1,0} parameter(3)
  bdot = f32[4,32,8]{2,1,0} dot(bx, by), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  img = f32[2,5,3]{2,1,0} parameter(4)
  ker = f32[3,3,4]{2,1,0} parameter(5)
  conv = f32[2,5,4]{2,1,0} convolution(img, ker), window={size=3 pad=1_1}, dim_labels=b0f_0io->b0f
  e1 = f32[32,256]{1,0} exponential(dot)
  n1 = f32[32,256]{1,0} negate(dot)
  r = f32[32]{0} reduce(dot, c0), dimensions={1}, to_apply=add
  c0 = f32[] constant(0)
  big = f32[1024,64]{1,0} parameter(6)
  small = f32[16,64]{1,0} parameter(7)
  f = f32[16,64]{1,0} fusion(big, small), kind=kLoop, calls=fused_slice
  ar = f32[32,256]{1,0} all-reduce(dot), channel_id=1, replica_groups={{0,1,2,3},{4,5,6,7}}, to_apply=add
  ag = f32[128,256]{1,0} all-gather(dot), channel_id=2, replica_groups=[2,4]<=[8], dimensions={0}
  upd = f32[1,256]{1,0} parameter(8)
  i0 = s32[] parameter(9)
  dus = f32[32,256]{1,0} dynamic-update-slice(dot, upd, i0, i0)
  ROOT t = (f32[32,256]{1,0}) tuple(dus)
}
)";

// An XPlane has no Kineto-only columns; analyses read them as defaults. The
// hand-built space's kernel (2.5 us) and memcpy (1 us) were launched by no
// cpu_op.
TEST(XPlaneAnalyses, OpsWithoutKinetoColumns) {
  auto r = LoadTraceBytes(testing::xspace::MakeSpace(), "t.xplane.pb");
  ASSERT_TRUE(r.ok()) << r.status().message();
  Profile prof;
  prof.ranks.push_back(std::move(r).value());
  auto rows = ComputeOpGpuTime(BuildProfileView(prof, {}), {});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].name, "(no cpu_op)");
  EXPECT_EQ(rows[0].gpu_ops, 2);
  EXPECT_EQ(rows[0].gpu_time, 3500000);
  EXPECT_EQ(rows[0].input_dims, "");
}

TEST(HloCost, HandComputedCases) {
  hlo::Module m = Parse(kModule);
  // dot: 2 * |out| * K = 2 * 32*256 * 1024; bytes = inputs (bf16) + output (f32).
  hlo::Cost dot = CostOf(m, "dot");
  EXPECT_DOUBLE_EQ(dot.flops, 2.0 * 32 * 256 * 1024);
  EXPECT_DOUBLE_EQ(dot.bytes_accessed, 32 * 1024 * 2 + 1024 * 256 * 2 + 32 * 256 * 4);
  // Batched: batch dims are in |out|: 2 * 4*32*8 * 64.
  EXPECT_DOUBLE_EQ(CostOf(m, "bdot").flops, 2.0 * 4 * 32 * 8 * 64);
  // 1-D convolution, width 5, kernel 3, pad 1 each side, stride 1: output
  // positions 0 and 4 see 2 real inputs, 1..3 see 3: 13 valid pairs.
  // flops = 2 * Cin(3) * Cout(4) * N(2) * 13.
  EXPECT_DOUBLE_EQ(CostOf(m, "conv").flops, 2.0 * 3 * 4 * 2 * 13);
  // Elementwise: |out| flops, transcendentals counted apart.
  EXPECT_DOUBLE_EQ(CostOf(m, "n1").flops, 32 * 256);
  hlo::Cost e1 = CostOf(m, "e1");
  EXPECT_DOUBLE_EQ(e1.flops, 0);
  EXPECT_DOUBLE_EQ(e1.transcendentals, 32 * 256);
  // reduce: (|in| - |out|) x reducer flops (1 add).
  EXPECT_DOUBLE_EQ(CostOf(m, "r").flops, 32 * 256 - 32);
  // Fusion: flops of the body (16*64 multiplies); bytes: the sliced
  // parameter reads only the slice, the other its size; the root writes.
  hlo::Cost f = CostOf(m, "f");
  EXPECT_DOUBLE_EQ(f.flops, 16 * 64);
  EXPECT_DOUBLE_EQ(f.bytes_read, 16 * 64 * 4 + 16 * 64 * 4);
  EXPECT_DOUBLE_EQ(f.bytes_written, 16 * 64 * 4);
  // all-reduce over groups of 4: flops |out|, bytes in + out, ring sends
  // 2(N-1)/N of the buffer.
  hlo::Cost ar = CostOf(m, "ar");
  EXPECT_EQ(ar.group_size, 4);
  EXPECT_DOUBLE_EQ(ar.flops, 32 * 256);
  EXPECT_DOUBLE_EQ(ar.bytes_accessed, 2.0 * 32 * 256 * 4);
  EXPECT_DOUBLE_EQ(ar.network_bytes, 2.0 * 3 / 4 * 32 * 256 * 4);
  // all-gather [2,4]<=[8]: groups of 4; sends (N-1)/N of the result.
  hlo::Cost ag = CostOf(m, "ag");
  EXPECT_EQ(ag.group_size, 4);
  EXPECT_DOUBLE_EQ(ag.network_bytes, 3.0 / 4 * 128 * 256 * 4);
  EXPECT_DOUBLE_EQ(ag.flops, 0);
  // dynamic-update-slice: reads and writes the update, plus only the first
  // start index (XLA's HandleDynamicUpdateSlice counts operand 2 alone; the
  // second s32 index is not read).
  EXPECT_DOUBLE_EQ(CostOf(m, "dus").bytes_accessed, 256 * 4 * 2 + 4);
  // Zero-cost plumbing.
  EXPECT_DOUBLE_EQ(CostOf(m, "x").bytes_accessed, 0);
}

// XLA's rules (hlo_cost_analysis.cc): a dynamic-update-slice's operand 0
// is updated in place wherever the DUS sits in a fusion, so that parameter
// is not read (here the DUS feeds a negate, not the root); an infeed writes
// its data arrays (its (data, token) result is not a pointer table).
TEST(HloCost, InPlaceUpdatesAndInfeed) {
  hlo::Module m = Parse(R"(HloModule m
body {
  buf = f32[1024,256]{1,0} parameter(0)
  upd = f32[1,256]{1,0} parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  d = f32[1024,256]{1,0} dynamic-update-slice(buf, upd, i, z)
  ROOT n = f32[1024,256]{1,0} negate(d)
}
ENTRY e {
  b = f32[1024,256]{1,0} parameter(0)
  u = f32[1,256]{1,0} parameter(1)
  j = s32[] parameter(2)
  f = f32[1024,256]{1,0} fusion(b, u, j), kind=kLoop, calls=body
  t = token[] after-all()
  inf = ((f32[64,32]{1,0}, s32[8]{0}), token[]) infeed(t)
  ROOT r = (f32[1024,256]{1,0}) tuple(f)
})");
  // Read: the update (1x256 f32) and the index (4 B), not the 1 MB buffer;
  // written: the negated root, 1024x256 f32.
  const hlo::Cost f = CostOf(m, "f");
  EXPECT_DOUBLE_EQ(f.bytes_read, 256 * 4 + 4);
  EXPECT_DOUBLE_EQ(f.bytes_written, 1024 * 256 * 4);
  // infeed: 64x32 f32 + 8 s32 written.
  EXPECT_DOUBLE_EQ(CostOf(m, "inf").bytes_written, 64 * 32 * 4 + 8 * 4);
}

// XLA's reduce-window special case: a window spanning one whole dimension
// (size 2n-1, padding n-1 on both sides, n = 1024 here) is a cumulative sum,
// costed as a reduce plus a broadcast: out/n + n - 1 = 8 + 1023 additions,
// not (2n-2) x out = 2046 x 8192 (about 16,000 times more). A window over
// two dimensions, or padded on one side only, keeps the general rule.
TEST(HloCost, ReduceWindowOverAWholeDimension) {
  hlo::Module m = Parse(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[8,1024]{1,0} parameter(0)
  z = f32[] constant(0)
  cum = f32[8,1024]{1,0} reduce-window(x, z), window={size=1x2047 pad=0_0x1023_1023}, to_apply=add
  low = f32[8,1024]{1,0} reduce-window(x, z), window={size=1x2047 pad=0_0x2046_0}, to_apply=add
  two = f32[8,1024]{1,0} reduce-window(x, z), window={size=3x2047 pad=1_1x1023_1023}, to_apply=add
  ROOT pool = f32[8,512]{1,0} reduce-window(x, z), window={size=1x2 stride=1x2}, to_apply=add
})");
  EXPECT_DOUBLE_EQ(CostOf(m, "cum").flops, 8 + 1023);
  EXPECT_DOUBLE_EQ(CostOf(m, "low").flops, 2046.0 * 8 * 1024);
  EXPECT_DOUBLE_EQ(CostOf(m, "two").flops, (3.0 * 2047 - 1) * 8 * 1024);
  EXPECT_DOUBLE_EQ(CostOf(m, "pool").flops, 1.0 * 8 * 512);
}

// A buffer read through a dynamic-slice and updated in place by a
// dynamic-update-slice (a KV-cache step): the read is the slice (1x256 f32)
// and the index (4 B), not the 1 MB buffer; the DUS root writes its update.
TEST(HloCost, SlicedAndUpdatedInPlace) {
  hlo::Module m = Parse(R"(HloModule m
body {
  buf = f32[1024,256]{1,0} parameter(0)
  i = s32[] parameter(1)
  z = s32[] constant(0)
  ds = f32[1,256]{1,0} dynamic-slice(buf, i, z), dynamic_slice_sizes={1,256}
  u = f32[1,256]{1,0} negate(ds)
  ROOT d = f32[1024,256]{1,0} dynamic-update-slice(buf, u, i, z)
}
ENTRY e {
  b = f32[1024,256]{1,0} parameter(0)
  j = s32[] parameter(1)
  ROOT f = f32[1024,256]{1,0} fusion(b, j), kind=kLoop, calls=body
})");
  const hlo::Cost f = CostOf(m, "f");
  EXPECT_DOUBLE_EQ(f.bytes_read, 256 * 4 + 4);
  EXPECT_DOUBLE_EQ(f.bytes_written, 256 * 4);
}

// Reads follow into a nested fusion: the outer parameter is read as the
// nested fusion reads it, here a 1x256 slice of the 1 MB buffer (1 KB),
// and the other outer parameter whole (a nested fusion passing it through).
TEST(HloCost, ReadsFollowIntoNestedFusions) {
  hlo::Module m = Parse(R"(HloModule m
inner {
  q = f32[1024,256]{1,0} parameter(0)
  ROOT s = f32[1,256]{1,0} slice(q), slice={[0:1], [0:256]}
}
pass {
  ROOT r = f32[1,256]{1,0} parameter(0)
}
outer {
  p = f32[1024,256]{1,0} parameter(0)
  w = f32[1,256]{1,0} parameter(1)
  a = f32[1,256]{1,0} fusion(p), kind=kLoop, calls=inner
  b = f32[1,256]{1,0} fusion(w), kind=kLoop, calls=pass
  ROOT o = f32[1,256]{1,0} add(a, b)
}
ENTRY e {
  x = f32[1024,256]{1,0} parameter(0)
  y = f32[1,256]{1,0} parameter(1)
  ROOT f = f32[1,256]{1,0} fusion(x, y), kind=kLoop, calls=outer
})");
  const hlo::Cost f = CostOf(m, "f");
  EXPECT_DOUBLE_EQ(f.bytes_read, 256 * 4 + 256 * 4);
  EXPECT_DOUBLE_EQ(f.bytes_written, 256 * 4);
}

// A tuple parameter read only through get-tuple-element reads the elements
// taken, each once (here element 0, 4 floats, taken twice: 16 B; the 16 KB
// and 4 KB elements are unused); a non-scalar constant inside the fusion is
// read (4 floats: 16 B), a scalar one is not. Written: the 4-float root.
// The TPU's records leave the constant out (fusion_constants = false).
TEST(HloCost, FusionTupleElementsAndConstants) {
  hlo::Module m = Parse(R"(HloModule m
body {
  pt = (f32[4]{0}, f32[64,64]{1,0}, f32[1000]{0}) parameter(0)
  g0 = f32[4]{0} get-tuple-element(pt), index=0
  g1 = f32[4]{0} get-tuple-element(pt), index=0
  c = f32[4]{0} constant({1, 2, 3, 4})
  s = f32[] constant(2)
  b = f32[4]{0} broadcast(s), dimensions={}
  a = f32[4]{0} add(g0, c)
  m = f32[4]{0} multiply(a, g1)
  ROOT r = f32[4]{0} multiply(m, b)
}
ENTRY e {
  p = (f32[4]{0}, f32[64,64]{1,0}, f32[1000]{0}) parameter(0)
  ROOT f = f32[4]{0} fusion(p), kind=kLoop, calls=body
})");
  const hlo::Cost f = CostOf(m, "f");
  EXPECT_DOUBLE_EQ(f.bytes_read, 16 + 16);
  EXPECT_DOUBLE_EQ(f.bytes_written, 16);
  hlo::CostOptions tpu;
  tpu.fusion_constants = false;
  hlo::CostModel cm(m, tpu);
  EXPECT_DOUBLE_EQ(cm.Of(*m.entry_computation(), m.entry_computation()->root_instruction()).bytes_read, 16);
}

// Convolution flops count only (output, kernel) pairs that read a real input
// element; checked against a brute-force count over every pair.
TEST(HloCost, ConvolutionValidPairsMatchBruteForce) {
  struct Win {
    int64_t in, size, stride, lo, hi, lhs, rhs;
  } cases[] = {{5, 3, 1, 1, 1, 1, 1}, {7, 3, 2, 2, 1, 1, 1}, {6, 4, 1, 3, 3, 2, 1},
               {9, 3, 3, 0, 2, 1, 2}, {4, 5, 2, 4, 4, 3, 2}, {1, 1, 1, 0, 0, 1, 1}};
  for (const Win& w : cases) {
    const int64_t dilated_in = (w.in - 1) * w.lhs + 1, dilated_k = (w.size - 1) * w.rhs + 1;
    const int64_t out = (dilated_in + w.lo + w.hi - dilated_k) / w.stride + 1;
    int64_t brute = 0;
    for (int64_t o = 0; o < out; ++o)
      for (int64_t k = 0; k < w.size; ++k) {
        int64_t pos = o * w.stride + k * w.rhs - w.lo;
        brute += pos >= 0 && pos < dilated_in && pos % w.lhs == 0;
      }
    std::string text = fmt::format(
        "HloModule c\nENTRY e {{\n  x = f32[1,{0},2]{{2,1,0}} parameter(0)\n  k = f32[{1},2,3]{{2,1,0}} parameter(1)\n"
        "  ROOT c = f32[1,{2},3]{{2,1,0}} convolution(x, k), window={{size={1} stride={3} pad={4}_{5} lhs_dilate={6} "
        "rhs_dilate={7}}}, dim_labels=b0f_0io->b0f\n}}\n",
        w.in, w.size, out, w.stride, w.lo, w.hi, w.lhs, w.rhs);
    hlo::Module m = Parse(text);
    // 2 * Cin(2) * Cout(3) * batch(1) * valid pairs
    EXPECT_DOUBLE_EQ(CostOf(m, "c").flops, 2.0 * 2 * 3 * static_cast<double>(brute)) << text;
  }
  // Absurd windows are costed without overflow (UBSan) or a long loop:
  // every pair counts, saturated.
  hlo::Module huge = Parse(
      "HloModule c\nENTRY e {\n  x = f32[1,1000000,2]{2,1,0} parameter(0)\n  k = f32[3,2,3]{2,1,0} parameter(1)\n"
      "  ROOT c = f32[1,1000000,3]{2,1,0} convolution(x, k), window={size=3 stride=4611686018427387904 "
      "lhs_dilate=4611686018427387904 rhs_dilate=4611686018427387904}, dim_labels=b0f_0io->b0f\n}\n");
  EXPECT_DOUBLE_EQ(CostOf(huge, "c").flops, 2.0 * 2 * 3 * 1000000 * 3);
}

TEST(XlaNames, PassesAndScopes) {
  // Real provenance strings from the xprof TPU v5 goldens.
  const char* fwd =
      "jit(train_step)/jit(main)/jvp(Transformer)/decoder/while/body/layers/mlp/wo/dot_general[dimension_numbers=(((2,"
      "), (0,)), ((), ())) precision=None preferred_element_type=None]:";
  EXPECT_EQ(PassFromName(fwd), XlaPass::kForward);
  EXPECT_EQ(ScopeFromName(fwd), (std::vector<std::string>{"Transformer", "decoder", "layers", "mlp", "wo"}));
  const char* bwd = "jit(train_step)/jit(main)/transpose(jvp(Transformer))/decoder/layers/self_attention/add:";
  EXPECT_EQ(PassFromName(bwd), XlaPass::kBackward);
  EXPECT_EQ(ScopeFromName(bwd), (std::vector<std::string>{"Transformer", "decoder", "layers", "self_attention"}));
  EXPECT_EQ(PassFromName("jit(train_step)/jit(main)/jvp(Transformer)/checkpoint/layers/mlp/mul"), XlaPass::kRemat);
  EXPECT_EQ(PassFromName("jit(train_step)/jit(main)/optax/adam/mul"), XlaPass::kOptimizer);
  EXPECT_EQ(PassFromName("XlaModule:"), XlaPass::kUnknown);
  EXPECT_EQ(ScopeFromName("jit(f)/jit(main)/jit(silu)/div:"), (std::vector<std::string>{"silu"}));
}

// SPMD partitions from sharding annotations, when the header leaves
// num_partitions out: the product of the tile assignment's dims.
TEST(HloSummary, ShardingDevices) {
  EXPECT_EQ(ShardingDevices("{devices=[8,1]<=[8]}"), 8);
  EXPECT_EQ(ShardingDevices("{devices=[2,4,2]<=[16] last_tile_dim_replicate}"), 16);
  EXPECT_EQ(ShardingDevices("{devices=[2,2]0,1,2,3}"), 4);
  EXPECT_EQ(ShardingDevices("{{devices=[4,1]<=[4]}, {maximal device=0}}"), 4);
  EXPECT_EQ(ShardingDevices("{replicated}"), 0);
  EXPECT_EQ(ShardingDevices("{maximal device=3}"), 0);
  EXPECT_EQ(ShardingDevices("{devices=[99999999999,2]<=[8]}"), 0);  // absurd: ignored
  auto m = hlo::ParseHloText(R"(HloModule m
ENTRY e {
  p = f32[64,8]{1,0} parameter(0), sharding={devices=[8,1]<=[8]}
  ROOT r = f32[64,8]{1,0} negate(p), sharding={devices=[8,1]<=[8]}
})",
                             "m.hlo");
  ASSERT_TRUE(m.ok()) << m.status().message();
  const std::vector<HloModuleSummary> s = SummarizeHloModules(*m);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].partitions, 8);
  EXPECT_TRUE(s[0].partitions_from_shardings);
}

// Alike collectives merged: two all-gathers of f32[8,64] over the same
// groups are one row of count 2 (each sends 3/4 of 32x64x4 B = 6144 B:
// 12288 together); the one over other groups stays apart.
TEST(HloSummary, CollectivesGroupedWhenAlike) {
  auto m = hlo::ParseHloText(R"(HloModule m, num_partitions=4
ENTRY e {
  p = f32[8,64]{1,0} parameter(0)
  a = f32[32,64]{1,0} all-gather(p), dimensions={0}, replica_groups=[1,4]<=[4]
  b = f32[32,64]{1,0} all-gather(p), dimensions={0}, replica_groups=[1,4]<=[4]
  c = f32[16,64]{1,0} all-gather(p), dimensions={0}, replica_groups={{0,2},{1,3}}
  ROOT t = (f32[32,64]{1,0}, f32[32,64]{1,0}, f32[16,64]{1,0}) tuple(a, b, c)
})",
                             "m.hlo");
  ASSERT_TRUE(m.ok()) << m.status().message();
  const std::vector<HloCollectiveGroup> g = GroupHloCollectives(FindHloCollectives(*m));
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].count, 2);
  EXPECT_EQ(g[0].first.instruction->name, "a");
  EXPECT_DOUBLE_EQ(g[0].network_bytes, 2 * 6144.0);
  EXPECT_EQ(g[1].count, 1);
  EXPECT_EQ(g[1].first.groups.size, 2);
}

// A name two computations use: HloComputationsWith lists both, and
// "computation/name" picks one (tests/data/repeated_names.hlo).
TEST(HloSummary, RepeatedNamesArePicked) {
  auto m = hlo::ParseHloText(testing::ReadFile(std::string(MLPROF_SOURCE_DIR) + "/tests/data/repeated_names.hlo"),
                             "repeated_names.hlo");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(HloComputationsWith(*m, "sum"), (std::vector<std::string>{"add_r", "max_r"}));
  EXPECT_EQ(HloComputationsWith(*m, "%max_r/%sum"), (std::vector<std::string>{"max_r"}));
  auto f = FindHloInstruction(*m, "max_r/sum");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->instruction->opcode, "maximum");
  EXPECT_FALSE(FindHloInstruction(*m, "nope/sum"));
}

TEST(XlaNames, Categories) {
  EXPECT_EQ(GroupFromCategory("convolution fusion", "fusion.556"), OpCategory::kMatmul);
  EXPECT_EQ(GroupFromCategory("loop fusion", "fusion.1"), OpCategory::kElementwise);
  EXPECT_EQ(GroupFromCategory("all-reduce-scatter fusion", "fusion.635"), OpCategory::kCollective);
  EXPECT_EQ(GroupFromCategory("all-gather-done", "all-gather-done.1"), OpCategory::kAsyncWait);
  EXPECT_EQ(GroupFromCategory("custom-call", "vmap_splash_mha_dkv"), OpCategory::kAttention);
  EXPECT_EQ(GroupFromCategory("custom-call", "\"__cublas$gemm\""), OpCategory::kMatmul);
  EXPECT_EQ(GroupFromCategory("copy-start", "copy-start.3"), OpCategory::kMemoryTransfer);
  EXPECT_EQ(GroupFromCategory("data formatting", "copy.488"), OpCategory::kDataFormatting);
  EXPECT_EQ(GroupFromCategory("input fusion", "fusion.9"), OpCategory::kReduction);
  EXPECT_EQ(GroupFromCategory("while", "while.3"), OpCategory::kControlFlow);
  EXPECT_EQ(GroupFromCategory("custom-call", "tpu_custom_call.1"), OpCategory::kCustomCall);
  // GPU: a cuDNN/MIOpen convolution is a convolution, not an opaque custom
  // call; a fusion named after a transpose or copy is data formatting, not a
  // reduction (XLA GPU's input_transpose_fusion: 52 % of the corpus's
  // MI300X conv3d profile).
  EXPECT_EQ(GroupFromCategory("custom-call", "__cudnn$convForward"), OpCategory::kMatmul);
  EXPECT_EQ(GroupFromCategory("custom-call", "__cudnn$convBiasActivationForward"), OpCategory::kMatmul);
  EXPECT_EQ(GroupFromCategory("input fusion", "input_transpose_fusion"), OpCategory::kDataFormatting);
  EXPECT_EQ(GroupFromCategory("loop fusion", "loop_transpose_fusion.1"), OpCategory::kDataFormatting);
  EXPECT_EQ(GroupFromCategory("input fusion", "input_reduce_fusion"), OpCategory::kReduction);
  EXPECT_EQ(GroupFromCategory("loop fusion", "loop_multiply_fusion"), OpCategory::kElementwise);
}

Profile LoadCorpus(const std::string& path) {
  auto p = LoadProfile({path}, {});
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? std::move(p).value() : Profile{};
}

// The TPU runtime records flops and bytes_accessed on every op; the HLO cost
// model on the HloProtos of the same profile must give the same numbers.
TEST(XlaCorpus, TpuRecordedCostsMatchTheCostModel) {
  MLPROF_CORPUS_FILE(path, "xla/xprof_tpu_v6e_x4_psum_hostoffload.xplane.pb");
  Profile p = LoadCorpus(path);
  ASSERT_EQ(p.ranks.size(), 1u);
  const RankProfile& r = p.ranks[0];
  ASSERT_EQ(r.hlo_protos.size(), 4u);
  XlaOps x = ResolveXlaOps(r);
  ASSERT_TRUE(x.problems.empty());
  ASSERT_EQ(x.modules.size(), 4u);
  std::vector<hlo::CostModel> cm;
  for (const auto& m : x.modules) cm.emplace_back(m);
  int compared = 0, matched = 0;
  for (size_t k = 0; k < r.xla_ops.size(); ++k) {
    const XlaOp& op = r.xla_ops[k];
    ASSERT_GE(op.flops, 0);
    ASSERT_GE(op.bytes_accessed, 0);
    for (size_t mi = 0; mi < x.modules.size(); ++mi) {
      if (r.hlo_protos[mi].key.find("(" + std::to_string(static_cast<uint64_t>(op.program_id)) + ")") ==
          std::string::npos)
        continue;
      for (const auto& c : x.modules[mi].computations) {
        const hlo::Instruction* in = c.Find(r.str(op.hlo_op));
        if (!in) continue;
        hlo::Cost cost = cm[mi].Of(c, *in);
        ++compared;
        bool ok = cost.flops == op.flops && cost.bytes_accessed == op.bytes_accessed;
        matched += ok;
        EXPECT_TRUE(ok) << r.str(op.hlo_op) << ": recorded " << op.flops << " flops " << op.bytes_accessed
                        << " bytes; model " << cost.flops << " / " << cost.bytes_accessed;
        break;
      }
    }
  }
  EXPECT_EQ(compared, 17);  // every distinct op of the four TPUs
  EXPECT_EQ(matched, 17);
}

// Host offload: the profile's copy-start/copy-done pairs move tensors to and
// from host memory (S(5) in their HLO shapes); broadcast.2, which reads a
// scalar in S(6) and writes 5 GB of HBM, is not one. Timed against HBM they read as
// 553,759x faster than physics (copy-start) or 0.015 efficient; they are left
// off the roofline, with their time still in the ops' total.
TEST(XlaCorpus, HostOffloadCopiesAreLeftOffTheRoofline) {
  MLPROF_CORPUS_FILE(path, "xla/xprof_tpu_v6e_x4_psum_hostoffload.xplane.pb");
  Profile p = LoadCorpus(path);
  const RankProfile& r = p.ranks[0];
  XlaOps x = ResolveXlaOps(r);
  std::set<std::string> copies;  // distinct async copies, by name
  for (const XlaOpInfo& info : x.ops)
    if (info.category == "copy-start" || info.category == "copy-done") {
      copies.insert(info.hlo_op);
      EXPECT_TRUE(info.host_memory) << info.hlo_op;
    } else {
      EXPECT_FALSE(info.host_memory) << info.hlo_op;
    }
  ASSERT_FALSE(copies.empty());
  RooflineResult rr = RooflineXla(r, x, *hw::ChipDb::BuiltIn().Find("tpu-v6e"), hw::DType::kBf16);
  EXPECT_EQ(rr.host_memory_ops, static_cast<int64_t>(copies.size()));
  Ps all = 0;
  for (size_t i = 0; i < r.ops.size(); ++i)
    if (r.ops.xla[i] >= 0) all += r.ops.dur[i];
  EXPECT_NEAR(rr.time_s, static_cast<double>(all) / 1e12, 1e-9);
  for (const RooflineRow& o : rr.ops) EXPECT_LE(o.efficiency, 1.05) << o.name;
}

// Steps of an XLA profile: per device, the executions of the main module
// jit_f on the XLA Modules line (100 per TPU), the first left out as
// warm-up; the median checked against the raw events sorted here.
TEST(XlaCorpus, StepsPerDeviceFromModuleExecutions) {
  MLPROF_CORPUS_FILE(path, "xla/xprof_tpu_v6e_x4_psum_hostoffload.xplane.pb");
  Profile p = LoadCorpus(path);
  const RankProfile& r = p.ranks[0];
  XlaOps x = ResolveXlaOps(r);
  XlaSteps st = ComputeXlaSteps(r, BreakdownXla(r, x));
  EXPECT_EQ(st.source, XlaSteps::Source::kModuleExecutions);
  EXPECT_EQ(st.module, "jit_f");
  ASSERT_EQ(st.summary.size(), 4u);
  std::map<std::string, std::vector<std::pair<Ps, Ps>>> raw;  // device -> (ts, dur)
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const Track& t = r.track_of(i);
    if (r.str(t.name) != "XLA Modules") continue;
    const std::string_view n = r.str(r.ops.name[i]);
    if (n.substr(0, n.find('(')) != "jit_f") continue;
    raw[std::string(r.str(t.process_name))].push_back({r.ops.ts[i], r.ops.dur[i]});
  }
  for (const XlaStepSummary& sum : st.summary) {
    auto& ev = raw[sum.device];
    std::sort(ev.begin(), ev.end());
    EXPECT_EQ(sum.steps, 100) << sum.device;
    ASSERT_EQ(ev.size(), 100u) << sum.device;
    EXPECT_EQ(sum.steady_steps, 99) << sum.device;
    std::vector<Ps> d;
    for (size_t k = 1; k < ev.size(); ++k) d.push_back(ev[k].second);  // the first is the warm-up
    std::sort(d.begin(), d.end());
    const double median = static_cast<double>(d[49]);  // 99 values: the 50th
    EXPECT_DOUBLE_EQ(sum.median, median) << sum.device;
  }
}

// A Steps line's events keep the number they are named by; a name of more
// than 17 digits is no number (it would overflow) and gets its position.
TEST(XlaSteps, StepsLineNumbersAndHostileNames) {
  Profile p = testing::ProfileFromJson(R"({"traceEvents":[
   {"ph":"M","name":"process_name","pid":1,"args":{"name":"/device:TPU:0"}},
   {"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"Steps"}},
   {"ph":"X","name":"12","pid":1,"tid":1,"ts":0,"dur":10},
   {"ph":"X","name":"123456789012345678901234567890","pid":1,"tid":1,"ts":20,"dur":10},
   {"ph":"X","name":"14","pid":1,"tid":1,"ts":40,"dur":30}]})");
  XlaSteps st = ComputeXlaSteps(p.ranks[0], XlaBreakdown{});
  EXPECT_EQ(st.source, XlaSteps::Source::kStepsLine);
  ASSERT_EQ(st.steps.size(), 3u);
  EXPECT_EQ(st.steps[0].number, 12);
  EXPECT_EQ(st.steps[1].number, 1);  // its position
  EXPECT_EQ(st.steps[2].number, 14);
  ASSERT_EQ(st.summary.size(), 1u);
  EXPECT_EQ(st.summary[0].steady_steps, 2);                 // the first is warm-up
  EXPECT_DOUBLE_EQ(st.summary[0].median, 20.0 * kPsPerUs);  // of 10 and 30 us
}

TEST(XlaCorpus, TpuBreakdown) {
  MLPROF_CORPUS_FILE(path, "xla/xprof_tpu_v6e_x4_psum_hostoffload.xplane.pb");
  Profile p = LoadCorpus(path);
  const RankProfile& r = p.ranks[0];
  XlaOps x = ResolveXlaOps(r);
  XlaBreakdown b = BreakdownXla(r, x);
  EXPECT_EQ(b.devices, 4);
  EXPECT_EQ(b.main_module, "jit_f");
  EXPECT_EQ(b.steps, 100);
  // Independent count: XLA Ops events per hlo_category stat.
  std::map<std::string, int64_t> by_cat;
  Ps total = 0;
  for (size_t i = 0; i < r.ops.size(); ++i)
    if (r.str(r.track_of(i).name) == "XLA Ops") {
      ASSERT_GE(r.ops.xla[i], 0);
      ++by_cat[std::string(r.str(r.xla_ops[static_cast<size_t>(r.ops.xla[i])].category))];
      total += r.ops.dur[i];
    }
  EXPECT_EQ(b.total, total);
  std::map<OpCategory, int64_t> counts;
  for (const auto& row : b.rows) counts[row.group] = row.count;
  EXPECT_EQ(counts[OpCategory::kMemoryTransfer], by_cat["copy-start"] + by_cat["copy-done"]);
  EXPECT_EQ(counts[OpCategory::kElementwise], by_cat["loop fusion"] + by_cat["broadcast"]);
  EXPECT_EQ(counts[OpCategory::kCollective], by_cat["all-reduce"]);
  EXPECT_EQ(counts[OpCategory::kMemoryTransfer] + counts[OpCategory::kElementwise] + counts[OpCategory::kCollective],
            6013);
  EXPECT_EQ(b.efficient_compute + b.model_specific + b.memory_bound + b.overhead, b.total);
}

// GPU: kernels carry hlo_op/hlo_module only; cost comes from the HloProto.
TEST(XlaCorpus, GpuKernelsCostedFromTheirHloProto) {
  MLPROF_CORPUS_FILE(path, "xla/tracelens_mi300x_jax08_gemm.xplane.pb");
  Profile p = LoadCorpus(path);
  const RankProfile& r = p.ranks[0];
  XlaOps x = ResolveXlaOps(r);
  bool found = false;
  for (const auto& info : x.ops)
    // jit_dot(79): bf16[16384,1024] x bf16[1024,4096] through __cublas$gemm
    // (other jit_dot modules have other shapes).
    if (info.module == "jit_dot" && info.hlo_op == "custom-call.1" && info.flops == 2.0 * 16384 * 4096 * 1024 &&
        info.bytes == 16384.0 * 1024 * 2 + 1024.0 * 4096 * 2 + 16384.0 * 4096 * 2) {
      EXPECT_EQ(info.group, OpCategory::kMatmul);
      EXPECT_TRUE(info.cost_from_model);
      found = true;
    }
  EXPECT_TRUE(found);
  // Every XLA kernel found its module.
  for (const auto& info : x.ops) EXPECT_FALSE(info.category.empty()) << info.hlo_op;
}

// The benchmark inputs (bench/xla_synth.h) load as generated: every event,
// step and op is where the generator put it.
TEST(XlaSynth, XSpaceLoadsWithTheGeneratedCounts) {
  synth::XSpaceOptions o;
  o.devices = 3;
  o.ops_per_step = 50;
  o.target_bytes = 200 << 10;
  synth::XSpaceStats st;
  std::string bytes = synth::MakeXSpace(o, &st);
  ASSERT_GT(st.steps, 1);
  auto r = LoadTraceBytes(bytes, "synth.xplane.pb");
  ASSERT_TRUE(r.ok()) << r.status().message();
  uint64_t xla_ops = 0, device = 0, host = 0;
  for (size_t i = 0; i < r->ops.size(); ++i) {
    std::string_view line = r->str(r->track_of(i).name);
    if (line == "XLA Ops") ++xla_ops;
    if (line == "XLA Ops" || line == "XLA Modules" || line == "Steps") ++device;
    if (line.substr(0, 8) == "python3/") ++host;
  }
  EXPECT_EQ(xla_ops, st.xla_op_events);
  EXPECT_EQ(xla_ops, static_cast<uint64_t>(3 * 50 * st.steps));
  EXPECT_EQ(device, st.device_events);
  EXPECT_EQ(host, st.host_events);
  EXPECT_EQ(r->xla_ops.size(), 50u);  // one per distinct op (deduplicated)
  XlaBreakdown b = BreakdownXla(*r, ResolveXlaOps(*r));
  EXPECT_EQ(b.devices, 3);
  EXPECT_EQ(b.steps, st.steps);
}

size_t ColumnOf(const Table& t, std::string_view name) {
  for (size_t c = 0; c < t.columns.size(); ++c)
    if (t.columns[c].name == name) return c;
  ADD_FAILURE() << "no column " << name << " in " << t.id;
  return 0;
}

// The per-step columns of the summary against sums taken here from the raw
// events: per_step_ms = category time / (steps x devices); pct_of_step = that
// over the mean XLA Modules execution; tflops_s = recorded flops / mean time.
TEST(XlaSynth, SummaryPerStepColumnsFromRawEvents) {
  synth::XSpaceOptions o;
  o.devices = 2;
  o.ops_per_step = 40;
  o.target_bytes = 100 << 10;
  synth::XSpaceStats st;
  auto r = LoadTraceBytes(synth::MakeXSpace(o, &st), "synth.xplane.pb");
  ASSERT_TRUE(r.ok()) << r.status().message();
  XlaOps x = ResolveXlaOps(*r);
  XlaBreakdown b = BreakdownXla(*r, x);
  std::map<std::string, double> cat_ps;  // by mlprof category name
  double module_ps = 0, modules = 0;
  for (size_t i = 0; i < r->ops.size(); ++i) {
    std::string_view line = r->str(r->track_of(i).name);
    if (line == "XLA Modules") module_ps += static_cast<double>(r->ops.dur[i]), ++modules;
    if (line != "XLA Ops") continue;
    const XlaOp& op = r->xla_ops[static_cast<size_t>(r->ops.xla[i])];
    cat_ps[OpCategoryName(GroupFromCategory(r->str(op.category), r->str(op.hlo_op)))] +=
        static_cast<double>(r->ops.dur[i]);
  }
  ASSERT_EQ(modules, 2.0 * st.steps);
  const double step_ms = module_ps / modules / 1e9;
  Table t = XlaSummaryTable(0, b);
  auto col = [&](std::string_view name) { return ColumnOf(t, name); };
  ASSERT_FALSE(t.rows.empty());
  double pct_sum = 0;
  for (const auto& row : t.rows) {
    const std::string& cat = std::get<std::string>(row[col("category")].value);
    const double want = cat_ps[cat] / (2.0 * st.steps);  // ps per step, per device
    EXPECT_NEAR(static_cast<double>(std::get<int64_t>(row[col("per_step")].value)), want, 0.5) << cat;
    EXPECT_NEAR(std::get<double>(row[col("pct_of_step")].value), 100.0 * want / 1e9 / step_ms, 1e-6) << cat;
    pct_sum += std::get<double>(row[col("pct_of_step")].value);
  }
  // Ops fill each module execution but for the 10 ns gaps between them.
  EXPECT_LT(pct_sum, 100.0);
  EXPECT_GT(pct_sum, 99.0);
  // tflops_s of the heaviest op: its recorded flops over its mean duration.
  Table ops = XlaTopOpsTable(0, x, XlaOpsByTime(*r, x), 1);
  ASSERT_EQ(ops.rows.size(), 1u);
  auto ocol = [&](std::string_view name) { return ColumnOf(ops, name); };
  const std::string& name = std::get<std::string>(ops.rows[0][ocol("hlo_op")].value);
  double ps = 0, n = 0, flops = 0;
  for (size_t i = 0; i < r->ops.size(); ++i) {
    if (r->ops.xla[i] < 0) continue;
    const XlaOp& op = r->xla_ops[static_cast<size_t>(r->ops.xla[i])];
    if (r->str(op.hlo_op) != name) continue;
    ps += static_cast<double>(r->ops.dur[i]), ++n, flops = op.flops;
  }
  ASSERT_GT(n, 0);
  const double want_rate = flops / (ps / n / 1e12);  // FLOP/s
  EXPECT_NEAR(std::get<double>(ops.rows[0][ocol("flops_per_s")].value), want_rate, 1e-12 * want_rate);
}

// The same synthetic profile read from its XSpace and from the trace-viewer
// JSON the exporter would write for it: the two readers must agree on every
// op, category time, byte count, step and launch; only the flops, an
// internal stat the JSON leaves out, are missing from the JSON.
TEST(XlaSynth, TraceViewerJsonAgreesWithXSpace) {
  synth::XSpaceOptions o;
  o.devices = 2;
  o.ops_per_step = 60;
  o.target_bytes = 150 << 10;
  synth::XSpaceStats sx, sj;
  auto x = LoadTraceBytes(synth::MakeXSpace(o, &sx), "synth.xplane.pb");
  auto j = LoadTraceBytes(synth::MakeTraceViewerJson(o, &sj), "synth.trace.json");
  ASSERT_TRUE(x.ok()) << x.status().message();
  ASSERT_TRUE(j.ok()) << j.status().message();
  ASSERT_EQ(sx.steps, sj.steps);
  EXPECT_EQ(j->format, TraceFormat::kXprofTraceJson);
  EXPECT_EQ(j->ops.size(), x->ops.size());
  EXPECT_EQ(j->xla_ops.size(), x->xla_ops.size());
  auto count_kind = [](const RankProfile& r, OpKind k) { return std::count(r.ops.kind.begin(), r.ops.kind.end(), k); };
  EXPECT_EQ(count_kind(*j, OpKind::kRuntime), count_kind(*x, OpKind::kRuntime));
  EXPECT_EQ(count_kind(*j, OpKind::kRuntime), static_cast<long>(sx.host_events / 4));
  XlaOps xo = ResolveXlaOps(*x), jo = ResolveXlaOps(*j);
  EXPECT_TRUE(xo.problems.empty());
  ASSERT_EQ(jo.problems.size(), 1u);  // says why the flops are missing
  EXPECT_NE(jo.problems[0].find("xplane.pb"), std::string::npos);
  XlaBreakdown bx = BreakdownXla(*x, xo), bj = BreakdownXla(*j, jo);
  EXPECT_EQ(bj.devices, 2);
  EXPECT_EQ(bj.steps, sx.steps);
  EXPECT_EQ(bj.step_time, bx.step_time);
  EXPECT_EQ(bj.total, bx.total);
  EXPECT_EQ(bj.main_module, "jit_train_step");
  ASSERT_EQ(bj.rows.size(), bx.rows.size());
  for (size_t k = 0; k < bx.rows.size(); ++k) {
    EXPECT_EQ(bj.rows[k].group, bx.rows[k].group);
    EXPECT_EQ(bj.rows[k].time, bx.rows[k].time);
    EXPECT_EQ(bj.rows[k].count, bx.rows[k].count);
    EXPECT_EQ(bj.rows[k].bytes, bx.rows[k].bytes);
    EXPECT_GT(bx.rows[k].flops, 0);
    EXPECT_EQ(bj.rows[k].flops, 0);
  }
  // Scopes come from tf_op in both.
  auto sj_rows = XlaScopes(*j, ResolveXlaOps(*j), 3), sx_rows = XlaScopes(*x, ResolveXlaOps(*x), 3);
  ASSERT_EQ(sj_rows.size(), sx_rows.size());
  for (size_t k = 0; k < sx_rows.size(); ++k) {
    EXPECT_EQ(sj_rows[k].path, sx_rows[k].path);
    EXPECT_EQ(sj_rows[k].time, sx_rows[k].time);
  }
}

// The exporter keeps the earliest `cap` events: a JSON with exactly a cap's
// worth of complete events is reported as probably cut.
TEST(XlaSynth, TraceViewerJsonAtTheEventCapIsReported) {
  synth::XSpaceOptions o;
  o.devices = 1;
  o.ops_per_step = 20;
  o.target_bytes = 20 << 10;
  synth::XSpaceStats st;
  const std::string json = synth::MakeTraceViewerJson(o, &st);
  const uint64_t complete = st.device_events + st.host_events;
  ReadOptions at_cap, below_cap;
  at_cap.trace_viewer_caps = {complete};
  below_cap.trace_viewer_caps = {complete + 1};
  auto a = LoadTraceBytes(json, "t.trace.json", at_cap);
  auto b = LoadTraceBytes(json, "t.trace.json", below_cap);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->ops.size(), complete);
  EXPECT_EQ(a->stats.Get(ImportStat::trace_viewer_cap), 1u);
  EXPECT_EQ(b->stats.Get(ImportStat::trace_viewer_cap), 0u);
  // The default caps are the exporter's: 1 M and 5 M.
  EXPECT_EQ(ReadOptions{}.trace_viewer_caps, (std::vector<uint64_t>{1'000'000, 5'000'000}));
}

TEST(XlaSynth, HloTextParsesWithTheGeneratedCounts) {
  synth::HloTextOptions o;
  o.target_bytes = 100 << 10;
  synth::HloTextStats st;
  std::string text = synth::MakeHloText(o, &st);
  auto m = hlo::ParseHloText(text, "synth.hlo");
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(m->size(), 1u);
  EXPECT_EQ((*m)[0].computations.size(), st.computations);
  EXPECT_EQ((*m)[0].instruction_count(), st.instructions);
  for (const auto& c : (*m)[0].computations)
    for (const auto& in : c.instructions)
      for (int32_t id : in.operands) EXPECT_GE(id, 0) << in.name;
}

}  // namespace
}  // namespace mlprof
