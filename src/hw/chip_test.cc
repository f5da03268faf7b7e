// The chip database: every built-in file loads, figures that tests and seed
// examples rely on, detection from profile device names, and clear errors
// for bad chip files and unknown chips.
#include "hw/chip.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>

namespace mlprof::hw {
namespace {

TEST(Chips, BuiltInFilesLoadWithSources) {
  const auto& chips = ChipDb::BuiltIn().chips();
  std::set<std::string> ids;
  for (const Chip& c : chips) {
    EXPECT_TRUE(ids.insert(c.id).second) << "duplicate id " << c.id;
    EXPECT_FALSE(c.sources.empty()) << c.id;
    EXPECT_GT(c.peak(DType::kBf16) + c.peak(DType::kFp16), 0) << c.id;
    EXPECT_GT(c.hbm_bytes, 0) << c.id;
    EXPECT_GT(c.hbm_bytes_per_s, 0) << c.id;
    EXPECT_FALSE(c.match.empty()) << c.id;
    EXPECT_EQ(c.origin, "built-in");
  }
  // The chips issue 4 names.
  for (const char* id :
       {"tpu-v2", "tpu-v3", "tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-v7x", "a100-40gb", "a100-80gb", "h100-sxm",
        "h100-pcie", "h200", "b200", "gb200", "mi250x", "mi300x", "ascend-910b"})
    EXPECT_TRUE(ids.count(id)) << id;
}

// Figures from ../shared/reference/planner-formulas.md section 3 marked
// [src], and the seed examples of issue 4.
TEST(Chips, FiguresTheSeedsUse) {
  const ChipDb& db = ChipDb::BuiltIn();
  const Chip* v7x = db.Find("tpu-v7x");
  EXPECT_DOUBLE_EQ(v7x->peak(DType::kBf16), 2307e12);
  EXPECT_DOUBLE_EQ(v7x->peak(DType::kFp8), 4614e12);
  EXPECT_NEAR(v7x->ridge(DType::kBf16), 313.0, 0.05);  // 2307e12 / 7.37e12 = 313.03
  const Chip* h200 = db.Find("H200");
  EXPECT_DOUBLE_EQ(h200->peak(DType::kBf16), 989e12);
  EXPECT_DOUBLE_EQ(h200->hbm_bytes_per_s, 4.8e12);
  const Chip* v2 = db.Find("tpu-v2");
  EXPECT_DOUBLE_EQ(v2->peak(DType::kBf16) / v2->cores_per_chip, 23e12);  // 23 TFLOP/s per core
  const Chip* h100 = db.Find("h100-sxm");
  EXPECT_DOUBLE_EQ(h100->peak(DType::kBf16), 989.4e12);
  EXPECT_NEAR(h100->ridge(DType::kBf16), 295.3, 0.05);  // 989.4e12 / 3.35e12
  // NVLink4: 18 links x 25 GB/s per direction = 450 GB/s per direction.
  ASSERT_FALSE(h100->interconnect.empty());
  EXPECT_DOUBLE_EQ(h100->interconnect[0].bytes_per_s_per_dir(), 450e9);
  const Chip* v5p = db.Find("tpu-v5p");
  EXPECT_DOUBLE_EQ(v5p->interconnect[0].bytes_per_s_per_dir_per_axis, 1.8e11);
  // Only a per-chip bidirectional total is published for TPU7x ICI.
  EXPECT_DOUBLE_EQ(v7x->interconnect[0].bytes_per_s_per_dir(), 0.6e12);
}

TEST(Chips, DetectedFromProfileDeviceNames) {
  const ChipDb& db = ChipDb::BuiltIn();
  auto id = [&](const char* name) {
    const Chip* c = db.Detect(name);
    return c ? c->id : std::string("none");
  };
  EXPECT_EQ(id("NVIDIA H100 80GB HBM3"), "h100-sxm");
  EXPECT_EQ(id("NVIDIA H100 PCIe"), "h100-pcie");
  EXPECT_EQ(id("NVIDIA H200"), "h200");
  EXPECT_EQ(id("NVIDIA A100-SXM4-40GB"), "a100-40gb");
  EXPECT_EQ(id("NVIDIA A100-SXM4-80GB"), "a100-80gb");
  EXPECT_EQ(id("TPU v6 Lite"), "tpu-v6e");
  EXPECT_EQ(id("TPU v5 Lite"), "tpu-v5e");  // not v5p, whose "TPU v5" is shorter
  EXPECT_EQ(id("TPU v5"), "tpu-v5p");
  EXPECT_EQ(id("TPU v4"), "tpu-v4");
  EXPECT_EQ(id("AMD Instinct MI300X"), "mi300x");
  EXPECT_EQ(id("Ascend910B3"), "ascend-910b");
  // Issue 36, part 6: the chips of the wild profiles and the parts users
  // have, matched by the names CUDA and ROCm report (PCIe vs SXM exactly).
  EXPECT_EQ(id("Tesla V100-SXM2-16GB"), "v100-sxm2-16gb");
  EXPECT_EQ(id("Tesla V100-SXM2-32GB"), "v100-sxm2-32gb");
  EXPECT_EQ(id("Tesla V100-PCIE-16GB"), "v100-pcie-16gb");
  EXPECT_EQ(id("NVIDIA A100 80GB PCIe"), "a100-pcie-80gb");
  EXPECT_EQ(id("NVIDIA A100-PCIE-40GB"), "a100-pcie-40gb");
  EXPECT_EQ(id("NVIDIA H800"), "h800-sxm");
  EXPECT_EQ(id("NVIDIA H800 PCIe"), "h800-pcie");
  EXPECT_EQ(id("NVIDIA H20"), "h20");
  EXPECT_EQ(id("NVIDIA GH200 480GB"), "gh200-96gb");
  EXPECT_EQ(id("NVIDIA L4"), "l4");
  EXPECT_EQ(id("NVIDIA L40S"), "l40s");
  EXPECT_EQ(id("NVIDIA L40"), "l40");
  EXPECT_EQ(id("NVIDIA A10G"), "a10g");
  EXPECT_EQ(id("Tesla T4"), "t4");
  EXPECT_EQ(id("NVIDIA GeForce RTX 2080 Ti"), "rtx-2080-ti");
  EXPECT_EQ(id("NVIDIA GeForce RTX 3090"), "rtx-3090");
  EXPECT_EQ(id("NVIDIA GeForce RTX 4090"), "rtx-4090");
  EXPECT_EQ(id("NVIDIA GeForce RTX 4080"), "rtx-4080");
  EXPECT_EQ(id("NVIDIA GeForce RTX 4080 SUPER"), "rtx-4080-super");
  EXPECT_EQ(id("NVIDIA GeForce RTX 4070 Ti"), "rtx-4070-ti");
  EXPECT_EQ(id("NVIDIA GeForce RTX 4070"), "rtx-4070");
  EXPECT_EQ(id("NVIDIA GeForce RTX 3070"), "rtx-3070");
  EXPECT_EQ(id("NVIDIA GeForce RTX 3060"), "rtx-3060");
  EXPECT_EQ(id("NVIDIA GeForce RTX 2080"), "rtx-2080");
  EXPECT_EQ(id("NVIDIA GeForce RTX 2080 Ti"), "rtx-2080-ti");  // the longer match wins
  EXPECT_EQ(id("NVIDIA GeForce RTX 2070"), "rtx-2070");
  // Peaks from units and clocks (the whitepapers' figures): FP32 = SMs x
  // lanes x 2 x boost; the RTX 4080's 76 x 128 x 2 x 2.505 GHz = 48.7.
  EXPECT_NEAR(db.Find("rtx-4080")->peak(DType::kFp32), 48.74e12, 0.06e12);
  EXPECT_NEAR(db.Find("rtx-4080")->peak(DType::kBf16), 97.5e12, 0.06e12);
  EXPECT_NEAR(db.Find("rtx-2080")->peak(DType::kFp16), 42.4e12, 0.06e12);  // Turing: 4 x FP32, FP32 accumulate
  EXPECT_EQ(db.Find("rtx-2080")->peak(DType::kBf16), 0);
  EXPECT_EQ(id("AMD Instinct MI210"), "mi210");
  EXPECT_EQ(id("AMD Instinct MI300A"), "mi300a");
  EXPECT_EQ(id("AMD Instinct MI350X"), "mi350x");
  EXPECT_EQ(id("NVIDIA T400"), "none");
  // The 40 GB and 80 GB A100 PCIe parts differ in bandwidth, and so in ridge.
  EXPECT_NEAR(db.Find("a100-pcie-40gb")->hbm_bytes_per_s, 1.555e12, 1e9);
  EXPECT_NEAR(db.Find("a100-pcie-80gb")->hbm_bytes_per_s, 1.935e12, 1e9);
}

TEST(Chips, ClosestIsAHintByModelName) {
  const ChipDb& db = ChipDb::BuiltIn();
  auto closest = [&](const char* name) {
    const Chip* c = db.Closest(name);
    return c ? c->id : std::string("none");
  };
  EXPECT_EQ(closest("NVIDIA GeForce RTX 3050"), "rtx-3060");  // "rtx30" in common
  EXPECT_EQ(closest("NVIDIA H100 NVL"), "h100-sxm");          // "h100"
  EXPECT_EQ(closest("NVIDIA Quadro P1000"), "none");          // nothing with a digit in common beyond two
  EXPECT_EQ(closest("Intel(R) Xeon(R)"), "none");
  EXPECT_EQ(db.Detect("NVIDIA GeForce RTX 3050"), nullptr);  // a hint only: detection stays exact
}

TEST(Chips, UnknownChipIsNull) {
  EXPECT_EQ(ChipDb::BuiltIn().Find("tpu-v9"), nullptr);
  EXPECT_NE(ChipDb::BuiltIn().Find("H200"), nullptr);  // names too, case-insensitively
}

TEST(Chips, BadChipFilesNameTheFieldAndWhatWasExpected) {
  struct Case {
    const char* json;
    const char* expect;
  } cases[] = {
      {"not json", "my.json: chip file is not valid JSON"},
      {"[1]", "expected a JSON object"},
      {R"({"name":"x","peak_tflops":{"bf16":1}})", "field 'id': expected a string"},
      {R"({"id":"x","name":"x"})", "field 'peak_tflops'"},
      {R"({"id":"x","name":"x","peak_tflops":{"bf17":1}})", "field 'peak_tflops.bf17': expected a data type"},
      {R"({"id":"x","name":"x","peak_tflops":{"bf16":-5}})", "field 'peak_tflops.bf16': expected a number"},
      {R"({"id":"x","name":"x","peak_tflops":{"bf16":5},"hbm_bytes_per_s":"fast"})", "field 'hbm_bytes_per_s'"},
      {R"({"id":"x","name":"x","peak_tflops":{"bf16":5},"interconnect":[{"links":2}]})", "field 'interconnect[].name'"},
  };
  for (const auto& c : cases) {
    auto r = ParseChipJson(c.json, "my.json");
    ASSERT_FALSE(r.ok()) << c.json;
    EXPECT_NE(r.status().message().find(c.expect), std::string::npos) << r.status().message();
    EXPECT_EQ(r.status().message().rfind("my.json", 0), 0u) << r.status().message();
  }
}

TEST(Chips, UserFilesAddAndReplace) {
  const std::string dir = ::testing::TempDir();
  const std::string mine = dir + "/mlprof_chip_mine.json", h200 = dir + "/mlprof_chip_h200.json";
  std::ofstream(mine) << R"({"id":"my-npu","name":"My NPU","match":["MyNPU"],"peak_tflops":{"bf16":100},
                            "hbm_bytes":1e9,"hbm_bytes_per_s":2e11,"sources":["lab measurement"]})";
  std::ofstream(h200) << R"js({"id":"h200","name":"H200 (derated)","peak_tflops":{"bf16":700},
                            "hbm_bytes_per_s":4e12})js";
  auto db = ChipDb::WithFiles({mine, h200});
  ASSERT_TRUE(db.ok()) << db.status().message();
  EXPECT_EQ(db->chips().size(), ChipDb::BuiltIn().chips().size() + 1);
  const Chip* n = db->Find("my-npu");
  ASSERT_NE(n, nullptr);
  EXPECT_DOUBLE_EQ(n->ridge(DType::kBf16), 500.0);
  EXPECT_EQ(n->origin, mine);
  EXPECT_EQ(db->Detect("MyNPU rev 2"), n);
  EXPECT_DOUBLE_EQ(db->Find("h200")->peak(DType::kBf16), 700e12);
  auto missing = ChipDb::WithFiles({dir + "/no_such_chip.json"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("cannot open the chip file"), std::string::npos);
  std::remove(mine.c_str());
  std::remove(h200.c_str());
}

