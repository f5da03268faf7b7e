#include "hlo/proto_reader.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "../../tests/corpus_util.h"
#include "hlo/attrs.h"

namespace mlprof::hlo {
namespace {

// --- a tiny protobuf writer for hand-built messages ---------------------------
std::string Varint(uint64_t v) { return ::mlprof::testing::EncodeVarint(v); }
std::string Len(uint32_t field, const std::string& body) { return Varint(field << 3 | 2) + Varint(body.size()) + body; }
std::string Int(uint32_t field, uint64_t v) { return Varint(field << 3) + Varint(v); }
std::string Packed(uint32_t field, const std::vector<int64_t>& v) {
  std::string b;
  for (int64_t x : v) b += Varint(static_cast<uint64_t>(x));
  return Len(field, b);
}
// A shape with XLA's default (row-major) layout: minor_to_major {rank-1, ..., 0}.
std::string ShapeMsg(int type, const std::vector<int64_t>& dims) {
  std::vector<int64_t> order;
  for (size_t i = dims.size(); i-- > 0;) order.push_back(static_cast<int64_t>(i));
  return Int(2, static_cast<uint64_t>(type)) + Packed(3, dims) + Len(5, Packed(1, order));
}

// main: p0 = f32[2,3] parameter(0); p1 = f32[3,4] parameter(1); dot; root.
std::string HandBuiltProto() {
  std::string p0 = Len(1, "p0") + Len(2, "parameter") + Len(3, ShapeMsg(11, {2, 3})) + Int(9, 0) + Int(35, 1);
  std::string p1 = Len(1, "p1") + Len(2, "parameter") + Len(3, ShapeMsg(11, {3, 4})) + Int(9, 1) + Int(35, 2);
  std::string dot = Len(1, "dot.1") + Len(2, "dot") + Len(3, ShapeMsg(11, {2, 4})) + Int(35, 3) + Packed(36, {1, 2}) +
                    Len(30, Packed(1, {1}) + Packed(2, {0})) + Len(7, Len(2, "jit(f)/dot_general") + Int(4, 7)) +
                    Len(49, Packed(1, {0, 1})) + Len(49, Packed(1, {2, 3}));
  std::string comp = Len(1, "main") + Len(2, p0) + Len(2, p1) + Len(2, dot) + Int(5, 10) + Int(6, 3);
  std::string module = Len(1, "m") + Len(2, "main") + Len(3, comp) + Int(6, 10);
  return Len(1, module);
}

// A slice with two slice_dimensions (field 17, one message each): one
// "slice" attribute in the text form, dims in order; the strings the reader
// builds live in the module's arena and outlive the bytes read.
TEST(HloProto, SliceDimensionsAndStringsOutliveTheBytes) {
  // proto3 writes no parameter_number 0 (field 9): parameter 0 all the same.
  std::string p0 = Len(1, "p0") + Len(2, "parameter") + Len(3, ShapeMsg(11, {8, 16})) + Int(35, 1);
  std::string sl = Len(1, "slice.2") + Len(2, "slice") + Len(3, ShapeMsg(11, {4, 6})) + Int(35, 2) + Packed(36, {1}) +
                   Len(17, Int(1, 0) + Int(2, 4) + Int(3, 1)) + Len(17, Int(1, 2) + Int(2, 8) + Int(3, 1));
  std::string comp = Len(1, "main") + Len(2, p0) + Len(2, sl) + Int(5, 1) + Int(6, 2);
  auto bytes = std::make_unique<std::string>(Len(1, Len(1, "m") + Len(3, comp) + Int(6, 1)));
  auto m = ReadHloProto(*bytes, "slice.pb");
  ASSERT_TRUE(m.ok()) << m.status().message();
  std::fill(bytes->begin(), bytes->end(), 'x');  // the views must not point here
  bytes.reset();
  const Module copy = *m;  // copies share the arena
  m = Status(DataLoss("gone"));
  const Instruction& s = copy.entry_computation()->root_instruction();
  EXPECT_EQ(s.name, "slice.2");
  EXPECT_EQ(s.opcode, "slice");
  ASSERT_NE(s.Attr("slice"), nullptr);
  EXPECT_EQ(*s.Attr("slice"), "{[0:4:1], [2:8:1]}");
  EXPECT_EQ(copy.entry_computation()->name, "main");
  EXPECT_EQ(copy.entry_computation()->Find("p0")->parameter_number, 0);
}

TEST(HloProto, HandBuiltModule) {
  std::string bytes = HandBuiltProto();
  EXPECT_TRUE(LooksLikeHloProto(bytes));
  auto m = ReadHloProto(bytes, "hand.pb");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->name, "m");
  const Computation* e = m->entry_computation();
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->name, "main");
  const Instruction& dot = e->root_instruction();
  EXPECT_EQ(dot.name, "dot.1");
  EXPECT_EQ(dot.shape.ToString(), "f32[2,4]{1,0}");
  EXPECT_EQ(std::vector<std::string_view>(dot.operand_names.begin(), dot.operand_names.end()),
            (std::vector<std::string_view>{"p0", "p1"}));
  EXPECT_EQ(std::vector<int32_t>(dot.operands.begin(), dot.operands.end()), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(*dot.Attr("lhs_contracting_dims"), "{1}");
  EXPECT_EQ(*dot.Attr("rhs_contracting_dims"), "{0}");
  EXPECT_EQ(*dot.Attr("replica_groups"), "{{0,1},{2,3}}");
  EXPECT_EQ(dot.metadata.op_name, "jit(f)/dot_general");
  EXPECT_EQ(dot.metadata.source_line, 7);
  EXPECT_EQ(e->Find("p1")->parameter_number, 1);
}

TEST(HloProto, BadInputIsAnErrorWithTheOffset) {
  std::string good = HandBuiltProto();
  // Truncated anywhere: an error, never a crash.
  for (size_t n = 0; n < good.size(); ++n) {
    auto m = ReadHloProto(std::string_view(good).substr(0, n), "cut.pb");
    EXPECT_FALSE(m.ok()) << n;
    if (!m.ok()) {
      EXPECT_NE(m.status().message().find("cut.pb: invalid HloProto at byte"), std::string::npos)
          << m.status().message();
    }
  }
  // Absurd length prefix.
  auto m = ReadHloProto(std::string("\x0a\xff\xff\xff\xff\x0f", 6), "len.pb");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(
      m.status().message().find("len.pb: invalid HloProto at byte 0: expected an HloModuleProto of the stated length"),
      std::string::npos)
      << m.status().message();
  // Wrong wire type for a known field (module name as a varint) is skipped
  // as unknown; an operand id that does not exist is an error.
  std::string comp = Len(1, "main") +
                     Len(2, Len(1, "x") + Len(2, "negate") + Len(3, ShapeMsg(11, {2})) + Int(35, 1) + Packed(36, {99}));
  m = ReadHloProto(Len(1, Int(1, 5) + Len(3, comp)), "ops.pb");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("operand id 99"), std::string::npos) << m.status().message();
  // A layout naming a dimension the shape does not have (the fuzzer's
  // find: it indexed past the dims): refused with the offset.
  std::string bad_layout =
      Len(1, "main") + Len(2, Len(1, "x") + Len(2, "parameter") +
                                  Len(3, Int(2, 11) + Packed(3, {2, 3}) + Len(5, Packed(1, {5, 0}))) + Int(35, 1));
  m = ReadHloProto(Len(1, Len(1, "m") + Len(3, bad_layout)), "layout.pb");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("expected a layout (minor_to_major) listing each dimension of the shape once"),
            std::string::npos)
      << m.status().message();
  // Unknown element type.
  comp = Len(1, "main") + Len(2, Len(1, "x") + Len(2, "parameter") + Len(3, Int(2, 999)) + Int(35, 1));
  m = ReadHloProto(Len(1, Len(3, comp)), "type.pb");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("a known element type"), std::string::npos) << m.status().message();
}

