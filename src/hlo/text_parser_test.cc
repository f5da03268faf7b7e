#include "hlo/text_parser.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "../../tests/corpus_util.h"
#include "hlo/attrs.h"

namespace mlprof::hlo {
namespace {

constexpr std::string_view kSmall = R"(// RUN: something | FileCheck %s
/* a block comment */
HloModule m, is_scheduled=true, entry_computation_layout={(f32[4,2]{1,0})->f32[4]{0}}, num_partitions=4

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(f32[] %a, f32[] %b)
}

fused {
  p = f32[4,2]{1,0} parameter(0)
  ROOT n = f32[4,2]{1,0} negate(p), metadata={op_type="neg" op_name="jit(f)/jvp(g)/neg" source_file="/x/a.py" source_line=12}
}

ENTRY %main (x: f32[4,2]) -> f32[4] {
  %x = f32[4,2]{1,0} parameter(0)
  %f = f32[4,2]{1,0} fusion(%x), kind=kLoop,
    calls=fused
  %c = f32[] constant(0)
  %ar = f32[4,2]{1,0} all-reduce(%f), channel_id=1, replica_groups=[2,2]<=[4], use_global_device_ids=true, to_apply=%add
  %t = (f32[4,2]{1,0}, /*index=1*/f32[]) tuple(%ar, /*index=1*/%c)
  ROOT %r = f32[4]{0} reduce(%ar, %c), dimensions={1}, to_apply=%add
}
)";

TEST(HloText, ParsesModulesComputationsAndAttributes) {
  auto r = ParseHloText(kSmall, "small.hlo");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u);
  const Module& m = (*r)[0];
  EXPECT_EQ(m.name, "m");
  EXPECT_EQ(m.num_partitions, 4);
  EXPECT_TRUE(m.is_scheduled);
  ASSERT_EQ(m.computations.size(), 3u);
  const Computation* entry = m.entry_computation();
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->name, "main");
  EXPECT_EQ(entry->instructions.size(), 6u);
  EXPECT_EQ(entry->root_instruction().name, "r");
  EXPECT_TRUE(m.Find("fused")->is_fusion);
  EXPECT_FALSE(m.Find("add")->is_fusion);
  EXPECT_EQ(m.Find("add")->caller_count, 2);

  const Instruction* f = entry->Find("f");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->opcode, "fusion");
  EXPECT_EQ(*f->Attr("kind"), "kLoop");
  ASSERT_EQ(f->called.size(), 1u);  // attribute continued on the next line
  EXPECT_EQ(f->called[0], "fused");
  EXPECT_EQ(f->line, 18u);
  EXPECT_EQ(f->column, 3u);

  const Instruction* t = entry->Find("t");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(std::vector<std::string_view>(t->operand_names.begin(), t->operand_names.end()),
            (std::vector<std::string_view>{"ar", "c"}));
  EXPECT_EQ(std::vector<int32_t>(t->operands.begin(), t->operands.end()), (std::vector<int32_t>{3, 2}));
  EXPECT_EQ(t->shape.tuple.size(), 2u);

  const Instruction* c = entry->Find("c");
  EXPECT_EQ(c->literal, "0");
  EXPECT_EQ(entry->Find("x")->parameter_number, 0);

  // Verbose operands (shape then name) resolve the same way.
  const auto& add_ops = m.Find("add")->root_instruction().operands;
  EXPECT_EQ(std::vector<int32_t>(add_ops.begin(), add_ops.end()), (std::vector<int32_t>{0, 1}));

  const Instruction& neg = m.Find("fused")->root_instruction();
  EXPECT_EQ(neg.metadata.op_name, "jit(f)/jvp(g)/neg");
  EXPECT_EQ(neg.metadata.source_file, "/x/a.py");
  EXPECT_EQ(neg.metadata.source_line, 12);

  ReplicaGroups g;
  ASSERT_TRUE(ParseReplicaGroups(*entry->Find("ar")->Attr("replica_groups"), &g));
  EXPECT_EQ(g.groups, (std::vector<std::vector<int64_t>>{{0, 1}, {2, 3}}));
}