TEST(Chips, DTypeNames) {
  DType t;
  ASSERT_TRUE(ParseDType("BF16", &t));
  EXPECT_EQ(t, DType::kBf16);
  ASSERT_TRUE(ParseDType("f32", &t));
  EXPECT_EQ(t, DType::kFp32);
  ASSERT_TRUE(ParseDType("s8", &t));
  EXPECT_STREQ(DTypeName(t), "int8");
  EXPECT_FALSE(ParseDType("bf17", &t));
}

// Devices with no name (XPlane GPU planes): the corpus's MI300X plane says
// AMD, compute capability 9.4, 304 cores, 2,100,000 kHz; its gfx950 plane
// 9.5, 256 cores, 2,400,000 kHz (an MI355X; an MI350X runs at 2.2 GHz).
TEST(Chips, DetectBySignature) {
  const ChipDb& db = ChipDb::BuiltIn();
  const Chip* mi300x = db.DetectSignature("AMD", 9, 4, 304, 2100000);
  ASSERT_NE(mi300x, nullptr);
  EXPECT_EQ(mi300x->id, "mi300x");
  const Chip* mi355x = db.DetectSignature("amd", 9, 5, 256, 2400000);
  ASSERT_NE(mi355x, nullptr);
  EXPECT_EQ(mi355x->id, "mi355x");
  const Chip* mi350x = db.DetectSignature("AMD", 9, 5, 256, 2200000);
  ASSERT_NE(mi350x, nullptr);
  EXPECT_EQ(mi350x->id, "mi350x");
  EXPECT_EQ(db.DetectSignature("AMD", 9, 5, 256, -1), nullptr);  // clock unknown: not sure enough
  EXPECT_EQ(db.DetectSignature("NVIDIA", 9, 4, 304, 2100000), nullptr);
  // MI355X's dense peaks from its architecture: 256 CUs x 2.4 GHz x 8192 FP8 FLOP/CU/clock.
  EXPECT_NEAR(mi355x->peak(DType::kFp8), 256 * 2.4e9 * 8192, 1e11);
  EXPECT_NEAR(mi355x->peak(DType::kBf16), 256 * 2.4e9 * 4096, 1e11);
}

TEST(Chips, FamiliesListTheirDefaultFirst) {
  const ChipDb& db = ChipDb::BuiltIn();
  std::vector<const Chip*> h100 = db.Family("h100");
  ASSERT_EQ(h100.size(), 2u);
  EXPECT_EQ(h100[0]->id, "h100-sxm");
  EXPECT_EQ(h100[1]->id, "h100-pcie");
  EXPECT_EQ(db.Family("A100")[0]->id, "a100-80gb");
  EXPECT_TRUE(db.Family("h100-sxm").empty());
  EXPECT_EQ(db.Find("H100"), nullptr);  // a family, not a chip: the app picks the member
}

TEST(Chips, BadSignaturesNameTheField) {
  auto c = ParseChipJson(
      R"({"id":"x","name":"x","peak_tflops":{"bf16":1},"signatures":[{"vendor":"AMD","compute_capability":[9]}]})",
      "x.json");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("x.json: chip file, field 'signatures[].compute_capability': expected [major, "
                                      "minor]"),
            std::string::npos)
      << c.status().message();
}

}  // namespace
}  // namespace mlprof::hw