using testing::ReadFile;

// The Pax FSDP after-optimisation dump: counts from corpus/hlo/SOURCE.md.
TEST(HloProtoCorpus, PaxFsdpAfterOptimizations) {
  MLPROF_CORPUS_FILE(
      path, "hlo/jaxtoolbox_pax_fsdp4_a100_module_0040.pjit__wrapped_step_fn.sm_8.0_gpu_after_optimizations.hlo.pb");
  auto m = ReadHloProto(ReadFile(path), path);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->entry_computation()->name, "main.29748_spmd");
  std::map<std::string, int> ops, kinds;
  int gemms = 0;
  for (const auto& c : m->computations)
    for (const auto& in : c.instructions) {
      ++ops[std::string(in.opcode)];
      if (in.opcode == "fusion") ++kinds[std::string(*in.Attr("kind"))];
      if (const std::string_view* t = in.Attr("custom_call_target"); t && *t == "\"__cublas$gemm\"") ++gemms;
    }
  EXPECT_EQ(ops["fusion"], 2315);
  EXPECT_EQ(kinds["kInput"], 1215);
  EXPECT_EQ(kinds["kLoop"], 1052);
  EXPECT_EQ(kinds["kCustom"], 48);
  EXPECT_EQ(gemms, 175);
  EXPECT_EQ(ops["all-gather-start"], 10);
  EXPECT_EQ(ops["all-gather-done"], 10);
  EXPECT_EQ(ops["all-reduce-start"], 9);
  EXPECT_EQ(ops["reduce-scatter"], 4);
  EXPECT_EQ(ops["async-start"], 4);
  // Every operand and callee resolves.
  for (const auto& c : m->computations)
    for (const auto& in : c.instructions)
      for (int32_t o : in.operands) ASSERT_GE(o, 0) << in.name;

  MLPROF_CORPUS_FILE(before,
                     "hlo/jaxtoolbox_pax_fsdp4_a100_module_0040.pjit__wrapped_step_fn.before_optimizations.hlo.pb");
  auto b = ReadHloProto(ReadFile(before), before);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->entry_computation()->name, "main.29748");
}