// A computation written in place of a callee name ("to_apply={ ... }", valid
// HLO text) is read as a computation of its own, named after its caller;
// operands without shapes ("tuple(r)") are read as names. Inline bodies
// nest at most 32 deep (a bound, not a stack overflow on hostile input).
TEST(HloText, InlineComputationsAndShapelessOperands) {
  auto r = ParseHloText(R"(HloModule inl
ENTRY main {
  x = f32[8]{0} parameter(0)
  z = f32[] constant(0)
  r = f32[] reduce(x, z), dimensions={0}, to_apply={
    a = f32[] parameter(0)
    b = f32[] parameter(1)
    ROOT s = f32[] add(a, b)
  }
  ROOT t = (f32[]) tuple(r)
})",
                        "inl.hlo");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Module& m = (*r)[0];
  ASSERT_EQ(m.computations.size(), 2u);
  const Computation* body = m.Find("r.to_apply");
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(body->root_instruction().opcode, "add");
  const Instruction* red = m.entry_computation()->Find("r");
  ASSERT_EQ(red->called_ids.size(), 1u);
  EXPECT_EQ(&m.computations[static_cast<size_t>(red->called_ids[0])], body);
  const Instruction* t = m.entry_computation()->Find("t");
  ASSERT_EQ(t->operands.size(), 1u);
  EXPECT_EQ(m.entry_computation()->instructions[static_cast<size_t>(t->operands[0])].name, "r");

  std::string deep = "HloModule d\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT r = f32[] call(x), to_apply=";
  for (int i = 0; i < 40; ++i) deep += "{\n a = f32[] parameter(0)\n ROOT c = f32[] call(a), to_apply=";
  deep += "{ p = f32[] parameter(0)\n ROOT q = f32[] negate(p) }";
  for (int i = 0; i < 41; ++i) deep += "\n}";
  auto d = ParseHloText(deep, "deep.hlo");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("inline computations nested at most 32 deep"), std::string::npos)
      << d.status().message();
}

TEST(HloText, ReplicaGroupForms) {
  ReplicaGroups g;
  // The TPU v6e sample: [[0,1,2,3],[4,5,6,7]] transposed -> {0,4},{1,5},...
  ASSERT_TRUE(ParseReplicaGroups("[4,2]<=[2,4]T(1,0)", &g));
  EXPECT_EQ(g.groups, (std::vector<std::vector<int64_t>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  EXPECT_EQ(g.stride(), 4);
  EXPECT_TRUE(g.iota);
  ASSERT_TRUE(ParseReplicaGroups("[2,64]<=[128]", &g));
  EXPECT_EQ(g.group_count(), 2);
  EXPECT_EQ(g.max_group_size(), 64);
  EXPECT_EQ(g.groups[1].front(), 64);
  EXPECT_EQ(g.stride(), 1);
  ASSERT_TRUE(ParseReplicaGroups("[64,2]<=[2,64]T(1,0)", &g));
  EXPECT_EQ(g.groups[0], (std::vector<int64_t>{0, 64}));
  EXPECT_EQ(g.groups[63], (std::vector<int64_t>{63, 127}));
  // Three dims with a permutation: iota(8) as [2,2,2], transposed (2,1,0):
  // element [i,j,k] of the result is i + 2j + 4k.
  ASSERT_TRUE(ParseReplicaGroups("[2,4]<=[2,2,2]T(2,1,0)", &g));
  EXPECT_EQ(g.groups, (std::vector<std::vector<int64_t>>{{0, 4, 2, 6}, {1, 5, 3, 7}}));
  // The issue's example: strided groups of 8 -> 8-way.
  ASSERT_TRUE(ParseReplicaGroups("{{0,16,32,48,64,80,96,112},{1,17,33,49,65,81,97,113}}", &g));
  EXPECT_EQ(g.max_group_size(), 8);
  EXPECT_EQ(g.stride(), 16);
  // Mesh axes: devices row-major over x=4, y=2; groups along x.
  ASSERT_TRUE(ParseReplicaGroups("mesh['x'=4,'y'=2] {'x'}", &g));
  EXPECT_EQ(g.groups, (std::vector<std::vector<int64_t>>{{0, 2, 4, 6}, {1, 3, 5, 7}}));
  ASSERT_TRUE(ParseReplicaGroups("mesh['x'=4,'y'=2] {'y'}", &g));
  EXPECT_EQ(g.group_count(), 4);
  EXPECT_EQ(g.groups[3], (std::vector<int64_t>{6, 7}));
  ASSERT_TRUE(ParseReplicaGroups("{}", &g));
  EXPECT_TRUE(g.all);
  EXPECT_FALSE(ParseReplicaGroups("[3,2]<=[4]", &g));                    // 6 != 4
  EXPECT_FALSE(ParseReplicaGroups("[4294967296,4294967296]<=[4]", &g));  // would overflow a product
  EXPECT_FALSE(ParseReplicaGroups("[2,2]<=[4]T(0,0)", &g));
  EXPECT_FALSE(ParseReplicaGroups("{{0,1},{2", &g));
}

TEST(HloText, WindowsAndDimLabels) {
  std::vector<WindowDim> w;
  ASSERT_TRUE(ParseWindow("{size=7x7 stride=2x2 pad=3_3x2_4 lhs_dilate=1x2 rhs_dilate=3x1}", &w));
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].size, 7);
  EXPECT_EQ(w[1].stride, 2);
  EXPECT_EQ(w[1].pad_lo, 2);
  EXPECT_EQ(w[1].pad_hi, 4);
  EXPECT_EQ(w[1].base_dilation, 2);
  EXPECT_EQ(w[0].window_dilation, 3);
  EXPECT_FALSE(ParseWindow("{size=0x1}", &w));
  ConvDims d;
  ASSERT_TRUE(ParseConvDimLabels("b01f_01io->b01f", &d));
  EXPECT_EQ(d.input_batch, 0);
  EXPECT_EQ(d.input_feature, 3);
  EXPECT_EQ(d.input_spatial, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(d.kernel_input_feature, 2);
  EXPECT_EQ(d.kernel_output_feature, 3);
  EXPECT_FALSE(ParseConvDimLabels("b01f_01io", &d));
}

TEST(HloText, SyntaxErrorsNameLineColumnAndExpectedToken) {
  struct Case {
    std::string text, expect;
  };
  const Case cases[] = {
      {"", "expected an 'HloModule' header"},
      {"HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  y = f32[2 negate(x)\n}\n",
       "bad.hlo:4:7: HLO syntax error: expected a shape for 'y'"},
      {"HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  y = f32[2] negate(x\n}\n", "bad.hlo:4:20:"},
      {"HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n", "expected '}' to close computation 'e'"},
      {"HloModule m\nENTRY e {\n  x f32[2] parameter(0)\n}\n", "bad.hlo:3:5: HLO syntax error: expected '=' after"},
      {"HloModule m\nENTRY e {\n  x = f32[2] parameter(0), sharding=\n}\n",
       "expected a value for attribute 'sharding'"},
      {"HloModule m\nENTRY e {\n  x = f32[2] parameter(a)\n}\n", "expected a parameter number"},
      {"HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  y = f32[2] map(x), to_apply=nowhere\n}\n",
       "calls unknown computation 'nowhere'"},
      {"HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  x = f32[2] negate(x)\n}\n", "two instructions named 'x'"},
      {"garbage\n", "bad.hlo:1:1: HLO syntax error: expected 'HloModule', found 'garbage'"},
      {"HloModule m\nENTRY e {\n  x = q32[2] parameter(0)\n}\n", "a known element type, not 'q32'"},
  };
  for (const auto& c : cases) {
    auto r = ParseHloText(c.text, "bad.hlo");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.status().message().find(c.expect), std::string::npos) << r.status().message();
  }
}

// Operands are resolved while reading when defined earlier, and by Link when
// they come later (a forward reference); names and decoded metadata stay
// valid in copies of the module after the parsed text and the original are
// gone.
TEST(HloText, ForwardReferencesEscapesAndLifetime) {
  auto text = std::make_unique<std::string>(
      "HloModule fwd\n"
      "ENTRY e {\n"
      "  a = f32[4] parameter(0)\n"
      "  ROOT s = f32[4] add(a, later), metadata={op_name=\"jit(f)/say \\\"hi\\\"\" source_file=\"m.py\"}\n"
      "  later = f32[4] negate(a)\n"
      "}\n");
  auto ms = ParseHloText(*text, "fwd.hlo");
  ASSERT_TRUE(ms.ok()) << ms.status().message();
  std::fill(text->begin(), text->end(), '#');
  text.reset();
  std::vector<Module> copy = *ms;
  ms = Status(DataLoss("gone"));
  const Computation& e = *copy[0].entry_computation();
  const Instruction& s = e.root_instruction();
  EXPECT_EQ(s.name, "s");
  EXPECT_EQ(std::vector<int32_t>(s.operands.begin(), s.operands.end()), (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(s.metadata.op_name, "jit(f)/say \"hi\"");
  EXPECT_EQ(s.metadata.source_file, "m.py");
  EXPECT_EQ(e.instructions[2].name, "later");
  EXPECT_EQ(e.IndexOf("later"), 2);
}

TEST(HloText, SingleInstructionLikeXprofExpressions) {
  StringArena arena;
  auto in = ParseHloInstruction(
      "%all-reduce = f32[5,1024,1024,256]{3,2,1,0:T(8,128)} all-reduce(f32[5,1024,1024,256]{3,2,1,0:T(8,128)} "
      "%bitcast), channel_id=1, replica_groups=[4,2]<=[2,4]T(1,0), use_global_device_ids=true, "
      "to_apply=%region_0.3.clone",
      &arena);
  ASSERT_TRUE(in.ok()) << in.status().message();
  EXPECT_EQ(in->opcode, "all-reduce");
  EXPECT_EQ(std::vector<std::string_view>(in->operand_names.begin(), in->operand_names.end()),
            (std::vector<std::string_view>{"bitcast"}));
  EXPECT_EQ(std::vector<std::string_view>(in->called.begin(), in->called.end()),
            (std::vector<std::string_view>{"region_0.3.clone"}));
  EXPECT_FALSE(ParseHloInstruction("%x = f32[] add(%a, %b) trailing", &arena).ok());
}

using testing::ReadFile;

std::map<std::string, int> CountOpcodes(const std::vector<Module>& ms) {
  std::map<std::string, int> n;
  for (const auto& m : ms)
    for (const auto& c : m.computations)
      for (const auto& in : c.instructions) ++n[std::string(in.opcode)];
  return n;
}

// Every HLO text file in the corpus parses; opcode counts match SOURCE.md.
TEST(HloCorpus, EveryTextFileParses) {
  MLPROF_CORPUS_FILE(dir, "hlo");
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".hlo") continue;
    ++files;
    std::string text = ReadFile(e.path().string());
    auto r = ParseHloText(text, e.path().string());
    if (e.path().filename() == "xla_test_spmd_module_sharding.hlo") {
      // Not HLO text: a protobuf-text HloModuleProto. Refused, saying so.
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().code(), StatusCode::kWrongFormat);
      EXPECT_NE(r.status().message().find("text-format HloModuleProto"), std::string::npos);
      continue;
    }
    EXPECT_TRUE(r.ok()) << r.status().message();
    if (!r.ok()) continue;
    for (const auto& m : *r) {
      EXPECT_GT(m.instruction_count(), 0u) << e.path();
      for (const auto& c : m.computations)
        for (const auto& in : c.instructions) {
          EXPECT_NE(in.shape.type, ElementType::kInvalid) << e.path() << ": " << in.name;
          for (int32_t o : in.operands) EXPECT_GE(o, 0) << e.path() << ": " << in.name;
        }
    }
  }
  EXPECT_EQ(files, 14);
}