TEST(HloProtoCorpus, LegacySideFilesAndPsum) {
  MLPROF_CORPUS_FILE(conv, "xla/tracelens_mi300x_jax_conv3d_legacy.jit_forward_3d_conv_15.hlo_proto.pb");
  auto m = ReadHloProto(ReadFile(conv), conv);
  ASSERT_TRUE(m.ok()) << m.status().message();
  const Instruction* cudnn = m->entry_computation()->Find("cudnn-conv.1.0");
  ASSERT_NE(cudnn, nullptr);
  EXPECT_EQ(*cudnn->Attr("dim_labels"), "bf012_oi012->bf012");
  std::vector<WindowDim> w;
  ASSERT_TRUE(ParseWindow(*cudnn->Attr("window"), &w));
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[1].size, 2);
  EXPECT_EQ(w[1].stride, 2);
  EXPECT_EQ(w[0].pad_lo, 1);

  MLPROF_CORPUS_FILE(psum, "hlo/jaxtoolbox_pax_fsdp4_a100_module_0038.jit__psum.sm_8.0_gpu_after_optimizations.hlo.pb");
  m = ReadHloProto(ReadFile(psum), psum);
  ASSERT_TRUE(m.ok()) << m.status().message();
  const Instruction* ar = m->entry_computation()->Find("all-reduce-start");
  ASSERT_NE(ar, nullptr);
  ReplicaGroups g;
  ASSERT_TRUE(ParseReplicaGroups(*ar->Attr("replica_groups"), &g));
  EXPECT_EQ(g.max_group_size(), 4);
}

}  // namespace
}  // namespace mlprof::hlo