TEST(HloCorpus, OpcodeCountsMatchSource) {
  MLPROF_CORPUS_FILE(cp, "hlo/xla_bench_maxtext_llama3_8b_cp_bf16_1x4.hlo");
  auto r = ParseHloText(ReadFile(cp), cp);
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto n = CountOpcodes(*r);
  EXPECT_EQ(n["all-gather"], 18);
  EXPECT_EQ(n["all-reduce"], 50);
  EXPECT_EQ(n["collective-permute"], 11);
  EXPECT_EQ(n["conditional"], 9);
  EXPECT_EQ(n["while"], 2);
  EXPECT_EQ((*r)[0].num_partitions, 4);

  MLPROF_CORPUS_FILE(mx, "hlo/xla_bench_maxtext_mixtral_8x7b_bf16_1x8.hlo");
  r = ParseHloText(ReadFile(mx), mx);
  ASSERT_TRUE(r.ok()) << r.status().message();
  n = CountOpcodes(*r);
  EXPECT_EQ(n["all-to-all"], 192);
  EXPECT_EQ(n["all-gather"], 322);
  EXPECT_EQ(n["all-reduce"], 1261);

  MLPROF_CORPUS_FILE(rn, "hlo/xla_cpu_bench_resnet50_keras_jax_f32.hlo");
  r = ParseHloText(ReadFile(rn), rn);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(CountOpcodes(*r)["convolution"], 53);

  MLPROF_CORPUS_FILE(as, "hlo/xla_test_import_async_collectives.hlo");
  r = ParseHloText(ReadFile(as), as);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_GT(r->size(), 3u);  // "// -----" separated modules
}

// The 1,887 TPU v5 instruction lines from xprof's goldens all parse alone.
TEST(HloCorpus, EveryTpuInstructionLineParses) {
  MLPROF_CORPUS_FILE(path, "hlo/xprof_golden_tpu_v5_training.after_opt_instructions.txt");
  std::ifstream f(path);
  std::string line;
  int n = 0, bad = 0;
  StringArena arena;
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    ++n;
    auto in = ParseHloInstruction(line, &arena);
    if (!in.ok()) {
      ++bad;
      ADD_FAILURE() << in.status().message() << "\n" << line.substr(0, 300);
    }
  }
  EXPECT_EQ(n, 1887);
  EXPECT_EQ(bad, 0);
}

}  // namespace
}  // namespace mlprof::hlo

namespace mlprof::hlo {
namespace {

// C escapes in quoted attribute values; plain runs take the fast path.
TEST(HloAttrs, Unquote) {
  std::string out;
  EXPECT_TRUE(Unquote(R"("jit(f)/dot_general")", &out));
  EXPECT_EQ(out, "jit(f)/dot_general");
  EXPECT_TRUE(Unquote(R"("a\"b\n\101\x42\\")", &out));
  EXPECT_EQ(out, "a\"b\nAB\\");
  EXPECT_TRUE(Unquote(R"("")", &out));
  EXPECT_EQ(out, "");
  EXPECT_FALSE(Unquote("abc", &out));
  EXPECT_FALSE(Unquote(R"("dangling\")", &out));
}

}  // namespace
}  // namespace mlprof::hlo
